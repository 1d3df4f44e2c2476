//! Sparse LU factorisations through faer's lower-level API with `Par::Seq`.
//!
//! faer's high-level `Lu::try_new_with_symbolic` and its `Solve` methods take the global
//! parallelism (rayon's whole pool by default). On the small supernodes of a contact
//! problem's matrices the pool's threads spend their time waiting on each other: a `perf`
//! profile of `lemke:basis=sparse` on the FCC pile with 4-facet friction (n = 6702) put
//! more than half of the run in the kernel's scheduler (`sched_yield`, task switches, a
//! contended mutex), and the blocked updates sum in an order that depends on the thread
//! count (DESIGN.md §8, as for the dense LU of `linalg::dense_lu`). Every factorisation
//! and solve here is sequential, so a result is the same bits whatever the pool.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::sparse::linalg::lu::{
    factorize_symbolic_lu, LuRef, LuSymbolicParams, NumericLu, SymbolicLu,
};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::{Conj, MatMut, Par};

/// The symbolic analysis (fill-reducing column order, elimination structure) of a square
/// sparse pattern.
pub fn analyse(pattern: SymbolicSparseColMatRef<'_, usize>) -> Result<SymbolicLu<usize>, String> {
    factorize_symbolic_lu(pattern, LuSymbolicParams::default())
        .map_err(|e| format!("symbolic LU failed: {e:?}"))
}

/// P A Q = L U of a square sparse matrix, factorised and solved sequentially.
#[derive(Debug)]
pub struct SeqSparseLu {
    symbolic: SymbolicLu<usize>,
    numeric: NumericLu<usize, f64>,
}

impl SeqSparseLu {
    /// Factorises `a`, whose pattern is the one `symbolic` was computed from.
    pub fn factor(
        symbolic: SymbolicLu<usize>,
        a: SparseColMatRef<'_, usize, f64>,
    ) -> Result<Self, String> {
        let mut numeric = NumericLu::new();
        let req = symbolic.factorize_numeric_lu_scratch::<f64>(Par::Seq, Default::default());
        let mut buf =
            MemBuffer::try_new(req).map_err(|_| "out of memory for the LU".to_string())?;
        symbolic
            .factorize_numeric_lu(
                &mut numeric,
                a,
                Par::Seq,
                MemStack::new(&mut buf),
                Default::default(),
            )
            .map_err(|e| format!("numeric LU failed: {e:?}"))?;
        Ok(Self { symbolic, numeric })
    }

    /// The symbolic analysis this factorisation used (for the next one of the same pattern).
    pub fn symbolic(&self) -> &SymbolicLu<usize> {
        &self.symbolic
    }

    fn lu(&self) -> LuRef<'_, usize, f64> {
        LuRef::new_unchecked(&self.symbolic, &self.numeric)
    }

    /// rhs <- A^-1 rhs (every column).
    pub fn solve_in_place(&self, rhs: MatMut<'_, f64>) {
        let req = self.symbolic.solve_in_place_scratch::<f64>(rhs.ncols(), Par::Seq);
        let mut buf = MemBuffer::new(req);
        self.lu().solve_in_place_with_conj(Conj::No, rhs, Par::Seq, MemStack::new(&mut buf));
    }

    /// rhs <- A^-T rhs (every column).
    pub fn solve_transpose_in_place(&self, rhs: MatMut<'_, f64>) {
        let req = self.symbolic.solve_transpose_in_place_scratch::<f64>(rhs.ncols(), Par::Seq);
        let mut buf = MemBuffer::new(req);
        self.lu().solve_transpose_in_place_with_conj(
            Conj::No,
            rhs,
            Par::Seq,
            MemStack::new(&mut buf),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use faer::sparse::{SparseColMat, Triplet};

    #[test]
    fn solves_both_ways_against_the_matrix() {
        // A nonsymmetric 4 x 4 with a zero diagonal entry (needs row pivoting).
        let t = [
            (0, 1, 2.0),
            (0, 3, -1.0),
            (1, 0, 1.0),
            (1, 1, 3.0),
            (2, 2, 4.0),
            (2, 0, -2.0),
            (3, 3, 1.5),
            (3, 1, 0.5),
        ];
        let trips: Vec<_> = t.iter().map(|&(i, j, v)| Triplet::new(i, j, v)).collect();
        let a = SparseColMat::<usize, f64>::try_new_from_triplets(4, 4, &trips).expect("valid");
        let lu = SeqSparseLu::factor(analyse(a.symbolic()).expect("analyses"), a.as_ref())
            .expect("factorises");
        let x = [1.0, -2.0, 0.5, 3.0];
        let mut ax = [0.0; 4];
        let mut atx = [0.0; 4];
        for &(i, j, v) in &t {
            ax[i] += v * x[j];
            atx[j] += v * x[i];
        }
        lu.solve_in_place(MatMut::from_column_major_slice_mut(&mut ax, 4, 1));
        lu.solve_transpose_in_place(MatMut::from_column_major_slice_mut(&mut atx, 4, 1));
        for k in 0..4 {
            assert!((ax[k] - x[k]).abs() < 1e-14, "{ax:?}");
            assert!((atx[k] - x[k]).abs() < 1e-14, "{atx:?}");
        }
    }
}
