//! Helpers of the contact reference-scene tests: solving an assembled LCP with a registered
//! solver (`pgs` for symmetric W, `lemke` for the nonsymmetric friction LCP), closeness, and
//! the path of a scene file. The solve goes through the driver, so the returned residual is
//! recomputed from z.

use signorini_lcp::{Lcp, Registry, Solution, SolveOptions, Status};

/// Solves with the registered solver `name` at tolerance `tol`; the status must be `solved`.
pub fn solve_with(lcp: &Lcp, name: &str, tol: f64) -> Solution {
    let options = SolveOptions { tol: Some(tol), ..SolveOptions::default() };
    let solver = Registry::builtin().build(name).expect("registered solver builds");
    let solution = solver.solve(lcp, &options, None).expect("solve runs");
    assert_eq!(solution.status, Status::Solved, "solver {} on {:?}", solution.solver, lcp.name);
    solution
}

/// Symmetric contact LCPs: `pgs`.
pub fn solve_symmetric(lcp: &Lcp) -> Solution {
    solve_with(lcp, "pgs", 1e-12)
}

/// Nonsymmetric (friction) LCPs: `lemke`.
pub fn solve_general(lcp: &Lcp) -> Solution {
    solve_with(lcp, "lemke", 1e-10)
}

/// Relative closeness: |a - b| <= tol max(|b|, scale).
pub fn close(a: f64, b: f64, tol: f64, scale: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(scale)
}

/// Path of a scene file under verification/scenes/.
pub fn scene_path(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../verification/scenes").join(name)
}
