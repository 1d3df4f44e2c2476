//! Moreau–Jean time stepping with Coulomb friction on the exact cone: each step's contact
//! problem is the local frictional-contact problem of signorini-friction (De Saxcé's form, the
//! problem `signorini fc` solves), as in Siconos' `MoreauJeanOSI` with the
//! `NewtonImpactFrictionNSL` (Jean 1999, "The non-smooth contact dynamics method"; Acary &
//! Brogliato 2008, *Numerical Methods for Nonsmooth Dynamical Systems*, §10.1 and ch. 13). A
//! strategy of the stepping loop ([`crate::stepping::run_stepping_cone`]).
//!
//! One step from (t_k, q_k, v_k) with step h, the theta, gamma and activation rule of
//! [`crate::moreau_jean`] unchanged:
//! 1. v_free = v_k + h M^-1 f (forces at t_k + theta h);
//! 2. active contacts: g_i(q_k) + gamma h (N v_k)_i <= activation_tol;
//! 3. per active contact the d rows of H in its frame (normal, then the tangents t1, t2 in 3D
//!    or t in 2D: the first d - 1 of the model's friction directions, which must number 2 in
//!    2D and 4 in 3D), u = H v_{k+1} = W r + q with W = H M^-1 H' (block assembly, sparse for a
//!    structured model), q = H v_free + e ∘ u_N,k on the normal rows (Newton's law
//!    u_N + e u_N,k, the same impact law as [`crate::moreau_jean`]), mu per contact;
//!    r in K, u + mu |u_T| e_N in K*, r ⊥ that, solved by any [`signorini_friction::FcSolver`];
//! 4. v_{k+1} = v_free + M^-1 H' r, q_{k+1} = q_k + h ((1 - theta) v_k + theta v_{k+1}).

use signorini_friction::FcProblem;

use crate::model::{ContactModel, MechanicalSystem, ModelError};
use crate::moreau_jean::MoreauJean;
use crate::step_matrices::StepSet;
use crate::stepping::{ImpulseLcp, StepInput, StepProblem, StepScheme, SteppingError};
use crate::stewart_trinkle::{
    check_model_friction, check_step_friction, evaluate_with_tangents, FrictionModel,
};

/// The friction directions a model must give per contact for the exact cone of dimension d
/// (2D: t, -t; 3D: t1, t2, -t1, -t2), of which the first d - 1 are the frame's tangents.
pub fn cone_directions(dimension: usize) -> Option<usize> {
    match dimension {
        2 => Some(2),
        3 => Some(4),
        _ => None,
    }
}

/// Moreau–Jean with the exact cone on a friction model, as the stepping loop runs it.
pub(crate) struct MoreauJeanConeScheme<'a> {
    pub(crate) contacts: &'a dyn FrictionModel,
    pub(crate) p: MoreauJean,
    /// 2 or 3.
    pub(crate) dimension: usize,
}

impl StepScheme for MoreauJeanConeScheme<'_> {
    fn contacts(&self) -> &dyn ContactModel {
        self.contacts
    }

    fn validate(&self) -> Result<(), SteppingError> {
        self.p.validate()?;
        let Some(k) = cone_directions(self.dimension) else {
            return Err(SteppingError::Input(format!(
                "cone dimension {}: must be 2 or 3",
                self.dimension
            )));
        };
        if self.contacts.n_directions() != k {
            return Err(SteppingError::Input(format!(
                "the exact cone in {}D needs the model's {k} friction directions (frame \
                 tangents and their opposites), the model has {}",
                self.dimension,
                self.contacts.n_directions()
            )));
        }
        check_model_friction(self.contacts)
    }

    fn force_theta(&self) -> f64 {
        self.p.theta
    }

    fn position_theta(&self) -> f64 {
        self.p.theta
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
        let set = step.set;
        let (n_c, k, d) = (set.ids.len(), self.contacts.n_directions(), self.dimension);
        let mut u_k = step.mats.jv(step.v);
        u_k.truncate(n_c);
        let (gamma, h, tol) = (self.p.gamma, step.h, self.p.activation_tol);
        let active: Vec<usize> =
            (0..n_c).filter(|&c| step.gaps[c] + gamma * h * u_k[c] <= tol).collect();
        if active.is_empty() {
            return Ok(None);
        }
        check_step_friction(set)?;
        // Rows of H per active contact: the normal, then the first d - 1 directions.
        let rows: Vec<usize> = active
            .iter()
            .flat_map(|&c| std::iter::once(c).chain((0..d - 1).map(move |j| n_c + c * k + j)))
            .collect();
        let rows = step.mats.restrict(&rows);
        let (mut r, mut c, mut x) = (Vec::new(), Vec::new(), Vec::new());
        for (i, j, w) in rows.delassus_entries() {
            r.push(i);
            c.push(j);
            x.push(w);
        }
        let mut q = rows.apply(step.v_free);
        for (a, &ci) in active.iter().enumerate() {
            q[a * d] += set.restitution[ci] * u_k[ci];
        }
        let mu = active.iter().map(|&ci| set.friction[ci]).collect();
        let problem = FcProblem::from_coo(d, rows.len(), &r, &c, &x, q, mu)
            .map_err(|e| SteppingError::Setup { t: step.t, message: e.to_string() })?;
        let labels = active.iter().flat_map(|&ci| (0..d).map(move |j| (set.ids[ci], j))).collect();
        Ok(Some(ImpulseLcp {
            rows,
            problem: StepProblem::Cone(problem),
            n_active: active.len(),
            labels,
        }))
    }
}
