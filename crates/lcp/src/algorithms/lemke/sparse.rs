//! The sparse basis of Lemke's method: a sparse LU factorisation of the basis matrix B
//! (faer, with its fill-reducing column ordering) and the eta file of the pivots since
//! (product-form update: Dantzig, Orchard-Hays 1954; Chvátal 1983, *Linear Programming*,
//! ch. 24).
//!
//! B holds the columns of the basic variables in Iw - Mz - d z0 = q, position r holding the
//! column of the variable basic in row r. A pivot replaces column r by the entering column
//! a, B' = B E with E = I + (c - e_r) e_r' and c = B^-1 a, so B'^-1 = E^-1 B^-1 and each pivot
//! stores only (r, c): FTRAN (x = B^-1 a) is one LU solve followed by the etas in order, BTRAN
//! (y' = v' B^-1, for the rows of B^-1 the lexicographic test compares) the etas in reverse
//! order followed by one transposed LU solve. B is factorised afresh every `refactor` pivots,
//! after a pivot on an entry below [`SMALL_PIVOT`] times its column's largest, and before a
//! ray is declared; each fresh factorisation also recomputes the basic values x_B = B^-1 q.
//! Memory is that of M, the LU factors and at most `refactor` columns of etas, never n^2.

use faer::sparse::{SparseColMatRef, SymbolicSparseColMat};
use faer::MatMut;

use super::{inverse_row_ties, ratio_rows, step_length, Var, NONE};
use crate::linalg::sparse_lu::{self, SeqSparseLu};
use crate::{Lcp, Matrix};

/// A pivot entry below this times the largest |entry| of its column forces a fresh
/// factorisation after the pivot (its eta would amplify the round-off of every later solve).
pub const SMALL_PIVOT: f64 = 1e-6;

/// A fresh x_B = B^-1 q below -INFEASIBLE * max(1, max |x_B|) shows that the path has left the
/// feasible bases (every basis after the first pivot has x_B >= 0 in exact arithmetic; the
/// round-off measured on the 2D packing at n = 39 676 stayed below 4e-11 with max |x_B| = 2e4),
/// and the run ends `numerical_failure` there instead of pivoting on from a wrong basis.
pub const INFEASIBLE: f64 = 1e-8;

/// The basis of Iw - Mz - d z0 = q as a sparse LU of B plus an eta file.
pub(super) struct SparseTableau {
    n: usize,
    /// M by columns (CSC): rows and values of column k in `m_ptr[k]..m_ptr[k + 1]`.
    m_ptr: Vec<usize>,
    m_row: Vec<usize>,
    m_val: Vec<f64>,
    d: Vec<f64>,
    q: Vec<f64>,
    /// Row (position in B) -> basic variable.
    pub(super) basis: Vec<Var>,
    pub(super) row_of_z: Vec<usize>,
    row_of_z0: usize,
    /// Basic values x_B = B^-1 q.
    pub(super) x: Vec<f64>,
    lu: Option<SeqSparseLu>,
    /// Eta e: pivot row, pivot entry, and the other nonzeros of its column c in
    /// `eta_ptr[e]..eta_ptr[e + 1]`.
    eta_row: Vec<usize>,
    eta_piv: Vec<f64>,
    eta_ptr: Vec<usize>,
    eta_idx: Vec<usize>,
    eta_val: Vec<f64>,
    /// Pivots between fresh factorisations.
    refactor: usize,
    /// Factorisations not yet reported to the solve context.
    new_factorizations: usize,
    /// Work: tied rows of the ratio test.
    cand: Vec<usize>,
    /// Work: the rows of B^-1 of the tied rows, n each.
    rows: Vec<f64>,
    /// Work: the lexicographic test's rows still tied, with their scales.
    lex: Vec<(usize, f64)>,
}

impl SparseTableau {
    /// The starting basis (every w basic, B = I) and its factorisation.
    pub(super) fn new(lcp: &Lcp, d: Vec<f64>, refactor: usize) -> Result<Self, String> {
        let n = lcp.n();
        // Column counts, then a counting sort of the entries by column: rows arrive in
        // increasing order within each column (faer's storage holds no duplicate entries).
        let mut m_ptr = vec![0usize; n + 1];
        let mut m_row = Vec::new();
        let mut m_val = Vec::new();
        match lcp.matrix() {
            Matrix::Sparse(s) => {
                for i in 0..n {
                    for &j in s.col_idx_of_row_raw(i) {
                        m_ptr[j + 1] += 1;
                    }
                }
                for j in 0..n {
                    m_ptr[j + 1] += m_ptr[j];
                }
                m_row.resize(m_ptr[n], 0);
                m_val.resize(m_ptr[n], 0.0);
                let mut next = m_ptr.clone();
                for i in 0..n {
                    for (&j, &v) in s.col_idx_of_row_raw(i).iter().zip(s.val_of_row(i)) {
                        m_row[next[j]] = i;
                        m_val[next[j]] = v;
                        next[j] += 1;
                    }
                }
            }
            Matrix::Dense(dm) => {
                for j in 0..n {
                    for (i, &v) in dm.col(j).iter().enumerate() {
                        if v != 0.0 {
                            m_row.push(i);
                            m_val.push(v);
                        }
                    }
                    m_ptr[j + 1] = m_row.len();
                }
            }
        }
        let mut t = Self {
            n,
            m_ptr,
            m_row,
            m_val,
            d,
            q: lcp.q().to_vec(),
            basis: (0..n).map(Var::W).collect(),
            row_of_z: vec![NONE; n],
            row_of_z0: NONE,
            x: lcp.q().to_vec(),
            lu: None,
            eta_row: Vec::new(),
            eta_piv: Vec::new(),
            eta_ptr: vec![0],
            eta_idx: Vec::new(),
            eta_val: Vec::new(),
            refactor: refactor.max(1),
            new_factorizations: 0,
            cand: Vec::new(),
            rows: Vec::new(),
            lex: Vec::new(),
        };
        t.factor()?;
        Ok(t)
    }

    /// Factorisations since the last call.
    pub(super) fn take_factorizations(&mut self) -> usize {
        std::mem::take(&mut self.new_factorizations)
    }

    /// True when no pivot has been applied since the last factorisation.
    fn is_fresh(&self) -> bool {
        self.eta_row.is_empty()
    }

    /// Factorises B afresh, empties the eta file and recomputes x_B = B^-1 q.
    fn factor(&mut self) -> Result<(), String> {
        let n = self.n;
        let mut col_ptr = Vec::with_capacity(n + 1);
        let mut row_idx = Vec::new();
        let mut vals = Vec::new();
        col_ptr.push(0);
        for var in &self.basis {
            match *var {
                Var::W(i) => {
                    row_idx.push(i);
                    vals.push(1.0);
                }
                Var::Z(k) => {
                    for p in self.m_ptr[k]..self.m_ptr[k + 1] {
                        row_idx.push(self.m_row[p]);
                        vals.push(-self.m_val[p]);
                    }
                }
                Var::Z0 => {
                    for (i, &di) in self.d.iter().enumerate() {
                        row_idx.push(i);
                        vals.push(-di);
                    }
                }
            }
            col_ptr.push(row_idx.len());
        }
        // Valid by construction: rows sorted and unique within each column, in range.
        let symbolic = SymbolicSparseColMat::new_checked(n, n, col_ptr, None, row_idx);
        self.lu = None;
        let lu_symbolic =
            sparse_lu::analyse(symbolic.as_ref()).map_err(|e| format!("the basis matrix: {e}"))?;
        let lu = SeqSparseLu::factor(lu_symbolic, SparseColMatRef::new(symbolic.as_ref(), &vals))
            .map_err(|e| format!("the basis matrix: {e}"))?;
        self.lu = Some(lu);
        self.new_factorizations += 1;
        self.eta_row.clear();
        self.eta_piv.clear();
        self.eta_ptr.truncate(1);
        self.eta_idx.clear();
        self.eta_val.clear();
        let mut x = self.q.clone();
        self.ftran(&mut x);
        if !x.iter().all(|v| v.is_finite()) {
            return Err("the basis matrix is numerically singular (B^-1 q is not finite)".into());
        }
        if self.basis.iter().any(|v| !matches!(v, Var::W(_))) {
            let xmax = x.iter().fold(1.0f64, |a, v| a.max(v.abs()));
            let (row, xmin) =
                x.iter()
                    .enumerate()
                    .fold((0, f64::INFINITY), |a, (i, &v)| if v < a.1 { (i, v) } else { a });
            if xmin < -INFEASIBLE * xmax {
                return Err(format!(
                    "the basis left the feasible ones: a fresh factorisation gives x_B = {xmin:.3e} \
                     in row {row} (max |x_B| = {xmax:.3e}); round-off in the eta-updated solves \
                     chose a wrong pivot (try lemke:refactor=K with a smaller K, or \
                     lemke:basis=dense)"
                ));
            }
        }
        self.x = x;
        Ok(())
    }

    /// a <- B^-1 a.
    fn ftran(&self, a: &mut [f64]) {
        if let Some(lu) = &self.lu {
            lu.solve_in_place(MatMut::from_column_major_slice_mut(a, self.n, 1));
        }
        for e in 0..self.eta_row.len() {
            let r = self.eta_row[e];
            let xr = a[r] / self.eta_piv[e];
            a[r] = xr;
            if xr != 0.0 {
                for p in self.eta_ptr[e]..self.eta_ptr[e + 1] {
                    a[self.eta_idx[p]] -= self.eta_val[p] * xr;
                }
            }
        }
    }

    /// v' <- v' E_k^-1 ... E_1^-1, the first part of v' B^-1 = v' E_k^-1 ... E_1^-1 B_0^-1
    /// (the transposed LU solve with B_0 follows).
    fn btran_etas(&self, v: &mut [f64]) {
        for e in (0..self.eta_row.len()).rev() {
            let r = self.eta_row[e];
            let mut s = v[r];
            for p in self.eta_ptr[e]..self.eta_ptr[e + 1] {
                s -= self.eta_val[p] * v[self.eta_idx[p]];
            }
            v[r] = s / self.eta_piv[e];
        }
    }

    /// out = B^-1 a(var), a(var) the column of var in Iw - Mz - d z0 = q.
    pub(super) fn column_of(&self, var: Var, out: &mut [f64]) {
        out.iter_mut().for_each(|v| *v = 0.0);
        match var {
            Var::W(j) => out[j] = 1.0,
            Var::Z(k) => {
                for p in self.m_ptr[k]..self.m_ptr[k + 1] {
                    out[self.m_row[p]] = -self.m_val[p];
                }
            }
            Var::Z0 => out.iter_mut().zip(&self.d).for_each(|(o, &di)| *o = -di),
        }
        self.ftran(out);
    }

    /// Lexicographic minimum ratio test on the entering column c; None on a ray. Ties are
    /// broken on the rows of B^-1 of the tied rows (BTRAN: the etas row by row, then one
    /// transposed LU solve for all of them).
    pub(super) fn ratio_test(&mut self, c: &[f64], pivot_tol: f64) -> Option<usize> {
        if let Some(decided) = ratio_rows(c, &self.x, pivot_tol, self.row_of_z0, &mut self.cand) {
            return decided;
        }
        let n = self.n;
        let mut rows = std::mem::take(&mut self.rows);
        rows.clear();
        rows.resize(self.cand.len() * n, 0.0);
        for (k, &i) in self.cand.iter().enumerate() {
            let row = &mut rows[k * n..(k + 1) * n];
            row[i] = 1.0;
            self.btran_etas(row);
        }
        // One transposed LU solve for all of them (a multi-column solve).
        if let Some(lu) = &self.lu {
            let k = self.cand.len();
            lu.solve_transpose_in_place(MatMut::from_column_major_slice_mut(&mut rows, n, k));
        }
        let mut lex = std::mem::take(&mut self.lex);
        let row = inverse_row_ties(&self.cand, c, n, &mut lex, |k, j| rows[k * n + j]);
        self.lex = lex;
        self.rows = rows;
        row
    }

    /// Pivots `entering` (column c = B^-1 a) into row r and writes the column of `next` for
    /// the new basis into `c_next`. Refactorises every `refactor` pivots and after a small
    /// pivot; an error means the fresh factorisation failed.
    pub(super) fn pivot(
        &mut self,
        r: usize,
        entering: Var,
        c: &[f64],
        next: Option<Var>,
        c_next: &mut [f64],
    ) -> Result<(), String> {
        let cr = c[r];
        debug_assert!(cr != 0.0);
        let theta = step_length(self.x[r], cr);
        let mut cmax = 0.0f64;
        for (i, (&ci, xi)) in c.iter().zip(self.x.iter_mut()).enumerate() {
            cmax = cmax.max(ci.abs());
            if i != r && ci != 0.0 {
                *xi -= theta * ci;
                self.eta_idx.push(i);
                self.eta_val.push(ci);
            }
        }
        self.x[r] = theta;
        self.eta_row.push(r);
        self.eta_piv.push(cr);
        self.eta_ptr.push(self.eta_idx.len());
        match self.basis[r] {
            Var::Z(j) => self.row_of_z[j] = NONE,
            Var::Z0 => self.row_of_z0 = NONE,
            Var::W(_) => {}
        }
        match entering {
            Var::Z(j) => self.row_of_z[j] = r,
            Var::Z0 => self.row_of_z0 = r,
            Var::W(_) => {}
        }
        self.basis[r] = entering;
        if self.eta_row.len() >= self.refactor || cr.abs() < SMALL_PIVOT * cmax {
            self.factor()?;
        }
        if let Some(next) = next {
            self.column_of(next, c_next);
        }
        Ok(())
    }

    /// Factorises afresh (when any pivot was applied since the last factorisation) and
    /// recomputes the entering column; false when the factorisation was already fresh.
    pub(super) fn refresh(&mut self, entering: Var, c: &mut [f64]) -> Result<bool, String> {
        if self.is_fresh() {
            return Ok(false);
        }
        self.factor()?;
        self.column_of(entering, c);
        Ok(true)
    }

    /// One step of iterative refinement of x_B: x_B += B^-1 (q - B x_B).
    pub(super) fn refine(&mut self) {
        let mut res = self.q.clone();
        for (row, var) in self.basis.iter().enumerate() {
            let xr = self.x[row];
            match *var {
                Var::W(i) => res[i] -= xr,
                Var::Z(k) => {
                    for p in self.m_ptr[k]..self.m_ptr[k + 1] {
                        res[self.m_row[p]] += xr * self.m_val[p];
                    }
                }
                Var::Z0 => res.iter_mut().zip(&self.d).for_each(|(v, &di)| *v += xr * di),
            }
        }
        self.ftran(&mut res);
        self.x.iter_mut().zip(&res).for_each(|(x, d)| *x += d);
    }
}
