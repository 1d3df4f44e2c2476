//! An impact in generalised coordinates: mass matrix M, contact Jacobian J (normal rows) and
//! pre-impact velocity v-; forms W = J M^-1 J' and u- = J v-, and maps an impulse back to
//! v+ = v- + M^-1 J' P with the kinetic energies 1/2 v'Mv computed directly.

use faer::linalg::solvers::Solve;
use faer::{Mat, Side};
use serde::{Deserialize, Serialize};

use crate::problem::{ImpactError, ImpactOutcome, ImpactProblem};

/// An impact of a mechanical system (dense M and J).
#[derive(Debug, Clone)]
pub struct MechanicalImpact {
    mass: Mat<f64>,
    velocity: Vec<f64>,
    /// M^-1 J' (n_dof x n_contacts).
    minv_jt: Mat<f64>,
    problem: ImpactProblem,
}

/// Post-impact state with energies computed from generalised velocities.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MechanicalImpactReport {
    /// v+ = v- + M^-1 J' P.
    pub velocity_after: Vec<f64>,
    /// 1/2 v-'M v-.
    pub energy_before: f64,
    /// 1/2 v+'M v+.
    pub energy_after: f64,
}

impl MechanicalImpact {
    /// Builds the contact-space problem; M must be symmetric positive definite.
    pub fn new(
        mass: Mat<f64>,
        jacobian: &Mat<f64>,
        velocity: Vec<f64>,
        restitution: Vec<f64>,
    ) -> Result<Self, ImpactError> {
        let n_dof = velocity.len();
        if mass.nrows() != n_dof || mass.ncols() != n_dof || jacobian.ncols() != n_dof {
            return Err(ImpactError::Dimension(format!(
                "M is {}x{}, J is {}x{}, v has {n_dof} entries",
                mass.nrows(),
                mass.ncols(),
                jacobian.nrows(),
                jacobian.ncols()
            )));
        }
        for (what, m) in [("mass", &mass), ("jacobian", jacobian)] {
            for i in 0..m.nrows() {
                for j in 0..m.ncols() {
                    let value = m[(i, j)];
                    if !value.is_finite() {
                        return Err(ImpactError::NonFinite {
                            what,
                            index: i * m.ncols() + j,
                            value,
                        });
                    }
                }
            }
        }
        if let Some((index, &value)) = velocity.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(ImpactError::NonFinite { what: "velocity", index, value });
        }
        let llt = mass.llt(Side::Lower).map_err(|_| ImpactError::MassNotPositiveDefinite)?;
        let minv_jt = llt.solve(jacobian.transpose().to_owned());
        let w = jacobian * &minv_jt;
        let n_c = jacobian.nrows();
        let u: Vec<f64> =
            (0..n_c).map(|i| (0..n_dof).map(|j| jacobian[(i, j)] * velocity[j]).sum()).collect();
        let problem = ImpactProblem::new(w, u, restitution)?;
        Ok(Self { mass, velocity, minv_jt, problem })
    }

    /// The impact in contact coordinates.
    pub fn problem(&self) -> &ImpactProblem {
        &self.problem
    }

    /// Generalised post-impact velocity and both kinetic energies for an outcome.
    pub fn report(&self, outcome: &ImpactOutcome) -> MechanicalImpactReport {
        let n = self.velocity.len();
        let velocity_after: Vec<f64> = (0..n)
            .map(|i| {
                self.velocity[i]
                    + (0..outcome.impulse.len())
                        .map(|c| self.minv_jt[(i, c)] * outcome.impulse[c])
                        .sum::<f64>()
            })
            .collect();
        MechanicalImpactReport {
            energy_before: kinetic_energy(&self.mass, &self.velocity),
            energy_after: kinetic_energy(&self.mass, &velocity_after),
            velocity_after,
        }
    }
}

/// 1/2 v'Mv.
pub fn kinetic_energy(mass: &Mat<f64>, v: &[f64]) -> f64 {
    let n = v.len();
    0.5 * (0..n).map(|i| v[i] * (0..n).map(|j| mass[(i, j)] * v[j]).sum::<f64>()).sum::<f64>()
}
