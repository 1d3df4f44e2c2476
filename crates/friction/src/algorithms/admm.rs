//! `admm`: alternating direction method of multipliers on the second-order cone program of
//! the Coulomb problem with De Saxcé's shift updated at every iteration (Acary, Cadoux,
//! Lemaréchal, Malick 2011, "A formulation of the linear discrete Coulomb friction problem via
//! convex optimization", ZAMM 91; Boyd, Parikh, Chu, Peleato, Eckstein 2011, "Distributed
//! optimization and statistical learning via ADMM", §3.4.1 for residual balancing; Siconos
//! `fc3d_admm`).
//!
//! For a fixed shift s_i = mu_i |u_T,i| e_N the problem is the convex program
//! min ½ r'Wr + (q + s)'r over r_i in K_i; ADMM splits r = z with z in the cones:
//!
//! r <- (W + rho I)^-1 (rho (z - xi) - q - s),  z <- P_K(r + xi),  xi <- xi + r - z,
//!
//! and s is recomputed from u = W z + q before every r-step. rho starts at the mean diagonal
//! of W and is balanced every `balance_every` iterations (doubled when the primal residual
//! |r - z| exceeds ten times the dual residual rho |z - z_prev|, halved in the opposite case,
//! the scaled dual rescaled and W + rho I refactorised: faer dense LU or sparse LU with one
//! symbolic analysis). The true error of z is evaluated every `check_every` iterations.

use std::borrow::Cow;

use super::FcStep;
use faer::sparse::Triplet;
use signorini_lcp::steps::{run_steps, Policy, Start, Step, Steps};
use signorini_lcp::{SolveError, Status};

use super::{Factor, LinearSystem, Rows};
use crate::cone::{project, tangential_norm};
use crate::solver::{FcContext, FcOutcome};
use crate::FcProblem;

signorini_lcp::solver_params! {
    /// Parameters of `admm`.
    pub struct AdmmParams for "admm" {
        /// initial rho as a factor on the mean diagonal of W
        rho_scale: f64 = 1.0, valid if |v| v > 0.0 => "> 0";
        /// iterations between residual-balancing updates of rho
        balance_every: usize = 10, valid if |v| v >= 1 => ">= 1";
        /// iterations between evaluations of the true error
        check_every: usize = 1, valid if |v| v >= 1 => ">= 1";
    }
}

crate::fc_solver! {
    /// The `admm` solver.
    pub struct Admm(AdmmParams) {
        summary: "ADMM on the SOCP with the De Saxce shift updated every iteration, residual balancing (Acary, Cadoux, Lemarechal, Malick 2011; Siconos fc3d_admm)",
        max_iter: 5000,
        run: Admm::solve_loop,
    }
}

/// Triplets of W + rho I (W's stored entries plus the diagonal).
fn shifted_triplets(rows: &Rows<'_>, n: usize, rho: f64) -> Vec<Triplet<usize, usize, f64>> {
    let mut t = Vec::new();
    for i in 0..n {
        rows.for_each(i, |j, v| t.push(Triplet::new(i, j, v)));
        t.push(Triplet::new(i, i, rho));
    }
    t
}

impl Admm {
    fn solve_loop(
        &self,
        problem: &FcProblem,
        ctx: &mut FcContext<'_>,
    ) -> Result<FcOutcome, SolveError> {
        run_steps(problem, ctx, |_, ctx| {
            let p = &self.params;
            let n = problem.n();
            let d = problem.dimension();
            let rows = super::rows(problem);
            let mean_diag = (0..n).map(|i| problem.get(i, i).abs()).sum::<f64>() / n as f64;
            let rho = p.rho_scale * if mean_diag > 0.0 { mean_diag } else { 1.0 };
            let triplets = shifted_triplets(&rows, n, rho);
            let mut system = LinearSystem::new(super::prefer_sparse(n, triplets.len()));
            let lu = match system.factor(n, &triplets) {
                Ok(f) => f,
                Err(e) => {
                    let mut o = FcOutcome::new(ctx.initial_r(n), Status::NumericalFailure, 0);
                    o.note = Some(format!("W + rho I: {e}"));
                    return Ok(Start::Done(o));
                }
            };
            let mut z = ctx.initial_r(n);
            for (b, &mu) in z.chunks_exact_mut(d).zip(problem.mu()) {
                project(b, mu);
            }
            Ok(Start::Run(AdmmState {
                params: p,
                rows,
                system,
                lu,
                rho,
                z,
                xi: vec![0.0; n],
                r: vec![0.0; n],
                u: vec![0.0; n],
                prim: 0.0,
                dual: 0.0,
            }))
        })
    }
}

/// The running state of `admm`: z on the cones, the scaled dual xi, the penalty rho with the
/// factorisation of W + rho I, and the largest residuals since the last balancing.
struct AdmmState<'a> {
    params: &'a AdmmParams,
    rows: Rows<'a>,
    system: LinearSystem,
    lu: Factor,
    rho: f64,
    z: Vec<f64>,
    xi: Vec<f64>,
    r: Vec<f64>,
    u: Vec<f64>,
    prim: f64,
    dual: f64,
}

impl AdmmState<'_> {
    /// Residual balancing: rho doubled or halved when one residual exceeds ten times the
    /// other, the scaled dual rescaled and W + rho I refactorised.
    fn balance(&mut self, n: usize, it: usize) -> Option<Step<FcOutcome>> {
        let scale = if self.prim > 10.0 * self.dual {
            2.0
        } else if self.dual > 10.0 * self.prim {
            0.5
        } else {
            1.0
        };
        if scale != 1.0 {
            self.rho *= scale;
            self.xi.iter_mut().for_each(|v| *v /= scale);
            match self.system.factor(n, &shifted_triplets(&self.rows, n, self.rho)) {
                Ok(f) => self.lu = f,
                Err(e) => {
                    let mut o = FcOutcome::new(self.z.clone(), Status::NumericalFailure, it);
                    o.note = Some(format!("W + rho I with rho = {:e}: {e}", self.rho));
                    return Some(Step::Done(o));
                }
            }
        }
        self.prim = 0.0;
        self.dual = 0.0;
        None
    }
}

impl<'c> Steps<FcContext<'c>> for AdmmState<'_> {
    fn policy(&self) -> Policy {
        Policy { check_last: true, ..Policy::named("iteration") }
    }

    fn z(&self) -> Cow<'_, [f64]> {
        Cow::Borrowed(&self.z)
    }

    fn step(&mut self, problem: &FcProblem, _: &mut FcContext<'c>, it: usize) -> FcStep {
        let n = problem.n();
        let d = problem.dimension();
        // Balancing after the previous iteration's test, as the residuals of `balance_every`
        // iterations are in.
        if it > 1 && (it - 1).is_multiple_of(self.params.balance_every) {
            if let Some(done) = self.balance(n, it - 1) {
                return Ok(done);
            }
        }
        let (z, xi, r, u, rho) = (&mut self.z, &mut self.xi, &mut self.r, &mut self.u, self.rho);
        problem.mul_vec(z, u);
        for i in 0..n {
            r[i] = rho * (z[i] - xi[i]) - problem.q()[i];
        }
        for (c, &mu) in problem.mu().iter().enumerate() {
            let ub = &mut u[d * c..d * (c + 1)];
            for (k, v) in ub.iter_mut().enumerate() {
                *v += problem.q()[d * c + k];
            }
            r[d * c] -= mu * tangential_norm(ub);
        }
        if let Err(e) = self.lu.solve_in_place(r) {
            let mut o = FcOutcome::new(z.clone(), Status::NumericalFailure, it);
            o.note = Some(format!("iteration {it}: {e}"));
            return Ok(Step::Done(o));
        }
        let z_old = z.clone();
        for i in 0..n {
            z[i] = r[i] + xi[i];
        }
        for (b, &mu) in z.chunks_exact_mut(d).zip(problem.mu()) {
            project(b, mu);
        }
        let (mut p2, mut d2) = (0.0, 0.0);
        for i in 0..n {
            xi[i] += r[i] - z[i];
            p2 += (r[i] - z[i]).powi(2);
            d2 += (z[i] - z_old[i]).powi(2);
        }
        self.prim = self.prim.max(p2.sqrt());
        self.dual = self.dual.max(rho * d2.sqrt());
        super::taken(p2.sqrt(), z, it, self.params.check_every)
    }
}
