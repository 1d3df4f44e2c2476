//! The bouncing ball of REFERENCE.md C (h0 = 1 m, g = 9.81, e = 0.9) with the event-driven
//! scheme, through both root paths (closed-form ballistic roots; RK4 steps with bracketing and
//! Brent), and the pulled block of A5 (the acceleration LCP decides stay / separate).

use std::sync::Arc;

use signorini_integrators::event_driven::Accumulation;
use signorini_integrators::{
    integrator_from_name, simulate_event_driven, BouncingBall, EventDrivenParams, EventDrivenRun,
    Flight,
};

const H0: f64 = 1.0;

fn ball() -> BouncingBall {
    BouncingBall { mass: 1.0, gravity: 9.81, pull: 0.0, restitution: 0.9 }
}

fn run(flight: Flight, t_end: f64) -> EventDrivenRun {
    let b = ball();
    let params = EventDrivenParams { flight, ..EventDrivenParams::default() };
    let solver =
        signorini_lcp::Registry::builtin().build("lemke").expect("lemke is always registered");
    simulate_event_driven(&b, &b, solver.as_ref(), 0.0, &[H0], &[0.0], t_end, &params).unwrap()
}

fn flights() -> Vec<(&'static str, Flight)> {
    vec![
        ("ballistic", Flight::Ballistic),
        (
            "rk4",
            Flight::Integrator {
                scheme: Arc::from(integrator_from_name("rk4").unwrap()),
                step: 1e-2,
            },
        ),
    ]
}

#[test]
fn impact_times_to_1e_9() {
    // REFERENCE.md C: t1 = 0.4515236410, t2 = 1.2642661948, t3 = 1.9957344932.
    let expected = [0.4515236410, 1.2642661948, 1.9957344932];
    let b = ball();
    for (k, t) in expected.iter().enumerate() {
        assert!((b.exact_impact_time(H0, k as u32 + 1) - t).abs() <= 1e-9);
    }
    for (name, flight) in flights() {
        let r = run(flight, 2.5);
        assert_eq!(r.impacts.len(), 3, "{name}");
        for (imp, t) in r.impacts.iter().zip(expected) {
            eprintln!("{name}: impact at {:.12} (expected {t})", imp.t);
            assert!((imp.t - t).abs() <= 1e-9, "{name}: {} vs {t}", imp.t);
        }
        // Impact speed sqrt(2 g h0) at the first impact, then restitution.
        let v1 = (2.0 * 9.81 * H0).sqrt();
        let first = &r.impacts[0];
        assert!((first.pre_velocity[0] + v1).abs() <= 1e-9 * v1, "{name}");
        assert!((first.post_velocity[0] - 0.9 * v1).abs() <= 1e-9 * v1, "{name}");
    }
}

#[test]
fn comes_to_rest_at_the_accumulation_time() {
    // t_inf = t1 (1 + e)/(1 - e) = 8.5789491787 s.
    let t_inf = 8.5789491787;
    assert!((ball().exact_accumulation_time(H0) - t_inf).abs() <= 1e-9);
    for (name, flight) in flights() {
        let r = run(flight, 10.0);
        assert_eq!(r.accumulations.len(), 1, "{name}");
        let acc: Accumulation = r.accumulations[0];
        eprintln!(
            "{name}: {} impacts, accumulation detected at {:.9}, t_inf = {:.12} (error {:.2e}), ratio {}",
            r.impacts.len(),
            acc.t_detected,
            acc.t_inf,
            acc.t_inf - t_inf,
            acc.ratio
        );
        assert!((acc.t_inf - t_inf).abs() <= 1e-6, "{name}: t_inf = {}", acc.t_inf);
        assert!((acc.ratio - 0.9).abs() <= 1e-6);
        // At rest on the floor afterwards, contact closed and loaded.
        assert!((r.end.t - 10.0).abs() <= 0.0);
        assert!(r.end.q[0].abs() <= 1e-9, "{name}: height {}", r.end.q[0]);
        assert!(r.end.v[0].abs() <= 1e-9, "{name}: velocity {}", r.end.v[0]);
        assert!(r.closed[0], "{name}");
        // Every impact reports its energy change; none gains energy (e <= 1).
        for imp in &r.impacts {
            assert!(
                imp.energy_after <= imp.energy_before * (1.0 + 1e-12),
                "{name}: impact at {} gains energy",
                imp.t
            );
        }
        // The acceleration LCP was solved and every recorded solve succeeded.
        assert!(!r.lcp_solves.is_empty());
        assert!(r.lcp_solves.iter().all(|(_, s)| s.status == signorini_lcp::Status::Solved));
    }
}

#[test]
fn both_root_paths_agree_on_every_impact() {
    let a = run(Flight::Ballistic, 8.0);
    let b = run(flights().remove(1).1, 8.0);
    assert_eq!(a.impacts.len(), b.impacts.len());
    for (x, y) in a.impacts.iter().zip(&b.impacts) {
        assert!((x.t - y.t).abs() <= 1e-9, "{} vs {}", x.t, y.t);
    }
}

fn block(pull: f64) -> BouncingBall {
    BouncingBall { mass: 2.0, gravity: 9.81, pull, restitution: 0.0 }
}

#[test]
fn pulled_block_stays_or_separates_by_the_acceleration_lcp() {
    // A5: m = 2, u = 5 N: N = 14.62 N, stays; u = 25 N: N = 0, lifts off with a = 2.69 m/s^2.
    let solver =
        signorini_lcp::Registry::builtin().build("lemke").expect("lemke is always registered");
    for (name, flight) in flights() {
        let params = EventDrivenParams { flight, ..EventDrivenParams::default() };
        let stay = block(5.0);
        let r =
            simulate_event_driven(&stay, &stay, solver.as_ref(), 0.0, &[0.0], &[0.0], 1.0, &params)
                .unwrap();
        assert!(r.closed[0], "{name}");
        assert!(r.end.q[0].abs() <= 1e-12 && r.end.v[0].abs() <= 1e-12, "{name}");

        let lift = block(25.0);
        let r =
            simulate_event_driven(&lift, &lift, solver.as_ref(), 0.0, &[0.0], &[0.0], 1.0, &params)
                .unwrap();
        assert!(!r.closed[0], "{name}");
        let a: f64 = (25.0 - 2.0 * 9.81) / 2.0;
        assert!((a - 2.69).abs() <= 1e-12);
        assert!((r.end.q[0] - 0.5 * a).abs() <= 1e-9, "{name}: {}", r.end.q[0]);
        assert!(r.impacts.is_empty());
    }
}

/// A block resting on the floor under a pull that grows linearly, u(t) = 40 t N: it lifts off
/// when u = mg, at t = 2 * 9.81 / 40 = 0.4905 s (release event located by Brent on N - a).
struct Ramp;

impl signorini_integrators::MechanicalSystem for Ramp {
    fn n_dof(&self) -> usize {
        1
    }
    fn mass_matrix(&self, _q: &[f64]) -> faer::Mat<f64> {
        faer::Mat::from_fn(1, 1, |_, _| 2.0)
    }
    fn forces(&self, t: f64, _q: &[f64], _v: &[f64]) -> Vec<f64> {
        vec![40.0 * t - 2.0 * 9.81]
    }
}

#[test]
fn release_time_is_located() {
    let solver =
        signorini_lcp::Registry::builtin().build("lemke").expect("lemke is always registered");
    let floor = block(0.0);
    let params = EventDrivenParams {
        flight: Flight::Integrator {
            scheme: Arc::from(integrator_from_name("rk4").unwrap()),
            step: 1e-2,
        },
        ..EventDrivenParams::default()
    };
    let r =
        simulate_event_driven(&Ramp, &floor, solver.as_ref(), 0.0, &[0.0], &[0.0], 1.0, &params)
            .unwrap();
    assert_eq!(r.releases.len(), 1);
    let t_release = 2.0 * 9.81 / 40.0;
    assert!((r.releases[0].0 - t_release).abs() <= 1e-10, "release at {}", r.releases[0].0);
    // After release: q'' = (40 t - mg)/m, so q(1) = 10/3 (1 - tr)^3 (RK4 exact for cubics).
    let q1 = 40.0 / 2.0 / 6.0 * (1.0 - t_release).powi(3);
    assert!((r.end.q[0] - q1).abs() <= 1e-9, "{} vs {q1}", r.end.q[0]);
}

#[test]
fn inelastic_ball_rests_after_one_impact() {
    // e = 0: one impact at t1, u+ = 0, the acceleration LCP keeps the contact closed (N = mg).
    let b = BouncingBall { restitution: 0.0, ..ball() };
    let solver =
        signorini_lcp::Registry::builtin().build("lemke").expect("lemke is always registered");
    for (name, flight) in flights() {
        let params = EventDrivenParams { flight, ..EventDrivenParams::default() };
        let r = simulate_event_driven(&b, &b, solver.as_ref(), 0.0, &[H0], &[0.0], 2.0, &params)
            .unwrap();
        assert_eq!(r.impacts.len(), 1, "{name}");
        assert!((r.impacts[0].t - b.exact_impact_time(H0, 1)).abs() <= 1e-9, "{name}");
        let v1 = (2.0 * 9.81 * H0).sqrt();
        assert!((r.impacts[0].energy_before - 0.5 * v1 * v1).abs() <= 1e-9 * v1 * v1);
        assert!(r.impacts[0].energy_after.abs() <= 1e-18, "{name}");
        assert!(r.closed[0] && r.accumulations.is_empty(), "{name}");
        assert!(r.end.q[0].abs() <= 1e-9 && r.end.v[0].abs() <= 1e-12, "{name}: {:?}", r.end);
    }
}
