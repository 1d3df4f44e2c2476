//! `newton-min`: Newton's method on the min-map min(z, Mz + q) = 0, globalised as the damped
//! Newton method of Harker and Pang (1990, "A damped-Newton method for the linear
//! complementarity problem", Lectures in Applied Mathematics 26, 265–284) with a
//! Fischer–Burmeister safeguard (De Luca, Facchinei, Kanzow 1996).
//!
//! Plain Newton-min (full steps) can cycle on P-matrix problems (Ben Gharbia, Gilbert 2012,
//! "Nonconvergence of the plain Newton-min algorithm for linear complementarity problems with
//! a P-matrix", Math. Programming 134, 349–364). Each iteration here:
//!
//! 1. Index set A = {i : z_i <= w_i}. The Newton direction d solves d_i = −z_i (i in A) and
//!    (Md)_i = −w_i (i not in A): the system (D_a + D_b M) d = −min(z, w) with a, b in {0, 1}.
//! 2. Harker–Pang damping: Armijo backtracking (σ = 1e-4, β = 0.5, t >= 2^-30) on
//!    θ(z) = ½||min(z, w)||² with the model slope −2θ.
//! 3. If the system is singular or no step length gives sufficient decrease (a nonsmooth point
//!    where d is not a descent direction of θ), the method switches to globalised
//!    Fischer–Burmeister steps (the `newton-fb` step) and returns to Newton-min steps once
//!    θ has dropped below (1 − σ) times its value at the switch. Every Newton-min phase
//!    decreases θ monotonically, so the cycles of the plain method cannot recur.
//!
//! Linear algebra: for sparse symmetric M (to 1e-12 relative) with `linear=direct`, the
//! Newton point solves the principal system M_FF x_F = −q_F, x_A = 0, by a sparse Cholesky
//! factorisation of K = [[M_FF, 0], [0, I]] on the fixed pattern of M
//! ([`PrincipalCholesky`]: one ordering and symbolic analysis per solve, one numeric LL' per
//! iteration, skipped when the index set did not change); if K is not numerically positive
//! definite, that solve and every later one use the unsymmetric LU of `JacobianSystem`
//! (as for dense or nonsymmetric M). `presweeps` projected Gauss–Seidel sweeps improve the
//! start point first (default auto: 10 on the Cholesky path, else 0), which on Delassus-like
//! problems cuts the Newton iterations from 8 to 2 at 10^4 unknowns.
//!
//! `prox=ε` (relative to max |M_ii|; default 0, off) regularises the Cholesky path for
//! singular positive semidefinite M, where M_FF is singular whenever contacts outnumber
//! degrees of freedom: the Newton point solves (M_FF + εI) x_F = −q_F + ε z_F, x_A = 0, the
//! step of the proximal point method (Rockafellar 1976) on LCP(M, q) at the centre z, which
//! is definite for every free set. Its fixed points are the solutions of the LCP; the
//! factorisation is still reused while the free set does not change, so the proximal tail
//! costs solves, not factorisations. Measured on the hexagonal disk packing (docs/performance.md).
//!
//! Time limit: a numeric factorisation is not interrupted, so before each one the Cholesky
//! path compares the time left with the wall time of the last one and ends the solve as
//! `time_limit` (with a note giving both) rather than start one that would overrun the limit.
//!
//! `globalization=none` runs the plain method (full steps, no safeguard) for studies that
//! reproduce Ben Gharbia–Gilbert cycling; it ends in `max_iterations` when it cycles.
//! Warm start: the given z is the starting point; cold start z = 0. History measure:
//! ||min(z, w)||_2 (not normalised) after the step.

use crate::algorithms::newton_fb::{
    run_newton, stationary, FbStep, FbWork, NewtonFbParams, NewtonStep,
};
use crate::linalg::jacobian_system::{
    JacobianSystem, KrylovSettings, LinearSolver, PrincipalCholesky,
};
use crate::merit::min_map_norm;
use crate::solver::{Outcome, SolveContext, SolveError};
use crate::status::Status;
use crate::steps::Step;
use crate::{Lcp, Matrix};

/// How Newton-min is globalised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Globalization {
    /// Harker–Pang line search on ½||min(z, w)||² with the Fischer–Burmeister safeguard.
    Hybrid,
    /// Plain full-step Newton-min (may cycle; for studies).
    None,
}

crate::param_enum!(Globalization { Hybrid => "hybrid", None => "none" });

crate::solver_params! {
    /// Parameters of `newton-min`.
    pub struct NewtonMinParams for "newton-min" {
        /// hybrid (Harker-Pang line search + FB safeguard) or none (plain, may cycle)
        globalization: Globalization = Globalization::Hybrid;
        /// inner linear solver: direct or gmres
        linear: LinearSolver = LinearSolver::Direct;
        /// Armijo constant sigma
        sigma: f64 = 1e-4, valid if |v| v > 0.0 && v < 0.5 => "in (0, 1/2)";
        /// backtracking factor beta
        beta: f64 = 0.5, valid if |v| v > 0.0 && v < 1.0 => "in (0, 1)";
        /// projected Gauss-Seidel sweeps on the start point before the first Newton step (auto: 10 for sparse symmetric M, else 0)
        presweeps: Option<usize> = None;
        /// proximal regularisation eps / max|M_ii| of the Cholesky path (0: off): the Newton point solves (M_FF + eps I) x_F = -q_F + eps z_F, positive definite for singular PSD M
        prox: f64 = 0.0, valid if |v| (0.0..1.0).contains(&v) => "in [0, 1)";
    }
}

crate::lcp_solver! {
    /// The `newton-min` solver.
    pub struct NewtonMin(NewtonMinParams) {
        summary: "Newton-min, Harker-Pang damping with a Fischer-Burmeister safeguard (Harker, Pang 1990); P / PD",
        tol: 1e-10,
        max_iter: |_params, _n| 200,
        run: NewtonMin::solve_loop,
    }
}

const KRYLOV: KrylovSettings = KrylovSettings { restart: 50, max_iter: 1000 };
const MIN_STEP: f64 = 1.0 / (1u64 << 30) as f64;

/// Projected Gauss–Seidel sweeps before the first Newton step on the Cholesky path (the
/// default `presweeps=auto`). Measured on `delassus_like(3333, 3, 10, 1)` (n = 9999): 0, 3, 10
/// and 30 sweeps gave 8, 4, 2 and 2 Newton iterations (docs/performance.md).
pub const AUTO_PRESWEEPS: usize = 10;

/// Relative symmetry tolerance under which a sparse M takes the Cholesky path.
const SYMMETRY_TOL: f64 = 1e-12;

/// Workspace of the Newton-min step.
struct MinWork {
    linear: LinearSolver,
    /// The proximal shift eps of the Cholesky path (0: plain Newton-min).
    shift: f64,
    /// Sparse symmetric M with `linear=direct`: the principal-submatrix Cholesky solver;
    /// dropped (for the LU of `sys`) the first time a factorisation fails (M not definite).
    chol: Option<PrincipalCholesky>,
    /// The free set of the Cholesky factorisation held in `chol`, if any.
    factored_free: Option<Vec<bool>>,
    /// Unsymmetric solver of (D_a + D_b M) d = −min(z, w), built when first needed.
    sys: Option<JacobianSystem>,
    free: Vec<bool>,
    a: Vec<f64>,
    b: Vec<f64>,
    d: Vec<f64>,
    md: Vec<f64>,
    zt: Vec<f64>,
    wt: Vec<f64>,
}

enum MinStep {
    Taken,
    Failed,
    /// The next factorisation would not end within the time limit (the note says why).
    OutOfTime(String),
}

/// Why the Cholesky path gave no direction.
enum CholeskyFailure {
    /// K is not numerically positive definite: the unsymmetric LU takes over.
    NotDefinite,
    /// The time left is shorter than the last factorisation took.
    OutOfTime(String),
}

impl MinWork {
    fn new(lcp: &Lcp, linear: LinearSolver, prox: f64) -> Self {
        let n = lcp.n();
        let shift = prox * lcp.diag().iter().fold(0.0f64, |m, d| m.max(d.abs()));
        let chol = match linear {
            LinearSolver::Direct if shift > 0.0 => {
                PrincipalCholesky::shifted(lcp, SYMMETRY_TOL, shift)
            }
            LinearSolver::Direct => PrincipalCholesky::new(lcp, SYMMETRY_TOL),
            LinearSolver::Gmres => None,
        };
        Self {
            linear,
            shift,
            chol,
            factored_free: None,
            sys: None,
            free: vec![false; n],
            a: vec![0.0; n],
            b: vec![0.0; n],
            d: vec![0.0; n],
            md: vec![0.0; n],
            zt: vec![0.0; n],
            wt: vec![0.0; n],
        }
    }

    /// The Newton-min direction through the Cholesky path: the next point x has x_A = 0 and
    /// (M_FF + εI) x_F = −q_F + ε z_F (ε = 0 without `prox`; one factorisation, skipped when F
    /// is that of the last one), d = x − z.
    /// `Ok(false)` when the solve with the factorisation failed; `NotDefinite` when K is not
    /// numerically positive definite (the caller then drops this path); `OutOfTime` when the
    /// time left is shorter than the last factorisation took (one factorisation is not
    /// interrupted, so the time limit is honoured to within one factorisation only when it is
    /// tested before each).
    fn cholesky_direction(
        &mut self,
        lcp: &Lcp,
        z: &[f64],
        ctx: &mut SolveContext<'_>,
    ) -> Result<bool, CholeskyFailure> {
        let Some(chol) = &mut self.chol else { return Err(CholeskyFailure::NotDefinite) };
        if self.factored_free.as_deref() != Some(&self.free[..]) {
            let last = chol.last_factor_seconds();
            if let Some(left) = ctx.time_left().filter(|left| left.as_secs_f64() < last) {
                return Err(CholeskyFailure::OutOfTime(format!(
                    "newton-min: {:.3} s left, the last Cholesky factorisation took {last:.3} s",
                    left.as_secs_f64()
                )));
            }
            self.factored_free = None;
            if chol.factor(&self.free, ctx).is_err() {
                return Err(CholeskyFailure::NotDefinite);
            }
            self.factored_free = Some(self.free.clone());
        }
        let shift = self.shift;
        for (((di, &fi), qi), zi) in self.d.iter_mut().zip(&self.free).zip(lcp.q()).zip(z) {
            *di = if fi { -qi + shift * zi } else { 0.0 };
        }
        if chol.solve(&mut self.d).is_err() {
            return Ok(false);
        }
        for (di, zi) in self.d.iter_mut().zip(z) {
            *di -= zi;
        }
        Ok(true)
    }

    /// The Newton-min direction; `Failed` when the system could not be solved.
    fn direction(
        &mut self,
        lcp: &Lcp,
        z: &[f64],
        w: &[f64],
        ctx: &mut SolveContext<'_>,
    ) -> Option<MinStep> {
        for i in 0..z.len() {
            self.free[i] = z[i] > w[i];
        }
        if self.chol.is_some() {
            match self.cholesky_direction(lcp, z, ctx) {
                Ok(true) => {
                    ctx.mul_vec(lcp, &self.d, &mut self.md);
                    return None;
                }
                Ok(false) => return Some(MinStep::Failed),
                Err(CholeskyFailure::OutOfTime(note)) => return Some(MinStep::OutOfTime(note)),
                // Not definite: the unsymmetric LU below handles every later iteration.
                Err(CholeskyFailure::NotDefinite) => self.chol = None,
            }
        }
        for i in 0..z.len() {
            let in_a = !self.free[i];
            self.a[i] = if in_a { 1.0 } else { 0.0 };
            self.b[i] = if in_a { 0.0 } else { 1.0 };
            self.d[i] = -z[i].min(w[i]);
        }
        let eta = min_map_norm(z, w).min(0.1);
        let linear = self.linear;
        let sys = self.sys.get_or_insert_with(|| JacobianSystem::new(lcp, linear, KRYLOV));
        if sys.factor(lcp, &self.a, &self.b, ctx).is_err()
            || sys.solve(lcp, &mut self.d, eta, ctx).is_err()
        {
            return Some(MinStep::Failed);
        }
        ctx.mul_vec(lcp, &self.d, &mut self.md);
        None
    }

    fn step(
        &mut self,
        lcp: &Lcp,
        params: &NewtonMinParams,
        z: &mut [f64],
        w: &mut [f64],
        ctx: &mut SolveContext<'_>,
    ) -> MinStep {
        if let Some(failed) = self.direction(lcp, z, w, ctx) {
            return failed;
        }
        let theta0 = 0.5 * min_map_norm(z, w).powi(2);
        let mut t = 1.0;
        while t >= MIN_STEP {
            for i in 0..z.len() {
                self.zt[i] = z[i] + t * self.d[i];
                self.wt[i] = w[i] + t * self.md[i];
            }
            let theta = 0.5 * min_map_norm(&self.zt, &self.wt).powi(2);
            let full_step = params.globalization == Globalization::None;
            if full_step || theta <= (1.0 - 2.0 * params.sigma * t) * theta0 {
                // w + t Md is w at the new point up to rounding (the driver recomputes the
                // merit from z at the end).
                z.copy_from_slice(&self.zt);
                w.copy_from_slice(&self.wt);
                return MinStep::Taken;
            }
            t *= params.beta;
        }
        MinStep::Failed
    }
}

/// `sweeps` forward projected Gauss–Seidel sweeps z_i <- max(0, z_i − (Mz + q)_i / M_ii) in
/// place (each counted as one matvec); rows with M_ii <= 0 are left unchanged.
fn projected_gauss_seidel(lcp: &Lcp, z: &mut [f64], sweeps: usize, ctx: &mut SolveContext<'_>) {
    if sweeps == 0 {
        return;
    }
    let n = lcp.n();
    let diag = lcp.diag();
    let q = lcp.q();
    for _ in 0..sweeps {
        ctx.matvecs += 1;
        for i in 0..n {
            if diag[i] <= 0.0 || !diag[i].is_finite() {
                continue;
            }
            let r = q[i]
                + match lcp.matrix() {
                    Matrix::Sparse(m) => m
                        .col_idx_of_row_raw(i)
                        .iter()
                        .zip(m.val_of_row(i))
                        .map(|(&j, &v)| v * z[j])
                        .sum::<f64>(),
                    Matrix::Dense(m) => (0..n).map(|j| m[(i, j)] * z[j]).sum::<f64>(),
                };
            z[i] = (z[i] - r / diag[i]).max(0.0);
        }
    }
}

impl NewtonMin {
    fn solve_loop(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        let what = "newton-min: dense Jacobian and its LU factors";
        run_newton(lcp, ctx, self.params.linear, what, |lcp, ctx, z| {
            let work = MinWork::new(lcp, self.params.linear, self.params.prox);
            let presweeps = self.params.presweeps.unwrap_or(if work.chol.is_some() {
                AUTO_PRESWEEPS
            } else {
                0
            });
            projected_gauss_seidel(lcp, z, presweeps, ctx);
            MinMethod {
                params: &self.params,
                fb_params: NewtonFbParams {
                    sigma: self.params.sigma,
                    beta: self.params.beta,
                    ..NewtonFbParams::default()
                },
                work,
                fb: None,
                safeguard_from: None,
            }
        })
    }
}

/// The `newton-min` step: a damped Newton-min step, or a Fischer–Burmeister safeguard step.
struct MinMethod<'p> {
    params: &'p NewtonMinParams,
    fb_params: NewtonFbParams,
    work: MinWork,
    /// The Fischer–Burmeister safeguard's workspace, built when first needed.
    fb: Option<FbWork>,
    /// θ at the switch to safeguard steps; `None` while in Newton-min mode.
    safeguard_from: Option<f64>,
}

impl NewtonStep for MinMethod<'_> {
    fn step(
        &mut self,
        lcp: &Lcp,
        ctx: &mut SolveContext<'_>,
        z: &mut [f64],
        w: &mut [f64],
    ) -> Step {
        let theta = 0.5 * min_map_norm(z, w).powi(2);
        if let Some(theta_switch) = self.safeguard_from {
            if theta <= (1.0 - self.params.sigma) * theta_switch {
                self.safeguard_from = None;
            }
        }
        if self.safeguard_from.is_none() {
            match self.work.step(lcp, self.params, z, w, ctx) {
                MinStep::Taken => return Step::checked(min_map_norm(z, w)),
                MinStep::Failed if self.params.globalization == Globalization::None => {
                    return Step::End {
                        status: Status::NumericalFailure,
                        note: Some("the Newton-min system is singular or gives no step".into()),
                    };
                }
                MinStep::Failed => self.safeguard_from = Some(theta),
                MinStep::OutOfTime(note) => {
                    return Step::End { status: Status::TimeLimit, note: Some(note) }
                }
            }
        }
        let linear = self.params.linear;
        let fbw = self.fb.get_or_insert_with(|| FbWork::new(lcp, linear, KRYLOV));
        match fbw.step(lcp, &self.fb_params, z, w, ctx) {
            FbStep::Stationary => stationary(),
            FbStep::Taken => Step::checked(min_map_norm(z, w)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{generate, SolveOptions};
    use crate::{LcpSolver, Registry};

    fn solve(spec: &str, lcp: &Lcp, z0: Option<&[f64]>) -> crate::Solution {
        let s = Registry::builtin().build(spec).expect("spec");
        s.solve(lcp, &SolveOptions::default(), z0).expect("set up")
    }

    #[test]
    fn seed_a4_and_random_p_matrices_are_solved() {
        let lcp = Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![-3.0, -3.0])
            .expect("valid");
        let sol = solve("newton-min", &lcp, None);
        assert_eq!(sol.status, Status::Solved);
        assert!((sol.z[0] - 1.0).abs() < 1e-9);
        for seed in 0..5 {
            let lcp = generate::random_p_matrix(30, seed);
            assert_eq!(solve("newton-min", &lcp, None).status, Status::Solved, "seed {seed}");
            let lcp = generate::random_spd(30, seed);
            assert_eq!(solve("newton-min", &lcp, None).status, Status::Solved, "seed {seed}");
        }
    }

    #[test]
    fn seed_a2_infeasible_is_not_solved() {
        let lcp = Lcp::from_dense_rows(&[vec![-1.0]], vec![-1.0]).expect("valid");
        assert_ne!(solve("newton-min", &lcp, None).status, Status::Solved);
        assert_ne!(solve("newton-min:globalization=none", &lcp, None).status, Status::Solved);
    }

    /// M = [[0, 1], [0, 1]] (copositive, not P), q = -e: at z = 0 both rows take M, whose
    /// matrix is singular, so the plain method fails and the hybrid must go through its
    /// Fischer–Burmeister safeguard; z = (0, 1) is a solution.
    #[test]
    fn singular_newton_min_system_falls_back_to_fischer_burmeister() {
        let lcp = Lcp::from_dense_rows(&[vec![0.0, 1.0], vec![0.0, 1.0]], vec![-1.0, -1.0])
            .expect("valid");
        let plain = solve("newton-min:globalization=none", &lcp, None);
        assert_eq!(plain.status, Status::NumericalFailure);
        let hybrid = solve("newton-min", &lcp, None);
        assert_eq!(hybrid.status, Status::Solved, "{:?}", hybrid.note);
        assert!((hybrid.z[1] - 1.0).abs() < 1e-9);
    }

    #[test]
    fn bad_options_are_errors() {
        assert!(Registry::builtin().build("newton-min:globalization=wolfe").is_err());
        assert!(Registry::builtin().build("newton-min:beta=1.5").is_err());
        let lcp = generate::random_spd(3, 0);
        let s = Registry::builtin().build("newton-min").expect("spec");
        assert!(s.solve(&lcp, &SolveOptions::default(), Some(&[f64::NAN, 0.0, 0.0])).is_err());
    }

    /// A 3x3 P-matrix problem on which plain Newton-min cycles with period 3 (index sets
    /// {1}, {2}, {3} in turn). Found by a search (run once, outside the test suite) over
    /// integer data: off-diagonal M_ij, q_i, z0_i uniform in {-4..4}, M_ii in {1, 2, 3},
    /// kept when every principal minor is > 0.05, 40 plain steps neither solve nor stop, and
    /// every |z_i - w_i| stays >= 1e-3 on the way (so round-off cannot change an index set);
    /// Knuth's 64-bit MMIX LCG seeded 12345, draw 6114. Ben Gharbia and Gilbert (2012) show
    /// such n = 3 examples exist. On this example the Harker–Pang line search alone breaks
    /// the cycle (4 iterations); the singular-system test exercises the FB safeguard.
    fn cycling_example() -> (Lcp, Vec<f64>) {
        let m = vec![vec![1.0, 4.0, -1.0], vec![-4.0, 1.0, 4.0], vec![2.0, -2.0, 2.0]];
        let lcp = Lcp::from_dense_rows(&m, vec![-2.0, -1.0, -2.0]).expect("valid");
        (lcp, vec![-1.0, -4.0, -3.0])
    }

    /// Plain Newton-min written out independently of the solver: the next z solves z_i = 0
    /// for z_i <= w_i and (Mz + q)_i = 0 otherwise.
    fn plain_newton_min_index_sets(lcp: &Lcp, z0: &[f64], steps: usize) -> Vec<Vec<bool>> {
        let n = lcp.n();
        let mut z = z0.to_vec();
        let mut sets = Vec::new();
        for _ in 0..steps {
            let w = lcp.w_of(&z);
            let set: Vec<bool> = (0..n).map(|i| z[i] <= w[i]).collect();
            let a = faer::Mat::from_fn(n, n, |i, j| {
                if set[i] {
                    if i == j {
                        1.0
                    } else {
                        0.0
                    }
                } else {
                    lcp.get(i, j)
                }
            });
            let rhs = faer::Mat::from_fn(n, 1, |i, _| if set[i] { 0.0 } else { -lcp.q()[i] });
            use faer::linalg::solvers::Solve;
            let x = a.partial_piv_lu().solve(&rhs);
            z = (0..n).map(|i| x[(i, 0)]).collect();
            sets.push(set);
        }
        sets
    }

    #[test]
    fn ben_gharbia_gilbert_cycle_plain_cycles_and_hybrid_converges() {
        let (lcp, z0) = cycling_example();
        // The matrix is a P-matrix: every principal minor is positive.
        let m = lcp.dense_rows();
        let minor2 = |i: usize, j: usize| m[i][i] * m[j][j] - m[i][j] * m[j][i];
        assert!((0..3).all(|i| m[i][i] > 0.0));
        assert!(minor2(0, 1) > 0.0 && minor2(0, 2) > 0.0 && minor2(1, 2) > 0.0);
        let det = m[0][0] * minor2(1, 2) - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
            + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
        assert!(det > 0.0);
        // Plain Newton-min: the index sets repeat with period 3 and never settle.
        let sets = plain_newton_min_index_sets(&lcp, &z0, 30);
        for k in 3..30 {
            assert_eq!(sets[k], sets[k - 3], "period 3 at step {k}");
        }
        assert_ne!(sets[27], sets[28]);
        let plain = solve("newton-min:globalization=none,max_iter=60", &lcp, Some(&z0));
        assert_ne!(plain.status, Status::Solved);
        assert!(plain.residual() > 1e-3);
        // The globalised method converges from the same start.
        let hybrid = solve("newton-min", &lcp, Some(&z0));
        assert_eq!(hybrid.status, Status::Solved, "{:?}", hybrid.note);
        assert!(hybrid.residual() <= 1e-10);
    }

    /// On a sparse symmetric PD problem the Cholesky path, with and without presweeps, reaches
    /// the generator's known solution, and the presweeps do not add Newton iterations.
    #[test]
    fn cholesky_path_and_presweeps_reach_the_known_solution() {
        let (lcp, z_star) = generate::delassus_like_with_solution(200, 3, 100.0, 3);
        let scale = z_star.iter().map(|v| v * v).sum::<f64>().sqrt();
        for spec in ["newton-min", "newton-min:presweeps=0", "newton-min:presweeps=25"] {
            let sol = solve(spec, &lcp, None);
            assert_eq!(sol.status, Status::Solved, "{spec}: {:?}", sol.note);
            let err = sol.z.iter().zip(&z_star).map(|(a, b)| (a - b).powi(2)).sum::<f64>().sqrt();
            // The generator's regularisation moves z* by a relative amount of about 1e-6.
            assert!(err <= 1e-4 * scale, "{spec}: |z - z*| = {err:e}");
            assert!(sol.factorizations <= sol.iterations, "{spec}");
        }
        let auto = solve("newton-min", &lcp, None);
        let none = solve("newton-min:presweeps=0", &lcp, None);
        assert!(auto.iterations <= none.iterations, "{} vs {}", auto.iterations, none.iterations);
        assert!(Registry::builtin().build("newton-min:presweeps=-1").is_err());
        let s = Registry::builtin().build("newton-min:presweeps=3").expect("spec");
        assert_eq!(s.name(), "newton-min:presweeps=3");
    }

    /// M = J J' with J of size 90 x 30 (three entries per row): sparse, symmetric, PSD and
    /// singular (rank 30), as the Delassus matrix of more contacts than degrees of freedom.
    /// q = w* - M z* for a strictly complementary (z*, w*), so a solution exists. With the
    /// proximal shift every Cholesky factorisation is of a definite matrix, and the run solves.
    #[test]
    fn prox_solves_a_singular_sparse_psd_problem() {
        let lcp = singular_psd_problem();
        let sol = solve("newton-min:prox=1e-4,presweeps=20", &lcp, None);
        assert_eq!(sol.status, Status::Solved, "{:?}", sol.note);
        assert!(sol.residual() <= 1e-10);
        assert!(
            sol.factorizations <= sol.iterations + 1,
            "{} > {}",
            sol.factorizations,
            sol.iterations
        );
        assert!(Registry::builtin().build("newton-min:prox=1").is_err());
        assert!(Registry::builtin().build("newton-min:prox=-1e-3").is_err());
    }

    /// The Cholesky path refuses a factorisation that the time left cannot hold: with no time
    /// left the first factorisation (no measurement yet) runs, and the next one, for another
    /// free set, ends the step as `OutOfTime` instead of running past the limit.
    #[test]
    fn a_factorisation_longer_than_the_time_left_is_not_started() {
        let lcp = singular_psd_problem();
        let mut work = MinWork::new(&lcp, LinearSolver::Direct, 1e-4);
        let mut ctx = SolveContext::new(1e-10, 10).with_time_limit(std::time::Duration::ZERO);
        let z = vec![1.0; lcp.n()];
        work.free.fill(true);
        assert!(matches!(work.cholesky_direction(&lcp, &z, &mut ctx), Ok(true)));
        assert_eq!(ctx.factorizations, 1);
        assert!(work.chol.as_ref().is_some_and(|c| c.last_factor_seconds() > 0.0));
        // The same free set reuses the factorisation: no new one, no refusal.
        assert!(matches!(work.cholesky_direction(&lcp, &z, &mut ctx), Ok(true)));
        work.free[0] = false;
        match work.cholesky_direction(&lcp, &z, &mut ctx) {
            Err(CholeskyFailure::OutOfTime(note)) => assert!(note.contains("left"), "{note}"),
            _ => panic!("the factorisation was started with no time left"),
        }
        assert_eq!(ctx.factorizations, 1);
    }

    /// A 90 x 90 Gram matrix of rank 30 (3 random entries per row of J) with a planted
    /// solution.
    fn singular_psd_problem() -> Lcp {
        let (n, m) = (90usize, 30usize);
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut j = vec![vec![0.0; m]; n];
        for row in j.iter_mut() {
            for _ in 0..3 {
                let c = (next() * m as f64) as usize % m;
                row[c] += next() - 0.5;
            }
        }
        let (mut ri, mut ci, mut vals) = (Vec::new(), Vec::new(), Vec::new());
        let mut dense = vec![vec![0.0; n]; n];
        for a in 0..n {
            for b in 0..n {
                let v: f64 = (0..m).map(|k| j[a][k] * j[b][k]).sum();
                if v != 0.0 {
                    ri.push(a);
                    ci.push(b);
                    vals.push(v);
                    dense[a][b] = v;
                }
            }
        }
        let z_star: Vec<f64> =
            (0..n).map(|i| if i % 3 == 0 { 0.5 + next() } else { 0.0 }).collect();
        let q: Vec<f64> = (0..n)
            .map(|a| {
                let mz: f64 = (0..n).map(|b| dense[a][b] * z_star[b]).sum();
                let w = if z_star[a] > 0.0 { 0.0 } else { 0.1 + next() };
                w - mz
            })
            .collect();
        Lcp::from_coo(n, &ri, &ci, &vals, q).expect("valid")
    }
}
