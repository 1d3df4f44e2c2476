//! The Delassus operator W = J M^-1 J^T, matrix-free (apply J, apply M^-1 J^T) for iterative
//! solvers that never form W; the assembled form is [`MassMatrix::delassus`].

use crate::jacobian::Jacobian;
use crate::mass::MassMatrix;

/// Matrix-free W = J M^-1 J^T over a Jacobian and a mass matrix.
pub struct DelassusOperator<'a, M: MassMatrix + ?Sized> {
    /// The contact Jacobian J.
    pub jacobian: &'a Jacobian,
    /// The mass matrix M.
    pub mass: &'a M,
}

impl<'a, M: MassMatrix + ?Sized> DelassusOperator<'a, M> {
    /// Wraps J and M.
    pub fn new(jacobian: &'a Jacobian, mass: &'a M) -> Self {
        Self { jacobian, mass }
    }

    /// Number of rows of W.
    pub fn n(&self) -> usize {
        self.jacobian.n_rows()
    }

    /// J v (contact-space velocity of a generalised velocity).
    pub fn apply_jacobian(&self, v: &[f64]) -> Vec<f64> {
        self.jacobian.apply(v)
    }

    /// M^-1 J^T λ (generalised velocity change of contact impulses λ).
    pub fn apply_inverse_mass_jacobian_transpose(&self, lambda: &[f64]) -> Vec<f64> {
        let jt = self.jacobian.apply_transpose(lambda);
        let mut out = vec![0.0; self.mass.n_dofs()];
        self.mass.apply_inverse(&jt, &mut out);
        out
    }

    /// W λ = J (M^-1 J^T λ).
    pub fn apply(&self, lambda: &[f64]) -> Vec<f64> {
        self.apply_jacobian(&self.apply_inverse_mass_jacobian_transpose(lambda))
    }

    /// The diagonal W_ii = J_i M^-1 J_i^T (for Gauss–Seidel sweeps).
    pub fn diagonal(&self) -> Vec<f64> {
        self.mass.delassus_diagonal(self.jacobian)
    }
}
