//! The one merit function every solver is judged by (the measure Siconos numerics reports).
//!
//! w = Mz + q is recomputed from z; `residual = ||min(z, w)||_2 / ||q||_2`, without the division
//! when ||q||_2 <= f64::EPSILON (Acary, Brémond, Huber 2018, "On solving contact problems with
//! Coulomb friction", use the same normalised natural-map residual).

use serde::{Deserialize, Serialize};

use crate::Lcp;

/// Solver-independent quality figures of a candidate z, recomputed from z alone.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Merit {
    /// ||min(z, w)||_2 / ||q||_2 (no division when ||q||_2 <= eps).
    pub residual: f64,
    /// ||min(z, w)||_2 without normalisation.
    pub residual_abs: f64,
    /// max_i |z_i w_i|.
    pub complementarity: f64,
    /// max(0, -min_i z_i).
    pub z_violation: f64,
    /// max(0, -min_i w_i).
    pub w_violation: f64,
}

impl Merit {
    /// Merit of z for `lcp` given an already computed w = Mz + q.
    pub fn from_zw(lcp: &Lcp, z: &[f64], w: &[f64]) -> Self {
        let mut sq = 0.0;
        let mut complementarity: f64 = 0.0;
        let mut z_violation: f64 = 0.0;
        let mut w_violation: f64 = 0.0;
        for (&zi, &wi) in z.iter().zip(w) {
            let m = zi.min(wi);
            sq += m * m;
            complementarity = complementarity.max((zi * wi).abs());
            z_violation = z_violation.max(-zi);
            w_violation = w_violation.max(-wi);
        }
        let residual_abs = sq.sqrt();
        let qnorm = norm2(lcp.q());
        let residual = if qnorm <= f64::EPSILON { residual_abs } else { residual_abs / qnorm };
        let all_finite = z.iter().chain(w).all(|v| v.is_finite());
        let residual = if all_finite { residual } else { f64::INFINITY };
        Self { residual, residual_abs, complementarity, z_violation, w_violation }
    }
}

/// Recomputes w = Mz + q and the merit of z.
pub fn evaluate(lcp: &Lcp, z: &[f64]) -> (Vec<f64>, Merit) {
    let w = lcp.w_of(z);
    let merit = Merit::from_zw(lcp, z, &w);
    (w, merit)
}

/// Euclidean norm.
pub fn norm2(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_a1_merit_is_zero_at_solution_and_positive_at_zero() {
        // M = [[2, 1], [1, 2]], q = (-1, 0): z = (1/2, 0), w = (0, 1/2).
        let lcp = Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![-1.0, 0.0])
            .expect("valid");
        let (w, m) = evaluate(&lcp, &[0.5, 0.0]);
        assert!((w[1] - 0.5).abs() < 1e-15);
        assert!(m.residual < 1e-15);
        let (_, m0) = evaluate(&lcp, &[0.0, 0.0]);
        assert!((m0.residual - 1.0).abs() < 1e-15);
        assert!((m0.w_violation - 1.0).abs() < 1e-15);
    }

    #[test]
    fn zero_q_is_not_divided() {
        let lcp = Lcp::from_dense_rows(&[vec![1.0]], vec![0.0]).expect("valid");
        let (_, m) = evaluate(&lcp, &[-2.0]);
        assert!((m.residual - 2.0).abs() < 1e-15);
    }
}
