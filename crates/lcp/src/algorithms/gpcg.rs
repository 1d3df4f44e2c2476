//! Gradient projection with conjugate gradients (`gpcg`) on min ½z'Mz + q'z, z >= 0, for
//! symmetric positive semidefinite M (Moré & Toraldo 1991, "On the solution of large quadratic
//! programming problems with bound constraints", SIAM J. Optim. 1; the method of PETSc/TAO's
//! `TAOGPCG`). No factorisation: every step is made of products with M.
//!
//! Two phases alternate. A **gradient projection** phase takes projected searches
//! z⁺ = P(z − α D⁻¹g), g = Mz + q, P the projection onto z >= 0, with α from the exact
//! minimiser along the projected direction, halved until the sufficient-decrease test
//! f(z⁺) <= f(z) + μ g'(z⁺ − z) (μ = `armijo`) holds; it stops after `gp_max` searches, when
//! the binding set B(z) = {i : z_i = 0, g_i >= 0} repeats, or when a search decreases f by at
//! most `gp_decrease` times the largest decrease of the phase. A **conjugate gradient** phase
//! then minimises f on the face where the binding variables stay at 0 (CG preconditioned by
//! D), until the preconditioned face residual r'D⁻¹r falls by `cg_rtol`² or rises above its
//! starting value (CG on an inconsistent singular face), after `cg_max` iterations, or, with
//! `cg_decrease` > 0, after an iteration that decreases f by at most `cg_decrease` times the
//! largest decrease of the phase (Moré–Toraldo's rule; η₂ = 0.1 in their paper). A projected
//! search along the CG direction (α = 1 first) ends the phase. The next phase is CG again when
//! the binding set equals the active set {i : z_i = 0} (the face is identified), else gradient
//! projection. One driver step is one phase. `max_products` > 0 bounds the products with M
//! (tested between phases, so the last phase may pass it by up to `cg_max` + 61 products):
//! `auto` uses it to try `gpcg` first at a bounded cost.
//!
//! The default `cg_decrease = 0` departs from Moré–Toraldo: their rule ends CG after a few
//! iterations on an ill-conditioned face, and the restarted CG then needs many more phases.
//! Measured on the 3D box stacks of `packings_speed` (n = 10 000, mass ratio 1000, release
//! build, one run each): 9 phases in 0.009 s without the rule, 2 668 phases in 2.2 s with
//! η₂ = 0.1.
//!
//! D = diag(M) with `scaling=jacobi` (default; rows with M_ii <= 0 get 1), the identity with
//! `scaling=none`. On a singular M the face system may be inconsistent far from the solution:
//! CG then meets a direction of zero curvature along which f decreases linearly; the phase
//! follows it to the first bound it reaches (and reports the problem unbounded, as
//! `numerical_failure`, when no bound stops it). M must be symmetric (checked as in `apgd`);
//! positive semidefiniteness is not checked, and a direction of negative curvature is treated
//! as one of zero curvature, so an indefinite M ends at a local minimiser that the driver's
//! merit test judges, never `solved` without it.

use crate::linalg::symmetry::asymmetry;
use crate::merit::norm2;
use std::borrow::Cow;

use crate::solver::{LcpSolver, Outcome, SolveContext, SolveError};
use crate::status::Status;
use crate::steps::{run_steps, Movement, Policy, Start, Step, StepResult, Steps};
use crate::Lcp;

/// Diagonal preconditioning of the gradient steps and of CG.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scaling {
    /// None: steps along −g, plain CG.
    None,
    /// Jacobi: steps along −D⁻¹g and CG preconditioned by D = diag(M).
    Jacobi,
}

crate::param_enum!(Scaling { None => "none", Jacobi => "jacobi" });

crate::solver_params! {
    /// Parameters of `gpcg`.
    pub struct GpcgParams for "gpcg" {
        /// diagonal preconditioning: jacobi (D = diag(M)) or none
        scaling: Scaling = Scaling::Jacobi;
        /// most projected searches in one gradient projection phase
        gp_max: usize = 8, valid if |v| v >= 1 => ">= 1";
        /// a gradient projection phase ends when a search decreases f by at most this times its largest decrease
        gp_decrease: f64 = 0.1, valid if |v| (0.0..1.0).contains(&v) => "in [0, 1)";
        /// a CG phase ends when an iteration decreases f by at most this times its largest decrease (0: only cg_rtol and cg_max)
        cg_decrease: f64 = 0.0, valid if |v| (0.0..1.0).contains(&v) => "in [0, 1)";
        /// a CG phase ends when the preconditioned face residual falls by this factor
        cg_rtol: f64 = 1e-2, valid if |v| v > 0.0 && v < 1.0 => "in (0, 1)";
        /// most CG iterations in one phase
        cg_max: usize = 500, valid if |v| v >= 1 => ">= 1";
        /// sufficient-decrease constant of the projected searches
        armijo: f64 = 1e-2, valid if |v| v > 0.0 && v < 0.5 => "in (0, 0.5)";
        /// stop with max_iterations once this many products with M are spent, tested between phases (0: no budget)
        max_products: usize = 0;
    }
}

crate::lcp_solver! {
    /// Gradient projection with conjugate gradients on the face (Moré–Toraldo).
    pub struct Gpcg(GpcgParams) {
        summary: "gradient projection and conjugate gradients on the face, Moré-Toraldo (symmetric PSD M)",
        tol: 1e-8,
        max_iter: |_params, _n| 10_000,
        matrix_free: true,
        run: Gpcg::solve_loop,
    }
}

impl Gpcg {
    fn solve_loop(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        let asymmetric = if lcp.gram().is_some() { None } else { asymmetry(lcp, 1e-12) };
        if let Some((i, j, a, b)) = asymmetric {
            return Err(SolveError::Unsupported {
                solver: self.name(),
                reason: format!(
                    "M is not symmetric (M[{i}][{j}] = {a} but M[{j}][{i}] = {b}); gpcg \
                     minimises ½z'Mz + q'z, which solves the LCP only for symmetric M"
                ),
            });
        }
        run_steps(lcp, ctx, |lcp, ctx| Ok(Start::Run(GpcgState::new(&self.params, lcp, ctx))))
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Residual ||min(z, w)|| / ||q|| (as in `merit`), from a genuine w = Mz + q.
fn residual(z: &[f64], w: &[f64], qnorm: f64) -> f64 {
    let sq: f64 = z.iter().zip(w).map(|(a, b)| a.min(*b).powi(2)).sum();
    let r = sq.sqrt();
    if qnorm <= f64::EPSILON {
        r
    } else {
        r / qnorm
    }
}

/// Which phase the next step runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    GradientProjection,
    ConjugateGradient,
}

/// What a projected search did.
enum Search {
    /// z moved; f decreased by the given amount.
    Moved(f64),
    /// The direction is not one of descent, or no step length decreased f enough.
    Failed,
}

/// The running state of `gpcg`: z with Mz and w = Mz + q, the phase to run next, and the
/// work vectors of the searches and of CG.
struct GpcgState<'p> {
    params: &'p GpcgParams,
    /// The preconditioner D (M_ii or 1).
    d: Vec<f64>,
    qnorm: f64,
    /// The threshold below which a gradient entry at a zero variable counts as binding (−ε).
    bind_eps: f64,
    phase: Phase,
    z: Vec<f64>,
    mz: Vec<f64>,
    w: Vec<f64>,
    residual: f64,
    // Work vectors.
    dir: Vec<f64>,
    s: Vec<f64>,
    ms: Vec<f64>,
    p: Vec<f64>,
    mp: Vec<f64>,
    r: Vec<f64>,
    y: Vec<f64>,
    free: Vec<bool>,
}

impl<'p> GpcgState<'p> {
    fn new(params: &'p GpcgParams, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Self {
        let n = lcp.n();
        let z = ctx.start_projected(n);
        let mut mz = vec![0.0; n];
        ctx.mul_vec(lcp, &z, &mut mz);
        let d: Vec<f64> = match params.scaling {
            Scaling::None => vec![1.0; n],
            Scaling::Jacobi => {
                lcp.diag().iter().map(|&m| if m > 0.0 && m.is_finite() { m } else { 1.0 }).collect()
            }
        };
        let w: Vec<f64> = mz.iter().zip(lcp.q()).map(|(a, b)| a + b).collect();
        let qnorm = norm2(lcp.q());
        let qmax = lcp.q().iter().fold(0.0f64, |a, b| a.max(b.abs()));
        let residual = residual(&z, &w, qnorm);
        Self {
            params,
            d,
            qnorm,
            bind_eps: 1e-13 * qmax,
            phase: Phase::GradientProjection,
            z,
            mz,
            w,
            residual,
            dir: vec![0.0; n],
            s: vec![0.0; n],
            ms: vec![0.0; n],
            p: vec![0.0; n],
            mp: vec![0.0; n],
            r: vec![0.0; n],
            y: vec![0.0; n],
            free: vec![false; n],
        }
    }

    /// True when variable i is binding: at its bound with a gradient that keeps it there.
    fn binding(&self, i: usize) -> bool {
        self.z[i] == 0.0 && self.w[i] >= -self.bind_eps
    }

    /// True when every active variable (z_i = 0) is binding: the face is identified.
    fn face_identified(&self) -> bool {
        (0..self.z.len()).all(|i| self.z[i] > 0.0 || self.binding(i))
    }

    /// Projected search along `self.dir` from z: z⁺ = P(z + α dir), α from `alpha0` halved
    /// until f(z⁺) <= f(z) + μ g'(z⁺ − z). When no component is cut by the projection,
    /// M(z⁺ − z) = α M dir is taken from `mdir` (if given) without a product.
    fn projected_search(
        &mut self,
        lcp: &Lcp,
        ctx: &mut SolveContext<'_>,
        alpha0: f64,
        mdir: Option<&[f64]>,
    ) -> Search {
        let n = self.z.len();
        let mut alpha = alpha0;
        for _ in 0..60 {
            if !(alpha.is_finite() && alpha > 0.0) {
                return Search::Failed;
            }
            let mut cut = false;
            let mut moved = false;
            for i in 0..n {
                let t = self.z[i] + alpha * self.dir[i];
                let zi = if t > 0.0 {
                    t
                } else {
                    cut |= t < 0.0;
                    0.0
                };
                self.s[i] = zi - self.z[i];
                moved |= self.s[i] != 0.0;
            }
            if !moved {
                return Search::Failed;
            }
            match (cut, mdir) {
                (false, Some(md)) => {
                    self.ms.iter_mut().zip(md).for_each(|(m, v)| *m = alpha * v);
                }
                _ => ctx.mul_vec(lcp, &self.s, &mut self.ms),
            }
            let gs = dot(&self.w, &self.s);
            if gs >= 0.0 {
                // The projection turned the step away from descent; a shorter one cuts less.
                alpha *= 0.5;
                continue;
            }
            let df = gs + 0.5 * dot(&self.s, &self.ms);
            if df <= self.params.armijo * gs {
                for (i, qi) in lcp.q().iter().enumerate() {
                    self.z[i] += self.s[i];
                    self.mz[i] += self.ms[i];
                    self.w[i] = self.mz[i] + qi;
                }
                return Search::Moved(-df);
            }
            alpha *= 0.5;
        }
        Search::Failed
    }

    /// Up to `gp_max` projected searches along −D⁻¹g.
    fn gradient_projection(&mut self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> bool {
        let n = self.z.len();
        let mut best: f64 = 0.0;
        let mut any = false;
        let mut was_binding: Vec<bool> = (0..n).map(|i| self.binding(i)).collect();
        for _ in 0..self.params.gp_max {
            // The projected direction: −D⁻¹g, zero on the binding variables.
            for (i, binding) in was_binding.iter().enumerate() {
                self.dir[i] = if *binding { 0.0 } else { -self.w[i] / self.d[i] };
            }
            ctx.mul_vec(lcp, &self.dir, &mut self.mp);
            let curvature = dot(&self.dir, &self.mp);
            let slope = dot(&self.w, &self.dir);
            if slope >= 0.0 {
                break;
            }
            let alpha0 = if curvature > 0.0 {
                -slope / curvature
            } else {
                // Zero curvature: f decreases linearly; the first bound stops the step.
                self.first_breakpoint().unwrap_or(f64::INFINITY)
            };
            let mdir = std::mem::take(&mut self.mp);
            let found = self.projected_search(lcp, ctx, alpha0, Some(&mdir));
            self.mp = mdir;
            let Search::Moved(decrease) = found else { break };
            any = true;
            let now_binding: Vec<bool> = (0..n).map(|i| self.binding(i)).collect();
            let same = now_binding == was_binding;
            was_binding = now_binding;
            if same || decrease <= self.params.gp_decrease * best {
                break;
            }
            best = best.max(decrease);
        }
        any
    }

    /// The smallest α > 0 at which z + α dir reaches a bound, if any.
    fn first_breakpoint(&self) -> Option<f64> {
        let mut t = f64::INFINITY;
        for (zi, di) in self.z.iter().zip(&self.dir) {
            if *di < 0.0 {
                t = t.min(zi / -di);
            }
        }
        (t.is_finite() && t > 0.0).then_some(t)
    }

    /// Preconditioned CG on the face of the non-binding variables, then a projected search
    /// along its direction. Returns `Err(note)` when f is unbounded below on the face.
    fn conjugate_gradient(
        &mut self,
        lcp: &Lcp,
        ctx: &mut SolveContext<'_>,
    ) -> Result<bool, String> {
        let n = self.z.len();
        for i in 0..n {
            self.free[i] = !self.binding(i);
            self.r[i] = if self.free[i] { -self.w[i] } else { 0.0 };
            self.y[i] = self.r[i] / self.d[i];
            self.dir[i] = 0.0;
        }
        self.p.copy_from_slice(&self.y);
        let mut rz = dot(&self.r, &self.y);
        let rz0 = rz;
        if rz0 <= 0.0 {
            return Ok(false);
        }
        let mut best: f64 = 0.0;
        for _ in 0..self.params.cg_max {
            ctx.mul_vec(lcp, &self.p, &mut self.mp);
            for i in 0..n {
                if !self.free[i] {
                    self.mp[i] = 0.0;
                }
            }
            let curvature = dot(&self.p, &self.mp);
            let pdp: f64 = self.p.iter().zip(&self.d).map(|(p, d)| p * p * d).sum();
            if curvature <= 1e-14 * pdp {
                // Zero curvature along p (M singular on the face): f decreases linearly along
                // p, so follow it to the first bound, from z + dir.
                let mut t = f64::INFINITY;
                for i in 0..n {
                    if self.p[i] < 0.0 {
                        t = t.min(((self.z[i] + self.dir[i]).max(0.0)) / -self.p[i]);
                    }
                }
                if !t.is_finite() {
                    if dot(&self.dir, &self.dir) == 0.0 {
                        return Err("f = ½z'Mz + q'z decreases without bound along a \
                                    direction of zero curvature with no bound in its way \
                                    (the LCP has no solution, or M is not PSD)"
                            .to_string());
                    }
                    break;
                }
                for (d, p) in self.dir.iter_mut().zip(&self.p) {
                    *d += t * p;
                }
                break;
            }
            let alpha = rz / curvature;
            for i in 0..n {
                self.dir[i] += alpha * self.p[i];
                self.r[i] -= alpha * self.mp[i];
                self.y[i] = self.r[i] / self.d[i];
            }
            let decrease = 0.5 * alpha * rz;
            best = best.max(decrease);
            let rz_new = dot(&self.r, &self.y);
            // rz growing past its start: the face system is inconsistent (M singular on the
            // face) and CG has lost its footing; the direction so far is kept.
            if decrease <= self.params.cg_decrease * best
                || rz_new <= self.params.cg_rtol * self.params.cg_rtol * rz0
                || rz_new > rz0
                || !rz_new.is_finite()
            {
                break;
            }
            let beta = rz_new / rz;
            rz = rz_new;
            for i in 0..n {
                self.p[i] = self.y[i] + beta * self.p[i];
            }
        }
        Ok(matches!(self.projected_search(lcp, ctx, 1.0, None), Search::Moved(_)))
    }
}

impl<'c> Steps<SolveContext<'c>> for GpcgState<'_> {
    fn policy(&self) -> Policy {
        Policy {
            check_start: true,
            stall_after: Some(3),
            divergence_hint: " (M is not positive semidefinite?)",
            ..Policy::named("phase")
        }
    }

    fn z(&self) -> Cow<'_, [f64]> {
        Cow::Borrowed(&self.z)
    }

    fn merit(&self, _lcp: &Lcp) -> Option<(Cow<'_, [f64]>, f64)> {
        Some((Cow::Borrowed(&self.w), self.residual))
    }

    fn step(&mut self, lcp: &Lcp, ctx: &mut SolveContext<'c>, it: usize) -> StepResult {
        let budget = self.params.max_products;
        if budget > 0 && ctx.matvecs >= budget {
            let note = format!(
                "product budget spent: {} products with M after {} phases (max_products = {budget})",
                ctx.matvecs,
                it - 1
            );
            return Ok(Step::End { status: Status::MaxIterations, note: Some(note) });
        }
        let before = self.z.clone();
        match self.phase {
            Phase::GradientProjection => {
                self.gradient_projection(lcp, ctx);
                self.phase = Phase::ConjugateGradient;
            }
            Phase::ConjugateGradient => match self.conjugate_gradient(lcp, ctx) {
                Ok(_) => {
                    self.phase = if self.face_identified() {
                        Phase::ConjugateGradient
                    } else {
                        Phase::GradientProjection
                    };
                }
                Err(note) => {
                    let note = format!("phase {it}: {note}");
                    return Ok(Step::End { status: Status::NumericalFailure, note: Some(note) });
                }
            },
        }
        if !self.z.iter().chain(&self.w).all(|v| v.is_finite()) {
            return Ok(Step::Taken { measure: Some(f64::NAN), movement: None, check: false });
        }
        self.residual = residual(&self.z, &self.w, self.qnorm);
        let mut change: f64 = 0.0;
        let mut size: f64 = 0.0;
        for (a, b) in self.z.iter().zip(&before) {
            change = change.max((a - b).abs());
            size = size.max(a.abs());
        }
        Ok(Step::Taken {
            measure: Some(self.residual),
            movement: Some(Movement { change, size }),
            check: true,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate;
    use crate::solver::SolveOptions;
    use crate::{LcpSolver, Registry, SolverParams};

    fn max_diff(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).fold(0.0f64, |m, (x, y)| m.max((x - y).abs()))
    }

    #[test]
    fn solves_a_2x2_and_a_delassus_problem_to_its_known_answer_with_either_scaling() {
        let lcp = Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![-3.0, -3.0])
            .expect("valid");
        let sol = Gpcg::default().solve(&lcp, &SolveOptions::default(), None).expect("runs");
        assert_eq!(sol.status, Status::Solved, "{:?}", sol.note);
        assert!(max_diff(&sol.z, &[1.0, 1.0]) < 1e-7, "{:?}", sol.z);
        let (lcp, z_star) = generate::delassus_like_with_solution(40, 3, 10.0, 8);
        let scale = z_star.iter().fold(0.0f64, |a, b| a.max(*b));
        for spec in ["gpcg", "gpcg:scaling=none", "gpcg:cg_decrease=0.1,cg_rtol=1e-6"] {
            let solver = Registry::builtin().build(spec).expect("registered");
            let sol = solver.solve(&lcp, &SolveOptions::default(), None).expect("runs");
            assert_eq!(sol.status, Status::Solved, "{spec}: {:?}", sol.note);
            let err = max_diff(&sol.z, &z_star);
            assert!(err < 1e-5 * scale, "{spec}: |z - z*| = {err:e}");
        }
    }

    /// A box stack with masses over three decades: the reactions are known in closed form,
    /// and the Jacobi preconditioner needs fewer products than plain CG.
    #[test]
    fn box_stack_with_mass_ratios_gives_its_closed_form_reactions() {
        let (n, ratio) = (30, 1000.0);
        let lcp = generate::box_stack_with(n, ratio, generate::MassProfile::Geometric);
        let exact = generate::box_stack_reactions(n, ratio, generate::MassProfile::Geometric);
        let scale = exact.iter().fold(0.0f64, |a, b| a.max(b.abs()));
        let opts = SolveOptions { tol: Some(1e-10), ..Default::default() };
        let jacobi = Gpcg::default().solve(&lcp, &opts, None).expect("runs");
        assert_eq!(jacobi.status, Status::Solved, "{:?}", jacobi.note);
        assert!(max_diff(&jacobi.z, &exact) <= 1e-6 * scale, "{:?}", jacobi.z);
        let plain = Registry::builtin().build("gpcg:scaling=none").expect("spec");
        let plain = plain.solve(&lcp, &opts, None).expect("runs");
        assert_eq!(plain.status, Status::Solved, "{:?}", plain.note);
        assert!(
            jacobi.matvecs < plain.matvecs,
            "jacobi {} products, none {}",
            jacobi.matvecs,
            plain.matvecs
        );
    }

    /// Singular PSD M = BB' (rank n/4) with a planted solution: z is not unique, so the test
    /// is the merit (every row at its own scale, checked by the driver) and z >= 0.
    #[test]
    fn singular_psd_problems_are_solved() {
        for seed in 0..5 {
            let lcp = generate::random_psd_singular(60, 15, seed);
            let sol = Gpcg::default().solve(&lcp, &SolveOptions::default(), None).expect("runs");
            assert_eq!(sol.status, Status::Solved, "seed {seed}: {:?}", sol.note);
            assert!(sol.z.iter().all(|v| *v >= 0.0));
        }
    }

    /// M = [[1, −1], [−1, 1]], q = (−1, −1): w_1 + w_2 = −2 for every z, so the LCP has no
    /// solution, and f decreases without bound along (1, 1), a direction of zero curvature.
    #[test]
    fn an_unbounded_face_ends_in_numerical_failure_with_the_reason() {
        let lcp = Lcp::from_dense_rows(&[vec![1.0, -1.0], vec![-1.0, 1.0]], vec![-1.0, -1.0])
            .expect("valid");
        let sol = Gpcg::default().solve(&lcp, &SolveOptions::default(), None).expect("runs");
        assert_eq!(sol.status, Status::NumericalFailure, "{:?}", sol.note);
        let note = sol.note.expect("a reason");
        assert!(note.contains("without bound"), "{note}");
    }

    #[test]
    fn nonsymmetric_m_is_unsupported_and_indefinite_m_is_never_solved() {
        let lcp = generate::random_p_matrix(5, 1);
        let err = Gpcg::default().solve(&lcp, &SolveOptions::default(), None);
        assert!(matches!(err, Err(SolveError::Unsupported { .. })), "{err:?}");
        let lcp = Lcp::from_dense_rows(&[vec![1.0, -3.0], vec![-3.0, 1.0]], vec![-1.0, -1.0])
            .expect("valid");
        let opts = SolveOptions { max_iter: Some(500), ..Default::default() };
        let sol = Gpcg::default().solve(&lcp, &opts, None).expect("runs");
        assert_ne!(sol.status, Status::Solved, "{:?}", sol.z);
    }

    #[test]
    fn keys_validate() {
        assert!(GpcgParams::from_pairs(&[("scaling".into(), "ilu".into())]).is_err());
        assert!(GpcgParams::from_pairs(&[("cg_rtol".into(), "1".into())]).is_err());
        assert!(GpcgParams::from_pairs(&[("gp_max".into(), "0".into())]).is_err());
        let p = GpcgParams::from_pairs(&[("scaling".into(), "none".into())]).expect("ok");
        assert_eq!(Gpcg::new(p).name(), "gpcg:scaling=none");
    }
}
