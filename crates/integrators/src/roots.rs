//! Scalar root finding on a bracket (Brent 1973, *Algorithms for Minimization without
//! Derivatives*, ch. 4: inverse quadratic interpolation with bisection safeguard), and event
//! location inside one step of any smooth [`Integrator`]: the event function is evaluated along
//! the scheme's own step of size tau from the step start, so the located root lies on the
//! numerical trajectory.

use crate::smooth::{Integrator, IntegratorError};
use crate::system::SecondOrderSystem;

/// Why a root could not be located.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RootError {
    /// f(a) and f(b) have the same strict sign.
    #[error("no sign change on [{a}, {b}]: f(a) = {fa}, f(b) = {fb}")]
    NotBracketed {
        /// Left end.
        a: f64,
        /// Right end.
        b: f64,
        /// f(a).
        fa: f64,
        /// f(b).
        fb: f64,
    },
    /// The iteration cap was reached.
    #[error("Brent did not reach tolerance {tol} within {max_iter} iterations")]
    MaxIterations {
        /// Tolerance.
        tol: f64,
        /// Cap.
        max_iter: usize,
    },
    /// f returned NaN.
    #[error("function value is NaN at {at}")]
    NaN {
        /// The argument.
        at: f64,
    },
    /// Integration inside the root search failed.
    #[error(transparent)]
    Integrator(#[from] IntegratorError),
}

/// Brent's method on [a, b] with f(a) f(b) <= 0; the root is returned to within
/// `tol + 4 eps |x|`. `f` may fail (its error is passed through).
pub fn brent<E>(
    mut f: impl FnMut(f64) -> Result<f64, E>,
    a: f64,
    b: f64,
    tol: f64,
    max_iter: usize,
) -> Result<f64, E>
where
    E: From<RootError>,
{
    let (mut a, mut b) = (a, b);
    let mut fa = f(a)?;
    let mut fb = f(b)?;
    if fa.is_nan() {
        return Err(RootError::NaN { at: a }.into());
    }
    if fb.is_nan() {
        return Err(RootError::NaN { at: b }.into());
    }
    if fa == 0.0 {
        return Ok(a);
    }
    if fb == 0.0 {
        return Ok(b);
    }
    if fa.signum() == fb.signum() {
        return Err(RootError::NotBracketed { a, b, fa, fb }.into());
    }
    let (mut c, mut fc) = (a, fa);
    let mut d = b - a;
    let mut e = d;
    for _ in 0..max_iter {
        if fb.signum() == fc.signum() {
            c = a;
            fc = fa;
            d = b - a;
            e = d;
        }
        if fc.abs() < fb.abs() {
            a = b;
            b = c;
            c = a;
            fa = fb;
            fb = fc;
            fc = fa;
        }
        let tol1 = 2.0 * f64::EPSILON * b.abs() + 0.5 * tol;
        let m = 0.5 * (c - b);
        if m.abs() <= tol1 || fb == 0.0 {
            return Ok(b);
        }
        if e.abs() >= tol1 && fa.abs() > fb.abs() {
            let s = fb / fa;
            let (mut p, mut q);
            if a == c {
                p = 2.0 * m * s;
                q = 1.0 - s;
            } else {
                let qq = fa / fc;
                let r = fb / fc;
                p = s * (2.0 * m * qq * (qq - r) - (b - a) * (r - 1.0));
                q = (qq - 1.0) * (r - 1.0) * (s - 1.0);
            }
            if p > 0.0 {
                q = -q;
            } else {
                p = -p;
            }
            if 2.0 * p < (3.0 * m * q - (tol1 * q).abs()).min((e * q).abs()) {
                e = d;
                d = p / q;
            } else {
                d = m;
                e = m;
            }
        } else {
            d = m;
            e = m;
        }
        a = b;
        fa = fb;
        b += if d.abs() > tol1 { d } else { tol1.copysign(m) };
        fb = f(b)?;
        if fb.is_nan() {
            return Err(RootError::NaN { at: b }.into());
        }
    }
    Err(RootError::MaxIterations { tol, max_iter }.into())
}

/// The sign change an event looks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Crossing {
    /// g goes from > 0 to <= 0.
    Falling,
    /// g goes from < 0 to >= 0.
    Rising,
}

impl Crossing {
    fn crossed(self, g0: f64, g1: f64) -> bool {
        match self {
            Crossing::Falling => g0 > 0.0 && g1 <= 0.0,
            Crossing::Rising => g0 < 0.0 && g1 >= 0.0,
        }
    }
}

/// An event function g(t, x, v) whose zero crossing is an event.
pub type EventFn<'a> = &'a dyn Fn(f64, &[f64], &[f64]) -> f64;

/// A located event.
#[derive(Debug, Clone, PartialEq)]
pub struct EventHit {
    /// Event time.
    pub t: f64,
    /// Position at the event.
    pub x: Vec<f64>,
    /// Velocity at the event.
    pub v: Vec<f64>,
    /// Steps taken before the event step.
    pub steps: usize,
}

/// Integrates from (t0, x0, v0) with steps of size h up to t_max and returns the first time
/// where `event(t, x, v)` crosses zero in the given direction, located by Brent to `root_tol`
/// along the scheme's own step, or `None` at t_max.
#[allow(clippy::too_many_arguments)]
pub fn find_event(
    integrator: &dyn Integrator,
    sys: &dyn SecondOrderSystem,
    t0: f64,
    x0: &[f64],
    v0: &[f64],
    h: f64,
    t_max: f64,
    event: EventFn<'_>,
    crossing: Crossing,
    root_tol: f64,
) -> Result<Option<EventHit>, RootError> {
    let (mut t, mut x, mut v) = (t0, x0.to_vec(), v0.to_vec());
    let mut g = event(t, &x, &v);
    let mut steps = 0;
    while t < t_max {
        let tau_max = h.min(t_max - t);
        let (mut x1, mut v1) = (x.clone(), v.clone());
        integrator.step(sys, t, tau_max, &mut x1, &mut v1)?;
        let g1 = event(t + tau_max, &x1, &v1);
        if crossing.crossed(g, g1) {
            let flow = |tau: f64| -> Result<f64, RootError> {
                let (mut xs, mut vs) = (x.clone(), v.clone());
                integrator.step(sys, t, tau, &mut xs, &mut vs)?;
                Ok(event(t + tau, &xs, &vs))
            };
            let tau = brent(
                |tau| if tau <= 0.0 { Ok(g) } else { flow(tau) },
                0.0,
                tau_max,
                root_tol,
                200,
            )?;
            let (mut xs, mut vs) = (x.clone(), v.clone());
            if tau > 0.0 {
                integrator.step(sys, t, tau, &mut xs, &mut vs)?;
            }
            return Ok(Some(EventHit { t: t + tau, x: xs, v: vs, steps }));
        }
        t += tau_max;
        x = x1;
        v = v1;
        g = g1;
        steps += 1;
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brent_finds_cubic_root_and_rejects_bad_brackets() {
        let r = brent(|x: f64| Ok::<_, RootError>(x * x * x - 2.0), 0.0, 2.0, 1e-14, 100).unwrap();
        assert!((r - 2f64.cbrt()).abs() < 1e-13);
        let e = brent(|x: f64| Ok::<_, RootError>(x * x + 1.0), -1.0, 1.0, 1e-12, 100).unwrap_err();
        assert!(matches!(e, RootError::NotBracketed { .. }));
        let e = brent(|_| Ok::<_, RootError>(f64::NAN), -1.0, 1.0, 1e-12, 100).unwrap_err();
        assert!(matches!(e, RootError::NaN { .. }));
    }
}
