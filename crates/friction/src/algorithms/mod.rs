//! The frictional-contact algorithms, one module each (params with documented defaults, the
//! solver, `register`), and the row access to W that the sweeps share.

pub mod admm;
pub mod apgd_ccp;
pub mod auto;
pub mod fixed_point;
pub mod ipm_ccp;
pub mod lcp_route;
pub mod newton_ac;
pub mod nsgs;
pub mod nsgs_colored;

use faer::linalg::solvers::{PartialPivLu, Solve};
use faer::sparse::linalg::solvers::{Lu, SymbolicLu};
use faer::sparse::{SparseColMat, Triplet};
use faer::{Mat, MatMut};

use crate::registry::FcRegistry;
use crate::FcProblem;

/// Registers every algorithm of this crate.
pub fn register_all(r: &mut FcRegistry) {
    nsgs::register(r);
    nsgs_colored::register(r);
    newton_ac::register(r);
    apgd_ccp::register(r);
    admm::register(r);
    ipm_ccp::register(r);
    fixed_point::register(r);
    lcp_route::register(r);
    auto::register(r);
}

/// Rows of W as the sweeps read them: signorini-lcp's row access, on the problem's W.
pub(crate) type Rows<'a> = signorini_lcp::linalg::sweeps::Rows<'a>;

/// The rows of a problem's W.
pub(crate) fn rows(problem: &FcProblem) -> Rows<'_> {
    Rows::of(problem.w())
}

/// A factorisation of a Newton or ADMM matrix.
pub(crate) enum Factor {
    Dense(PartialPivLu<f64>),
    Sparse(Lu<usize, f64>),
}

impl Factor {
    /// Solves in place; Err when the result is not finite (a singular matrix).
    pub(crate) fn solve_in_place(&self, rhs: &mut [f64]) -> Result<(), String> {
        let n = rhs.len();
        match self {
            Factor::Dense(lu) => lu.solve_in_place(MatMut::from_column_major_slice_mut(rhs, n, 1)),
            Factor::Sparse(lu) => lu.solve_in_place(MatMut::from_column_major_slice_mut(rhs, n, 1)),
        }
        if rhs.iter().all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err("the linear system is singular (non-finite solution)".into())
        }
    }
}

/// Factorises matrices given as triplets on a fixed pattern: faer dense partial-pivoting LU,
/// or faer sparse LU with the symbolic analysis done on the first matrix and reused.
pub(crate) struct LinearSystem {
    sparse: bool,
    symbolic: Option<SymbolicLu<usize>>,
}

impl LinearSystem {
    pub(crate) fn new(sparse: bool) -> Self {
        Self { sparse, symbolic: None }
    }

    pub(crate) fn factor(
        &mut self,
        n: usize,
        triplets: &[Triplet<usize, usize, f64>],
    ) -> Result<Factor, String> {
        if self.sparse {
            let j = SparseColMat::<usize, f64>::try_new_from_triplets(n, n, triplets)
                .map_err(|e| format!("{e:?}"))?;
            if self.symbolic.is_none() {
                self.symbolic =
                    Some(SymbolicLu::try_new(j.symbolic()).map_err(|e| format!("{e:?}"))?);
            }
            let Some(sym) = self.symbolic.clone() else {
                return Err("no symbolic analysis".into());
            };
            let lu = Lu::try_new_with_symbolic(sym, j.as_ref()).map_err(|e| format!("{e:?}"))?;
            Ok(Factor::Sparse(lu))
        } else {
            let mut j = Mat::<f64>::zeros(n, n);
            for t in triplets {
                j[(t.row, t.col)] += t.val;
            }
            Ok(Factor::Dense(j.partial_piv_lu()))
        }
    }

    /// Factorises and solves in place.
    pub(crate) fn solve(
        &mut self,
        n: usize,
        triplets: &[Triplet<usize, usize, f64>],
        rhs: &mut [f64],
    ) -> Result<(), String> {
        self.factor(n, triplets)?.solve_in_place(rhs)
    }
}
