//! The position-level time-stepping LCP on Tedrake's block collision (REFERENCE.md A8: a block
//! dropped on the floor, perfectly inelastic): it lands on the floor without penetrating, at
//! most two steps after the exact impact time, and stays there at rest.

use signorini_integrators::{
    run_stepping, BouncingBall, NoObserver, Sample, SteppingParams, TimeStepper,
};

#[test]
fn block_collision_is_inelastic_and_never_penetrates() {
    let block = BouncingBall { mass: 2.0, gravity: 9.81, pull: 0.0, restitution: 0.0 };
    let solver =
        signorini_lcp::Registry::builtin().build("lemke").expect("lemke is always registered");
    let h = 1e-3;
    let p = SteppingParams::with_step(h);
    let start = Sample { t: 0.0, q: vec![1.0], v: vec![0.0] };
    let stepper = TimeStepper::PositionLcp(&block);
    let r =
        run_stepping(&block, stepper, solver.as_ref(), &start, 1000, &p, &mut NoObserver).unwrap();
    // No penetration at any step (affine gap: the linearised next gap is exact).
    assert!(r.samples.iter().all(|s| s.q[0] >= -1e-12), "penetration");
    let landing = r.samples.iter().find(|s| s.q[0].abs() <= 1e-12).unwrap().t;
    let t1 = (2.0f64 / 9.81).sqrt();
    assert!(landing >= t1 - 1e-12 && landing <= t1 + 2.0 * h, "landed at {landing}, t1 = {t1}");
    // At rest afterwards, every LCP solved.
    assert!(r.q[0].abs() <= 1e-12 && r.v[0].abs() <= 1e-12, "end state {:?} {:?}", r.q, r.v);
    let last = r.steps.last().unwrap().lcp.as_ref().unwrap();
    assert_eq!(last.status, signorini_lcp::Status::Solved);
    // Kinetic energy never grows across the landing step.
    let ke: Vec<f64> = r.samples.iter().map(|s| 0.5 * 2.0 * s.v[0] * s.v[0]).collect();
    let i_land = r.samples.iter().position(|s| s.t >= landing).unwrap();
    assert!(ke[i_land] <= ke[i_land - 1]);
}
