//! Moreau–Jean time stepping: the theta-method on velocities with the Newton impact law at
//! velocity level (Moreau 1988, "Unilateral contact and dry friction in finite freedom
//! dynamics"; Jean 1999, "The non-smooth contact dynamics method"; Acary & Brogliato 2008,
//! *Numerical Methods for Nonsmooth Dynamical Systems*, §10.1). A strategy of the stepping
//! loop [`crate::stepping::run_stepping`].
//!
//! One step from (t_k, q_k, v_k) with step h:
//! 1. free velocity v_free = v_k + h M^-1 f, with M = M(q_k) and the forces evaluated once at
//!    (t_k + theta h, q_k, v_k) (explicit in q and v: exact for constant and time-dependent
//!    forces; the implicit treatment of stiff linear K, C of Acary & Brogliato is not here);
//! 2. active contacts: g_i(q_k) + gamma h (J v_k)_i <= activation_tol (default 1e-12, so that
//!    a resting contact whose gap rounds to +1e-20 stays active);
//! 3. the velocity LCP over the active set, U = J v_{k+1} = J v_free + W Λ,
//!    w = W Λ + (J v_free + e ∘ J v_k) >= 0 ⊥ Λ >= 0 (Newton's law U + e U_k >= 0), with
//!    W = J M^-1 J', solved by any [`signorini_lcp::LcpSolver`];
//! 4. v_{k+1} = v_free + M^-1 J' Λ, q_{k+1} = q_k + h ((1 - theta) v_k + theta v_{k+1}).

use crate::model::ContactModel;
use crate::stepping::{ImpulseLcp, StepInput, StepProblem, StepScheme, SteppingError};

/// The Moreau–Jean scheme's own settings (the shared ones are [`crate::SteppingParams`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MoreauJean {
    /// theta in [0, 1] (default 1/2).
    pub theta: f64,
    /// Activation look-ahead gamma in [0, 1] (default 1/2).
    pub gamma: f64,
    /// A contact is active when g + gamma h J v <= activation_tol (length unit of the model;
    /// default 1e-12). Zero lets round-off in a resting contact's gap (1e-20 above zero after
    /// an LCP solve) switch it off for a step, so a resting box drops onto one corner.
    pub activation_tol: f64,
}

impl Default for MoreauJean {
    fn default() -> Self {
        Self { theta: 0.5, gamma: 0.5, activation_tol: 1e-12 }
    }
}

impl MoreauJean {
    /// Checks ranges.
    pub fn validate(&self) -> Result<(), SteppingError> {
        if !(self.activation_tol.is_finite() && self.activation_tol >= 0.0) {
            return Err(SteppingError::Input(format!(
                "activation_tol = {}: must be a finite number >= 0",
                self.activation_tol
            )));
        }
        for (name, x) in [("theta", self.theta), ("gamma", self.gamma)] {
            if !(0.0..=1.0).contains(&x) {
                return Err(SteppingError::Input(format!("{name} = {x}: must lie in [0, 1]")));
            }
        }
        Ok(())
    }
}

/// Moreau–Jean on a contact model, as the stepping loop runs it.
pub(crate) struct MoreauJeanScheme<'a> {
    pub(crate) contacts: &'a dyn ContactModel,
    pub(crate) p: MoreauJean,
}

impl StepScheme for MoreauJeanScheme<'_> {
    fn contacts(&self) -> &dyn ContactModel {
        self.contacts
    }

    fn validate(&self) -> Result<(), SteppingError> {
        self.p.validate()
    }

    fn force_theta(&self) -> f64 {
        self.p.theta
    }

    fn position_theta(&self) -> f64 {
        self.p.theta
    }

    fn pose<'m>(&self, step: &StepInput<'m>) -> Result<Option<ImpulseLcp<'m>>, SteppingError> {
        let u_k = step.mats.jv(step.v);
        let (gamma, h, tol) = (self.p.gamma, step.h, self.p.activation_tol);
        let active: Vec<usize> =
            (0..u_k.len()).filter(|&c| step.gaps[c] + gamma * h * u_k[c] <= tol).collect();
        if active.is_empty() {
            return Ok(None);
        }
        let rows = step.mats.restrict(&active);
        let b: Vec<f64> = active
            .iter()
            .zip(rows.apply(step.v_free))
            .map(|(&c, jv)| jv + step.set.restitution[c] * u_k[c])
            .collect();
        let lcp = rows
            .delassus_lcp(b)
            .map_err(|e| SteppingError::Setup { t: step.t, message: e.to_string() })?;
        let labels = active.iter().map(|&c| (step.set.ids[c], 0)).collect();
        Ok(Some(ImpulseLcp {
            rows,
            problem: StepProblem::Lcp(lcp),
            n_active: active.len(),
            labels,
        }))
    }
}
