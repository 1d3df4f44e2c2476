//! Penalty contact of a point mass (REFERENCE.md A6 and the penalty oscillator of C), measured
//! from simulations with located events.

use signorini_integrators::roots::{find_event, Crossing};
use signorini_integrators::{integrate, integrator_from_name, PenaltyLaw, PenaltyPointMass};

const G: f64 = 9.81;

fn resting_mass(k: f64) -> PenaltyPointMass {
    PenaltyPointMass {
        mass: 2.0,
        gravity: G,
        external_force: 0.0,
        law: PenaltyLaw::Linear { stiffness: k },
    }
}

#[test]
fn static_overlap_is_mg_over_k() {
    // A6: m = 2 kg, k = 2e5 N/m: 98.1 um; k x 100: 0.981 um. Measured as the state implicit
    // Euler (which damps the contact oscillation) settles to from a touch-down at rest.
    for (k, expected) in [(2e5, 98.1e-6), (2e7, 0.981e-6)] {
        let body = resting_mass(k);
        let ie = integrator_from_name("implicit-euler").unwrap();
        let h = 2.0 / body.contact_frequency();
        let (mut x, mut v) = ([0.0], [0.0]);
        integrate(ie.as_ref(), &body, 0.0, h, 400, &mut x, &mut v).unwrap();
        let overlap = -x[0];
        assert!((overlap - expected).abs() <= 1e-9 * expected, "k = {k}: {overlap}");
        assert!((body.static_overlap() - expected).abs() <= 1e-12 * expected);
    }
    // A6 first line: 14.62 N at k = 1e5 gives d = -0.1462 mm.
    let pulled = PenaltyPointMass { external_force: 5.0, ..resting_mass(1e5) };
    assert!((pulled.static_overlap() - 0.1462e-3).abs() <= 1e-12);
}

#[test]
fn contact_frequency_measured_from_the_oscillation_period() {
    // w_c = sqrt(k/m) = 316.2 rad/s at k = 2e5, ten times larger at k x 100. The period is
    // measured as the time of the first return through the static equilibrium in the same
    // direction, with RK4 and Brent.
    let rk4 = integrator_from_name("rk4").unwrap();
    for (k, w_expected) in [(2e5, 316.227766), (2e7, 3162.27766)] {
        let body = resting_mass(k);
        let x_eq = -body.static_overlap();
        let w = body.contact_frequency();
        let h = 2.0 * std::f64::consts::PI / w / 400.0;
        // Start at equilibrium moving up slowly (stays in contact: amplitude < overlap).
        let amp = 0.5 * body.static_overlap();
        let (x0, v0) = ([x_eq], [amp * w]);
        // g = x_eq - x is 0 at the start, negative for the first half period, positive for the
        // second, and falls through zero after one full period.
        let g = |_t: f64, x: &[f64], _v: &[f64]| x_eq - x[0];
        let period =
            find_event(rk4.as_ref(), &body, 0.0, &x0, &v0, h, 1.0, &g, Crossing::Falling, 1e-15)
                .unwrap()
                .unwrap()
                .t;
        let measured = 2.0 * std::f64::consts::PI / period;
        eprintln!("k = {k}: w_c measured {measured:.6} rad/s");
        assert!((measured - w_expected).abs() <= 1e-6 * w_expected, "k = {k}: {measured}");
    }
}

/// Contact phase of a mass arriving at speed v_in (no gravity): returns (contact time, peak
/// penetration, exit speed), measured with RK4 and events located by Brent.
fn contact_phase(body: &PenaltyPointMass, v_in: f64, steps_per_contact: f64) -> (f64, f64, f64) {
    let rk4 = integrator_from_name("rk4").unwrap();
    let phase = body.contact_phase();
    let h = std::f64::consts::PI / body.contact_frequency() / steps_per_contact;
    let (x0, v0) = ([0.0], [-v_in]);
    let gap = |_t: f64, x: &[f64], _v: &[f64]| x[0];
    let vel = |_t: f64, _x: &[f64], v: &[f64]| v[0];
    let peak =
        find_event(rk4.as_ref(), &phase, 0.0, &x0, &v0, h, 1.0, &vel, Crossing::Rising, 1e-15)
            .unwrap()
            .unwrap();
    let exit =
        find_event(rk4.as_ref(), &phase, 0.0, &x0, &v0, h, 1.0, &gap, Crossing::Rising, 1e-15)
            .unwrap()
            .unwrap();
    (exit.t, -peak.x[0], exit.v[0])
}

#[test]
fn penalty_oscillator_contact_time_peak_and_exit_speed() {
    let body = PenaltyPointMass {
        mass: 2.0,
        gravity: 0.0,
        external_force: 0.0,
        law: PenaltyLaw::Linear { stiffness: 2e5 },
    };
    let w = body.contact_frequency();
    let v_in = 1.3;
    let (tc, peak, v_out) = contact_phase(&body, v_in, 2000.0);
    eprintln!(
        "contact time {tc:.12e} (pi/w = {:.12e}), peak {peak:.12e} (v/w = {:.12e}), exit {v_out}",
        std::f64::consts::PI / w,
        v_in / w
    );
    assert!((tc - std::f64::consts::PI / w).abs() <= 1e-10 * tc);
    assert!((peak - v_in / w).abs() <= 1e-10 * peak);
    assert!((v_out - v_in).abs() <= 1e-10 * v_in);
}

#[test]
fn kelvin_voigt_restitution_matches_exp_formula() {
    let (m, k): (f64, f64) = (2.0, 2e5);
    for zeta in [0.05, 0.2, 0.5] {
        let c = 2.0 * zeta * (k * m).sqrt();
        let body = PenaltyPointMass {
            mass: m,
            gravity: 0.0,
            external_force: 0.0,
            law: PenaltyLaw::KelvinVoigt { stiffness: k, damping: c },
        };
        assert!((body.damping_ratio() - zeta).abs() <= 1e-14);
        let v_in = 0.8;
        let (tc, _, v_out) = contact_phase(&body, v_in, 4000.0);
        let e = v_out / v_in;
        let expected = (-zeta * std::f64::consts::PI / (1.0 - zeta * zeta).sqrt()).exp();
        eprintln!("zeta = {zeta}: restitution measured {e:.12}, formula {expected:.12}");
        assert!((e - expected).abs() <= 1e-9 * expected, "zeta = {zeta}: {e} vs {expected}");
        // Contact lasts half a damped period.
        let wd = (k / m).sqrt() * (1.0 - zeta * zeta).sqrt();
        assert!((tc - std::f64::consts::PI / wd).abs() <= 1e-9 * tc);
    }
}
