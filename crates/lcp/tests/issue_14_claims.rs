//! Issue 14 §1: the statuses a researcher cites as proofs hold on badly scaled problems.
//! Each test is named after the finding it guards.

use signorini_lcp::{
    evaluate, solver_from_spec, Certificate, Lcp, Registry, SolveError, SolveOptions, Status,
};

fn solve(
    lcp: &Lcp,
    spec: &str,
    options: &SolveOptions,
) -> Result<signorini_lcp::Solution, SolveError> {
    solver_from_spec(spec).expect("spec").solve(lcp, options, None)
}

/// An independent check of a `solved` claim, written out as numpy would: w = Mz + q from the
/// dense rows, then every row at its own scale.
fn independent_check(lcp: &Lcp, z: &[f64], tol: f64) -> bool {
    let rows = lcp.dense_rows();
    let q = lcp.q();
    z.iter().all(|v| *v >= 0.0)
        && rows.iter().enumerate().all(|(i, row)| {
            let mz: f64 = row.iter().zip(z).map(|(a, b)| a * b).sum();
            let scale: f64 = row.iter().zip(z).map(|(a, b)| (a * b).abs()).sum::<f64>()
                + q[i].abs()
                + z[i].abs();
            let w = mz + q[i];
            z[i].min(w).abs() <= tol * scale.max(f64::MIN_POSITIVE) || z[i].min(w) == 0.0
        })
}

#[test]
fn issue_14_one_large_q_does_not_hide_an_unsolved_row() {
    // M = I, q = (1e12, -1): the solution is z = (0, 1); z = (0, 0) has residual 1e-12.
    let lcp =
        Lcp::from_dense_rows(&[vec![1.0, 0.0], vec![0.0, 1.0]], vec![1e12, -1.0]).expect("valid");
    for spec in ["auto", "bpp", "murty", "enum", "newton-fb", "newton-min", "lemke", "pgs", "qp"] {
        let sol = solve(&lcp, spec, &SolveOptions::default()).expect("runs");
        if sol.status == Status::Solved {
            assert!(
                independent_check(&lcp, &sol.z, sol.tol),
                "{spec}: solved with z = {:?}, w = {:?}",
                sol.z,
                sol.w
            );
            assert!((sol.z[1] - 1.0).abs() < 1e-6, "{spec}: z = {:?}", sol.z);
        }
    }
}

#[test]
fn issue_14_the_driver_rejects_a_solved_claim_with_a_hidden_row() {
    // A solver that claims `solved` with z = 0 on M = I, q = (1e12, -1) is overruled.
    use signorini_lcp::{LcpSolver, Outcome, SolveContext};
    struct Zero;
    impl LcpSolver for Zero {
        fn name(&self) -> String {
            "zero".into()
        }
        fn default_tol(&self) -> f64 {
            1e-8
        }
        fn default_max_iter(&self, _: usize) -> usize {
            1
        }
        fn run(&self, lcp: &Lcp, _: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
            Ok(Outcome::new(vec![0.0; lcp.n()], Status::Solved, 1))
        }
    }
    let lcp =
        Lcp::from_dense_rows(&[vec![1.0, 0.0], vec![0.0, 1.0]], vec![1e12, -1.0]).expect("valid");
    let sol = Zero.solve(&lcp, &SolveOptions::default(), None).expect("runs");
    assert!(sol.merit.residual < 1e-8, "the reported residual is the Siconos one");
    assert_eq!(sol.status, Status::NumericalFailure);
    let note = sol.note.expect("a reason");
    assert!(note.contains("row 1"), "{note}");
}

#[test]
fn issue_14_a_tiny_q_is_not_solved_by_zero() {
    // M = [-1], q = [-1e-17]: infeasible (y = 1 is a Farkas vector). ||q||_2 <= eps switches
    // the Siconos merit to an absolute residual (1e-17), which passed z = 0 before.
    let lcp = Lcp::from_dense_rows(&[vec![-1.0]], vec![-1e-17]).expect("valid");
    for spec in ["pgs", "newton-fb", "newton-min", "apgd", "auto"] {
        let sol = solve(&lcp, spec, &SolveOptions::default()).expect("runs");
        assert_ne!(sol.status, Status::Solved, "{spec}: z = {:?}", sol.z);
    }
    let sol = solve(&lcp, "lemke", &SolveOptions::default()).expect("runs");
    assert_eq!(sol.status, Status::Infeasible);
    assert!(matches!(sol.certificate, Some(Certificate::Farkas { .. })));
}

#[test]
fn issue_14_tolerances_outside_0_and_1e_2_are_refused() {
    let lcp = Lcp::from_dense_rows(&[vec![-1.0]], vec![-1.0]).expect("valid");
    for tol in [1.0, 1e300, 0.0, -1e-8, f64::NAN, f64::INFINITY, 0.0101] {
        let options = SolveOptions { tol: Some(tol), ..SolveOptions::default() };
        let err = solve(&lcp, "pgs", &options).expect_err("refused");
        assert!(matches!(err, SolveError::InvalidOption(_)), "tol {tol}: {err}");
    }
    // The same bound holds for a tolerance given in the spec string (refused when parsed).
    for spec in ["pgs:tol=1", "pgs:tol=1e300", "auto:tol=0.0101", "lemke:tol=0"] {
        assert!(solver_from_spec(spec).is_err(), "{spec} must be refused");
    }
    let options = SolveOptions { tol: Some(1e-2), ..SolveOptions::default() };
    assert!(solve(&lcp, "lemke", &options).is_ok());
}

#[test]
fn issue_14_no_solution_is_never_claimed_for_a_positive_definite_matrix() {
    // Badly scaled positive-definite problems always have exactly one solution.
    for (m, q) in [
        (vec![vec![1.0, 0.0], vec![0.0, 1e-12]], vec![-1.0, -1.0]),
        (vec![vec![1e12, 1.0], vec![1.0, 1e-9]], vec![-1.0, -1e-3]),
        (
            vec![vec![1e-14, 0.0, 0.0], vec![0.0, 1.0, 0.5], vec![0.0, 0.5, 1e10]],
            vec![-1.0, 2.0, -1.0],
        ),
    ] {
        let lcp = Lcp::from_dense_rows(&m, q).expect("valid");
        for spec in ["enum", "lemke", "murty", "auto"] {
            let sol = solve(&lcp, spec, &SolveOptions::default()).expect("runs");
            assert_ne!(sol.status, Status::NoSolution, "{spec} on {m:?}");
            assert_ne!(sol.status, Status::Infeasible, "{spec} on {m:?}");
            if sol.status == Status::Solved {
                assert!(independent_check(&lcp, &sol.z, sol.tol), "{spec}: {:?}", sol.z);
            }
        }
    }
}

#[test]
fn issue_14_returned_z_is_never_negative() {
    let lcp =
        Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![-1.0, 0.5]).expect("valid");
    for entry in Registry::builtin().entries() {
        let Ok(solver) = Registry::builtin().build(&entry.name) else { continue };
        let Ok(sol) = solver.solve(&lcp, &SolveOptions::default(), None) else { continue };
        assert!(sol.z.iter().all(|v| *v >= 0.0), "{}: {:?}", entry.name, sol.z);
        let (w, _) = evaluate(&lcp, &sol.z);
        assert_eq!(w, sol.w, "{}: w recomputed from the returned z", entry.name);
    }
}

#[test]
fn issue_14_a_large_z_elsewhere_does_not_hide_an_unsolved_row() {
    // Found by the `solvers` fuzz target: M = [[1, 0], [0, 0]], q = (1e12, -0.984375) has no
    // solution (w_2 = -0.984375 whatever z is). `qp` returned a huge z_2 (the QP is unbounded
    // along it), and a first form of the row test, floored at the size of the whole answer,
    // let that pass. Row 2 is reached by no entry of M, so it is judged on q_2 alone.
    let lcp = Lcp::from_dense_rows(&[vec![1.0, 0.0], vec![0.0, 0.0]], vec![1e12, -0.984375])
        .expect("valid");
    for entry in Registry::builtin().entries() {
        let Ok(solver) = Registry::builtin().build(&entry.name) else { continue };
        let Ok(sol) = solver.solve(&lcp, &SolveOptions::default(), None) else { continue };
        assert_ne!(sol.status, Status::Solved, "{}: z = {:?}", entry.name, sol.z);
    }
}
