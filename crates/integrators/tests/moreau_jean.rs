//! Moreau–Jean (theta = gamma = 1/2, Newton impact law) on the bouncing ball of REFERENCE.md C:
//! observed order about 1 in position, and failed solves are reported.

use signorini_integrators::{
    observed_order, run_stepping, BouncingBall, MoreauJean, NoObserver, OnSolverFailure, Sample,
    SteppingError, SteppingParams, SteppingRun, TimeStepper,
};
use signorini_lcp::{Lcp, LcpSolver, Outcome, SolveContext, SolveError, Status};

const H0: f64 = 1.0;

fn ball() -> BouncingBall {
    BouncingBall { mass: 1.0, gravity: 9.81, pull: 0.0, restitution: 0.9 }
}

/// n Moreau–Jean steps from rest at H0.
fn drop(
    b: &BouncingBall,
    solver: &dyn LcpSolver,
    scheme: MoreauJean,
    n: usize,
    p: &SteppingParams,
) -> Result<SteppingRun, SteppingError> {
    let start = Sample { t: 0.0, q: vec![H0], v: vec![0.0] };
    run_stepping(b, TimeStepper::MoreauJean(b, scheme), solver, &start, n, p, &mut NoObserver)
}

#[test]
fn observed_order_about_one_in_position() {
    // Position at T = 2.4 (after three impacts, t3 = 1.9957 s, before t4 = 2.654 s) against the
    // exact trajectory, over seven step sizes T / N.
    let b = ball();
    let t_end = 2.4;
    let (x_exact, _) = b.exact_state(H0, t_end);
    let solver =
        signorini_lcp::Registry::builtin().build("lemke").expect("lemke is always registered");
    let mut hs = Vec::new();
    let mut es = Vec::new();
    for n in [300usize, 500, 800, 1300, 2100, 3400, 5500, 8900] {
        let h = t_end / n as f64;
        let mut p = SteppingParams::with_step(h);
        p.sample_every = 0;
        let r = drop(&b, solver.as_ref(), MoreauJean::default(), n, &p).unwrap();
        assert!((r.t - t_end).abs() <= 1e-12);
        let err = (r.q[0] - x_exact).abs();
        eprintln!("h = {h:.3e}: position error {err:.3e}");
        hs.push(h);
        es.push(err);
        // Per-step statistics: one LCP per active step, all solved.
        assert_eq!(r.steps.len(), n);
        assert!(r
            .steps
            .iter()
            .filter(|s| s.n_active > 0)
            .all(|s| s.lcp.as_ref().is_some_and(|l| l.status == Status::Solved)));
        assert!(r.solver_failures.is_empty());
    }
    let order = observed_order(&hs, &es).unwrap();
    eprintln!("Moreau-Jean observed order in position: {order:.3}");
    assert!((order - 1.0).abs() <= 0.25, "observed order {order}");
}

#[test]
fn theta_and_gamma_are_settable_and_checked() {
    let b = ball();
    let solver =
        signorini_lcp::Registry::builtin().build("lemke").expect("lemke is always registered");
    let p = SteppingParams::with_step(1e-3);
    let mut scheme = MoreauJean { theta: 1.0, gamma: 0.0, ..MoreauJean::default() };
    let r = drop(&b, solver.as_ref(), scheme, 1000, &p).unwrap();
    assert!(r.q[0] > -1e-2, "penetration {}", r.q[0]);
    scheme.theta = 1.5;
    assert!(matches!(drop(&b, solver.as_ref(), scheme, 10, &p), Err(SteppingError::Input(_))));
}

/// A solver that gives up at once.
struct GivesUp;

impl LcpSolver for GivesUp {
    fn name(&self) -> String {
        "gives-up".into()
    }
    fn default_tol(&self) -> f64 {
        1e-10
    }
    fn default_max_iter(&self, _n: usize) -> usize {
        1
    }
    fn run(&self, lcp: &Lcp, _ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        Ok(Outcome::new(vec![0.0; lcp.n()], Status::MaxIterations, 1))
    }
}

#[test]
fn failed_solve_is_reported_with_time_and_status() {
    let b = ball();
    let h = 1e-3;
    let p = SteppingParams::with_step(h);
    match drop(&b, &GivesUp, MoreauJean::default(), 1000, &p) {
        Err(SteppingError::SolverFailed { t, status, solver, .. }) => {
            assert_eq!(status, Status::MaxIterations);
            assert_eq!(solver, "gives-up");
            // First active step: the gap plus h v / 2 reaches zero near t1.
            assert!((t - 0.4515).abs() <= 2.0 * h, "t = {t}");
        }
        other => panic!("expected a solver failure, got {other:?}"),
    }
    let mut p = SteppingParams::with_step(h);
    p.on_failure = OnSolverFailure::Continue;
    let r = drop(&b, &GivesUp, MoreauJean::default(), 1000, &p).unwrap();
    assert!(!r.solver_failures.is_empty());
    assert!(r.solver_failures.iter().all(|f| f.status == Status::MaxIterations));
}
