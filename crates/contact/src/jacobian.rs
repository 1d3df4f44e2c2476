//! The contact Jacobian J: one normal row per contact (d' = J v), then, with friction, k
//! tangential rows per contact (the directions of the polyhedral friction cone).
//!
//! A row touches at most two bodies, so it is stored as at most two dense blocks over the
//! bodies' velocity components ([`RowBlock`]); `to_coo` gives the generic sparse form.

use crate::body::{Body, BodyKind, Dimension, DofLayout};
use crate::detect::Contact;
use crate::math::{cross, scale, sub, tangent_basis, tangent_basis_rate, Vec3};

/// The part of a Jacobian row on one body's velocity block.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowBlock {
    /// Body index.
    pub body: usize,
    /// Offset of its block in v.
    pub offset: usize,
    /// Block size (2, 3 or 6).
    pub len: usize,
    /// Entries (the first `len` are used).
    pub values: [f64; 6],
}

impl RowBlock {
    /// The used entries.
    pub fn as_slice(&self) -> &[f64] {
        &self.values[..self.len]
    }
}

/// One row of J: up to two blocks (fixed bodies contribute none).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct JacobianRow {
    /// Blocks; the first `n_blocks` are used.
    pub blocks: [RowBlock; 2],
    /// Number of used blocks (0, 1 or 2).
    pub n_blocks: usize,
}

impl JacobianRow {
    /// The used blocks.
    pub fn blocks(&self) -> &[RowBlock] {
        &self.blocks[..self.n_blocks]
    }

    /// Row times a generalised vector.
    pub fn dot(&self, v: &[f64]) -> f64 {
        self.blocks()
            .iter()
            .map(|b| b.as_slice().iter().zip(&v[b.offset..]).map(|(a, x)| a * x).sum::<f64>())
            .sum()
    }
}

/// Sparse contact Jacobian, rows in the order: normals (contact order), then k tangential rows
/// per contact.
#[derive(Debug, Clone, PartialEq)]
pub struct Jacobian {
    /// Size of v.
    pub n_dofs: usize,
    /// Rows.
    pub rows: Vec<JacobianRow>,
}

/// Coordinate (triplet) form of a sparse matrix, as in the LCP file format's `coo`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Coo {
    /// Number of rows.
    pub nrows: usize,
    /// Number of columns.
    pub ncols: usize,
    /// Row indices.
    pub row: Vec<usize>,
    /// Column indices.
    pub col: Vec<usize>,
    /// Values.
    pub val: Vec<f64>,
}

impl Coo {
    /// Empty matrix of the given shape.
    pub fn new(nrows: usize, ncols: usize) -> Self {
        Self { nrows, ncols, row: Vec::new(), col: Vec::new(), val: Vec::new() }
    }

    /// Appends an entry.
    pub fn push(&mut self, i: usize, j: usize, v: f64) {
        self.row.push(i);
        self.col.push(j);
        self.val.push(v);
    }

    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.val.len()
    }

    /// Dense copy, rows of rows (duplicates summed); for tests and small problems.
    pub fn to_dense(&self) -> Vec<Vec<f64>> {
        let mut d = vec![vec![0.0; self.ncols]; self.nrows];
        for ((&i, &j), &v) in self.row.iter().zip(&self.col).zip(&self.val) {
            d[i][j] += v;
        }
        d
    }

    /// y = A x.
    pub fn mul_vec(&self, x: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; self.nrows];
        for ((&i, &j), &v) in self.row.iter().zip(&self.col).zip(&self.val) {
            y[i] += v * x[j];
        }
        y
    }
}

/// Compressed sparse row form: row r holds the entries `row_ptr[r]..row_ptr[r + 1]` of `col`
/// and `val`, columns increasing within a row.
#[derive(Debug, Clone, PartialEq)]
pub struct Csr {
    /// Number of rows.
    pub nrows: usize,
    /// Number of columns.
    pub ncols: usize,
    /// Row pointers (length nrows + 1).
    pub row_ptr: Vec<usize>,
    /// Column indices.
    pub col: Vec<usize>,
    /// Values.
    pub val: Vec<f64>,
}

impl Csr {
    /// Number of stored entries.
    pub fn nnz(&self) -> usize {
        self.val.len()
    }

    /// Coordinate form, in row order.
    pub fn to_coo(&self) -> Coo {
        let mut row = Vec::with_capacity(self.nnz());
        for r in 0..self.nrows {
            row.extend(std::iter::repeat_n(r, self.row_ptr[r + 1] - self.row_ptr[r]));
        }
        Coo {
            nrows: self.nrows,
            ncols: self.ncols,
            row,
            col: self.col.clone(),
            val: self.val.clone(),
        }
    }

    /// y = A x.
    pub fn mul_vec(&self, x: &[f64]) -> Vec<f64> {
        (0..self.nrows)
            .map(|r| {
                let span = self.row_ptr[r]..self.row_ptr[r + 1];
                self.col[span.clone()].iter().zip(&self.val[span]).map(|(&c, v)| v * x[c]).sum()
            })
            .collect()
    }
}

/// Spatial row [u, r × u] of a point with arm r moving with its body, projected on the body's
/// velocity components and scaled by `sign`.
fn body_block(
    layout: &DofLayout,
    bodies: &[Body],
    body: usize,
    point: Vec3,
    u: Vec3,
    sign: f64,
) -> Option<RowBlock> {
    let b = &bodies[body];
    if b.kind == BodyKind::Fixed {
        return None;
    }
    let arm = sub(point, b.position);
    let m = cross(arm, u);
    let spatial = [u[0], u[1], u[2], m[0], m[1], m[2]];
    let comps = DofLayout::spatial_components(layout.dimension, b.kind);
    let mut values = [0.0; 6];
    for (k, &c) in comps.iter().enumerate() {
        values[k] = sign * spatial[c];
    }
    let (offset, len) = layout.blocks[body];
    Some(RowBlock { body, offset, len, values })
}

/// The row of J for the relative velocity of the witness points along direction u (from b to a).
pub fn contact_row(layout: &DofLayout, bodies: &[Body], c: &Contact, u: Vec3) -> JacobianRow {
    let empty = RowBlock { body: 0, offset: 0, len: 0, values: [0.0; 6] };
    let mut row = JacobianRow { blocks: [empty; 2], n_blocks: 0 };
    for blk in [
        body_block(layout, bodies, c.body_a, c.point_a, u, 1.0),
        body_block(layout, bodies, c.body_b, c.point_b, u, -1.0),
    ]
    .into_iter()
    .flatten()
    {
        row.blocks[row.n_blocks] = blk;
        row.n_blocks += 1;
    }
    row
}

/// The k unit directions of the polyhedral friction cone in the tangent plane of normal n:
/// 2D: ±t with t = e_z × n (k must be 2); 3D: cos(2πj/k) t1 + sin(2πj/k) t2 with (t1, t2, n)
/// right-handed ([`tangent_basis`]).
pub fn friction_directions(dim: Dimension, n: Vec3, k: usize) -> Vec<Vec3> {
    match dim {
        Dimension::Two => {
            let t = [-n[1], n[0], 0.0];
            vec![t, scale(-1.0, t)]
        }
        Dimension::Three => {
            let (t1, t2) = tangent_basis(n);
            (0..k)
                .map(|j| {
                    let a = 2.0 * std::f64::consts::PI * j as f64 / k as f64;
                    let (s, c) = a.sin_cos();
                    [c * t1[0] + s * t2[0], c * t1[1] + s * t2[1], c * t1[2] + s * t2[2]]
                })
                .collect()
        }
    }
}

/// Rates of [`friction_directions`] when the normal moves with rate ṅ: 2D ±(−ṅ_y, ṅ_x);
/// 3D cos(2πj/k) ṫ1 + sin(2πj/k) ṫ2 with ṫ1, ṫ2 from [`tangent_basis_rate`].
pub fn friction_direction_rates(dim: Dimension, n: Vec3, n_dot: Vec3, k: usize) -> Vec<Vec3> {
    match dim {
        Dimension::Two => {
            let t = [-n_dot[1], n_dot[0], 0.0];
            vec![t, scale(-1.0, t)]
        }
        Dimension::Three => {
            let (t1, t2) = tangent_basis_rate(n, n_dot);
            (0..k)
                .map(|j| {
                    let a = 2.0 * std::f64::consts::PI * j as f64 / k as f64;
                    let (s, c) = a.sin_cos();
                    [c * t1[0] + s * t2[0], c * t1[1] + s * t2[1], c * t1[2] + s * t2[2]]
                })
                .collect()
        }
    }
}

impl Jacobian {
    /// Normal rows only (one per contact).
    pub fn normal(layout: &DofLayout, bodies: &[Body], contacts: &[Contact]) -> Self {
        let rows = contacts.iter().map(|c| contact_row(layout, bodies, c, c.normal)).collect();
        Self { n_dofs: layout.n_dofs, rows }
    }

    /// Normal rows, then k tangential rows per contact (see [`friction_directions`]).
    pub fn with_friction(
        layout: &DofLayout,
        bodies: &[Body],
        contacts: &[Contact],
        k: usize,
    ) -> Self {
        let mut j = Self::normal(layout, bodies, contacts);
        for c in contacts {
            for d in friction_directions(layout.dimension, c.normal, k) {
                j.rows.push(contact_row(layout, bodies, c, d));
            }
        }
        j
    }

    /// Number of rows.
    pub fn n_rows(&self) -> usize {
        self.rows.len()
    }

    /// J v.
    pub fn apply(&self, v: &[f64]) -> Vec<f64> {
        self.rows.iter().map(|r| r.dot(v)).collect()
    }

    /// J^T λ.
    pub fn apply_transpose(&self, lambda: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.n_dofs];
        for (row, &l) in self.rows.iter().zip(lambda) {
            for b in row.blocks() {
                for (k, &a) in b.as_slice().iter().enumerate() {
                    out[b.offset + k] += a * l;
                }
            }
        }
        out
    }

    /// Generic sparse form (rows x n_dofs).
    pub fn to_coo(&self) -> Coo {
        let mut coo = Coo::new(self.rows.len(), self.n_dofs);
        for (i, row) in self.rows.iter().enumerate() {
            for b in row.blocks() {
                for (k, &a) in b.as_slice().iter().enumerate() {
                    coo.push(i, b.offset + k, a);
                }
            }
        }
        coo
    }
}
