//! Dense LU factorisations through faer's in-place kernels run with `Par::Seq`, so that a
//! result does not depend on the size of the rayon pool it runs in (DESIGN.md §8: faer's
//! high-level `partial_piv_lu` / `full_piv_lu` take the global parallelism, and their
//! blocked updates then sum in an order that varies with the thread count; `murty` differed
//! between 1 and 2 threads in 608 of 3 000 entries, issue 14 §2). Also the diagonal
//! (row/column) equilibration that `enum` applies before it factorises a principal subsystem.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::lu::{full_pivoting, partial_pivoting};
use faer::perm::PermRef;
use faer::{Conj, Mat, MatMut, MatRef, Par};

/// P A = L U with partial pivoting, factorised sequentially.
pub(crate) struct SeqPartialLu {
    lu: Mat<f64>,
    fwd: Vec<usize>,
    bwd: Vec<usize>,
}

impl SeqPartialLu {
    /// Factorises the square matrix `a` (consumed as the workspace).
    pub(crate) fn factor(mut a: Mat<f64>) -> Self {
        let n = a.nrows();
        debug_assert_eq!(n, a.ncols());
        let mut fwd = vec![0usize; n];
        let mut bwd = vec![0usize; n];
        let req = partial_pivoting::factor::lu_in_place_scratch::<usize, f64>(
            n,
            n,
            Par::Seq,
            Default::default(),
        );
        let mut buf = MemBuffer::new(req);
        partial_pivoting::factor::lu_in_place(
            a.as_mut(),
            &mut fwd,
            &mut bwd,
            Par::Seq,
            MemStack::new(&mut buf),
            Default::default(),
        );
        Self { lu: a, fwd, bwd }
    }

    /// Overwrites `rhs` with A^-1 rhs.
    pub(crate) fn solve_in_place(&self, rhs: MatMut<'_, f64>) {
        let n = self.lu.nrows();
        let perm = PermRef::new_checked(&self.fwd, &self.bwd, n);
        let req =
            partial_pivoting::solve::solve_in_place_scratch::<usize, f64>(n, rhs.ncols(), Par::Seq);
        let mut buf = MemBuffer::new(req);
        partial_pivoting::solve::solve_in_place_with_conj(
            self.lu.as_ref(),
            self.lu.as_ref(),
            perm,
            Conj::No,
            rhs,
            Par::Seq,
            MemStack::new(&mut buf),
        );
    }
}

/// P A Q = L U with complete (full) pivoting, factorised sequentially.
pub(crate) struct SeqFullLu {
    lu: Mat<f64>,
    row_fwd: Vec<usize>,
    row_bwd: Vec<usize>,
    col_fwd: Vec<usize>,
    col_bwd: Vec<usize>,
}

impl SeqFullLu {
    /// Factorises the square matrix `a` (consumed as the workspace).
    pub(crate) fn factor(mut a: Mat<f64>) -> Self {
        let n = a.nrows();
        debug_assert_eq!(n, a.ncols());
        let (mut row_fwd, mut row_bwd) = (vec![0usize; n], vec![0usize; n]);
        let (mut col_fwd, mut col_bwd) = (vec![0usize; n], vec![0usize; n]);
        let req = full_pivoting::factor::lu_in_place_scratch::<usize, f64>(
            n,
            n,
            Par::Seq,
            Default::default(),
        );
        let mut buf = MemBuffer::new(req);
        full_pivoting::factor::lu_in_place(
            a.as_mut(),
            &mut row_fwd,
            &mut row_bwd,
            &mut col_fwd,
            &mut col_bwd,
            Par::Seq,
            MemStack::new(&mut buf),
            Default::default(),
        );
        Self { lu: a, row_fwd, row_bwd, col_fwd, col_bwd }
    }

    /// The pivots, |U_ii|, in elimination order (complete pivoting makes them nonincreasing
    /// up to round-off).
    pub(crate) fn pivots(&self) -> impl Iterator<Item = f64> + '_ {
        (0..self.lu.nrows()).map(|i| self.lu[(i, i)].abs())
    }

    /// |last pivot| / |first pivot|, 0 for a singular (or empty) matrix: a cheap reciprocal
    /// condition estimate.
    pub(crate) fn pivot_ratio(&self) -> f64 {
        let first = self.pivots().next().unwrap_or(0.0);
        let last = self.pivots().fold(f64::INFINITY, f64::min);
        if first > 0.0 && last.is_finite() && !last.is_nan() {
            last / first
        } else {
            0.0
        }
    }

    /// Overwrites `rhs` with A^-1 rhs (meaningful only when every pivot is nonzero).
    pub(crate) fn solve_in_place(&self, rhs: MatMut<'_, f64>) {
        let n = self.lu.nrows();
        let p = PermRef::new_checked(&self.row_fwd, &self.row_bwd, n);
        let q = PermRef::new_checked(&self.col_fwd, &self.col_bwd, n);
        let req =
            full_pivoting::solve::solve_in_place_scratch::<usize, f64>(n, rhs.ncols(), Par::Seq);
        let mut buf = MemBuffer::new(req);
        full_pivoting::solve::solve_in_place_with_conj(
            self.lu.as_ref(),
            self.lu.as_ref(),
            p,
            q,
            Conj::No,
            rhs,
            Par::Seq,
            MemStack::new(&mut buf),
        );
    }
}

/// Row and column scales `(r, c)`, powers of two (so scaling is exact), with
/// diag(r) A diag(c) of row and column max-norms near 1: Ruiz's iteration (Ruiz 2001, "A
/// scaling algorithm to equilibrate both rows and columns norms in matrices", RAL-TR-2001-034),
/// `sweeps` times. A zero row or column keeps scale 1.
pub(crate) fn equilibrate(a: MatRef<'_, f64>, sweeps: usize) -> (Vec<f64>, Vec<f64>) {
    let (m, n) = (a.nrows(), a.ncols());
    let mut r = vec![1.0; m];
    let mut c = vec![1.0; n];
    let pow2 =
        |x: f64| if x > 0.0 && x.is_finite() { 2f64.powi(x.log2().round() as i32) } else { 1.0 };
    for _ in 0..sweeps {
        let mut rmax = vec![0.0f64; m];
        let mut cmax = vec![0.0f64; n];
        for j in 0..n {
            for i in 0..m {
                let v = (r[i] * a[(i, j)] * c[j]).abs();
                rmax[i] = rmax[i].max(v);
                cmax[j] = cmax[j].max(v);
            }
        }
        let mut changed = false;
        for (ri, &x) in r.iter_mut().zip(&rmax) {
            let f = pow2(1.0 / x.sqrt());
            changed |= f != 1.0;
            *ri *= f;
        }
        for (cj, &x) in c.iter_mut().zip(&cmax) {
            let f = pow2(1.0 / x.sqrt());
            changed |= f != 1.0;
            *cj *= f;
        }
        if !changed {
            break;
        }
    }
    (r, c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_and_partial_lu_solve() {
        let a =
            Mat::from_fn(3, 3, |i, j| [[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]][i][j]);
        let lu = SeqFullLu::factor(a.clone());
        assert!(lu.pivot_ratio() > 0.1);
        let mut x = Mat::from_fn(3, 1, |i, _| [3.0, 5.0, 5.0][i]);
        lu.solve_in_place(x.as_mut());
        for i in 0..3 {
            assert!((x[(i, 0)] - 1.0).abs() < 1e-12);
        }
        let plu = SeqPartialLu::factor(a);
        let mut y = Mat::from_fn(3, 1, |i, _| [3.0, 5.0, 5.0][i]);
        plu.solve_in_place(y.as_mut());
        assert!((0..3).all(|i| (y[(i, 0)] - 1.0).abs() < 1e-12));
    }

    #[test]
    fn equilibration_brings_badly_scaled_entries_to_one() {
        let a = Mat::from_fn(2, 2, |i, j| [[1e12, 1.0], [1.0, 1e-9]][i][j]);
        let (r, c) = equilibrate(a.as_ref(), 20);
        for i in 0..2 {
            let d = r[i] * a[(i, i)] * c[i];
            assert!((0.25..=4.0).contains(&d), "{d}");
        }
    }
}
