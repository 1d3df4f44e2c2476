//! The Newton matrix G G' + E (E a positive diagonal) of a Gram-form M = G G' + D
//! ([`GramMatrix`], G n x p), solved in the p unknowns of G's columns instead of its n rows.
//!
//! By the Sherman–Morrison–Woodbury identity,
//!
//! (G G' + E)⁻¹ r = E⁻¹ (r − G u),   K u = G' E⁻¹ r,   K = I + G' E⁻¹ G,
//!
//! with K p x p and positive definite for every E > 0, also where G G' is singular (more
//! contacts than degrees of freedom). For a Delassus matrix W = J M⁻¹ J' (G = J L,
//! M⁻¹ = L L' blockwise) K = L' (M + J' E⁻¹ J) L: the matrix of the bodies' velocities, whose
//! graph links bodies in contact, where that of W links every two contacts of one body. On the
//! suite's packings its sparse Cholesky factorisation is 1.5–4 times faster than that of
//! W + E (measured in docs/performance.md). The interior-point method is the user
//! (`ipm` on a Gram-form M): E = D + Z⁻¹W there.
//!
//! Where E has entries far below the others (the active contacts near an interior-point
//! solution), the back substitution E⁻¹ (r − G u) amplifies the rounding error of u; up to
//! [`MAX_REFINEMENTS`] steps of iterative refinement on the n x n system (one product with G'
//! and one with G each, counted as a matrix-vector product) bring the residual of the solve
//! back to [`REFINE_TOL`] relative to the right-hand side (or a looser tolerance set by the
//! caller, [`GramNewton::set_refine_tol`]), or stop when one no longer halves it.
//!
//! K's pattern is built once (the symbolic product G' G, O(Σ_i nnz(G_i)²); entries of G stored
//! as exact zeros, such as a sphere's rotation under a normal contact, are left out), with the list of
//! entries that each product G_ia G_ib updates, so that a numeric assembly of K is one pass
//! over that list; one fill-reducing ordering and one symbolic analysis
//! ([`PrincipalCholesky::from_pattern`]) serve every factorisation.

use crate::gram::GramMatrix;
use crate::linalg::jacobian_system::{LinearError, PrincipalCholesky};
use crate::solver::SolveContext;

/// Each e_i is raised to at least this times M_ii (1 where M_ii = 0) before the
/// factorisation. An interior-point iterate drives e_i = w_i / z_i of an active row towards
/// 0 (below 1e-300 on the hexagonal packing); against M_ii that is below round-off in
/// M + E, but its inverse in K overflows or swamps the unit diagonal. The value is measured:
/// with 1e-13 (and 1e-14) `ipm` solved every packing family of `packings_speed` at 10^3 to
/// 3·10^4 unknowns; with 1e-10, 1e-12 or 1e-15 it stalled on at least one of them between
/// residual 4e-8 and 4e-6 (docs/performance.md).
pub const E_FLOOR: f64 = 1e-13;

/// A pivot of K's Cholesky factorisation below this is round-off: K = I + G' E⁻¹ G has
/// every pivot >= 1 in exact arithmetic (a Schur complement of I + PSD dominates I).
const REGULARIZATION_EPSILON: f64 = 0.5;
/// What such a pivot is replaced by (faer's dynamic regularisation).
const REGULARIZATION_DELTA: f64 = 1.0;

/// Multiplier of faer's rule for taking the supernodal Cholesky over the simplicial one
/// (faer: supernodal when the factorisation's flops exceed 40 nnz(L); here 20 nnz(L)).
/// Measured (release, `packings_speed --form matrix-free --repeats 3`, medians, 10^4): K of the
/// 2D hexagonal packings falls between 20 and 40 and took the simplicial kernel; the
/// supernodal one cut `auto` on the hexagonal packing from 0.170 s to 0.112 s and on the
/// random 2D pile from 0.378 s to 0.265 s. The 3D lattices and box stacks (no fill in K) stay
/// simplicial, where the supernodal kernel was three times slower (cubic lattice: 0.26 against
/// 0.084 s); the FCC pile and the packings at 10^5 were supernodal already
/// (docs/performance.md).
pub const SUPERNODAL_THRESHOLD: f64 = 0.5;

/// Most refinement steps per solve.
pub const MAX_REFINEMENTS: usize = 3;
/// Relative residual (infinity norms, against the right-hand side) at which refinement stops.
pub const REFINE_TOL: f64 = 1e-13;

/// The velocity-space factorisation of G G' + E; see the module docs.
pub struct GramNewton {
    p: usize,
    chol: PrincipalCholesky,
    /// Entry of K that each term G_ia G_ib / e_i updates, in the order of the scan of
    /// [`GramNewton::factor`] (column a of G, its rows i, then the columns b >= a of row i).
    terms: Vec<usize>,
    /// Entry of K holding (a, a), for each a.
    diagonal: Vec<usize>,
    values: Vec<f64>,
    /// E of the last factorisation (after the floor [`E_FLOOR`]).
    e: Vec<f64>,
    /// What the floor added to each e_i.
    excess: Vec<f64>,
    /// Refinement steps taken by all solves so far.
    refinements: usize,
    /// Relative residual at which refinement stops ([`REFINE_TOL`] unless set).
    refine_tol: f64,
}

impl std::fmt::Debug for GramNewton {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GramNewton")
            .field("p", &self.p)
            .field("terms", &self.terms.len())
            .field("chol", &self.chol)
            .finish_non_exhaustive()
    }
}

impl GramNewton {
    /// The pattern of K = I + G' E⁻¹ G for `gram`'s G (no numeric work).
    pub fn new(gram: &GramMatrix) -> Self {
        let g = gram.factor();
        let p = g.ncols();
        let (ptr, col_rows, col_vals) = gram.columns();
        let mut mark = vec![usize::MAX; p];
        let mut at = vec![0usize; p];
        let (mut rows, mut cols) = (Vec::new(), Vec::new());
        let mut terms = Vec::new();
        let mut diagonal = Vec::with_capacity(p);
        for a in 0..p {
            mark[a] = a;
            at[a] = rows.len();
            diagonal.push(rows.len());
            rows.push(a);
            cols.push(a);
            for (&i, &gia) in col_rows[ptr[a]..ptr[a + 1]].iter().zip(&col_vals[ptr[a]..ptr[a + 1]])
            {
                if gia == 0.0 {
                    continue;
                }
                for (&b, &gib) in g.col_idx_of_row_raw(i).iter().zip(g.val_of_row(i)) {
                    if b < a || gib == 0.0 {
                        continue;
                    }
                    if mark[b] != a {
                        mark[b] = a;
                        at[b] = rows.len();
                        rows.push(a);
                        cols.push(b);
                    }
                    terms.push(at[b]);
                }
            }
        }
        let values = vec![0.0; rows.len()];
        let mut chol = PrincipalCholesky::from_pattern(p, rows, cols);
        chol.set_regularization(REGULARIZATION_EPSILON, REGULARIZATION_DELTA);
        chol.set_supernodal_threshold(SUPERNODAL_THRESHOLD);
        Self {
            p,
            chol,
            terms,
            diagonal,
            values,
            e: vec![0.0; gram.n()],
            excess: vec![0.0; gram.n()],
            refinements: 0,
            refine_tol: REFINE_TOL,
        }
    }

    /// Overrides [`SUPERNODAL_THRESHOLD`] (0: always the supernodal kernel, infinity: always
    /// the simplicial one); the next factorisation redoes the symbolic analysis.
    pub fn set_supernodal_threshold(&mut self, multiplier: f64) {
        self.chol.set_supernodal_threshold(multiplier);
    }

    /// Threads of K's numeric factorisations and solves (see
    /// [`PrincipalCholesky::set_threads`]; 1, the default, is sequential).
    pub fn set_threads(&mut self, threads: usize) {
        self.chol.set_threads(threads);
    }

    /// Whether K's factorisation is supernodal (None before the symbolic analysis).
    pub fn is_supernodal(&self) -> Option<bool> {
        self.chol.is_supernodal()
    }

    /// p, the size of K.
    pub fn size(&self) -> usize {
        self.p
    }

    /// Products G_ia G_ib that one assembly of K sums (the length of the update list).
    pub fn term_count(&self) -> usize {
        self.terms.len()
    }

    /// Ordering and symbolic analysis now, so that [`GramNewton::factor_nnz`] can be read
    /// before any numeric work.
    pub fn analyse_now(&mut self) -> Result<(), LinearError> {
        self.chol.analyse_now()
    }

    /// Stored entries of K's Cholesky factor (0 before the analysis).
    pub fn factor_nnz(&self) -> usize {
        self.chol.factor_nnz()
    }

    /// Stored entries of K's upper triangle.
    pub fn matrix_nnz(&self) -> usize {
        self.chol.matrix_nnz()
    }

    /// What the floor [`E_FLOOR`] added to each e_i in the last factorisation: the solves
    /// are of G G' + E + diag(excess).
    pub fn excess(&self) -> &[f64] {
        &self.excess
    }

    /// Refinement steps taken by all solves so far.
    pub fn refinements(&self) -> usize {
        self.refinements
    }

    /// Sets the relative residual at which refinement stops (raised to [`REFINE_TOL`]).
    pub fn set_refine_tol(&mut self, tol: f64) {
        self.refine_tol = tol.max(REFINE_TOL);
    }

    /// Assembles K = I + G' E⁻¹ G for E = D + diag(`d`) (D: the Gram form's own diagonal) and
    /// factorises it. Counts one factorisation. Fails when an e_i is negative or not finite
    /// (a zero one is raised to the floor), or the factorisation fails.
    pub fn factor(
        &mut self,
        gram: &GramMatrix,
        d: &[f64],
        ctx: &mut SolveContext<'_>,
    ) -> Result<(), LinearError> {
        for (i, (ei, di)) in self.e.iter_mut().zip(d).enumerate() {
            *ei = gram.compliance_at(i) + di;
            if !(ei.is_finite() && *ei >= 0.0) {
                return Err(LinearError::Factorization(format!(
                    "diagonal entry {i} of the Newton matrix is {ei}, negative or not finite"
                )));
            }
            let m_ii = gram.diagonal()[i];
            let floored = ei.max(E_FLOOR * if m_ii > 0.0 { m_ii } else { 1.0 });
            self.excess[i] = floored - *ei;
            *ei = floored;
        }
        self.values.iter_mut().for_each(|v| *v = 0.0);
        for &k in &self.diagonal {
            self.values[k] = 1.0;
        }
        let g = gram.factor();
        let (ptr, col_rows, col_vals) = gram.columns();
        let mut t = 0;
        for a in 0..self.p {
            for k in ptr[a]..ptr[a + 1] {
                let i = col_rows[k];
                if col_vals[k] == 0.0 {
                    continue;
                }
                let s = col_vals[k] / self.e[i];
                for (&b, &gb) in g.col_idx_of_row_raw(i).iter().zip(g.val_of_row(i)) {
                    if b >= a && gb != 0.0 {
                        self.values[self.terms[t]] += s * gb;
                        t += 1;
                    }
                }
            }
        }
        self.chol.factor_values(&self.values, ctx)
    }

    /// Solves (G G' + E) x = rhs in place with the last factorisation, with iterative
    /// refinement (module docs).
    pub fn solve(
        &mut self,
        gram: &GramMatrix,
        rhs: &mut [f64],
        ctx: &mut SolveContext<'_>,
    ) -> Result<(), LinearError> {
        let n = rhs.len();
        let r = rhs.to_vec();
        let r_norm = inf_norm(&r);
        let mut u = vec![0.0; self.p];
        self.woodbury(gram, rhs, &mut u)?;
        if r_norm == 0.0 {
            return Ok(());
        }
        let mut res = vec![0.0; n];
        let mut last = f64::INFINITY;
        for step in 0..=MAX_REFINEMENTS {
            gram.factor_transpose_mul(rhs, &mut u);
            for i in 0..n {
                res[i] = r[i] - gram.row_dot(i, &u) - self.e[i] * rhs[i];
            }
            ctx.matvecs += 1;
            let now = inf_norm(&res);
            if now <= self.refine_tol * r_norm || now > 0.5 * last || step == MAX_REFINEMENTS {
                break;
            }
            last = now;
            self.woodbury(gram, &mut res, &mut u)?;
            for (x, c) in rhs.iter_mut().zip(&res) {
                *x += c;
            }
            self.refinements += 1;
        }
        Ok(())
    }

    /// x <- E⁻¹ (x − G u) with K u = G' E⁻¹ x (`u`: scratch of length p).
    fn woodbury(
        &mut self,
        gram: &GramMatrix,
        x: &mut [f64],
        u: &mut [f64],
    ) -> Result<(), LinearError> {
        let scaled: Vec<f64> = x.iter().zip(&self.e).map(|(xi, ei)| xi / ei).collect();
        gram.factor_transpose_mul(&scaled, u);
        self.chol.solve(u)?;
        for (i, xi) in x.iter_mut().enumerate() {
            *xi = (*xi - gram.row_dot(i, u)) / self.e[i];
        }
        if x.iter().all(|v| v.is_finite()) {
            Ok(())
        } else {
            Err(LinearError::NonFinite)
        }
    }
}

fn inf_norm(x: &[f64]) -> f64 {
    x.iter().fold(0.0, |m, v| m.max(v.abs()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A singular G G' (5 rows, rank 3) with a compliance diagonal on some rows.
    fn gram(with_d: bool) -> GramMatrix {
        let t: Vec<(usize, usize, f64)> = vec![
            (0, 0, 1.0),
            (0, 1, -0.5),
            (1, 1, 2.0),
            (1, 2, 0.25),
            (2, 0, 0.3),
            (2, 2, 1.5),
            (3, 0, 1.0),
            (3, 1, -0.5),
            (4, 0, 1.3),
            (4, 1, 1.5),
            (4, 2, 1.75),
        ];
        let t: Vec<_> =
            t.into_iter().map(|(i, j, v)| faer::sparse::Triplet::new(i, j, v)).collect();
        let d = with_d.then(|| vec![0.0, 0.5, 0.0, 1e-3, 0.0]);
        GramMatrix::from_triplets(5, 3, &t, d).expect("valid")
    }

    #[test]
    fn solves_the_n_by_n_system_also_with_tiny_diagonal() {
        for (with_d, threshold, threads) in [
            (false, 0.0, 1),
            (false, f64::INFINITY, 1),
            (true, 0.0, 1),
            (true, f64::INFINITY, 1),
            (true, 0.0, 2),
            (false, f64::INFINITY, 3),
        ] {
            let gm = gram(with_d);
            let mut nw = GramNewton::new(&gm);
            // Both of faer's kernels: supernodal (0) and simplicial (infinity); sequential and
            // on rayon's pool.
            nw.set_supernodal_threshold(threshold);
            nw.set_threads(threads);
            // Entries of E spread over 16 orders of magnitude, as near an interior-point solution.
            for d in [vec![1.0, 2.0, 0.5, 3.0, 1.5], vec![1e-9, 4.0, 1e-7, 1e3, 1e-8]] {
                let mut ctx = SolveContext::new(1e-10, 10);
                nw.factor(&gm, &d, &mut ctx).expect("positive definite");
                assert_eq!(ctx.factorizations, 1);
                assert_eq!(nw.is_supernodal(), Some(threshold == 0.0));
                let x_true = [0.3, -1.0, 2.0, 0.7, -0.2];
                let mut rhs = vec![0.0; 5];
                gm.mul_vec(&x_true, &mut rhs);
                for i in 0..5 {
                    // M x (D included) + diag(d) x.
                    rhs[i] += d[i] * x_true[i];
                }
                nw.solve(&gm, &mut rhs, &mut ctx).expect("solve");
                for i in 0..5 {
                    assert!((rhs[i] - x_true[i]).abs() < 1e-8, "{with_d} {d:?}: x {rhs:?}");
                }
            }
        }
    }

    #[test]
    fn refuses_a_negative_diagonal_and_floors_a_zero_one() {
        let gm = gram(false);
        let mut nw = GramNewton::new(&gm);
        let mut ctx = SolveContext::new(1e-10, 10);
        let d = [1.0, -1e-3, 1.0, 1.0, 1.0];
        assert!(nw.factor(&gm, &d, &mut ctx).is_err());
        // A zero entry is raised to the floor (an interior-point w_i can underflow to 0).
        let d = [1.0, 0.0, 1.0, 1.0, 1.0];
        nw.factor(&gm, &d, &mut ctx).expect("floored");
        assert!(nw.excess()[1] > 0.0 && nw.excess()[0] == 0.0);
        let d = [1.0, f64::NAN, 1.0, 1.0, 1.0];
        assert!(nw.factor(&gm, &d, &mut ctx).is_err());
    }

    #[test]
    fn pattern_is_the_upper_triangle_of_g_transpose_g_plus_identity() {
        let gm = gram(false);
        let nw = GramNewton::new(&gm);
        // G' G of the 3 columns is full: 6 upper entries.
        assert_eq!(nw.matrix_nnz(), 6);
        // Σ_i nnz_i (nnz_i + 1) / 2 = 3 + 3 + 3 + 3 + 6.
        assert_eq!(nw.term_count(), 18);
    }
}
