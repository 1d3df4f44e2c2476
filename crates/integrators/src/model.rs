//! The interface between time steppers and a mechanical model: mass matrix and generalised
//! forces ([`MechanicalSystem`]) and unilateral contacts given by gap functions and their
//! Jacobian rows ([`ContactModel`]). signorini-contact implements both for its scenes; the
//! point mass above a floor ([`BouncingBall`]) is the reference model of REFERENCE.md C.

use faer::linalg::solvers::Solve;
use faer::{Mat, Side};
use signorini_contact::{Jacobian, MassMatrix};

use crate::system::{SecondOrderSystem, SystemError};

/// M(q) v' = f(t, q, v), q' = v (generalised velocities are coordinate rates).
pub trait MechanicalSystem {
    /// Number of generalised coordinates.
    fn n_dof(&self) -> usize;
    /// Mass matrix M(q), symmetric positive definite, n_dof x n_dof.
    fn mass_matrix(&self, q: &[f64]) -> Mat<f64>;
    /// Generalised forces f(t, q, v) (gravity, applied forces, smooth internal forces).
    fn forces(&self, t: f64, q: &[f64], v: &[f64]) -> Vec<f64>;
    /// M(q) as a structured operator (exact inverse blocks, block assembly of J M^-1 J^T), for
    /// models that have one; steppers then never form an n_dof x n_dof matrix. The default,
    /// `None`, makes them factor the dense [`MechanicalSystem::mass_matrix`].
    fn mass_operator(&self, q: &[f64]) -> Option<Box<dyn MassMatrix>> {
        let _ = q;
        None
    }
}

/// Unilateral contacts: gaps g(q) >= 0 and normal Jacobian rows J(q) = dg/dq.
pub trait ContactModel {
    /// Number of contacts.
    fn n_contacts(&self) -> usize;
    /// Gap of every contact (negative = penetration).
    fn gaps(&self, q: &[f64]) -> Vec<f64>;
    /// Normal Jacobian, n_contacts x n_dof dense rows (g' = J v).
    fn jacobian(&self, q: &[f64]) -> Mat<f64>;
    /// The normal Jacobian as sparse rows (at most two body blocks per row), for models that
    /// have them; used together with [`MechanicalSystem::mass_operator`]. Default `None`: the
    /// dense [`ContactModel::jacobian`] is used.
    fn jacobian_rows(&self, q: &[f64]) -> Option<Jacobian> {
        let _ = q;
        None
    }
    /// Newton restitution coefficient of a contact.
    fn restitution(&self, contact_idx: usize) -> f64;
    /// J'(q, v) v, the velocity-product term of g'' = J v' + J' v (zero for affine gaps).
    fn jacobian_rate_times_velocity(&self, q: &[f64], v: &[f64]) -> Vec<f64> {
        let _ = (q, v);
        vec![0.0; self.n_contacts()]
    }
    /// The contacts that can act in a time step of length h from (q, v), found anew at every
    /// step, with their sparse rows; for models whose contact set follows the configuration (a
    /// scene with a broad phase), so that a step's data grow with the contacts near each body
    /// rather than with a fixed candidate list. Default `None`: the time steppers use every
    /// contact of the model ([`ContactModel::n_contacts`], [`ContactModel::gaps`], ...), each
    /// identified by its index.
    fn step_contacts(
        &self,
        q: &[f64],
        v: &[f64],
        h: f64,
        rows: StepRows,
    ) -> Option<Result<StepContacts, signorini_contact::ContactError>> {
        let _ = (q, v, h, rows);
        None
    }
}

/// Which Jacobian rows [`ContactModel::step_contacts`] returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepRows {
    /// One normal row per contact.
    Normal,
    /// The normal rows, then k tangential rows per contact (k the model's
    /// [`crate::FrictionModel::n_directions`]), in contact order.
    NormalAndTangent,
}

/// A contact's identity across time steps, by which warm starts match impulses and reports
/// name bodies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ContactId {
    /// The contact of that index in a model with a fixed contact set.
    Index(usize),
    /// Point feature `feature` of body `body_a` against body `body_b` (scene indices), as the
    /// contact crate's narrow phase numbers them.
    Feature {
        /// The feature's owner.
        body_a: usize,
        /// The surface's owner.
        body_b: usize,
        /// Which feature of the pair.
        feature: usize,
    },
}

/// The contacts of one time step from [`ContactModel::step_contacts`]: identities, gaps, laws
/// and sparse rows, one entry per contact in the same order.
#[derive(Debug, Clone)]
pub struct StepContacts {
    /// Identity of every contact.
    pub ids: Vec<ContactId>,
    /// Gaps at q.
    pub gaps: Vec<f64>,
    /// Newton restitution of every contact.
    pub restitution: Vec<f64>,
    /// Friction coefficient of every contact.
    pub friction: Vec<f64>,
    /// The Jacobian rows asked for ([`StepRows`]).
    pub rows: Jacobian,
}

/// Why a model evaluation for a stepper failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// M(q) is not symmetric positive definite.
    #[error("mass matrix is not symmetric positive definite at t = {t}")]
    MassNotPositiveDefinite {
        /// Time.
        t: f64,
    },
    /// Sizes returned by the model disagree.
    #[error("model dimensions disagree: {0}")]
    Dimension(String),
    /// The model could not find its contacts (e.g. a pair of shapes without a narrow phase).
    #[error("contact detection failed at t = {t}: {message}")]
    Contacts {
        /// Time.
        t: f64,
        /// What failed.
        message: String,
    },
}

/// M^-1 B for a mass matrix M (Cholesky).
pub(crate) fn mass_solve(m: &Mat<f64>, b: &Mat<f64>, t: f64) -> Result<Mat<f64>, ModelError> {
    let llt = m.llt(Side::Lower).map_err(|_| ModelError::MassNotPositiveDefinite { t })?;
    Ok(llt.solve(b))
}

/// Column vector from a slice.
pub(crate) fn col(x: &[f64]) -> Mat<f64> {
    Mat::from_fn(x.len(), 1, |i, _| x[i])
}

/// A [`MechanicalSystem`] seen as the smooth ODE v' = M^-1 f (contacts ignored): the flight
/// phase between events.
pub struct FreeMotion<'a>(pub &'a dyn MechanicalSystem);

impl SecondOrderSystem for FreeMotion<'_> {
    fn dim(&self) -> usize {
        self.0.n_dof()
    }
    fn acceleration(&self, t: f64, x: &[f64], v: &[f64], a: &mut [f64]) -> Result<(), SystemError> {
        let m = self.0.mass_matrix(x);
        let f = self.0.forces(t, x, v);
        let sol =
            mass_solve(&m, &col(&f), t).map_err(|e| SystemError { t, message: e.to_string() })?;
        for (i, ai) in a.iter_mut().enumerate() {
            *ai = sol[(i, 0)];
        }
        Ok(())
    }
}

/// A point mass (one vertical coordinate q = height of its lowest point) above a floor at
/// height 0, under gravity and a constant upward pull: REFERENCE.md A5 and C.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BouncingBall {
    /// Mass m (kg).
    pub mass: f64,
    /// Gravitational acceleration g (m/s^2, down).
    pub gravity: f64,
    /// Constant upward external force u (N).
    pub pull: f64,
    /// Newton restitution e of the floor contact.
    pub restitution: f64,
}

impl BouncingBall {
    /// Impact times of the exact Newton-restitution solution dropped from rest at height h0:
    /// t_k = t1 + (2 V1 / g) e (1 - e^(k-1)) / (1 - e), t1 = sqrt(2 h0 / g), V1 = sqrt(2 g h0)
    /// (k = 1, 2, ...; no pull).
    pub fn exact_impact_time(&self, h0: f64, k: u32) -> f64 {
        let (g, e) = (self.gravity, self.restitution);
        let t1 = (2.0 * h0 / g).sqrt();
        let v1 = (2.0 * g * h0).sqrt();
        t1 + 2.0 * v1 / g * e * (1.0 - e.powi(k as i32 - 1)) / (1.0 - e)
    }

    /// Accumulation (Zeno) time t1 (1 + e) / (1 - e) for a drop from rest at h0.
    pub fn exact_accumulation_time(&self, h0: f64) -> f64 {
        let e = self.restitution;
        (2.0 * h0 / self.gravity).sqrt() * (1.0 + e) / (1.0 - e)
    }

    /// Exact height and velocity at time t for a drop from rest at h0 (no pull).
    pub fn exact_state(&self, h0: f64, t: f64) -> (f64, f64) {
        let (g, e) = (self.gravity, self.restitution);
        if t >= self.exact_accumulation_time(h0) {
            return (0.0, 0.0);
        }
        let t1 = (2.0 * h0 / g).sqrt();
        if t < t1 {
            return (h0 - 0.5 * g * t * t, -g * t);
        }
        let mut k = 1;
        while self.exact_impact_time(h0, k + 1) <= t {
            k += 1;
        }
        let tk = self.exact_impact_time(h0, k);
        let vk = (2.0 * g * h0).sqrt() * e.powi(k as i32);
        let s = t - tk;
        (vk * s - 0.5 * g * s * s, vk - g * s)
    }
}

impl MechanicalSystem for BouncingBall {
    fn n_dof(&self) -> usize {
        1
    }
    fn mass_matrix(&self, _q: &[f64]) -> Mat<f64> {
        Mat::from_fn(1, 1, |_, _| self.mass)
    }
    fn forces(&self, _t: f64, _q: &[f64], _v: &[f64]) -> Vec<f64> {
        vec![self.pull - self.mass * self.gravity]
    }
}

impl ContactModel for BouncingBall {
    fn n_contacts(&self) -> usize {
        1
    }
    fn gaps(&self, q: &[f64]) -> Vec<f64> {
        vec![q[0]]
    }
    fn jacobian(&self, _q: &[f64]) -> Mat<f64> {
        Mat::from_fn(1, 1, |_, _| 1.0)
    }
    fn restitution(&self, _contact_idx: usize) -> f64 {
        self.restitution
    }
}
