//! Regression: lexicographic Lemke cycled on Siconos' `lcp_tobenna` (n = 40, nonsymmetric,
//! indefinite, 8 zero diagonal entries, every basic value zero after the first pivots).
//!
//! Root cause: the lexicographic tie-break of the ratio test compares, column by column, the
//! rows of B^-1 divided by the entering column's entries. Entries were called tied when they
//! differed by at most 1e-12 times the largest |entry| *of that column among the tied rows*. In a
//! column whose entries are all exact zeros computed as round-off (4.9e-16, 8.2e-16, 5.9e-14,
//! ...), that scale is the round-off itself, so the noise was read as a sign, the wrong row left
//! the basis (first at pivot 53 of the exact path), lexicographic positivity was lost and the path
//! cycled until `max_iterations` (also with 200000 pivots). Fix: the tie width is relative to the
//! largest |entry| of the whole rows being compared. The exact path (rational arithmetic) and
//! Siconos' `lcp_lexicolemke` both reach the solution; ours now follows the exact path.

use std::path::Path;

use signorini_lcp::algorithms::lemke::{Lemke, LemkeBasis, LemkeParams};
use signorini_lcp::{formats, LcpSolver, SolveOptions, Status};

const FILE: &str =
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../verification/data/siconos-lcp/lcp_tobenna.dat");

#[test]
fn lemke_solves_lcp_tobenna_without_cycling() {
    let lcp = match formats::read_problem(Path::new(FILE), None) {
        Ok(lcp) => lcp,
        Err(e) => panic!("{FILE}: {e}"),
    };
    assert_eq!(lcp.n(), 40);
    // Both bases: the dense inverse, and the sparse LU refactorised every 7 pivots (so the
    // eta file, its BTRANs in the lexicographic test and fresh factorisations all take part).
    for basis in [LemkeBasis::Dense, LemkeBasis::Sparse] {
        let params = LemkeParams { basis, refactor: 7, ..LemkeParams::default() };
        check(&lcp, params, basis);
    }
}

fn check(lcp: &signorini_lcp::Lcp, params: LemkeParams, basis: LemkeBasis) {
    let sol = Lemke::new(params).solve(lcp, &SolveOptions::default(), None).expect("valid options");
    assert_eq!(sol.status, Status::Solved, "{basis:?}: note {:?}", sol.note);
    assert!(sol.residual() <= 1e-10, "{basis:?}: residual {:e}", sol.residual());
    // The exact lexicographic path (rational arithmetic, same first-row and tie rules) has 127
    // pivots (z0 entering and leaving included); the lexicographic rule fixes the path
    // uniquely, so ours must take exactly those. A cycling run ends at max(10000, 50 n).
    assert_eq!(sol.pivots, Some(127), "{basis:?}");
    // Complementarity and feasibility of the returned pair, on the scale of the data.
    let scale = 1.0 + sol.z.iter().chain(&sol.w).fold(0.0f64, |a, v| a.max(v.abs()));
    for (i, (z, w)) in sol.z.iter().zip(&sol.w).enumerate() {
        assert!(*z >= -1e-10 * scale && *w >= -1e-10 * scale, "row {i}: z {z}, w {w}");
        assert!((z * w).abs() <= 1e-10 * scale * scale, "{basis:?} row {i}: z {z}, w {w}");
    }
}
