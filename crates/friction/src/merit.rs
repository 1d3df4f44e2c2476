//! The one merit of this crate: Siconos' `fc3d_compute_error` (and its 2D analogue), the
//! natural-map residual of De Saxcé's formulation (De Saxcé, Feng 1998; Acary, Brogliato 2008,
//! §13.3), recomputed from r alone.
//!
//! With u = W r + q recomputed from r,
//!
//! error = sqrt( sum_i | r_i - P_{K_i}( r_i - (u_i + mu_i |u_T,i| e_N) ) |^2 ) / |q|_2,
//!
//! without the division when |q|_2 <= machine epsilon. A solution is solved when error <= tol.

use crate::cone::{project, tangential_norm};
use crate::FcProblem;

/// The squared local error of one contact block (2 or 3 entries, r and u of equal length):
/// |r - P_K(r - (u + mu |u_T| e_N))|^2.
pub fn contact_error_squared(r: &[f64], u: &[f64], mu: f64) -> f64 {
    debug_assert!(matches!(r.len(), 2 | 3) && u.len() == r.len());
    let d = r.len().min(u.len()).min(3);
    if d == 0 {
        return 0.0;
    }
    let mut t = [0.0; 3];
    let ut = tangential_norm(u);
    t[0] = r[0] - u[0] - mu * ut;
    for k in 1..d {
        t[k] = r[k] - u[k];
    }
    project(&mut t[..d], mu);
    (0..d).map(|k| (r[k] - t[k]).powi(2)).sum()
}

/// |q|_2 when it exceeds machine epsilon, else 1 (the normalisation of [`error`]).
pub fn normalisation(q: &[f64]) -> f64 {
    let nq = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    if nq > f64::EPSILON {
        nq
    } else {
        1.0
    }
}

/// The error of r for a given u (which the caller guarantees is W r + q).
pub fn error_with_velocity(problem: &FcProblem, r: &[f64], u: &[f64]) -> f64 {
    let d = problem.dimension();
    let mut sum = 0.0;
    for (i, &mu) in problem.mu().iter().enumerate() {
        let b = d * i..d * (i + 1);
        sum += contact_error_squared(&r[b.clone()], &u[b], mu);
    }
    sum.sqrt() / normalisation(problem.q())
}

/// u = W r + q and the error, both recomputed from r.
pub fn evaluate(problem: &FcProblem, r: &[f64]) -> (Vec<f64>, f64) {
    let u = problem.velocity(r);
    let e = error_with_velocity(problem, r, &u);
    (u, e)
}

/// The error of r (u recomputed).
pub fn error(problem: &FcProblem, r: &[f64]) -> f64 {
    evaluate(problem, r).1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_error_exactly_at_the_closed_form_solutions() {
        // W = I, q = (-1, 0.2, 0): sticking (|q_T| = 0.2 <= mu |q_N| = 0.5): r = -q, u = 0.
        let eye: Vec<Vec<f64>> =
            (0..3).map(|i| (0..3).map(|j| f64::from(u8::from(i == j))).collect()).collect();
        let p = FcProblem::from_dense_rows(3, &eye, vec![-1.0, 0.2, 0.0], vec![0.5]).expect("ok");
        assert!(error(&p, &[1.0, -0.2, 0.0]) < 1e-15);
        assert!(error(&p, &[1.0, 0.0, 0.0]) > 1e-2);
        // Take-off (q_N > 0): r = 0.
        let p = FcProblem::from_dense_rows(3, &eye, vec![1.0, 0.2, 0.0], vec![0.5]).expect("ok");
        assert!(error(&p, &[0.0; 3]) < 1e-15);
        assert!(error(&p, &[0.1, 0.0, 0.0]) > 1e-2);
    }

    #[test]
    fn no_division_for_a_zero_q() {
        let eye = vec![vec![1.0, 0.0], vec![0.0, 1.0]];
        let p = FcProblem::from_dense_rows(2, &eye, vec![0.0, 0.0], vec![0.3]).expect("ok");
        assert!(error(&p, &[0.0, 0.0]) < 1e-300);
        // r = (1, 0): u = (1, 0), r - P(r - u) = (1, 0) - P((0, 0)) = (1, 0).
        assert!((error(&p, &[1.0, 0.0]) - 1.0).abs() < 1e-15);
    }
}
