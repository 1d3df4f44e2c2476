//! Orders and stability of the smooth integrators on the linear oscillator
//! (REFERENCE.md A7 and D).

use signorini_integrators::smooth::SCHEMES;
use signorini_integrators::{
    integrate, integrator_from_name, observed_order, ImplicitEuler, Integrator, IntegratorError,
    LinearOscillator, NewtonParams, SecondOrderSystem, SystemError,
};

/// Max error in (x, v / w) at T = 2 over the step sizes T / N.
fn errors(scheme: &dyn Integrator, osc: &LinearOscillator, ns: &[usize]) -> (Vec<f64>, Vec<f64>) {
    let t_end = 2.0;
    let (x0, v0) = (1.0, 0.3);
    let (xe, ve) = osc.exact(t_end, x0, v0);
    let mut hs = Vec::new();
    let mut es = Vec::new();
    for &n in ns {
        let h = t_end / n as f64;
        let (mut x, mut v) = ([x0], [v0]);
        integrate(scheme, osc, 0.0, h, n, &mut x, &mut v).unwrap();
        hs.push(h);
        es.push((x[0] - xe).abs().max((v[0] - ve).abs() / osc.omega));
    }
    (hs, es)
}

#[test]
fn observed_orders_on_the_damped_oscillator() {
    // Damped, so the velocity-dependent paths (Newton, implicit half-kick) are exercised.
    let osc = LinearOscillator { omega: 2.0, damping_ratio: 0.1 };
    let expected = [1.0, 1.0, 2.0, 4.0, 1.0, 2.0];
    for (name, p) in SCHEMES.iter().zip(expected) {
        let scheme = integrator_from_name(name).unwrap();
        assert_eq!(scheme.order() as f64, p);
        let ns: Vec<usize> = (0..6).map(|k| 40 << k).collect();
        let (hs, es) = errors(scheme.as_ref(), &osc, &ns);
        let order = observed_order(&hs, &es).unwrap();
        eprintln!("{name}: observed order {order:.4} (errors {es:?})");
        assert!((order - p).abs() <= 0.1, "{name}: observed {order}, expected {p}");
    }
}

#[test]
fn observed_orders_on_the_undamped_oscillator() {
    let osc = LinearOscillator { omega: 3.0, damping_ratio: 0.0 };
    for (name, p) in SCHEMES.iter().zip([1.0, 1.0, 2.0, 4.0, 1.0, 2.0]) {
        let scheme = integrator_from_name(name).unwrap();
        let ns: Vec<usize> = (0..6).map(|k| 60 << k).collect();
        let (hs, es) = errors(scheme.as_ref(), &osc, &ns);
        let order = observed_order(&hs, &es).unwrap();
        eprintln!("{name} (undamped): observed order {order:.4}");
        assert!((order - p).abs() <= 0.1, "{name}: observed {order}, expected {p}");
    }
}

/// Energy norm sqrt(w^2 x^2 + v^2) of the undamped oscillator.
fn energy_norm(w: f64, x: f64, v: f64) -> f64 {
    (w * w * x * x + v * v).sqrt()
}

/// Per-step amplification |R(i w h)| measured in the energy norm (exact for these normal
/// one-step maps, whatever the start vector).
fn amplification(scheme: &dyn Integrator, w: f64, h: f64) -> f64 {
    let osc = LinearOscillator { omega: w, damping_ratio: 0.0 };
    let (mut x, mut v) = ([0.7], [0.4]);
    let before = energy_norm(w, x[0], v[0]);
    scheme.step(&osc, 0.0, h, &mut x, &mut v).unwrap();
    energy_norm(w, x[0], v[0]) / before
}

#[test]
fn explicit_euler_grows_by_sqrt_one_plus_w2h2_every_step() {
    let scheme = integrator_from_name("explicit-euler").unwrap();
    for (w, h) in [(316.2, 1e-4), (316.2, 1e-3), (1.0, 0.5), (50.0, 0.1)] {
        let osc = LinearOscillator { omega: w, damping_ratio: 0.0 };
        let expected = (1.0 + w * w * h * h).sqrt();
        let (mut x, mut v) = ([1e-4], [0.0]);
        let mut prev = energy_norm(w, x[0], v[0]);
        for _ in 0..20 {
            scheme.step(&osc, 0.0, h, &mut x, &mut v).unwrap();
            let now = energy_norm(w, x[0], v[0]);
            assert!((now / prev - expected).abs() <= 1e-12 * expected, "w h = {}", w * h);
            prev = now;
        }
    }
}

/// Largest energy-norm growth over `steps` steps at w h = wh.
fn max_growth(name: &str, wh: f64, steps: usize) -> f64 {
    let scheme = integrator_from_name(name).unwrap();
    let w = 10.0;
    let osc = LinearOscillator { omega: w, damping_ratio: 0.0 };
    let (mut x, mut v) = ([1.0], [0.0]);
    let e0 = energy_norm(w, x[0], v[0]);
    let mut worst: f64 = 1.0;
    for _ in 0..steps {
        scheme.step(&osc, 0.0, wh / w, &mut x, &mut v).unwrap();
        worst = worst.max(energy_norm(w, x[0], v[0]) / e0);
    }
    worst
}

#[test]
fn verlet_and_symplectic_euler_are_bounded_iff_wh_at_most_two() {
    for name in ["verlet", "symplectic-euler"] {
        // Just below 2 the orbit is an ellipse of a conserved quadratic form, so the energy
        // norm stays within its aspect ratio: 1/sqrt(1 - (wh/2)^2) = 10.0 (Verlet) and
        // sqrt((1 + wh/2)/(1 - wh/2)) = 20.0 (symplectic Euler) at wh = 1.99, for any number
        // of steps.
        let below = max_growth(name, 1.99, 20_000);
        let below_short = max_growth(name, 1.99, 2_000);
        assert!(below < 25.0, "{name}: grows to {below} at w h = 1.99");
        assert!(below <= 1.01 * below_short, "{name}: still growing ({below_short} -> {below})");
        // Just above: eigenvalue of modulus > 1, exponential growth.
        let above = max_growth(name, 2.01, 2_000);
        assert!(above > 1e6, "{name}: only {above} at w h = 2.01");
    }
}

#[test]
fn rk4_is_stable_on_the_imaginary_axis_up_to_two_sqrt_two() {
    let rk4 = integrator_from_name("rk4").unwrap();
    let limit = 2.0 * 2f64.sqrt();
    for y in [0.5, 1.0, 2.0, 2.8, limit - 1e-3] {
        let r = amplification(rk4.as_ref(), 1.0, y);
        // |R(iy)|^2 = 1 - y^6/72 + y^8/576.
        let exact = (1.0 - y.powi(6) / 72.0 + y.powi(8) / 576.0).sqrt();
        assert!((r - exact).abs() <= 1e-12, "y = {y}: {r} vs {exact}");
        assert!(r <= 1.0, "y = {y}: |R| = {r}");
    }
    for y in [limit + 1e-3, 2.9, 3.5] {
        assert!(amplification(rk4.as_ref(), 1.0, y) > 1.0, "y = {y}");
    }
}

#[test]
fn implicit_midpoint_has_unit_amplification_for_every_h() {
    let imp = integrator_from_name("implicit-midpoint").unwrap();
    for y in [1e-3, 0.1, 1.0, 2.0, 10.0, 1e3] {
        let r = amplification(imp.as_ref(), 7.0, y / 7.0);
        assert!((r - 1.0).abs() <= 1e-12, "y = {y}: |R| = {r}");
    }
    // Implicit Euler damps: |R(iy)| = 1/sqrt(1 + y^2).
    let ie = integrator_from_name("implicit-euler").unwrap();
    for y in [0.1, 1.0, 10.0] {
        let r = amplification(ie.as_ref(), 1.0, y);
        assert!((r - 1.0 / (1.0 + y * y).sqrt()).abs() <= 1e-12, "y = {y}: {r}");
    }
}

/// x'' = -x^3 (hard nonlinear spring): Newton needs several iterations.
struct Cubic;

impl SecondOrderSystem for Cubic {
    fn dim(&self) -> usize {
        1
    }
    fn acceleration(
        &self,
        _t: f64,
        x: &[f64],
        _v: &[f64],
        a: &mut [f64],
    ) -> Result<(), SystemError> {
        a[0] = -x[0].powi(3);
        Ok(())
    }
}

#[test]
fn newton_non_convergence_is_a_typed_error() {
    let tight = ImplicitEuler { newton: NewtonParams { tol: 1e-14, max_iter: 1 } };
    let (mut x, mut v) = ([3.0], [0.0]);
    let err = tight.step(&Cubic, 0.5, 0.5, &mut x, &mut v).unwrap_err();
    match err {
        IntegratorError::NewtonDidNotConverge { scheme, t, iterations, .. } => {
            assert_eq!(scheme, "implicit-euler");
            assert!((t - 0.5).abs() <= 0.0);
            assert_eq!(iterations, 1);
        }
        other => panic!("unexpected {other:?}"),
    }
    // With the default cap it converges (finite-difference Jacobian).
    let ok = ImplicitEuler::default();
    let (mut x, mut v) = ([3.0], [0.0]);
    let info = ok.step(&Cubic, 0.5, 0.5, &mut x, &mut v).unwrap();
    assert!(info.newton_iterations > 1);
    // The implicit Euler equations hold at the result: v1 = v0 + h a(x1).
    assert!((v[0] - 0.5 * (-x[0].powi(3))).abs() <= 1e-10 * v[0].abs());
}

#[test]
fn bad_inputs_are_errors() {
    let osc = LinearOscillator { omega: 1.0, damping_ratio: 0.0 };
    let rk4 = integrator_from_name("rk4").unwrap();
    let (mut x, mut v) = ([1.0, 2.0], [0.0]);
    assert!(matches!(rk4.step(&osc, 0.0, 0.1, &mut x, &mut v), Err(IntegratorError::Input(_))));
    let (mut x, mut v) = ([1.0], [0.0]);
    assert!(matches!(rk4.step(&osc, 0.0, -0.1, &mut x, &mut v), Err(IntegratorError::Input(_))));
    assert!(integrator_from_name("leapfrog-9").is_err());
    // Blow-up is reported, not propagated as NaN.
    let ee = integrator_from_name("explicit-euler").unwrap();
    let big = LinearOscillator { omega: 1e200, damping_ratio: 0.0 };
    let (mut x, mut v) = ([1e100], [0.0]);
    assert!(matches!(
        ee.step(&big, 0.0, 1.0, &mut x, &mut v),
        Err(IntegratorError::NonFinite { .. })
    ));
}
