//! An impact in contact coordinates: Delassus matrix W, pre-impact normal velocities u-, and
//! per-contact restitution e; the outcome with impulses, post-impact velocities and the exact
//! kinetic-energy change.

use faer::Mat;
use serde::{Deserialize, Serialize};
use signorini_lcp::{Solution, Status};

/// Why an impact could not be set up or resolved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImpactError {
    /// W is not square or does not match the number of velocities / coefficients.
    #[error("dimension mismatch: {0}")]
    Dimension(String),
    /// A non-finite entry.
    #[error("{what} is not finite at index {index}: {value}")]
    NonFinite {
        /// Which input (`W`, `pre_velocity`, `restitution`, `mass`, `jacobian`).
        what: &'static str,
        /// Flat index (row-major for matrices).
        index: usize,
        /// The value.
        value: f64,
    },
    /// A restitution coefficient below zero.
    #[error("restitution e[{contact_idx}] = {value} must be >= 0")]
    NegativeRestitution {
        /// Contact index.
        contact_idx: usize,
        /// The value.
        value: f64,
    },
    /// A contact with W_ii <= 0 cannot take a pairwise impulse.
    #[error("W[{contact_idx}][{contact_idx}] = {value} must be > 0 for a pairwise impact")]
    NonPositiveDiagonal {
        /// Contact index.
        contact_idx: usize,
        /// The diagonal entry.
        value: f64,
    },
    /// The mass matrix is not symmetric positive definite.
    #[error("mass matrix is not symmetric positive definite (Cholesky failed)")]
    MassNotPositiveDefinite,
    /// The LCP solver did not solve the impact problem.
    #[error(
        "{solver} ended with {status} (residual {residual:.3e}) on the {phase} LCP of size {n}"
    )]
    SolverFailed {
        /// Solver name.
        solver: String,
        /// Its status.
        status: Status,
        /// The recomputed merit residual.
        residual: f64,
        /// `newton`, `compression`, `expansion`.
        phase: &'static str,
        /// LCP size.
        n: usize,
    },
    /// The LCP could not even be set up (solver refused options or size).
    #[error("LCP set-up failed: {0}")]
    Setup(String),
    /// Sequential resolution did not reach non-negative velocities within the pass limit.
    #[error("sequential impacts did not terminate within {max_impacts} pairwise impacts")]
    SequentialDidNotTerminate {
        /// The limit.
        max_impacts: usize,
    },
    /// Follow-up impacts did not settle within the pass limit.
    #[error("simultaneous impact needed more than {max_passes} follow-up passes")]
    TooManyPasses {
        /// The limit.
        max_passes: usize,
    },
}

/// Statistics of one LCP solve, as every stepper records them (per step or per impact).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LcpSolveRecord {
    /// Solver name (spec string).
    pub solver: String,
    /// Final status (checked by the driver of signorini-lcp).
    pub status: Status,
    /// LCP size.
    pub n: usize,
    /// Iterations of the solver loop.
    pub iterations: usize,
    /// Pivots (pivoting methods).
    pub pivots: Option<usize>,
    /// Merit residual recomputed from z.
    pub residual: f64,
    /// Wall time of the solve, seconds.
    pub solve_seconds: f64,
}

impl LcpSolveRecord {
    /// The record of a solution.
    pub fn from_solution(sol: &Solution) -> Self {
        Self {
            solver: sol.solver.clone(),
            status: sol.status,
            n: sol.z.len(),
            iterations: sol.iterations,
            pivots: sol.pivots,
            residual: sol.merit.residual,
            solve_seconds: sol.solve_seconds,
        }
    }
}

/// A validated impact in contact coordinates.
#[derive(Debug, Clone)]
pub struct ImpactProblem {
    delassus: Mat<f64>,
    pre_velocity: Vec<f64>,
    restitution: Vec<f64>,
}

impl ImpactProblem {
    /// Checks sizes (W n x n, u- and e of length n), finiteness and e >= 0.
    ///
    /// e > 1 is accepted (superelastic studies) but voids the energy guarantee.
    pub fn new(
        delassus: Mat<f64>,
        pre_velocity: Vec<f64>,
        restitution: Vec<f64>,
    ) -> Result<Self, ImpactError> {
        let n = pre_velocity.len();
        if delassus.nrows() != n || delassus.ncols() != n || restitution.len() != n {
            return Err(ImpactError::Dimension(format!(
                "W is {}x{}, u- has {n} entries, e has {}",
                delassus.nrows(),
                delassus.ncols(),
                restitution.len()
            )));
        }
        for i in 0..n {
            for j in 0..n {
                let value = delassus[(i, j)];
                if !value.is_finite() {
                    return Err(ImpactError::NonFinite { what: "W", index: i * n + j, value });
                }
            }
        }
        check_finite("pre_velocity", &pre_velocity)?;
        check_finite("restitution", &restitution)?;
        if let Some((contact_idx, &value)) = restitution.iter().enumerate().find(|(_, e)| **e < 0.0)
        {
            return Err(ImpactError::NegativeRestitution { contact_idx, value });
        }
        Ok(Self { delassus, pre_velocity, restitution })
    }

    /// Builds the problem from dense rows of W.
    pub fn from_rows(
        delassus_rows: &[Vec<f64>],
        pre_velocity: Vec<f64>,
        restitution: Vec<f64>,
    ) -> Result<Self, ImpactError> {
        let n = delassus_rows.len();
        if let Some((row, r)) = delassus_rows.iter().enumerate().find(|(_, r)| r.len() != n) {
            return Err(ImpactError::Dimension(format!(
                "row {row} of W has {} entries, expected {n}",
                r.len()
            )));
        }
        let w = Mat::from_fn(n, n, |i, j| delassus_rows[i][j]);
        Self::new(w, pre_velocity, restitution)
    }

    /// Number of contacts.
    pub fn n_contacts(&self) -> usize {
        self.pre_velocity.len()
    }

    /// The Delassus matrix W = J M^-1 J'.
    pub fn delassus(&self) -> &Mat<f64> {
        &self.delassus
    }

    /// Pre-impact normal velocities u- = J v-.
    pub fn pre_velocity(&self) -> &[f64] {
        &self.pre_velocity
    }

    /// Restitution coefficients e.
    pub fn restitution(&self) -> &[f64] {
        &self.restitution
    }

    /// u = u- + W P.
    pub fn velocity_after(&self, impulse: &[f64]) -> Vec<f64> {
        let n = self.n_contacts();
        (0..n)
            .map(|i| {
                self.pre_velocity[i]
                    + (0..n).map(|j| self.delassus[(i, j)] * impulse[j]).sum::<f64>()
            })
            .collect()
    }

    /// The exact kinetic-energy change of impulse P: P'u- + P'WP/2.
    pub fn energy_change(&self, impulse: &[f64]) -> f64 {
        let n = self.n_contacts();
        let mut wp = vec![0.0; n];
        for (i, wpi) in wp.iter_mut().enumerate() {
            *wpi = (0..n).map(|j| self.delassus[(i, j)] * impulse[j]).sum();
        }
        (0..n).map(|i| impulse[i] * (self.pre_velocity[i] + 0.5 * wp[i])).sum()
    }

    /// A scale for velocity tolerances: max |u-_i| (1 when all are zero).
    pub(crate) fn velocity_scale(&self) -> f64 {
        let s = self.pre_velocity.iter().fold(0.0_f64, |a, u| a.max(u.abs()));
        if s > 0.0 {
            s
        } else {
            1.0
        }
    }
}

fn check_finite(what: &'static str, x: &[f64]) -> Result<(), ImpactError> {
    match x.iter().enumerate().find(|(_, v)| !v.is_finite()) {
        Some((index, &value)) => Err(ImpactError::NonFinite { what, index, value }),
        None => Ok(()),
    }
}

/// The result of an impact.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImpactOutcome {
    /// Total normal impulse per contact (>= 0).
    pub impulse: Vec<f64>,
    /// Post-impact normal velocities u+ = u- + W P.
    pub post_velocity: Vec<f64>,
    /// Exact kinetic-energy change P'u- + P'WP/2 (<= 0 for e <= 1 under the stated rules).
    pub energy_change: f64,
    /// Number of passes (simultaneous: LCP passes; sequential: pairwise impacts).
    pub passes: usize,
    /// Contact index of each pairwise impact, in order (sequential only; empty otherwise).
    pub order: Vec<usize>,
    /// Every LCP solve (empty for sequential resolution).
    pub lcp_solves: Vec<LcpSolveRecord>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_inputs_are_errors_not_panics() {
        let w = vec![vec![2.0, 1.0], vec![1.0, 2.0]];
        assert!(matches!(
            ImpactProblem::from_rows(&w, vec![-1.0], vec![0.5, 0.5]),
            Err(ImpactError::Dimension(_))
        ));
        assert!(matches!(
            ImpactProblem::from_rows(&[vec![2.0, 1.0], vec![1.0]], vec![-1.0, 0.0], vec![0.5; 2]),
            Err(ImpactError::Dimension(_))
        ));
        assert!(matches!(
            ImpactProblem::from_rows(&w, vec![f64::NAN, 0.0], vec![0.5, 0.5]),
            Err(ImpactError::NonFinite { what: "pre_velocity", index: 0, .. })
        ));
        assert!(matches!(
            ImpactProblem::from_rows(&w, vec![-1.0, 0.0], vec![0.5, -0.1]),
            Err(ImpactError::NegativeRestitution { contact_idx: 1, .. })
        ));
        let wn = vec![vec![2.0, f64::INFINITY], vec![1.0, 2.0]];
        assert!(matches!(
            ImpactProblem::from_rows(&wn, vec![-1.0, 0.0], vec![0.5, 0.5]),
            Err(ImpactError::NonFinite { what: "W", index: 1, .. })
        ));
    }

    #[test]
    fn energy_change_is_half_impulse_times_velocity_sum() {
        let p = ImpactProblem::from_rows(
            &[vec![2.0, 1.0], vec![1.0, 3.0]],
            vec![-1.0, 0.5],
            vec![0.5, 0.5],
        )
        .unwrap();
        let imp = [0.3, 0.7];
        let up = p.velocity_after(&imp);
        let half: f64 = (0..2).map(|i| 0.5 * imp[i] * (up[i] + p.pre_velocity()[i])).sum();
        let de = p.energy_change(&imp);
        assert!((de - half).abs() <= 1e-14 * half.abs().max(1.0));
    }
}
