//! The local frictional-contact problem FC(W, q, mu) with the exact Coulomb cone, validated
//! (Acary, Brogliato 2008, *Numerical Methods for Nonsmooth Dynamical Systems*, §13.1; the
//! layout of Siconos' `FrictionContactProblem`).
//!
//! Find r, u in R^{d n_c} with u = W r + q, r_i in K_{mu_i}, u_i + mu_i |u_T,i| e_N in K*_{mu_i}
//! and r_i . (u_i + mu_i |u_T,i| e_N) = 0 for every contact i (De Saxcé's form of Coulomb's
//! law); each block of d = 2 or 3 entries holds the normal component first.

use faer::Mat;
use signorini_lcp::{Lcp, Matrix, ProblemError};

/// Why an [`FcProblem`] could not be built. Indices are zero-based.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FcProblemError {
    /// The space dimension is not 2 or 3.
    #[error("dimension {0}: must be 2 or 3")]
    Dimension(usize),
    /// W's size is not a multiple of the dimension.
    #[error("W is {n}x{n}, not a multiple of the dimension {dimension}")]
    NotBlocked {
        /// Size of W.
        n: usize,
        /// Space dimension.
        dimension: usize,
    },
    /// mu does not have one entry per contact.
    #[error("mu has {got} entries, the problem has {n_contacts} contacts")]
    MuLength {
        /// Entries of mu.
        got: usize,
        /// Contacts (size of W / dimension).
        n_contacts: usize,
    },
    /// A friction coefficient is negative or not finite.
    #[error("mu[{contact}] = {value}: must be finite and >= 0")]
    BadMu {
        /// Contact index.
        contact: usize,
        /// The value.
        value: f64,
    },
    /// W or q is invalid (not square, sizes disagree, an entry not finite).
    #[error("{}", rename_m(.0))]
    Data(#[from] ProblemError),
}

/// The LCP errors name the matrix M; here it is W.
fn rename_m(e: &ProblemError) -> String {
    e.to_string().replace("M[", "W[").replace("M is", "W is").replace("of M", "of W")
}

/// A validated frictional-contact problem: W square of size d·n_c (dense or sparse), q of the
/// same size, one finite mu >= 0 per contact, every entry finite. n_c = 0 is valid.
#[derive(Debug, Clone)]
pub struct FcProblem {
    dimension: usize,
    /// W and q, validated by signorini-lcp's constructor (square, sizes agree, finite).
    data: Lcp,
    mu: Vec<f64>,
    /// Optional name (file stem).
    pub name: Option<String>,
}

impl FcProblem {
    /// Validates and builds the problem.
    pub fn new(
        dimension: usize,
        w: Matrix,
        q: Vec<f64>,
        mu: Vec<f64>,
    ) -> Result<Self, FcProblemError> {
        if dimension != 2 && dimension != 3 {
            return Err(FcProblemError::Dimension(dimension));
        }
        let data = Lcp::new(w, q)?;
        let n = data.n();
        if n % dimension != 0 {
            return Err(FcProblemError::NotBlocked { n, dimension });
        }
        let n_contacts = n / dimension;
        if mu.len() != n_contacts {
            return Err(FcProblemError::MuLength { got: mu.len(), n_contacts });
        }
        if let Some((contact, &value)) =
            mu.iter().enumerate().find(|(_, m)| !(m.is_finite() && **m >= 0.0))
        {
            return Err(FcProblemError::BadMu { contact, value });
        }
        Ok(Self { dimension, data, mu, name: None })
    }

    /// Dense problem from rows of W (rows are rows).
    pub fn from_dense_rows(
        dimension: usize,
        rows: &[Vec<f64>],
        q: Vec<f64>,
        mu: Vec<f64>,
    ) -> Result<Self, FcProblemError> {
        let n = rows.len();
        if let Some((row, r)) = rows.iter().enumerate().find(|(_, r)| r.len() != n) {
            return Err(ProblemError::RaggedRow { row, len: r.len(), n }.into());
        }
        let m = Mat::from_fn(n, n, |i, j| rows[i][j]);
        Self::new(dimension, Matrix::Dense(m), q, mu)
    }

    /// Sparse problem from coordinates (duplicates are summed).
    pub fn from_coo(
        dimension: usize,
        n: usize,
        row: &[usize],
        col: &[usize],
        val: &[f64],
        q: Vec<f64>,
        mu: Vec<f64>,
    ) -> Result<Self, FcProblemError> {
        let lcp = Lcp::from_coo(n, row, col, val, q)?;
        let q = lcp.q().to_vec();
        Self::new(dimension, lcp.matrix().clone(), q, mu)
    }

    /// Sets the name (builder style).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Space dimension d (2 or 3).
    pub fn dimension(&self) -> usize {
        self.dimension
    }

    /// Number of contacts n_c.
    pub fn n_contacts(&self) -> usize {
        self.mu.len()
    }

    /// Number of unknowns d·n_c.
    pub fn n(&self) -> usize {
        self.data.n()
    }

    /// The Delassus matrix W.
    pub fn w(&self) -> &Matrix {
        self.data.matrix()
    }

    /// The free velocity q.
    pub fn q(&self) -> &[f64] {
        self.data.q()
    }

    /// Friction coefficients, one per contact.
    pub fn mu(&self) -> &[f64] {
        &self.mu
    }

    /// W and q as an [`Lcp`] (for its products and conversions; it is not the LCP of this
    /// problem).
    pub fn data(&self) -> &Lcp {
        &self.data
    }

    /// True when W is stored sparse.
    pub fn is_sparse(&self) -> bool {
        self.data.is_sparse()
    }

    /// Entry (i, j) of W.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        self.data.get(i, j)
    }

    /// u = W r + q.
    pub fn velocity(&self, r: &[f64]) -> Vec<f64> {
        self.data.w_of(r)
    }

    /// y = W x.
    pub fn mul_vec(&self, x: &[f64], y: &mut [f64]) {
        self.data.mul_vec(x, y);
    }

    /// The d x d diagonal block W_ii of contact i, row-major.
    pub fn diagonal_block(&self, contact: usize) -> [[f64; 3]; 3] {
        let d = self.dimension;
        let mut b = [[0.0; 3]; 3];
        for (a, row) in b.iter_mut().enumerate().take(d) {
            for (c, v) in row.iter_mut().enumerate().take(d) {
                *v = self.get(d * contact + a, d * contact + c);
            }
        }
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_data_are_typed_errors() {
        let eye = |n: usize| -> Vec<Vec<f64>> {
            (0..n).map(|i| (0..n).map(|j| f64::from(u8::from(i == j))).collect()).collect()
        };
        assert!(FcProblem::from_dense_rows(3, &eye(3), vec![-1.0, 0.0, 0.0], vec![0.5]).is_ok());
        assert_eq!(
            FcProblem::from_dense_rows(4, &eye(4), vec![0.0; 4], vec![0.5]).err(),
            Some(FcProblemError::Dimension(4))
        );
        assert_eq!(
            FcProblem::from_dense_rows(3, &eye(4), vec![0.0; 4], vec![0.5]).err(),
            Some(FcProblemError::NotBlocked { n: 4, dimension: 3 })
        );
        assert_eq!(
            FcProblem::from_dense_rows(2, &eye(4), vec![0.0; 4], vec![0.5]).err(),
            Some(FcProblemError::MuLength { got: 1, n_contacts: 2 })
        );
        assert!(matches!(
            FcProblem::from_dense_rows(2, &eye(2), vec![0.0; 2], vec![-0.1]),
            Err(FcProblemError::BadMu { contact: 0, .. })
        ));
        assert!(matches!(
            FcProblem::from_dense_rows(2, &eye(2), vec![0.0; 2], vec![f64::NAN]),
            Err(FcProblemError::BadMu { contact: 0, .. })
        ));
        let e = FcProblem::from_dense_rows(2, &eye(2), vec![f64::INFINITY, 0.0], vec![0.1]);
        assert!(matches!(e, Err(FcProblemError::Data(ProblemError::NonFiniteQ { index: 0, .. }))));
        let e = FcProblem::from_dense_rows(2, &eye(2), vec![0.0; 3], vec![0.1]);
        assert!(matches!(e, Err(FcProblemError::Data(ProblemError::SizeMismatch { .. }))));
        let mut bad = eye(2);
        bad[1][0] = f64::NAN;
        let e = FcProblem::from_dense_rows(2, &bad, vec![0.0; 2], vec![0.1]);
        assert!(e.is_err_and(|e| e.to_string().contains("W[1][0]")));
    }
}
