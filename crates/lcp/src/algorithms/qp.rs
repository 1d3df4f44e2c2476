//! `qp`: symmetric positive semidefinite LCPs as the convex QP min ½z'Mz + q'z s.t. z >= 0,
//! solved by the Clarabel interior-point solver (Goulart, Chen 2024, "Clarabel: An
//! interior-point solver for conic programs with quadratic objectives", arXiv:2405.12762).
//!
//! Clarabel's form is min ½x'Px + c'x s.t. Ax + s = b, s in K. Here P = M (upper triangle,
//! built directly from the sparse rows of M), c = q, A = −I, b = 0, K = R^n_+ (so s = z):
//! x = z, and the dual y = Px + c = Mz + q = w. Status map: `Solved` / `AlmostSolved` →
//! `solved` (re-checked on the merit by the driver); `DualInfeasible` (the QP is unbounded
//! below) → clarabel's x satisfies Mx = 0, x >= 0, q'x < 0, which for symmetric M is a Farkas
//! vector for the LCP; it is checked with [`verify_farkas`] and reported `infeasible` only if
//! accepted, else `stalled`; `PrimalInfeasible` cannot be right (z = 0 is feasible) →
//! `numerical_failure`; `MaxIterations` → `max_iterations`; `MaxTime` → `time_limit` (the
//! time left of the solve's `time_limit` is passed as clarabel's `time_limit`);
//! `InsufficientProgress` → `stalled`; `NumericalError` and the rest → `numerical_failure`.
//! Non-symmetric M is `SolveError::Unsupported`; positive semidefiniteness is not checked here
//! (clarabel then fails or returns a point the driver rejects). Tolerances: `tol_gap_abs`,
//! `tol_gap_rel` and `tol_feas` are set to min(1e-10, 0.01 tol); then one polishing step (a
//! Newton-min step on clarabel's active set, kept only if the merit drops; `polish=false`
//! returns clarabel's point as is). No warm start: clarabel
//! 0.11 has none, so a warm start is ignored (documented). A fresh clarabel solver is built
//! per call, so `Qp` is thread-safe.

use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettingsBuilder, DefaultSolver, IPSolver, SolverStatus, SupportedConeT,
};

use crate::linalg::jacobian_system::{JacobianSystem, KrylovSettings, LinearSolver};
use crate::linalg::symmetry::asymmetry;
use crate::solver::{LcpSolver, Outcome, SolveContext, SolveError, FARKAS_TOL};
use crate::status::{verify_farkas, Certificate, Status};
use crate::{Lcp, Matrix};

crate::solver_params! {
    /// Parameters of `qp`.
    pub struct QpParams for "qp" {
        /// |M_ij - M_ji| allowed, relative to max |M_ij|
        symmetry_tol: f64 = 1e-12, valid if |v| v > 0.0 => "> 0";
        /// one Newton-min step on clarabel's active set, kept if the merit drops
        polish: bool = true;
    }
}

crate::lcp_solver! {
    /// The `qp` solver.
    pub struct Qp(QpParams) {
        summary: "convex QP min 1/2 z'Mz + q'z, z >= 0 through clarabel (Goulart, Chen 2024); symmetric PSD M",
        tol: 1e-10,
        max_iter: |_params, _n| 200,
        run: Qp::solve_loop,
    }
}

/// Upper triangle of a symmetric M in CSC: column c holds rows r <= c, which for symmetric M
/// are the entries of row c with column index <= c (no densification).
fn upper_triangle_csc(lcp: &Lcp) -> CscMatrix<f64> {
    let n = lcp.n();
    let mut colptr = Vec::with_capacity(n + 1);
    let mut rowval = Vec::new();
    let mut nzval = Vec::new();
    colptr.push(0);
    match lcp.matrix() {
        Matrix::Dense(m) => {
            for c in 0..n {
                for r in 0..=c {
                    let v = m[(r, c)];
                    if v != 0.0 {
                        rowval.push(r);
                        nzval.push(v);
                    }
                }
                colptr.push(rowval.len());
            }
        }
        Matrix::Sparse(s) => {
            for c in 0..n {
                for (&r, &v) in s.col_idx_of_row_raw(c).iter().zip(s.val_of_row(c)) {
                    if r <= c && v != 0.0 {
                        rowval.push(r);
                        nzval.push(v);
                    }
                }
                colptr.push(rowval.len());
            }
        }
    }
    CscMatrix::new(n, n, colptr, rowval, nzval)
}

/// Polishing: with A = {i : z_i <= w_i} the Newton-min step solves z_i = 0 on A and
/// (Mz + q)_i = 0 off A (one sparse or dense LU, counted); returns the better of the two points
/// by the merit. Interior-point iterates end with min(z, w) of the order of sqrt(mu) on nearly
/// degenerate indices; the exact active-set solve removes that (the idea of OSQP's polishing,
/// Stellato et al. 2020).
fn polish(lcp: &Lcp, z: Vec<f64>, ctx: &mut SolveContext<'_>) -> Vec<f64> {
    let n = lcp.n();
    let (w, before) = ctx.evaluate(lcp, &z);
    let a: Vec<f64> = (0..n).map(|i| if z[i] <= w[i] { 1.0 } else { 0.0 }).collect();
    let b: Vec<f64> = a.iter().map(|ai| 1.0 - ai).collect();
    let mut sys =
        JacobianSystem::new(lcp, LinearSolver::Direct, KrylovSettings { restart: 1, max_iter: 1 });
    let mut d: Vec<f64> = z.iter().zip(&w).map(|(zi, wi)| -zi.min(*wi)).collect();
    if sys.factor(lcp, &a, &b, ctx).is_err() || sys.solve(lcp, &mut d, 0.0, ctx).is_err() {
        return z;
    }
    let candidate: Vec<f64> = z.iter().zip(&d).map(|(zi, di)| zi + di).collect();
    let (_, after) = ctx.evaluate(lcp, &candidate);
    if after.residual < before.residual {
        candidate
    } else {
        z
    }
}

fn minus_identity(n: usize) -> CscMatrix<f64> {
    CscMatrix::new(n, n, (0..=n).collect(), (0..n).collect(), vec![-1.0; n])
}

impl Qp {
    fn solve_loop(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        let n = lcp.n();
        // The upper triangle in compressed columns (16 bytes an entry) and clarabel's KKT
        // matrix and factor: about three dense copies for a dense M.
        crate::memory::check_dense_work(
            lcp,
            3,
            ctx.memory_budget,
            "qp: clarabel's matrices built from a dense M",
        )?;
        if let Some((i, j, a, b)) = asymmetry(lcp, self.params.symmetry_tol) {
            return Err(SolveError::Unsupported {
                solver: self.name(),
                reason: format!(
                    "M is not symmetric: M[{i}][{j}] = {a} but M[{j}][{i}] = {b}; the QP form \
                     needs symmetric M (use lemke, newton-fb or ipm)"
                ),
            });
        }
        let p = upper_triangle_csc(lcp);
        let a = minus_identity(n);
        let b = vec![0.0; n];
        let cones = [SupportedConeT::NonnegativeConeT(n)];
        let tol = (0.01 * ctx.tol).min(1e-10);
        let max_iter = u32::try_from(ctx.max_iter).unwrap_or(u32::MAX);
        // The time left of the caller's limit (clarabel's default is no limit).
        let time_limit = match ctx.time_left() {
            Some(left) if left.is_zero() => {
                return Ok(Outcome::new(vec![0.0; n], Status::TimeLimit, 0));
            }
            Some(left) => left.as_secs_f64(),
            None => f64::INFINITY,
        };
        let settings = DefaultSettingsBuilder::default()
            .verbose(false)
            .max_iter(max_iter)
            .time_limit(time_limit)
            .tol_gap_abs(tol)
            .tol_gap_rel(tol)
            .tol_feas(tol)
            .build()
            .map_err(|e| SolveError::InvalidOption(format!("clarabel settings: {e}")))?;
        let mut solver =
            DefaultSolver::new(&p, lcp.q(), &a, &b, &cones, settings).map_err(|e| {
                SolveError::Unsupported { solver: self.name(), reason: format!("clarabel: {e}") }
            })?;
        solver.solve();
        let sol = &solver.solution;
        let iterations = sol.iterations as usize;
        // Clarabel factorises its KKT matrix once per iteration.
        ctx.factorizations += iterations;
        let z: Vec<f64> = sol.x.iter().map(|v| v.max(0.0)).collect();
        let status = match sol.status {
            SolverStatus::Solved | SolverStatus::AlmostSolved => Status::Solved,
            SolverStatus::DualInfeasible | SolverStatus::AlmostDualInfeasible => {
                let y: Vec<f64> = sol.x.iter().map(|v| v.max(0.0)).collect();
                if verify_farkas(lcp, &y, FARKAS_TOL).is_ok() {
                    let mut o = Outcome::new(vec![0.0; n], Status::Infeasible, iterations);
                    o.certificate = Some(Certificate::Farkas { y });
                    return Ok(o);
                }
                Status::Stalled
            }
            SolverStatus::MaxIterations => Status::MaxIterations,
            SolverStatus::MaxTime => Status::TimeLimit,
            SolverStatus::InsufficientProgress => Status::Stalled,
            SolverStatus::PrimalInfeasible
            | SolverStatus::AlmostPrimalInfeasible
            | SolverStatus::NumericalError
            | SolverStatus::Unsolved
            | SolverStatus::CallbackTerminated => Status::NumericalFailure,
        };
        let z = if z.iter().all(|v| v.is_finite()) { z } else { vec![0.0; n] };
        // Polishing after a time limit would overrun it.
        let z =
            if self.params.polish && status != Status::TimeLimit { polish(lcp, z, ctx) } else { z };
        Ok(Outcome::new(z, status, iterations))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{generate, SolveOptions};
    use crate::{LcpSolver, Registry};

    fn solve(lcp: &Lcp) -> Result<crate::Solution, SolveError> {
        let s = Registry::builtin().build("qp").expect("spec");
        s.solve(lcp, &SolveOptions::default(), None)
    }

    #[test]
    fn seed_a4_coupled_contacts() {
        let lcp = Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![-3.0, -3.0])
            .expect("valid");
        let sol = solve(&lcp).expect("set up");
        assert_eq!(sol.status, Status::Solved, "{:?}", sol.note);
        assert!((sol.z[0] - 1.0).abs() < 1e-9 && (sol.z[1] - 1.0).abs() < 1e-9);
    }

    #[test]
    fn random_spd_and_psd_singular_are_solved() {
        for seed in 0..4 {
            let sol = solve(&generate::random_spd(30, seed)).expect("set up");
            assert_eq!(sol.status, Status::Solved, "spd seed {seed}: {:?}", sol.note);
            let sol = solve(&generate::random_psd_singular(20, 6, seed)).expect("set up");
            assert_eq!(sol.status, Status::Solved, "psd seed {seed}: {:?}", sol.note);
        }
    }

    #[test]
    fn unbounded_qp_gives_a_checked_farkas_vector_or_no_claim() {
        // M = 0 (PSD), q = (-1, 1): q'z is unbounded below on z >= 0; y = e_1 is a Farkas
        // vector (M'y = 0, q'y = -1).
        let lcp = Lcp::from_dense_rows(&[vec![0.0, 0.0], vec![0.0, 0.0]], vec![-1.0, 1.0])
            .expect("valid");
        let sol = solve(&lcp).expect("set up");
        assert_ne!(sol.status, Status::Solved);
        if sol.status == Status::Infeasible {
            let Some(Certificate::Farkas { y }) = &sol.certificate else {
                panic!("infeasible without certificate")
            };
            assert!(verify_farkas(&lcp, y, 1e-9).is_ok());
        }
    }

    #[test]
    fn psd_infeasible_gets_a_verified_farkas_vector() {
        // M = [[1, -1], [-1, 1]] (PSD, My = 0 for y = (1, 1)), q = -e: q'y = -2 < 0.
        let lcp = Lcp::from_dense_rows(&[vec![1.0, -1.0], vec![-1.0, 1.0]], vec![-1.0, -1.0])
            .expect("valid");
        let sol = solve(&lcp).expect("set up");
        assert_eq!(sol.status, Status::Infeasible, "{:?}", sol.note);
        let Some(Certificate::Farkas { y }) = &sol.certificate else {
            panic!("infeasible without certificate")
        };
        assert!(verify_farkas(&lcp, y, 1e-9).is_ok());
    }

    #[test]
    fn nonsymmetric_matrix_is_unsupported() {
        let lcp = generate::random_p_matrix(5, 1);
        match solve(&lcp) {
            Err(SolveError::Unsupported { reason, .. }) => assert!(reason.contains("symmetric")),
            other => panic!("expected Unsupported, got {other:?}"),
        }
    }

    #[test]
    fn sparse_upper_triangle_matches_dense() {
        let dense = generate::random_spd(6, 2);
        let s = dense.to_sparse();
        let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..6 {
            for (&j, &x) in s.col_idx_of_row_raw(i).iter().zip(s.val_of_row(i)) {
                r.push(i);
                c.push(j);
                v.push(x);
            }
        }
        let sparse = Lcp::from_coo(6, &r, &c, &v, dense.q().to_vec()).expect("valid");
        let a = upper_triangle_csc(&dense);
        let b = upper_triangle_csc(&sparse);
        assert_eq!(a.colptr, b.colptr);
        assert_eq!(a.rowval, b.rowval);
        for (x, y) in a.nzval.iter().zip(&b.nzval) {
            assert!((x - y).abs() <= 1e-15 * x.abs().max(1.0));
        }
    }
}
