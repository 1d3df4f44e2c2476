//! Mass matrices behind one interface: the block-diagonal M of free bodies with closed-form
//! inverse blocks, and a general dense symmetric positive definite M (articulated models).

use faer::linalg::solvers::Solve;
use faer::Mat;
use rayon::prelude::*;
use signorini_lcp::{GramError, GramMatrix, ProblemError};

use crate::body::{Body, BodyKind, Dimension, DofLayout};
use crate::error::ContactError;
use crate::jacobian::{Coo, Csr, Jacobian};
use crate::math::Vec3;

/// A symmetric positive definite mass matrix M over the generalised velocities.
pub trait MassMatrix: Sync {
    /// Size of v.
    fn n_dofs(&self) -> usize;

    /// y = M x.
    fn apply(&self, x: &[f64], y: &mut [f64]);

    /// y = M^-1 x.
    fn apply_inverse(&self, x: &[f64], y: &mut [f64]);

    /// The columns of M^-1 J^T, one dense vector of length n_dofs per row of J.
    fn inverse_jacobian_transpose(&self, j: &Jacobian) -> Vec<Vec<f64>> {
        (0..j.n_rows())
            .map(|r| {
                let mut e = vec![0.0; j.n_rows()];
                e[r] = 1.0;
                let jt = j.apply_transpose(&e);
                let mut g = vec![0.0; self.n_dofs()];
                self.apply_inverse(&jt, &mut g);
                g
            })
            .collect()
    }

    /// The diagonal W_ii = J_i M^-1 J_i^T (Gauss–Seidel sweeps). The default applies M^-1 to
    /// each row densely; block-diagonal M overrides it with an O(nnz) formula.
    fn delassus_diagonal(&self, j: &Jacobian) -> Vec<f64> {
        let n_dofs = self.n_dofs();
        let mut jt = vec![0.0; n_dofs];
        let mut g = vec![0.0; n_dofs];
        j.rows
            .iter()
            .map(|row| {
                jt.iter_mut().for_each(|x| *x = 0.0);
                for b in row.blocks() {
                    jt[b.offset..b.offset + b.len].copy_from_slice(b.as_slice());
                }
                self.apply_inverse(&jt, &mut g);
                row.dot(&g)
            })
            .collect()
    }

    /// W = J M^-1 J^T in coordinate form, rows sorted, exact zeros dropped. The default forms
    /// the columns of M^-1 J^T densely (for general M); block-diagonal M overrides it.
    fn delassus(&self, j: &Jacobian) -> Coo {
        let g = self.inverse_jacobian_transpose(j);
        let m = j.n_rows();
        let mut coo = Coo::new(m, m);
        for (s, row) in j.rows.iter().enumerate() {
            for (r, gr) in g.iter().enumerate() {
                let v = row.dot(gr);
                if v != 0.0 {
                    coo.push(s, r, v);
                }
            }
        }
        coo
    }
}

/// One diagonal block of a free body: translational m I (its first `lin` components) beside a
/// rotational inertia block (the remaining `len - lin`: none for a particle, I_z in 2D, the
/// world-frame R I R^T in 3D), with the factor L_B of M_B^-1 = L_B L_B^T in the same
/// structure: m^-1/2 I beside the rotational factor (1/sqrt(I_z), or R diag(I)^-1/2). The
/// structure is what free bodies with velocities at the centre of mass have; it keeps the
/// block small (the assembly streams every body's factor) and L^T x to 12 products in 3D.
#[derive(Debug, Clone, PartialEq)]
pub struct MassBlock {
    /// Offset of the block in v.
    pub offset: usize,
    /// Size of the block (2 or 3 for particles, 3 for 2D and 6 for 3D rigid bodies).
    pub len: usize,
    /// Number of translational components (2 or 3).
    pub lin: usize,
    /// m^-1/2.
    pub inv_sqrt_mass: f64,
    /// The rotational factor, row-major (len - lin) x (len - lin): [1/sqrt(I_z)] in 2D,
    /// R diag(I)^-1/2 in 3D.
    pub inverse_factor_rot: [f64; 9],
    /// m.
    pub mass: f64,
    /// The rotational inertia block, row-major (len - lin) x (len - lin).
    pub inertia: [f64; 9],
}

impl MassBlock {
    /// Number of rotational components.
    fn rot(&self) -> usize {
        self.len.saturating_sub(self.lin).min(3)
    }

    /// A dense row-major len x len block (first len * len entries) of this block's structure:
    /// `lin_value` on the translational diagonal beside the rotational block `rot`.
    fn dense(&self, lin_value: f64, rot: &[f64; 9]) -> [f64; 36] {
        let mut d = [0.0; 36];
        let (n, lin, a) = (self.len.min(6), self.lin.min(6), self.rot());
        for i in 0..lin {
            d[i * n + i] = lin_value;
        }
        for i in 0..a {
            for k in 0..a {
                d[(lin + i) * n + lin + k] = rot[i * a + k];
            }
        }
        d
    }

    /// M_B, dense row-major len x len (first len * len entries).
    pub fn mass_matrix(&self) -> [f64; 36] {
        self.dense(self.mass, &self.inertia)
    }

    /// L_B, dense row-major len x len (first len * len entries), M_B^-1 = L_B L_B^T.
    pub fn inverse_factor(&self) -> [f64; 36] {
        self.dense(self.inv_sqrt_mass, &self.inverse_factor_rot)
    }

    /// y = L^T x (x of length len; y's first len entries).
    #[inline(always)]
    fn half_apply(&self, x: &[f64], y: &mut [f64; 6]) {
        let (lin, a) = (self.lin.min(6), self.rot());
        for (yi, xi) in y.iter_mut().zip(x).take(lin) {
            *yi = self.inv_sqrt_mass * xi;
        }
        let l = &self.inverse_factor_rot;
        match (a, x.get(lin..lin + a)) {
            (3, Some(&[x0, x1, x2])) => {
                for i in 0..3 {
                    y[lin + i] = l[i] * x0 + l[3 + i] * x1 + l[6 + i] * x2;
                }
            }
            (1, Some(&[x0])) => y[lin] = l[0] * x0,
            _ => {}
        }
    }

    /// y = L x (x of length len; y's first len entries).
    fn factor_apply(&self, x: &[f64], y: &mut [f64]) {
        let (lin, a) = (self.lin.min(6), self.rot());
        for (yi, xi) in y.iter_mut().zip(x).take(lin) {
            *yi = self.inv_sqrt_mass * xi;
        }
        for i in 0..a {
            y[lin + i] = (0..a).map(|k| self.inverse_factor_rot[i * a + k] * x[lin + k]).sum();
        }
    }
}

/// Block-diagonal M of free bodies: 2D rigid diag(m, m, I_z); 3D rigid diag(m I_3, R I R^T);
/// particles m I. Inverse blocks are closed form: 1/m, and R diag(1/I) R^T, factored as
/// L = R diag(1/sqrt(I)).
#[derive(Debug, Clone, PartialEq)]
pub struct BlockDiagonalMass {
    /// Per body (None for fixed bodies).
    pub blocks: Vec<Option<MassBlock>>,
    n_dofs: usize,
}

impl BlockDiagonalMass {
    /// The mass matrix of the bodies in the given layout.
    pub fn new(layout: &DofLayout, bodies: &[Body]) -> Self {
        let blocks = bodies
            .iter()
            .zip(&layout.blocks)
            .map(|(b, &(offset, len))| {
                if b.kind == BodyKind::Fixed {
                    return None;
                }
                let lin = match layout.dimension {
                    Dimension::Two => 2,
                    Dimension::Three => 3,
                };
                let mut inertia = [0.0; 9];
                let mut inverse_factor_rot = [0.0; 9];
                if b.kind == BodyKind::Rigid {
                    match layout.dimension {
                        Dimension::Two => {
                            inertia[0] = b.inertia[2];
                            inverse_factor_rot[0] = 1.0 / b.inertia[2].sqrt();
                        }
                        Dimension::Three => {
                            let r = b.rotation();
                            let principal: Vec3 = b.inertia;
                            for i in 0..3 {
                                for k in 0..3 {
                                    let mut m = 0.0;
                                    for (l, il) in principal.iter().enumerate() {
                                        m += r[i][l] * il * r[k][l];
                                    }
                                    inertia[i * 3 + k] = m;
                                    inverse_factor_rot[i * 3 + k] = r[i][k] / principal[k].sqrt();
                                }
                            }
                        }
                    }
                }
                Some(MassBlock {
                    offset,
                    len,
                    lin,
                    inv_sqrt_mass: 1.0 / b.mass.sqrt(),
                    inverse_factor_rot,
                    mass: b.mass,
                    inertia,
                })
            })
            .collect();
        Self { blocks, n_dofs: layout.n_dofs }
    }

    /// M as a dense matrix (tests and small problems), each rotational block symmetrised
    /// (R I R^T is symmetric only up to rounding).
    pub fn dense_matrix(&self) -> Mat<f64> {
        let mut dense = Mat::<f64>::zeros(self.n_dofs, self.n_dofs);
        for b in self.blocks.iter().flatten() {
            let m = b.mass_matrix();
            for i in 0..b.len {
                for k in 0..b.len {
                    dense[(b.offset + i, b.offset + k)] =
                        0.5 * (m[i * b.len + k] + m[k * b.len + i]);
                }
            }
        }
        dense
    }

    /// The rows of H = L^T J^T per block ("half" Delassus factors), W = H^T H blockwise.
    fn half_rows(&self, j: &Jacobian) -> Vec<[[f64; 6]; 2]> {
        j.rows
            .par_iter()
            .with_min_len(512)
            .map(|row| {
                let mut h = [[0.0; 6]; 2];
                for (k, b) in row.blocks().iter().enumerate() {
                    if let Some(Some(mb)) = self.blocks.get(b.body) {
                        mb.half_apply(b.as_slice(), &mut h[k]);
                    }
                }
                h
            })
            .collect()
    }
}

impl BlockDiagonalMass {
    /// The Gram form of `scale` W = `scale` J M⁻¹ J' (`scale` > 0: h for the normal rows at
    /// the position level, 1 otherwise): the factor G = sqrt(scale) J L with M⁻¹ = L L'
    /// blockwise, whose row r on body B is sqrt(scale) (L_B' J_rB')' (the half factor H of
    /// [`BlockDiagonalMass::delassus_csr`]), so that W = G G' without forming W. G has J's
    /// block pattern (columns: the velocity components v); blocks on a body without a mass
    /// block contribute nothing.
    pub fn delassus_gram(&self, j: &Jacobian, scale: f64) -> Result<GramMatrix, ContactError> {
        let s = scale.sqrt();
        let h = self.half_rows(j);
        let mut row_ptr = Vec::with_capacity(j.n_rows() + 1);
        row_ptr.push(0usize);
        let mut col_idx = Vec::with_capacity(12 * j.n_rows());
        let mut val = Vec::with_capacity(12 * j.n_rows());
        for (r, (row, hr)) in j.rows.iter().zip(&h).enumerate() {
            let mut blocks: Vec<(usize, &crate::jacobian::RowBlock)> = row
                .blocks()
                .iter()
                .enumerate()
                .filter(|(_, b)| matches!(self.blocks.get(b.body), Some(Some(_))))
                .collect();
            blocks.sort_by_key(|(_, b)| b.offset);
            let mut end = 0;
            for (k, b) in blocks {
                // Two blocks on one velocity range, or one past v: not a rigid-body row.
                if b.offset < end || b.offset + b.len > self.n_dofs {
                    let e = GramError::UnsortedRow { row: r, col: b.offset };
                    return Err(ProblemError::from(e).into());
                }
                end = b.offset + b.len;
                for (c, &v) in hr[k][..b.len].iter().enumerate() {
                    col_idx.push(b.offset + c);
                    val.push(s * v);
                }
            }
            row_ptr.push(col_idx.len());
        }
        let n = j.n_rows();
        let symbolic =
            faer::sparse::SymbolicSparseRowMat::new_checked(n, self.n_dofs, row_ptr, None, col_idx);
        let g = faer::sparse::SparseRowMat::new(symbolic, val);
        Ok(GramMatrix::new(g, None).map_err(ProblemError::from)?)
    }
}

impl MassMatrix for BlockDiagonalMass {
    fn n_dofs(&self) -> usize {
        self.n_dofs
    }

    fn apply(&self, x: &[f64], y: &mut [f64]) {
        for b in self.blocks.iter().flatten() {
            let (o, lin, a) = (b.offset, b.lin.min(b.len), b.rot());
            for i in 0..lin {
                y[o + i] = b.mass * x[o + i];
            }
            for i in 0..a {
                y[o + lin + i] = (0..a).map(|k| b.inertia[i * a + k] * x[o + lin + k]).sum();
            }
        }
    }

    fn apply_inverse(&self, x: &[f64], y: &mut [f64]) {
        for b in self.blocks.iter().flatten() {
            let n = b.len;
            let mut t = [0.0; 6];
            b.half_apply(&x[b.offset..b.offset + n], &mut t);
            b.factor_apply(&t[..n], &mut y[b.offset..b.offset + n]);
        }
    }

    /// W_ii = sum over the row's blocks of |L_B^T J_iB|^2.
    fn delassus_diagonal(&self, j: &Jacobian) -> Vec<f64> {
        self.half_rows(j)
            .iter()
            .zip(&j.rows)
            .map(|(h, row)| {
                row.blocks()
                    .iter()
                    .enumerate()
                    .map(|(k, b)| h[k][..b.len].iter().map(|x| x * x).sum::<f64>())
                    .sum()
            })
            .collect()
    }

    /// W in coordinate form, from [`BlockDiagonalMass::delassus_csr`] (rows in order, columns
    /// increasing within a row).
    fn delassus(&self, j: &Jacobian) -> Coo {
        self.delassus_csr(j).to_coo()
    }
}

/// Dot product of two 6-vectors (unused trailing entries are zero).
#[inline(always)]
fn dot6(a: &[f64; 6], b: &[f64; 6]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] + a[4] * b[4] + a[5] * b[5]
}

/// Rows per parallel task (fixed, so the work split does not depend on the thread count).
const ROW_CHUNK: usize = 2048;

/// Bodies per parallel task of the Gram pass (fixed, likewise).
const BODY_CHUNK: usize = 1024;

/// Row lists up to this long take the fill's fast path (SHORT + 1 a power of two).
const SHORT: usize = 15;

/// The column key past the end of a row list.
const END: usize = usize::MAX;

/// Entry (p, q) of an n x n symmetric block stored as its upper triangle, row by row.
#[inline(always)]
fn packed(n: usize, p: usize, q: usize) -> usize {
    let (i, k) = if q < p { (q, p) } else { (p, q) };
    i * (2 * n - i + 1) / 2 + (k - i)
}

/// The column keys (rows of W) of a row list, END after the last, and row `place` of its
/// packed Gram block, unpacked; `list.len() <= SHORT`.
#[inline(always)]
fn unpack_row<I: Index>(
    list: &[I],
    g: &[f64],
    place: usize,
    keys: &mut [usize; SHORT + 1],
    vals: &mut [f64; SHORT + 1],
) {
    let n = list.len();
    for (k, e) in keys.iter_mut().zip(list) {
        *k = e.at() >> 1;
    }
    keys[n] = END;
    for (q, v) in vals.iter_mut().enumerate().take(place.min(n)) {
        *v = g.get(packed(n, q, place)).copied().unwrap_or(0.0);
    }
    let row = packed(n, place, place);
    if let (Some(src), Some(dst)) = (g.get(row..row + n - place.min(n)), vals.get_mut(place..n)) {
        // A loop, not copy_from_slice: a call to memcpy costs more than these few values.
        for (d, s) in dst.iter_mut().zip(src) {
            *d = *s;
        }
    }
}

/// The index type of the assembly's working arrays: `u32` when every row block and body fits
/// (half the memory traffic of `usize`), `usize` otherwise.
trait Index: Copy + Send + Sync + PartialEq {
    /// Marks an absent row block.
    const NONE: Self;
    fn of(i: usize) -> Self;
    fn at(self) -> usize;
}

impl Index for u32 {
    const NONE: Self = u32::MAX;
    #[inline(always)]
    fn of(i: usize) -> Self {
        i as u32
    }
    #[inline(always)]
    fn at(self) -> usize {
        self as usize
    }
}

impl Index for usize {
    const NONE: Self = usize::MAX;
    #[inline(always)]
    fn of(i: usize) -> Self {
        i
    }
    #[inline(always)]
    fn at(self) -> usize {
        self
    }
}

/// Splits `0..n` into `parts` contiguous ranges of nearly equal length.
fn ranges(n: usize, parts: usize) -> Vec<(usize, usize)> {
    let parts = parts.clamp(1, n.max(1));
    (0..parts).map(|t| (t * n / parts, (t + 1) * n / parts)).collect()
}

impl BlockDiagonalMass {
    /// W = J M^-1 J^T in compressed sparse row form, exploiting the block structure.
    ///
    /// With H_rk = L_B^T J_rB (the "half" factor of row r's k-th body block B, a 6-array), W_rs
    /// is the sum over the bodies B shared by rows r and s of H_rk . H_sl. Row block e = 2 r + k
    /// is the k-th block of row r. The passes (rayon; the result does not depend on the thread
    /// count):
    ///
    /// 0. the body of every row block (parallel over rows); then, per range of bodies (one task
    ///    per thread, each scanning the body list), a counting sort of the row blocks by body:
    ///    per body B its row blocks R_B in increasing order;
    /// 1. per body B (chunks of bodies), the Gram block G_B = H_Bᵀ H_B, its upper triangle
    ///    packed row by row, each H computed once (12 products in 3D with the structured
    ///    factor);
    /// 2. per row r on bodies A and B, its number of entries (the length of the merge of R_A
    ///    and R_B), written into the row pointers and summed in place;
    /// 3. per row, the sorted merge of the row lists of A and B, branch-free with the known
    ///    count, each value read from the row of r in G_A (and G_B) and written in place into
    ///    the row's slice of the output (no triplets, no sort); lists up to `SHORT` (15) rows
    ///    (a sphere packing's, or a box's without friction) are first unpacked into fixed
    ///    arrays with an end sentinel.
    ///
    /// The working arrays hold `u32` indices when the row blocks and bodies fit, which halves
    /// their memory; the temporaries (about 7 MB for the 96 256-contact lattice of the
    /// assembly bench) are kept small beside the output (17 MB), because where we measured
    /// (docs/performance.md) the first touch of fresh memory costs as much as the arithmetic.
    ///
    /// Every entry is one Gram value or the sum of two (added in either order, which is exact),
    /// so W is exactly symmetric. Row blocks on a body without a mass block (a fixed body, which
    /// [`Jacobian`] never lists) give explicit zeros; blocks on a body index past the mass
    /// matrix contribute nothing.
    pub fn delassus_csr(&self, j: &Jacobian) -> Csr {
        let fits = |n: usize| n < u32::MAX as usize;
        if fits(2 * j.n_rows()) && fits(self.blocks.len()) {
            self.delassus_csr_with::<u32>(j)
        } else {
            self.delassus_csr_with::<usize>(j)
        }
    }

    fn delassus_csr_with<I: Index>(&self, j: &Jacobian) -> Csr {
        let m = j.n_rows();
        let n_bodies = self.blocks.len();
        // Pass 0a: blk[e], the body of row block e (NONE if absent).
        let mut blk = vec![I::NONE; 2 * m];
        blk.par_chunks_mut(2 * ROW_CHUNK).enumerate().for_each(|(c, out)| {
            for (i, pair) in out.chunks_exact_mut(2).enumerate() {
                for (k, b) in j.rows[c * ROW_CHUNK + i].blocks().iter().enumerate() {
                    if b.body < n_bodies {
                        pair[k] = I::of(b.body);
                    }
                }
            }
        });
        // Pass 0b: counting sort by body, one task per range of bodies.
        let parts = ranges(n_bodies, rayon::current_num_threads());
        // Counts per body into ptr[1..], then summed in place into the list pointers.
        let mut ptr = vec![0usize; n_bodies + 1];
        {
            let mut tasks = Vec::with_capacity(parts.len());
            let mut rest = &mut ptr[1..];
            for &(lo, hi) in &parts {
                let (chunk, tail) = std::mem::take(&mut rest).split_at_mut(hi - lo);
                rest = tail;
                tasks.push((lo, hi, chunk));
            }
            tasks.into_par_iter().for_each(|(lo, hi, chunk)| {
                for &b in &blk {
                    let b = b.at();
                    if (lo..hi).contains(&b) {
                        chunk[b - lo] += 1;
                    }
                }
            });
        }
        for b in 0..n_bodies {
            ptr[b + 1] += ptr[b];
        }
        let n_blocks = ptr[n_bodies];
        let mut body_rows = vec![I::NONE; n_blocks];
        {
            let mut tasks = Vec::with_capacity(parts.len());
            let mut rest = &mut body_rows[..];
            for &(lo, hi) in &parts {
                let (r, rt) = std::mem::take(&mut rest).split_at_mut(ptr[hi] - ptr[lo]);
                rest = rt;
                tasks.push((lo, hi, r));
            }
            tasks.into_par_iter().for_each(|(lo, hi, rows)| {
                let base = ptr[lo];
                let mut fill: Vec<usize> = ptr[lo..hi].iter().map(|p| p - base).collect();
                for (e, &b) in blk.iter().enumerate() {
                    let b = b.at();
                    if (lo..hi).contains(&b) {
                        let at = fill[b - lo];
                        rows[at] = I::of(e);
                        fill[b - lo] = at + 1;
                    }
                }
            });
        }
        // Pass 1: Gram blocks, upper triangles packed row by row (n (n + 1) / 2 values for
        // n = |R_B|), body B's at g_ptr[B] - g_ptr[first body of its chunk] in its chunk's
        // vector (each chunk's written once, in order: no zero fill).
        let mut g_ptr = Vec::with_capacity(n_bodies + 1);
        g_ptr.push(0usize);
        for b in 0..n_bodies {
            let n = ptr[b + 1] - ptr[b];
            g_ptr.push(g_ptr[b] + n * (n + 1) / 2);
        }
        let grams: Vec<Vec<f64>> = (0..n_bodies.div_ceil(BODY_CHUNK))
            .into_par_iter()
            .map(|c| {
                let (start, end) = (c * BODY_CHUNK, ((c + 1) * BODY_CHUNK).min(n_bodies));
                let mut g = Vec::with_capacity(g_ptr[end] - g_ptr[start]);
                let mut half: Vec<[f64; 6]> = Vec::new();
                for b in start..end {
                    let Some(Some(mb)) = self.blocks.get(b) else {
                        // A body without a mass block (fixed): zero Gram block.
                        g.resize(g_ptr[b + 1] - g_ptr[start], 0.0);
                        continue;
                    };
                    half.clear();
                    half.extend(body_rows[ptr[b]..ptr[b + 1]].iter().map(|e| {
                        let mut y = [0.0; 6];
                        let x = &j.rows[e.at() >> 1].blocks[e.at() & 1].values;
                        mb.half_apply(&x[..mb.len], &mut y);
                        y
                    }));
                    for (p, hp) in half.iter().enumerate() {
                        g.extend(half[p..].iter().map(|hq| dot6(hp, hq)));
                    }
                }
                g
            })
            .collect();
        // The list of row block e's body (empty for an absent block); with it, the body's
        // packed Gram block and e's place in the list.
        let list = |e: usize| -> &[I] {
            let b = blk[e].at();
            if b >= n_bodies {
                return &[][..];
            }
            &body_rows[ptr[b]..ptr[b + 1]]
        };
        let block = |e: usize| -> (&[I], &[f64], usize) {
            let b = blk[e].at();
            if b >= n_bodies {
                return (&[][..], &[][..], 0);
            }
            let list = list(e);
            let place = list.iter().position(|&x| x == I::of(e)).unwrap_or(0);
            let c = b / BODY_CHUNK;
            let g0 = g_ptr[c * BODY_CHUNK];
            (list, &grams[c][g_ptr[b] - g0..g_ptr[b + 1] - g0], place)
        };
        // Pass 2: entries per row = |R_A| + |R_B| - (rows on both A and B), written into the
        // row pointers and summed in place. Short lists count the common rows by comparing
        // every pair (branch-free); long ones by a merge.
        let mut row_ptr = vec![0usize; m + 1];
        row_ptr[1..].par_chunks_mut(ROW_CHUNK).enumerate().for_each(|(c, out)| {
            for (i, count) in out.iter_mut().enumerate() {
                let r = c * ROW_CHUNK + i;
                let (la, lb) = (list(2 * r), list(2 * r + 1));
                let common = if la.len() <= SHORT && lb.len() <= SHORT {
                    la.iter()
                        .map(|x| lb.iter().filter(|y| y.at() >> 1 == x.at() >> 1).count())
                        .sum::<usize>()
                } else {
                    let (mut p, mut q, mut n) = (0, 0, 0);
                    while p < la.len() && q < lb.len() {
                        let (sa, sb) = (la[p].at() >> 1, lb[q].at() >> 1);
                        n += usize::from(sa == sb);
                        p += usize::from(sa <= sb);
                        q += usize::from(sb <= sa);
                    }
                    n
                };
                *count = la.len() + lb.len() - common;
            }
        });
        for r in 0..m {
            row_ptr[r + 1] += row_ptr[r];
        }
        let total = row_ptr[m];
        // Pass 3: fill each chunk of rows into its own slice of the output.
        // Zero-filled by the pool, so the first touch of the fresh pages (the page faults,
        // which cost more than the fill on some machines) is shared among the threads.
        let (mut col, mut val) = (Vec::new(), Vec::new());
        rayon::iter::repeat_n((0usize, 0.0f64), total)
            .with_min_len(1 << 16)
            .unzip_into_vecs(&mut col, &mut val);
        let mut tasks = Vec::with_capacity(m.div_ceil(ROW_CHUNK));
        let (mut col_rest, mut val_rest) = (&mut col[..], &mut val[..]);
        for start in (0..m).step_by(ROW_CHUNK) {
            let end = (start + ROW_CHUNK).min(m);
            let len = row_ptr[end] - row_ptr[start];
            let (c, cr) = std::mem::take(&mut col_rest).split_at_mut(len);
            let (v, vr) = std::mem::take(&mut val_rest).split_at_mut(len);
            col_rest = cr;
            val_rest = vr;
            tasks.push((start, end, c, v));
        }
        tasks.into_par_iter().for_each(|(start, end, cols, vals)| {
            let base = row_ptr[start];
            let (mut ka, mut va) = ([END; SHORT + 1], [0.0; SHORT + 1]);
            let (mut kb, mut vb) = ([END; SHORT + 1], [0.0; SHORT + 1]);
            for r in start..end {
                let ((la, ga, pa), (lb, gb, pb)) = (block(2 * r), block(2 * r + 1));
                let span = row_ptr[r] - base..row_ptr[r + 1] - base;
                let (cs, vs) = (&mut cols[span.clone()], &mut vals[span]);
                // Exactly count(r) steps; each takes the smaller head (or both when equal), and
                // both lists are not exhausted before the last step.
                if la.len() <= SHORT && lb.len() <= SHORT {
                    // Short lists (every row of a sphere packing): the keys and the unpacked
                    // Gram rows in fixed arrays with an END sentinel, no bounds checks.
                    unpack_row(la, ga, pa, &mut ka, &mut va);
                    unpack_row(lb, gb, pb, &mut kb, &mut vb);
                    let (mut p, mut q) = (0, 0);
                    for (c, v) in cs.iter_mut().zip(vs.iter_mut()) {
                        let (sa, sb) = (ka[p & SHORT], kb[q & SHORT]);
                        let (ta, tb) = (sa <= sb, sb <= sa);
                        *c = sa.min(sb);
                        *v = if ta { va[p & SHORT] } else { 0.0 }
                            + if tb { vb[q & SHORT] } else { 0.0 };
                        p += usize::from(ta);
                        q += usize::from(tb);
                    }
                } else {
                    let (na, nb) = (la.len(), lb.len());
                    let (mut p, mut q) = (0, 0);
                    // A read past one end gives END / 0.0.
                    for (c, v) in cs.iter_mut().zip(vs.iter_mut()) {
                        let sa = la.get(p).map_or(END, |e| e.at() >> 1);
                        let sb = lb.get(q).map_or(END, |e| e.at() >> 1);
                        let (ta, tb) = (sa <= sb, sb <= sa);
                        let va = if ta { ga.get(packed(na, pa, p)).copied() } else { None };
                        let vb = if tb { gb.get(packed(nb, pb, q)).copied() } else { None };
                        *c = sa.min(sb);
                        *v = va.unwrap_or(0.0) + vb.unwrap_or(0.0);
                        p += usize::from(ta);
                        q += usize::from(tb);
                    }
                }
            }
        });
        Csr { nrows: m, ncols: m, row_ptr, col, val }
    }
}

/// A general dense symmetric positive definite M (articulated models), inverted through its
/// Cholesky factor (faer, sequential).
#[derive(Debug)]
pub struct DenseMass {
    m: Mat<f64>,
    llt: faer::linalg::solvers::Llt<f64>,
}

impl DenseMass {
    /// Factors M; errors if M is not square, not finite, not symmetric (relative 1e-12) or not
    /// positive definite.
    pub fn new(m: Mat<f64>) -> Result<Self, ContactError> {
        let n = m.nrows();
        if m.ncols() != n {
            return Err(ContactError::Mass(format!("{}x{} is not square", n, m.ncols())));
        }
        let mut scale = 0.0_f64;
        for j in 0..n {
            for i in 0..n {
                if !m[(i, j)].is_finite() {
                    return Err(ContactError::Mass(format!("entry ({i}, {j}) is not finite")));
                }
                scale = scale.max(m[(i, j)].abs());
            }
        }
        for j in 0..n {
            for i in 0..j {
                if (m[(i, j)] - m[(j, i)]).abs() > 1e-12 * scale {
                    return Err(ContactError::Mass(format!("not symmetric at ({i}, {j})")));
                }
            }
        }
        let llt = m
            .as_ref()
            .llt(faer::Side::Lower)
            .map_err(|e| ContactError::Mass(format!("not positive definite: {e:?}")))?;
        Ok(Self { m, llt })
    }
}

impl MassMatrix for DenseMass {
    fn n_dofs(&self) -> usize {
        self.m.nrows()
    }

    fn apply(&self, x: &[f64], y: &mut [f64]) {
        let n = self.m.nrows();
        for (i, yi) in y.iter_mut().enumerate().take(n) {
            *yi = (0..n).map(|k| self.m[(i, k)] * x[k]).sum();
        }
    }

    fn apply_inverse(&self, x: &[f64], y: &mut [f64]) {
        let n = self.m.nrows();
        let mut rhs = Mat::from_fn(n, 1, |i, _| x[i]);
        self.llt.solve_in_place(&mut rhs);
        for (i, yi) in y.iter_mut().enumerate().take(n) {
            *yi = rhs[(i, 0)];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::detect_contacts;
    use crate::math::Quat;
    use crate::shape::Shape;

    /// A box on the floor (four corners), a sphere with a rotated, non-uniform inertia on the
    /// box and a particle beside it, with a k = 8 friction cone: the box's row list (45 rows)
    /// takes the long-list path of the fill, the sphere's and the particle's the short one.
    fn stack() -> (Jacobian, BlockDiagonalMass) {
        let dim = Dimension::Three;
        let half = [0.5, 0.25, 0.5];
        let mut ball =
            Body::rigid("ball", dim, 2.0, Shape::Sphere { radius: 0.3 }, [0.1, 0.8, 0.0]);
        ball.inertia = [0.1, 0.2, 0.3];
        ball.orientation = Quat::from_rotation_vector([0.3, -0.2, 0.5]);
        let bodies = vec![
            Body::fixed("floor", Shape::HalfSpace { normal: [0.0, 1.0, 0.0], offset: 0.0 }),
            Body::rigid("box", dim, 3.0, Shape::Box { half_extents: half }, [0.0, 0.25, 0.0]),
            ball,
            Body::particle("dot", dim, 0.5, Shape::Sphere { radius: 0.1 }, [0.6, 0.35, 0.0]),
        ];
        let layout = DofLayout::new(dim, &bodies);
        let contacts = detect_contacts(&bodies, dim, 1e-9).expect("contacts");
        let jac = Jacobian::with_friction(&layout, &bodies, &contacts, 8);
        (jac, BlockDiagonalMass::new(&layout, &bodies))
    }

    #[test]
    fn long_lists_and_both_index_types_match_the_dense_product() {
        let (jac, mass) = stack();
        let on_box = jac.rows.iter().filter(|r| r.blocks().iter().any(|b| b.body == 1)).count();
        assert!(on_box > SHORT, "the box has {on_box} rows");
        let narrow = mass.delassus_csr_with::<u32>(&jac);
        let wide = mass.delassus_csr_with::<usize>(&jac);
        assert_eq!(narrow, wide);
        // The generic product: dense M^-1 J^T columns (MassMatrix's default) from a dense M.
        let dense = mass.dense_matrix();
        let generic = DenseMass::new(dense).expect("SPD").delassus(&jac).to_dense();
        let ours = narrow.to_coo().to_dense();
        let scale = generic.iter().flatten().fold(0.0_f64, |a, v| a.max(v.abs()));
        assert!(scale > 0.0);
        for (i, (a, b)) in ours.iter().zip(&generic).enumerate() {
            for (k, (x, y)) in a.iter().zip(b).enumerate() {
                assert!((x - y).abs() <= 1e-12 * scale, "W[{i}][{k}] = {x} against {y}");
            }
        }
    }

    #[test]
    fn structured_blocks_match_their_dense_forms() {
        let (_, mass) = stack();
        for b in mass.blocks.iter().flatten() {
            let (n, m, l) = (b.len, b.mass_matrix(), b.inverse_factor());
            // M L L^T = I.
            for i in 0..n {
                for k in 0..n {
                    let mut v = 0.0;
                    for p in 0..n {
                        let llt: f64 = (0..n).map(|q| l[p * n + q] * l[k * n + q]).sum();
                        v += m[i * n + p] * llt;
                    }
                    let id = if i == k { 1.0 } else { 0.0 };
                    assert!(
                        (v - id).abs() < 1e-12,
                        "block at {}: (M L L^T)[{i}][{k}] = {v}",
                        b.offset
                    );
                }
            }
            // half_apply is L^T x.
            let x: Vec<f64> = (0..n).map(|i| 1.0 + i as f64).collect();
            let mut y = [0.0; 6];
            b.half_apply(&x, &mut y);
            for i in 0..n {
                let want: f64 = (0..n).map(|k| l[k * n + i] * x[k]).sum();
                assert!((y[i] - want).abs() < 1e-14, "L^T x [{i}]");
            }
        }
    }
}
