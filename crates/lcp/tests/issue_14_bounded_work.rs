//! Regressions from issue 14 §2 ("work bounded by the user's request, never by a crash"), the
//! solver part. One test per finding; the root causes were:
//!
//! - `lemke`, `murty` and `enum` densified M with no size check (`Lcp::to_dense`, lemke's
//!   column-major tableau): a sparse diagonal with n = 200 000 asked for 320 GB per copy and
//!   the process aborted. Every dense array sized from the problem now goes through
//!   `signorini_lcp::memory`, which refuses a request above the budget (default 2 GiB,
//!   `SolveOptions::memory_budget`) with `SolveError::Memory` before anything is allocated.
//! - `auto` could hand a large sparse M to `lemke` (its fallback on the large-sparse and the
//!   general rules); it now drops the densifying solvers for such M.
//! - `qp` did not pass the time limit to clarabel: a 55 s solve ran against a 1 s limit.
//! - `auto` under a time limit that rounds to zero ran no candidate and returned an error.
//!
//! (`murty` across thread counts: `algorithms::murty::tests`, on its principal solve.)

use std::time::{Duration, Instant};

use signorini_lcp::auto::{candidates, keeps_sparse};
use signorini_lcp::diagnostics::{diagnose_with, DiagnoseLimits};
use signorini_lcp::{
    generate, Lcp, Registry, SolveError, SolveOptions, Status, DEFAULT_MEMORY_BUDGET,
};

/// Sparse M = diag(1..), q = -e (solution z_i = 1 / M_ii).
fn sparse_diagonal(n: usize) -> Lcp {
    let idx: Vec<usize> = (0..n).collect();
    let val: Vec<f64> = (0..n).map(|i| 1.0 + (i % 7) as f64).collect();
    Lcp::from_coo(n, &idx, &idx, &val, vec![-1.0; n]).expect("valid")
}

/// Sparse nonsymmetric tridiagonal, strictly diagonally dominant (a P-matrix that is not
/// symmetric: the `P-matrix` rule, whose list has `lemke`).
fn sparse_tridiagonal(n: usize) -> Lcp {
    let q = (0..n).map(|i| if i % 3 == 0 { 1.0 } else { -1.0 }).collect();
    generate::tridiagonal(|_| 4.0, 1.0, -2.0, q)
}

fn solve(
    spec: &str,
    lcp: &Lcp,
    options: &SolveOptions,
) -> Result<signorini_lcp::Solution, SolveError> {
    Registry::builtin().build(spec).expect("spec").solve(lcp, options, None)
}

#[test]
fn issue_14_lemke_and_murty_refuse_a_large_sparse_problem_with_the_bytes() {
    let lcp = sparse_diagonal(200_000);
    for (spec, copies) in [("lemke", 2u128), ("murty", 3)] {
        let started = Instant::now();
        let err = solve(spec, &lcp, &SolveOptions::default()).expect_err("over budget");
        assert!(started.elapsed() < Duration::from_secs(5), "{spec}: {:?}", started.elapsed());
        match err {
            SolveError::Memory(m) => {
                assert_eq!(m.bytes, copies * 200_000 * 200_000 * 8, "{spec}");
                assert_eq!(m.budget, DEFAULT_MEMORY_BUDGET);
                assert!(m.what.starts_with(spec), "{}", m.what);
            }
            other => panic!("{spec}: expected SolveError::Memory, got {other:?}"),
        }
    }
    // enum refuses by size first (2^n index sets).
    let err = solve("enum", &lcp, &SolveOptions::default()).expect_err("too large");
    assert!(matches!(err, SolveError::Unsupported { .. }), "{err:?}");
}

#[test]
fn issue_14_the_memory_budget_is_the_callers() {
    // n = 100 dense: lemke's tableau is 2 * 100^2 * 8 = 160 000 bytes.
    let lcp = generate::random_spd(100, 3);
    let tight = SolveOptions { memory_budget: Some(100_000), ..SolveOptions::default() };
    match solve("lemke", &lcp, &tight) {
        Err(SolveError::Memory(m)) => assert_eq!((m.bytes, m.budget), (160_000, 100_000)),
        other => panic!("expected SolveError::Memory, got {other:?}"),
    }
    let enough = SolveOptions { memory_budget: Some(160_000), ..SolveOptions::default() };
    assert_eq!(solve("lemke", &lcp, &enough).expect("fits").status, Status::Solved);
    let zero = SolveOptions { memory_budget: Some(0), ..SolveOptions::default() };
    assert!(matches!(solve("lemke", &lcp, &zero), Err(SolveError::InvalidOption(_))));
}

#[test]
fn issue_14_auto_never_densifies_a_large_sparse_problem() {
    for lcp in [sparse_diagonal(200_000), sparse_tridiagonal(200_000)] {
        assert!(keeps_sparse(&lcp, DEFAULT_MEMORY_BUDGET));
        let d = diagnose_with(&lcp, &DiagnoseLimits::cheap());
        let (rule, names) = candidates(&lcp, &d, DEFAULT_MEMORY_BUDGET);
        assert!(!names.is_empty(), "{rule}");
        for dense_only in ["lemke", "murty", "enum"] {
            assert!(!names.contains(&dense_only), "{rule}: {names:?}");
        }
        let sol = solve("auto", &lcp, &SolveOptions::default()).expect("set up");
        assert_eq!(sol.status, Status::Solved, "{}: {:?}", sol.solver, sol.note);
    }
    // A small sparse problem keeps them; a sparse one above LARGE_SPARSE_N that fits the
    // budget keeps lemke in its place while lemke's basis is the sparse LU (n <=
    // SPARSE_BASIS_MAX_N), and gets it last above that.
    let small = sparse_tridiagonal(50);
    let d = diagnose_with(&small, &DiagnoseLimits::cheap());
    assert!(candidates(&small, &d, DEFAULT_MEMORY_BUDGET).1.contains(&"lemke"));
    let mid = sparse_tridiagonal(6000);
    let d = diagnose_with(&mid, &DiagnoseLimits::cheap());
    let (rule, names) = candidates(&mid, &d, DEFAULT_MEMORY_BUDGET);
    assert_eq!((rule, names.as_slice()), ("P-matrix", ["bpp", "lemke", "newton-fb"].as_slice()));
    let big = sparse_tridiagonal(signorini_lcp::algorithms::lemke::SPARSE_BASIS_MAX_N + 1);
    let d_big = diagnose_with(&big, &DiagnoseLimits::cheap());
    let (_, names) = candidates(&big, &d_big, 1 << 40);
    assert_eq!(names.last(), Some(&"lemke"), "{names:?}");
    // Over the budget, n = 6000 keeps lemke (its default basis is then the sparse LU, which
    // never densifies M) and drops murty and enum.
    let (_, names) = candidates(&mid, &d, 1 << 20);
    assert!(names.contains(&"lemke"), "{names:?}");
    assert!(!names.contains(&"murty") && !names.contains(&"enum"), "{names:?}");
    let small = sparse_tridiagonal(300);
    let tight = SolveOptions { memory_budget: Some(100_000), ..SolveOptions::default() };
    let sol = solve("lemke", &small, &tight).expect("the sparse basis fits");
    assert_eq!(sol.status, Status::Solved, "{:?}", sol.note);
    assert!(sol.factorizations >= 1);
}

/// A sparse SPD 2D Laplacian (5-point stencil) on a k x k grid, shifted, q = -e.
fn laplacian(k: usize) -> Lcp {
    let n = k * k;
    let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..k {
        for j in 0..k {
            let p = i * k + j;
            r.push(p);
            c.push(p);
            v.push(4.01);
            for (di, dj) in [(1usize, 0usize), (0, 1)] {
                let (a, b) = (i + di, j + dj);
                if a < k && b < k {
                    let o = a * k + b;
                    r.extend([p, o]);
                    c.extend([o, p]);
                    v.extend([-1.0, -1.0]);
                }
            }
        }
    }
    let q = (0..n).map(|p| if p % 2 == 0 { -1.0 } else { 0.5 }).collect();
    Lcp::from_coo(n, &r, &c, &v, q).expect("valid")
}

#[test]
fn issue_14_qp_honours_the_time_limit() {
    let lcp = laplacian(60); // n = 3600
    let limit = Duration::from_micros(1000);
    let options = SolveOptions { time_limit: Some(limit), ..SolveOptions::default() };
    let started = Instant::now();
    let sol = solve("qp", &lcp, &options).expect("set up");
    let wall = started.elapsed();
    assert_eq!(sol.status, Status::TimeLimit, "{:?}", sol.note);
    // Clarabel checks its clock once per iteration (after its setup): well below a full solve.
    assert!(wall < Duration::from_secs(10), "{wall:?}");
}

#[test]
fn issue_14_auto_with_a_tiny_time_limit_reports_time_limit() {
    // `--time-limit 1e-10` is 0 ns: auto broke out of its loop before any candidate ran and
    // returned "no candidate solver could take this problem" (exit 2).
    for limit in [Duration::ZERO, Duration::from_nanos(1)] {
        let options = SolveOptions { time_limit: Some(limit), ..SolveOptions::default() };
        let lcp = generate::random_spd(30, 1);
        let sol = solve("auto", &lcp, &options).expect("not an error");
        assert_eq!(sol.status, Status::TimeLimit, "{limit:?}: {:?}", sol.note);
    }
    let options =
        SolveOptions { time_limit: Some(Duration::from_nanos(1)), ..SolveOptions::default() };
    for lcp in [
        generate::random_spd(30, 1),
        laplacian(20),
        Lcp::from_dense_rows(&[vec![-1.0]], vec![-1.0]).expect("valid"),
    ] {
        let sol = solve("auto", &lcp, &options).expect("not an error");
        assert!(
            matches!(sol.status, Status::TimeLimit | Status::Solved | Status::Infeasible),
            "{}: {} {:?}",
            sol.solver,
            sol.status,
            sol.note
        );
    }
}

#[test]
fn issue_14_input_is_read_through_a_size_cap() {
    use signorini_lcp::formats::{read_problem, read_problem_limited, Format, FormatErrorKind};
    let dir = std::env::temp_dir().join(format!("signorini_issue_14_{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("tmp dir");
    // A multibyte name across the 64 KiB read chunks: the streaming UTF-8 check must join them.
    let name: String = "é".repeat(40_000);
    let text = format!(
        r#"{{"format": "signorini-lcp/1", "name": "{name}", "M": {{"dense": [[2]]}}, "q": [-1]}}"#
    );
    let path = dir.join("multibyte.json");
    std::fs::write(&path, &text).expect("write");
    let size = text.len() as u64;
    let lcp = read_problem_limited(&path, None, size).expect("exactly at the limit");
    assert_eq!(lcp.name.as_deref(), Some(name.as_str()));
    let err = read_problem_limited(&path, None, size - 1).expect_err("one byte over");
    assert_eq!(err.kind, FormatErrorKind::TooLarge { limit: size - 1 });
    assert!(read_problem(&path, None).is_ok());
    let urandom = std::path::Path::new("/dev/urandom");
    if urandom.exists() {
        for format in [Format::Json, Format::SiconosDat] {
            let started = Instant::now();
            let err = read_problem(urandom, Some(format)).expect_err("not a problem");
            assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
            assert!(
                matches!(err.kind, FormatErrorKind::NotUtf8 | FormatErrorKind::TooLarge { .. }),
                "{err}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
