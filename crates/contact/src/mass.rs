//! Mass matrices behind one interface: the block-diagonal M of free bodies with closed-form
//! inverse blocks, and a general dense symmetric positive definite M (articulated models).

use faer::linalg::solvers::Solve;
use faer::Mat;
use rayon::prelude::*;

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

/// One diagonal block: M_B (row-major) and a factor L_B with M_B^-1 = L_B L_B^T.
#[derive(Debug, Clone, PartialEq)]
pub struct MassBlock {
    /// Offset of the block in v.
    pub offset: usize,
    /// Size of the block.
    pub len: usize,
    /// M_B, row-major len x len.
    pub mass: [f64; 36],
    /// L_B, row-major len x len, with M_B^-1 = L_B L_B^T.
    pub inverse_factor: [f64; 36],
}

impl MassBlock {
    /// y = L^T x (both of length len).
    fn half_apply(&self, x: &[f64], y: &mut [f64; 6]) {
        // Fixed sizes unrolled (the blocks are 2, 3 or 6 long).
        fn fixed<const N: usize>(l: &[f64; 36], x: &[f64], y: &mut [f64; 6]) {
            let x: &[f64; N] = match x.get(..N).and_then(|s| s.try_into().ok()) {
                Some(x) => x,
                None => return,
            };
            for i in 0..N {
                let mut s = 0.0;
                for k in 0..N {
                    s += l[k * N + i] * x[k];
                }
                y[i] = s;
            }
        }
        match self.len {
            6 => fixed::<6>(&self.inverse_factor, x, y),
            3 => fixed::<3>(&self.inverse_factor, x, y),
            2 => fixed::<2>(&self.inverse_factor, x, y),
            n => {
                for (i, yi) in y.iter_mut().enumerate().take(n) {
                    *yi = (0..n).map(|k| self.inverse_factor[k * n + i] * x[k]).sum();
                }
            }
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
                let mut mass = [0.0; 36];
                let mut inverse_factor = [0.0; 36];
                let lin = match layout.dimension {
                    Dimension::Two => 2,
                    Dimension::Three => 3,
                };
                for i in 0..lin {
                    mass[i * len + i] = b.mass;
                    inverse_factor[i * len + i] = 1.0 / b.mass.sqrt();
                }
                if b.kind == BodyKind::Rigid {
                    match layout.dimension {
                        Dimension::Two => {
                            mass[2 * len + 2] = b.inertia[2];
                            inverse_factor[2 * len + 2] = 1.0 / b.inertia[2].sqrt();
                        }
                        Dimension::Three => {
                            let r = b.rotation();
                            let inertia: Vec3 = b.inertia;
                            for i in 0..3 {
                                for k in 0..3 {
                                    let mut m = 0.0;
                                    for (l, il) in inertia.iter().enumerate() {
                                        m += r[i][l] * il * r[k][l];
                                    }
                                    mass[(3 + i) * len + 3 + k] = m;
                                    inverse_factor[(3 + i) * len + 3 + k] =
                                        r[i][k] / inertia[k].sqrt();
                                }
                            }
                        }
                    }
                }
                Some(MassBlock { offset, len, mass, inverse_factor })
            })
            .collect();
        Self { blocks, n_dofs: layout.n_dofs }
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

impl MassMatrix for BlockDiagonalMass {
    fn n_dofs(&self) -> usize {
        self.n_dofs
    }

    fn apply(&self, x: &[f64], y: &mut [f64]) {
        for b in self.blocks.iter().flatten() {
            let n = b.len;
            for i in 0..n {
                y[b.offset + i] = (0..n).map(|k| b.mass[i * n + k] * x[b.offset + k]).sum();
            }
        }
    }

    fn apply_inverse(&self, x: &[f64], y: &mut [f64]) {
        for b in self.blocks.iter().flatten() {
            let n = b.len;
            let mut t = [0.0; 6];
            b.half_apply(&x[b.offset..b.offset + n], &mut t);
            for i in 0..n {
                y[b.offset + i] = (0..n).map(|k| b.inverse_factor[i * n + k] * t[k]).sum();
            }
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

impl BlockDiagonalMass {
    /// W = J M^-1 J^T in compressed sparse row form, exploiting the block structure.
    ///
    /// With H_rk = L_B^T J_rB (the "half" factor of row r's k-th body block B, a 6-array), W_rs
    /// is the sum over the bodies B shared by rows r and s of H_rk . H_sl. One sequential pass
    /// over J lists, per body, its row blocks (in row order) and, beside each, the other body of
    /// that row; then three parallel passes (rayon, fixed chunks, so the result does not depend
    /// on the thread count):
    ///
    /// 1. per body B with row blocks R_B, the Gram block G_B = H_Bᵀ H_B: each H of B computed
    ///    once, the upper triangle computed and mirrored;
    /// 2. per row r on bodies A and B, its number of entries |R_A| + |R_B| - c, c the number of
    ///    rows on both A and B (counted branch-free from the other-body list of A); a prefix
    ///    sum gives the row pointers;
    /// 3. per row, the sorted merge of the row lists of A and B, branch-free with the known
    ///    count, each value read from the row of r in G_A (and G_B) and written in place into
    ///    the row's slice of the output (no triplets, no sort).
    ///
    /// Every entry is one Gram value or the sum of two (added in either order, which is exact),
    /// so W is exactly symmetric.
    pub fn delassus_csr(&self, j: &Jacobian) -> Csr {
        const NONE: usize = usize::MAX;
        let m = j.n_rows();
        let n_bodies = self.blocks.len();
        // Row block e = 2 r + k is the k-th block of row r; blk[e] is its body (NONE if absent).
        let mut blk = vec![NONE; 2 * m];
        let mut ptr = vec![0usize; n_bodies + 1];
        for (r, row) in j.rows.iter().enumerate() {
            for (k, b) in row.blocks().iter().enumerate() {
                blk[2 * r + k] = b.body;
                ptr[b.body + 1] += 1;
            }
        }
        for i in 0..n_bodies {
            ptr[i + 1] += ptr[i];
        }
        // Per body, the e of its row blocks (increasing) and the other body of each of those
        // rows; per row block, its place in its body's list.
        let mut fill = ptr.clone();
        let mut body_rows = vec![0usize; ptr[n_bodies]];
        let mut other = vec![NONE; ptr[n_bodies]];
        let mut place = vec![0usize; 2 * m];
        for (e, &b) in blk.iter().enumerate() {
            if b == NONE {
                continue;
            }
            let at = fill[b];
            body_rows[at] = e;
            other[at] = blk[e ^ 1];
            place[e] = at - ptr[b];
            fill[b] += 1;
        }
        drop(fill);
        // Pass 1: Gram blocks, body B's at gram[g_ptr[B]..], |R_B|² values, row-major.
        let mut g_ptr = Vec::with_capacity(n_bodies + 1);
        g_ptr.push(0usize);
        for b in 0..n_bodies {
            let n = ptr[b + 1] - ptr[b];
            g_ptr.push(g_ptr[b] + n * n);
        }
        let mut gram = vec![0.0f64; g_ptr[n_bodies]];
        {
            let mut tasks = Vec::with_capacity(n_bodies.div_ceil(BODY_CHUNK));
            let mut rest = &mut gram[..];
            for start in (0..n_bodies).step_by(BODY_CHUNK) {
                let end = (start + BODY_CHUNK).min(n_bodies);
                let (chunk, tail) =
                    std::mem::take(&mut rest).split_at_mut(g_ptr[end] - g_ptr[start]);
                rest = tail;
                tasks.push((start, end, chunk));
            }
            tasks.into_par_iter().for_each(|(start, end, chunk)| {
                let mut local: Vec<[f64; 6]> = Vec::new();
                let base = g_ptr[start];
                for b in start..end {
                    let list = &body_rows[ptr[b]..ptr[b + 1]];
                    let n = list.len();
                    let Some(Some(mb)) = self.blocks.get(b) else { continue };
                    local.clear();
                    // H of each row block on B, computed once (here, for its body only).
                    local.extend(list.iter().map(|&e| {
                        let mut y = [0.0; 6];
                        mb.half_apply(j.rows[e >> 1].blocks[e & 1].as_slice(), &mut y);
                        y
                    }));
                    let g = &mut chunk[g_ptr[b] - base..g_ptr[b + 1] - base];
                    for p in 0..n {
                        for q in p..n {
                            let v = dot6(&local[p], &local[q]);
                            g[p * n + q] = v;
                            g[q * n + p] = v;
                        }
                    }
                }
            });
        }
        // The list and the Gram row of row block e (empty for an absent block).
        let block = |e: usize| -> (&[usize], &[f64]) {
            let b = blk[e];
            if b == NONE {
                return (&[][..], &[][..]);
            }
            let n = ptr[b + 1] - ptr[b];
            let g0 = g_ptr[b] + place[e] * n;
            (&body_rows[ptr[b]..ptr[b + 1]], &gram[g0..g0 + n])
        };
        // Pass 2: entries per row = |R_A| + |R_B| - |rows on both A and B|.
        let counts: Vec<usize> = (0..m)
            .into_par_iter()
            .with_min_len(ROW_CHUNK)
            .map(|r| {
                let (a, b) = (blk[2 * r], blk[2 * r + 1]);
                if a == NONE {
                    return 0;
                }
                let na = ptr[a + 1] - ptr[a];
                if b == NONE {
                    return na;
                }
                let common = other[ptr[a]..ptr[a + 1]].iter().filter(|&&o| o == b).count();
                na + (ptr[b + 1] - ptr[b]) - common
            })
            .collect();
        let mut row_ptr = Vec::with_capacity(m + 1);
        row_ptr.push(0usize);
        let mut total = 0;
        for c in &counts {
            total += c;
            row_ptr.push(total);
        }
        drop(counts);
        // Pass 3: fill each chunk of rows into its own slice of the output.
        let mut col = vec![0usize; total];
        let mut val = vec![0.0f64; total];
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
            for r in start..end {
                let ((la, ga), (lb, gb)) = (block(2 * r), block(2 * r + 1));
                let (mut p, mut q) = (0, 0);
                // Exactly count(r) steps; each takes the smaller head (or both when equal), and
                // both lists are not exhausted before the last step, so no step reads past
                // both ends (a read past one end gives NONE / 0.0).
                for out in row_ptr[r] - base..row_ptr[r + 1] - base {
                    let sa = la.get(p).map_or(NONE, |e| e >> 1);
                    let sb = lb.get(q).map_or(NONE, |e| e >> 1);
                    let (ta, tb) = (sa <= sb, sb <= sa);
                    let va = if ta { ga.get(p).copied().unwrap_or(0.0) } else { 0.0 };
                    let vb = if tb { gb.get(q).copied().unwrap_or(0.0) } else { 0.0 };
                    cols[out] = sa.min(sb);
                    vals[out] = va + vb;
                    p += usize::from(ta);
                    q += usize::from(tb);
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
