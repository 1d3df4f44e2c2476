//! Block (point mass) on an incline with Coulomb friction (REFERENCE.md C): it sticks iff
//! tan a <= mu, otherwise it slides with acceleration g (sin a - mu cos a). Modelled in the
//! incline's frame: floor y = 0, gravity (g sin a, -g cos a) along (x, y). In 2-D the two cone
//! directions +x and -x make the polyhedral cone exact (effective coefficient mu).

use faer::Mat;
use signorini_integrators::{
    run_stepping, ContactModel, FrictionModel, MechanicalSystem, NoObserver, Sample,
    SteppingParams, TimeStepper,
};

const G: f64 = 9.81;

struct Incline {
    mass: f64,
    angle: f64,
    mu: f64,
}

impl MechanicalSystem for Incline {
    fn n_dof(&self) -> usize {
        2
    }
    fn mass_matrix(&self, _q: &[f64]) -> Mat<f64> {
        Mat::from_fn(2, 2, |i, j| if i == j { self.mass } else { 0.0 })
    }
    fn forces(&self, _t: f64, _q: &[f64], _v: &[f64]) -> Vec<f64> {
        vec![self.mass * G * self.angle.sin(), -self.mass * G * self.angle.cos()]
    }
}

impl ContactModel for Incline {
    fn n_contacts(&self) -> usize {
        1
    }
    fn gaps(&self, q: &[f64]) -> Vec<f64> {
        vec![q[1]]
    }
    fn jacobian(&self, _q: &[f64]) -> Mat<f64> {
        Mat::from_fn(1, 2, |_, j| if j == 1 { 1.0 } else { 0.0 })
    }
    fn restitution(&self, _contact_idx: usize) -> f64 {
        0.0
    }
}

impl FrictionModel for Incline {
    fn n_directions(&self) -> usize {
        2
    }
    fn tangent_jacobian(&self, _q: &[f64]) -> Mat<f64> {
        Mat::from_fn(2, 2, |r, j| match (r, j) {
            (0, 0) => 1.0,
            (1, 0) => -1.0,
            _ => 0.0,
        })
    }
    fn friction_coefficient(&self, _contact_idx: usize) -> f64 {
        self.mu
    }
}

fn slide_velocity(angle_deg: f64, mu: f64) -> (f64, f64, f64) {
    let body = Incline { mass: 2.0, angle: angle_deg.to_radians(), mu };
    let solver =
        signorini_lcp::Registry::builtin().build("lemke").expect("lemke is always registered");
    let h = 1e-3;
    let mut p = SteppingParams::with_step(h);
    p.sample_every = 0;
    let start = Sample { t: 0.0, q: vec![0.0, 0.0], v: vec![0.0, 0.0] };
    let stepper = TimeStepper::StewartTrinkle(&body);
    let r =
        run_stepping(&body, stepper, solver.as_ref(), &start, 1000, &p, &mut NoObserver).unwrap();
    assert!(r
        .steps
        .iter()
        .all(|s| s.lcp.as_ref().is_some_and(|l| l.status == signorini_lcp::Status::Solved)));
    (r.v[0], r.q[1], r.v[1])
}

#[test]
fn sticks_below_the_friction_angle() {
    // mu = 0.5: friction angle atan(0.5) = 26.57 deg.
    for angle in [10.0, 20.0, 26.0] {
        let (vx, y, vy) = slide_velocity(angle, 0.5);
        assert!(vx.abs() <= 1e-9, "{angle} deg: slides at {vx}");
        assert!(y.abs() <= 1e-12 && vy.abs() <= 1e-12);
    }
}

#[test]
fn slides_above_the_friction_angle_with_g_sin_minus_mu_cos() {
    for angle in [27.0, 35.0, 60.0] {
        let a: f64 = f64::to_radians(angle);
        let expected = G * (a.sin() - 0.5 * a.cos()); // at t = 1 s
        let (vx, y, _) = slide_velocity(angle, 0.5);
        // Constant forces: semi-implicit Euler gives the sliding velocity exactly at t = 1 s.
        assert!(
            (vx - expected).abs() <= 1e-9 * expected.abs().max(1.0),
            "{angle} deg: {vx} vs {expected}"
        );
        assert!(y.abs() <= 1e-12, "{angle} deg: leaves the incline ({y})");
    }
}
