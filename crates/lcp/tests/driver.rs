//! The driver re-checks what solvers claim: a lying solver cannot report `solved` or
//! `infeasible`, and an honest z that passes the merit is `solved` whatever the loop said.

use signorini_lcp::{
    Certificate, Lcp, LcpSolver, Outcome, SolveContext, SolveError, SolveOptions, Status,
};

/// A solver that returns a fixed z and claims a fixed status.
struct Fixed {
    z: Vec<f64>,
    status: Status,
    certificate: Option<Certificate>,
}

impl LcpSolver for Fixed {
    fn name(&self) -> String {
        "fixed".into()
    }
    fn default_tol(&self) -> f64 {
        1e-10
    }
    fn default_max_iter(&self, _n: usize) -> usize {
        1
    }
    fn run(&self, _lcp: &Lcp, _ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        let mut o = Outcome::new(self.z.clone(), self.status, 1);
        o.certificate = self.certificate.clone();
        Ok(o)
    }
}

fn seed_a4() -> Lcp {
    Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![-3.0, -3.0]).expect("valid")
}

fn check(z: &[f64], claimed: Status, cert: Option<Certificate>, lcp: &Lcp, expected: Status) {
    let s = Fixed { z: z.to_vec(), status: claimed, certificate: cert };
    let sol = s.solve(lcp, &SolveOptions::default(), None).expect("set up");
    assert_eq!(sol.status, expected, "claimed {claimed} for z = {z:?}: note {:?}", sol.note);
}

#[test]
fn false_solved_claim_becomes_numerical_failure() {
    // Seed A4: the decoupled guess 1.5 N per contact is not a solution.
    check(&[1.5, 1.5], Status::Solved, None, &seed_a4(), Status::NumericalFailure);
}

#[test]
fn true_solution_is_solved_whatever_the_claim() {
    check(&[1.0, 1.0], Status::MaxIterations, None, &seed_a4(), Status::Solved);
    check(&[1.0, 1.0], Status::Solved, None, &seed_a4(), Status::Solved);
}

#[test]
fn infeasible_needs_a_valid_farkas_vector() {
    let a2 = Lcp::from_dense_rows(&[vec![-1.0]], vec![-1.0]).expect("valid");
    let good = Some(Certificate::Farkas { y: vec![2.0] });
    check(&[0.0], Status::Infeasible, good, &a2, Status::Infeasible);
    // A rejected Farkas vector from a method that reports no pivots did not come from a
    // Lemke ray, so nothing is claimed about the path: numerical_failure.
    let bad = Some(Certificate::Farkas { y: vec![-2.0] });
    check(&[0.0], Status::Infeasible, bad, &a2, Status::NumericalFailure);
    check(&[0.0], Status::Infeasible, None, &a2, Status::NumericalFailure);
}

#[test]
fn warm_start_of_wrong_length_is_an_error() {
    let s = Fixed { z: vec![1.0, 1.0], status: Status::Solved, certificate: None };
    let err = s.solve(&seed_a4(), &SolveOptions::default(), Some(&[1.0])).unwrap_err();
    assert!(matches!(err, SolveError::WarmStart(_)));
    let err = s.solve(&seed_a4(), &SolveOptions::default(), Some(&[1.0, f64::NAN])).unwrap_err();
    assert!(matches!(err, SolveError::WarmStart(_)));
}

#[test]
fn empty_problem_is_trivially_solved() {
    let lcp = Lcp::from_dense_rows(&[], vec![]).expect("n = 0 is valid");
    check(&[], Status::MaxIterations, None, &lcp, Status::Solved);
}
