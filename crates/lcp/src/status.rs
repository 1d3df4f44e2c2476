//! How a solve ended, and the certificates that prove a negative answer.

use serde::{Deserialize, Serialize};

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

/// Checks a Farkas certificate of infeasibility, y >= 0, M'y <= 0, q'y < 0, with a scale-free
/// test that is a proof up to a relative perturbation `rel_tol` of the data (typically 1e-9).
///
/// Entries of y below zero by at most `rel_tol * max|y|` are taken as zero (y+ = max(y, 0) is
/// what is checked); a larger negative entry rejects y. Then, with |M| and |q| taken
/// elementwise, the test is
///
/// - $(M^\top y_+)_j \le$ `rel_tol` $(|M|^\top y_+)_j$ for every column j, and
/// - $q^\top y_+ < -$`rel_tol` $|q|^\top y_+$.
///
/// When it passes, y+ is an exact Farkas vector of LCP(M~, q~) for some M~, q~ with
/// |M~ - M| <= rel_tol |M| and |q~ - q| <= rel_tol |q| elementwise (column j of M moved by
/// -theta_j |M_.j| with theta_j = max(0, (M'y)_j) / (|M|'y)_j <= rel_tol; zeros of M and q stay
/// zero). Both sides scale with M, q and y, so the test has no absolute floor: a 1x1 problem
/// M = [1e-10], q = [-1] (solution z = 1e10) has no certificate, since (M'y) = (|M|'y) for
/// every y > 0.
pub fn verify_farkas(lcp: &Lcp, y: &[f64], rel_tol: f64) -> Result<(), FarkasError> {
    let n = lcp.n();
    if y.len() != n {
        return Err(FarkasError::Size { n, got: y.len() });
    }
    let ymax = y.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for (index, &value) in y.iter().enumerate() {
        if !value.is_finite() || value < -rel_tol * ymax {
            return Err(FarkasError::Negative { index, value });
        }
    }
    let y_plus: Vec<f64> = y.iter().map(|v| v.max(0.0)).collect();
    let mut mty = vec![0.0; n];
    lcp.mul_vec_transpose_uncounted(&y_plus, &mut mty);
    let abs_mty = abs_transpose_product(lcp, &y_plus);
    for (index, (&value, &scale)) in mty.iter().zip(&abs_mty).enumerate() {
        if !value.is_finite() || value > rel_tol * scale {
            return Err(FarkasError::PositiveMty { index, value });
        }
    }
    let qty: f64 = lcp.q().iter().zip(&y_plus).map(|(a, b)| a * b).sum();
    let qscale: f64 = lcp.q().iter().zip(&y_plus).map(|(a, b)| a.abs() * b).sum();
    if !qty.is_finite() || qty >= -rel_tol * qscale || qscale == 0.0 {
        return Err(FarkasError::NonNegativeQty { value: qty });
    }
    Ok(())
}

/// |M|' y for y >= 0 (the scale of each column's product).
fn abs_transpose_product(lcp: &Lcp, y: &[f64]) -> Vec<f64> {
    let n = lcp.n();
    let mut out = vec![0.0; n];
    match lcp.matrix() {
        crate::Matrix::Dense(m) => {
            for (j, o) in out.iter_mut().enumerate() {
                *o = m.col(j).iter().zip(y).map(|(a, b)| a.abs() * b).sum();
            }
        }
        crate::Matrix::Sparse(s) => {
            for (i, &yi) in y.iter().enumerate() {
                for (&j, &v) in s.col_idx_of_row_raw(i).iter().zip(s.val_of_row(i)) {
                    out[j] += v.abs() * yi;
                }
            }
        }
    }
    out
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

    /// Issue 14: `qp` claimed `infeasible` on M = [1e-10], q = [-1] (a positive-definite 1x1
    /// problem, z = 1e10) with y = 1.02, and the absolute floor of the old check (`max(1.0)`)
    /// accepted M'y = 1.02e-10 > 0.
    #[test]
    fn issue_14_a_tiny_positive_mty_is_not_a_certificate() {
        let lcp = Lcp::from_dense_rows(&[vec![1e-10]], vec![-1.0]).expect("valid");
        assert!(matches!(verify_farkas(&lcp, &[1.02], 1e-9), Err(FarkasError::PositiveMty { .. })));
    }

    /// The test is scale-free: scaling M, q or y by any positive factor changes nothing.
    #[test]
    fn the_check_does_not_depend_on_the_scale_of_the_data() {
        // M'y = (-0.5, -1.5), q'y = -0.75 for y = (1, 0.5).
        let m = [vec![-1.0, 0.0], vec![1.0, -3.0]];
        let q = [-1.0, 0.5];
        let y = [1.0, 0.5];
        for (sm, sq, sy) in [(1.0, 1.0, 1.0), (1e-150, 1e150, 1e-100), (1e200, 1e-200, 1e100)] {
            let rows: Vec<Vec<f64>> =
                m.iter().map(|r| r.iter().map(|x| x * sm).collect()).collect();
            let lcp =
                Lcp::from_dense_rows(&rows, q.iter().map(|x| x * sq).collect()).expect("valid");
            let ys: Vec<f64> = y.iter().map(|x| x * sy).collect();
            assert!(verify_farkas(&lcp, &ys, 1e-9).is_ok(), "scales {sm:e} {sq:e} {sy:e}");
            let wrong: Vec<f64> = [0.0, 1.0].iter().map(|x| x * sy).collect();
            assert!(verify_farkas(&lcp, &wrong, 1e-9).is_err(), "(M'y)_1 > 0 for y = (0, 1)");
        }
    }

    /// Round-off in M'y below rel_tol of its scale is accepted (a nearby problem has y as an
    /// exact certificate); a tiny negative y entry is read as zero.
    #[test]
    fn round_off_within_the_relative_tolerance_is_accepted() {
        let lcp = Lcp::from_dense_rows(&[vec![1.0, -1.0], vec![-1.0, 1.0]], vec![-1.0, -1.0])
            .expect("valid");
        // y = (1, 1 + 1e-12): M'y = (-1e-12, 1e-12): column 2 positive by 1e-12 of scale 2.
        assert!(verify_farkas(&lcp, &[1.0, 1.0 + 1e-12], 1e-9).is_ok());
        assert!(verify_farkas(&lcp, &[1.0, 1.0 + 1e-6], 1e-9).is_err());
        let skew = Lcp::from_dense_rows(&[vec![-1.0]], vec![-1.0]).expect("valid");
        assert!(verify_farkas(&skew, &[1.0], 1e-9).is_ok());
        let two = Lcp::from_dense_rows(&[vec![-1.0, 0.0], vec![0.0, 1.0]], vec![-1.0, 1.0])
            .expect("valid");
        assert!(verify_farkas(&two, &[1.0, -1e-12], 1e-9).is_ok());
        assert!(verify_farkas(&two, &[1.0, -1e-3], 1e-9).is_err());
    }

    #[test]
    fn status_names_are_snake_case() {
        for s in Status::ALL {
            let json = serde_json::to_string(&s).expect("serialises");
            assert_eq!(json, format!("\"{}\"", s.as_str()));
        }
    }
}
