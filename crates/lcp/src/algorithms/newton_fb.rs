//! `newton-fb`: semismooth Newton method on the Fischer–Burmeister reformulation
//! (De Luca, Facchinei, Kanzow 1996, "A semismooth equation approach to the solution of
//! nonlinear complementarity problems", Math. Programming 75, 407–439).
//!
//! With w = Mz + q and φ(a, b) = sqrt(a² + b²) − a − b, the LCP is Φ(z) = 0 where
//! Φ_i(z) = φ(z_i, w_i). The merit is Ψ(z) = ½||Φ(z)||², continuously differentiable with
//! ∇Ψ = H'Φ for any element H of the generalised Jacobian. Each iteration:
//!
//! 1. H = D_a + D_b M with a_i = z_i/r_i − 1, b_i = w_i/r_i − 1, r_i = ||(z_i, w_i)||; at a
//!    kink (z_i = w_i = 0) the choice of DFK (their Procedure 3.1): with c = e_β (β the kink
//!    indices), a_i = c_i/||(c_i, (Mc)_i)|| − 1, b_i = (Mc)_i/||(c_i, (Mc)_i)|| − 1.
//! 2. Solve H d = −Φ. If that fails, or d is not a sufficient descent direction, take
//!    d = −∇Ψ. Sufficient descent: DFK's test ∇Ψ'd <= −ρ||d||^p (ρ = 1e-8, p = 2.1), or
//!    ∇Ψ'd <= −Ψ = −½||Φ||² (the exact Newton direction has ∇Ψ'd = −||Φ||²). The second
//!    test is our addition: DFK's alone is not scale invariant and rejects exact Newton
//!    directions when the solution is large (a 10-box stack with mass ratio 1000 stalled on
//!    gradient steps without it).
//! 3. Armijo: the largest t = β^k (β = 0.5) with Ψ(z + td) ≤ Ψ(z) + σ t ∇Ψ'd, σ = 1e-4.
//!
//! Stops on the merit of `merit.rs` (||min(z, w)|| / ||q|| ≤ tol), which the driver re-checks.
//! A point where ∇Ψ vanishes but Φ does not (a stationary point of Ψ that is not a solution,
//! as for infeasible or non-P problems) ends as `stalled`. Inner solves: dense faer LU, sparse
//! faer LU with the symbolic analysis done once, or matrix-free GMRES (`linear=gmres`) with
//! the forcing term η_k = min(0.1, ||Φ||) of inexact Newton methods (Eisenstat, Walker 1996).
//! Warm start: the given z is the starting point (any z in R^n is admissible); cold start z = 0.
//! History measure (`ctx.record`): ||Φ(z)||_2 after the step. Counters: one factorisation per
//! Newton step (direct), one matvec for Md, one for M'(D_b Φ), one more at kinks; GMRES
//! counts one matvec per inner iteration.

use crate::linalg::jacobian_system::{JacobianSystem, KrylovSettings, LinearSolver};
use crate::merit::{merit_scale, min_map_norm, norm2};
use std::borrow::Cow;

use crate::solver::{Outcome, SolveContext, SolveError};
use crate::status::Status;
use crate::steps::{run_steps, Policy, Start, Step, StepResult, Steps};
use crate::Lcp;

impl NewtonFbParams {
    fn krylov(&self) -> KrylovSettings {
        KrylovSettings { restart: self.gmres_restart, max_iter: self.gmres_max_iter }
    }
}

crate::solver_params! {
    /// Parameters of `newton-fb`.
    pub struct NewtonFbParams for "newton-fb" {
        /// inner linear solver: direct or gmres (alias krylov)
        linear: LinearSolver = LinearSolver::Direct;
        /// GMRES restart length
        gmres_restart: usize = 50, valid if |v| v >= 1 => ">= 1";
        /// GMRES iterations per Newton step
        gmres_max_iter: usize = 1000, valid if |v| v >= 1 => ">= 1";
        /// Armijo constant sigma
        sigma: f64 = 1e-4, valid if |v| v > 0.0 && v < 0.5 => "in (0, 1/2)";
        /// backtracking factor beta
        beta: f64 = 0.5, valid if |v| v > 0.0 && v < 1.0 => "in (0, 1)";
        /// descent test constant rho of DFK
        rho: f64 = 1e-8, valid if |v| v > 0.0 => "> 0";
        /// descent test exponent p of DFK
        p: f64 = 2.1, valid if |v| v > 2.0 => "> 2";
    }
}

crate::lcp_solver! {
    /// The `newton-fb` solver.
    pub struct NewtonFb(NewtonFbParams) {
        summary: "semismooth Newton on Fischer-Burmeister, Armijo on 1/2||Phi||^2 (De Luca, Facchinei, Kanzow 1996); P-matrices, general",
        tol: 1e-10,
        max_iter: |_params, _n| 200,
        run: NewtonFb::solve_loop,
    }
}

/// Smallest Armijo step tried (bounds the backtracking when z = 0, where the relative floor
/// of the line search is zero).
const MIN_STEP: f64 = 1e-30;

/// Φ_i = φ(z_i, w_i).
fn fb(a: f64, b: f64) -> f64 {
    a.hypot(b) - a - b
}

/// Ψ = ½||Φ||².
pub(crate) fn psi(z: &[f64], w: &[f64]) -> f64 {
    0.5 * z.iter().zip(w).map(|(&a, &b)| fb(a, b).powi(2)).sum::<f64>()
}

/// What the driver says when a Newton method stops at a stationary point of its merit.
pub(crate) fn stationary() -> Step {
    Step::End {
        status: Status::Stalled,
        note: Some("a stationary point of the merit that does not solve the LCP".into()),
    }
}

/// One step of a Newton method on (z, w), with w = Mz + q carried along.
pub(crate) trait NewtonStep {
    /// Takes the step, updating z and w.
    fn step(&mut self, lcp: &Lcp, ctx: &mut SolveContext<'_>, z: &mut [f64], w: &mut [f64])
        -> Step;
}

/// The running state every Newton method shares: z, w = Mz + q carried by the steps, the
/// merit's scale, and the method.
struct Newton<M> {
    z: Vec<f64>,
    w: Vec<f64>,
    scale: f64,
    method: M,
}

impl<'c, M: NewtonStep> Steps<SolveContext<'c>> for Newton<M> {
    /// The start is tested (a warm start at a solution takes no iteration); a step is an
    /// iteration.
    fn policy(&self) -> Policy {
        Policy { check_start: true, ..Policy::named("iteration") }
    }

    fn z(&self) -> Cow<'_, [f64]> {
        Cow::Borrowed(&self.z)
    }

    fn merit(&self, _lcp: &Lcp) -> Option<(Cow<'_, [f64]>, f64)> {
        Some((Cow::Borrowed(&self.w), min_map_norm(&self.z, &self.w) / self.scale))
    }

    fn step(&mut self, lcp: &Lcp, ctx: &mut SolveContext<'c>, _: usize) -> StepResult {
        Ok(self.method.step(lcp, ctx, &mut self.z, &mut self.w))
    }
}

/// Runs a Newton method under the driver: checks the dense work of `linear=direct` against
/// the memory budget (`what` names it), starts from the warm start (else 0), lets `init`
/// build the method (it may move the start, e.g. presweeps) and computes w = Mz + q.
pub(crate) fn run_newton<M: NewtonStep>(
    lcp: &Lcp,
    ctx: &mut SolveContext<'_>,
    linear: LinearSolver,
    what: &str,
    init: impl FnOnce(&Lcp, &mut SolveContext<'_>, &mut Vec<f64>) -> M,
) -> Result<Outcome, SolveError> {
    if linear == LinearSolver::Direct {
        crate::memory::check_dense_work(lcp, 4, ctx.memory_budget, what)?;
    }
    run_steps(lcp, ctx, |lcp, ctx| {
        let mut z = ctx.start(lcp.n());
        let method = init(lcp, ctx, &mut z);
        let w = ctx.w_of(lcp, &z);
        Ok(Start::Run(Newton { z, w, scale: merit_scale(lcp), method }))
    })
}

/// How one globalised Fischer–Burmeister step ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FbStep {
    /// A step was taken (along the Newton direction or the steepest-descent fallback).
    Taken,
    /// ∇Ψ vanished (relative to Ψ) or no step gave sufficient decrease.
    Stationary,
}

/// The state a Fischer–Burmeister iteration needs beyond z and w.
pub(crate) struct FbWork {
    sys: JacobianSystem,
    a: Vec<f64>,
    b: Vec<f64>,
    phi: Vec<f64>,
    grad: Vec<f64>,
    d: Vec<f64>,
    md: Vec<f64>,
    zt: Vec<f64>,
    wt: Vec<f64>,
    tmp: Vec<f64>,
}

impl FbWork {
    /// Workspace for `lcp` with the given inner solver.
    pub(crate) fn new(lcp: &Lcp, linear: LinearSolver, krylov: KrylovSettings) -> Self {
        let n = lcp.n();
        Self {
            sys: JacobianSystem::new(lcp, linear, krylov),
            a: vec![0.0; n],
            b: vec![0.0; n],
            phi: vec![0.0; n],
            grad: vec![0.0; n],
            d: vec![0.0; n],
            md: vec![0.0; n],
            zt: vec![0.0; n],
            wt: vec![0.0; n],
            tmp: vec![0.0; n],
        }
    }

    /// The generalised Jacobian element H = D_a + D_b M at (z, w), DFK's choice at kinks.
    fn jacobian_element(&mut self, lcp: &Lcp, z: &[f64], w: &[f64], ctx: &mut SolveContext<'_>) {
        let n = z.len();
        let kink = |zi: f64, wi: f64| zi.hypot(wi) <= f64::MIN_POSITIVE;
        let any_kink = z.iter().zip(w).any(|(&zi, &wi)| kink(zi, wi));
        if any_kink {
            for i in 0..n {
                self.tmp[i] = if kink(z[i], w[i]) { 1.0 } else { 0.0 };
            }
            let c = self.tmp.clone();
            ctx.mul_vec(lcp, &c, &mut self.tmp);
            for i in 0..n {
                if kink(z[i], w[i]) {
                    let r = 1.0f64.hypot(self.tmp[i]);
                    self.a[i] = 1.0 / r - 1.0;
                    self.b[i] = self.tmp[i] / r - 1.0;
                }
            }
        }
        for i in 0..n {
            if !kink(z[i], w[i]) {
                let r = z[i].hypot(w[i]);
                self.a[i] = z[i] / r - 1.0;
                self.b[i] = w[i] / r - 1.0;
            }
        }
    }

    /// One globalised step from (z, w) with merit `psi0`; updates z and w (w recomputed as
    /// Mz + q at the new point) and returns how it went.
    pub(crate) fn step(
        &mut self,
        lcp: &Lcp,
        params: &NewtonFbParams,
        z: &mut [f64],
        w: &mut [f64],
        ctx: &mut SolveContext<'_>,
    ) -> FbStep {
        let n = z.len();
        for i in 0..n {
            self.phi[i] = fb(z[i], w[i]);
        }
        let psi0 = 0.5 * self.phi.iter().map(|v| v * v).sum::<f64>();
        self.jacobian_element(lcp, z, w, ctx);
        // ∇Ψ = H'Φ = D_a Φ + M'(D_b Φ).
        for i in 0..n {
            self.tmp[i] = self.b[i] * self.phi[i];
        }
        ctx.mul_vec_transpose(lcp, &self.tmp, &mut self.grad);
        for i in 0..n {
            self.grad[i] += self.a[i] * self.phi[i];
        }
        let gnorm = norm2(&self.grad);
        if gnorm <= f64::EPSILON * psi0.sqrt() || gnorm == 0.0 {
            return FbStep::Stationary;
        }
        let newton_ok = self.newton_direction(lcp, params, psi0, ctx);
        if newton_ok && self.line_search(lcp, params, z, w, psi0, ctx) {
            return FbStep::Taken;
        }
        for i in 0..n {
            self.d[i] = -self.grad[i];
        }
        ctx.mul_vec(lcp, &self.d, &mut self.md);
        if self.line_search(lcp, params, z, w, psi0, ctx) {
            FbStep::Taken
        } else {
            FbStep::Stationary
        }
    }

    /// Solves H d = −Φ and applies DFK's descent test; on success `d` and `md = M d` are set.
    fn newton_direction(
        &mut self,
        lcp: &Lcp,
        params: &NewtonFbParams,
        psi0: f64,
        ctx: &mut SolveContext<'_>,
    ) -> bool {
        if self.sys.factor(lcp, &self.a, &self.b, ctx).is_err() {
            return false;
        }
        for (di, pi) in self.d.iter_mut().zip(&self.phi) {
            *di = -pi;
        }
        let eta = (2.0 * psi0).sqrt().min(0.1);
        if self.sys.solve(lcp, &mut self.d, eta, ctx).is_err() {
            return false;
        }
        let slope: f64 = self.grad.iter().zip(&self.d).map(|(g, d)| g * d).sum();
        // DFK's test is not scale invariant: on problems whose solution is large (box stacks,
        // heavy bodies) an exact Newton direction, slope = -||Φ||², fails it only because ||d||
        // is large. The inexact-Newton bound slope <= -½||Φ||² (met whenever
        // ||Hd + Φ|| <= ½||Φ||) is accepted as sufficient descent as well.
        let dfk = slope <= -params.rho * norm2(&self.d).powf(params.p);
        let inexact_newton = slope <= -psi0;
        if !(dfk || inexact_newton) {
            return false;
        }
        ctx.mul_vec(lcp, &self.d, &mut self.md);
        true
    }

    /// Armijo backtracking along `d`; on success z, w move to the accepted point.
    fn line_search(
        &mut self,
        lcp: &Lcp,
        params: &NewtonFbParams,
        z: &mut [f64],
        w: &mut [f64],
        psi0: f64,
        ctx: &mut SolveContext<'_>,
    ) -> bool {
        let slope: f64 = self.grad.iter().zip(&self.d).map(|(g, d)| g * d).sum();
        if slope.is_nan() || slope >= 0.0 {
            return false;
        }
        let mut t = 1.0;
        // Backtrack until the step no longer moves z in floating point, relative to z itself:
        // a floor of 1 here (an absolute 2.2e-16) stopped the degenerate 1x1 impact LCP with
        // q = -4.6e-5 at residual 4.6e-12, one exact Newton step of 2e-16 short of the
        // solution (tests::small_solution_is_not_cut_off_by_an_absolute_step_floor).
        // `MIN_STEP` only bounds the loop at z = 0.
        let floor = f64::EPSILON * norm2(z);
        let dnorm = norm2(&self.d);
        while t * dnorm > floor && t >= MIN_STEP {
            for i in 0..z.len() {
                self.zt[i] = z[i] + t * self.d[i];
                self.wt[i] = w[i] + t * self.md[i];
            }
            let pt = psi(&self.zt, &self.wt);
            if pt <= psi0 + params.sigma * t * slope {
                z.copy_from_slice(&self.zt);
                // Recompute w exactly so the merit never drifts from Mz + q.
                ctx.mul_vec(lcp, z, w);
                for (wi, qi) in w.iter_mut().zip(lcp.q()) {
                    *wi += qi;
                }
                return true;
            }
            t *= params.beta;
        }
        false
    }
}

impl NewtonFb {
    fn solve_loop(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        let what = "newton-fb: dense Jacobian and its LU factors";
        run_newton(lcp, ctx, self.params.linear, what, |lcp, _, _| FbMethod {
            params: &self.params,
            work: FbWork::new(lcp, self.params.linear, self.params.krylov()),
        })
    }
}

/// The `newton-fb` step: one globalised Fischer–Burmeister step.
struct FbMethod<'p> {
    params: &'p NewtonFbParams,
    work: FbWork,
}

impl NewtonStep for FbMethod<'_> {
    fn step(
        &mut self,
        lcp: &Lcp,
        ctx: &mut SolveContext<'_>,
        z: &mut [f64],
        w: &mut [f64],
    ) -> Step {
        match self.work.step(lcp, self.params, z, w, ctx) {
            FbStep::Taken => Step::checked((2.0 * psi(z, w)).sqrt()),
            FbStep::Stationary => stationary(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{generate, SolveOptions};
    use crate::{LcpSolver, Registry};

    fn solve(spec: &str, lcp: &Lcp) -> crate::Solution {
        let s = Registry::builtin().build(spec).expect("spec");
        s.solve(lcp, &SolveOptions::default(), None).expect("set up")
    }

    #[test]
    fn seed_a4_coupled_contacts() {
        let lcp = Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![-3.0, -3.0])
            .expect("valid");
        let sol = solve("newton-fb", &lcp);
        assert_eq!(sol.status, Status::Solved);
        assert!((sol.z[0] - 1.0).abs() < 1e-9 && (sol.z[1] - 1.0).abs() < 1e-9);
        assert!(sol.factorizations >= 1);
    }

    #[test]
    fn random_spd_dense_and_gmres_reach_1e_10() {
        for seed in 0..5 {
            let lcp = generate::random_spd(40, seed);
            for spec in ["newton-fb", "newton-fb:linear=gmres"] {
                let sol = solve(spec, &lcp);
                assert_eq!(sol.status, Status::Solved, "{spec} seed {seed}: {:?}", sol.note);
                assert!(sol.residual() <= 1e-10);
            }
        }
    }

    #[test]
    fn random_p_matrix_is_solved() {
        for seed in 0..5 {
            let lcp = generate::random_p_matrix(30, seed);
            let sol = solve("newton-fb", &lcp);
            assert_eq!(sol.status, Status::Solved, "seed {seed}");
        }
    }

    /// Bug found on the box stack: DFK's descent test −ρ||d||^p rejected exact Newton
    /// directions because the reactions are ~1e5, and gradient steps then stalled at
    /// ||Φ|| ≈ 6.9 until max_iter. With the scale-free inexact-Newton test it takes 6 steps.
    #[test]
    fn box_stack_large_reactions_do_not_fail_the_descent_test() {
        let lcp = generate::box_stack(10, 1000.0);
        let sol = solve("newton-fb", &lcp);
        assert_eq!(sol.status, Status::Solved, "{:?}", sol.note);
        assert!(sol.iterations < 30, "{} iterations", sol.iterations);
    }

    #[test]
    fn kink_at_the_start_uses_dfk_element() {
        // z = 0 and q_1 = 0 put (z_1, w_1) = (0, 0) on the kink at the first iterate.
        let lcp = Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![0.0, -3.0])
            .expect("valid");
        let sol = solve("newton-fb", &lcp);
        assert_eq!(sol.status, Status::Solved);
        assert!(sol.z[0].abs() < 1e-9 && (sol.z[1] - 1.5).abs() < 1e-9);
    }

    /// Bug found by the event-driven bouncing ball near its accumulation (Zeno) time
    /// (crates/integrators/tests/solvers_by_name.rs): the 1x1 impact LCP M = 1,
    /// q = -4.6e-5 ended `stalled` at residual 4.6e-12 (tol 1e-12) because the line search
    /// stopped at steps below 2.2e-16 in absolute terms; the last Newton step was 2.1e-16.
    #[test]
    fn small_solution_is_not_cut_off_by_an_absolute_step_floor() {
        let s = Registry::builtin().build("newton-fb").expect("spec");
        let opts = SolveOptions { tol: Some(1e-12), ..SolveOptions::default() };
        for q in [-4.602477647718933e-5, -1e-9, -3e-14, 2e-7] {
            let lcp = Lcp::from_dense_rows(&[vec![1.0]], vec![q]).expect("valid");
            let sol = s.solve(&lcp, &opts, None).expect("set up");
            assert_eq!(sol.status, Status::Solved, "q = {q:e}: residual {:e}", sol.residual());
            assert!(sol.residual() <= 1e-12, "q = {q:e}");
            let exact = (-q).max(0.0);
            assert!((sol.z[0] - exact).abs() <= 1e-12 * q.abs(), "q = {q:e}: z = {:e}", sol.z[0]);
        }
        // The same at a scale far below 1, in 2 unknowns.
        let lcp = Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![-3e-6, -3e-6])
            .expect("valid");
        let sol = s.solve(&lcp, &opts, None).expect("set up");
        assert_eq!(sol.status, Status::Solved, "residual {:e}", sol.residual());
    }

    #[test]
    fn zero_time_limit_stops_before_the_first_step() {
        let lcp = generate::random_spd(20, 2);
        let s = Registry::builtin().build("newton-fb").expect("spec");
        let opts =
            SolveOptions { time_limit: Some(std::time::Duration::ZERO), ..SolveOptions::default() };
        let sol = s.solve(&lcp, &opts, None).expect("set up");
        assert_eq!(sol.status, Status::TimeLimit);
        assert_eq!(sol.iterations, 0);
    }

    #[test]
    fn seed_a2_infeasible_is_not_solved() {
        let lcp = Lcp::from_dense_rows(&[vec![-1.0]], vec![-1.0]).expect("valid");
        let sol = solve("newton-fb", &lcp);
        assert_ne!(sol.status, Status::Solved);
    }

    #[test]
    fn warm_start_at_the_solution_takes_no_iteration() {
        let lcp = generate::random_spd(10, 7);
        let s = Registry::builtin().build("newton-fb").expect("spec");
        let cold = s.solve(&lcp, &SolveOptions::default(), None).expect("set up");
        let warm = s.solve(&lcp, &SolveOptions::default(), Some(&cold.z)).expect("set up");
        assert_eq!(warm.status, Status::Solved);
        assert_eq!(warm.iterations, 0);
    }

    #[test]
    fn bad_warm_start_and_bad_keys_are_errors() {
        let lcp = generate::random_spd(4, 1);
        let s = Registry::builtin().build("newton-fb").expect("spec");
        assert!(s.solve(&lcp, &SolveOptions::default(), Some(&[0.0; 3])).is_err());
        assert!(Registry::builtin().build("newton-fb:linear=cholesky").is_err());
        assert!(Registry::builtin().build("newton-fb:p=2").is_err());
        assert!(Registry::builtin().build("newton-fb:sigma=0.7").is_err());
    }

    #[test]
    fn canonical_name_lists_non_defaults() {
        let s = Registry::builtin().build("newton-fb:linear=krylov,max_iter=9").expect("spec");
        assert_eq!(s.name(), "newton-fb:linear=gmres,max_iter=9");
    }
}
