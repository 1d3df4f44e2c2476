//! Accelerated projected gradient descent (`apgd`) on min ½z'Mz + q'z, z >= 0, for symmetric
//! positive semidefinite M (Nesterov 1983, "A method for solving the convex programming problem
//! with convergence rate O(1/k^2)"; FISTA, Beck & Teboulle 2009, "A fast iterative
//! shrinkage-thresholding algorithm for linear inverse problems", SIAM J. Imaging Sci. 2), with
//! adaptive restart (O'Donoghue & Candès 2015, "Adaptive restart for accelerated gradient
//! schemes", Found. Comput. Math. 15).
//!
//! Step: x⁺ = max(0, y − (My + q)/L), then y = x⁺ + β(x⁺ − x) with the FISTA momentum β.
//! L starts at `lipschitz_safety` × the power-iteration estimate of λ_max(M) (`power_iters`
//! products with M) and is doubled while the sufficient-decrease test
//! (x⁺ − y)'M(x⁺ − y) <= L ||x⁺ − y||² fails (backtracking; the estimate is a lower bound).
//! Restart (momentum reset) when (y − x⁺)'(x⁺ − x) > 0 (`restart=gradient`, default) or when
//! f(x⁺) > f(x) (`restart=function`); `restart=none` is plain FISTA.
//!
//! One product M x⁺ per iteration (plus one per backtracking step); My is carried by linearity.
//! Because M x⁺ is a genuine product, the exact merit of x⁺ costs O(n) and is checked every
//! iteration (it is also the recorded measure). M must be symmetric (checked entry by entry
//! against M' with a relative tolerance 1e-12 of the largest entry: O(nnz log) for sparse,
//! O(n²) for dense M): a nonsymmetric M is `SolveError::Unsupported`, since the iteration then
//! minimises a different function. Positive semidefiniteness is not checked (too costly); an
//! indefinite M makes the objective unbounded and the run ends `numerical_failure` (non-finite
//! iterate) or at the iteration limit, never `solved` with a wrong z.
//!
//! `scaling=jacobi` runs the same iteration on LCP(S M S, S q), S = diag(M)^(-1/2) (an
//! equivalent LCP: z = S y, w = S⁻¹ w'): the step becomes x⁺ = max(0, y − D⁻¹(My + q)/L) with
//! D = diag(M), L estimates λ_max(S M S), and the backtracking and restart tests use the D
//! inner product. Default `none` (the unscaled iteration, bit for bit).
//!
//! On a Gram-form M = G G' + D ([`Lcp::from_gram`]) every product is G (G' x) + D x and the
//! symmetry check is skipped (symmetric by construction): M is never formed.

use crate::linalg::symmetry::asymmetry;
use crate::merit::norm2;
use std::borrow::Cow;

use crate::solver::{LcpSolver, Outcome, SolveContext, SolveError};
use crate::status::Status;
use crate::steps::{run_steps, Movement, Policy, Start, Step, StepResult, Steps};
use crate::Lcp;

/// When to reset the momentum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restart {
    /// Gradient scheme: (y − x⁺)'(x⁺ − x) > 0.
    Gradient,
    /// Function scheme: f(x⁺) > f(x).
    Function,
    /// Never (plain FISTA).
    None,
}

crate::param_enum!(Restart { Gradient => "gradient", Function => "function", None => "none" });

/// Diagonal scaling of the problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scaling {
    /// None: the gradient step is (My + q)/L.
    None,
    /// Jacobi: APGD on LCP(S M S, S q) with S = diag(M)^(-1/2), i.e. the step D^-1 (My + q)/L.
    Jacobi,
}

crate::param_enum!(Scaling { None => "none", Jacobi => "jacobi" });

crate::solver_params! {
    /// Parameters of `apgd`.
    pub struct ApgdParams for "apgd" {
        /// momentum restart: gradient, function or none
        restart: Restart = Restart::Gradient;
        /// power iterations for the estimate of L
        power_iters: usize = 10, valid if |v| v >= 1 => ">= 1";
        /// factor >= 1 on the estimate of L
        lipschitz_safety: f64 = 1.1, valid if |v| v >= 1.0 => ">= 1";
        /// diagonal scaling: none, or jacobi (APGD on S M S, S = diag(M)^(-1/2))
        scaling: Scaling = Scaling::None;
    }
}

crate::lcp_solver! {
    /// Accelerated projected gradient with adaptive restart.
    pub struct Apgd(ApgdParams) {
        summary: "accelerated projected gradient with adaptive restart (symmetric PSD M)",
        tol: 1e-8,
        max_iter: |_params, _n| 100_000,
        matrix_free: true,
        run: Apgd::solve_loop,
    }
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Power-iteration estimate ||S M S v|| / ||v|| of λ_max(S M S) after `iters` products, with
/// S = diag(`scale`) (all ones without scaling).
fn lipschitz_estimate(lcp: &Lcp, ctx: &mut SolveContext<'_>, iters: usize, scale: &[f64]) -> f64 {
    let n = lcp.n();
    // A positive, slightly uneven start (not orthogonal to the Perron vector of W >= 0).
    let mut v: Vec<f64> = (0..n).map(|i| 1.0 + (i % 7) as f64 / 7.0).collect();
    let mut sv = vec![0.0; n];
    let mut mv = vec![0.0; n];
    let mut est = 0.0;
    for _ in 0..iters {
        let nv = norm2(&v);
        if nv.is_nan() || nv <= 0.0 {
            break;
        }
        for ((svi, vi), si) in sv.iter_mut().zip(&v).zip(scale) {
            *svi = *vi / nv * si;
        }
        ctx.mul_vec(lcp, &sv, &mut mv);
        mv.iter_mut().zip(scale).for_each(|(m, si)| *m *= si);
        est = norm2(&mv);
        std::mem::swap(&mut v, &mut mv);
    }
    est
}

impl Apgd {
    fn solve_loop(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        // A Gram form G G' + D is symmetric by construction (and holds no entries to compare).
        let asymmetric = if lcp.gram().is_some() { None } else { asymmetry(lcp, 1e-12) };
        if let Some((i, j, a, b)) = asymmetric {
            return Err(SolveError::Unsupported {
                solver: self.name(),
                reason: format!(
                    "M is not symmetric (M[{i}][{j}] = {a} but M[{j}][{i}] = {b}); apgd \
                     minimises ½z'Mz + q'z, which solves the LCP only for symmetric M"
                ),
            });
        }
        run_steps(lcp, ctx, |lcp, ctx| Ok(Start::Run(ApgdState::new(&self.params, lcp, ctx))))
    }
}

/// Residual ||min(x, w)|| / ||q|| (as in `merit`), from a genuine w = Mx + q.
fn residual(x: &[f64], w: &[f64], qnorm: f64) -> f64 {
    let sq: f64 = x.iter().zip(w).map(|(a, b)| a.min(*b).powi(2)).sum();
    let r = sq.sqrt();
    if qnorm <= f64::EPSILON {
        r
    } else {
        r / qnorm
    }
}

/// The running state of `apgd`: the iterate x with Mx, the extrapolated point y with My,
/// the momentum θ, the step 1/L, and w = Mx + q with the residual of x.
struct ApgdState<'p> {
    params: &'p ApgdParams,
    /// M_ii with `scaling=jacobi` (where positive), else 1: the step is (My + q) / (d L), and d
    /// is the metric of the scaled variables (x = S y).
    d: Vec<f64>,
    qnorm: f64,
    l: f64,
    theta: f64,
    x: Vec<f64>,
    mx: Vec<f64>,
    y: Vec<f64>,
    my: Vec<f64>,
    x_new: Vec<f64>,
    mx_new: Vec<f64>,
    w: Vec<f64>,
    w_new: Vec<f64>,
    residual: f64,
}

impl<'p> ApgdState<'p> {
    fn new(params: &'p ApgdParams, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Self {
        let n = lcp.n();
        let x = ctx.start_projected(n);
        let mut mx = vec![0.0; n];
        ctx.mul_vec(lcp, &x, &mut mx);
        let diag = lcp.diag();
        let d: Vec<f64> = match params.scaling {
            Scaling::None => vec![1.0; n],
            Scaling::Jacobi => {
                diag.iter().map(|&m| if m > 0.0 && m.is_finite() { m } else { 1.0 }).collect()
            }
        };
        let scale: Vec<f64> = d.iter().map(|m| m.recip().sqrt()).collect();
        let mut l =
            params.lipschitz_safety * lipschitz_estimate(lcp, ctx, params.power_iters, &scale);
        let diag_max = diag.iter().zip(&d).fold(0.0f64, |a, (&b, &m)| a.max(b.abs() * m.recip()));
        if l.is_nan() || l <= 0.0 {
            l = diag_max.max(1.0);
        }
        let w: Vec<f64> = mx.iter().zip(lcp.q()).map(|(a, b)| a + b).collect();
        let qnorm = norm2(lcp.q());
        let residual = residual(&x, &w, qnorm);
        Self {
            params,
            d,
            qnorm,
            l,
            theta: 1.0,
            y: x.clone(),
            my: mx.clone(),
            x,
            mx,
            x_new: vec![0.0; n],
            mx_new: vec![0.0; n],
            w_new: vec![0.0; n],
            residual,
            w,
        }
    }
}

impl<'c> Steps<SolveContext<'c>> for ApgdState<'_> {
    fn policy(&self) -> Policy {
        Policy {
            stall_after: Some(3),
            divergence_hint: " (M is not positive semidefinite?)",
            ..Policy::named("iteration")
        }
    }

    fn z(&self) -> Cow<'_, [f64]> {
        Cow::Borrowed(&self.x)
    }

    fn merit(&self, _lcp: &Lcp) -> Option<(Cow<'_, [f64]>, f64)> {
        Some((Cow::Borrowed(&self.w), self.residual))
    }

    fn step(&mut self, lcp: &Lcp, ctx: &mut SolveContext<'c>, it: usize) -> StepResult {
        let n = lcp.n();
        let q = lcp.q();
        // Backtracking on L until the quadratic upper bound holds.
        let mut backtracks = 0;
        loop {
            let l = self.l;
            for ((((xn, y), my), qi), di) in
                self.x_new.iter_mut().zip(&self.y).zip(&self.my).zip(q).zip(&self.d)
            {
                *xn = (y - (my + qi) * di.recip() / l).max(0.0);
            }
            ctx.mul_vec(lcp, &self.x_new, &mut self.mx_new);
            let mut d_md = 0.0;
            let mut d_d = 0.0;
            for i in 0..n {
                let d = self.x_new[i] - self.y[i];
                d_md += d * (self.mx_new[i] - self.my[i]);
                d_d += d * d * self.d[i];
            }
            if d_md <= self.l * d_d * (1.0 + 1e-12) || !d_md.is_finite() {
                break;
            }
            self.l *= 2.0;
            backtracks += 1;
            if backtracks > 200 || !self.l.is_finite() {
                let note = format!("iteration {it}: backtracking on L failed (L = {})", self.l);
                return Ok(Step::End { status: Status::NumericalFailure, note: Some(note) });
            }
        }
        for ((wn, mxn), qi) in self.w_new.iter_mut().zip(&self.mx_new).zip(q) {
            *wn = mxn + qi;
        }
        if !self.x_new.iter().chain(&self.w_new).all(|v| v.is_finite()) {
            return Ok(Step::Taken { measure: Some(f64::NAN), movement: None, check: false });
        }
        let res = residual(&self.x_new, &self.w_new, self.qnorm);
        let (x, x_new, y) = (&self.x, &self.x_new, &self.y);
        let mut change: f64 = 0.0;
        let mut size: f64 = 0.0;
        let mut grad_test = 0.0;
        for i in 0..n {
            change = change.max((x_new[i] - x[i]).abs());
            size = size.max(x_new[i].abs());
            grad_test += (y[i] - x_new[i]) * (x_new[i] - x[i]) * self.d[i];
        }
        let f = |z: &[f64], mz: &[f64]| 0.5 * dot(z, mz) + dot(q, z);
        let restart = match self.params.restart {
            Restart::Gradient => grad_test > 0.0,
            Restart::Function => f(&self.x_new, &self.mx_new) > f(&self.x, &self.mx),
            Restart::None => false,
        };
        if restart {
            self.theta = 1.0;
            self.y.copy_from_slice(&self.x_new);
            self.my.copy_from_slice(&self.mx_new);
        } else {
            let theta_next = 0.5 * (1.0 + (1.0 + 4.0 * self.theta * self.theta).sqrt());
            let beta = (self.theta - 1.0) / theta_next;
            self.theta = theta_next;
            for i in 0..n {
                self.y[i] = self.x_new[i] + beta * (self.x_new[i] - self.x[i]);
                self.my[i] = self.mx_new[i] + beta * (self.mx_new[i] - self.mx[i]);
            }
        }
        std::mem::swap(&mut self.x, &mut self.x_new);
        std::mem::swap(&mut self.mx, &mut self.mx_new);
        std::mem::swap(&mut self.w, &mut self.w_new);
        self.residual = res;
        Ok(Step::Taken {
            measure: Some(res),
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

    #[test]
    fn solves_seed_a4_and_a_delassus_problem() {
        let lcp = Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![-3.0, -3.0])
            .expect("valid");
        let sol = Apgd::default().solve(&lcp, &SolveOptions::default(), None).expect("runs");
        assert_eq!(sol.status, Status::Solved);
        assert!((sol.z[0] - 1.0).abs() < 1e-7);
        let (lcp, z_star) = generate::delassus_like_with_solution(40, 3, 10.0, 8);
        for restart in ["gradient", "function", "none"] {
            let solver = Registry::builtin().build(&format!("apgd:restart={restart}"));
            let solver = solver.expect("registered");
            let sol = solver.solve(&lcp, &SolveOptions::default(), None).expect("runs");
            assert_eq!(sol.status, Status::Solved, "{restart}: {:?}", sol.note);
            let scale = z_star.iter().fold(0.0f64, |a, b| a.max(*b));
            let err = sol.z.iter().zip(&z_star).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
            assert!(err < 1e-4 * scale, "{restart}: |z - z*| = {err}");
        }
    }

    #[test]
    fn restart_needs_fewer_iterations_than_plain_fista_on_a_box_stack() {
        let lcp = generate::box_stack(20, 100.0);
        let opts = SolveOptions::default();
        let with = Apgd::default().solve(&lcp, &opts, None).expect("runs");
        let none = Apgd::new(ApgdParams { restart: Restart::None, ..Default::default() })
            .solve(&lcp, &opts, None)
            .expect("runs");
        assert_eq!(with.status, Status::Solved);
        assert!(with.iterations <= none.iterations, "{} vs {}", with.iterations, none.iterations);
    }

    /// Jacobi scaling solves the same problem, to its known answer, in fewer iterations on a
    /// box stack with mass ratios (diagonal entries spread over orders of magnitude).
    #[test]
    fn jacobi_scaling_needs_fewer_iterations_on_a_box_stack_with_mass_ratios() {
        let (n, ratio) = (20, 100.0);
        let lcp = generate::box_stack_with(n, ratio, generate::MassProfile::Geometric);
        let exact = generate::box_stack_reactions(n, ratio, generate::MassProfile::Geometric);
        let opts = SolveOptions::default();
        let none = Apgd::default().solve(&lcp, &opts, None).expect("runs");
        let jacobi = Registry::builtin().build("apgd:scaling=jacobi").expect("spec");
        assert_eq!(jacobi.name(), "apgd:scaling=jacobi");
        let jacobi = jacobi.solve(&lcp, &opts, None).expect("runs");
        assert_eq!(none.status, Status::Solved, "{:?}", none.note);
        assert_eq!(jacobi.status, Status::Solved, "{:?}", jacobi.note);
        assert!(
            jacobi.iterations < none.iterations,
            "{} vs {}",
            jacobi.iterations,
            none.iterations
        );
        let scale = exact.iter().fold(0.0f64, |a, b| a.max(b.abs()));
        let err = jacobi.z.iter().zip(&exact).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
        assert!(err <= 1e-5 * scale, "|z - z*| = {err:e}, scale {scale:e}");
        assert!(Registry::builtin().build("apgd:scaling=diagonal").is_err());
    }

    #[test]
    fn too_small_a_lipschitz_estimate_is_repaired_by_backtracking() {
        let lcp = generate::random_spd(15, 6);
        let p = ApgdParams { power_iters: 1, lipschitz_safety: 1.0, ..Default::default() };
        let sol = Apgd::new(p).solve(&lcp, &SolveOptions::default(), None).expect("runs");
        assert_eq!(sol.status, Status::Solved);
    }

    #[test]
    fn nonsymmetric_m_is_unsupported() {
        let lcp = generate::random_p_matrix(5, 1);
        let err = Apgd::default().solve(&lcp, &SolveOptions::default(), None);
        assert!(matches!(err, Err(SolveError::Unsupported { .. })), "{err:?}");
        let sparse = Lcp::from_coo(2, &[0, 0, 1], &[0, 1, 1], &[1.0, 0.5, 1.0], vec![-1.0, -1.0])
            .expect("valid");
        assert!(Apgd::default().solve(&sparse, &SolveOptions::default(), None).is_err());
    }

    #[test]
    fn indefinite_m_is_never_solved() {
        let lcp = Lcp::from_dense_rows(&[vec![1.0, -3.0], vec![-3.0, 1.0]], vec![-1.0, -1.0])
            .expect("valid");
        let opts = SolveOptions { max_iter: Some(2000), ..Default::default() };
        let sol = Apgd::default().solve(&lcp, &opts, None).expect("runs");
        // apgd's own safeguards end the run (non-finite iterate or failed backtracking), before
        // the iteration limit and with the reason, not the driver's merit check alone.
        assert_eq!(sol.status, Status::NumericalFailure, "{:?}", sol.note);
        assert!(sol.iterations < 2000, "stopped at {}", sol.iterations);
        assert!(sol.note.is_some(), "no reason given");
    }

    #[test]
    fn keys_validate() {
        assert!(ApgdParams::from_pairs(&[("restart".into(), "sometimes".into())]).is_err());
        assert!(ApgdParams::from_pairs(&[("lipschitz_safety".into(), "0.5".into())]).is_err());
        let p = ApgdParams::from_pairs(&[("restart".into(), "function".into())]).expect("ok");
        assert_eq!(Apgd::new(p).name(), "apgd:restart=function");
    }
}
