#!/usr/bin/env python3
"""Siconos numerics peer for signorini LCP benchmarks.

Reads LCP problems in the signorini JSON format
    {"format": "signorini-lcp/1", "M": {"dense": [[...], ...]}, "q": [...]}
(rows are rows), runs Siconos solvers on each, times only the solve call (median of R
repeats, time.perf_counter), recomputes the merit ||min(z, Mz + q)||_2 / ||q||_2 from the
returned z (the signorini definition) and prints one JSON object per problem and solver.

Usage: siconos_lcp.py [--repeats R] [--solvers lexicolemke,pgs,newton_FB] FILE.json ...
Needs Debian's python3-siconos (Siconos numerics 4.4): run it with /usr/bin/python3.
A coo M is passed to Siconos as a scipy.sparse CSC matrix (python3-scipy) for `pgs`, the one
of these Siconos 4.4 LCP solvers that accepts sparse storage (lcp_newton_FB asserts a dense
M->matrix0 and aborts); the other solvers get a dense copy up to DENSE_LIMIT unknowns and are
refused above it.
"""

import argparse
import json
import statistics
import sys
import time

import numpy as np
import siconos.numerics as sn

try:
    import scipy.sparse as scipy_sparse
except ImportError:  # Debian: apt-get install python3-scipy
    scipy_sparse = None

SOLVERS = {
    "lexicolemke": (sn.SICONOS_LCP_LEMKE, sn.lcp_lexicolemke),
    "pgs": (sn.SICONOS_LCP_PGS, sn.lcp_pgs),
    "newton_FB": (sn.SICONOS_LCP_NEWTON_FB_FBLSA, sn.lcp_newton_FB),
    "newton_minFBLSA": (sn.SICONOS_LCP_NEWTON_MIN_FBLSA, sn.lcp_newton_minFB),
}


DENSE_LIMIT = 3000
SPARSE_OK = {"pgs"}


def merit(M, q, z):
    w = M @ z + q
    r = np.linalg.norm(np.minimum(z, w))
    qn = np.linalg.norm(q)
    return float(r / qn) if qn > np.finfo(float).eps else float(r)


def load(path):
    with open(path) as f:
        data = json.load(f)
    if data.get("format") != "signorini-lcp/1":
        raise ValueError(f"{path}: expected format signorini-lcp/1")
    m = data.get("M", {})
    if "dense" in m:
        M = np.array(m["dense"], dtype=float)
    elif "coo" in m:
        c = m["coo"]
        row, col = np.array(c["row"]), np.array(c["col"])
        val = np.array(c["val"], dtype=float)
        if scipy_sparse is not None:
            # Duplicates are summed, as in the signorini format; 64-bit indices as Siconos uses.
            M = scipy_sparse.coo_matrix((val, (row, col)), shape=(c["n"], c["n"])).tocsc()
            M.indices = M.indices.astype(np.int64)
            M.indptr = M.indptr.astype(np.int64)
        else:
            if c["n"] > DENSE_LIMIT:
                raise ValueError(f"{path}: sparse n = {c['n']} needs scipy (apt-get install python3-scipy)")
            M = np.zeros((c["n"], c["n"]))
            np.add.at(M, (row, col), val)
    else:
        raise ValueError(f"{path}: M is neither dense nor coo")
    q = np.array(data["q"], dtype=float)
    if M.ndim != 2 or M.shape[0] != M.shape[1] or M.shape[0] != q.shape[0]:
        raise ValueError(f"{path}: M is {M.shape}, q has {q.shape[0]} entries")
    return data.get("name", path), M, q


def run(name, path, M, q, solver, repeats, max_iter, tol):
    solver_id, fn = SOLVERS[solver]
    n = q.shape[0]
    if scipy_sparse is not None and scipy_sparse.issparse(M):
        if solver in SPARSE_OK:
            problem = sn.LCP(M, q.copy())
        elif n <= DENSE_LIMIT:
            problem = sn.LCP(np.ascontiguousarray(M.toarray()), q.copy())
        else:
            raise ValueError(
                f"siconos {solver} needs a dense M (Siconos 4.4 asserts M->matrix0); "
                f"refused at n = {n} > {DENSE_LIMIT}")
    else:
        problem = sn.LCP(np.ascontiguousarray(M), q.copy())
    times = []
    info = None
    iters = None
    z = np.zeros(n)
    for _ in range(repeats):
        options = sn.SolverOptions(solver_id)
        if max_iter is not None:
            options.iparam[0] = max_iter
        if tol is not None:
            options.dparam[0] = tol
        z = np.zeros(n)
        w = np.zeros(n)
        t0 = time.perf_counter()
        info = fn(problem, z, w, options)
        t1 = time.perf_counter()
        times.append(t1 - t0)
        iters = int(options.iparam[sn.SICONOS_IPARAM_ITER_DONE])
    return {
        "file": path,
        "name": name,
        "n": n,
        "solver": solver,
        "info": int(info),
        "iterations": iters,
        "repeats": repeats,
        "median_s": statistics.median(times),
        "min_s": min(times),
        "times_s": times,
        "residual": merit(M, q, z),
        "siconos_version": "4.4",
        "z": [float(v) for v in z],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--solvers", default="lexicolemke")
    ap.add_argument("--max-iter", type=int, default=None)
    ap.add_argument("--tol", type=float, default=None)
    args = ap.parse_args()
    solvers = [s.strip() for s in args.solvers.split(",") if s.strip()]
    for s in solvers:
        if s not in SOLVERS:
            sys.exit(f"unknown solver {s!r}; valid: {', '.join(SOLVERS)}")
    for path in args.files:
        name, M, q = load(path)
        for s in solvers:
            out = run(name, path, M, q, s, args.repeats, args.max_iter, args.tol)
            print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
