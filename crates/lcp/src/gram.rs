//! The Gram form M = G G' + D of a symmetric positive semidefinite LCP matrix, held as its
//! sparse factor G (n x p, compressed rows) and an optional nonnegative diagonal D, so that
//! products and Gauss–Seidel sweeps run without forming M (Moreau 1988, "Unilateral contact
//! and dry friction in finite freedom dynamics"; Jean 1999, "The non-smooth contact dynamics
//! method", CMAME 177: the Delassus operator W = J M⁻¹ J' applied through J and M⁻¹).
//!
//! A Delassus matrix W = J M⁻¹ J' with block-diagonal M = L⁻ᵀ L⁻¹ (M⁻¹ = L L') is the Gram
//! matrix of G = J L, which has J's block pattern: nnz(G) ≈ nnz(J), while nnz(W) grows with the
//! square of the contacts per body. This module knows nothing of bodies; it sees G and D.
//!
//! Entries of M are defined, and enumerated, one way only: M_ij = G_i · G_j (a merge over the
//! increasing column indices of rows i and j, the same order whichever of i, j comes first, so
//! M is exactly symmetric) plus D_i on the diagonal, over the structural pattern of G G' (every
//! j sharing a column with i, stored zeros included). [`GramMatrix::assemble`] and
//! [`GramMatrix::for_each_row_entry`] use it, so the assembled M and the matrix-free one have
//! bit-identical entries.

use faer::sparse::{SparseRowMat, SymbolicSparseRowMat};

/// Why a [`GramMatrix`] could not be built. Indices are zero-based.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GramError {
    /// An entry of G is NaN or infinite.
    #[error("G[{row}][{col}] = {value} is not finite")]
    NonFiniteFactor {
        /// Row index.
        row: usize,
        /// Column index.
        col: usize,
        /// The offending value.
        value: f64,
    },
    /// The column indices of a row of G are not strictly increasing.
    #[error("row {row} of G: column indices are not strictly increasing (at column {col})")]
    UnsortedRow {
        /// Row index.
        row: usize,
        /// The first column out of order.
        col: usize,
    },
    /// A coordinate of G lies outside its n x p shape.
    #[error("G entry at ({row}, {col}) is outside the {rows}x{cols} factor")]
    OutOfRange {
        /// Its row.
        row: usize,
        /// Its column.
        col: usize,
        /// Rows of G (n).
        rows: usize,
        /// Columns of G (p).
        cols: usize,
    },
    /// faer refused the coordinates for another reason.
    #[error("sparse factor construction failed: {0}")]
    Sparse(String),
    /// D does not have one entry per row of G.
    #[error("D has {len} entries but G has {n} rows")]
    DiagonalSize {
        /// Rows of G.
        n: usize,
        /// Length of D.
        len: usize,
    },
    /// An entry of D is negative, NaN or infinite (M must stay positive semidefinite).
    #[error("D[{index}] = {value} must be finite and >= 0")]
    InvalidDiagonal {
        /// Index into D.
        index: usize,
        /// The offending value.
        value: f64,
    },
}

/// M = G G' + D with G sparse (n x p, compressed rows, increasing column indices) and D a
/// nonnegative diagonal (absent: 0). Validated at construction; see the module docs for the
/// one definition of its entries.
#[derive(Debug, Clone)]
pub struct GramMatrix {
    g: SparseRowMat<usize, f64>,
    d: Option<Vec<f64>>,
    /// G by column (G' in compressed rows), for the entries of M: `col_ptr` (p + 1),
    /// `col_rows` and `col_vals`.
    col_ptr: Vec<usize>,
    col_rows: Vec<usize>,
    col_vals: Vec<f64>,
    /// For each column k, how many columns from k on (k, k + 1, ...) have the same rows as k:
    /// a body's columns in a Delassus factor share its contacts, so the row-by-row product
    /// visits those rows once per run instead of once per column.
    run: Vec<usize>,
    /// M_ii = |G_i|² + D_i.
    diag: Vec<f64>,
}

impl GramMatrix {
    /// Validates G and D and builds M = G G' + D.
    pub fn new(g: SparseRowMat<usize, f64>, d: Option<Vec<f64>>) -> Result<Self, GramError> {
        let (n, p) = (g.nrows(), g.ncols());
        for i in 0..n {
            let cols = g.col_idx_of_row_raw(i);
            for (k, (&col, &value)) in cols.iter().zip(g.val_of_row(i)).enumerate() {
                if !value.is_finite() {
                    return Err(GramError::NonFiniteFactor { row: i, col, value });
                }
                if k > 0 && cols[k - 1] >= col {
                    return Err(GramError::UnsortedRow { row: i, col });
                }
            }
        }
        if let Some(d) = &d {
            if d.len() != n {
                return Err(GramError::DiagonalSize { n, len: d.len() });
            }
            if let Some((index, &value)) =
                d.iter().enumerate().find(|(_, v)| !(v.is_finite() && **v >= 0.0))
            {
                return Err(GramError::InvalidDiagonal { index, value });
            }
        }
        // Counting sort of the rows by column: rows of each column in increasing order.
        let mut col_ptr = vec![0usize; p + 1];
        for i in 0..n {
            for &k in g.col_idx_of_row_raw(i) {
                col_ptr[k + 1] += 1;
            }
        }
        for k in 0..p {
            col_ptr[k + 1] += col_ptr[k];
        }
        let mut next = col_ptr.clone();
        let mut col_rows = vec![0usize; col_ptr[p]];
        let mut col_vals = vec![0.0; col_ptr[p]];
        for i in 0..n {
            for (&k, &v) in g.col_idx_of_row_raw(i).iter().zip(g.val_of_row(i)) {
                col_rows[next[k]] = i;
                col_vals[next[k]] = v;
                next[k] += 1;
            }
        }
        let mut run = vec![1usize; p];
        for k in (0..p.saturating_sub(1)).rev() {
            if col_rows[col_ptr[k]..col_ptr[k + 1]] == col_rows[col_ptr[k + 1]..col_ptr[k + 2]] {
                run[k] = run[k + 1] + 1;
            }
        }
        let mut m = Self { g, d, col_ptr, col_rows, col_vals, run, diag: Vec::new() };
        m.diag = (0..n).map(|i| m.entry(i, i)).collect();
        Ok(m)
    }

    /// Builds G from coordinates (n x p; duplicates summed), then validates as [`Self::new`].
    pub fn from_triplets(
        n: usize,
        p: usize,
        triplets: &[faer::sparse::Triplet<usize, usize, f64>],
        d: Option<Vec<f64>>,
    ) -> Result<Self, GramError> {
        if let Some(t) = triplets.iter().find(|t| !t.val.is_finite()) {
            return Err(GramError::NonFiniteFactor { row: t.row, col: t.col, value: t.val });
        }
        if let Some(t) = triplets.iter().find(|t| t.row >= n || t.col >= p) {
            return Err(GramError::OutOfRange { row: t.row, col: t.col, rows: n, cols: p });
        }
        let g = SparseRowMat::try_new_from_triplets(n, p, triplets)
            .map_err(|e| GramError::Sparse(format!("{e:?}")))?;
        Self::new(g, d)
    }

    /// n, the size of M (rows of G).
    pub fn n(&self) -> usize {
        self.g.nrows()
    }

    /// The factor G (n x p).
    pub fn factor(&self) -> &SparseRowMat<usize, f64> {
        &self.g
    }

    /// G by column: for column k, the rows `rows[ptr[k]..ptr[k + 1]]` (increasing) and their
    /// values, as `(ptr, rows, vals)`.
    pub fn columns(&self) -> (&[usize], &[usize], &[f64]) {
        (&self.col_ptr, &self.col_rows, &self.col_vals)
    }

    /// The diagonal D, if any.
    pub fn compliance(&self) -> Option<&[f64]> {
        self.d.as_deref()
    }

    /// Stored entries of G.
    pub fn factor_nnz(&self) -> usize {
        self.col_rows.len()
    }

    /// The diagonal of M: M_ii = |G_i|² + D_i (the same values as [`Self::entry`]).
    pub fn diagonal(&self) -> &[f64] {
        &self.diag
    }

    /// M_ij = G_i · G_j (+ D_i when i = j).
    pub fn entry(&self, i: usize, j: usize) -> f64 {
        let (ci, vi) = (self.g.col_idx_of_row_raw(i), self.g.val_of_row(i));
        let (cj, vj) = (self.g.col_idx_of_row_raw(j), self.g.val_of_row(j));
        let (mut a, mut b, mut acc) = (0, 0, 0.0);
        while a < ci.len() && b < cj.len() {
            match ci[a].cmp(&cj[b]) {
                std::cmp::Ordering::Less => a += 1,
                std::cmp::Ordering::Greater => b += 1,
                std::cmp::Ordering::Equal => {
                    acc += vi[a] * vj[b];
                    a += 1;
                    b += 1;
                }
            }
        }
        match (&self.d, i == j) {
            (Some(d), true) => acc + d[i],
            _ => acc,
        }
    }

    /// The columns of row i of M (every j sharing a column of G with i, and i itself),
    /// increasing, into `out`; `mark` (length n, all `usize::MAX` on entry and on return) is
    /// the scratch of the deduplication.
    fn row_pattern(&self, i: usize, mark: &mut [usize], out: &mut Vec<usize>) {
        out.clear();
        out.push(i);
        mark[i] = i;
        for &k in self.g.col_idx_of_row_raw(i) {
            for &j in &self.col_rows[self.col_ptr[k]..self.col_ptr[k + 1]] {
                if mark[j] != i {
                    mark[j] = i;
                    out.push(j);
                }
            }
        }
        out.sort_unstable();
        out.iter().for_each(|&j| mark[j] = usize::MAX);
    }

    /// Row i of M into `cols` (increasing) and `vals`, by Gustavson's row-by-row product:
    /// for each column k of G_i in increasing order, acc_j += G_ik G_jk over the rows j of
    /// column k. Each acc_j is then the sum of the same products in the same order as the
    /// merge of [`Self::entry`], so the values are the same bits, at O(flops) instead of a
    /// merge per entry. Consecutive columns of G_i with the same rows (a run, see `run`) are
    /// taken together: each row j of the run once, its products added in increasing k as
    /// before (the same bits). `work` is the scratch (see [`RowWork`]).
    fn row_entries(&self, i: usize, work: &mut RowWork) {
        let RowWork { mark, acc, cols, vals } = work;
        cols.clear();
        vals.clear();
        mark[i] = i;
        cols.push(i);
        let (gc, gv) = (self.g.col_idx_of_row_raw(i), self.g.val_of_row(i));
        let mut a = 0;
        while a < gc.len() {
            let k = gc[a];
            // Row i is in column k, so in every column of k's run: G_i holds k, k + 1, ...,
            // k + m - 1 at a, a + 1, ....
            let m = self.run[k];
            debug_assert!((0..m).all(|t| gc.get(a + t) == Some(&(k + t))));
            let (start, len) = (self.col_ptr[k], self.col_ptr[k + 1] - self.col_ptr[k]);
            for r in 0..len {
                let j = self.col_rows[start + r];
                if mark[j] != i {
                    mark[j] = i;
                    cols.push(j);
                }
                let mut s = acc[j];
                for t in 0..m {
                    s += gv[a + t] * self.col_vals[self.col_ptr[k + t] + r];
                }
                acc[j] = s;
            }
            a += m;
        }
        cols.sort_unstable();
        let d = self.compliance_at(i);
        for &j in cols.iter() {
            vals.push(if i == j && self.d.is_some() { acc[j] + d } else { acc[j] });
            acc[j] = 0.0;
            mark[j] = usize::MAX;
        }
    }

    /// Calls `f(i, j, M_ij)` for every structural entry of M, row by row, columns increasing
    /// (the entries of [`Self::assemble`], in its order), without storing M.
    pub fn for_each_entry(&self, f: impl FnMut(usize, usize, f64)) {
        self.for_each_entry_from(&RowCache::default(), f);
    }

    /// [`Self::for_each_entry`], keeping the rows it computes, from row 0 on, in the returned
    /// [`RowCache`] while they fit in `max_entries` entries in all, so that a second scan
    /// ([`Self::for_each_entry_from`]) reads them instead of computing them again. The
    /// driver's row test scans M twice (its second scan needs every column's scale, known only
    /// after the first); the cache bounds what that costs in memory.
    pub fn for_each_entry_keeping(
        &self,
        max_entries: usize,
        mut f: impl FnMut(usize, usize, f64),
    ) -> RowCache {
        // Reserved at once (no copies as it grows), at most the budget and at most the products
        // of the row-by-row product (a bound of M's entries that costs one pass over G).
        let bound: usize = (0..self.n())
            .map(|i| {
                let cols = self.g.col_idx_of_row_raw(i);
                cols.iter().map(|&k| self.col_ptr[k + 1] - self.col_ptr[k]).sum::<usize>()
            })
            .sum::<usize>()
            .max(self.n());
        let reserve = bound.min(max_entries);
        let mut cache = RowCache {
            row_ptr: Vec::with_capacity(self.n() + 1),
            cols: Vec::with_capacity(reserve),
            vals: Vec::with_capacity(reserve),
        };
        cache.row_ptr.push(0);
        let mut keeping = true;
        let mut work = RowWork::new(self.n());
        for i in 0..self.n() {
            self.row_entries(i, &mut work);
            for (&j, &v) in work.cols.iter().zip(&work.vals) {
                f(i, j, v);
            }
            keeping = keeping && cache.cols.len() + work.cols.len() <= max_entries;
            if keeping {
                cache.cols.extend_from_slice(&work.cols);
                cache.vals.extend_from_slice(&work.vals);
                cache.row_ptr.push(cache.cols.len());
            }
        }
        cache
    }

    /// [`Self::for_each_entry`] reading the rows kept in `cache` (by
    /// [`Self::for_each_entry_keeping`] on this matrix) and computing the others: the same
    /// entries in the same order.
    pub fn for_each_entry_from(&self, cache: &RowCache, mut f: impl FnMut(usize, usize, f64)) {
        let kept = cache.rows().min(self.n());
        for i in 0..kept {
            let range = cache.row_ptr[i]..cache.row_ptr[i + 1];
            for (&j, &v) in cache.cols[range.clone()].iter().zip(&cache.vals[range]) {
                f(i, j, v);
            }
        }
        if kept < self.n() {
            let mut work = RowWork::new(self.n());
            for i in kept..self.n() {
                self.row_entries(i, &mut work);
                for (&j, &v) in work.cols.iter().zip(&work.vals) {
                    f(i, j, v);
                }
            }
        }
    }

    /// Calls `f(j, M_ij)` for every structural entry of row i (columns increasing).
    pub fn for_each_row_entry(&self, i: usize, mut f: impl FnMut(usize, f64)) {
        let mut work = RowWork::new(self.n());
        self.row_entries(i, &mut work);
        for (&j, &v) in work.cols.iter().zip(&work.vals) {
            f(j, v);
        }
    }

    /// nnz of the assembled M (its structural pattern: the diagonal and every pair of rows of
    /// G that share a column), counted without forming M.
    pub fn assembled_nnz(&self) -> usize {
        let n = self.n();
        let mut mark = vec![usize::MAX; n];
        let mut cols = Vec::new();
        (0..n)
            .map(|i| {
                self.row_pattern(i, &mut mark, &mut cols);
                cols.len()
            })
            .sum()
    }

    /// Bytes of the assembled M in compressed rows (8-byte values and indices, n + 1 row
    /// pointers), for the memory check before a solver that reads entries assembles it.
    pub fn assembled_bytes(&self) -> u128 {
        (self.assembled_nnz() as u128) * 16 + (self.n() as u128 + 1) * 8
    }

    /// M = G G' + D assembled in compressed rows (the entries of [`Self::for_each_entry`]).
    pub fn assemble(&self) -> SparseRowMat<usize, f64> {
        let n = self.n();
        let mut row_ptr = Vec::with_capacity(n + 1);
        row_ptr.push(0usize);
        let mut col_idx = Vec::new();
        let mut val = Vec::new();
        let mut work = RowWork::new(n);
        for i in 0..n {
            self.row_entries(i, &mut work);
            col_idx.extend_from_slice(&work.cols);
            val.extend_from_slice(&work.vals);
            row_ptr.push(col_idx.len());
        }
        // Sorted, unique, in range by construction.
        let symbolic = SymbolicSparseRowMat::new_checked(n, n, row_ptr, None, col_idx);
        SparseRowMat::new(symbolic, val)
    }

    /// v = G' x (length p).
    pub fn factor_transpose_mul(&self, x: &[f64], v: &mut [f64]) {
        debug_assert_eq!(x.len(), self.n());
        debug_assert_eq!(v.len(), self.g.ncols());
        v.iter_mut().for_each(|e| *e = 0.0);
        for (i, &xi) in x.iter().enumerate() {
            if xi != 0.0 {
                for (&k, &g) in self.g.col_idx_of_row_raw(i).iter().zip(self.g.val_of_row(i)) {
                    v[k] += g * xi;
                }
            }
        }
    }

    /// G_i · v.
    #[inline]
    pub fn row_dot(&self, i: usize, v: &[f64]) -> f64 {
        let mut acc = 0.0;
        for (&k, &g) in self.g.col_idx_of_row_raw(i).iter().zip(self.g.val_of_row(i)) {
            acc += g * v[k];
        }
        acc
    }

    /// v += s G_i'.
    #[inline]
    pub fn row_axpy(&self, i: usize, s: f64, v: &mut [f64]) {
        for (&k, &g) in self.g.col_idx_of_row_raw(i).iter().zip(self.g.val_of_row(i)) {
            v[k] += s * g;
        }
    }

    /// D_i (0 without D).
    #[inline]
    pub fn compliance_at(&self, i: usize) -> f64 {
        self.d.as_ref().map_or(0.0, |d| d[i])
    }

    /// y = M x = G (G' x) + D x, through a length-p temporary.
    pub fn mul_vec(&self, x: &[f64], y: &mut [f64]) {
        let mut v = vec![0.0; self.g.ncols()];
        self.factor_transpose_mul(x, &mut v);
        for (i, yi) in y.iter_mut().enumerate() {
            *yi = self.row_dot(i, &v) + self.compliance_at(i) * x[i];
        }
    }
}

/// The first rows of a [`GramMatrix`] as a scan computed them (compressed rows), kept by
/// [`GramMatrix::for_each_entry_keeping`] for [`GramMatrix::for_each_entry_from`]. Empty
/// (no rows kept) by default.
#[derive(Debug, Clone, Default)]
pub struct RowCache {
    row_ptr: Vec<usize>,
    cols: Vec<usize>,
    vals: Vec<f64>,
}

impl RowCache {
    /// How many rows, from row 0, are kept.
    pub fn rows(&self) -> usize {
        self.row_ptr.len().saturating_sub(1)
    }

    /// How many entries are kept.
    pub fn entries(&self) -> usize {
        self.cols.len()
    }
}

/// Scratch of [`GramMatrix::row_entries`]: `mark` (usize::MAX, or the row being built) and
/// `acc` (zeros) of length n, restored after each row, and the row's columns and values.
struct RowWork {
    mark: Vec<usize>,
    acc: Vec<f64>,
    cols: Vec<usize>,
    vals: Vec<f64>,
}

impl RowWork {
    fn new(n: usize) -> Self {
        Self { mark: vec![usize::MAX; n], acc: vec![0.0; n], cols: Vec::new(), vals: Vec::new() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::sparse::Triplet;

    fn small() -> GramMatrix {
        // G = [[1, 2, 0], [0, 1, 0], [0, 0, 3]], D = (0, 1, 0.5).
        let t = [
            Triplet::new(0, 0, 1.0),
            Triplet::new(0, 1, 2.0),
            Triplet::new(1, 1, 1.0),
            Triplet::new(2, 2, 3.0),
        ];
        GramMatrix::from_triplets(3, 3, &t, Some(vec![0.0, 1.0, 0.5])).expect("valid")
    }

    #[test]
    fn entries_products_and_assembly_agree_with_g_gt_plus_d() {
        let m = small();
        let expected = [[5.0, 2.0, 0.0], [2.0, 2.0, 0.0], [0.0, 0.0, 9.5]];
        for (i, row) in expected.iter().enumerate() {
            for (j, &e) in row.iter().enumerate() {
                assert!((m.entry(i, j) - e).abs() < 1e-15, "({i}, {j})");
            }
        }
        let a = m.assemble();
        assert_eq!(a.compute_nnz(), 5);
        assert_eq!(m.assembled_nnz(), 5);
        let mut seen = Vec::new();
        m.for_each_entry(|i, j, v| seen.push((i, j, v)));
        let mut stored = Vec::new();
        for i in 0..3 {
            for (&j, &v) in a.col_idx_of_row_raw(i).iter().zip(a.val_of_row(i)) {
                stored.push((i, j, v));
            }
        }
        assert_eq!(seen, stored);
        let mut y = [0.0; 3];
        m.mul_vec(&[1.0, -1.0, 2.0], &mut y);
        for (yi, ei) in y.iter().zip([3.0, 0.0, 19.0]) {
            assert!((yi - ei).abs() < 1e-14);
        }
    }

    #[test]
    fn runs_of_columns_give_the_same_bits_as_the_merge() {
        // Bodies of 3 columns; contact c touches bodies c % 5 and (c + 1) % 5 through all
        // their columns, except every third contact, which skips the middle column of its
        // second body (that body's columns then differ in rows and form shorter runs), and
        // body 4's last column has a row of its own (its run ends early).
        let mut t = Vec::new();
        for c in 0..12usize {
            for (b, full) in [(c % 5, true), ((c + 1) % 5, c % 3 != 0)] {
                for d in 0..3 {
                    if full || d != 1 {
                        let v = ((c * 7 + b * 3 + d) as f64 * 0.37).sin() + 0.1 / 3.0;
                        t.push(Triplet::new(c, 3 * b + d, v));
                    }
                }
            }
        }
        t.push(Triplet::new(12, 14, 0.7));
        let m = GramMatrix::from_triplets(13, 15, &t, Some(vec![0.25; 13])).expect("valid");
        assert!(m.run.iter().any(|&r| r >= 3), "the factor has runs: {:?}", m.run);
        let mut count = 0;
        m.for_each_entry(|i, j, v| {
            assert_eq!(v.to_bits(), m.entry(i, j).to_bits(), "({i}, {j})");
            assert_eq!(v.to_bits(), m.entry(j, i).to_bits(), "({j}, {i})");
            count += 1;
        });
        assert_eq!(count, m.assembled_nnz());
    }

    #[test]
    fn a_second_scan_reads_the_kept_rows_and_computes_the_rest_the_same() {
        let m = small();
        let mut all = Vec::new();
        m.for_each_entry(|i, j, v| all.push((i, j, v)));
        // Every budget: nothing kept, part of the rows, all of them.
        // Rows 0, 1, 2 have 2, 2 and 1 entries.
        for (budget, expected_rows) in [(0, 0), (2, 1), (3, 1), (4, 2), (5, 3), (usize::MAX, 3)] {
            let mut first = Vec::new();
            let cache = m.for_each_entry_keeping(budget, |i, j, v| first.push((i, j, v)));
            assert_eq!(first, all, "budget {budget}");
            assert!(cache.entries() <= budget);
            assert_eq!(cache.rows(), expected_rows, "budget {budget}");
            let mut second = Vec::new();
            m.for_each_entry_from(&cache, |i, j, v| second.push((i, j, v)));
            assert_eq!(second, all, "budget {budget}");
        }
        // An empty cache computes everything.
        let mut second = Vec::new();
        m.for_each_entry_from(&RowCache::default(), |i, j, v| second.push((i, j, v)));
        assert_eq!(second, all);
    }

    #[test]
    fn bad_factors_and_diagonals_are_typed_errors() {
        let t = [Triplet::new(0, 0, f64::NAN)];
        assert!(matches!(
            GramMatrix::from_triplets(1, 1, &t, None),
            Err(GramError::NonFiniteFactor { row: 0, col: 0, .. })
        ));
        let t = [Triplet::new(0, 0, 1.0)];
        assert!(matches!(
            GramMatrix::from_triplets(1, 1, &t, Some(vec![-1.0])),
            Err(GramError::InvalidDiagonal { index: 0, .. })
        ));
        assert!(matches!(
            GramMatrix::from_triplets(1, 1, &t, Some(vec![1.0, 2.0])),
            Err(GramError::DiagonalSize { n: 1, len: 2 })
        ));
        let t = [Triplet::new(0, 5, 1.0)];
        assert!(matches!(
            GramMatrix::from_triplets(1, 1, &t, None),
            Err(GramError::OutOfRange { row: 0, col: 5, rows: 1, cols: 1 })
        ));
    }
}
