//! The linear complementarity problem LCP(M, q): validated data, dense or sparse M.
//!
//! Find z, w in R^n with w = Mz + q, z >= 0, w >= 0 and z'w = 0 (Cottle, Pang, Stone 1992,
//! *The Linear Complementarity Problem*, §1.1).

use std::sync::OnceLock;

use faer::sparse::{SparseRowMat, Triplet};
use faer::Mat;

use crate::gram::{GramError, GramMatrix, RowCache};

/// Bytes (16 per entry: index and value) a Gram form's entries may take while the driver's
/// row test keeps them from its first scan for its second (256 MiB; rows beyond it are
/// computed from G again). Measured on the 3D box stack at n = 10^4 (`gpcg`, matrix-free): the
/// test took 38 % of the solve with two scans from G.
pub const ROW_TEST_CACHE_BYTES: usize = 256 << 20;

/// Why an [`Lcp`] could not be built. Indices are zero-based.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProblemError {
    /// M is not square.
    #[error("M is {rows}x{cols}, it must be square")]
    NotSquare {
        /// Number of rows of M.
        rows: usize,
        /// Number of columns of M.
        cols: usize,
    },
    /// q does not have the size of M.
    #[error("q has {q_len} entries but M is {n}x{n}")]
    SizeMismatch {
        /// Size of M.
        n: usize,
        /// Length of q.
        q_len: usize,
    },
    /// A dense row does not have n entries.
    #[error("row {row} of M has {len} entries, expected {n}")]
    RaggedRow {
        /// Row index.
        row: usize,
        /// Its length.
        len: usize,
        /// Expected length.
        n: usize,
    },
    /// An entry of M is NaN or infinite.
    #[error("M[{row}][{col}] = {value} is not finite")]
    NonFiniteMatrix {
        /// Row index.
        row: usize,
        /// Column index.
        col: usize,
        /// The offending value.
        value: f64,
    },
    /// An entry of q is NaN or infinite.
    #[error("q[{index}] = {value} is not finite")]
    NonFiniteQ {
        /// Index into q.
        index: usize,
        /// The offending value.
        value: f64,
    },
    /// A coordinate entry lies outside the matrix.
    #[error("coordinate entry {entry} at ({row}, {col}) is outside the {n}x{n} matrix")]
    IndexOutOfRange {
        /// Position of the entry in the coordinate list.
        entry: usize,
        /// Its row.
        row: usize,
        /// Its column.
        col: usize,
        /// Size of M.
        n: usize,
    },
    /// Coordinate arrays of different lengths.
    #[error("coordinate arrays differ in length: row {rows}, col {cols}, val {vals}")]
    CooLengths {
        /// Length of the row array.
        rows: usize,
        /// Length of the column array.
        cols: usize,
        /// Length of the value array.
        vals: usize,
    },
    /// faer refused the sparse structure.
    #[error("sparse matrix construction failed: {0}")]
    Sparse(String),
    /// The factor G or the diagonal D of a Gram form M = G G' + D is invalid.
    #[error("Gram form M = G G' + D: {0}")]
    Gram(#[from] GramError),
}

/// The matrix M of an LCP, dense (faer) or sparse in compressed rows (faer CSR).
#[derive(Debug, Clone)]
pub enum Matrix {
    /// Dense storage (column-major, faer).
    Dense(Mat<f64>),
    /// Sparse compressed-row storage (faer), no explicit duplicates.
    Sparse(SparseRowMat<usize, f64>),
}

impl Matrix {
    /// Number of rows (= columns, once validated).
    pub fn nrows(&self) -> usize {
        match self {
            Matrix::Dense(m) => m.nrows(),
            Matrix::Sparse(m) => m.nrows(),
        }
    }

    /// Number of columns.
    pub fn ncols(&self) -> usize {
        match self {
            Matrix::Dense(m) => m.ncols(),
            Matrix::Sparse(m) => m.ncols(),
        }
    }
}

/// One entry's part in [`Lcp::perturbation_reach`].
#[allow(clippy::too_many_arguments)]
#[inline]
fn reach_add(
    c: &[f64],
    z: &[f64],
    scale: f64,
    inc: &mut [f64],
    dec: &mut [f64],
    i: usize,
    j: usize,
    v: f64,
) {
    if v == 0.0 {
        return;
    }
    let full = v.abs() / c[j] * scale;
    let limited = v.abs() * z[j].max(0.0).min(scale / c[j]);
    if v > 0.0 {
        inc[i] += full;
        dec[i] += limited;
    } else {
        inc[i] += limited;
        dec[i] += full;
    }
}

/// One entry's part in [`Lcp::lifted_rows`].
#[allow(clippy::too_many_arguments)]
#[inline]
fn lift_add(
    c: &[f64],
    z: &[f64],
    scale: f64,
    w_up: &mut [f64],
    s_up: &mut [f64],
    i: usize,
    j: usize,
    v: f64,
) {
    if v == 0.0 {
        return;
    }
    let zj = z[j].max(0.0);
    let step = scale / c[j];
    let lifted = if v > 0.0 { zj + step } else { zj - zj.min(step) };
    w_up[i] += v * lifted;
    s_up[i] += v.abs() * lifted;
}

/// How many products with M or M' a problem has performed ([`Lcp::products`]). A clone
/// starts again from zero.
#[derive(Debug, Default)]
struct Products(std::sync::atomic::AtomicUsize);

impl Clone for Products {
    fn clone(&self) -> Self {
        Self::default()
    }
}

/// How an [`Lcp`] holds M: stored entries, or the Gram form G G' + D with M assembled only
/// when a caller asks for its entries ([`Lcp::matrix`]).
#[derive(Debug, Clone)]
enum Storage {
    Stored(Matrix),
    Gram { gram: Box<GramMatrix>, assembled: OnceLock<Matrix> },
}

/// A validated LCP(M, q): M square, q of matching size, every entry finite.
///
/// M is stored dense or sparse ([`Matrix`]), or held matrix-free as M = G G' + D
/// ([`Lcp::from_gram`], a [`GramMatrix`]): products, the diagonal, single entries and the
/// merit's entry scans then run on G and D, and the sweeps of `pgs`, `psor`, `sgs` and the
/// products of `apgd` never form M. A solver that reads M's entries through [`Lcp::matrix`]
/// gets M assembled once (sparse, the same entries bit for bit) and kept.
#[derive(Debug, Clone)]
pub struct Lcp {
    m: Storage,
    q: Vec<f64>,
    products: Products,
    /// Optional name (file stem, registry id).
    pub name: Option<String>,
    /// Optional provenance (citation, origin file).
    pub source: Option<String>,
}

impl Lcp {
    /// Validates M and q and builds the problem. n = 0 is valid.
    pub fn new(m: Matrix, q: Vec<f64>) -> Result<Self, ProblemError> {
        let (rows, cols) = (m.nrows(), m.ncols());
        if rows != cols {
            return Err(ProblemError::NotSquare { rows, cols });
        }
        if q.len() != rows {
            return Err(ProblemError::SizeMismatch { n: rows, q_len: q.len() });
        }
        if let Some((index, &value)) = q.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(ProblemError::NonFiniteQ { index, value });
        }
        match &m {
            Matrix::Dense(d) => {
                for j in 0..cols {
                    for i in 0..rows {
                        let value = d[(i, j)];
                        if !value.is_finite() {
                            return Err(ProblemError::NonFiniteMatrix { row: i, col: j, value });
                        }
                    }
                }
            }
            Matrix::Sparse(s) => {
                for i in 0..rows {
                    let cols_i = s.col_idx_of_row_raw(i);
                    for (&j, &value) in cols_i.iter().zip(s.val_of_row(i)) {
                        if !value.is_finite() {
                            return Err(ProblemError::NonFiniteMatrix { row: i, col: j, value });
                        }
                    }
                }
            }
        }
        Ok(Self {
            m: Storage::Stored(m),
            q,
            products: Products::default(),
            name: None,
            source: None,
        })
    }

    /// The matrix-free problem LCP(G G' + D, q) (symmetric positive semidefinite by
    /// construction); q must have one finite entry per row of G.
    pub fn from_gram(gram: GramMatrix, q: Vec<f64>) -> Result<Self, ProblemError> {
        let n = gram.n();
        if q.len() != n {
            return Err(ProblemError::SizeMismatch { n, q_len: q.len() });
        }
        if let Some((index, &value)) = q.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(ProblemError::NonFiniteQ { index, value });
        }
        let m = Storage::Gram { gram: Box::new(gram), assembled: OnceLock::new() };
        Ok(Self { m, q, products: Products::default(), name: None, source: None })
    }

    /// The Gram form M = G G' + D, when the problem holds M that way.
    pub fn gram(&self) -> Option<&GramMatrix> {
        match &self.m {
            Storage::Gram { gram, .. } => Some(gram),
            Storage::Stored(_) => None,
        }
    }

    /// Dense problem from rows of M (rows are rows).
    pub fn from_dense_rows(rows: &[Vec<f64>], q: Vec<f64>) -> Result<Self, ProblemError> {
        let n = rows.len();
        if let Some((row, r)) = rows.iter().enumerate().find(|(_, r)| r.len() != n) {
            if r.len() != n && n > 0 {
                return Err(ProblemError::RaggedRow { row, len: r.len(), n });
            }
        }
        let m = Mat::from_fn(n, n, |i, j| rows[i][j]);
        Self::new(Matrix::Dense(m), q)
    }

    /// Dense problem from an owned faer matrix.
    pub fn from_dense(m: Mat<f64>, q: Vec<f64>) -> Result<Self, ProblemError> {
        Self::new(Matrix::Dense(m), q)
    }

    /// Sparse problem from coordinates (duplicates are summed).
    pub fn from_coo(
        n: usize,
        row: &[usize],
        col: &[usize],
        val: &[f64],
        q: Vec<f64>,
    ) -> Result<Self, ProblemError> {
        if row.len() != col.len() || row.len() != val.len() {
            return Err(ProblemError::CooLengths {
                rows: row.len(),
                cols: col.len(),
                vals: val.len(),
            });
        }
        let mut triplets = Vec::with_capacity(row.len());
        for (entry, ((&r, &c), &v)) in row.iter().zip(col).zip(val).enumerate() {
            if r >= n || c >= n {
                return Err(ProblemError::IndexOutOfRange { entry, row: r, col: c, n });
            }
            if !v.is_finite() {
                return Err(ProblemError::NonFiniteMatrix { row: r, col: c, value: v });
            }
            triplets.push(Triplet::new(r, c, v));
        }
        let m = SparseRowMat::<usize, f64>::try_new_from_triplets(n, n, &triplets)
            .map_err(|e| ProblemError::Sparse(format!("{e:?}")))?;
        Self::new(Matrix::Sparse(m), q)
    }

    /// Sets the name (builder style).
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Sets the provenance (builder style).
    pub fn with_source(mut self, source: impl Into<String>) -> Self {
        self.source = Some(source.into());
        self
    }

    /// Size n.
    pub fn n(&self) -> usize {
        self.q.len()
    }

    /// The vector q.
    pub fn q(&self) -> &[f64] {
        &self.q
    }

    /// The matrix M. A Gram-form M is assembled (sparse) on the first call and kept: the
    /// solvers that read entries call this, the matrix-free ones use [`Lcp::gram`]. The
    /// driver checks the assembled size against the memory budget first
    /// ([`crate::memory::check_assembly`]); other callers (writers) assemble unchecked.
    pub fn matrix(&self) -> &Matrix {
        match &self.m {
            Storage::Stored(m) => m,
            Storage::Gram { gram, assembled } => {
                assembled.get_or_init(|| Matrix::Sparse(gram.assemble()))
            }
        }
    }

    /// True when M is a Gram form that has been assembled (a solver or writer asked
    /// [`Lcp::matrix`] for its entries); false for stored M and an untouched Gram form.
    pub fn gram_is_assembled(&self) -> bool {
        matches!(&self.m, Storage::Gram { assembled, .. } if assembled.get().is_some())
    }

    /// The stored M, or None for a Gram form (which has no stored entries).
    fn stored(&self) -> Result<&Matrix, &GramMatrix> {
        match &self.m {
            Storage::Stored(m) => Ok(m),
            Storage::Gram { gram, .. } => Err(gram),
        }
    }

    /// True when M is stored sparse or held as a (sparse) Gram form.
    pub fn is_sparse(&self) -> bool {
        !matches!(self.m, Storage::Stored(Matrix::Dense(_)))
    }

    /// Number of stored nonzeros (dense: entries that are not exactly zero; Gram form: the
    /// structural nonzeros of the assembled M, counted without forming it).
    pub fn nnz(&self) -> usize {
        let m = match self.stored() {
            Ok(m) => m,
            Err(g) => return g.assembled_nnz(),
        };
        match m {
            Matrix::Dense(d) => {
                let mut count = 0;
                for j in 0..d.ncols() {
                    count += d.col(j).iter().filter(|v| **v != 0.0).count();
                }
                count
            }
            Matrix::Sparse(s) => s.compute_nnz(),
        }
    }

    /// Entry `M[i][j]`.
    pub fn get(&self, i: usize, j: usize) -> f64 {
        let m = match self.stored() {
            Ok(m) => m,
            Err(g) => return g.entry(i, j),
        };
        match m {
            Matrix::Dense(d) => d[(i, j)],
            Matrix::Sparse(s) => {
                let cols = s.col_idx_of_row_raw(i);
                match cols.binary_search(&j) {
                    Ok(k) => s.val_of_row(i)[k],
                    Err(_) => 0.0,
                }
            }
        }
    }

    /// Diagonal of M.
    pub fn diag(&self) -> Vec<f64> {
        if let Some(g) = self.gram() {
            return g.diagonal().to_vec();
        }
        (0..self.n()).map(|i| self.get(i, i)).collect()
    }

    /// Products with M or M' performed through [`Lcp::mul_vec`] and
    /// [`Lcp::mul_vec_transpose`] since the problem was built (any caller, any thread): an
    /// independent count against which the counters a solver reports are tested. The driver's
    /// own recomputation of w and the checks of certificates are not counted.
    pub fn products(&self) -> usize {
        self.products.0.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// y = M x (counted in [`Lcp::products`]).
    pub fn mul_vec(&self, x: &[f64], y: &mut [f64]) {
        self.products.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.mul_vec_uncounted(x, y);
    }

    /// y = M x, not counted (the driver's recomputation and diagnostics).
    pub(crate) fn mul_vec_uncounted(&self, x: &[f64], y: &mut [f64]) {
        debug_assert_eq!(x.len(), self.n());
        debug_assert_eq!(y.len(), self.n());
        let m = match self.stored() {
            Ok(m) => m,
            Err(g) => return g.mul_vec(x, y),
        };
        match m {
            Matrix::Dense(d) => {
                y.iter_mut().for_each(|v| *v = 0.0);
                for (j, &xj) in x.iter().enumerate() {
                    if xj != 0.0 {
                        for (yi, &mij) in y.iter_mut().zip(d.col(j).iter()) {
                            *yi += mij * xj;
                        }
                    }
                }
            }
            Matrix::Sparse(s) => {
                for (i, yi) in y.iter_mut().enumerate() {
                    let cols = s.col_idx_of_row_raw(i);
                    *yi = cols.iter().zip(s.val_of_row(i)).map(|(&j, &v)| v * x[j]).sum();
                }
            }
        }
    }

    /// y = |M| |x| (entrywise absolute values): the scale of each row of M x, used by the
    /// componentwise checks of the driver.
    pub fn abs_mul_vec(&self, x: &[f64], y: &mut [f64]) {
        debug_assert_eq!(x.len(), self.n());
        debug_assert_eq!(y.len(), self.n());
        let m = match self.stored() {
            Ok(m) => m,
            Err(g) => {
                // The entries of the assembled M in its order: the same sums bit for bit.
                y.iter_mut().for_each(|v| *v = 0.0);
                return g.for_each_entry(|i, j, v| y[i] += v.abs() * x[j].abs());
            }
        };
        match m {
            Matrix::Dense(d) => {
                y.iter_mut().for_each(|v| *v = 0.0);
                for (j, &xj) in x.iter().enumerate() {
                    if xj != 0.0 {
                        for (yi, &mij) in y.iter_mut().zip(d.col(j).iter()) {
                            *yi += mij.abs() * xj.abs();
                        }
                    }
                }
            }
            Matrix::Sparse(s) => {
                for (i, yi) in y.iter_mut().enumerate() {
                    let cols = s.col_idx_of_row_raw(i);
                    *yi =
                        cols.iter().zip(s.val_of_row(i)).map(|(&j, &v)| v.abs() * x[j].abs()).sum();
                }
            }
        }
    }

    /// Calls `f(i, j, M_ij)` for every entry of a dense M (column by column) or every stored
    /// entry of a sparse M (row by row).
    /// A Gram form enumerates the entries of the assembled M in its order, without forming it.
    pub fn for_each_entry(&self, mut f: impl FnMut(usize, usize, f64)) {
        let m = match self.stored() {
            Ok(m) => m,
            Err(g) => return g.for_each_entry(f),
        };
        match m {
            Matrix::Dense(d) => {
                for j in 0..self.n() {
                    for (i, &v) in d.col(j).iter().enumerate() {
                        f(i, j, v);
                    }
                }
            }
            Matrix::Sparse(s) => {
                for i in 0..self.n() {
                    for (&j, &v) in s.col_idx_of_row_raw(i).iter().zip(s.val_of_row(i)) {
                        f(i, j, v);
                    }
                }
            }
        }
    }

    /// The largest |M_ij| of each column j (0 for an empty column): the scale at which z_j
    /// enters w = M z + q, used by the driver's row test to judge z column by column.
    pub fn column_abs_max(&self) -> Vec<f64> {
        let mut c = vec![0.0f64; self.n()];
        self.for_each_entry(|_, j, v| c[j] = c[j].max(v.abs()));
        c
    }

    /// How far a perturbation of z within a per-column budget can move each w_i = (M z)_i + q_i
    /// up (`inc`) and down (`dec`), keeping z >= 0: z_j may rise by `scale / c_j` and fall by
    /// min(z_j, scale / c_j), so an entry M_ij > 0 adds |M_ij| / c_j scale to `inc` and
    /// |M_ij| min(z_j, scale / c_j) to `dec`, and an entry M_ij < 0 the other way round.
    pub fn perturbation_reach(
        &self,
        c: &[f64],
        z: &[f64],
        scale: f64,
        inc: &mut [f64],
        dec: &mut [f64],
    ) {
        debug_assert_eq!(c.len(), self.n());
        inc.iter_mut().for_each(|v| *v = 0.0);
        dec.iter_mut().for_each(|v| *v = 0.0);
        self.for_each_entry(|i, j, v| reach_add(c, z, scale, inc, dec, i, j, v));
    }

    /// Each row at the point its negative w_i is judged at by the row test: z_j rises by
    /// `scale / c_j` where M_ij > 0 and falls by min(z_j, `scale / c_j`) where M_ij < 0 (the
    /// point within the budget, z >= 0, where w_i is largest). Writes w'_i = q_i + (M z')_i to
    /// `w_up` and its scale |q_i| + (|M| z')_i to `s_up`, both summed at z' directly rather
    /// than as w_i plus a bound, so a q_i below the rounding of (M z)_i is not lost.
    pub fn lifted_rows(
        &self,
        c: &[f64],
        z: &[f64],
        scale: f64,
        w_up: &mut [f64],
        s_up: &mut [f64],
    ) {
        debug_assert_eq!(c.len(), self.n());
        w_up.copy_from_slice(&self.q);
        s_up.iter_mut().zip(&self.q).for_each(|(s, q)| *s = q.abs());
        self.for_each_entry(|i, j, v| lift_add(c, z, scale, w_up, s_up, i, j, v));
    }

    /// [`Lcp::perturbation_reach`] and [`Lcp::lifted_rows`] in one scan of the entries, each
    /// sum taking the same terms in the same order (the same bits): the driver's row test
    /// calls this after [`Lcp::abs_mul_vec_and_column_abs_max`], whose [`RowCache`] it reads,
    /// so a Gram form's entries are computed from G once (for the rows the cache kept).
    pub fn reach_and_lifted_rows(
        &self,
        cache: &RowCache,
        c: &[f64],
        z: &[f64],
        scale: f64,
        (inc, dec): (&mut [f64], &mut [f64]),
        (w_up, s_up): (&mut [f64], &mut [f64]),
    ) {
        debug_assert_eq!(c.len(), self.n());
        inc.iter_mut().for_each(|v| *v = 0.0);
        dec.iter_mut().for_each(|v| *v = 0.0);
        w_up.copy_from_slice(&self.q);
        s_up.iter_mut().zip(&self.q).for_each(|(s, q)| *s = q.abs());
        let add = |i, j, v| {
            reach_add(c, z, scale, inc, dec, i, j, v);
            lift_add(c, z, scale, w_up, s_up, i, j, v);
        };
        match self.gram() {
            Some(g) => g.for_each_entry_from(cache, add),
            None => self.for_each_entry(add),
        }
    }

    /// [`Lcp::abs_mul_vec`] into `y` and [`Lcp::column_abs_max`] returned, in one scan of a
    /// Gram form's entries (stored matrices: the two calls; the same bits either way). A Gram
    /// form keeps the entries it computes, up to [`ROW_TEST_CACHE_BYTES`], in the returned
    /// [`RowCache`] for [`Lcp::reach_and_lifted_rows`] (stored matrices: an empty cache).
    pub fn abs_mul_vec_and_column_abs_max(&self, x: &[f64], y: &mut [f64]) -> (Vec<f64>, RowCache) {
        let Some(g) = self.gram() else {
            self.abs_mul_vec(x, y);
            return (self.column_abs_max(), RowCache::default());
        };
        let mut c = vec![0.0f64; self.n()];
        y.iter_mut().for_each(|v| *v = 0.0);
        let cache = g.for_each_entry_keeping(ROW_TEST_CACHE_BYTES / 16, |i, j, v| {
            y[i] += v.abs() * x[j].abs();
            c[j] = c[j].max(v.abs());
        });
        (c, cache)
    }

    /// y = M' x (counted in [`Lcp::products`]).
    pub fn mul_vec_transpose(&self, x: &[f64], y: &mut [f64]) {
        self.products.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.mul_vec_transpose_uncounted(x, y);
    }

    /// y = M' x, not counted (certificate checks).
    pub(crate) fn mul_vec_transpose_uncounted(&self, x: &[f64], y: &mut [f64]) {
        debug_assert_eq!(x.len(), self.n());
        debug_assert_eq!(y.len(), self.n());
        let m = match self.stored() {
            Ok(m) => m,
            // G G' + D is symmetric.
            Err(g) => return g.mul_vec(x, y),
        };
        match m {
            Matrix::Dense(d) => {
                for (j, yj) in y.iter_mut().enumerate() {
                    *yj = d.col(j).iter().zip(x).map(|(a, b)| a * b).sum();
                }
            }
            Matrix::Sparse(s) => {
                y.iter_mut().for_each(|v| *v = 0.0);
                for (i, &xi) in x.iter().enumerate() {
                    let cols = s.col_idx_of_row_raw(i);
                    for (&j, &v) in cols.iter().zip(s.val_of_row(i)) {
                        y[j] += v * xi;
                    }
                }
            }
        }
    }

    /// w = M z + q (allocating).
    pub fn w_of(&self, z: &[f64]) -> Vec<f64> {
        let mut w = vec![0.0; self.n()];
        self.mul_vec(z, &mut w);
        for (wi, qi) in w.iter_mut().zip(&self.q) {
            *wi += qi;
        }
        w
    }

    /// M as a dense faer matrix (copies; for small problems). Unchecked: code that sizes the
    /// copy from user input uses [`crate::memory::to_dense`], which refuses a copy above the
    /// memory budget instead of aborting.
    pub fn to_dense(&self) -> Mat<f64> {
        match self.matrix() {
            Matrix::Dense(d) => d.clone(),
            Matrix::Sparse(s) => s.to_dense(),
        }
    }

    /// M as compressed rows (copies a dense M, dropping exact zeros).
    pub fn to_sparse(&self) -> SparseRowMat<usize, f64> {
        match self.matrix() {
            Matrix::Sparse(s) => s.clone(),
            Matrix::Dense(d) => {
                let n = d.nrows();
                let mut triplets = Vec::new();
                for i in 0..n {
                    for j in 0..n {
                        let v = d[(i, j)];
                        if v != 0.0 {
                            triplets.push(Triplet::new(i, j, v));
                        }
                    }
                }
                // Indices are in range and unique by construction.
                match SparseRowMat::try_new_from_triplets(n, n, &triplets) {
                    Ok(s) => s,
                    Err(_) => unreachable!("triplets built from a dense matrix are valid"),
                }
            }
        }
    }

    /// Dense rows of M (for writers and small diagnostics).
    pub fn dense_rows(&self) -> Vec<Vec<f64>> {
        let n = self.n();
        (0..n).map(|i| (0..n).map(|j| self.get(i, j)).collect()).collect()
    }
}
