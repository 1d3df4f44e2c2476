//! The one symmetry check of the crate: M against M' entry by entry, relative to the largest
//! |M_ij|; O(n²) for dense M, O(nnz log) for sparse M (a mirror that is not stored reads 0).
//! `apgd` and `bpp` use 1e-12, `qp` its `symmetry_tol`, the diagnostics their own tolerance.

use crate::{Lcp, Matrix};

/// The first entry (i, j, M_ij, M_ji) where M differs from M' by more than `rel_tol` times
/// the largest |M_ij|, if any.
pub fn asymmetry(lcp: &Lcp, rel_tol: f64) -> Option<(usize, usize, f64, f64)> {
    let n = lcp.n();
    match lcp.matrix() {
        Matrix::Dense(m) => {
            let mut max: f64 = 0.0;
            for j in 0..n {
                for i in 0..n {
                    max = max.max(m[(i, j)].abs());
                }
            }
            for j in 0..n {
                for i in 0..j {
                    let (a, b) = (m[(i, j)], m[(j, i)]);
                    if (a - b).abs() > rel_tol * max {
                        return Some((i, j, a, b));
                    }
                }
            }
            None
        }
        Matrix::Sparse(s) => {
            let max =
                (0..n).flat_map(|i| s.val_of_row(i).iter().map(|v| v.abs())).fold(0.0, f64::max);
            for i in 0..n {
                for (&j, &a) in s.col_idx_of_row_raw(i).iter().zip(s.val_of_row(i)) {
                    let b = lcp.get(j, i);
                    if (a - b).abs() > rel_tol * max {
                        return Some((i, j, a, b));
                    }
                }
            }
            None
        }
    }
}

/// True when [`asymmetry`] finds no entry beyond `rel_tol`.
pub fn is_symmetric(lcp: &Lcp, rel_tol: f64) -> bool {
    asymmetry(lcp, rel_tol).is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_sparse_agree_and_name_the_entry() {
        let dense =
            Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.5, 2.0]], vec![0.0, 0.0]).expect("valid");
        let sparse =
            Lcp::from_coo(2, &[0, 0, 1, 1], &[0, 1, 0, 1], &[2.0, 1.0, 1.5, 2.0], vec![0.0; 2])
                .expect("valid");
        for lcp in [&dense, &sparse] {
            let (i, j, a, b) = asymmetry(lcp, 1e-12).expect("asymmetric");
            assert_eq!((i.min(j), i.max(j)), (0, 1));
            assert_eq!((a - b).abs(), 0.5);
            assert!(is_symmetric(lcp, 0.3), "0.5 <= 0.3 * 2");
        }
        let upper_only = Lcp::from_coo(2, &[0, 0, 1], &[0, 1, 1], &[1.0, 0.5, 1.0], vec![0.0; 2])
            .expect("valid");
        assert!(!is_symmetric(&upper_only, 1e-12), "a missing mirror reads 0");
    }
}
