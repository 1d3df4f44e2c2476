//! Regression: Lemke stopped after 4 pivots with `numerical_failure` (merit 3.8e-4, w_i down to
//! -0.21) on a 24-unknown Stewart–Trinkle LCP of a 2-D box-and-disk scene (the file in
//! `tests/data/`, its provenance in its `source` field). Siconos 4.4 `lcp_lexicolemke` also
//! returns a wrong answer there (info 0, merit 1.9e-4).
//!
//! Root cause: the ratio test counted a row as tied with the minimum ratio when
//! x_i - best c_i <= 1e-12 max|x|, an absolute width that, divided by a tiny pivot entry c_i,
//! admits ratios far above the minimum: at pivot 3, x_i = 1.2e-10, c_i = 1.4e-10 (ratio 0.84)
//! tied with the true minimum 0.035, the lexicographic rule picked it, and the next basis was
//! infeasible. Fix: ratios tie when they differ by at most 1e-12 max|x| / max|c|. Lexicographic
//! Lemke in exact rational arithmetic on the same data solves the problem (19 pivots).

use std::path::Path;

use signorini_lcp::algorithms::lemke::{Lemke, LemkeBasis, LemkeParams};
use signorini_lcp::{evaluate, formats, LcpSolver, SolveOptions, Status};

const FILE: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/stewart_trinkle_tiny_pivot.json");

#[test]
fn lemke_solves_the_stewart_trinkle_lcp_with_a_tiny_pivot_entry() {
    let lcp = match formats::read_problem(Path::new(FILE), None) {
        Ok(lcp) => lcp,
        Err(e) => panic!("{FILE}: {e}"),
    };
    assert_eq!(lcp.n(), 24);
    for basis in [LemkeBasis::Dense, LemkeBasis::Sparse] {
        let params = LemkeParams { basis, refactor: 7, ..LemkeParams::default() };
        check(&lcp, params, basis);
    }
}

fn check(lcp: &signorini_lcp::Lcp, params: LemkeParams, basis: LemkeBasis) {
    let sol = Lemke::new(params).solve(lcp, &SolveOptions::default(), None).expect("valid options");
    assert_eq!(sol.status, Status::Solved, "{basis:?}: note {:?}", sol.note);
    // Independent check of the returned z.
    let (w, merit) = evaluate(lcp, &sol.z);
    assert!(merit.residual <= 1e-10, "{basis:?}: residual {:e}", merit.residual);
    let scale = 1.0 + sol.z.iter().chain(&w).fold(0.0f64, |a, v| a.max(v.abs()));
    for (i, (z, w)) in sol.z.iter().zip(&w).enumerate() {
        assert!(*z >= -1e-12 * scale && *w >= -1e-10 * scale, "z[{i}] = {z}, w[{i}] = {w}");
        assert!((z * w).abs() <= 1e-10 * scale * scale, "z[{i}] w[{i}] = {}", z * w);
    }
}
