//! The frictional-contact solver trait and the one driver that owns validation, timing, the
//! exact projection of the returned r onto the cones and the final merit check (the split of
//! signorini-lcp's `run_solver`, after argmin's solver/executor split).

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use signorini_lcp::steps::LoopContext;
use signorini_lcp::{HistoryEntry, SolveError, SolveOptions, Status};

use crate::cone::project;
use crate::merit::evaluate;
use crate::FcProblem;

/// The largest tolerance the driver accepts: above it "solved" would mean little.
pub const MAX_TOL: f64 = 1e-2;

/// Checks the options shared with signorini-lcp plus the frictional-contact rule
/// 0 < tol <= [`MAX_TOL`].
pub fn validate_options(options: &SolveOptions) -> Result<(), SolveError> {
    options.validate()?;
    if let Some(t) = options.tol {
        if t > MAX_TOL {
            return Err(SolveError::InvalidOption(format!(
                "tol = {t}: must be <= {MAX_TOL:e} (the error is relative to |q|)"
            )));
        }
    }
    if options.time_limit == Some(Duration::ZERO) {
        return Err(SolveError::InvalidOption("time_limit = 0: must be > 0".into()));
    }
    Ok(())
}

/// What a solver's loop hands back to the driver.
#[derive(Debug, Clone)]
pub struct FcOutcome {
    /// The candidate reactions r (the driver projects them and recomputes u and the error).
    pub r: Vec<f64>,
    /// The status the solver claims; the driver checks it.
    pub status: Status,
    /// Iterations of the main loop (sweeps, Newton steps).
    pub iterations: usize,
    /// Why the solver stopped, when there is more to say than the status.
    pub note: Option<String>,
}

impl FcOutcome {
    /// An outcome without a note.
    pub fn new(r: Vec<f64>, status: Status, iterations: usize) -> Self {
        Self { r, status, iterations, note: None }
    }
}

/// What a solver needs from the driver while it runs.
#[derive(Debug)]
pub struct FcContext<'a> {
    /// Effective tolerance on the error.
    pub tol: f64,
    /// Effective iteration limit.
    pub max_iter: usize,
    /// Warm start r0, validated (length, finite).
    pub warm_start: Option<&'a [f64]>,
    time_limit: Option<Duration>,
    start: Instant,
    history_every: Option<usize>,
    history: Vec<HistoryEntry>,
}

impl<'a> FcContext<'a> {
    /// A context with the given tolerance and limit (for running a loop directly).
    pub fn new(tol: f64, max_iter: usize) -> Self {
        Self {
            tol,
            max_iter,
            warm_start: None,
            time_limit: None,
            start: Instant::now(),
            history_every: None,
            history: Vec::new(),
        }
    }

    /// True once the wall-clock limit has passed.
    pub fn time_exceeded(&self) -> bool {
        self.time_limit.is_some_and(|t| self.start.elapsed() >= t)
    }

    /// Wall-clock time left before the limit, if there is one.
    pub fn remaining_time(&self) -> Option<Duration> {
        self.time_limit.map(|t| t.saturating_sub(self.start.elapsed()))
    }

    /// The starting point: the warm start or zero.
    pub fn initial_r(&self, n: usize) -> Vec<f64> {
        self.warm_start.map_or_else(|| vec![0.0; n], <[f64]>::to_vec)
    }

    /// Records an iteration's own measure; every `history_every` iterations also the exact
    /// error of r.
    pub fn record(&mut self, problem: &FcProblem, iteration: usize, measure: f64, r: &[f64]) {
        let Some(k) = self.history_every else { return };
        let residual =
            iteration.is_multiple_of(k).then(|| evaluate(problem, &projected(problem, r)).1);
        self.history.push(HistoryEntry { iteration, measure, residual });
    }
}

/// The frictional solvers run in the LCP crate's step loop
/// ([`signorini_lcp::steps::run_steps`]): the loop owns the limits, the history, non-finite and
/// stall detection, and this stopping test.
impl LoopContext for FcContext<'_> {
    type Problem = FcProblem;
    type Outcome = FcOutcome;

    fn max_iter(&self) -> usize {
        self.max_iter
    }

    fn tol(&self) -> f64 {
        self.tol
    }

    fn time_exceeded(&self) -> bool {
        FcContext::time_exceeded(self)
    }

    fn wants_iterate(&self, iteration: usize) -> bool {
        self.history_every.is_some_and(|k| iteration.is_multiple_of(k))
    }

    fn record(&mut self, problem: &FcProblem, iteration: usize, measure: f64, r: &[f64]) {
        FcContext::record(self, problem, iteration, measure, r);
    }

    /// The Coulomb error of r (u recomputed) within tolerance. A method whose iterate may
    /// leave the cones hands the loop its projection ([`signorini_lcp::steps::Steps::z`]),
    /// which is what the driver judges and returns.
    fn test(&mut self, problem: &FcProblem, r: &[f64], _: Option<(&[f64], f64)>) -> (bool, f64) {
        let e = evaluate(problem, r).1;
        (e <= self.tol, e)
    }

    fn outcome(
        r: Vec<f64>,
        status: Status,
        iterations: usize,
        note: Option<String>,
        _: Option<usize>,
    ) -> FcOutcome {
        FcOutcome { r, status, iterations, note }
    }
}

/// The result of a solve as it leaves the crate: r projected onto the cones, u and the error
/// recomputed from it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FcSolution {
    /// The solver's spec string.
    pub solver: String,
    /// How the run ended (decided by the driver).
    pub status: Status,
    /// Reactions, each block exactly in its cone.
    pub r: Vec<f64>,
    /// u = W r + q.
    pub u: Vec<f64>,
    /// The Siconos error of r ([`crate::merit::error`]).
    pub error: f64,
    /// The tolerance the status was judged against.
    pub tol: f64,
    /// Iterations of the solver's loop.
    pub iterations: usize,
    /// Wall time of the solve alone, seconds.
    pub solve_seconds: f64,
    /// Why the driver changed the status, or what the solver had to say.
    pub note: Option<String>,
    /// Per-iteration history when requested.
    pub history: Option<Vec<HistoryEntry>>,
}

/// A frictional-contact algorithm. Implementors write [`FcSolver::run`]; users call
/// [`FcSolver::solve`], whose default is the driver [`solve`].
pub trait FcSolver: Send + Sync {
    /// Canonical spec string (name and non-default parameters).
    fn name(&self) -> String;

    /// Default tolerance on the error.
    fn default_tol(&self) -> f64 {
        1e-8
    }

    /// Default iteration limit for this problem.
    fn default_max_iter(&self, problem: &FcProblem) -> usize;

    /// Options fixed by the spec string (`tol`, `max_iter`, `time_limit`); they win over the
    /// caller's options, which win over the defaults (signorini-lcp's precedence).
    fn preset(&self) -> SolveOptions {
        SolveOptions::default()
    }

    /// Checks the parameters; the driver calls it before [`FcSolver::run`].
    fn validate(&self) -> Result<(), SolveError> {
        Ok(())
    }

    /// The algorithm's loop; its claims are checked by the driver.
    fn run(&self, problem: &FcProblem, ctx: &mut FcContext<'_>) -> Result<FcOutcome, SolveError>;

    /// Solves with an optional warm start; the figures are recomputed from r.
    fn solve(
        &self,
        problem: &FcProblem,
        options: &SolveOptions,
        warm_start: Option<&[f64]>,
    ) -> Result<FcSolution, SolveError> {
        solve(self, problem, options, warm_start)
    }
}

impl<S: FcSolver + ?Sized> FcSolver for Box<S> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn default_tol(&self) -> f64 {
        (**self).default_tol()
    }
    fn default_max_iter(&self, problem: &FcProblem) -> usize {
        (**self).default_max_iter(problem)
    }
    fn preset(&self) -> SolveOptions {
        (**self).preset()
    }
    fn validate(&self) -> Result<(), SolveError> {
        (**self).validate()
    }
    fn run(&self, problem: &FcProblem, ctx: &mut FcContext<'_>) -> Result<FcOutcome, SolveError> {
        (**self).run(problem, ctx)
    }
}

/// A solver with options fixed by its spec string (`nsgs:omega=1.2,tol=1e-10`): the registry
/// wraps a built solver in it when the spec names any of signorini-lcp's common keys.
#[derive(Debug, Clone)]
pub struct FcPreset<S> {
    /// The solver.
    pub solver: S,
    /// What the spec string set (only `tol`, `max_iter`, `time_limit` are read).
    pub options: SolveOptions,
}

impl<S: FcSolver> FcSolver for FcPreset<S> {
    fn name(&self) -> String {
        self.options.spec_with(self.solver.name())
    }
    fn default_tol(&self) -> f64 {
        self.solver.default_tol()
    }
    fn default_max_iter(&self, problem: &FcProblem) -> usize {
        self.solver.default_max_iter(problem)
    }
    fn preset(&self) -> SolveOptions {
        self.options.over(&self.solver.preset())
    }
    fn validate(&self) -> Result<(), SolveError> {
        self.solver.validate()
    }
    fn run(&self, problem: &FcProblem, ctx: &mut FcContext<'_>) -> Result<FcOutcome, SolveError> {
        self.solver.run(problem, ctx)
    }
    /// The inner solver's own `solve` (so `auto` keeps its stages) with the preset merged
    /// over the caller's options.
    fn solve(
        &self,
        problem: &FcProblem,
        options: &SolveOptions,
        warm_start: Option<&[f64]>,
    ) -> Result<FcSolution, SolveError> {
        let mut sol = self.solver.solve(problem, &self.options.over(options), warm_start)?;
        if sol.solver == self.solver.name() {
            sol.solver = self.name();
        }
        Ok(sol)
    }
}

/// Declares a frictional-contact solver around its [`SolverParams`](signorini_lcp::SolverParams)
/// (the counterpart of signorini-lcp's `lcp_solver!`): the struct holding the parameters, `new`,
/// `register` for the [`FcRegistry`](crate::FcRegistry), and the [`FcSolver`] bookkeeping
/// (canonical name, validation before the run, default iteration limit). The algorithm is the
/// method named by `run`, `fn(&Self, &FcProblem, &mut FcContext) -> Result<FcOutcome, SolveError>`.
#[macro_export]
macro_rules! fc_solver {
    (
        $(#[$meta:meta])*
        $vis:vis struct $solver:ident($params:ty) {
            summary: $summary:expr,
            max_iter: $max_iter:expr,
            run: $run:expr $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default)]
        $vis struct $solver {
            /// Its parameters.
            pub params: $params,
        }

        impl $solver {
            /// Solver with the given parameters.
            pub fn new(params: $params) -> Self {
                Self { params }
            }
        }

        /// Registers this solver.
        pub fn register(r: &mut $crate::FcRegistry) {
            r.register_params::<$params>($summary, |pairs| {
                Ok(Box::new($solver::new(
                    <$params as signorini_lcp::SolverParams>::from_pairs(pairs)?,
                )))
            });
        }

        impl $crate::solver::FcSolver for $solver {
            fn name(&self) -> String {
                signorini_lcp::SolverParams::spec(&self.params)
            }
            fn validate(&self) -> Result<(), signorini_lcp::SolveError> {
                Ok(signorini_lcp::SolverParams::validate(&self.params)?)
            }
            fn default_max_iter(&self, _: &$crate::FcProblem) -> usize {
                $max_iter
            }
            fn run(
                &self,
                problem: &$crate::FcProblem,
                ctx: &mut $crate::solver::FcContext<'_>,
            ) -> Result<$crate::solver::FcOutcome, signorini_lcp::SolveError> {
                ($run)(self, problem, ctx)
            }
        }
    };
}

/// r with every contact block projected onto its cone (non-finite entries become 0).
pub fn projected(problem: &FcProblem, r: &[f64]) -> Vec<f64> {
    let d = problem.dimension();
    let mut out: Vec<f64> = r.iter().map(|v| if v.is_finite() { *v } else { 0.0 }).collect();
    for (block, &mu) in out.chunks_exact_mut(d).zip(problem.mu()) {
        project(block, mu);
    }
    out
}

/// The driver: validates the options (0 < tol <= 1e-2, max_iter >= 1, time limit > 0) and the
/// warm start (length, finite), runs the solver, projects r onto each cone, recomputes u and
/// the error, and decides the status: `solved` iff error <= tol; a solver that claims solved
/// above tol gets `numerical_failure` with a note. `infeasible` and `no_solution` never leave
/// here (no certificate exists for this problem): such a claim becomes `numerical_failure`.
pub fn solve<S: FcSolver + ?Sized>(
    solver: &S,
    problem: &FcProblem,
    options: &SolveOptions,
    warm_start: Option<&[f64]>,
) -> Result<FcSolution, SolveError> {
    validate_options(options)?;
    solver.validate()?;
    let preset = solver.preset();
    validate_options(&preset)?;
    let n = problem.n();
    if let Some(r0) = warm_start {
        if r0.len() != n {
            return Err(SolveError::WarmStart(format!(
                "has {} entries, the problem has {n} unknowns ({} contacts of dimension {})",
                r0.len(),
                problem.n_contacts(),
                problem.dimension()
            )));
        }
        if let Some((i, v)) = r0.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(SolveError::WarmStart(format!("entry {i} = {v} is not finite")));
        }
    }
    // Precedence (signorini-lcp's SolveOptions): spec string, then the caller, then the default.
    let effective = preset.over(options);
    let mut ctx = FcContext {
        tol: effective.tol.unwrap_or_else(|| solver.default_tol()),
        max_iter: effective.max_iter.unwrap_or_else(|| solver.default_max_iter(problem)),
        warm_start,
        time_limit: effective.time_limit,
        start: Instant::now(),
        history_every: options.history_every,
        history: Vec::new(),
    };
    let outcome = if n == 0 {
        FcOutcome::new(Vec::new(), Status::Solved, 0)
    } else {
        solver.run(problem, &mut ctx)?
    };
    let solve_seconds = ctx.start.elapsed().as_secs_f64();
    Ok(finish(solver.name(), problem, outcome, ctx, solve_seconds))
}

fn finish(
    name: String,
    problem: &FcProblem,
    outcome: FcOutcome,
    ctx: FcContext<'_>,
    solve_seconds: f64,
) -> FcSolution {
    let n = problem.n();
    let mut note = outcome.note;
    let raw = if outcome.r.len() == n {
        outcome.r
    } else {
        note = Some(format!("solver returned r of length {} for {n} unknowns", outcome.r.len()));
        vec![0.0; n]
    };
    if raw.iter().any(|v| !v.is_finite()) {
        note = Some("solver returned a non-finite r; non-finite entries set to 0".into());
    }
    let r = projected(problem, &raw);
    let (u, error) = evaluate(problem, &r);
    let passes = error <= ctx.tol;
    let claimed = outcome.status;
    let status = match claimed {
        _ if passes => {
            if claimed != Status::Solved {
                note = Some(format!("solver ended with {claimed} but r passes the error check"));
            }
            Status::Solved
        }
        Status::Solved => {
            note = Some(format!(
                "solver claimed solved but the recomputed error {error:.3e} exceeds tol {:.1e}",
                ctx.tol
            ));
            Status::NumericalFailure
        }
        Status::Infeasible | Status::NoSolution => {
            note = Some(format!("{claimed} claimed without a certificate (none exists here)"));
            Status::NumericalFailure
        }
        other => other,
    };
    FcSolution {
        solver: name,
        status,
        r,
        u,
        error,
        tol: ctx.tol,
        iterations: outcome.iterations,
        solve_seconds,
        note,
        history: ctx.history_every.map(|_| ctx.history),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A solver that returns a fixed r and claims a fixed status.
    struct Fixed(Vec<f64>, Status);

    impl FcSolver for Fixed {
        fn name(&self) -> String {
            "fixed".into()
        }
        fn default_max_iter(&self, _: &FcProblem) -> usize {
            1
        }
        fn run(&self, _: &FcProblem, _: &mut FcContext<'_>) -> Result<FcOutcome, SolveError> {
            Ok(FcOutcome::new(self.0.clone(), self.1, 1))
        }
    }

    fn one_contact() -> FcProblem {
        let eye: Vec<Vec<f64>> =
            (0..3).map(|i| (0..3).map(|j| f64::from(u8::from(i == j))).collect()).collect();
        FcProblem::from_dense_rows(3, &eye, vec![-1.0, 0.2, 0.0], vec![0.5]).expect("valid")
    }

    #[test]
    fn the_driver_judges_every_claim_by_the_recomputed_error() {
        let p = one_contact();
        let o = SolveOptions::default();
        let good = Fixed(vec![1.0, -0.2, 0.0], Status::MaxIterations).solve(&p, &o, None);
        assert_eq!(good.as_ref().map(|s| s.status), Ok(Status::Solved));
        let bad = Fixed(vec![1.0, 0.0, 0.0], Status::Solved).solve(&p, &o, None).expect("runs");
        assert_eq!(bad.status, Status::NumericalFailure);
        assert!(bad.note.is_some_and(|n| n.contains("exceeds tol")));
        let inf = Fixed(vec![0.0; 3], Status::Infeasible).solve(&p, &o, None).expect("runs");
        assert_eq!(inf.status, Status::NumericalFailure);
        // r outside the cone is projected before it is judged: (1, -2, 0) -> generator.
        let out = Fixed(vec![1.0, -2.0, 0.0], Status::Stalled).solve(&p, &o, None).expect("runs");
        assert!(crate::cone::contains(&out.r, 0.5, 1e-15));
        assert_eq!(out.status, Status::Stalled);
    }

    #[test]
    fn options_and_warm_starts_are_validated() {
        let p = one_contact();
        let s = Fixed(vec![0.0; 3], Status::Solved);
        let with_tol = |t| SolveOptions { tol: Some(t), ..SolveOptions::default() };
        assert!(matches!(s.solve(&p, &with_tol(0.0), None), Err(SolveError::InvalidOption(_))));
        assert!(matches!(s.solve(&p, &with_tol(0.1), None), Err(SolveError::InvalidOption(_))));
        assert!(s.solve(&p, &with_tol(1e-2), None).is_ok());
        let zero_iter = SolveOptions { max_iter: Some(0), ..SolveOptions::default() };
        assert!(s.solve(&p, &zero_iter, None).is_err());
        let zero_time =
            SolveOptions { time_limit: Some(Duration::ZERO), ..SolveOptions::default() };
        assert!(s.solve(&p, &zero_time, None).is_err());
        let o = SolveOptions::default();
        assert!(matches!(s.solve(&p, &o, Some(&[0.0; 2])), Err(SolveError::WarmStart(_))));
        let nan = [0.0, f64::NAN, 0.0];
        assert!(matches!(s.solve(&p, &o, Some(&nan)), Err(SolveError::WarmStart(_))));
    }
}
