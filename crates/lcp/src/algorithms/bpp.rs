//! Block principal pivoting (Júdice, Pires 1994, "A block principal pivoting algorithm for
//! large-scale strictly monotone linear complementarity problems", Comput. Oper. Res. 21;
//! Kostreva 1978, "Block pivot methods for solving the complementarity problem", Linear Algebra
//! Appl. 21) with Murty's least-index single exchange as the safeguard (Murty 1974).
//!
//! # The method
//!
//! Each iterate is fixed by a set F of free variables: $z_G = 0$, $w_F = 0$ with
//! $G = \{1..n\} \setminus F$, so $M_{FF} z_F = -q_F$ and $w_G = M_{GF} z_F + q_G$. The
//! infeasible indices are $H = \{i \in F : z_i < 0\} \cup \{i \in G : w_i < 0\}$; H empty means
//! z solves the LCP. A *block exchange* moves every index of H to the other set. Block exchanges
//! alone may cycle, so the run keeps the smallest |H| seen: an exchange that does not lower it
//! uses one of `max_block_failures` (p̄, default 3) credits; with none left the method moves only
//! the least index of H (Murty's rule) until |H| falls below the best again, which restores the
//! credits. Murty's rule is finite on P-matrices, so the whole method is (Júdice, Pires 1994,
//! Theorem 1).
//!
//! # Linear algebra
//!
//! Dense M: $M_{FF}$ is copied and factorised by faer's dense Cholesky when M is symmetric (falling
//! back to partial-pivoting LU when Cholesky fails), else by partial-pivoting LU. Sparse M: the
//! principal submatrix is assembled in compressed columns and factorised by faer's sparse
//! Cholesky or LU. Each factorisation is counted in `factorizations`. The symbolic analysis is
//! not cached: F determines the iterate, so within one run a set F recurs only when the
//! safeguard forces it, and a cache keyed by F would almost never hit. A singular or
//! numerically failed $M_{FF}$ ends the run with `numerical_failure`, never a panic.
//!
//! # Tolerances (relative)
//!
//! $z_i$ counts as negative when $z_i < -\epsilon \|z\|_\infty$, $w_i$ when
//! $w_i < -\epsilon \max(\|q\|_\infty, \|Mz\|_\infty)$, with $\epsilon$ = `feas_tol`
//! (default 1e-12). A run that ends with H empty is `solved` only if the merit residual is within
//! `tol`. Warm start: the initial F is $\{i : z^0_i > 0\}$ (empty without a warm start); when
//! that first M_FF is singular the run restarts from F = ∅ (the failed solve counts as an
//! iteration).

use faer::linalg::solvers::Solve;
use faer::sparse::{SparseColMat, Triplet};
use faer::{Mat, Side};

use crate::linalg::symmetry::is_symmetric;
use std::borrow::Cow;

use crate::solver::{Outcome, SolveContext, SolveError};
use crate::status::Status;
use crate::steps::{run_steps, Start, Step, StepResult, Steps};
use crate::{Lcp, Matrix};

/// Default merit tolerance of `bpp`.
pub const DEFAULT_TOL: f64 = 1e-10;
/// Default relative sign tolerance of `bpp`.
pub const DEFAULT_FEAS_TOL: f64 = 1e-12;
/// Default number of non-improving block exchanges before the least-index fallback.
pub const DEFAULT_MAX_BLOCK_FAILURES: usize = 3;

crate::solver_params! {
    /// Parameters of `bpp`.
    pub struct BppParams for "bpp" {
        /// non-improving block exchanges before least-index (Murty) exchanges
        max_block_failures: usize = DEFAULT_MAX_BLOCK_FAILURES;
        /// relative tolerance of the sign tests on z_F and w_G (a round-off tolerance)
        feas_tol: f64 = DEFAULT_FEAS_TOL, valid if |v| v > 0.0 && v < 1e-2 => "in (0, 1e-2)";
    }
}

crate::lcp_solver! {
    /// The block principal pivoting solver.
    pub struct Bpp(BppParams) {
        summary: "block principal pivoting (Júdice-Pires) with least-index fallback; P-matrices, large PD",
        tol: DEFAULT_TOL,
        max_iter: |_params, n| 100 + 10 * n,
        run: Bpp::solve_loop,
    }
}

impl Bpp {
    fn solve_loop(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        crate::memory::check_dense_work(
            lcp,
            3,
            ctx.memory_budget,
            "bpp: dense M_FF and its factors",
        )?;
        run_bpp(lcp, ctx, &self.params)
    }
}

/// Why the principal subsystem M_FF z_F = -q_F could not be solved.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SubsystemError {
    /// The factorisation reported a zero or tiny pivot.
    #[error("M_FF ({size}x{size}) is singular: pivot {pivot} of the factorisation is {value:e}")]
    Singular {
        /// |F|.
        size: usize,
        /// Position of the pivot in the factorisation.
        pivot: usize,
        /// Its value.
        value: f64,
    },
    /// The solution is not finite or does not satisfy the system.
    #[error("solve of M_FF ({size}x{size}) failed: relative residual {residual:e}")]
    Inaccurate {
        /// |F|.
        size: usize,
        /// ||M_FF z_F + q_F||_inf / (||M_FF|| ||z_F|| + ||q_F||).
        residual: f64,
    },
    /// faer refused the sparse structure or ran out of memory.
    #[error("sparse factorisation of M_FF ({size}x{size}) failed: {reason}")]
    Sparse {
        /// |F|.
        size: usize,
        /// faer's message.
        reason: String,
    },
}

/// Solves M_FF z_F = -q_F for the free set `free` (sorted indices) and returns z (length n,
/// zero off F). Counts one factorisation when F is not empty. A singular factorisation or a
/// non-finite solution is an error; the accuracy of a finite solution is the caller's check.
pub fn solve_free_set(
    lcp: &Lcp,
    free: &[usize],
    symmetric: bool,
    factorizations: &mut usize,
) -> Result<Vec<f64>, SubsystemError> {
    let n = lcp.n();
    let k = free.len();
    let mut z = vec![0.0; n];
    if k == 0 {
        return Ok(z);
    }
    *factorizations += 1;
    let q = lcp.q();
    let rhs = Mat::from_fn(k, 1, |r, _| -q[free[r]]);
    let x = match lcp.matrix() {
        Matrix::Dense(d) => {
            let a = Mat::from_fn(k, k, |r, c| d[(free[r], free[c])]);
            solve_dense(&a, &rhs, symmetric)?
        }
        Matrix::Sparse(s) => {
            let mut pos = vec![usize::MAX; n];
            for (p, &i) in free.iter().enumerate() {
                pos[i] = p;
            }
            let mut triplets = Vec::new();
            for (r, &i) in free.iter().enumerate() {
                for (&j, &v) in s.col_idx_of_row_raw(i).iter().zip(s.val_of_row(i)) {
                    if pos[j] != usize::MAX {
                        triplets.push(Triplet::new(r, pos[j], v));
                    }
                }
            }
            let a = SparseColMat::<usize, f64>::try_new_from_triplets(k, k, &triplets)
                .map_err(|e| SubsystemError::Sparse { size: k, reason: format!("{e:?}") })?;
            solve_sparse(&a, &rhs, symmetric)?
        }
    };
    if !x.iter().all(|v| v.is_finite()) {
        return Err(SubsystemError::Inaccurate { size: k, residual: f64::INFINITY });
    }
    for (r, &i) in free.iter().enumerate() {
        z[i] = x[r];
    }
    Ok(z)
}

fn solve_dense(a: &Mat<f64>, rhs: &Mat<f64>, symmetric: bool) -> Result<Vec<f64>, SubsystemError> {
    let k = a.nrows();
    if symmetric {
        if let Ok(llt) = a.llt(Side::Lower) {
            let x = llt.solve(rhs);
            return Ok((0..k).map(|i| x[(i, 0)]).collect());
        }
    }
    let lu = a.partial_piv_lu();
    let u = lu.U();
    let umax = (0..k).fold(0.0f64, |m, i| m.max(u[(i, i)].abs()));
    let tiny = (k as f64) * f64::EPSILON * umax;
    if let Some(pivot) = (0..k).find(|&i| u[(i, i)].abs().is_nan() || u[(i, i)].abs() <= tiny) {
        return Err(SubsystemError::Singular { size: k, pivot, value: u[(pivot, pivot)] });
    }
    let x = lu.solve(rhs);
    Ok((0..k).map(|i| x[(i, 0)]).collect())
}

fn solve_sparse(
    a: &SparseColMat<usize, f64>,
    rhs: &Mat<f64>,
    symmetric: bool,
) -> Result<Vec<f64>, SubsystemError> {
    let k = a.nrows();
    if symmetric {
        if let Ok(llt) = a.sp_cholesky(Side::Lower) {
            let x = llt.solve(rhs);
            return Ok((0..k).map(|i| x[(i, 0)]).collect());
        }
    }
    match a.sp_lu() {
        Ok(lu) => {
            let x = lu.solve(rhs);
            Ok((0..k).map(|i| x[(i, 0)]).collect())
        }
        Err(faer::sparse::linalg::LuError::SymbolicSingular { index }) => {
            Err(SubsystemError::Singular { size: k, pivot: index, value: 0.0 })
        }
        Err(e) => Err(SubsystemError::Sparse { size: k, reason: format!("{e:?}") }),
    }
}

/// Relative residual of the principal subsystem from the iterate's own product mz = M z
/// (z zero off F): max_F |mz_i + q_i| / (max_F rowsum_i |M| ||z||_inf + max_F |q_i|). Rejects
/// non-finite or inaccurate solutions (a near-singular M_FF that the factorisation did not
/// flag). `row_abs` holds the absolute row sums of M, an upper bound of those of M_FF.
fn check_subsystem(
    lcp: &Lcp,
    free: &[usize],
    z: &[f64],
    mz: &[f64],
    row_abs: &[f64],
) -> Result<(), SubsystemError> {
    let k = free.len();
    let q = lcp.q();
    let znorm = inf_norm(z);
    let (mut res, mut anorm, mut qnorm) = (0.0f64, 0.0f64, 0.0f64);
    for &i in free {
        res = res.max((mz[i] + q[i]).abs());
        anorm = anorm.max(row_abs[i]);
        qnorm = qnorm.max(q[i].abs());
    }
    let denom = anorm * znorm + qnorm;
    let rel = if denom > 0.0 { res / denom } else { res };
    if znorm.is_finite() && rel.is_finite() && rel <= 1e-9 {
        Ok(())
    } else {
        Err(SubsystemError::Inaccurate { size: k, residual: rel })
    }
}

fn row_abs_sums(lcp: &Lcp) -> Vec<f64> {
    let n = lcp.n();
    match lcp.matrix() {
        Matrix::Dense(d) => (0..n).map(|i| (0..n).map(|j| d[(i, j)].abs()).sum()).collect(),
        Matrix::Sparse(s) => {
            (0..n).map(|i| s.val_of_row(i).iter().map(|v| v.abs()).sum()).collect()
        }
    }
}

fn inf_norm(x: &[f64]) -> f64 {
    x.iter().fold(0.0f64, |m, v| m.max(v.abs()))
}

/// The infeasible indices H of the iterate (z, w) for the free set `in_free`, ascending.
fn infeasible_set(lcp: &Lcp, in_free: &[bool], z: &[f64], mz: &[f64], feas_tol: f64) -> Vec<usize> {
    let q = lcp.q();
    let tz = feas_tol * inf_norm(z);
    let tw = feas_tol * inf_norm(q).max(inf_norm(mz));
    (0..lcp.n()).filter(|&i| if in_free[i] { z[i] < -tz } else { mz[i] + q[i] < -tw }).collect()
}

/// The running state of `bpp`: the free set, the best infeasibility count so far with the
/// block-pivot credits left, the pivots taken and the last iterate (projected onto z >= 0).
struct BppState<'p> {
    params: &'p BppParams,
    symmetric: bool,
    row_abs: Vec<f64>,
    in_free: Vec<bool>,
    best: usize,
    credits: usize,
    pivots: usize,
    z_last: Vec<f64>,
    mz: Vec<f64>,
}

impl BppState<'_> {
    /// The end of a run whose subsystem could not be solved: the last iterate, unjudged.
    fn failed(&self, it: usize) -> Step {
        Step::Done(Outcome::new(self.z_last.clone(), Status::NumericalFailure, it))
    }
}

impl<'c> Steps<SolveContext<'c>> for BppState<'_> {
    fn z(&self) -> Cow<'_, [f64]> {
        Cow::Borrowed(&self.z_last)
    }

    fn step(&mut self, lcp: &Lcp, ctx: &mut SolveContext<'c>, it: usize) -> StepResult {
        let n = lcp.n();
        let free: Vec<usize> = (0..n).filter(|&i| self.in_free[i]).collect();
        let z = match solve_free_set(lcp, &free, self.symmetric, &mut ctx.factorizations) {
            Ok(z) => z,
            // A warm start whose support gives a singular M_FF is dropped for a cold start.
            Err(_) if it == 1 && !free.is_empty() => {
                self.in_free.iter_mut().for_each(|f| *f = false);
                return Ok(Step::Taken { measure: None, movement: None, check: false });
            }
            Err(_) => return Ok(self.failed(it)),
        };
        ctx.mul_vec(lcp, &z, &mut self.mz);
        if check_subsystem(lcp, &free, &z, &self.mz, &self.row_abs).is_err() {
            return Ok(self.failed(it));
        }
        let h = infeasible_set(lcp, &self.in_free, &z, &self.mz, self.params.feas_tol);
        // Round-off negatives of z_F within the sign tolerance are zeros.
        self.z_last = z.into_iter().map(|v| v.max(0.0)).collect();
        if h.is_empty() {
            // A complementary basis: solved if the driver's test passes.
            return Ok(Step::end(Status::NumericalFailure));
        }
        let block = if h.len() < self.best {
            self.best = h.len();
            self.credits = self.params.max_block_failures;
            true
        } else if self.credits > 0 {
            self.credits -= 1;
            true
        } else {
            false
        };
        if block {
            for &i in &h {
                self.in_free[i] = !self.in_free[i];
            }
            self.pivots += h.len();
        } else {
            // Murty's least-index rule; h is ascending.
            self.in_free[h[0]] = !self.in_free[h[0]];
            self.pivots += 1;
        }
        Ok(Step::unchecked(h.len() as f64))
    }

    fn pivots(&self) -> Option<usize> {
        Some(self.pivots)
    }
}

fn run_bpp(
    lcp: &Lcp,
    ctx: &mut SolveContext<'_>,
    params: &BppParams,
) -> Result<Outcome, SolveError> {
    run_steps(lcp, ctx, |lcp, ctx| {
        let n = lcp.n();
        Ok(Start::Run(BppState {
            params,
            symmetric: is_symmetric(lcp, 1e-12),
            row_abs: row_abs_sums(lcp),
            in_free: match ctx.warm_start {
                Some(z0) => z0.iter().map(|&v| v > 0.0).collect(),
                None => vec![false; n],
            },
            best: usize::MAX,
            credits: params.max_block_failures,
            pivots: 0,
            z_last: vec![0.0; n],
            mz: vec![0.0; n],
        }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate;
    use crate::solver::SolveOptions;
    use crate::{LcpSolver, Matrix, Registry, SolverParams};

    fn solve(lcp: &Lcp, spec: &str, warm: Option<&[f64]>) -> crate::Solution {
        let mut r = Registry::empty();
        r.add(Bpp::entry());
        let s = r.build(spec).expect("spec");
        s.solve(lcp, &SolveOptions::default(), warm).expect("setup")
    }

    #[test]
    fn seed_a4_coupled_contacts() {
        let lcp = Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![-3.0, -3.0])
            .expect("valid");
        let sol = solve(&lcp, "bpp", None);
        assert_eq!(sol.status, Status::Solved);
        assert!((sol.z[0] - 1.0).abs() < 1e-12 && (sol.z[1] - 1.0).abs() < 1e-12);
        assert_eq!(sol.factorizations, 1);
    }

    #[test]
    fn seed_a1_two_variables() {
        let lcp = Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![-1.0, 0.0])
            .expect("valid");
        let sol = solve(&lcp, "bpp", None);
        assert_eq!(sol.status, Status::Solved);
        assert!((sol.z[0] - 0.5).abs() < 1e-12 && sol.z[1].abs() < 1e-12);
        assert!((sol.w[1] - 0.5).abs() < 1e-12);
    }

    #[test]
    fn nonnegative_q_is_solved_by_zero_without_factorisation() {
        let lcp = generate::random_spd(5, 1);
        let q: Vec<f64> = lcp.q().iter().map(|v| v.abs()).collect();
        let lcp = Lcp::new(lcp.matrix().clone(), q).expect("valid");
        let sol = solve(&lcp, "bpp", None);
        assert_eq!(sol.status, Status::Solved);
        assert_eq!(sol.iterations, 1);
        assert_eq!(sol.factorizations, 0);
    }

    #[test]
    fn murty_exponential_and_fathi_are_solved() {
        for n in [3, 8, 16] {
            let lcp = generate::murty_exponential(n);
            let sol = solve(&lcp, "bpp", None);
            assert_eq!(sol.status, Status::Solved, "murty n = {n}");
            let expected = 2f64.powi(n as i32);
            assert!((sol.z[0] - expected).abs() <= 1e-9 * expected);
            let sol = solve(&generate::fathi(n), "bpp", None);
            assert_eq!(sol.status, Status::Solved, "fathi n = {n}");
        }
    }

    #[test]
    fn least_index_fallback_alone_solves_p_matrices() {
        // p̄ = 0: every non-improving step is a single Murty exchange.
        for seed in 0..10 {
            let lcp = generate::random_p_matrix(12, seed);
            let sol = solve(&lcp, "bpp:max_block_failures=0", None);
            assert_eq!(sol.status, Status::Solved, "seed {seed}");
            assert!(sol.residual() <= 1e-10);
        }
    }

    #[test]
    fn warm_start_at_the_solution_takes_one_iteration() {
        let lcp = generate::random_spd(20, 4);
        let sol = solve(&lcp, "bpp", None);
        assert_eq!(sol.status, Status::Solved);
        let again = solve(&lcp, "bpp", Some(&sol.z));
        assert_eq!(again.status, Status::Solved);
        assert_eq!(again.iterations, 1);
        for (a, b) in sol.z.iter().zip(&again.z) {
            assert!((a - b).abs() <= 1e-12 * (1.0 + a.abs()));
        }
    }

    #[test]
    fn sparse_matches_dense() {
        let dense = generate::random_spd(15, 7);
        let sparse = Lcp::new(Matrix::Sparse(dense.to_sparse()), dense.q().to_vec()).expect("ok");
        let a = solve(&dense, "bpp", None);
        let b = solve(&sparse, "bpp", None);
        assert_eq!(a.status, Status::Solved);
        assert_eq!(b.status, Status::Solved);
        for (x, y) in a.z.iter().zip(&b.z) {
            assert!((x - y).abs() <= 1e-10 * (1.0 + x.abs()));
        }
        let p = generate::random_p_matrix(15, 3);
        let ps = Lcp::new(Matrix::Sparse(p.to_sparse()), p.q().to_vec()).expect("ok");
        assert_eq!(solve(&ps, "bpp", None).status, Status::Solved);
    }

    #[test]
    fn singular_principal_submatrix_is_numerical_failure() {
        // M = [[0, 1], [1, 0]], q = (-1, -1): F = {0} after the first exchange... both indices
        // enter at once and M_FF = M is regular; use M = [[1, 1], [1, 1]] (lcp_CPS_1): F = {0, 1}
        // gives a singular M_FF.
        let lcp = Lcp::from_dense_rows(&[vec![1.0, 1.0], vec![1.0, 1.0]], vec![-1.0, -1.0])
            .expect("valid");
        let sol = solve(&lcp, "bpp", None);
        assert_eq!(sol.status, Status::NumericalFailure);
        let sparse = Lcp::new(Matrix::Sparse(lcp.to_sparse()), lcp.q().to_vec()).expect("ok");
        assert_eq!(solve(&sparse, "bpp", None).status, Status::NumericalFailure);
    }

    #[test]
    fn singular_warm_start_falls_back_to_a_cold_start() {
        // lcp_CPS_1 (M = [[1, 1], [1, 1]], q = -e) warm-started at (1, 1) meets the singular
        // M_FF at once and restarts from F = {}, whose block exchange leads back to the same
        // singular set: numerical_failure after the restart.
        let lcp = Lcp::from_dense_rows(&[vec![1.0, 1.0], vec![1.0, 1.0]], vec![-1.0, -1.0])
            .expect("valid");
        let sol = solve(&lcp, "bpp", Some(&[1.0, 1.0]));
        assert_eq!(sol.status, Status::NumericalFailure);
        assert!(sol.iterations >= 2, "the restart ran: {} iterations", sol.iterations);
        // A warm start supported on {0}: M_FF = [1] regular; z = (1, 0) solves at once.
        let sol = solve(&lcp, "bpp", Some(&[0.7, 0.0]));
        assert_eq!(sol.status, Status::Solved);
        assert_eq!(sol.iterations, 1);
    }

    #[test]
    fn iteration_limit_is_reported() {
        let lcp = generate::murty_exponential(10);
        let sol = solve(&lcp, "bpp:max_iter=1", None);
        assert_eq!(sol.status, Status::MaxIterations);
        assert_eq!(sol.iterations, 1);
    }

    #[test]
    fn params_parse_and_name_round_trips() {
        let p = BppParams::from_pairs(&[("max_block_failures".into(), "5".into())]).expect("ok");
        assert_eq!(p.max_block_failures, 5);
        let s = Bpp::new(p);
        assert_eq!(s.name(), "bpp:max_block_failures=5");
        assert!(BppParams::from_pairs(&[("feas_tol".into(), "0.5".into())]).is_err());
        assert!(BppParams::from_pairs(&[("max_block_failures".into(), "-1".into())]).is_err());
        assert!(BppParams::from_pairs(&[("omega".into(), "1".into())]).is_err());
        assert_eq!(Bpp::default().name(), "bpp");
    }
}
