//! The position-level time-stepping LCP (Stewart & Trinkle 1996, "An implicit time-stepping
//! scheme for rigid body dynamics with inelastic collisions and Coulomb friction", here without
//! friction; Tedrake, *Underactuated Robotics*, ch. "Multi-Body Dynamics", § "Time-stepping
//! LCP"): semi-implicit Euler with the gap required to be non-negative at the next step. A
//! strategy of the stepping loop [`crate::stepping::run_stepping`].
//!
//! One step: v_free = v_k + h M^-1 f(t_k, q_k, v_k); impulses λ with
//! v_{k+1} = v_free + M^-1 J' λ, q_{k+1} = q_k + h v_{k+1}, and the linearised next gap
//! φ_k + h J v_{k+1} >= 0 ⊥ λ >= 0, i.e. the LCP W λ + (J v_free + φ_k / h) >= 0 ⊥ λ >= 0 with
//! W = J M^-1 J'. Collisions are perfectly inelastic by construction. Every contact enters the
//! LCP (complementarity switches the open ones off); filtering far contacts is left to the
//! contact crate's broad phase.

use crate::model::ContactModel;
use crate::stepping::{ImpulseLcp, StepInput, StepProblem, StepScheme, SteppingError};

/// The position-level LCP on a contact model, as the stepping loop runs it.
pub(crate) struct PositionLcpScheme<'a> {
    pub(crate) contacts: &'a dyn ContactModel,
}

impl StepScheme for PositionLcpScheme<'_> {
    fn contacts(&self) -> &dyn ContactModel {
        self.contacts
    }

    fn pose<'m>(&self, step: &StepInput<'m>) -> Result<Option<ImpulseLcp<'m>>, SteppingError> {
        let n_c = step.gaps.len();
        if n_c == 0 {
            return Ok(None);
        }
        let all: Vec<usize> = (0..n_c).collect();
        let rows = step.mats.restrict(&all);
        let b: Vec<f64> =
            rows.apply(step.v_free).iter().zip(step.gaps).map(|(jv, g)| jv + g / step.h).collect();
        let lcp = rows
            .delassus_lcp(b)
            .map_err(|e| SteppingError::Setup { t: step.t, message: e.to_string() })?;
        let labels = step.set.ids.iter().map(|&id| (id, 0)).collect();
        Ok(Some(ImpulseLcp { rows, problem: StepProblem::Lcp(lcp), n_active: n_c, labels }))
    }
}
