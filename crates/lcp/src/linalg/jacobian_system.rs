//! Linear systems `(D_a + D_b M) x = r` (D_a, D_b diagonal) shared by `newton-fb`,
//! `newton-min` and `ipm`: dense faer LU, sparse faer LU with the symbolic analysis done once
//! and reused, or matrix-free restarted GMRES (Saad, Schultz 1986, "GMRES: a generalized
//! minimal residual algorithm for solving nonsymmetric linear systems", SIAM J. Sci. Stat.
//! Comput. 7) with a Jacobi preconditioner.
//!
//! Every Newton-type matrix of these methods has this row-scaled form: the Fischer–Burmeister
//! element `H = D_a + D_b M`, the min-map element (rows of I or of M), and the interior-point
//! reduced matrix `M + Z^-1 W`. The sparse pattern is that of M plus the diagonal, fixed for a
//! whole solve, so one symbolic factorisation serves every numeric one.

use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::linalg::cholesky::llt::factor::LltRegularization;
use faer::linalg::solvers::Solve;
use faer::sparse::linalg::amd;
use faer::sparse::linalg::cholesky::{
    factorize_symbolic_cholesky, CholeskySymbolicParams, LltRef, SymbolicCholesky,
    SymbolicCholeskyRaw, SymmetricOrdering,
};
use faer::sparse::linalg::lu::SymbolicLu;
use faer::sparse::linalg::SupernodalThreshold;
use faer::sparse::{SparseColMatRef, SymbolicSparseColMat};
use faer::{Conj, Mat, MatMut, Par, Side};

use crate::linalg::sparse_lu::{self, SeqSparseLu};
use crate::solver::SolveContext;

crate::param_enum!(LinearSolver { Direct => "direct", Gmres => "gmres" | "krylov" });
use crate::{Lcp, Matrix};

/// How the Newton systems are solved (the `linear` key of the Newton solvers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinearSolver {
    /// Factorise: faer dense partial-pivoting LU, or faer sparse LU with symbolic reuse.
    Direct,
    /// Restarted GMRES with a Jacobi preconditioner, matrix-free (matvecs with M only).
    Gmres,
}

impl LinearSolver {
    /// Parses `direct`, `gmres` or `krylov` (a synonym of `gmres`).
    pub fn parse(value: &str) -> Option<Self> {
        match value.trim() {
            "direct" => Some(Self::Direct),
            "gmres" | "krylov" => Some(Self::Gmres),
            _ => None,
        }
    }

    /// The spec text of this choice.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Direct => "direct",
            Self::Gmres => "gmres",
        }
    }
}

/// Settings of the Krylov solver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KrylovSettings {
    /// Restart length m of GMRES(m).
    pub restart: usize,
    /// Limit on inner iterations per solve (each costs one matvec with M).
    pub max_iter: usize,
}

/// Why a linear solve failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LinearError {
    /// The factorisation failed (structurally or numerically singular matrix).
    #[error("factorisation failed: {0}")]
    Factorization(String),
    /// The solution has a NaN or infinite entry (numerically singular matrix).
    #[error("the linear solve produced a non-finite entry")]
    NonFinite,
    /// GMRES did not reach the requested relative residual.
    #[error("GMRES reached relative residual {achieved:.3e}, asked {requested:.1e}")]
    KrylovNotConverged {
        /// Relative residual achieved.
        achieved: f64,
        /// Relative residual requested.
        requested: f64,
    },
}

/// Pattern of `D_a + D_b M` for a sparse M: the CSR of A (read as the CSC of A') with the
/// diagonal merged in, and where each entry of M and each diagonal entry lands.
#[derive(Debug)]
struct SparsePattern {
    symbolic: SymbolicSparseColMat<usize>,
    /// Position in `values` of each stored entry of M, in M's row order.
    m_pos: Vec<usize>,
    /// Position in `values` of each diagonal entry.
    diag_pos: Vec<usize>,
    values: Vec<f64>,
    lu_symbolic: Option<SymbolicLu<usize>>,
    lu: Option<SeqSparseLu>,
}

#[derive(Debug)]
enum Backend {
    Dense { lu: Option<faer::linalg::solvers::PartialPivLu<f64>> },
    Sparse(Box<SparsePattern>),
    Krylov { settings: KrylovSettings, a: Vec<f64>, b: Vec<f64>, inv_diag: Vec<f64> },
}

/// A reusable solver for `(D_a + D_b M) x = r` for one problem.
#[derive(Debug)]
pub struct JacobianSystem {
    backend: Backend,
    symbolic_analyses: usize,
}

impl JacobianSystem {
    /// Prepares the solver for `lcp` (no numeric work yet).
    pub fn new(lcp: &Lcp, linear: LinearSolver, krylov: KrylovSettings) -> Self {
        let backend = match (linear, lcp.matrix()) {
            (LinearSolver::Gmres, _) => Backend::Krylov {
                settings: krylov,
                a: Vec::new(),
                b: Vec::new(),
                inv_diag: Vec::new(),
            },
            (LinearSolver::Direct, Matrix::Dense(_)) => Backend::Dense { lu: None },
            (LinearSolver::Direct, Matrix::Sparse(s)) => {
                Backend::Sparse(Box::new(sparse_pattern(s)))
            }
        };
        Self { backend, symbolic_analyses: 0 }
    }

    /// Forms `A = diag(a) + diag(b) M` and factorises it (Krylov: stores the scalings and the
    /// Jacobi preconditioner). Counts one factorisation for the direct backends.
    pub fn factor(
        &mut self,
        lcp: &Lcp,
        a: &[f64],
        b: &[f64],
        ctx: &mut SolveContext<'_>,
    ) -> Result<(), LinearError> {
        debug_assert_eq!(a.len(), lcp.n());
        debug_assert_eq!(b.len(), lcp.n());
        match &mut self.backend {
            Backend::Dense { lu } => {
                let Matrix::Dense(m) = lcp.matrix() else {
                    unreachable!("dense backend is built for dense M only")
                };
                let n = lcp.n();
                let mut h = Mat::<f64>::zeros(n, n);
                for j in 0..n {
                    for i in 0..n {
                        h[(i, j)] = b[i] * m[(i, j)];
                    }
                    h[(j, j)] += a[j];
                }
                ctx.factorizations += 1;
                *lu = Some(h.partial_piv_lu());
                Ok(())
            }
            Backend::Sparse(p) => {
                let Matrix::Sparse(m) = lcp.matrix() else {
                    unreachable!("sparse backend is built for sparse M only")
                };
                p.values.iter_mut().for_each(|v| *v = 0.0);
                let mut k = 0;
                for i in 0..lcp.n() {
                    for &mij in m.val_of_row(i) {
                        p.values[p.m_pos[k]] += b[i] * mij;
                        k += 1;
                    }
                    p.values[p.diag_pos[i]] += a[i];
                }
                if p.lu_symbolic.is_none() {
                    let sym = sparse_lu::analyse(p.symbolic.as_ref())
                        .map_err(LinearError::Factorization)?;
                    p.lu_symbolic = Some(sym);
                    self.symbolic_analyses += 1;
                }
                let Some(sym) = p.lu_symbolic.clone() else {
                    unreachable!("symbolic analysis was just stored")
                };
                ctx.factorizations += 1;
                // The stored pattern is the CSR of A, i.e. the CSC of A'; solves use A'^T = A.
                let at = SparseColMatRef::new(p.symbolic.as_ref(), &p.values);
                match SeqSparseLu::factor(sym, at) {
                    Ok(lu) => {
                        p.lu = Some(lu);
                        Ok(())
                    }
                    Err(e) => {
                        p.lu = None;
                        Err(LinearError::Factorization(e))
                    }
                }
            }
            Backend::Krylov { a: sa, b: sb, inv_diag, .. } => {
                sa.clear();
                sa.extend_from_slice(a);
                sb.clear();
                sb.extend_from_slice(b);
                let d = lcp.diag();
                inv_diag.clear();
                inv_diag.extend(a.iter().zip(b).zip(&d).map(|((ai, bi), mii)| {
                    let h = ai + bi * mii;
                    if h.abs() > f64::MIN_POSITIVE.sqrt() && h.is_finite() {
                        1.0 / h
                    } else {
                        1.0
                    }
                }));
                Ok(())
            }
        }
    }

    /// Sparse symbolic analyses done so far (one per solve at most: the pattern is fixed).
    pub fn symbolic_analyses(&self) -> usize {
        self.symbolic_analyses
    }

    /// Solves `A x = rhs` in place with the last factorisation. `rel_tol` is the relative
    /// residual asked of GMRES (ignored by the direct backends).
    pub fn solve(
        &self,
        lcp: &Lcp,
        rhs: &mut [f64],
        rel_tol: f64,
        ctx: &mut SolveContext<'_>,
    ) -> Result<(), LinearError> {
        let n = rhs.len();
        match &self.backend {
            Backend::Dense { lu } => {
                let Some(lu) = lu else {
                    return Err(LinearError::Factorization("no factorisation".into()));
                };
                lu.solve_in_place(MatMut::from_column_major_slice_mut(rhs, n, 1));
            }
            Backend::Sparse(p) => {
                let Some(lu) = &p.lu else {
                    return Err(LinearError::Factorization("no factorisation".into()));
                };
                lu.solve_transpose_in_place(MatMut::from_column_major_slice_mut(rhs, n, 1));
            }
            Backend::Krylov { settings, a, b, inv_diag } => {
                let op = ScaledOperator { lcp, a, b };
                gmres(&op, inv_diag, rhs, rel_tol, *settings, ctx)?;
            }
        }
        if rhs.iter().all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err(LinearError::NonFinite)
        }
    }
}

fn sparse_pattern(m: &faer::sparse::SparseRowMat<usize, f64>) -> SparsePattern {
    let n = m.nrows();
    let mut row_ptr = Vec::with_capacity(n + 1);
    let mut col_idx = Vec::with_capacity(m.compute_nnz() + n);
    let mut m_pos = Vec::with_capacity(m.compute_nnz());
    let mut diag_pos = vec![0; n];
    row_ptr.push(0);
    for (i, dpos) in diag_pos.iter_mut().enumerate() {
        let mut placed = false;
        for &j in m.col_idx_of_row_raw(i) {
            if !placed && j > i {
                *dpos = col_idx.len();
                col_idx.push(i);
                placed = true;
            }
            if j == i {
                *dpos = col_idx.len();
                placed = true;
            }
            m_pos.push(col_idx.len());
            col_idx.push(j);
        }
        if !placed {
            *dpos = col_idx.len();
            col_idx.push(i);
        }
        row_ptr.push(col_idx.len());
    }
    let nnz = col_idx.len();
    // Valid by construction: sorted, unique, in range.
    let symbolic = SymbolicSparseColMat::new_checked(n, n, row_ptr, None, col_idx);
    SparsePattern { symbolic, m_pos, diag_pos, values: vec![0.0; nnz], lu_symbolic: None, lu: None }
}

/// Cholesky solver for the Newton-min system of a sparse symmetric positive definite M.
///
/// With F the free indices (rows of M in the min-map element) and A the others (rows of I),
/// the min-map system is d_A = r_A, M_FF d_F = r_F − M_FA r_A. Its matrix after that
/// elimination, K = [[M_FF, 0], [0, I]], is symmetric positive definite whenever M is, and has
/// the pattern of M (the entries that couple F and A, or A and A off the diagonal, are stored
/// as explicit zeros). So one fill-reducing ordering and one symbolic Cholesky analysis serve
/// every Newton iteration, and each iteration costs one numeric sparse LL' factorisation (faer,
/// sequential: deterministic) instead of an unsymmetric LU with pivoting.
///
/// The ordering ([`FillOrdering::Auto`], the default) is chosen once per solve: the column
/// counts of L in the given order are computed first (elimination tree, O(nnz)); that order is
/// kept when nnz(L) <= [`NATURAL_FILL_LIMIT`] nnz(K) (contact rows numbered body by body are
/// often already banded), else approximate minimum degree (Amestoy, Davis, Duff 1996) is
/// computed and kept if it gives fewer entries. From n = [`DISSECTION_MIN`], where the order
/// kept so far costs at least [`DISSECTION_MIN_FLOPS`], a nested dissection order
/// ([`super::dissection`]) is computed too and kept if its factorisation takes fewer flops (the
/// FCC sphere pile at 10^4: 4.2e8 against minimum degree's 8.6e8). The permutation is applied
/// to the pattern once, so a numeric factorisation writes K's values straight into permuted
/// storage.
pub struct PrincipalCholesky {
    n: usize,
    /// Row of each stored entry of the upper triangle of M with the diagonal (row <= col).
    rows: Vec<usize>,
    /// Column of each stored entry.
    cols: Vec<usize>,
    /// Value of M at each stored entry (0 at an added diagonal).
    m_values: Vec<f64>,
    ordering: FillOrdering,
    analysis: Option<CholeskyAnalysis>,
    factored: bool,
    symbolic_analyses: usize,
    /// Wall time of the last numeric factorisation, seconds.
    last_factor_seconds: f64,
    /// Dynamic regularisation (epsilon, delta): pivots below epsilon become delta (none when
    /// None: such a pivot fails the factorisation).
    regularization: Option<(f64, f64)>,
    /// Multiplier of faer's rule for the supernodal factorisation (1: faer's own choice).
    supernodal_threshold: f64,
    /// Threads of the numeric factorisation and the solves (faer's `Par`).
    par: Par,
}

/// Fill ratio nnz(L) / nnz(upper triangle of K) up to which [`FillOrdering::Auto`] keeps the
/// given order of the unknowns.
pub const NATURAL_FILL_LIMIT: f64 = 2.0;

/// Size from which [`FillOrdering::Auto`] also computes a nested dissection order
/// ([`super::dissection`]), when the order it has chosen would cost at least
/// [`DISSECTION_MIN_FLOPS`], and keeps it where its factorisation takes fewer flops.
pub const DISSECTION_MIN: usize = 2000;

/// Flops (sum of the squared column counts of L) below which the ordering is not worth a
/// nested dissection: on the velocity-space Newton matrix of the 2D packing at 10^4
/// (minimum degree 1.9e7 flops, nested dissection 2.3e7) computing it cost 2.4–5.7 ms of a
/// 0.09 s solve for nothing.
pub const DISSECTION_MIN_FLOPS: f64 = 5e7;

/// The order [`PrincipalCholesky`]'s analysis chose.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChosenOrdering {
    /// The given order of the unknowns.
    Given,
    /// Approximate minimum degree.
    MinimumDegree,
    /// Nested dissection ([`super::dissection`]).
    NestedDissection,
}

/// Fill-reducing ordering of [`PrincipalCholesky`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FillOrdering {
    /// The given order when its fill is at most [`NATURAL_FILL_LIMIT`], else the better of it
    /// and approximate minimum degree, and on large expensive factors nested dissection where
    /// it takes fewer flops ([`PrincipalCholesky`]).
    Auto,
    /// Approximate minimum degree (Amestoy, Davis, Duff 1996), never nested dissection.
    Amd,
    /// The given order of the unknowns (no permutation).
    Natural,
}

/// The part of [`PrincipalCholesky`] computed once per solve.
struct CholeskyAnalysis {
    /// `perm[k]`: the original index of the unknown at position k (None: identity).
    perm: Option<Vec<usize>>,
    /// Original row, column and value of M of each entry of `values` (storage order).
    rows: Vec<usize>,
    cols: Vec<usize>,
    m_values: Vec<f64>,
    /// Permuted triangle of K, CSC, on the side `side`.
    pattern: SymbolicSparseColMat<usize>,
    side: Side,
    values: Vec<f64>,
    symbolic: SymbolicCholesky<usize>,
    l_values: Vec<f64>,
    scratch: MemBuffer,
    work: Vec<f64>,
    ordering: ChosenOrdering,
    /// Storage position of each entry in the given order (for [`PrincipalCholesky::factor_values`]).
    pos: Vec<usize>,
}

impl std::fmt::Debug for PrincipalCholesky {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PrincipalCholesky")
            .field("n", &self.n)
            .field("matrix_nnz", &self.rows.len())
            .field("factor_nnz", &self.factor_nnz())
            .field("factored", &self.factored)
            .field("symbolic_analyses", &self.symbolic_analyses)
            .finish_non_exhaustive()
    }
}

/// The triangle of the pattern (rows, cols) under the inverse permutation `inv` (position of
/// each original index), upper (row <= col) or lower, in CSC with sorted rows; and the position
/// of each entry in it. Two stable counting sorts, O(n + nnz).
fn permuted_triangle(
    n: usize,
    rows: &[usize],
    cols: &[usize],
    inv: Option<&[usize]>,
    lower: bool,
) -> (SymbolicSparseColMat<usize>, Vec<usize>) {
    let nnz = rows.len();
    let map = |i: usize| inv.map_or(i, |p| p[i]);
    let rc: Vec<(usize, usize)> = rows
        .iter()
        .zip(cols)
        .map(|(&i, &j)| {
            let (a, b) = (map(i), map(j));
            if lower == (a >= b) {
                (a, b)
            } else {
                (b, a)
            }
        })
        .collect();
    let bucket = |key: &dyn Fn(usize) -> usize, order: &[usize]| -> (Vec<usize>, Vec<usize>) {
        let mut start = vec![0usize; n + 1];
        for &k in order {
            start[key(k) + 1] += 1;
        }
        for c in 0..n {
            start[c + 1] += start[c];
        }
        let ptr = start.clone();
        let mut out = vec![0usize; order.len()];
        for &k in order {
            let c = key(k);
            out[start[c]] = k;
            start[c] += 1;
        }
        (out, ptr)
    };
    let by_row = bucket(&|k| rc[k].0, &(0..nnz).collect::<Vec<_>>()).0;
    let (order, col_ptr) = bucket(&|k| rc[k].1, &by_row);
    let mut pos = vec![0usize; nnz];
    let mut row_idx = vec![0usize; nnz];
    for (p, &k) in order.iter().enumerate() {
        pos[k] = p;
        row_idx[p] = rc[k].0;
    }
    // Valid by construction: rows sorted within each column (stable sorts), unique, in range.
    (SymbolicSparseColMat::new_checked(n, n, col_ptr, None, row_idx), pos)
}

/// nnz(L) of the Cholesky factor of the upper-triangle `pattern` in its given order, and the
/// flops of its numeric factorisation (the sum of the squared column counts, up to a constant).
fn factor_counts(pattern: &SymbolicSparseColMat<usize>) -> Result<(usize, f64), LinearError> {
    let n = pattern.ncols();
    let mut etree = vec![0isize; n];
    let mut counts = vec![0usize; n];
    let mut buf = MemBuffer::try_new(
        faer::sparse::linalg::cholesky::simplicial::prefactorize_symbolic_cholesky_scratch::<usize>(
            n,
            pattern.compute_nnz(),
        ),
    )
    .map_err(|_| LinearError::Factorization("out of memory".into()))?;
    faer::sparse::linalg::cholesky::simplicial::prefactorize_symbolic_cholesky(
        &mut etree,
        &mut counts,
        pattern.as_ref(),
        MemStack::new(&mut buf),
    );
    let flops = counts.iter().map(|&c| (c as f64) * (c as f64)).sum();
    Ok((counts.iter().sum(), flops))
}

impl PrincipalCholesky {
    /// The solver for `lcp` when M is sparse and symmetric to `rel_tol` times max |M_ij|
    /// (checked entry by entry, O(nnz log)), `None` otherwise. No numeric work yet.
    pub fn new(lcp: &Lcp, rel_tol: f64) -> Option<Self> {
        Self::with_ordering(lcp, rel_tol, FillOrdering::Auto)
    }

    /// As [`PrincipalCholesky::new`] for M + shift I: every factorisation is of
    /// K = [[M_FF + shift I, 0], [0, I]] (a proximal regularisation, positive definite for
    /// positive semidefinite M and shift > 0).
    pub fn shifted(lcp: &Lcp, rel_tol: f64, shift: f64) -> Option<Self> {
        let mut chol = Self::new(lcp, rel_tol)?;
        for ((i, j), v) in chol.rows.iter().zip(&chol.cols).zip(chol.m_values.iter_mut()) {
            if i == j {
                *v += shift;
            }
        }
        Some(chol)
    }

    /// As [`PrincipalCholesky::new`] with the given fill-reducing ordering.
    pub fn with_ordering(lcp: &Lcp, rel_tol: f64, ordering: FillOrdering) -> Option<Self> {
        let Matrix::Sparse(m) = lcp.matrix() else {
            return None;
        };
        let n = lcp.n();
        let max = (0..n).flat_map(|i| m.val_of_row(i).iter().map(|v| v.abs())).fold(0.0, f64::max);
        let mut rows = Vec::new();
        let mut cols = Vec::new();
        let mut m_values = Vec::new();
        for j in 0..n {
            let mut has_diag = false;
            // Row j of the symmetric M is its column j; keep rows i <= j.
            for (&i, &v) in m.col_idx_of_row_raw(j).iter().zip(m.val_of_row(j)) {
                if (v - lcp.get(i, j)).abs() > rel_tol * max {
                    return None;
                }
                if i <= j {
                    has_diag |= i == j;
                    rows.push(i);
                    cols.push(j);
                    m_values.push(v);
                }
            }
            if !has_diag {
                rows.push(j);
                cols.push(j);
                m_values.push(0.0);
            }
        }
        Some(Self {
            n,
            rows,
            cols,
            m_values,
            ordering,
            analysis: None,
            factored: false,
            symbolic_analyses: 0,
            last_factor_seconds: 0.0,
            regularization: None,
            supernodal_threshold: 1.0,
            par: Par::Seq,
        })
    }

    /// The solver for a symmetric n x n matrix K given by its upper triangle pattern
    /// (`rows[k] <= cols[k]`, each entry once, every diagonal entry present), whose values
    /// come with each factorisation ([`PrincipalCholesky::factor_values`]). Used for Newton
    /// matrices that are not of the form M + diagonal (the velocity-space matrix of
    /// [`crate::linalg::gram_newton`]).
    pub fn from_pattern(n: usize, rows: Vec<usize>, cols: Vec<usize>) -> Self {
        debug_assert_eq!(rows.len(), cols.len());
        debug_assert!(rows.iter().zip(&cols).all(|(i, j)| i <= j && *j < n));
        let m_values = vec![0.0; rows.len()];
        Self {
            n,
            rows,
            cols,
            m_values,
            ordering: FillOrdering::Auto,
            analysis: None,
            factored: false,
            symbolic_analyses: 0,
            last_factor_seconds: 0.0,
            regularization: None,
            supernodal_threshold: 1.0,
            par: Par::Seq,
        }
    }

    /// Ordering, permuted pattern and symbolic factorisation (once per solve).
    fn analyse(&self) -> Result<CholeskyAnalysis, LinearError> {
        let n = self.n;
        let nnz = self.rows.len();
        let fail = |e: &dyn std::fmt::Debug| LinearError::Factorization(format!("{e:?}"));
        let (natural, natural_pos) = permuted_triangle(n, &self.rows, &self.cols, None, false);
        // (nnz(L), flops) of each candidate order; only `Auto` counts them.
        let (natural_fill, natural_flops) = match self.ordering {
            FillOrdering::Amd => (usize::MAX, f64::INFINITY),
            FillOrdering::Natural => (0, 0.0),
            FillOrdering::Auto => factor_counts(&natural)?,
        };
        let mut chosen = (None, natural, natural_pos);
        let mut chosen_ordering = ChosenOrdering::Given;
        if natural_fill as f64 > NATURAL_FILL_LIMIT * nnz as f64 {
            let mut fwd = vec![0usize; n];
            let mut inv = vec![0usize; n];
            let mut buf = MemBuffer::try_new(amd::order_scratch::<usize>(n, nnz))
                .map_err(|_| LinearError::Factorization("out of memory".into()))?;
            amd::order(
                &mut fwd,
                &mut inv,
                chosen.1.as_ref(),
                amd::Control::default(),
                MemStack::new(&mut buf),
            )
            .map_err(|e| fail(&e))?;
            let (pattern, pos) = permuted_triangle(n, &self.rows, &self.cols, Some(&inv), false);
            let (amd_fill, amd_flops) = match self.ordering {
                FillOrdering::Amd => (0, 0.0),
                _ => factor_counts(&pattern)?,
            };
            let mut best_flops = natural_flops;
            if amd_fill < natural_fill {
                chosen = (Some((fwd, inv)), pattern, pos);
                chosen_ordering = ChosenOrdering::MinimumDegree;
                best_flops = amd_flops;
            }
            if self.ordering == FillOrdering::Auto
                && n >= DISSECTION_MIN
                && best_flops >= DISSECTION_MIN_FLOPS
            {
                let graph = super::dissection::Graph::from_triangle(n, &self.rows, &self.cols);
                let fwd = super::dissection::order(&graph);
                let mut inv = vec![0usize; n];
                for (k, &v) in fwd.iter().enumerate() {
                    inv[v] = k;
                }
                let (pattern, pos) =
                    permuted_triangle(n, &self.rows, &self.cols, Some(&inv), false);
                if factor_counts(&pattern)?.1 < best_flops {
                    chosen = (Some((fwd, inv)), pattern, pos);
                    chosen_ordering = ChosenOrdering::NestedDissection;
                }
            }
        }
        let (perm, mut pattern, mut pos) = chosen;
        let symbolic = factorize_symbolic_cholesky(
            pattern.as_ref(),
            Side::Upper,
            SymmetricOrdering::Identity,
            CholeskySymbolicParams {
                supernodal_flop_ratio_threshold: SupernodalThreshold(self.supernodal_threshold),
                ..Default::default()
            },
        )
        .map_err(|e| fail(&e))?;
        // The supernodal kernel reads the lower triangle: store that one, so that no numeric
        // factorisation has to transpose its input.
        let side = match symbolic.raw() {
            SymbolicCholeskyRaw::Simplicial(_) => Side::Upper,
            SymbolicCholeskyRaw::Supernodal(_) => Side::Lower,
        };
        if side == Side::Lower {
            let inv = perm.as_ref().map(|(_, inv)| inv.as_slice());
            (pattern, pos) = permuted_triangle(n, &self.rows, &self.cols, inv, true);
        }
        let req = StackReq::any_of(&[
            symbolic.factorize_numeric_llt_scratch::<f64>(self.par, Default::default()),
            symbolic.solve_in_place_scratch::<f64>(1, self.par),
        ]);
        let scratch = MemBuffer::try_new(req)
            .map_err(|_| LinearError::Factorization("out of memory".into()))?;
        let mut rows = vec![0; nnz];
        let mut cols = vec![0; nnz];
        let mut m_values = vec![0.0; nnz];
        for (k, &p) in pos.iter().enumerate() {
            rows[p] = self.rows[k];
            cols[p] = self.cols[k];
            m_values[p] = self.m_values[k];
        }
        Ok(CholeskyAnalysis {
            pos,
            ordering: chosen_ordering,
            perm: perm.map(|(fwd, _)| fwd),
            rows,
            cols,
            m_values,
            pattern,
            side,
            values: vec![0.0; nnz],
            l_values: vec![0.0; symbolic.len_val()],
            symbolic,
            scratch,
            work: vec![0.0; n],
        })
    }

    /// Runs the ordering and the symbolic analysis now (they otherwise run at the first
    /// factorisation), so that [`PrincipalCholesky::factor_nnz`] can be read before any
    /// numeric work.
    pub fn analyse_now(&mut self) -> Result<(), LinearError> {
        if self.analysis.is_none() {
            self.analysis = Some(self.analyse()?);
            self.symbolic_analyses += 1;
        }
        Ok(())
    }

    /// Forms K for the free set (`free[i]`: row i of the system is row i of M) and factorises
    /// it. Counts one factorisation. Fails when K is not numerically positive definite.
    pub fn factor(&mut self, free: &[bool], ctx: &mut SolveContext<'_>) -> Result<(), LinearError> {
        debug_assert_eq!(free.len(), self.n);
        self.factor_entries(ctx, |i, j, m| {
            if free[i] && free[j] {
                m
            } else if i == j {
                1.0
            } else {
                0.0
            }
        })
    }

    /// Forms K = M + diag(d) (every row free; with [`PrincipalCholesky::shifted`], the
    /// shift is added too) and factorises it: the Newton matrix M + Z⁻¹W of an interior-point method,
    /// positive definite for positive semidefinite M and d > 0. Counts one factorisation.
    /// Fails when K is not numerically positive definite.
    pub fn factor_plus_diagonal(
        &mut self,
        d: &[f64],
        ctx: &mut SolveContext<'_>,
    ) -> Result<(), LinearError> {
        debug_assert_eq!(d.len(), self.n);
        self.factor_entries(ctx, |i, j, m| if i == j { m + d[i] } else { m })
    }

    /// Factorises K with the given values of the entries of the pattern, in the order given
    /// to [`PrincipalCholesky::from_pattern`] (or of the stored triangle of M). Counts one
    /// factorisation. Fails when K is not numerically positive definite.
    pub fn factor_values(
        &mut self,
        values: &[f64],
        ctx: &mut SolveContext<'_>,
    ) -> Result<(), LinearError> {
        if values.len() != self.rows.len() {
            return Err(LinearError::Factorization(format!(
                "{} values for a pattern of {} entries",
                values.len(),
                self.rows.len()
            )));
        }
        let start = std::time::Instant::now();
        let an = self.analysed()?;
        for (&p, &v) in an.pos.iter().zip(values) {
            an.values[p] = v;
        }
        self.numeric(ctx, start)
    }

    /// The analysis, computed now if it was not yet; marks the factorisation stale.
    fn analysed(&mut self) -> Result<&mut CholeskyAnalysis, LinearError> {
        self.factored = false;
        if self.analysis.is_none() {
            self.analysis = Some(self.analyse()?);
            self.symbolic_analyses += 1;
        }
        let Some(an) = &mut self.analysis else { unreachable!("the analysis was just stored") };
        Ok(an)
    }

    /// Factorises K whose entry (i, j) is `entry(i, j, M_ij)` on the stored pattern.
    fn factor_entries(
        &mut self,
        ctx: &mut SolveContext<'_>,
        entry: impl Fn(usize, usize, f64) -> f64,
    ) -> Result<(), LinearError> {
        let start = std::time::Instant::now();
        let an = self.analysed()?;
        for (p, v) in an.values.iter_mut().enumerate() {
            *v = entry(an.rows[p], an.cols[p], an.m_values[p]);
        }
        self.numeric(ctx, start)
    }

    /// The numeric factorisation of the values in storage (started at `start`).
    fn numeric(
        &mut self,
        ctx: &mut SolveContext<'_>,
        start: std::time::Instant,
    ) -> Result<(), LinearError> {
        let Some(an) = &mut self.analysis else {
            return Err(LinearError::Factorization("no analysis".into()));
        };
        ctx.factorizations += 1;
        let a = SparseColMatRef::new(an.pattern.as_ref(), &an.values);
        let regularization = match self.regularization {
            Some((epsilon, delta)) => LltRegularization {
                dynamic_regularization_delta: delta,
                dynamic_regularization_epsilon: epsilon,
            },
            None => LltRegularization::default(),
        };
        an.symbolic
            .factorize_numeric_llt(
                &mut an.l_values,
                a,
                an.side,
                regularization,
                self.par,
                MemStack::new(&mut an.scratch),
                Default::default(),
            )
            .map_err(|e| LinearError::Factorization(format!("{e:?}")))?;
        self.factored = true;
        self.last_factor_seconds = start.elapsed().as_secs_f64();
        Ok(())
    }

    /// Dynamic regularisation of the numeric factorisations: a pivot below `epsilon` (or
    /// negative) is replaced by `delta` instead of failing (faer's `LltRegularization`).
    /// For a matrix whose pivots are known to be at least `epsilon` in exact arithmetic
    /// (I + G' E⁻¹ G: at least 1), a smaller computed one is round-off.
    pub fn set_regularization(&mut self, epsilon: f64, delta: f64) {
        self.regularization = Some((epsilon, delta));
    }

    /// Multiplies faer's threshold for choosing the supernodal factorisation over the
    /// simplicial one (faer takes the supernodal one when the flops of the factorisation
    /// exceed 40 times nnz(L); 1 keeps that rule, 0 always takes the supernodal one). Takes
    /// effect at the next symbolic analysis.
    pub fn set_supernodal_threshold(&mut self, multiplier: f64) {
        self.supernodal_threshold = multiplier;
        self.analysis = None;
        self.factored = false;
    }

    /// Threads of the numeric factorisations and solves: 1 (the default) runs them
    /// sequentially, k > 1 on k threads of rayon's global pool (faer's `Par::Rayon`; the
    /// supernodal kernel splits its dense updates, the simplicial one stays sequential).
    /// Parallel sums may round differently from run to run. Takes effect at the next
    /// symbolic analysis (the scratch is sized for it).
    pub fn set_threads(&mut self, threads: usize) {
        self.par = if threads <= 1 { Par::Seq } else { Par::rayon(threads) };
        self.analysis = None;
        self.factored = false;
    }

    /// Whether the symbolic analysis chose the supernodal factorisation (None before it).
    pub fn is_supernodal(&self) -> Option<bool> {
        self.analysis
            .as_ref()
            .map(|a| matches!(a.symbolic.raw(), SymbolicCholeskyRaw::Supernodal(_)))
    }

    /// Wall time of the last factorisation in seconds (0 before the first): what the next
    /// one is expected to take, for callers that test their time limit before factorising.
    pub fn last_factor_seconds(&self) -> f64 {
        self.last_factor_seconds
    }

    /// Solves K x = rhs in place with the last factorisation.
    pub fn solve(&mut self, rhs: &mut [f64]) -> Result<(), LinearError> {
        let (true, Some(an)) = (self.factored, &mut self.analysis) else {
            return Err(LinearError::Factorization("no factorisation".into()));
        };
        let n = rhs.len();
        let llt = LltRef::new(&an.symbolic, &an.l_values);
        match &an.perm {
            Some(fwd) => {
                for (wk, &p) in an.work.iter_mut().zip(fwd) {
                    *wk = rhs[p];
                }
                llt.solve_in_place_with_conj(
                    Conj::No,
                    MatMut::from_column_major_slice_mut(&mut an.work, n, 1),
                    self.par,
                    MemStack::new(&mut an.scratch),
                );
                for (wk, &p) in an.work.iter().zip(fwd) {
                    rhs[p] = *wk;
                }
            }
            None => llt.solve_in_place_with_conj(
                Conj::No,
                MatMut::from_column_major_slice_mut(rhs, n, 1),
                self.par,
                MemStack::new(&mut an.scratch),
            ),
        }
        if rhs.iter().all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err(LinearError::NonFinite)
        }
    }

    /// Symbolic analyses done so far (one per solve: the pattern is fixed).
    pub fn symbolic_analyses(&self) -> usize {
        self.symbolic_analyses
    }

    /// Stored entries of the Cholesky factor L (after the analysis; 0 before).
    pub fn factor_nnz(&self) -> usize {
        self.analysis.as_ref().map_or(0, |a| a.l_values.len())
    }

    /// Stored entries of the upper triangle of K (the input of the factorisation).
    pub fn matrix_nnz(&self) -> usize {
        self.rows.len()
    }

    /// The order the analysis chose (`None` before the analysis).
    pub fn ordering_used(&self) -> Option<ChosenOrdering> {
        self.analysis.as_ref().map(|a| a.ordering)
    }
}

/// x -> a∘x + b∘(M x), one counted matvec.
struct ScaledOperator<'a> {
    lcp: &'a Lcp,
    a: &'a [f64],
    b: &'a [f64],
}

impl ScaledOperator<'_> {
    fn apply(&self, x: &[f64], y: &mut [f64], ctx: &mut SolveContext<'_>) {
        ctx.mul_vec(self.lcp, x, y);
        for i in 0..x.len() {
            y[i] = self.a[i] * x[i] + self.b[i] * y[i];
        }
    }
}

fn dot(x: &[f64], y: &[f64]) -> f64 {
    x.iter().zip(y).map(|(a, b)| a * b).sum()
}

fn norm(x: &[f64]) -> f64 {
    dot(x, x).sqrt()
}

/// Right-preconditioned restarted GMRES(m) (Saad 2003, *Iterative Methods for Sparse Linear
/// Systems*, Alg. 9.5) from x = 0; `rhs` is overwritten by the solution.
fn gmres(
    op: &ScaledOperator<'_>,
    inv_diag: &[f64],
    rhs: &mut [f64],
    rel_tol: f64,
    settings: KrylovSettings,
    ctx: &mut SolveContext<'_>,
) -> Result<(), LinearError> {
    let n = rhs.len();
    let b = rhs.to_vec();
    let bnorm = norm(&b);
    let mut x = vec![0.0; n];
    if bnorm == 0.0 {
        rhs.copy_from_slice(&x);
        return Ok(());
    }
    let m = settings.restart.max(1).min(n.max(1));
    let mut r = b.clone();
    let mut used = 0;
    let mut rnorm = bnorm;
    let mut tmp = vec![0.0; n];
    let mut pz = vec![0.0; n];
    while rnorm > rel_tol * bnorm && used < settings.max_iter {
        let mut v: Vec<Vec<f64>> = Vec::with_capacity(m + 1);
        v.push(r.iter().map(|ri| ri / rnorm).collect());
        let mut h = vec![vec![0.0; m]; m + 1];
        let (mut cs, mut sn) = (vec![0.0; m], vec![0.0; m]);
        let mut g = vec![0.0; m + 1];
        g[0] = rnorm;
        let mut k_done = 0;
        for k in 0..m {
            if used >= settings.max_iter {
                break;
            }
            for i in 0..n {
                pz[i] = inv_diag[i] * v[k][i];
            }
            op.apply(&pz, &mut tmp, ctx);
            used += 1;
            // Modified Gram–Schmidt.
            for (j, vj) in v.iter().enumerate() {
                let hjk = dot(&tmp, vj);
                h[j][k] = hjk;
                for i in 0..n {
                    tmp[i] -= hjk * vj[i];
                }
            }
            let hn = norm(&tmp);
            h[k + 1][k] = hn;
            for j in 0..k {
                let t = cs[j] * h[j][k] + sn[j] * h[j + 1][k];
                h[j + 1][k] = -sn[j] * h[j][k] + cs[j] * h[j + 1][k];
                h[j][k] = t;
            }
            let denom = h[k][k].hypot(h[k + 1][k]);
            if denom == 0.0 {
                break;
            }
            cs[k] = h[k][k] / denom;
            sn[k] = h[k + 1][k] / denom;
            h[k][k] = denom;
            h[k + 1][k] = 0.0;
            g[k + 1] = -sn[k] * g[k];
            g[k] *= cs[k];
            k_done = k + 1;
            if g[k + 1].abs() <= rel_tol * bnorm || hn == 0.0 {
                break;
            }
            v.push(tmp.iter().map(|t| t / hn).collect());
        }
        if k_done == 0 {
            break;
        }
        // Back substitution for y, then x += M^-1 V y.
        let mut y = vec![0.0; k_done];
        for i in (0..k_done).rev() {
            let s: f64 = (i + 1..k_done).map(|j| h[i][j] * y[j]).sum();
            y[i] = (g[i] - s) / h[i][i];
        }
        pz.iter_mut().for_each(|p| *p = 0.0);
        for (j, yj) in y.iter().enumerate() {
            for i in 0..n {
                pz[i] += yj * v[j][i];
            }
        }
        for i in 0..n {
            x[i] += inv_diag[i] * pz[i];
        }
        // True residual for the restart.
        op.apply(&x, &mut tmp, ctx);
        for i in 0..n {
            r[i] = b[i] - tmp[i];
        }
        rnorm = norm(&r);
    }
    rhs.copy_from_slice(&x);
    let achieved = rnorm / bnorm;
    if achieved <= rel_tol {
        Ok(())
    } else {
        Err(LinearError::KrylovNotConverged { achieved, requested: rel_tol })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn residual(lcp: &Lcp, a: &[f64], b: &[f64], x: &[f64], r: &[f64]) -> f64 {
        let mx = lcp.w_of(x);
        let q = lcp.q();
        let mut s = 0.0;
        for i in 0..x.len() {
            let ax = a[i] * x[i] + b[i] * (mx[i] - q[i]);
            s += (ax - r[i]).powi(2);
        }
        s.sqrt() / norm(r)
    }

    fn check_backend(lcp: &Lcp, linear: LinearSolver) {
        let n = lcp.n();
        let a: Vec<f64> = (0..n).map(|i| 0.5 + (i % 3) as f64).collect();
        let b: Vec<f64> = (0..n).map(|i| 1.0 - 0.1 * (i % 2) as f64).collect();
        let r: Vec<f64> = (0..n).map(|i| (i as f64).sin()).collect();
        let mut sys =
            JacobianSystem::new(lcp, linear, KrylovSettings { restart: 20, max_iter: 400 });
        let mut ctx = SolveContext::new(1e-10, 10);
        sys.factor(lcp, &a, &b, &mut ctx).expect("factor");
        let mut x = r.clone();
        sys.solve(lcp, &mut x, 1e-12, &mut ctx).expect("solve");
        assert!(residual(lcp, &a, &b, &x, &r) < 1e-10, "{linear:?}");
        // Refactorisation with other values reuses the symbolic analysis.
        sys.factor(lcp, &b, &a, &mut ctx).expect("refactor");
        let mut x = r.clone();
        sys.solve(lcp, &mut x, 1e-12, &mut ctx).expect("solve");
        assert!(residual(lcp, &b, &a, &x, &r) < 1e-10, "{linear:?}");
        let expected = usize::from(lcp.is_sparse() && linear == LinearSolver::Direct);
        assert_eq!(sys.symbolic_analyses(), expected, "one symbolic analysis for two numeric");
    }

    #[test]
    fn dense_sparse_and_gmres_solve_the_scaled_system() {
        let dense = crate::generate::random_spd(12, 3);
        let sparse = {
            let s = dense.to_sparse();
            let mut rows = Vec::new();
            let mut cols = Vec::new();
            let mut vals = Vec::new();
            for i in 0..12 {
                for (&j, &v) in s.col_idx_of_row_raw(i).iter().zip(s.val_of_row(i)) {
                    if i == j || (i + j) % 3 == 0 {
                        rows.push(i);
                        cols.push(j);
                        vals.push(v);
                    }
                }
            }
            Lcp::from_coo(12, &rows, &cols, &vals, dense.q().to_vec()).expect("valid")
        };
        check_backend(&dense, LinearSolver::Direct);
        check_backend(&sparse, LinearSolver::Direct);
        check_backend(&dense, LinearSolver::Gmres);
        check_backend(&sparse, LinearSolver::Gmres);
    }

    #[test]
    fn sparse_pattern_without_diagonal_entries_gets_them() {
        // M = [[0, 1], [1, 0]] has no stored diagonal; A = I + M must still factor.
        let lcp = Lcp::from_coo(2, &[0, 1], &[1, 0], &[1.0, 1.0], vec![1.0, 1.0]).expect("ok");
        let mut sys = JacobianSystem::new(
            &lcp,
            LinearSolver::Direct,
            KrylovSettings { restart: 5, max_iter: 5 },
        );
        let mut ctx = SolveContext::new(1e-10, 10);
        sys.factor(&lcp, &[2.0, 2.0], &[1.0, 1.0], &mut ctx).expect("factor");
        let mut x = vec![3.0, 3.0];
        sys.solve(&lcp, &mut x, 1e-12, &mut ctx).expect("solve");
        assert!((x[0] - 1.0).abs() < 1e-14 && (x[1] - 1.0).abs() < 1e-14);
        assert_eq!(ctx.factorizations, 1);
    }

    /// K = [[M_FF, 0], [0, I]] solved by the principal Cholesky agrees with the unsymmetric
    /// LU of (D_a + D_b M) on the same free set after eliminating d_A, under every ordering;
    /// the symbolic analysis is done once for several numeric factorisations.
    #[test]
    fn principal_cholesky_matches_the_eliminated_min_map_system() {
        let lcp = crate::generate::delassus_like(40, 3, 10.0, 5);
        let n = lcp.n();
        let q = lcp.q();
        for ordering in [FillOrdering::Auto, FillOrdering::Amd, FillOrdering::Natural] {
            let mut chol = PrincipalCholesky::with_ordering(&lcp, 1e-12, ordering).expect("sym");
            let mut ctx = SolveContext::new(1e-10, 10);
            for shift in 0..3 {
                let free: Vec<bool> = (0..n).map(|i| (i + shift) % 3 != 0).collect();
                chol.factor(&free, &mut ctx).expect("positive definite");
                let mut x: Vec<f64> = (0..n).map(|i| if free[i] { -q[i] } else { 0.0 }).collect();
                chol.solve(&mut x).expect("solve");
                // Reference: rows of I on A (x_A = 0), rows of M on F ((Mx)_F = -q_F).
                let a: Vec<f64> = free.iter().map(|f| if *f { 0.0 } else { 1.0 }).collect();
                let b: Vec<f64> = free.iter().map(|f| if *f { 1.0 } else { 0.0 }).collect();
                let mut sys = JacobianSystem::new(
                    &lcp,
                    LinearSolver::Direct,
                    KrylovSettings { restart: 1, max_iter: 1 },
                );
                sys.factor(&lcp, &a, &b, &mut ctx).expect("lu");
                let mut y: Vec<f64> = (0..n).map(|i| if free[i] { -q[i] } else { 0.0 }).collect();
                sys.solve(&lcp, &mut y, 0.0, &mut ctx).expect("lu solve");
                let diff: f64 = x.iter().zip(&y).map(|(u, v)| (u - v).powi(2)).sum::<f64>().sqrt();
                assert!(diff <= 1e-8 * norm(&y), "{ordering:?}: {diff:e} vs {:e}", norm(&y));
            }
            assert_eq!(chol.symbolic_analyses(), 1, "{ordering:?}");
            assert!(chol.factor_nnz() >= chol.matrix_nnz());
            let expected = if ordering == FillOrdering::Amd {
                ChosenOrdering::MinimumDegree
            } else {
                ChosenOrdering::Given
            };
            assert_eq!(chol.ordering_used(), Some(expected), "{ordering:?}");
        }
    }

    #[test]
    fn nested_dissection_is_kept_on_a_3d_lattice_and_solves_it() {
        // 7-point Laplacian plus 0.1 I on a 22^3 lattice (n = 10 648), numbered row by row: the
        // given order is banded but costly, and nested dissection beats minimum degree there.
        let a = 22;
        let n = a * a * a;
        let id = |x: usize, y: usize, z: usize| (x * a + y) * a + z;
        let (mut rows, mut cols, mut vals) = (Vec::new(), Vec::new(), Vec::new());
        for x in 0..a {
            for y in 0..a {
                for z in 0..a {
                    let i = id(x, y, z);
                    rows.push(i);
                    cols.push(i);
                    vals.push(6.1);
                    for j in [
                        (x + 1 < a).then(|| id(x + 1, y, z)),
                        (y + 1 < a).then(|| id(x, y + 1, z)),
                        (z + 1 < a).then(|| id(x, y, z + 1)),
                    ]
                    .into_iter()
                    .flatten()
                    {
                        rows.push(i);
                        cols.push(j);
                        vals.push(-1.0);
                    }
                }
            }
        }
        let mut chol = PrincipalCholesky::from_pattern(n, rows.clone(), cols.clone());
        let mut ctx = SolveContext::new(1e-10, 10);
        chol.factor_values(&vals, &mut ctx).expect("positive definite");
        assert_eq!(chol.ordering_used(), Some(ChosenOrdering::NestedDissection));
        let b: Vec<f64> = (0..n).map(|i| ((i * 7919) % 13) as f64 - 6.0).collect();
        let mut x = b.clone();
        chol.solve(&mut x).expect("solve");
        // Residual of K x = b from the triangle.
        let mut r = b.clone();
        for ((&i, &j), &v) in rows.iter().zip(&cols).zip(&vals) {
            r[i] -= v * x[j];
            if i != j {
                r[j] -= v * x[i];
            }
        }
        assert!(norm(&r) <= 1e-10 * norm(&b), "{:e}", norm(&r));
    }

    #[test]
    fn principal_cholesky_declines_dense_or_nonsymmetric_and_fails_on_indefinite() {
        assert!(PrincipalCholesky::new(&crate::generate::random_spd(5, 1), 1e-12).is_none());
        let lcp =
            Lcp::from_coo(2, &[0, 0, 1], &[0, 1, 1], &[2.0, 1.0, 2.0], vec![1.0, 1.0]).expect("ok");
        assert!(PrincipalCholesky::new(&lcp, 1e-12).is_none(), "M_01 = 1, M_10 = 0");
        // Symmetric indefinite: [[1, 2], [2, 1]].
        let lcp =
            Lcp::from_coo(2, &[0, 0, 1, 1], &[0, 1, 0, 1], &[1.0, 2.0, 2.0, 1.0], vec![1.0, 1.0])
                .expect("ok");
        let mut chol = PrincipalCholesky::new(&lcp, 1e-12).expect("symmetric");
        let mut ctx = SolveContext::new(1e-10, 10);
        assert!(chol.factor(&[true, true], &mut ctx).is_err());
        let mut x = vec![1.0, 1.0];
        assert!(chol.solve(&mut x).is_err(), "no solve after a failed factorisation");
        // With one index fixed, K = diag(1, 1) is definite.
        chol.factor(&[true, false], &mut ctx).expect("definite");
        chol.solve(&mut x).expect("solve");
        assert!((x[0] - 1.0).abs() < 1e-15 && (x[1] - 1.0).abs() < 1e-15);
    }
}
