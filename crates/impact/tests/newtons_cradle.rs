//! Newton's cradle (n equal balls in a row, touching, ball 1 arriving at speed v, e = 1):
//! the simultaneous impact LCP and sequential pairwise impacts give different outcomes.
//!
//! **Which matches experiment:** the sequential one. A real cradle sends the last ball off with
//! v and leaves the others (nearly) at rest, which is what pairwise impacts ordered by the most
//! negative normal velocity reproduce: (0, ..., 0, v). The simultaneous LCP conserves momentum
//! and energy too but spreads the motion: with n_c = n - 1 contacts (W = tridiag(-1, 2, -1)/m,
//! whose inverse has first column (n_c + 1 - k)/(n_c + 1)) the impulse is
//! P_k = 2 m v (n_c + 1 - k)/(n_c + 1), so ball 1 leaves with v (1 - n_c)/(1 + n_c) and every
//! other ball with 2 v/(n_c + 1): (-v/3, 2v/3, 2v/3) for three balls and
//! (-3v/5, 2v/5, 2v/5, 2v/5, 2v/5) for five.

use faer::Mat;
use signorini_impact::{
    solve_sequential, solve_simultaneous, ImpactLaw, MechanicalImpact, SequentialParams,
    SimultaneousParams,
};

const MASS: f64 = 0.2;
const V: f64 = 1.5;

/// Balls on a line; contact k between balls k and k+1 with gap x_{k+1} - x_k - 2r, so its
/// Jacobian row has -1 at k and +1 at k+1.
fn cradle(n_balls: usize) -> MechanicalImpact {
    let n_c = n_balls - 1;
    let mass = Mat::from_fn(n_balls, n_balls, |i, j| if i == j { MASS } else { 0.0 });
    let jac = Mat::from_fn(n_c, n_balls, |k, j| {
        if j == k {
            -1.0
        } else if j == k + 1 {
            1.0
        } else {
            0.0
        }
    });
    let mut v = vec![0.0; n_balls];
    v[0] = V;
    MechanicalImpact::new(mass, &jac, v, vec![1.0; n_c]).unwrap()
}

fn assert_close(got: &[f64], expected: &[f64], what: &str) {
    for (i, (g, e)) in got.iter().zip(expected).enumerate() {
        assert!((g - e).abs() <= 1e-9 * V, "{what}: ball {i}: got {g}, expected {e}");
    }
}

fn check(n_balls: usize) {
    let imp = cradle(n_balls);
    let n_c = (n_balls - 1) as f64;
    let solver =
        signorini_lcp::Registry::builtin().build("lemke").expect("lemke is always registered");

    let sim = solve_simultaneous(
        imp.problem(),
        ImpactLaw::Newton,
        solver.as_ref(),
        &SimultaneousParams::default(),
    )
    .unwrap();
    let sim_r = imp.report(&sim);
    let mut expected = vec![2.0 * V / (n_c + 1.0); n_balls];
    expected[0] = V * (1.0 - n_c) / (1.0 + n_c);
    assert_close(&sim_r.velocity_after, &expected, "simultaneous");
    assert_eq!(sim.passes, 1);
    assert_eq!(sim.lcp_solves.len(), 1);

    let seq =
        solve_sequential(imp.problem(), ImpactLaw::Newton, &SequentialParams::default()).unwrap();
    let seq_r = imp.report(&seq);
    let mut expected = vec![0.0; n_balls];
    expected[n_balls - 1] = V;
    assert_close(&seq_r.velocity_after, &expected, "sequential");
    // The ordering rule hits the contacts front to back.
    assert_eq!(seq.order, (0..n_balls - 1).collect::<Vec<_>>());

    for (name, out, rep) in [("simultaneous", &sim, &sim_r), ("sequential", &seq, &seq_r)] {
        // e = 1: energy conserved; contact-space and generalised energies agree.
        let t0 = rep.energy_before;
        assert!((rep.energy_after - t0).abs() <= 1e-12 * t0, "{name}: energy not conserved");
        assert!((out.energy_change - (rep.energy_after - t0)).abs() <= 1e-12 * t0);
        let p: f64 = rep.velocity_after.iter().map(|v| MASS * v).sum();
        assert!((p - MASS * V).abs() <= 1e-12 * MASS * V, "{name}: momentum");
        assert!(out.post_velocity.iter().all(|u| *u >= -1e-9 * V), "{name}: balls interpenetrate");
    }
}

#[test]
fn cradle_three_balls_simultaneous_vs_sequential() {
    check(3);
}

#[test]
fn cradle_five_balls_simultaneous_vs_sequential() {
    check(5);
}
