//! Time stepping with Coulomb friction on a polyhedral cone (Stewart & Trinkle 1996, "An
//! implicit time-stepping scheme for rigid body dynamics with inelastic collisions and Coulomb
//! friction"; Anitescu & Potra 1997, "Formulating dynamic multi-rigid-body contact problems
//! with friction as solvable linear complementarity problems"). A strategy of the stepping
//! loop [`crate::stepping::run_stepping`].
//!
//! Per contact i: normal impulse λ_i, k tangential impulses β_i along the cone edges d_ij (rows
//! of D), and a sliding-speed multiplier γ_i. With v_free = v_k + h M^-1 f and
//! v_{k+1} = v_free + M^-1 (N' λ + D' β):
//!
//! - 0 <= λ ⊥ N v_{k+1} + φ / h >= 0 (next gap non-negative, inelastic);
//! - 0 <= β ⊥ D v_{k+1} + E γ >= 0 (β acts against the sliding direction);
//! - 0 <= γ ⊥ μ λ - E' β >= 0 (the impulse lies in the polyhedral cone),
//!
//! one LCP in z = (λ, β, γ) with the nonsymmetric copositive matrix
//! [[N M^-1 N', N M^-1 D', 0], [D M^-1 N', D M^-1 D', E], [μ, -E', 0]], solved by any
//! [`signorini_lcp::LcpSolver`] (Lemke's method processes it, Anitescu & Potra 1997). With k directions the
//! friction cone is the polygon inscribed in the circular one, so the effective coefficient lies
//! between μ cos(π/k) and μ (in 2-D with k = 2 it is exactly μ).

use faer::Mat;
use signorini_lcp::Lcp;

use crate::model::StepRows;
use crate::model::{ContactModel, MechanicalSystem, ModelError};
use crate::step_matrices::{SetRequest, StepMatrices, StepSet};
use crate::stepping::{ImpulseLcp, StepInput, StepProblem, StepScheme, SteppingError};

/// Contacts with Coulomb friction on a polyhedral cone.
pub trait FrictionModel: ContactModel {
    /// Number k of cone edge directions per contact (the same for every contact).
    fn n_directions(&self) -> usize;
    /// Tangential Jacobian D: n_contacts * k rows (contact i owns rows i k .. (i + 1) k), n_dof
    /// columns; the directions of one contact span its tangent plane symmetrically.
    fn tangent_jacobian(&self, q: &[f64]) -> Mat<f64>;
    /// D as sparse rows (same order), for models that also provide
    /// [`ContactModel::jacobian_rows`] and [`crate::MechanicalSystem::mass_operator`]; the
    /// default `None` selects the dense path.
    fn tangent_rows(&self, q: &[f64]) -> Option<signorini_contact::Jacobian> {
        let _ = q;
        None
    }
    /// Friction coefficient μ of a contact.
    fn friction_coefficient(&self, contact_idx: usize) -> f64;
}

/// Stewart–Trinkle on a friction model, as the stepping loop runs it.
pub(crate) struct StewartTrinkleScheme<'a> {
    pub(crate) contacts: &'a dyn FrictionModel,
}

/// The stacked [N; D] of a friction model as dense rows (models without sparse rows).
fn dense_rows(contacts: &dyn FrictionModel, q: &[f64]) -> Mat<f64> {
    let (n_c, k) = (contacts.n_contacts(), contacts.n_directions());
    let nj = contacts.jacobian(q);
    let dj = contacts.tangent_jacobian(q);
    if nj.ncols() != dj.ncols() || nj.nrows() != n_c || dj.nrows() != n_c * k {
        // Sizes are reported by the caller's check on the stacked matrix.
        return Mat::zeros(0, 0);
    }
    Mat::from_fn(nj.nrows() + dj.nrows(), nj.ncols(), |r, j| {
        if r < n_c {
            nj[(r, j)]
        } else {
            dj[(r - n_c, j)]
        }
    })
}

/// A step's contacts of a friction model with the normal rows, then k tangential rows per
/// contact (the step set of Stewart–Trinkle and of Moreau–Jean with the exact cone).
pub(crate) fn evaluate_with_tangents(
    contacts: &dyn FrictionModel,
    sys: &dyn MechanicalSystem,
    (q, v): (&[f64], &[f64]),
    (t, h): (f64, f64),
) -> Result<StepSet, ModelError> {
    let (n_c, k) = (contacts.n_contacts(), contacts.n_directions());
    let fixed_matrices = || {
        let rows = match (contacts.jacobian_rows(q), contacts.tangent_rows(q)) {
            (Some(mut nj), Some(dj)) => {
                nj.rows.extend(dj.rows);
                Some(nj)
            }
            _ => None,
        };
        StepMatrices::with_rows(sys, q, t, n_c * (k + 1), rows, || dense_rows(contacts, q))
    };
    StepSet::evaluate(
        sys,
        (q, v),
        (t, h),
        SetRequest {
            rows: StepRows::NormalAndTangent,
            rows_per_contact: k + 1,
            fixed_matrices,
            friction: |i| contacts.friction_coefficient(i),
            contacts,
        },
    )
}

/// The first contact of a step whose friction coefficient is not a finite number >= 0, as an
/// error.
pub(crate) fn check_step_friction(set: &StepSet) -> Result<(), SteppingError> {
    match set.ids.iter().zip(&set.friction).find(|(_, mu)| !(mu.is_finite() && **mu >= 0.0)) {
        Some((id, mu)) => {
            Err(SteppingError::Input(format!("friction coefficient of contact {id:?} is {mu}")))
        }
        None => Ok(()),
    }
}

/// The fixed contacts' friction coefficients checked once before a run.
pub(crate) fn check_model_friction(contacts: &dyn FrictionModel) -> Result<(), SteppingError> {
    for i in 0..contacts.n_contacts() {
        let mu = contacts.friction_coefficient(i);
        if !(mu.is_finite() && mu >= 0.0) {
            return Err(SteppingError::Input(format!(
                "friction coefficient of contact {i} is {mu}"
            )));
        }
    }
    Ok(())
}

impl StepScheme for StewartTrinkleScheme<'_> {
    fn contacts(&self) -> &dyn ContactModel {
        self.contacts
    }

    fn validate(&self) -> Result<(), SteppingError> {
        check_model_friction(self.contacts)
    }

    fn evaluate(
        &self,
        sys: &dyn MechanicalSystem,
        (q, v): (&[f64], &[f64]),
        (t, h): (f64, f64),
    ) -> Result<StepSet, ModelError> {
        evaluate_with_tangents(self.contacts, sys, (q, v), (t, h))
    }

    fn pose<'m>(&self, step: &StepInput<'m>) -> Result<Option<ImpulseLcp<'m>>, SteppingError> {
        let (n_c, k) = (step.set.ids.len(), self.contacts.n_directions());
        if n_c == 0 {
            return Ok(None);
        }
        check_step_friction(step.set)?;
        let size = n_c * (k + 2);
        // Stacked Jacobian [N; D], its Delassus matrix, then the E and mu blocks.
        let all: Vec<usize> = (0..n_c * (k + 1)).collect();
        let nd = step.mats.restrict(&all);
        let mut entries = nd.delassus_entries();
        let g0 = n_c * (k + 1);
        for i in 0..n_c {
            for j in 0..k {
                let r = n_c + i * k + j;
                entries.push((r, g0 + i, 1.0));
                entries.push((g0 + i, r, -1.0));
            }
            entries.push((g0 + i, i, step.set.friction[i]));
        }
        let mut qv = nd.apply(step.v_free);
        qv.resize(size, 0.0);
        for (qi, g) in qv.iter_mut().zip(step.gaps) {
            *qi += g / step.h;
        }
        let lcp = if step.mats.is_structured() {
            let (r, (c, x)): (Vec<usize>, (Vec<usize>, Vec<f64>)) =
                entries.into_iter().map(|(r, c, x)| (r, (c, x))).unzip();
            Lcp::from_coo(size, &r, &c, &x, qv)
        } else {
            let mut mat = Mat::<f64>::zeros(size, size);
            for (r, c, x) in entries {
                mat[(r, c)] += x;
            }
            Lcp::from_dense(mat, qv)
        }
        .map_err(|e| SteppingError::Setup { t: step.t, message: e.to_string() })?;
        // z = (λ (component 0), β (1..=k), γ (k + 1)), each block in contact order.
        let ids = &step.set.ids;
        let labels = ids
            .iter()
            .map(|&id| (id, 0))
            .chain(ids.iter().flat_map(|&id| (1..=k).map(move |j| (id, j))))
            .chain(ids.iter().map(|&id| (id, k + 1)))
            .collect();
        Ok(Some(ImpulseLcp { rows: nd, problem: StepProblem::Lcp(lcp), n_active: n_c, labels }))
    }
}
