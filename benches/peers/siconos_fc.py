#!/usr/bin/env python3
"""Siconos numerics peer for signorini frictional-contact benchmarks.

Reads one 3D frictional-contact problem, either a Siconos .dat file (read by Siconos itself,
`frictionContact_new_from_filename`) or a signorini-fc/1 JSON file (written by the signorini
reader for the FCLIB .hdf5 files, which this Siconos build cannot read), runs Siconos solvers
through `fc3d_driver` with tolerance TOL (dparam[SICONOS_DPARAM_TOL]; the solvers' own
iteration limits), times only the driver call (time.perf_counter, R repeats in the process,
each from r = u = 0) and prints one JSON object per solver with the times, Siconos' info code,
iterations, Siconos' own `fc3d_compute_error` of the answer, and r (signorini recomputes the
error from r itself).

Usage: siconos_fc.py [--repeats R] [--tol T] [--solvers nsgs,nsn_ac,admm] FILE
Needs Debian's python3-siconos (Siconos numerics 4.4): run it with /usr/bin/python3.
"""

import argparse
import json
import sys
import time

import numpy as np
import siconos.numerics as sn

SOLVERS = {
    "nsgs": sn.SICONOS_FRICTION_3D_NSGS,
    "nsn_ac": sn.SICONOS_FRICTION_3D_NSN_AC,
    "admm": sn.SICONOS_FRICTION_3D_ADMM,
}

# Siconos' names of the C functions behind the ids, for the tables.
FUNCTIONS = {
    "nsgs": "fc3d_nsgs",
    "nsn_ac": "fc3d_nonsmooth_Newton_AlartCurnier",
    "admm": "fc3d_admm",
}


def load(path):
    if not path.endswith(".json"):
        return sn.frictionContact_new_from_filename(path)
    with open(path) as f:
        data = json.load(f)
    if data.get("format") != "signorini-fc/1":
        raise ValueError(f"{path}: expected format signorini-fc/1")
    d = int(data["dimension"])
    q = np.array(data["q"], dtype=float)
    mu = np.array(data["mu"], dtype=float)
    w = data["W"]
    if "dense" in w:
        W = np.array(w["dense"], dtype=float)
    else:
        c = w["coo"]
        W = np.zeros((c["n"], c["n"]))
        np.add.at(W, (np.array(c["row"]), np.array(c["col"])), np.array(c["val"], dtype=float))
    return sn.FrictionContactProblem(d, np.ascontiguousarray(W), q, mu)


def run(problem, solver, repeats, tol):
    n = problem.dimension * problem.numberOfContacts
    q_norm = float(np.linalg.norm(problem.q))
    times = []
    for _ in range(repeats):
        options = sn.SolverOptions(SOLVERS[solver])
        options.dparam[sn.SICONOS_DPARAM_TOL] = tol
        r = np.zeros(n)
        u = np.zeros(n)
        t0 = time.perf_counter()
        info = sn.fc3d_driver(problem, r, u, options)
        times.append(time.perf_counter() - t0)
    check = sn.SolverOptions(SOLVERS[solver])
    error = sn.fc3d_compute_error(problem, r, u, tol, check, q_norm)
    return {
        "solver": solver,
        "function": FUNCTIONS[solver],
        "dimension": int(problem.dimension),
        "contacts": int(problem.numberOfContacts),
        "info": int(info),
        "iterations": int(options.iparam[sn.SICONOS_IPARAM_ITER_DONE]),
        "max_iter": int(options.iparam[sn.SICONOS_IPARAM_MAX_ITER]),
        "siconos_error": float(error[1]) if isinstance(error, (list, tuple)) else float(error),
        "times_s": times,
        "siconos_version": "4.4",
        "r": [float(v) for v in r],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--solvers", default="nsgs,nsn_ac,admm")
    args = ap.parse_args()
    solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
    for s in solvers:
        if s not in SOLVERS:
            sys.exit(f"unknown solver {s!r}; valid: {', '.join(SOLVERS)}")
    problem = load(args.file)
    if problem.dimension != 3:
        sys.exit(f"{args.file}: dimension {problem.dimension}; these are fc3d solvers")
    for s in solvers:
        print(json.dumps(run(problem, s, args.repeats, args.tol)), flush=True)


if __name__ == "__main__":
    main()
