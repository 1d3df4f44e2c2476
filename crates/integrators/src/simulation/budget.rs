//! A checked budget for the memory a simulation sizes from its input (bodies, contacts,
//! friction directions, degrees of freedom): before anything is allocated, the size each
//! scheme's per-step data would reach is estimated in exact integer arithmetic and compared
//! with [`crate::SimulationLimits::memory_bytes`], so that an oversized request is a typed
//! error naming the bytes it would need instead of an allocation abort.
//!
//! The estimates are upper bounds on what the steppers allocate, not on what an LCP solver
//! allocates inside its own loop (pivoting solvers keep a dense tableau of the step's LCP).

use std::mem::size_of;

use signorini_contact::{BodyKind, Contact, JacobianRow};

use crate::scene_model::SceneModel;

/// The default budget: 4 GiB.
pub const DEFAULT_MEMORY_LIMIT: u64 = 4 << 30;

/// A request needs more memory than the budget allows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{what} would need {} of memory, more than the limit of {} (memory limit): use a smaller \
     scene or option, or raise the limit",
    fmt_bytes(*bytes),
    fmt_bytes(u128::from(*limit))
)]
pub struct BudgetExceeded {
    /// What would be allocated.
    pub what: String,
    /// Bytes it would need (at least).
    pub bytes: u128,
    /// The limit in bytes.
    pub limit: u64,
}

/// `1.5 GiB`, `640.0 MiB`, `12 B` (the LCP crate's formatter, one definition for both budgets).
pub use signorini_lcp::memory::fmt_bytes;

/// The memory budget of one simulation.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    pub(crate) limit: u64,
}

/// Bytes of one contact's per-step data besides its Jacobian rows: the contact itself (twice:
/// the list and the copy a gap evaluation makes), its gap, normal velocity and impulse.
const CONTACT_BYTES: u128 = 2 * size_of::<Contact>() as u128 + 4 * 8;
/// Bytes of one Jacobian row.
const ROW_BYTES: u128 = size_of::<JacobianRow>() as u128;
/// Bytes per nonzero of an assembled LCP matrix: coordinate form (row, column, value) and
/// the compressed rows built from it.
const NONZERO_BYTES: u128 = 24 + 16;

impl Budget {
    fn check(&self, bytes: u128, what: impl FnOnce() -> String) -> Result<(), BudgetExceeded> {
        if bytes > u128::from(self.limit) {
            return Err(BudgetExceeded { what: what(), bytes, limit: self.limit });
        }
        Ok(())
    }

    /// The contact candidates of a scene of `n_bodies` (of which `n_fixed` fixed) when every
    /// pair of bodies that are not both fixed is one: at least one contact per pair.
    pub(crate) fn check_candidate_pairs(
        &self,
        n_bodies: usize,
        n_fixed: usize,
    ) -> Result<(), BudgetExceeded> {
        let pairs = choose2(n_bodies as u128) - choose2(n_fixed as u128);
        let bytes = pairs * (16 + CONTACT_BYTES + ROW_BYTES);
        self.check(bytes, || {
            format!(
                "{n_bodies} bodies: {pairs} candidate pairs (every pair of bodies is a contact \
                 candidate)"
            )
        })
    }

    /// A time stepper's per-step data with `rows_per_contact` Jacobian rows per contact (1, or
    /// 1 + k with k friction directions) and `extra_per_contact` LCP unknowns beyond them:
    /// contacts, rows and the LCP matrix with at most Σ_bodies (rows on the body)² nonzeros.
    /// `contacts` gives the number of contacts and the count on every non-fixed body: the
    /// model's fixed set ([`StepContactCounts::fixed`]), or for a model that finds its
    /// contacts at every step, those of the first step.
    pub(crate) fn check_stepping(
        &self,
        contacts: &StepContactCounts,
        rows_per_contact: usize,
        extra_per_contact: usize,
    ) -> Result<(), BudgetExceeded> {
        let n_c = contacts.n_contacts;
        let r = rows_per_contact as u128;
        let nnz: u128 = contacts.per_free_body.iter().map(|&c| (c * r) * (c * r)).sum::<u128>()
            + n_c * (2 * r + extra_per_contact as u128);
        let n_lcp = n_c * (r + extra_per_contact as u128);
        let bytes = n_c * (CONTACT_BYTES + r * ROW_BYTES) + nnz * NONZERO_BYTES + n_lcp * 6 * 8;
        self.check(bytes, || {
            format!(
                "{n_c} contacts with {r} Jacobian row(s) each: the step LCP (n = {n_lcp}, up to \
                 {nnz} nonzeros)"
            )
        })
    }

    /// The event-driven scheme's dense data: the normal Jacobian (n_contacts x n_dof), the
    /// mass matrix and its copies (3 n_dof²) and an acceleration LCP over every contact.
    pub(crate) fn check_event_driven(&self, model: &SceneModel) -> Result<(), BudgetExceeded> {
        let n_c = model_contacts(model);
        let n = model.layout().n_dofs as u128;
        let bytes = 8 * (n_c * n + 3 * n * n + n_c * n_c) + n_c * (CONTACT_BYTES + ROW_BYTES);
        self.check(bytes, || {
            format!(
                "event-driven with {n_c} contacts and {n} degrees of freedom: the dense Jacobian, \
                 mass matrix and contact LCP"
            )
        })
    }

    /// A penalty scheme's per-step data: contacts, rows and forces.
    pub(crate) fn check_penalty(&self, model: &SceneModel) -> Result<(), BudgetExceeded> {
        let n_c = model_contacts(model);
        let bytes = n_c * (CONTACT_BYTES + ROW_BYTES + 3 * 8);
        self.check(bytes, || format!("a penalty scheme with {n_c} contacts"))
    }
}

fn choose2(n: u128) -> u128 {
    n * n.saturating_sub(1) / 2
}

fn model_contacts(model: &SceneModel) -> u128 {
    use crate::model::ContactModel as _;
    model.n_contacts() as u128
}

/// The contacts of a time step as the stepping estimate counts them.
pub(crate) struct StepContactCounts {
    /// Contacts.
    pub(crate) n_contacts: u128,
    /// Contacts on each non-fixed body.
    pub(crate) per_free_body: Vec<u128>,
}

impl StepContactCounts {
    /// The model's fixed contact set.
    pub(crate) fn fixed(model: &SceneModel) -> Self {
        let mut count = vec![0usize; model.scene().bodies.len()];
        for (a, b) in model.contact_body_indices() {
            count[a] += 1;
            count[b] += 1;
        }
        Self::from_per_body(model, model_contacts(model), &count)
    }

    /// From the contacts on every body (each contact counted on both of its bodies).
    pub(crate) fn from_per_body(model: &SceneModel, n_contacts: u128, count: &[usize]) -> Self {
        let per_free_body = count
            .iter()
            .zip(&model.scene().bodies)
            .filter(|(_, body)| body.kind != BodyKind::Fixed)
            .map(|(&c, _)| c as u128)
            .collect();
        Self { n_contacts, per_free_body }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_in_binary_units() {
        assert_eq!(fmt_bytes(12), "12 B");
        assert_eq!(fmt_bytes(1536), "1.5 KiB");
        assert_eq!(fmt_bytes(640 << 30), "640.0 GiB");
    }

    #[test]
    fn pairs_over_the_budget_are_refused_with_the_bytes() {
        let budget = Budget { limit: 1 << 20 };
        assert!(budget.check_candidate_pairs(10, 1).is_ok());
        let e = budget.check_candidate_pairs(100_000, 1).unwrap_err();
        assert!(e.bytes > 1 << 40, "{e}");
        assert!(e.to_string().contains("4999950000 candidate pairs"), "{e}");
    }
}
