//! The second-order ODE x'' = a(t, x, v) that every smooth integrator advances, with optional
//! analytic Jacobians (otherwise forward differences are used by the implicit schemes).

use faer::Mat;

/// A failure inside a model evaluation (e.g. an LCP solved inside the right-hand side).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("model evaluation failed at t = {t}: {message}")]
pub struct SystemError {
    /// Time of the evaluation.
    pub t: f64,
    /// What failed.
    pub message: String,
}

/// x'' = a(t, x, v) with x, v in R^n.
pub trait SecondOrderSystem {
    /// Number of coordinates n.
    fn dim(&self) -> usize;

    /// Writes a(t, x, v) into `a` (length n).
    fn acceleration(&self, t: f64, x: &[f64], v: &[f64], a: &mut [f64]) -> Result<(), SystemError>;

    /// Analytic Jacobians (da/dx, da/dv), each n x n; `None` lets implicit schemes use forward
    /// differences.
    fn jacobians(&self, t: f64, x: &[f64], v: &[f64]) -> Option<(Mat<f64>, Mat<f64>)> {
        let _ = (t, x, v);
        None
    }

    /// False when a does not depend on v (Störmer–Verlet then skips its implicit half-kick).
    fn depends_on_velocity(&self) -> bool {
        true
    }
}

/// (da/dx, da/dv, evaluations of a used): analytic when the system has them, else forward
/// differences with steps sqrt(eps) max(|y_j|, 1).
pub fn jacobians_or_fd(
    sys: &dyn SecondOrderSystem,
    t: f64,
    x: &[f64],
    v: &[f64],
) -> Result<(Mat<f64>, Mat<f64>, usize), SystemError> {
    if let Some((ax, av)) = sys.jacobians(t, x, v) {
        return Ok((ax, av, 0));
    }
    let n = sys.dim();
    let mut a0 = vec![0.0; n];
    sys.acceleration(t, x, v, &mut a0)?;
    let mut ax = Mat::zeros(n, n);
    let mut av = Mat::zeros(n, n);
    let mut a1 = vec![0.0; n];
    let sq = f64::EPSILON.sqrt();
    let mut xp = x.to_vec();
    let mut vp = v.to_vec();
    for j in 0..n {
        let d = sq * x[j].abs().max(1.0);
        xp[j] = x[j] + d;
        sys.acceleration(t, &xp, v, &mut a1)?;
        xp[j] = x[j];
        for i in 0..n {
            ax[(i, j)] = (a1[i] - a0[i]) / d;
        }
        let d = sq * v[j].abs().max(1.0);
        vp[j] = v[j] + d;
        sys.acceleration(t, x, &vp, &mut a1)?;
        vp[j] = v[j];
        for i in 0..n {
            av[(i, j)] = (a1[i] - a0[i]) / d;
        }
    }
    Ok((ax, av, 1 + 2 * n))
}

/// The linear oscillator x'' = -w^2 x - 2 zeta w v (one coordinate), with analytic Jacobians
/// and its exact solution: the smooth test problem of REFERENCE.md D.
#[derive(Debug, Clone, Copy)]
pub struct LinearOscillator {
    /// Natural angular frequency w (rad/s).
    pub omega: f64,
    /// Damping ratio zeta (0 = undamped; the exact solution needs zeta < 1).
    pub damping_ratio: f64,
}

impl LinearOscillator {
    /// Exact (x, v) at time t from (x0, v0) at time 0, for 0 <= zeta < 1.
    pub fn exact(&self, t: f64, x0: f64, v0: f64) -> (f64, f64) {
        let (w, z) = (self.omega, self.damping_ratio);
        let wd = w * (1.0 - z * z).sqrt();
        let s = z * w;
        let b = (v0 + s * x0) / wd;
        let (sn, cs) = (wd * t).sin_cos();
        let ex = (-s * t).exp();
        let x = ex * (x0 * cs + b * sn);
        let v = ex * (-s * (x0 * cs + b * sn) + (-x0 * wd * sn + b * wd * cs));
        (x, v)
    }
}

impl SecondOrderSystem for LinearOscillator {
    fn dim(&self) -> usize {
        1
    }
    fn acceleration(
        &self,
        _t: f64,
        x: &[f64],
        v: &[f64],
        a: &mut [f64],
    ) -> Result<(), SystemError> {
        let w = self.omega;
        a[0] = -w * w * x[0] - 2.0 * self.damping_ratio * w * v[0];
        Ok(())
    }
    fn jacobians(&self, _t: f64, _x: &[f64], _v: &[f64]) -> Option<(Mat<f64>, Mat<f64>)> {
        let w = self.omega;
        Some((
            Mat::from_fn(1, 1, |_, _| -w * w),
            Mat::from_fn(1, 1, |_, _| -2.0 * self.damping_ratio * w),
        ))
    }
    fn depends_on_velocity(&self) -> bool {
        self.damping_ratio != 0.0
    }
}
