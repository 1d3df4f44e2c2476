//! `ipm`: infeasible primal-dual interior-point method with Mehrotra's predictor–corrector for
//! monotone (positive semidefinite) LCPs (Wright 1997, *Primal-Dual Interior-Point Methods*,
//! SIAM, ch. 8 (monotone LCP) and ch. 11 (implementation); Kojima, Megiddo, Noma, Yoshise 1991,
//! *A Unified Approach to Interior Point Algorithms for Linear Complementarity Problems*,
//! LNCS 538; Mehrotra 1992, SIAM J. Optim. 2).
//!
//! Iterates (z, w) > 0 with residual r = Mz + q − w and μ = z'w/n. The Newton system
//! M Δz − Δw = −r, W Δz + Z Δw = r_c reduces to
//!
//! (M + Z⁻¹W) Δz = Z⁻¹ r_c − r,   Δw = M Δz + r,
//!
//! factorised once per iteration and solved twice. On rows with w_i / z_i below M_ii (1 where
//! M_ii = 0; the active rows near a solution, where w_i -> 0) Δw_i is taken from the
//! complementarity equation instead, Δw_i = (r_c,i − w_i Δz_i) / z_i: equal in exact
//! arithmetic, but M Δz + r carries an absolute round-off that can exceed a tiny w_i and block
//! every later step (the random 2D pile stalled that way at residual 1.6e-6). For a sparse symmetric M (to 1e-12
//! relative) the matrix M + Z⁻¹W is positive definite (M PSD, Z⁻¹W > 0) and goes to a sparse
//! faer Cholesky factorisation ([`PrincipalCholesky`], ordering and symbolic analysis once per
//! solve); when a numeric factorisation finds a pivot that is not positive (M not PSD, or
//! round-off on a singular M with tiny Z⁻¹W), that solve goes on with the LU. Otherwise: dense
//! faer LU, or sparse faer LU whose symbolic analysis is done once per solve (the pattern is
//! that of M plus the diagonal). For a Gram-form M = G G' + D ([`Lcp::from_gram`], G n x p)
//! the Newton matrix G G' + E, E = D + Z⁻¹W, is solved in the p unknowns of G's columns
//! instead ([`crate::linalg::gram_newton`]: Woodbury with K = I + G' E⁻¹ G, a sparse
//! Cholesky, iterative refinement), so M is never assembled; for a Delassus matrix
//! W = J M⁻¹ J' that is the matrix of the bodies' velocities. The two solves are
//! the predictor with r_c = −ZWe, then the corrector with
//! r_c = −ZWe − ΔZ_aff ΔW_aff e + σμe, σ = (μ_aff/μ)³; up to `correctors` (default 0) of
//! Gondzio's centrality correctors may follow while the step to the boundary is below 1 and
//! each lengthens it (Gondzio 1996, `gondzio` below; on the 10^4 packings two of them cut the
//! steps by 15–21 % but cost more in solves than the factorisations they saved,
//! docs/performance.md). One step length α for z and w (they are tied by Δw = MΔz + r) is η
//! times the step to the boundary, capped at 1, with
//! η = max(0.99, 1 − merit) → 1 near the solution (Mehrotra's heuristic; Wright ch. 11).
//!
//! Start (Wright ch. 11, Mehrotra's heuristic applied to z and w = Mz + q): from z = e (cold)
//! or the warm start, shift z and w into the interior by δ = max(0, −1.5 min) and then by the
//! balancing term ½ z'w / Σ (so that no product z_i w_i starts near zero). Terminates on the
//! merit of `merit.rs` recomputed from z each iteration (the driver re-checks). Failure
//! detection: a direction with Δz'MΔz < 0 beyond round-off (n ε ||M||_F ||Δz||²) proves M is not monotone
//! (`numerical_failure`); ||z|| beyond 1e12 times its scale, 10 consecutive steps with
//! α < 1e-8 (typical of infeasible problems), or, once the residual is below 1e-4, 15 steps in
//! which it did not halve (a degenerate solution the central path crawls towards), end as
//! `stalled`. History measure: the merit
//! residual of the iterate. Warm start: the given z, shifted into the interior as above.

use crate::linalg::gram_newton::GramNewton;
use crate::linalg::jacobian_system::{
    JacobianSystem, KrylovSettings, LinearError, LinearSolver, PrincipalCholesky,
};
use crate::merit::{merit_scale, min_map_norm, norm2};
use std::borrow::Cow;

use crate::solver::{Outcome, SolveContext, SolveError};
use crate::status::Status;
use crate::steps::{run_steps, Policy, Start, Step, StepResult, Steps};
use crate::{Lcp, Matrix};

crate::solver_params! {
    /// Parameters of `ipm`.
    pub struct IpmParams for "ipm" {
        /// fraction of the step to the boundary far from the solution (near it, 1 - merit)
        step_fraction: f64 = 0.99, valid if |v| v > 0.0 && v < 1.0 => "in (0, 1)";
        /// refuse a sparse Cholesky factor with more than this many times the entries of the
        /// Newton matrix's triangle (that of G' G for a Gram-form M; 0: no limit; the memory
        /// budget always applies)
        max_fill: f64 = 0.0, valid if |v| v >= 0.0 && v.is_finite() => ">= 0";
        /// most of Gondzio's centrality correctors per step, each one more solve with the
        /// step's factorisation (0: Mehrotra's predictor-corrector alone)
        correctors: usize = 0, valid if |v| v <= 10 => "in 0..=10";
        /// threads of the sparse Cholesky factorisations and solves (faer on rayon's pool;
        /// 1: sequential, the same bits at every run)
        threads: usize = 1, valid if |v| (1..=256).contains(&v) => "in 1..=256";
    }
}

crate::lcp_solver! {
    /// The `ipm` solver.
    pub struct Ipm(IpmParams) {
        summary: "primal-dual interior point, Mehrotra predictor-corrector (Wright 1997); monotone (PSD) M",
        tol: 1e-10,
        max_iter: |_params, _n| 200,
        matrix_free: true,
        run: Ipm::solve_loop,
    }
}

/// Mehrotra's shift of (z, w) into the interior.
fn shift_into_interior(z: &mut [f64], w: &mut [f64]) {
    let min = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    let dz = (-1.5 * min(z)).max(0.0);
    let dw = (-1.5 * min(w)).max(0.0);
    z.iter_mut().for_each(|v| *v += dz);
    w.iter_mut().for_each(|v| *v += dw);
    let zw: f64 = z.iter().zip(w.iter()).map(|(a, b)| a * b).sum();
    let sz: f64 = z.iter().sum();
    let sw: f64 = w.iter().sum();
    let bz = if sw > 0.0 { 0.5 * zw / sw } else { 0.0 };
    let bw = if sz > 0.0 { 0.5 * zw / sz } else { 0.0 };
    // Keep a floor so that a zero start (z = w = 0) still becomes interior.
    let floor = 1e-2 * (norm2(z) + norm2(w)).max(1.0) / (z.len() as f64).sqrt();
    z.iter_mut().for_each(|v| *v = (*v + bz).max(floor));
    w.iter_mut().for_each(|v| *v = (*v + bw).max(floor));
}

/// The largest α > 0 with x + α dx >= 0 (componentwise), uncapped (infinite when dx >= 0).
fn step_to_boundary(x: &[f64], dx: &[f64]) -> f64 {
    x.iter()
        .zip(dx)
        .filter(|pair| *pair.1 < 0.0)
        .map(|(&xi, &d)| -xi / d)
        .fold(f64::INFINITY, f64::min)
}

/// Frobenius norm of M (for the round-off bound of the monotonicity test); for a Gram-form
/// M = G G' + D the bound ||G||_F² + ||D||_F, without assembling M.
fn frobenius(lcp: &Lcp) -> f64 {
    if let Some(g) = lcp.gram() {
        let f = g.factor();
        let gg: f64 =
            (0..lcp.n()).map(|i| f.val_of_row(i).iter().map(|v| v * v).sum::<f64>()).sum();
        let dd: f64 = g.compliance().map_or(0.0, |d| d.iter().map(|v| v * v).sum());
        return gg + dd.sqrt();
    }
    let sq: f64 = match lcp.matrix() {
        Matrix::Dense(d) => {
            (0..d.ncols()).map(|j| d.col(j).iter().map(|v| v * v).sum::<f64>()).sum()
        }
        Matrix::Sparse(s) => {
            (0..lcp.n()).map(|i| s.val_of_row(i).iter().map(|v| v * v).sum::<f64>()).sum()
        }
    };
    sq.sqrt()
}

/// Largest fraction of the step to the boundary: iterates stay strictly interior.
const MAX_STEP_FRACTION: f64 = 1.0 - 1e-6;

struct Direction {
    dz: Vec<f64>,
    dw: Vec<f64>,
}

impl Breakdown {
    /// The end of the run at step `it`, `numerical_failure` with the reason.
    fn end(self, it: usize) -> Step {
        let note = match self {
            Breakdown::Linear(e) => format!("the Newton solve at step {it}: {e}"),
            Breakdown::NotMonotone => {
                format!(
                    "step {it}: a direction with dz'M dz < 0 beyond round-off (M is not monotone)"
                )
            }
        };
        Step::End { status: Status::NumericalFailure, note: Some(note) }
    }
}

/// Why an interior-point iteration could not continue.
enum Breakdown {
    /// Factorisation or solve failed.
    Linear(LinearError),
    /// Δz'MΔz < 0: M is not monotone.
    NotMonotone,
}

impl Ipm {
    /// The factorisation of the Newton matrix: the sparse Cholesky for a sparse symmetric M,
    /// analysed now so that its size is checked against the memory budget (8 bytes per
    /// entry of L) and `max_fill` before any numeric work; the LU otherwise, or when the
    /// analysis fails.
    fn newton(&self, lcp: &Lcp, ctx: &SolveContext<'_>) -> Result<Newton, SolveError> {
        if let Some(gram) = lcp.gram() {
            let mut sys = GramNewton::new(gram);
            sys.set_threads(self.params.threads);
            sys.analyse_now().map_err(|e| SolveError::Unsupported {
                solver: crate::solver::LcpSolver::name(self),
                reason: format!("the velocity-space Newton matrix I + G' E^-1 G: {e}"),
            })?;
            let (l, k, t) = (sys.factor_nnz(), sys.matrix_nnz(), sys.term_count());
            crate::memory::check_bytes(8 * (l + k + t) as u128, ctx.memory_budget, || {
                format!(
                    "ipm: sparse Cholesky factor of I + G' E^-1 G ({l} entries, p = {}) and its \
                     assembly list ({t} terms)",
                    sys.size()
                )
            })?;
            self.check_fill(l, k)?;
            return Ok(Newton::Velocity(Box::new(sys)));
        }
        let Some(mut chol) = PrincipalCholesky::new(lcp, 1e-12) else {
            return Ok(Newton::lu(lcp));
        };
        chol.set_threads(self.params.threads);
        if chol.analyse_now().is_err() {
            return Ok(Newton::lu(lcp));
        }
        let (l, k) = (chol.factor_nnz(), chol.matrix_nnz());
        crate::memory::check_bytes(8 * l as u128, ctx.memory_budget, || {
            format!("ipm: sparse Cholesky factor of M + Z^-1 W ({l} entries, n = {})", lcp.n())
        })?;
        self.check_fill(l, k)?;
        Ok(Newton::Cholesky(Box::new(chol)))
    }

    /// `max_fill` against a factor of `l` entries for a triangle of `k`.
    fn check_fill(&self, l: usize, k: usize) -> Result<(), SolveError> {
        let max_fill = self.params.max_fill;
        if max_fill > 0.0 && l as f64 > max_fill * k as f64 {
            return Err(SolveError::Unsupported {
                solver: crate::solver::LcpSolver::name(self),
                reason: format!(
                    "the sparse Cholesky factor of the Newton matrix would hold {l} entries, \
                     {:.1} times the {k} of its triangle, more than max_fill = {max_fill}",
                    l as f64 / k.max(1) as f64
                ),
            });
        }
        Ok(())
    }

    fn solve_loop(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        let n = lcp.n();
        crate::memory::check_dense_work(
            lcp,
            4,
            ctx.memory_budget,
            "ipm: dense Newton matrix and its LU factors",
        )?;
        let sys = self.newton(lcp, ctx)?;
        run_steps(lcp, ctx, |lcp, ctx| {
            let mut z = match ctx.warm_start {
                Some(z0) => z0.to_vec(),
                None => vec![1.0; n],
            };
            let mut w = vec![0.0; n];
            ctx.mul_vec(lcp, &z, &mut w);
            for (wi, qi) in w.iter_mut().zip(lcp.q()) {
                *wi += qi;
            }
            shift_into_interior(&mut z, &mut w);
            let scale = merit_scale(lcp);
            let mut state = IpmState {
                step_fraction: self.params.step_fraction,
                correctors: self.params.correctors,
                z_scale: norm2(&z).max(scale).max(1.0),
                scale,
                z,
                w,
                sys,
                m_norm: frobenius(lcp),
                m_diag: lcp.diag(),
                w_true: vec![0.0; n],
                r: vec![0.0; n],
                residual: f64::INFINITY,
                tiny_steps: 0,
                anchor: (f64::INFINITY, 0),
                d: vec![0.0; n],
                ones: vec![1.0; n],
            };
            state.measure(lcp, ctx);
            Ok(Start::Run(state))
        })
    }
}

/// Iterative refinement of a velocity-space solve stops at a relative residual of this times
/// the merit residual of the iterate (at most 1e-6, at least
/// [`crate::linalg::gram_newton::REFINE_TOL`]): an early direction needs no 1e-13. Measured
/// (release, medians of 3, matrix-free packings at 10^4): hex 0.165 -> 0.138 s, hexr 0.292 ->
/// 0.239 s, fcc 1.17 -> 1.02 s, cubic 0.089 -> 0.071 s, the same steps on each; 1e-2 was no
/// faster on hexr.
const REFINE_PER_RESIDUAL: f64 = 1e-4;

/// Steps without the residual halving after which the run ends `stalled` (Mehrotra's method
/// halves it in one or two steps where it converges; on the degenerate random disk pile it
/// crawled from 1e-6 to 5e-8 in 60 steps).
const SLOW_STEPS: usize = 15;

/// The slow-progress test applies only once the residual is below this: far from the
/// solution the residual of an infeasible start can stay O(1) for tens of steps while the
/// infeasibility falls.
const SLOW_BELOW: f64 = 1e-4;

/// The factorisation of the Newton matrix M + Z⁻¹W.
enum Newton {
    /// Sparse Cholesky (sparse symmetric M).
    Cholesky(Box<PrincipalCholesky>),
    /// Dense or sparse LU.
    Lu(JacobianSystem),
    /// Gram-form M: the velocity-space matrix I + G' E⁻¹ G (Woodbury).
    Velocity(Box<GramNewton>),
}

impl Newton {
    fn lu(lcp: &Lcp) -> Self {
        Newton::Lu(JacobianSystem::new(
            lcp,
            LinearSolver::Direct,
            KrylovSettings { restart: 1, max_iter: 1 },
        ))
    }

    /// Factorises M + diag(d); a Cholesky that meets a pivot that is not positive hands this
    /// and every later factorisation of the solve to the LU.
    fn factor(
        &mut self,
        lcp: &Lcp,
        d: &[f64],
        ones: &[f64],
        ctx: &mut SolveContext<'_>,
    ) -> Result<(), LinearError> {
        if let Newton::Velocity(sys) = self {
            // K is positive definite for every E > 0: a failure is numerical, and an LU would
            // assemble M.
            let gram = lcp.gram().ok_or(LinearError::Factorization("no Gram form".into()))?;
            return sys.factor(gram, d, ctx);
        }
        if let Newton::Cholesky(chol) = self {
            if chol.factor_plus_diagonal(d, ctx).is_ok() {
                return Ok(());
            }
            *self = Newton::lu(lcp);
        }
        match self {
            Newton::Lu(sys) => sys.factor(lcp, d, ones, ctx),
            Newton::Cholesky(_) | Newton::Velocity(_) => unreachable!("handled above"),
        }
    }

    fn solve(
        &mut self,
        lcp: &Lcp,
        rhs: &mut [f64],
        ctx: &mut SolveContext<'_>,
    ) -> Result<(), LinearError> {
        match self {
            Newton::Cholesky(chol) => chol.solve(rhs),
            Newton::Lu(sys) => sys.solve(lcp, rhs, 0.0, ctx),
            Newton::Velocity(sys) => {
                let gram = lcp.gram().ok_or(LinearError::Factorization("no Gram form".into()))?;
                sys.solve(gram, rhs, ctx)
            }
        }
    }
}

/// The running state of `ipm`: the interior pair (z, w), with w carried by the steps, and
/// the true w = Mz + q with the infeasibility r = w_true − w and the residual of z.
struct IpmState {
    step_fraction: f64,
    correctors: usize,
    z_scale: f64,
    scale: f64,
    z: Vec<f64>,
    w: Vec<f64>,
    sys: Newton,
    m_norm: f64,
    /// Diagonal of M (the scale of the rows at which Δw comes from complementarity).
    m_diag: Vec<f64>,
    w_true: Vec<f64>,
    r: Vec<f64>,
    residual: f64,
    tiny_steps: usize,
    /// The residual when it last fell to half the one before, and the step then.
    anchor: (f64, usize),
    /// The diagonal W Z^-1 of the Newton matrix, and the unit diagonal beside it.
    d: Vec<f64>,
    ones: Vec<f64>,
}

impl IpmState {
    /// w_true = Mz + q (one product), r = w_true − w and the residual of z.
    fn measure(&mut self, lcp: &Lcp, ctx: &mut SolveContext<'_>) {
        ctx.mul_vec(lcp, &self.z, &mut self.w_true);
        for i in 0..lcp.n() {
            self.w_true[i] += lcp.q()[i];
            self.r[i] = self.w_true[i] - self.w[i];
        }
        self.residual = min_map_norm(&self.z, &self.w_true) / self.scale;
    }
}

impl<'c> Steps<SolveContext<'c>> for IpmState {
    fn policy(&self) -> Policy {
        Policy { check_start: true, ..Policy::named("iteration") }
    }

    fn z(&self) -> Cow<'_, [f64]> {
        Cow::Borrowed(&self.z)
    }

    fn merit(&self, _lcp: &Lcp) -> Option<(Cow<'_, [f64]>, f64)> {
        Some((Cow::Borrowed(&self.w_true), self.residual))
    }

    fn step(&mut self, lcp: &Lcp, ctx: &mut SolveContext<'c>, it: usize) -> StepResult {
        let n = lcp.n();
        let (z, w) = (&mut self.z, &mut self.w);
        let mu = z.iter().zip(w.iter()).map(|(a, b)| a * b).sum::<f64>() / n as f64;
        for ((di, wi), zi) in self.d.iter_mut().zip(w.iter()).zip(z.iter()) {
            *di = wi / zi;
        }
        if let Err(e) = self.sys.factor(lcp, &self.d, &self.ones, ctx) {
            let note = format!("the Newton matrix at step {it}: {e}");
            return Ok(Step::End { status: Status::NumericalFailure, note: Some(note) });
        }
        if let Newton::Velocity(v) = &mut self.sys {
            v.set_refine_tol((REFINE_PER_RESIDUAL * self.residual).min(1e-6));
        }
        let rc_aff: Vec<f64> = z.iter().zip(w.iter()).map(|(a, b)| -a * b).collect();
        let aff = match direction(
            lcp,
            &mut self.sys,
            (z, w),
            &self.r,
            &rc_aff,
            (self.m_norm, &self.m_diag),
            ctx,
        ) {
            Ok(dir) => dir,
            // A failed solve or proof of non-monotonicity: the method does not apply.
            Err(b) => return Ok(b.end(it)),
        };
        let alpha_aff = step_to_boundary(z, &aff.dz).min(step_to_boundary(w, &aff.dw)).min(1.0);
        let mu_aff = (0..n)
            .map(|i| (z[i] + alpha_aff * aff.dz[i]) * (w[i] + alpha_aff * aff.dw[i]))
            .sum::<f64>()
            / n as f64;
        let sigma = (mu_aff / mu).clamp(0.0, 1.0).powi(3);
        let rc: Vec<f64> = (0..n).map(|i| rc_aff[i] - aff.dz[i] * aff.dw[i] + sigma * mu).collect();
        let mut dir = match direction(
            lcp,
            &mut self.sys,
            (z, w),
            &self.r,
            &rc,
            (self.m_norm, &self.m_diag),
            ctx,
        ) {
            Ok(dir) => dir,
            Err(b) => return Ok(b.end(it)),
        };
        // Mehrotra's step length: a fraction η of the (uncapped) step to the boundary,
        // capped at the full step 1, with η -> 1 as the merit falls (η = max(step_fraction,
        // 1 - residual), kept below 1). Capping the boundary step at 1 before taking the
        // fraction forced α <= step_fraction even where the full step is interior, which
        // made the tail linear (merit / 100 per iteration): psd_singular_n100_r30_s7 then
        // hit the round-off of the curvature test one step short of 1e-10.
        let mut alpha_max = step_to_boundary(z, &dir.dz).min(step_to_boundary(w, &dir.dw));
        for _ in 0..self.correctors {
            if alpha_max >= 1.0 {
                break;
            }
            let Some((better, reach)) = gondzio(
                lcp,
                &mut self.sys,
                (z, w),
                &dir,
                alpha_max,
                sigma * mu,
                (self.m_norm, &self.m_diag),
                ctx,
            ) else {
                break;
            };
            dir = better;
            alpha_max = reach;
        }
        let eta = self.step_fraction.max(1.0 - self.residual).min(MAX_STEP_FRACTION);
        let alpha = (eta * alpha_max).min(1.0);
        self.tiny_steps = if alpha < 1e-8 { self.tiny_steps + 1 } else { 0 };
        for i in 0..n {
            z[i] += alpha * dir.dz[i];
            w[i] += alpha * dir.dw[i];
            // Round-off must not leave the open orthant.
            z[i] = z[i].max(f64::MIN_POSITIVE);
            w[i] = w[i].max(f64::MIN_POSITIVE);
        }
        self.measure(lcp, ctx);
        if self.residual <= 0.5 * self.anchor.0 {
            self.anchor = (self.residual, it);
        }
        let slow = self.anchor.0 <= SLOW_BELOW && it >= self.anchor.1 + SLOW_STEPS;
        if norm2(&self.z) > 1e12 * self.z_scale || self.tiny_steps >= 10 || slow {
            let note = if self.tiny_steps >= 10 {
                "ten steps in a row shorter than 1e-8".into()
            } else if slow {
                format!(
                    "the residual did not halve in {SLOW_STEPS} steps ({:.2e} at step {}, \
                     {:.2e} now)",
                    self.anchor.0, self.anchor.1, self.residual
                )
            } else {
                "||z|| grew beyond 1e12 times its starting scale".into()
            };
            return Ok(Step::End { status: Status::Stalled, note: Some(note) });
        }
        Ok(Step::checked(self.residual))
    }
}

/// Gondzio's centrality corrector (Gondzio 1996, *Multiple centrality corrections in a
/// primal-dual method for linear programming*, Comput. Optim. Appl. 6; Colombo & Gondzio 2008
/// for the LCP/QP setting): at a trial step α̃ = min(1, 1.5 α + 0.1), enlarged beyond the
/// current α as Gondzio's α + δ is (the factor and offset are ours), the
/// products v = (z + α̃ Δz)(w + α̃ Δw) are pulled into [β_min σμ, β_max σμ] (β_min = 0.1,
/// β_max = 10; a product above the box is pulled down by at most β_max σμ), and the correction
/// solves the Newton system with that complementarity right-hand side and no infeasibility.
/// The corrected direction is kept when its step to the boundary is at least
/// α + 0.1 (α̃ − α) (Gondzio's γ = 0.1); `None` otherwise, or when the correction's solve
/// fails (the step then goes on with the direction it had).
#[allow(clippy::too_many_arguments)]
fn gondzio(
    lcp: &Lcp,
    sys: &mut Newton,
    (z, w): (&[f64], &[f64]),
    dir: &Direction,
    alpha: f64,
    target: f64,
    m: (f64, &[f64]),
    ctx: &mut SolveContext<'_>,
) -> Option<(Direction, f64)> {
    let n = z.len();
    let trial = (1.5 * alpha + 0.1).min(1.0);
    let (lo, hi) = (0.1 * target, 10.0 * target);
    let mut any = false;
    let rc: Vec<f64> = (0..n)
        .map(|i| {
            let v = (z[i] + trial * dir.dz[i]) * (w[i] + trial * dir.dw[i]);
            if v < lo {
                any = true;
                lo - v
            } else if v > hi {
                any = true;
                (hi - v).max(-hi)
            } else {
                0.0
            }
        })
        .collect();
    if !any {
        return None;
    }
    let zero = vec![0.0; n];
    let corr = direction(lcp, sys, (z, w), &zero, &rc, m, ctx).ok()?;
    let dz: Vec<f64> = dir.dz.iter().zip(&corr.dz).map(|(a, b)| a + b).collect();
    let dw: Vec<f64> = dir.dw.iter().zip(&corr.dw).map(|(a, b)| a + b).collect();
    let reach = step_to_boundary(z, &dz).min(step_to_boundary(w, &dw));
    (reach >= alpha + 0.1 * (trial - alpha)).then_some((Direction { dz, dw }, reach))
}

/// Solves the reduced system for r_c and returns (Δz, Δw); checks monotonicity along Δz.
///
/// Δz'MΔz < 0 proves M is not monotone only beyond round-off: the computed product carries an
/// error up to about n ε ||M||_F ||Δz||², which dominates when Δz lies nearly in the null
/// space of a singular PSD M (the relative test 1e-8 ||Δz|| ||MΔz|| alone then fails on PSD
/// problems near their solution).
fn direction(
    lcp: &Lcp,
    sys: &mut Newton,
    (z, w): (&[f64], &[f64]),
    r: &[f64],
    rc: &[f64],
    (m_norm, m_diag): (f64, &[f64]),
    ctx: &mut SolveContext<'_>,
) -> Result<Direction, Breakdown> {
    let n = z.len();
    let mut dz: Vec<f64> = (0..n).map(|i| rc[i] / z[i] - r[i]).collect();
    sys.solve(lcp, &mut dz, ctx).map_err(Breakdown::Linear)?;
    let mut mdz = vec![0.0; n];
    ctx.mul_vec(lcp, &dz, &mut mdz);
    let curvature: f64 = dz.iter().zip(&mdz).map(|(a, b)| a * b).sum();
    let dz_norm = norm2(&dz);
    let round_off = 4.0 * n as f64 * f64::EPSILON * m_norm * dz_norm * dz_norm;
    if curvature < -(1e-8 * dz_norm * norm2(&mdz) + round_off) {
        return Err(Breakdown::NotMonotone);
    }
    let excess = match sys {
        Newton::Velocity(v) => Some(v.excess()),
        _ => None,
    };
    let dw: Vec<f64> = (0..n)
        .map(|i| {
            let floored = excess.is_some_and(|ex| ex[i] > 0.0);
            let scale = if m_diag[i] > 0.0 { m_diag[i] } else { 1.0 };
            if floored || w[i] < scale * z[i] {
                // Δw_i from the complementarity equation W Δz + Z Δw = r_c (equal to
                // M Δz + r in exact arithmetic). Where w_i / z_i is below M_ii (w_i -> 0
                // at an active row) M Δz + r carries an absolute round-off of
                // ε ||M|| ||Δz|| that can exceed w_i and block the step (hexagonal
                // random pile: w_i = 4e-16 against Δw_i = -1e-14, steps of 1e-7, 1e-13,
                // ... down to 1e-65); this form keeps Δw_i relative to w_i. On rows whose
                // Z⁻¹W was raised to the floor it is the equation the solve met; the first
                // equation then misses by a round-off or by excess_i Δz_i, an
                // infeasibility the next r carries.
                (rc[i] - w[i] * dz[i]) / z[i]
            } else {
                mdz[i] + r[i]
            }
        })
        .collect();
    Ok(Direction { dz, dw })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{generate, SolveOptions};
    use crate::{LcpSolver, Registry};

    fn solve(lcp: &Lcp, z0: Option<&[f64]>) -> crate::Solution {
        let s = Registry::builtin().build("ipm").expect("spec");
        s.solve(lcp, &SolveOptions::default(), z0).expect("set up")
    }

    #[test]
    fn seed_a4_coupled_contacts() {
        let lcp = Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![-3.0, -3.0])
            .expect("valid");
        let sol = solve(&lcp, None);
        assert_eq!(sol.status, Status::Solved, "{:?}", sol.note);
        assert!((sol.z[0] - 1.0).abs() < 1e-9 && (sol.z[1] - 1.0).abs() < 1e-9);
        assert_eq!(sol.factorizations, sol.iterations);
    }

    #[test]
    fn random_spd_and_psd_singular_reach_1e_10() {
        for seed in 0..5 {
            let sol = solve(&generate::random_spd(40, seed), None);
            assert_eq!(sol.status, Status::Solved, "spd seed {seed}: {:?}", sol.note);
            let sol = solve(&generate::random_psd_singular(30, 10, seed), None);
            assert_eq!(sol.status, Status::Solved, "psd seed {seed}: {:?}", sol.note);
        }
    }

    #[test]
    fn warm_start_near_the_solution_converges() {
        let lcp = generate::random_spd(30, 11);
        let cold = solve(&lcp, None);
        assert_eq!(cold.status, Status::Solved);
        let warm = solve(&lcp, Some(&cold.z));
        assert_eq!(warm.status, Status::Solved);
    }

    #[test]
    fn infeasible_and_non_monotone_are_not_solved() {
        let lcp = Lcp::from_dense_rows(&[vec![-1.0]], vec![-1.0]).expect("valid");
        assert_ne!(solve(&lcp, None).status, Status::Solved);
        let (lcp, _) = generate::random_copositive_plus_infeasible(8, 3);
        assert_ne!(solve(&lcp, None).status, Status::Solved);
        // M = [[1, 2], [2, 1]] is indefinite; q = -e has three solutions.
        let lcp = Lcp::from_dense_rows(&[vec![1.0, 2.0], vec![2.0, 1.0]], vec![-1.0, -1.0])
            .expect("valid");
        let sol = solve(&lcp, None);
        assert!(sol.status == Status::Solved || sol.status == Status::NumericalFailure);
        // M = -1, q = 3: from z = 1, w = 2 the predictor is dz = -2 with dz'M dz = -4 < 0,
        // which proves M is not monotone.
        let lcp = Lcp::from_dense_rows(&[vec![-1.0]], vec![3.0]).expect("valid");
        assert_eq!(solve(&lcp, None).status, Status::NumericalFailure);
    }

    /// Was `numerical_failure` at merit 1.04e-10 after 12 iterations (verification case
    /// lcp/random/psd_singular_n100_r30_s7): α capped at 0.99 gave a linear tail and the
    /// curvature test then misread round-off as non-monotonicity.
    #[test]
    fn psd_singular_n100_r30_s7_reaches_1e_10() {
        let sol = solve(&generate::random_psd_singular(100, 30, 7), None);
        assert_eq!(sol.status, Status::Solved, "{:?} residual {:e}", sol.note, sol.residual());
        assert!(sol.residual() <= 1e-10);
        assert!(sol.iterations <= 30, "{} iterations", sol.iterations);
    }

    /// The same problem in sparse storage (the Cholesky path when M is symmetric).
    fn sparse_copy(lcp: &Lcp) -> Lcp {
        let n = lcp.n();
        let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..n {
            for j in 0..n {
                let m = lcp.get(i, j);
                if m != 0.0 {
                    r.push(i);
                    c.push(j);
                    v.push(m);
                }
            }
        }
        Lcp::from_coo(n, &r, &c, &v, lcp.q().to_vec()).expect("valid")
    }

    /// Sparse symmetric M goes to the sparse Cholesky: the same iterates as the dense LU up to
    /// round-off (SPD: the same z; singular PSD: solved to 1e-10 in as few iterations).
    #[test]
    fn sparse_symmetric_m_uses_the_cholesky_and_matches_the_lu() {
        for seed in 0..3 {
            let dense = generate::random_spd(40, seed);
            let (a, b) = (solve(&dense, None), solve(&sparse_copy(&dense), None));
            assert_eq!(b.status, Status::Solved, "seed {seed}: {:?}", b.note);
            assert_eq!(a.iterations, b.iterations, "seed {seed}");
            assert_eq!(b.factorizations, b.iterations, "seed {seed}: a Cholesky failed");
            for (x, y) in a.z.iter().zip(&b.z) {
                assert!((x - y).abs() <= 1e-8 * (1.0 + x.abs()), "seed {seed}: {x} vs {y}");
            }
        }
        let dense = generate::random_psd_singular(100, 30, 7);
        let (a, b) = (solve(&dense, None), solve(&sparse_copy(&dense), None));
        assert_eq!(b.status, Status::Solved, "{:?}", b.note);
        assert!(b.residual() <= 1e-10);
        assert!(b.iterations <= a.iterations + 2, "{} vs {}", b.iterations, a.iterations);
    }

    /// M = [[0, 5], [5, 0]] is symmetric indefinite: from z = e, w = (4, 4) the Newton matrix
    /// [[4, 5], [5, 4]] is indefinite, its Cholesky fails (one counted factorisation) and the
    /// solve goes on with the LU; the result is a checked solution or a failure, never a
    /// wrong claim.
    #[test]
    fn an_indefinite_newton_matrix_falls_back_to_the_lu() {
        let lcp = Lcp::from_coo(2, &[0, 1], &[1, 0], &[5.0, 5.0], vec![-1.0, -1.0]).expect("valid");
        let sol = solve(&lcp, None);
        assert_eq!(sol.factorizations, sol.iterations + 1, "{:?}", sol.note);
        if sol.status == Status::Solved {
            assert!(sol.residual() <= 1e-10);
        } else {
            assert_eq!(sol.status, Status::NumericalFailure, "{:?}", sol.note);
        }
    }

    /// The 5-point Laplacian on a 20 x 20 grid (plus I): its Cholesky factor fills in, so
    /// `max_fill` just above 1 refuses it before any numeric work, a generous one solves, and
    /// a memory budget smaller than the factor is a typed memory error.
    #[test]
    fn the_cholesky_factor_is_checked_against_max_fill_and_the_memory_budget() {
        let k = 20;
        let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..k {
            for j in 0..k {
                let p = i * k + j;
                r.push(p);
                c.push(p);
                v.push(5.0);
                for (di, dj) in [(0, 1), (1, 0)] {
                    if i + di < k && j + dj < k {
                        let o = (i + di) * k + j + dj;
                        r.extend([p, o]);
                        c.extend([o, p]);
                        v.extend([-1.0, -1.0]);
                    }
                }
            }
        }
        let q: Vec<f64> = (0..k * k).map(|p| if p % 3 == 0 { 1.0 } else { -1.0 }).collect();
        let lcp = Lcp::from_coo(k * k, &r, &c, &v, q).expect("valid");
        let tight = Registry::builtin().build("ipm:max_fill=1.01").expect("spec");
        match tight.solve(&lcp, &SolveOptions::default(), None) {
            Err(crate::SolveError::Unsupported { reason, .. }) => {
                assert!(reason.contains("max_fill = 1.01"), "{reason}")
            }
            other => panic!("expected a refusal, got {other:?}"),
        }
        let loose = Registry::builtin().build("ipm:max_fill=100").expect("spec");
        let sol = loose.solve(&lcp, &SolveOptions::default(), None).expect("runs");
        assert_eq!(sol.status, Status::Solved, "{:?}", sol.note);
        let small = SolveOptions { memory_budget: Some(4096), ..SolveOptions::default() };
        let err = solve_with(&lcp, &small);
        assert!(matches!(err, Err(crate::SolveError::Memory(_))), "{err:?}");
    }

    fn solve_with(lcp: &Lcp, options: &SolveOptions) -> Result<crate::Solution, crate::SolveError> {
        Registry::builtin().build("ipm").expect("spec").solve(lcp, options, None)
    }

    #[test]
    fn gondzio_correctors_solve_and_shorten_the_run() {
        let with = Registry::builtin().build("ipm:correctors=3").expect("spec");
        let (mut plain_steps, mut corrected_steps) = (0, 0);
        for seed in 0..5 {
            for lcp in [generate::random_spd(40, seed), generate::random_psd_singular(30, 10, seed)]
            {
                let plain = solve(&lcp, None);
                let corrected = with.solve(&lcp, &SolveOptions::default(), None).expect("set up");
                assert_eq!(corrected.status, Status::Solved, "seed {seed}: {:?}", corrected.note);
                plain_steps += plain.iterations;
                corrected_steps += corrected.iterations;
            }
        }
        // The correctors are taken (the runs differ) and, summed over the ten problems, save
        // steps.
        assert!(corrected_steps < plain_steps, "{corrected_steps} against {plain_steps}");
        assert!(Registry::builtin().build("ipm:correctors=11").is_err());
    }

    #[test]
    fn threads_give_the_same_solutions() {
        let on_two = Registry::builtin().build("ipm:threads=2").expect("spec");
        for seed in 0..3 {
            let lcp = sparse_copy(&generate::random_psd_singular(30, 10, seed));
            let (a, b) = (solve(&lcp, None), on_two.solve(&lcp, &SolveOptions::default(), None));
            let b = b.expect("set up");
            assert_eq!((a.status, b.status), (Status::Solved, Status::Solved), "seed {seed}");
            for (x, y) in a.z.iter().zip(&b.z) {
                assert!((x - y).abs() <= 1e-8 * (1.0 + x.abs()), "seed {seed}: {x} against {y}");
            }
        }
        assert!(Registry::builtin().build("ipm:threads=0").is_err());
    }

    #[test]
    fn step_fraction_must_stay_below_one() {
        assert!(Registry::builtin().build("ipm:step_fraction=1").is_err());
        assert!(Registry::builtin().build("ipm:step_fraction=0.95").is_ok());
    }
}
