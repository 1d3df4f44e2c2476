//! `auto`: a fixed chain of this crate's solvers, each through the driver, each warm-started
//! from the best r so far, stopping at the first that solves. The rule, from the measured
//! table in docs/friction.md (27 Siconos problems):
//!
//! 1. `newton-ac:fallback_sweeps=50` — the hybrid semismooth Newton, the fastest where it
//!    converges (24 of the 27 files);
//! 2. `nsgs` with `nsgs_sweeps` sweeps (default 20 000) — solves the Capsules files that the
//!    Newton stage leaves near 1e-6 to 1e-8;
//! 3. `apgd-ccp:desaxce=true` with `apgd_iter` iterations (default 20 000) — the only one that
//!    solves BoxesStack1, where no contact slides.
//!
//! The caller's tolerance and time limit hold for the chain (each stage gets the time left);
//! the caller's `max_iter`, when set, caps every stage. The result is the best r of the stages
//! by the recomputed error, and the note names the stage and each stage's error.

use signorini_lcp::{SolveError, SolveOptions, Status};

use super::apgd_ccp::{ApgdCcp, ApgdCcpParams};
use super::newton_ac::{NewtonAc, NewtonAcParams};
use super::nsgs::Nsgs;
use crate::merit::error;
use crate::solver::{FcContext, FcOutcome, FcSolver};
use crate::FcProblem;

signorini_lcp::solver_params! {
    /// Parameters of the frictional `auto`.
    pub struct AutoParams for "auto" {
        /// sweeps of the nsgs stage
        nsgs_sweeps: usize = 20_000, valid if |v| v >= 1 => ">= 1";
        /// iterations of the apgd-ccp:desaxce=true stage
        apgd_iter: usize = 20_000, valid if |v| v >= 1 => ">= 1";
    }
}

/// How a stage ended: its status and error, or why it did not run.
type StageEnd = Result<(Status, f64), String>;

crate::fc_solver! {
    /// The `auto` solver.
    pub struct Auto(AutoParams) {
        summary: "newton-ac (nsgs fallback sweeps), then nsgs, then apgd-ccp with the De Saxce shift, each warm-started from the best r so far; first solved wins",
        // Each stage has its own; a caller's max_iter caps them all.
        max_iter: usize::MAX,
        run: Auto::solve_loop,
    }
}

impl Auto {
    fn solve_loop(
        &self,
        problem: &FcProblem,
        ctx: &mut FcContext<'_>,
    ) -> Result<FcOutcome, SolveError> {
        let cap = (ctx.max_iter != usize::MAX).then_some(ctx.max_iter);
        // Built directly rather than through the registry, whose construction cost more than
        // a whole solve of a one-contact file (callgrind: 30 % of auto's instructions there).
        let newton = NewtonAc::new(NewtonAcParams { fallback_sweeps: 50, ..Default::default() });
        let apgd = ApgdCcp::new(ApgdCcpParams { desaxce: true, ..Default::default() });
        let nsgs = Nsgs::default();
        let stages: [(&dyn FcSolver, Option<usize>); 3] = [
            (&newton, None),
            (&nsgs, Some(self.params.nsgs_sweeps)),
            (&apgd, Some(self.params.apgd_iter)),
        ];
        let mut best = ctx.initial_r(problem.n());
        let mut best_error = error(problem, &best);
        let mut best_stage = None;
        let mut iterations = 0usize;
        // What each stage did, formatted once at the end (a stage's spec string and a
        // formatted error cost more than a whole solve of a one-contact file).
        let mut log: Vec<(usize, StageEnd)> = Vec::new();
        for (k, &(solver, own_cap)) in stages.iter().enumerate() {
            if ctx.time_exceeded() {
                log.push((k, Err("no time left".into())));
                break;
            }
            let max_iter = match (cap, own_cap) {
                (Some(c), Some(o)) => Some(c.min(o)),
                (c, o) => c.or(o),
            };
            let options = SolveOptions {
                tol: Some(ctx.tol),
                max_iter,
                time_limit: ctx.remaining_time(),
                history_every: None,
                ..SolveOptions::default()
            };
            // A stage that cannot take the problem (e.g. over the memory budget) is skipped.
            let sol = match solver.solve(problem, &options, Some(&best)) {
                Ok(sol) => sol,
                Err(e) => {
                    log.push((k, Err(e.to_string())));
                    continue;
                }
            };
            iterations = iterations.saturating_add(sol.iterations);
            log.push((k, Ok((sol.status, sol.error))));
            let solved = sol.status == Status::Solved;
            if solved || (sol.error.is_finite() && sol.error < best_error) {
                best_error = sol.error;
                best = sol.r;
                best_stage = Some(k);
            }
            if solved {
                break;
            }
        }
        let status = if best_error <= ctx.tol {
            Status::Solved
        } else if ctx.time_exceeded() {
            Status::TimeLimit
        } else {
            Status::MaxIterations
        };
        let mut out = FcOutcome::new(best, status, iterations);
        let spec = |k: usize| stages[k].0.name();
        let mut said: Vec<String> = log
            .into_iter()
            .map(|(k, what)| match what {
                Ok((status, error)) => format!("{}: {status} {error:.2e}", spec(k)),
                Err(e) => format!("{}: {e}", spec(k)),
            })
            .collect();
        if said.is_empty() {
            said.push("no stage ran".into());
        }
        let from = best_stage.map_or_else(|| "the starting point".to_string(), spec);
        out.note = Some(format!("auto: r from {from}; {}", said.join("; ")));
        Ok(out)
    }
}
