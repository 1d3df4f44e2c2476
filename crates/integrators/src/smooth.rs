//! Smooth one-step integrators for x'' = a(t, x, v) behind one trait, for compliant (penalty)
//! models: explicit Euler, symplectic Euler, Störmer–Verlet, classical Runge–Kutta (RK4),
//! implicit Euler and implicit midpoint (Hairer, Nørsett, Wanner 1993, *Solving ODEs I*;
//! Hairer, Lubich, Wanner 2006, *Geometric Numerical Integration*, §I.1 and §II.2).
//!
//! | scheme | order | update |
//! |---|---|---|
//! | `explicit-euler` | 1 | x1 = x + h v, v1 = v + h a(t, x, v) |
//! | `symplectic-euler` | 1 | v1 = v + h a(t, x, v), x1 = x + h v1 |
//! | `verlet` | 2 | v½ = v + h/2 a(t, x, v½) (implicit only if a depends on v), x1 = x + h v½, v1 = v½ + h/2 a(t+h, x1, v½) (Lobatto IIIA–IIIB) |
//! | `rk4` | 4 | classical four-stage Runge–Kutta on y = (x, v) |
//! | `implicit-euler` | 1 | v1 = v + h a(t+h, x + h v1, v1), x1 = x + h v1 |
//! | `implicit-midpoint` | 2 | vm = v + h/2 a(t+h/2, x + h/2 vm, vm), v1 = 2 vm - v, x1 = x + h vm |
//!
//! Implicit stages are solved by Newton's method on the velocity unknown with the Jacobian
//! I - c_x da/dx - c_v da/dv (analytic or forward differences); a stage that does not converge
//! within [`NewtonParams::max_iter`] is a typed error, never a panic.

use faer::linalg::solvers::Solve;
use faer::Mat;

use crate::system::{jacobians_or_fd, SecondOrderSystem, SystemError};

/// Why a step failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum IntegratorError {
    /// Newton's method on an implicit stage did not converge.
    #[error("{scheme}: Newton did not converge at t = {t} (h = {h}) after {iterations} iterations; last correction {correction:.3e}")]
    NewtonDidNotConverge {
        /// Scheme name.
        scheme: &'static str,
        /// Step start time.
        t: f64,
        /// Step size.
        h: f64,
        /// Iterations taken.
        iterations: usize,
        /// Max-norm of the last Newton correction (relative).
        correction: f64,
    },
    /// The Newton matrix was singular or produced a non-finite correction.
    #[error("{scheme}: singular Newton matrix at t = {t}")]
    SingularJacobian {
        /// Scheme name.
        scheme: &'static str,
        /// Step start time.
        t: f64,
    },
    /// The state became NaN or infinite.
    #[error("{scheme}: non-finite state after the step from t = {t} (h = {h})")]
    NonFinite {
        /// Scheme name.
        scheme: &'static str,
        /// Step start time.
        t: f64,
        /// Step size.
        h: f64,
    },
    /// x and v do not have the system's dimension, or h is not a finite number > 0.
    #[error("invalid step input: {0}")]
    Input(String),
    /// The model failed.
    #[error(transparent)]
    System(#[from] SystemError),
}

/// Newton settings of the implicit stages.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NewtonParams {
    /// Stop when max|dv| <= tol * max(1, max|v|) (default 1e-12).
    pub tol: f64,
    /// Iteration cap (default 50).
    pub max_iter: usize,
}

impl Default for NewtonParams {
    fn default() -> Self {
        Self { tol: 1e-12, max_iter: 50 }
    }
}

/// What a step did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StepInfo {
    /// Newton iterations of the implicit stage (0 for explicit schemes).
    pub newton_iterations: usize,
    /// Evaluations of a(t, x, v).
    pub evaluations: usize,
}

/// A one-step method for x'' = a(t, x, v).
pub trait Integrator: Send + Sync {
    /// Scheme name, e.g. `rk4`.
    fn name(&self) -> &'static str;
    /// Classical order of accuracy.
    fn order(&self) -> u32;
    /// Advances (x, v) from t to t + h in place.
    fn step(
        &self,
        sys: &dyn SecondOrderSystem,
        t: f64,
        h: f64,
        x: &mut [f64],
        v: &mut [f64],
    ) -> Result<StepInfo, IntegratorError>;
}

/// Every scheme name accepted by [`integrator_from_name`].
pub const SCHEMES: [&str; 6] =
    ["explicit-euler", "symplectic-euler", "verlet", "rk4", "implicit-euler", "implicit-midpoint"];

/// Builds a scheme by name (one of [`SCHEMES`]) with default Newton settings.
pub fn integrator_from_name(name: &str) -> Result<Box<dyn Integrator>, IntegratorError> {
    let n = NewtonParams::default();
    Ok(match name.trim() {
        "explicit-euler" => Box::new(ExplicitEuler),
        "symplectic-euler" => Box::new(SymplecticEuler),
        "verlet" | "stormer-verlet" => Box::new(StormerVerlet { newton: n }),
        "rk4" => Box::new(Rk4),
        "implicit-euler" => Box::new(ImplicitEuler { newton: n }),
        "implicit-midpoint" => Box::new(ImplicitMidpoint { newton: n }),
        other => {
            return Err(IntegratorError::Input(format!(
                "unknown scheme `{other}`; valid: {}",
                SCHEMES.join(", ")
            )))
        }
    })
}

fn check_input(
    sys: &dyn SecondOrderSystem,
    h: f64,
    x: &[f64],
    v: &[f64],
) -> Result<(), IntegratorError> {
    let n = sys.dim();
    if x.len() != n || v.len() != n {
        return Err(IntegratorError::Input(format!(
            "x has {} and v has {} entries, the system has dimension {n}",
            x.len(),
            v.len()
        )));
    }
    if !(h.is_finite() && h > 0.0) {
        return Err(IntegratorError::Input(format!("step h = {h}: must be a finite number > 0")));
    }
    Ok(())
}

fn check_finite(
    scheme: &'static str,
    t: f64,
    h: f64,
    x: &[f64],
    v: &[f64],
) -> Result<(), IntegratorError> {
    if x.iter().chain(v).all(|y| y.is_finite()) {
        Ok(())
    } else {
        Err(IntegratorError::NonFinite { scheme, t, h })
    }
}

/// Explicit (forward) Euler, order 1.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExplicitEuler;

impl Integrator for ExplicitEuler {
    fn name(&self) -> &'static str {
        "explicit-euler"
    }
    fn order(&self) -> u32 {
        1
    }
    fn step(
        &self,
        sys: &dyn SecondOrderSystem,
        t: f64,
        h: f64,
        x: &mut [f64],
        v: &mut [f64],
    ) -> Result<StepInfo, IntegratorError> {
        check_input(sys, h, x, v)?;
        let mut a = vec![0.0; x.len()];
        sys.acceleration(t, x, v, &mut a)?;
        for i in 0..x.len() {
            x[i] += h * v[i];
            v[i] += h * a[i];
        }
        check_finite(self.name(), t, h, x, v)?;
        Ok(StepInfo { newton_iterations: 0, evaluations: 1 })
    }
}

/// Symplectic Euler (velocity first), order 1.
#[derive(Debug, Clone, Copy, Default)]
pub struct SymplecticEuler;

impl Integrator for SymplecticEuler {
    fn name(&self) -> &'static str {
        "symplectic-euler"
    }
    fn order(&self) -> u32 {
        1
    }
    fn step(
        &self,
        sys: &dyn SecondOrderSystem,
        t: f64,
        h: f64,
        x: &mut [f64],
        v: &mut [f64],
    ) -> Result<StepInfo, IntegratorError> {
        check_input(sys, h, x, v)?;
        let mut a = vec![0.0; x.len()];
        sys.acceleration(t, x, v, &mut a)?;
        for i in 0..x.len() {
            v[i] += h * a[i];
            x[i] += h * v[i];
        }
        check_finite(self.name(), t, h, x, v)?;
        Ok(StepInfo { newton_iterations: 0, evaluations: 1 })
    }
}

/// Störmer–Verlet (velocity form, Lobatto IIIA–IIIB), order 2.
#[derive(Debug, Clone, Copy, Default)]
pub struct StormerVerlet {
    /// Newton settings of the implicit half-kick (used only when a depends on v).
    pub newton: NewtonParams,
}

impl Integrator for StormerVerlet {
    fn name(&self) -> &'static str {
        "verlet"
    }
    fn order(&self) -> u32 {
        2
    }
    fn step(
        &self,
        sys: &dyn SecondOrderSystem,
        t: f64,
        h: f64,
        x: &mut [f64],
        v: &mut [f64],
    ) -> Result<StepInfo, IntegratorError> {
        check_input(sys, h, x, v)?;
        let n = x.len();
        let mut a = vec![0.0; n];
        let mut info = StepInfo::default();
        let v_half = if sys.depends_on_velocity() {
            let x0 = x.to_vec();
            let (vh, it, ev) =
                newton_velocity(self.name(), &self.newton, sys, t, h, v, 0.0, 0.5 * h, |vh| {
                    (t, x0.clone(), vh.to_vec())
                })?;
            info.newton_iterations = it;
            info.evaluations += ev;
            vh
        } else {
            sys.acceleration(t, x, v, &mut a)?;
            info.evaluations += 1;
            (0..n).map(|i| v[i] + 0.5 * h * a[i]).collect()
        };
        for i in 0..n {
            x[i] += h * v_half[i];
        }
        sys.acceleration(t + h, x, &v_half, &mut a)?;
        info.evaluations += 1;
        for i in 0..n {
            v[i] = v_half[i] + 0.5 * h * a[i];
        }
        check_finite(self.name(), t, h, x, v)?;
        Ok(info)
    }
}

/// Classical Runge–Kutta, order 4.
#[derive(Debug, Clone, Copy, Default)]
pub struct Rk4;

impl Integrator for Rk4 {
    fn name(&self) -> &'static str {
        "rk4"
    }
    fn order(&self) -> u32 {
        4
    }
    fn step(
        &self,
        sys: &dyn SecondOrderSystem,
        t: f64,
        h: f64,
        x: &mut [f64],
        v: &mut [f64],
    ) -> Result<StepInfo, IntegratorError> {
        check_input(sys, h, x, v)?;
        let n = x.len();
        let mut xs = vec![0.0; n];
        let mut vs = vec![0.0; n];
        let mut kx = [vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]];
        let mut kv = [vec![0.0; n], vec![0.0; n], vec![0.0; n], vec![0.0; n]];
        let c = [0.0, 0.5, 0.5, 1.0];
        for s in 0..4 {
            for i in 0..n {
                if s == 0 {
                    xs[i] = x[i];
                    vs[i] = v[i];
                } else {
                    xs[i] = x[i] + c[s] * h * kx[s - 1][i];
                    vs[i] = v[i] + c[s] * h * kv[s - 1][i];
                }
            }
            kx[s].copy_from_slice(&vs);
            sys.acceleration(t + c[s] * h, &xs, &vs, &mut kv[s])?;
        }
        for i in 0..n {
            x[i] += h / 6.0 * (kx[0][i] + 2.0 * kx[1][i] + 2.0 * kx[2][i] + kx[3][i]);
            v[i] += h / 6.0 * (kv[0][i] + 2.0 * kv[1][i] + 2.0 * kv[2][i] + kv[3][i]);
        }
        check_finite(self.name(), t, h, x, v)?;
        Ok(StepInfo { newton_iterations: 0, evaluations: 4 })
    }
}

/// Implicit (backward) Euler, order 1, L-stable.
#[derive(Debug, Clone, Copy, Default)]
pub struct ImplicitEuler {
    /// Newton settings.
    pub newton: NewtonParams,
}

impl Integrator for ImplicitEuler {
    fn name(&self) -> &'static str {
        "implicit-euler"
    }
    fn order(&self) -> u32 {
        1
    }
    fn step(
        &self,
        sys: &dyn SecondOrderSystem,
        t: f64,
        h: f64,
        x: &mut [f64],
        v: &mut [f64],
    ) -> Result<StepInfo, IntegratorError> {
        check_input(sys, h, x, v)?;
        let x0 = x.to_vec();
        let (v1, it, ev) =
            newton_velocity(self.name(), &self.newton, sys, t, h, v, h * h, h, |v1| {
                (t + h, x0.iter().zip(v1).map(|(xi, vi)| xi + h * vi).collect(), v1.to_vec())
            })?;
        for i in 0..x.len() {
            x[i] = x0[i] + h * v1[i];
            v[i] = v1[i];
        }
        check_finite(self.name(), t, h, x, v)?;
        Ok(StepInfo { newton_iterations: it, evaluations: ev })
    }
}

/// Implicit midpoint rule, order 2, symplectic, |R(iy)| = 1.
#[derive(Debug, Clone, Copy, Default)]
pub struct ImplicitMidpoint {
    /// Newton settings.
    pub newton: NewtonParams,
}

impl Integrator for ImplicitMidpoint {
    fn name(&self) -> &'static str {
        "implicit-midpoint"
    }
    fn order(&self) -> u32 {
        2
    }
    fn step(
        &self,
        sys: &dyn SecondOrderSystem,
        t: f64,
        h: f64,
        x: &mut [f64],
        v: &mut [f64],
    ) -> Result<StepInfo, IntegratorError> {
        check_input(sys, h, x, v)?;
        let x0 = x.to_vec();
        let hh = 0.5 * h;
        let (vm, it, ev) =
            newton_velocity(self.name(), &self.newton, sys, t, h, v, hh * hh, hh, |vm| {
                (t + hh, x0.iter().zip(vm).map(|(xi, vi)| xi + hh * vi).collect(), vm.to_vec())
            })?;
        for i in 0..x.len() {
            x[i] = x0[i] + h * vm[i];
            v[i] = 2.0 * vm[i] - v[i];
        }
        check_finite(self.name(), t, h, x, v)?;
        Ok(StepInfo { newton_iterations: it, evaluations: ev })
    }
}

/// Solves u = v0 + c_v a(point(u)) for u by Newton, where point(u) = (t, x(u), v(u)) with
/// dx/du = (c_x / c_v) I and dv/du = I, so the Newton matrix is I - c_x A_x - c_v A_v.
/// Returns (u, iterations, evaluations).
#[allow(clippy::too_many_arguments)]
fn newton_velocity(
    scheme: &'static str,
    params: &NewtonParams,
    sys: &dyn SecondOrderSystem,
    t0: f64,
    h: f64,
    v0: &[f64],
    c_x: f64,
    c_v: f64,
    point: impl Fn(&[f64]) -> (f64, Vec<f64>, Vec<f64>),
) -> Result<(Vec<f64>, usize, usize), IntegratorError> {
    let n = v0.len();
    let mut u = v0.to_vec();
    let mut a = vec![0.0; n];
    let mut evaluations = 0;
    let mut correction = f64::INFINITY;
    for it in 1..=params.max_iter {
        let (t, xs, vs) = point(&u);
        sys.acceleration(t, &xs, &vs, &mut a)?;
        let (ax, av, fd_evaluations) = jacobians_or_fd(sys, t, &xs, &vs)?;
        evaluations += 1 + fd_evaluations;
        let jac = Mat::from_fn(n, n, |i, j| {
            let id = if i == j { 1.0 } else { 0.0 };
            id - c_x * ax[(i, j)] - c_v * av[(i, j)]
        });
        let rhs = Mat::from_fn(n, 1, |i, _| -(u[i] - v0[i] - c_v * a[i]));
        let du = jac.partial_piv_lu().solve(&rhs);
        if (0..n).any(|i| !du[(i, 0)].is_finite()) {
            return Err(IntegratorError::SingularJacobian { scheme, t: t0 });
        }
        let scale = u.iter().fold(1.0_f64, |m, x| m.max(x.abs()));
        correction = (0..n).fold(0.0_f64, |m, i| m.max(du[(i, 0)].abs())) / scale;
        for (i, ui) in u.iter_mut().enumerate() {
            *ui += du[(i, 0)];
        }
        if correction <= params.tol {
            return Ok((u, it, evaluations));
        }
    }
    Err(IntegratorError::NewtonDidNotConverge {
        scheme,
        t: t0,
        h,
        iterations: params.max_iter,
        correction,
    })
}

/// Takes `n_steps` steps of size h from (t0, x, v) in place; returns the final time.
pub fn integrate(
    integrator: &dyn Integrator,
    sys: &dyn SecondOrderSystem,
    t0: f64,
    h: f64,
    n_steps: usize,
    x: &mut [f64],
    v: &mut [f64],
) -> Result<f64, IntegratorError> {
    let mut t = t0;
    for k in 0..n_steps {
        integrator.step(sys, t, h, x, v)?;
        t = t0 + (k + 1) as f64 * h;
    }
    Ok(t)
}
