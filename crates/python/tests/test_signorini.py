"""pytest suite of the signorini Python package: every answer is re-checked with numpy."""

import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import signorini

ROOT = Path(__file__).resolve().parents[3]
DATA = ROOT / "verification" / "data"
SCENES = ROOT / "verification" / "scenes"


def merit(M, q, z):
    """||min(z, w)||_2 / ||q||_2 with w = M z + q, recomputed here (numpy or scipy.sparse M)."""
    w = M @ z + q
    nq = np.linalg.norm(q)
    r = np.linalg.norm(np.minimum(z, w))
    return r / nq if nq > np.finfo(float).eps else r


def check_solution(M, q, sol, tol=1e-6):
    assert sol.status == "solved", sol
    z, w = sol.z, sol.w
    assert isinstance(z, np.ndarray) and z.dtype == np.float64 and z.shape == (len(q),)
    assert isinstance(w, np.ndarray) and w.dtype == np.float64 and w.shape == (len(q),)
    np.testing.assert_allclose(w, M @ z + q, rtol=1e-12, atol=1e-12 * (1 + np.abs(q).max()))
    assert (z >= 0).all()
    scale = 1 + np.abs(q).max()
    assert w.min() >= -tol * scale
    assert np.abs(z * w).max() <= tol * scale * (1 + z.max())
    assert merit(M, q, z) == pytest.approx(sol.residual, rel=1e-6, abs=1e-14)
    assert sol.residual <= sol.tol
    assert sol.complementarity == pytest.approx(np.abs(z * w).max(), rel=1e-9, abs=1e-300)


def random_pd(n, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((n, n))
    return a @ a.T + n * np.eye(n), rng.standard_normal(n) * 10


def tridiagonal(n):
    return sp.diags(
        [-np.ones(n - 1), 4 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1], format="csr"
    )


# ---------------------------------------------------------------- solve


def test_readme_example():
    M = np.array([[2.0, 1.0], [1.0, 2.0]])
    q = np.array([-5.0, -6.0])
    sol = signorini.solve(M, q, solver="lemke")
    check_solution(M, q, sol)
    np.testing.assert_allclose(sol.z, [4 / 3, 7 / 3], rtol=1e-12)
    assert sol.certificate is None
    assert sol.solver == "lemke"
    assert sol.pivots is not None and sol.iterations >= 1
    assert sol.solve_seconds >= 0


@pytest.mark.parametrize("solver", ["lemke", "bpp", "pgs", "newton-min", "apgd", "ipm", "auto"])
def test_solvers_agree_with_numpy(solver):
    M, q = random_pd(30, seed=3)
    sol = signorini.solve(M, q, solver=solver, tol=1e-8)
    check_solution(M, q, sol, tol=1e-6)


def test_spec_string_and_options():
    M, q = random_pd(20, seed=5)
    sol = signorini.solve(M, q, solver="pgs:omega=1.3", tol=1e-9, max_iter=100000)
    assert sol.solver == "pgs:omega=1.3"
    assert sol.tol == 1e-9
    check_solution(M, q, sol)
    short = signorini.solve(M, q, solver="pgs", tol=1e-12, max_iter=1)
    assert short.status == "max_iterations"
    assert short.iterations == 1


def test_warm_start_and_list_input():
    M = [[2.0, 1.0], [1.0, 2.0]]
    q = [-5.0, -6.0]
    sol = signorini.solve(M, q, solver="pgs", warm_start=[4 / 3, 7 / 3])
    check_solution(np.array(M), np.array(q), sol)
    by_name = signorini.solve(M=np.array(M), q=np.array(q), solver="lemke")
    np.testing.assert_allclose(by_name.z, [4 / 3, 7 / 3], rtol=1e-12)


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("index", [np.int32, np.int64])
def test_sparse_input_any_format_and_index_dtype(fmt, index):
    n = 200
    M = tridiagonal(n).asformat(fmt)
    if fmt == "coo":
        M = sp.coo_matrix((M.data, (M.row.astype(index), M.col.astype(index))), shape=M.shape)
    else:
        M.indices = M.indices.astype(index)
        M.indptr = M.indptr.astype(index)
    q = np.random.default_rng(7).standard_normal(n)
    sol = signorini.solve(M, q, solver="bpp")
    check_solution(M.tocsr(), q, sol)
    dense = signorini.solve(M.toarray(), q, solver="bpp")
    np.testing.assert_allclose(sol.z, dense.z, rtol=1e-10, atol=1e-12)


def test_sparse_duplicates_are_summed():
    M = sp.coo_matrix(([1.0, 1.0, 2.0], ([0, 0, 1], [0, 0, 1])), shape=(2, 2))
    sol = signorini.solve(M, [-2.0, -2.0], solver="lemke")
    np.testing.assert_allclose(sol.z, [1.0, 1.0])


LARGE = """
import resource, sys, time
import numpy as np, scipy.sparse as sp, signorini
n = 100_000
M = sp.diags([-np.ones(n - 1), 4 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1], format="csr")
q = np.random.default_rng(11).standard_normal(n)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
sol = signorini.solve(M, q, solver=sys.argv[1])
seconds = time.perf_counter() - t
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
w = M @ sol.z + q
r = np.linalg.norm(np.minimum(sol.z, w)) / np.linalg.norm(q)
print(sol.status, r, sol.residual, (after - before) * 1024, after * 1024, seconds)
"""


@pytest.mark.parametrize("solver", ["auto", "pgs", "newton-min"])
def test_sparse_1e5_unknowns_never_densified(solver):
    """n = 10^5: a dense M would take 8e10 bytes (80 GB); the solve's peak-memory growth,
    measured in a fresh interpreter with ru_maxrss, stays below 1 GiB."""
    out = subprocess.run(
        [sys.executable, "-c", LARGE, solver], capture_output=True, text=True, check=True
    ).stdout.split()
    status, r, residual, delta, peak, seconds = out[0], *map(float, out[1:])
    assert status == "solved"
    assert r <= 1e-6 and r == pytest.approx(residual, rel=1e-6, abs=1e-15)
    dense_bytes = 8 * 100_000**2
    assert delta < 2**30 < dense_bytes / 50
    print(f"\n{solver}: n = 1e5, ru_maxrss delta {delta / 2**20:.1f} MiB, "
          f"peak {peak / 2**20:.1f} MiB, {seconds:.3f} s")


def test_infeasible_certificate_rechecked_by_numpy():
    # w = M z + q with M = [[-1, 1], [0, -1]], q = (-1, -1): no z >= 0 gives w >= 0.
    M = np.array([[-1.0, 1.0], [0.0, -1.0]])
    q = np.array([-1.0, -1.0])
    sol = signorini.solve(M, q, solver="lemke")
    assert sol.status == "infeasible", sol
    cert = sol.certificate
    assert cert["kind"] == "farkas"
    y = cert["y"]
    assert isinstance(y, np.ndarray) and y.dtype == np.float64 and y.shape == (2,)
    assert (y >= 0).all() and y.max() > 0
    assert (M.T @ y <= 1e-12 * np.abs(M).T @ y).all()
    assert q @ y < 0


def test_enumeration_certificate():
    # w = -z_1 - z_2 - 1 < 0 for every z >= 0; enum proves it by examining all 2^2 index sets.
    M = -np.ones((2, 2))
    q = -np.ones(2)
    sol = signorini.solve(M, q, solver="enum")
    assert sol.status == "no_solution", sol
    assert sol.certificate == {"kind": "enumeration", "index_sets": 4}


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "args, kwargs, message",
    [
        (([[np.nan, 0.0], [0.0, 1.0]], [1.0, 1.0]), {}, "M[0][0] = NaN is not finite"),
        (([[1.0, 0.0], [0.0, 1.0]], [1.0, np.inf]), {}, "q[1] = inf is not finite"),
        ((sp.csr_matrix(np.array([[1.0, np.nan], [0.0, 1.0]])), [1.0, 1.0]), {}, "not finite"),
        ((np.ones((2, 3)), [1.0, 1.0]), {}, "M is 2x3, it must be square"),
        ((sp.csr_matrix(np.ones((2, 3))), [1.0, 1.0]), {}, "M is 2x3, it must be square"),
        ((np.eye(2), [1.0, 1.0, 1.0]), {}, "q has 3 entries but M is 2x2"),
        ((np.ones(4), [1.0]), {}, "M must be a 2-D array or a scipy.sparse matrix; got an "
         "array of shape (4,)"),
        ((np.ones((2, 2, 2)), [1.0, 1.0]), {}, "got an array of shape (2, 2, 2)"),
        ((np.eye(2), np.ones((2, 1))), {}, "q must be a 1-D array; got an array of shape (2, 1)"),
        ((np.eye(2), [1.0, 1.0]), {"solver": "nope"}, "unknown solver `nope`; valid solvers:"),
        ((np.eye(2), [1.0, 1.0]), {"solver": "pgs:omeg=1"}, "has no parameter `omeg`"),
        ((np.eye(2), [1.0, 1.0]), {"solver": "pgs:omega=x"}, "omega = `x`"),
        ((np.eye(2), [1.0, 1.0]), {"tol": 1.0}, "tol = 1: must be a number with 0 < tol"),
        ((np.eye(2), [1.0, 1.0]), {"max_iter": 0}, "max_iter = 0: must be at least 1"),
        ((np.eye(2), [1.0, 1.0]), {"time_limit": -1.0}, "time_limit = -1"),
        ((np.eye(2), [1.0, 1.0]), {"memory_limit": 0.0}, "memory_limit = 0"),
        ((np.eye(2), [1.0, 1.0]), {"warm_start": [1.0]}, "warm start: has 1 entries"),
        ((np.eye(2), [1.0, 1.0]), {"warm_start": [1.0, np.nan]}, "warm start: entry 1"),
    ],
)
def test_bad_arguments_raise_value_error_with_one_line(args, kwargs, message):
    with pytest.raises(ValueError) as info:
        signorini.solve(*args, **kwargs)
    text = str(info.value)
    assert message in text
    assert "\n" not in text


def test_memory_budget_is_a_value_error():
    n = 20_000
    M = tridiagonal(n)
    with pytest.raises(ValueError, match="memory_limit"):
        # The dense tableau (lemke's default basis for a sparse M is the sparse LU up to
        # n = 20 000, which would run instead of refusing).
        signorini.solve(M, -np.ones(n), solver="lemke:basis=dense", memory_limit=0.01)


def test_a_panic_becomes_runtime_error():
    with pytest.raises(RuntimeError, match="internal error.*boom"):
        signorini._panic("boom")


# ---------------------------------------------------------------- threads


def test_two_threads_solve_at_once_and_the_gil_is_released():
    n = 200_000
    M = tridiagonal(n)
    q = np.random.default_rng(2).standard_normal(n)
    results, spans = {}, {}

    def work(name, solver):
        t0 = time.perf_counter()
        results[name] = signorini.solve(M, q, solver=solver)
        spans[name] = (t0, time.perf_counter())

    threads = [threading.Thread(target=work, args=(s, s)) for s in ("bpp", "newton-min")]
    ticks = []
    for t in threads:
        t.start()
    while any(t.is_alive() for t in threads):
        ticks.append(time.perf_counter())
    for t in threads:
        t.join()
    for s in ("bpp", "newton-min"):
        check_solution(M, q, results[s])
    # With the GIL held for a whole solve, this thread could not run while the solve ran:
    # its ticks fill the middle of each solve's span.
    for s, (t0, t1) in spans.items():
        mid0, mid1 = t0 + 0.3 * (t1 - t0), t0 + 0.7 * (t1 - t0)
        assert any(mid0 < t < mid1 for t in ticks), (s, t1 - t0, len(ticks))


# ---------------------------------------------------------------- files


def test_read_every_format_the_cli_reads(tmp_path):
    M, q = signorini.read(DATA / "siconos-lcp" / "lcp_deudeu.dat")
    assert M.shape == (len(q), len(q))
    check_solution(M, q, signorini.solve(M, q, solver="lemke"))
    Mf, qf = signorini.read(DATA / "fclib" / "local_problem_test.hdf5")
    assert Mf.shape[0] == len(qf) > 0
    for name in ("p.json", "p.dat", "p.mtx"):
        signorini.write(tmp_path / name, M, q)
        M2, q2 = signorini.read(str(tmp_path / name))
        np.testing.assert_allclose(q2, q)
        np.testing.assert_allclose(M2.toarray() if sp.issparse(M2) else M2, M)
    folder = tmp_path / "mm"
    folder.mkdir()
    signorini.write(folder, M, q, format="mtx")
    M3, q3 = signorini.read(folder)
    np.testing.assert_allclose(M3.toarray() if sp.issparse(M3) else M3, M)


def test_sparse_round_trip_stays_sparse(tmp_path):
    M = tridiagonal(50)
    q = -np.ones(50)
    for name in ("s.json", "s.dat"):
        signorini.write(tmp_path / name, M, q)
        M2, q2 = signorini.read(tmp_path / name)
        assert sp.issparse(M2) and M2.format == "csr"
        assert (abs(M2 - M)).max() == 0
        np.testing.assert_array_equal(q2, q)


def test_read_errors(tmp_path):
    with pytest.raises(ValueError, match="cannot tell the format"):
        signorini.read(tmp_path / "x.txt")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(ValueError, match="bad.json"):
        signorini.read(bad)
    with pytest.raises(ValueError, match="unknown format `xyz`"):
        signorini.read(bad, format="xyz")
    with pytest.raises(ValueError):
        signorini.write(tmp_path / "no" / "dir" / "p.json", np.eye(1), [1.0])


# ---------------------------------------------------------------- solvers


def test_solvers_lists_names_classes_and_defaults():
    listed = signorini.solvers()
    lcp = {s["name"]: s for s in listed if s["problem"] == "lcp"}
    fc = {s["name"]: s for s in listed if s["problem"] == "fc"}
    assert {"lemke", "pgs", "auto", "bpp", "newton-min"} <= set(lcp)
    assert {"nsgs", "newton-ac"} <= set(fc)
    omega = [p for p in lcp["pgs"]["parameters"] if p["key"] == "omega"]
    assert omega and omega[0]["default"] and omega[0]["doc"]
    assert all(s["summary"] for s in listed)
    assert [s["name"] for s in signorini.solvers("fc")] == list(fc)
    with pytest.raises(ValueError):
        signorini.solvers("qp")


def test_docstrings_state_the_merit():
    assert "min(z, w)" in signorini.solve.__doc__
    assert "min(z, w)" in signorini.Solution.__doc__
    assert "min(z, w)" in signorini.__doc__


# ---------------------------------------------------------------- contact


def test_contact_scene_file():
    r = signorini.contact(SCENES / "coupled-two-contacts.toml")
    assert r["status"] == "solved" and r["n_contacts"] == 2
    W, b, z = r["W"], r["b"], r["reactions"]
    assert sp.issparse(W) and W.format == "csr"
    # REFERENCE.md A4: W = [[2, 1], [1, 2]], b = (-3, -3), N = (1, 1).
    np.testing.assert_allclose(W.toarray(), [[2, 1], [1, 2]], atol=1e-12)
    np.testing.assert_allclose(b, [-3, -3], atol=1e-12)
    np.testing.assert_allclose(z, [1, 1], atol=1e-12)
    assert merit(W, b, z) <= 1e-12
    assert r["contacts"][0]["body_a"] == "disk"


def test_contact_scene_dict_and_levels():
    scene = {
        "dimension": 2,
        "gravity": [0.0, -9.81],
        "body": [
            {"name": "ball", "mass": 2.0, "particle": True,
             "shape": {"type": "sphere", "radius": 0.5}, "position": [0.0, 0.5]},
            {"name": "floor", "fixed": True,
             "shape": {"type": "halfspace", "normal": [0.0, 1.0], "offset": 0.0}},
        ],
    }
    r = signorini.contact(scene)
    assert r["status"] == "solved"
    np.testing.assert_allclose(r["reactions"], [2 * 9.81], rtol=1e-12)
    v = signorini.contact(scene, level="velocity", step=0.01)
    np.testing.assert_allclose(v["reactions"], [2 * 9.81 * 0.01], rtol=1e-12)
    with pytest.raises(ValueError, match="level"):
        signorini.contact(scene, level="jerk")
    with pytest.raises(ValueError):
        signorini.contact(scene, level="velocity")  # needs a step
    with pytest.raises(ValueError, match="scene"):
        signorini.contact({"dimension": 4})
    with pytest.raises(ValueError, match="nowhere.toml"):
        signorini.contact("nowhere.toml")
    with pytest.raises(ValueError):
        signorini.contact(42)


# ---------------------------------------------------------------- frictional contact


def cone_violation(r, mu, d):
    blocks = r.reshape(-1, d)
    return max(0.0, (np.linalg.norm(blocks[:, 1:], axis=1) - mu * blocks[:, 0]).max())


@pytest.mark.parametrize("solver", ["nsgs", "newton-ac"])
def test_fc_solve(solver):
    W, q, mu, d = signorini.fc_read(DATA / "siconos-fc" / "FC3D_Example1_SBM.dat")
    s = signorini.fc_solve(W, q, mu, dimension=d, solver=solver, tol=1e-8)
    assert s.status == "solved", s
    np.testing.assert_allclose(s.u, W @ s.r + q, atol=1e-10 * (1 + np.abs(q).max()))
    assert cone_violation(s.r, mu, d) <= 1e-12
    assert s.error <= 1e-8
    sparse = signorini.fc_solve(sp.csr_matrix(W), q, mu, dimension=d, solver=solver, tol=1e-8)
    assert sparse.status == "solved"


def test_fc_errors():
    W = np.eye(3)
    with pytest.raises(ValueError, match="mu"):
        signorini.fc_solve(W, np.ones(3), [0.5, 0.5])
    with pytest.raises(ValueError, match="unknown solver"):
        signorini.fc_solve(W, np.ones(3), [0.5], solver="nope")
    with pytest.raises(ValueError):
        signorini.fc_solve(W, np.ones(3), [0.5], dimension=4)


# ---------------------------------------------------------------- simulate


def test_simulate_bouncing_ball():
    r = signorini.simulate(SCENES / "bouncing-ball.toml", "moreau-jean", t_end=1.0, step=1e-3)
    t = r["t"]
    assert isinstance(t, np.ndarray) and len(t) == r["steps"] + 1 == 1001
    for key in ("ball.x", "ball.y", "ball.vx", "ball.vy"):
        assert len(r[key]) == len(t)
    assert r["end"] == "finished" and r["solver_failures_total"] == 0
    assert r["impacts_total"] == len(r["impacts"]) >= 1
    first = r["impacts"][0]
    assert first["bodies"] == ["ball", "floor"] and first["energy_after"] <= first["energy_before"]
    assert r["ball.y"].min() >= -1e-3


def test_simulate_errors():
    with pytest.raises(ValueError, match="scheme"):
        signorini.simulate(SCENES / "bouncing-ball.toml", "leapfrog", t_end=1.0)
    with pytest.raises(ValueError, match="t_end"):
        signorini.simulate(SCENES / "bouncing-ball.toml", t_end=-1.0)
    with pytest.raises(ValueError, match="max_steps"):
        signorini.simulate(SCENES / "bouncing-ball.toml", t_end=1.0, step=1e-6, max_steps=10)


# ---------------------------------------------------------------- example


def test_compare_solvers_example(tmp_path):
    script = ROOT / "examples" / "python" / "compare_solvers.py"
    subprocess.run(
        [sys.executable, str(script), "--columns", "5", "--layers", "3", "--out", str(tmp_path)],
        check=True, capture_output=True, text=True,
    )
    lines = (tmp_path / "compare_solvers.csv").read_text().splitlines()
    assert lines[0].startswith("solver,status,residual")
    assert len(lines) == 4 and all(",solved," in line for line in lines[1:])
    svg = (tmp_path / "compare_solvers.svg").read_text()
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")
