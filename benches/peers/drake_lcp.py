#!/usr/bin/env python3
"""Drake peer for signorini LCP benchmarks.

Reads signorini-lcp/1 JSON problems (dense or coo M), builds a MathematicalProgram with
AddLinearComplementarityConstraint(M, q, z), solves it with MobyLcpSolver or
UnrevisedLemkeSolver, times only the Solve call (time.perf_counter, median of R repeats) and
prints one JSON object per problem and solver with the returned z; the caller recomputes the
merit from z.

Every repeat uses a NEW solver object: UnrevisedLemkeSolver keeps the basis of its last solve
and warm-starts the next call on the same program from it (measured on dense SPD n = 1000:
2.5 s for a fresh solver, 0.015-0.02 s for a second call on the same object), which would time
a warm start against our cold one.

Usage: drake_lcp.py [--repeats R] [--solvers moby,unrevised_lemke] FILE.json ...
Needs `pip install drake` (pydrake).
"""

import argparse
import json
import statistics
import time

import numpy as np
from pydrake.solvers import MathematicalProgram, MobyLcpSolver, UnrevisedLemkeSolver

SOLVERS = {"moby": MobyLcpSolver, "unrevised_lemke": UnrevisedLemkeSolver}


def load(path):
    with open(path) as f:
        data = json.load(f)
    m = data["M"]
    if "dense" in m:
        M = np.array(m["dense"], dtype=float)
    else:
        c = m["coo"]
        M = np.zeros((c["n"], c["n"]))
        np.add.at(M, (np.array(c["row"]), np.array(c["col"])), np.array(c["val"], dtype=float))
    return M, np.array(data["q"], dtype=float)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--solvers", default="moby")
    args = ap.parse_args()
    for path in args.files:
        M, q = load(path)
        n = q.shape[0]
        for name in [s for s in args.solvers.split(",") if s]:
            prog = MathematicalProgram()
            z = prog.NewContinuousVariables(n, "z")
            prog.AddLinearComplementarityConstraint(M, q, z)
            times = []
            result = None
            for _ in range(args.repeats):
                solver = SOLVERS[name]()  # fresh: no basis carried over from a previous call
                t0 = time.perf_counter()
                result = solver.Solve(prog)
                times.append(time.perf_counter() - t0)
            zz = result.GetSolution(z)
            print(json.dumps({
                "file": path, "n": n, "solver": name, "success": bool(result.is_success()),
                "median_s": statistics.median(times), "times_s": times,
                "z": [float(v) for v in zz],
            }), flush=True)


if __name__ == "__main__":
    main()
