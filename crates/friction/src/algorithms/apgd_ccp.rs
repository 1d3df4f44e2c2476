//! `apgd-ccp`: accelerated projected gradient (Nesterov) with adaptive restart on the cone
//! complementarity problem, the convex relaxation min ½ r'Wr + q'r over r_i in K_i (Anitescu,
//! Tasora 2010, "An iterative approach for cone complementarity problems for nonsmooth
//! dynamics", Comput. Optim. Appl. 47; Mazhar, Heyn, Negrut, Tasora 2015, "Using Nesterov's
//! method to accelerate multibody dynamics with friction and contact", ACM TOG 34; restart of
//! O'Donoghue, Candès 2015).
//!
//! The relaxation's solutions satisfy u_N = -mu |u_T| instead of u_N = 0 where contacts slide,
//! so they are Coulomb solutions only where nothing slides; the driver judges the result by
//! the true Coulomb error. With `desaxce=true` the gradient carries De Saxcé's shift
//! s_i = mu_i |u_T,i| e_N recomputed at every step (a fixed-point iteration on the shift, whose
//! fixed points are exactly the Coulomb solutions, with no convergence guarantee). The step is
//! 1/L with L estimated by power iteration on W and doubled whenever the quadratic upper bound
//! fails (backtracking); the true error is evaluated every `check_every` steps.

use std::borrow::Cow;

use super::FcStep;
use signorini_lcp::steps::{run_steps, Policy, Start, Steps};
use signorini_lcp::SolveError;

use crate::cone::{project, tangential_norm};
use crate::solver::{projected, FcContext, FcOutcome};
use crate::FcProblem;

signorini_lcp::solver_params! {
    /// Parameters of `apgd-ccp`.
    pub struct ApgdCcpParams for "apgd-ccp" {
        /// add the De Saxce shift mu |u_T| e_N to the gradient at every step
        desaxce: bool = false;
        /// steps between evaluations of the true Coulomb error
        check_every: usize = 10, valid if |v| v >= 1 => ">= 1";
    }
}

crate::fc_solver! {
    /// The `apgd-ccp` solver.
    pub struct ApgdCcp(ApgdCcpParams) {
        summary: "accelerated projected gradient on the convex cone relaxation, judged by the Coulomb error (Anitescu, Tasora 2010; Mazhar et al. 2015)",
        max_iter: 10_000,
        run: ApgdCcp::solve_loop,
    }
}

/// The largest eigenvalue of (symmetric PSD) W by 30 power iterations, floored at tiny.
fn lipschitz_estimate(problem: &FcProblem) -> f64 {
    let n = problem.n();
    let mut x: Vec<f64> = (0..n).map(|i| 1.0 + (i % 7) as f64 * 0.1).collect();
    let mut y = vec![0.0; n];
    let mut lambda = 0.0;
    for _ in 0..30 {
        let nx = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        if !(nx > 0.0 && nx.is_finite()) {
            break;
        }
        x.iter_mut().for_each(|v| *v /= nx);
        problem.mul_vec(&x, &mut y);
        lambda = y.iter().map(|v| v * v).sum::<f64>().sqrt();
        std::mem::swap(&mut x, &mut y);
    }
    lambda.max(1e-300)
}

fn project_all(problem: &FcProblem, r: &mut [f64]) {
    let d = problem.dimension();
    for (b, &mu) in r.chunks_exact_mut(d).zip(problem.mu()) {
        project(b, mu);
    }
}

impl ApgdCcp {
    /// Gradient W y + q (+ De Saxcé shift) and the objective ½ y'Wy + q'y (+ s'y).
    fn gradient(&self, problem: &FcProblem, y: &[f64], g: &mut [f64]) -> f64 {
        problem.mul_vec(y, g);
        let mut f = 0.0;
        for ((gi, &qi), &yi) in g.iter_mut().zip(problem.q()).zip(y) {
            f += 0.5 * *gi * yi + qi * yi;
            *gi += qi;
        }
        if self.params.desaxce {
            let d = problem.dimension();
            for (b, &mu) in g.chunks_exact_mut(d).zip(problem.mu()) {
                let shift = mu * tangential_norm(b);
                b[0] += shift;
            }
        }
        f
    }
}

impl ApgdCcp {
    fn solve_loop(
        &self,
        problem: &FcProblem,
        ctx: &mut FcContext<'_>,
    ) -> Result<FcOutcome, SolveError> {
        let n = problem.n();
        run_steps(problem, ctx, |problem, ctx| {
            let x = projected(problem, &ctx.initial_r(n));
            Ok(Start::Run(ApgdCcpState {
                solver: self,
                lip: lipschitz_estimate(problem),
                y: x.clone(),
                x,
                theta: 1.0,
                g: vec![0.0; n],
                gx: vec![0.0; n],
                x_new: vec![0.0; n],
            }))
        })
    }
}

/// The running state of `apgd-ccp`: the iterate x on the cones, the extrapolated point y,
/// the momentum θ and the Lipschitz estimate.
struct ApgdCcpState<'a> {
    solver: &'a ApgdCcp,
    lip: f64,
    x: Vec<f64>,
    y: Vec<f64>,
    theta: f64,
    g: Vec<f64>,
    gx: Vec<f64>,
    x_new: Vec<f64>,
}

impl<'c> Steps<FcContext<'c>> for ApgdCcpState<'_> {
    fn policy(&self) -> Policy {
        Policy { check_last: true, ..Policy::named("step") }
    }

    fn z(&self) -> Cow<'_, [f64]> {
        Cow::Borrowed(&self.x)
    }

    fn step(&mut self, problem: &FcProblem, _: &mut FcContext<'c>, it: usize) -> FcStep {
        let n = problem.n();
        let params = &self.solver.params;
        let (x, y, g, gx, x_new) =
            (&mut self.x, &mut self.y, &mut self.g, &mut self.gx, &mut self.x_new);
        let fy = self.solver.gradient(problem, y, g);
        // Backtracking on the quadratic upper bound (the plain relaxation only: with the
        // shift the gradient is not that of a fixed objective).
        for _ in 0..60 {
            for i in 0..n {
                x_new[i] = y[i] - g[i] / self.lip;
            }
            project_all(problem, x_new);
            if params.desaxce {
                break;
            }
            let fx = self.solver.gradient(problem, x_new, gx);
            let mut bound = fy;
            for i in 0..n {
                let dx = x_new[i] - y[i];
                bound += g[i] * dx + 0.5 * self.lip * dx * dx;
            }
            if fx <= bound + 1e-14 * fy.abs().max(1.0) {
                break;
            }
            self.lip *= 2.0;
        }
        let theta = self.theta;
        let theta_new = 0.5 * (-theta * theta + theta * (theta * theta + 4.0).sqrt());
        let beta = theta * (1.0 - theta) / (theta * theta + theta_new);
        // Adaptive restart when the momentum points uphill.
        let uphill: f64 =
            g.iter().zip(x_new.iter().zip(x.iter())).map(|(gi, (a, b))| gi * (a - b)).sum();
        let change = x_new.iter().zip(x.iter()).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        if uphill > 0.0 {
            y.copy_from_slice(x_new);
            self.theta = 1.0;
        } else {
            for i in 0..n {
                y[i] = x_new[i] + beta * (x_new[i] - x[i]);
            }
            self.theta = theta_new;
        }
        std::mem::swap(x, x_new);
        super::taken(change, x, it, params.check_every)
    }
}
