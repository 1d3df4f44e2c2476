//! How a solve ended, and the certificates that prove a negative answer.

use serde::{Deserialize, Serialize};

use crate::merit::norm2;
use crate::Lcp;

/// Every way a run can end; one enum for every solver (DESIGN.md §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The merit recomputed from z is within tolerance.
    Solved,
    /// Certified: a Farkas vector y >= 0, M'y <= 0, q'y < 0 was checked.
    Infeasible,
    /// Proved by exhaustive enumeration of complementary index sets.
    NoSolution,
    /// Lemke left on a secondary ray where the matrix class proves nothing.
    RayTermination,
    /// The iteration limit was reached.
    MaxIterations,
    /// The wall-clock limit was reached.
    TimeLimit,
    /// The iteration made no progress.
    Stalled,
    /// A pivot, factorisation or step failed, or a claimed solution did not verify.
    NumericalFailure,
}

impl Status {
    /// The snake_case name used in JSON and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Solved => "solved",
            Status::Infeasible => "infeasible",
            Status::NoSolution => "no_solution",
            Status::RayTermination => "ray_termination",
            Status::MaxIterations => "max_iterations",
            Status::TimeLimit => "time_limit",
            Status::Stalled => "stalled",
            Status::NumericalFailure => "numerical_failure",
        }
    }

    /// All variants, in declaration order.
    pub const ALL: [Status; 8] = [
        Status::Solved,
        Status::Infeasible,
        Status::NoSolution,
        Status::RayTermination,
        Status::MaxIterations,
        Status::TimeLimit,
        Status::Stalled,
        Status::NumericalFailure,
    ];
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pad`, not `write_str`: table columns (`{:<16}`) rely on width and alignment.
        f.pad(self.as_str())
    }
}

/// A proof attached to a negative status.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Certificate {
    /// y >= 0, M'y <= 0, q'y < 0: no z >= 0 has Mz + q >= 0 (Farkas' lemma).
    Farkas {
        /// The certificate vector.
        y: Vec<f64>,
    },
    /// Exhaustive enumeration: every complementary index set was checked and none is feasible.
    Enumeration {
        /// Number of complementary index sets examined (2^n).
        index_sets: u64,
    },
}

/// Why a Farkas vector was rejected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FarkasError {
    /// y has the wrong size.
    #[error("y has {got} entries, expected {n}")]
    Size {
        /// Expected size.
        n: usize,
        /// Actual size.
        got: usize,
    },
    /// y has a negative or non-finite entry.
    #[error("y[{index}] = {value} is negative or not finite")]
    Negative {
        /// Index.
        index: usize,
        /// Value.
        value: f64,
    },
    /// (M'y)_j > 0 beyond round-off.
    #[error("(M'y)[{index}] = {value} is positive")]
    PositiveMty {
        /// Index.
        index: usize,
        /// Value.
        value: f64,
    },
    /// q'y is not negative beyond round-off.
    #[error("q'y = {value} is not negative")]
    NonNegativeQty {
        /// Value.
        value: f64,
    },
}

/// Checks a Farkas certificate of infeasibility: y >= 0, M'y <= 0, q'y < 0, with tolerances
/// relative to the size of y, M and q (round-off only; `rel_tol` is typically 1e-9).
pub fn verify_farkas(lcp: &Lcp, y: &[f64], rel_tol: f64) -> Result<(), FarkasError> {
    let n = lcp.n();
    if y.len() != n {
        return Err(FarkasError::Size { n, got: y.len() });
    }
    let ynorm = norm2(y);
    for (index, &value) in y.iter().enumerate() {
        if !value.is_finite() || value < -rel_tol * ynorm {
            return Err(FarkasError::Negative { index, value });
        }
    }
    let mut mty = vec![0.0; n];
    lcp.mul_vec_transpose(y, &mut mty);
    // Scale of M: the largest absolute entry of each column met by y.
    let mut mscale: f64 = 0.0;
    for (j, v) in mty.iter().enumerate() {
        mscale = mscale.max(lcp.get(j, j).abs()).max(v.abs());
    }
    let mscale = mscale.max(1.0);
    for (index, &value) in mty.iter().enumerate() {
        if !value.is_finite() || value > rel_tol * mscale * ynorm.max(1.0) {
            return Err(FarkasError::PositiveMty { index, value });
        }
    }
    let qty: f64 = lcp.q().iter().zip(y).map(|(a, b)| a * b).sum();
    let qscale = norm2(lcp.q()) * ynorm;
    if qty.is_nan() || qty >= -rel_tol * qscale || qscale == 0.0 {
        return Err(FarkasError::NonNegativeQty { value: qty });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_a2_certificate_is_accepted_and_a_wrong_one_rejected() {
        let lcp = Lcp::from_dense_rows(&[vec![-1.0]], vec![-1.0]).expect("valid");
        assert!(verify_farkas(&lcp, &[1.0], 1e-9).is_ok());
        assert!(verify_farkas(&lcp, &[-1.0], 1e-9).is_err());
        let solvable = Lcp::from_dense_rows(&[vec![1.0]], vec![-1.0]).expect("valid");
        assert!(verify_farkas(&solvable, &[1.0], 1e-9).is_err());
    }

    #[test]
    fn status_names_are_snake_case() {
        for s in Status::ALL {
            let json = serde_json::to_string(&s).expect("serialises");
            assert_eq!(json, format!("\"{}\"", s.as_str()));
        }
    }
}
