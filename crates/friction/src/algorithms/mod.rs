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
use faer::sparse::linalg::lu::SymbolicLu;
use faer::sparse::{SparseColMat, Triplet};
use faer::{Mat, MatMut};

use signorini_lcp::linalg::sparse_lu::{self, SeqSparseLu};

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

/// The diagonal blocks W_ii of every contact.
pub(crate) fn diagonal_blocks(problem: &FcProblem) -> Vec<crate::local::M3> {
    (0..problem.n_contacts()).map(|i| problem.diagonal_block(i)).collect()
}

/// What one step of a frictional solver returns to the loop.
pub(crate) type FcStep = signorini_lcp::steps::StepResult<crate::solver::FcOutcome>;

/// A step taken with its measure, or a non-finite measure when r left the reals (the loop
/// then ends the run in `numerical_failure`); the error is tested every `check_every` steps.
pub(crate) fn taken(measure: f64, r: &[f64], iteration: usize, check_every: usize) -> FcStep {
    let finite = r.iter().all(|v| v.is_finite());
    Ok(signorini_lcp::steps::Step::Taken {
        measure: Some(if finite { measure } else { f64::NAN }),
        movement: None,
        check: iteration.is_multiple_of(check_every),
    })
}

/// A factorisation of a Newton or ADMM matrix.
pub(crate) enum Factor {
    Small(SmallLu),
    Dense(PartialPivLu<f64>),
    Sparse(Box<SeqSparseLu>),
}

impl Factor {
    /// Solves in place; Err when the result is not finite (a singular matrix).
    pub(crate) fn solve_in_place(&self, rhs: &mut [f64]) -> Result<(), String> {
        let n = rhs.len();
        match self {
            Factor::Small(lu) => lu.solve_in_place(rhs),
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

/// Largest order factorised by [`SmallLu`]: below it faer's dense LU costs more in set-up and
/// allocation than in arithmetic (callgrind: a quarter of a `newton-ac` solve of a one-contact
/// file was `PartialPivLu::new`).
const SMALL_LU_MAX: usize = 24;

/// Dense LU with partial pivoting for small orders, row-major, in one allocation (Golub, Van
/// Loan 2013, Algorithm 3.4.1). A zero pivot leaves non-finite entries, which
/// [`Factor::solve_in_place`] reports as a singular system.
pub(crate) struct SmallLu {
    n: usize,
    lu: Vec<f64>,
    perm: Vec<usize>,
}

impl SmallLu {
    fn new(n: usize, triplets: &[Triplet<usize, usize, f64>]) -> Self {
        let mut lu = vec![0.0; n * n];
        for t in triplets {
            lu[t.row * n + t.col] += t.val;
        }
        let mut perm: Vec<usize> = (0..n).collect();
        for k in 0..n {
            let p = (k..n)
                .max_by(|&a, &b| lu[a * n + k].abs().total_cmp(&lu[b * n + k].abs()))
                .unwrap_or(k);
            if p != k {
                let (upper, lower) = lu.split_at_mut(p * n);
                upper[k * n..(k + 1) * n].swap_with_slice(&mut lower[..n]);
                perm.swap(k, p);
            }
            // Row slices, so that the update loop has no bounds checks and vectorises.
            let (upper, lower) = lu.split_at_mut((k + 1) * n);
            let pivot_row = &upper[k * n..];
            let pivot = pivot_row[k];
            for row in lower.chunks_exact_mut(n) {
                let l = row[k] / pivot;
                row[k] = l;
                for (a, b) in row[k + 1..].iter_mut().zip(&pivot_row[k + 1..]) {
                    *a -= l * b;
                }
            }
        }
        Self { n, lu, perm }
    }

    fn solve_in_place(&self, rhs: &mut [f64]) {
        let n = self.n;
        let mut x: Vec<f64> = self.perm.iter().map(|&p| rhs[p]).collect();
        for i in 0..n {
            let s: f64 = (0..i).map(|c| self.lu[i * n + c] * x[c]).sum();
            x[i] -= s;
        }
        for i in (0..n).rev() {
            let s: f64 = (i + 1..n).map(|c| self.lu[i * n + c] * x[c]).sum();
            x[i] = (x[i] - s) / self.lu[i * n + i];
        }
        rhs.copy_from_slice(&x);
    }
}

/// Whether a matrix of order n with `nnz` structural entries is factorised by the sparse LU:
/// above [`SMALL_LU_MAX`] and at most 10 % full, whatever W's storage. Measured with
/// `fc_speed` (release, `newton-ac`, medians): Box_Stacks-i0122 (n = 246, stored dense, 3 %
/// full) 23.0 ms dense against 2.6 ms sparse; Confeti-ex03 (n = 162, 5 %) 6.7 against 1.5 ms;
/// OneObject-i1028 (n = 69, 29 %) 1.7 dense against 2.1 ms sparse. The rule used to be
/// "sparse storage and n > 300", which sent the first two to the dense LU.
pub(crate) fn prefer_sparse(n: usize, nnz: usize) -> bool {
    n > SMALL_LU_MAX && nnz.saturating_mul(10) <= n.saturating_mul(n)
}

/// Factorises matrices given as triplets on a fixed pattern: [`SmallLu`] up to order 24, faer
/// dense partial-pivoting LU above,
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
                self.symbolic = Some(sparse_lu::analyse(j.symbolic())?);
            }
            let Some(sym) = self.symbolic.clone() else {
                return Err("no symbolic analysis".into());
            };
            let lu = Box::new(SeqSparseLu::factor(sym, j.as_ref())?);
            Ok(Factor::Sparse(lu))
        } else if n <= SMALL_LU_MAX {
            Ok(Factor::Small(SmallLu::new(n, triplets)))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_small_lu_solves_a_system_that_needs_pivoting_and_reports_a_singular_one() {
        // [[0, 2, 1], [1, 1, 0], [3, 0, 1]] x = b with x = (1, -2, 3).
        let a = [[0.0, 2.0, 1.0], [1.0, 1.0, 0.0], [3.0, 0.0, 1.0]];
        let x = [1.0, -2.0, 3.0];
        let mut trip = Vec::new();
        let mut b = vec![0.0; 3];
        for i in 0..3 {
            for j in 0..3 {
                trip.push(Triplet::new(i, j, a[i][j]));
                b[i] += a[i][j] * x[j];
            }
        }
        let mut system = LinearSystem::new(false);
        system.solve(3, &trip, &mut b).expect("regular");
        for k in 0..3 {
            assert!((b[k] - x[k]).abs() < 1e-14, "{b:?}");
        }
        let singular = [Triplet::new(0, 0, 1.0), Triplet::new(0, 1, 2.0)];
        let mut rhs = vec![1.0, 1.0];
        assert!(system.solve(2, &singular, &mut rhs).is_err());
    }
}
