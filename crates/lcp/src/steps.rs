//! The step interface and the one loop that runs it (argmin's split: a solver says how to take
//! one step, the driver owns the loop).
//!
//! An iterative method implements [`Steps`] on its running state: [`Steps::step`] takes one
//! step (a sweep, a Newton step, an interior-point step, one pivot) and reports what it did;
//! [`run_steps`] owns everything around it, the same way for every method:
//!
//! - the **iteration limit** (`ctx.max_iter`) and the **wall-clock limit**, tested before the
//!   first step and after every step;
//! - the **history** ([`SolveContext::record`]) of the measure each step reports, with the
//!   exact merit at the requested interval;
//! - **non-finite detection**: a step whose measure is not finite ends the run in
//!   `numerical_failure`, whatever the method;
//! - **stall detection**: a method that reports its movement is `stalled` after
//!   [`Policy::stall_after`] steps in a row that moved z by no more than round-off, unless z
//!   passes the test then;
//! - the **stopping test** ([`SolveContext::converged`]: the residual within tolerance and
//!   every row at its own scale) on the iterate, when a step asks for it, at the start
//!   ([`Policy::check_start`]), after the last permitted step ([`Policy::check_last`]) and
//!   when a method ends ([`Step::End`]). A method that holds w = Mz + q hands it over
//!   ([`Steps::merit`]); otherwise the driver computes it with one counted product.
//!
//! A method's own exits are [`Step::End`] (it cannot go on: solved if the iterate passes the
//! test, else the status it gives) and [`Step::Done`] (it ended with its own outcome: an exact
//! answer, a ray, a certificate). Either way [`run_solver`](crate::run_solver) re-checks the
//! result from z. Direct methods (`enum`, `qp`) keep a one-shot [`LcpSolver::run`](crate::LcpSolver::run).
//!
//! The loop is generic over the solve's context ([`LoopContext`]: the iteration and time
//! limits, the history, the stopping test, the outcome type). [`SolveContext`] is the LCP's;
//! signorini-friction implements it for its `FcContext`, so the frictional solvers are steps
//! of the same loop, tested by the Coulomb error instead of the LCP merit.

use std::borrow::Cow;

use crate::solver::{Outcome, SolveContext, SolveError};
use crate::status::Status;
use crate::Lcp;

/// What the loop needs from a solve's context. The LCP's [`SolveContext`] implements it, and
/// so does signorini-friction's `FcContext`: the frictional solvers run in the same loop.
pub trait LoopContext {
    /// The problem a run solves (`Lcp`, `FcProblem`).
    type Problem: ?Sized;
    /// What a run hands back to its driver (`Outcome`, `FcOutcome`).
    type Outcome;

    /// The iteration limit.
    fn max_iter(&self) -> usize;

    /// The tolerance of the stopping test.
    fn tol(&self) -> f64;

    /// True once the wall-clock limit has passed.
    fn time_exceeded(&self) -> bool;

    /// True when this iteration's record needs the iterate (the exact merit is recorded).
    fn wants_iterate(&self, iteration: usize) -> bool;

    /// Records the measure of a step; `x` is the iterate when [`Self::wants_iterate`] holds
    /// (else it may be empty). Does nothing when no history is requested.
    fn record(&mut self, problem: &Self::Problem, iteration: usize, measure: f64, x: &[f64]);

    /// The stopping test on the iterate x: whether it passes, and its residual. `held` is w
    /// and the residual when the method holds them (else the context computes them).
    fn test(
        &mut self,
        problem: &Self::Problem,
        x: &[f64],
        held: Option<(&[f64], f64)>,
    ) -> (bool, f64);

    /// The outcome of a run that the loop ends.
    fn outcome(
        x: Vec<f64>,
        status: Status,
        iterations: usize,
        note: Option<String>,
        pivots: Option<usize>,
    ) -> Self::Outcome;

    /// Adds the pivots of a method to an outcome the method made itself ([`Step::Done`]).
    fn add_pivots(_outcome: &mut Self::Outcome, _pivots: usize) {}
}

impl LoopContext for SolveContext<'_> {
    type Problem = Lcp;
    type Outcome = Outcome;

    fn max_iter(&self) -> usize {
        self.max_iter
    }

    fn tol(&self) -> f64 {
        self.tol
    }

    fn time_exceeded(&self) -> bool {
        SolveContext::time_exceeded(self)
    }

    fn wants_iterate(&self, iteration: usize) -> bool {
        self.wants_exact(iteration)
    }

    fn record(&mut self, lcp: &Lcp, iteration: usize, measure: f64, z: &[f64]) {
        SolveContext::record(self, lcp, iteration, measure, z);
    }

    /// [`SolveContext::converged`]: the residual within tolerance and every row at its own
    /// scale; without `held`, w = Mz + q costs one counted product.
    fn test(&mut self, lcp: &Lcp, z: &[f64], held: Option<(&[f64], f64)>) -> (bool, f64) {
        match held {
            Some((w, residual)) => (self.converged(lcp, z, w, residual), residual),
            None => {
                let (w, merit) = self.evaluate(lcp, z);
                (self.converged(lcp, z, &w, merit.residual), merit.residual)
            }
        }
    }

    fn outcome(
        z: Vec<f64>,
        status: Status,
        iterations: usize,
        note: Option<String>,
        pivots: Option<usize>,
    ) -> Outcome {
        let mut outcome = Outcome::new(z, status, iterations);
        outcome.note = note;
        outcome.pivots = pivots;
        outcome
    }

    fn add_pivots(outcome: &mut Outcome, pivots: usize) {
        outcome.pivots = outcome.pivots.or(Some(pivots));
    }
}

/// How the driver treats a method; the same for every run of it.
#[derive(Debug, Clone, Copy)]
pub struct Policy {
    /// What one step is called in notes ("sweep", "iteration", "pivot").
    pub step_name: &'static str,
    /// Test the starting point before the first step (Newton-type methods, whose start may
    /// already solve the problem: then the run takes 0 iterations). The splitting methods do
    /// not test even a caller's warm start: in time stepping, a warm start accepted at the edge
    /// of the tolerance hands the next step a worse start. Measured (issue 16, `signorini
    /// simulate granular-column.toml --friction cone --compare-cold`, 1000 steps): testing
    /// every warm start raised the warm-started total from 1703 to 6811 `nsgs` sweeps and from
    /// 1133 to 1434 `admm` iterations.
    pub check_start: bool,
    /// Test the iterate after the last permitted step even when that step did not ask.
    pub check_last: bool,
    /// Steps in a row whose movement is within round-off before the run is `stalled`
    /// (`None`: the method reports no movement).
    pub stall_after: Option<usize>,
    /// Said after "the iterate became non-finite" when a step's measure is not finite: the
    /// likely reason for this method.
    pub divergence_hint: &'static str,
}

impl Policy {
    /// A policy with no start or last test, no stall detection and no hint.
    pub const fn named(step_name: &'static str) -> Self {
        Self {
            step_name,
            check_start: false,
            check_last: false,
            stall_after: None,
            divergence_hint: "",
        }
    }
}

/// How far one step moved the iterate, in the max norm: the run stalls when
/// `change <= eps * size` for [`Policy::stall_after`] steps in a row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Movement {
    /// max_i |z_i(new) − z_i(old)|.
    pub change: f64,
    /// max_i |z_i(new)|.
    pub size: f64,
}

impl Movement {
    /// True when the step moved z by no more than round-off.
    pub fn within_roundoff(&self) -> bool {
        self.change <= f64::EPSILON * self.size
    }

    /// The relative change (0 when z is 0).
    pub fn relative(&self) -> f64 {
        if self.size > 0.0 {
            self.change / self.size
        } else {
            0.0
        }
    }
}

/// What one step did. `O` is the context's outcome type ([`LoopContext::Outcome`]).
#[derive(Debug, Clone)]
pub enum Step<O = Outcome> {
    /// The step was taken; the run goes on unless the driver stops it.
    Taken {
        /// The method's cheap in-loop measure for the history (`None`: nothing to record).
        /// A non-finite measure ends the run in `numerical_failure`.
        measure: Option<f64>,
        /// How far the iterate moved, for stall detection (`None` for methods without it).
        movement: Option<Movement>,
        /// Test the iterate now.
        check: bool,
    },
    /// The method cannot go on (a stationary point, a failed factorisation, a completed
    /// active set): `solved` if the iterate passes the test, else `status` with `note`.
    End {
        /// The status when the iterate does not pass.
        status: Status,
        /// Why, if there is more to say than the status.
        note: Option<String>,
    },
    /// The method ended with its own outcome (an exact answer, a ray, a certificate).
    Done(O),
}

impl<O> Step<O> {
    /// A step taken with a measure, to be tested now.
    pub fn checked(measure: f64) -> Self {
        Step::Taken { measure: Some(measure), movement: None, check: true }
    }

    /// A step taken with a measure and no test.
    pub fn unchecked(measure: f64) -> Self {
        Step::Taken { measure: Some(measure), movement: None, check: false }
    }

    /// The method cannot go on; `status` unless the iterate passes.
    pub fn end(status: Status) -> Self {
        Step::End { status, note: None }
    }
}

/// What [`Steps::step`] returns: the step, or an error that ends the solve (a setup the
/// method finds it cannot do).
pub type StepResult<O = Outcome> = Result<Step<O>, SolveError>;

/// How a run starts: with a state to step, or already over (a trivial problem, an answer the
/// setup found, a setup that failed with its own outcome).
#[derive(Debug)]
pub enum Start<S, O = Outcome> {
    /// Step this state.
    Run(S),
    /// The run is over before its first step.
    Done(O),
}

/// The running state of an iterative method in the context `C` (the LCP's [`SolveContext`]
/// by default).
pub trait Steps<C: LoopContext> {
    /// How the driver treats this method; by default a step is an "iteration" with no start
    /// or last test and no stall detection.
    fn policy(&self) -> Policy {
        Policy::named("iteration")
    }

    /// The current iterate, in the problem's ordering.
    fn z(&self) -> Cow<'_, [f64]>;

    /// w = M z + q of the current iterate (u = W r + q for friction) and the method's
    /// residual of it, when the method holds them (the test then needs no product); `None`
    /// by default.
    fn merit(&self, _problem: &C::Problem) -> Option<(Cow<'_, [f64]>, f64)> {
        None
    }

    /// Takes step `iteration` (1-based).
    fn step(
        &mut self,
        problem: &C::Problem,
        ctx: &mut C,
        iteration: usize,
    ) -> StepResult<C::Outcome>;

    /// Pivots taken so far (pivoting methods; the driver puts them in the outcome).
    fn pivots(&self) -> Option<usize> {
        None
    }

    /// The outcome of the run, from the one the driver (or [`Step::Done`]) made, with the
    /// pivots; a method may add what only it knows. The default returns it unchanged.
    fn finish(self, outcome: C::Outcome) -> C::Outcome
    where
        Self: Sized,
    {
        outcome
    }
}

/// The result of testing the iterate.
struct Test {
    passes: bool,
    residual: f64,
}

fn test<C: LoopContext, S: Steps<C>>(state: &S, problem: &C::Problem, ctx: &mut C) -> Test {
    let z = state.z();
    let held = state.merit(problem);
    let (passes, residual) = ctx.test(problem, &z, held.as_ref().map(|(w, r)| (&w[..], *r)));
    Test { passes, residual }
}

fn end<C: LoopContext, S: Steps<C>>(
    state: S,
    status: Status,
    iterations: usize,
    note: Option<String>,
) -> C::Outcome {
    let outcome = C::outcome(state.z().into_owned(), status, iterations, note, state.pivots());
    state.finish(outcome)
}

fn done<C: LoopContext, S: Steps<C>>(state: S, mut outcome: C::Outcome) -> C::Outcome {
    if let Some(p) = state.pivots() {
        C::add_pivots(&mut outcome, p);
    }
    state.finish(outcome)
}

/// The loop every iterative solver runs: `init` builds the state (or ends the run), then
/// steps until the test passes, a limit is reached, the iterate diverges or stalls, or the
/// method ends. See the module documentation for the rules.
pub fn run_steps<C: LoopContext, S: Steps<C>>(
    problem: &C::Problem,
    ctx: &mut C,
    init: impl FnOnce(&C::Problem, &mut C) -> Result<Start<S, C::Outcome>, SolveError>,
) -> Result<C::Outcome, SolveError> {
    let mut state = match init(problem, ctx)? {
        Start::Run(s) => s,
        Start::Done(outcome) => return Ok(outcome),
    };
    let policy = state.policy();
    if policy.check_start {
        let t = test(&state, problem, ctx);
        if t.passes {
            return Ok(end(state, Status::Solved, 0, None));
        }
        if !t.residual.is_finite() {
            let note = format!("the starting point has a non-finite residual ({})", t.residual);
            return Ok(end(state, Status::NumericalFailure, 0, Some(note)));
        }
    }
    if ctx.time_exceeded() {
        return Ok(end(state, Status::TimeLimit, 0, None));
    }
    let max_iter = ctx.max_iter();
    let mut quiet = 0usize;
    for it in 1..=max_iter {
        let (measure, movement, check) = match state.step(problem, ctx, it)? {
            Step::Taken { measure, movement, check } => (measure, movement, check),
            Step::End { status, note } => {
                let t = test(&state, problem, ctx);
                return Ok(if t.passes {
                    end(state, Status::Solved, it, None)
                } else {
                    end(state, status, it, note)
                });
            }
            Step::Done(outcome) => return Ok(done(state, outcome)),
        };
        if let Some(m) = measure {
            if ctx.wants_iterate(it) {
                let z = state.z();
                ctx.record(problem, it, m, &z);
            } else {
                ctx.record(problem, it, m, &[]);
            }
            if !m.is_finite() {
                let note = format!(
                    "{} {it}: the iterate became non-finite{}",
                    policy.step_name, policy.divergence_hint
                );
                return Ok(end(state, Status::NumericalFailure, it, Some(note)));
            }
        }
        quiet = match movement {
            Some(mv) if mv.within_roundoff() => quiet + 1,
            _ => 0,
        };
        let stalled = policy.stall_after.is_some_and(|k| quiet >= k);
        if check || stalled || (policy.check_last && it == max_iter) {
            let t = test(&state, problem, ctx);
            if t.passes {
                return Ok(end(state, Status::Solved, it, None));
            }
            if !t.residual.is_finite() {
                let note = format!("{} {it}: the residual is not finite", policy.step_name);
                return Ok(end(state, Status::NumericalFailure, it, Some(note)));
            }
            if stalled {
                let relative = movement.map_or(0.0, |m| m.relative());
                let note = format!(
                    "{} {it}: z no longer changes (relative change {relative:.1e}) but the \
                     residual {:.3e} exceeds tol {:.1e}",
                    policy.step_name,
                    t.residual,
                    ctx.tol()
                );
                return Ok(end(state, Status::Stalled, it, Some(note)));
            }
        }
        if it == max_iter {
            break;
        }
        if ctx.time_exceeded() {
            return Ok(end(state, Status::TimeLimit, it, None));
        }
    }
    Ok(end(state, Status::MaxIterations, max_iter, None))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run_solver;
    use crate::solver::SolveOptions;

    /// A scripted method: z moves along `path` one entry per step; `check` on every step.
    struct Scripted {
        z: Vec<f64>,
        path: Vec<Vec<f64>>,
        policy: Policy,
        ending: Option<(usize, Step)>,
    }

    impl<'c> Steps<SolveContext<'c>> for Scripted {
        fn policy(&self) -> Policy {
            self.policy
        }
        fn z(&self) -> Cow<'_, [f64]> {
            Cow::Borrowed(&self.z)
        }
        fn step(&mut self, _: &Lcp, _: &mut SolveContext<'c>, it: usize) -> StepResult {
            if let Some((at, step)) = &self.ending {
                if *at == it {
                    return Ok(step.clone());
                }
            }
            let next = self.path[(it - 1).min(self.path.len() - 1)].clone();
            let change = next.iter().zip(&self.z).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
            let size = next.iter().fold(0.0f64, |m, a| m.max(a.abs()));
            self.z = next;
            let measure = if self.z.iter().all(|v| v.is_finite()) { change } else { f64::NAN };
            Ok(Step::Taken {
                measure: Some(measure),
                movement: Some(Movement { change, size }),
                check: true,
            })
        }
    }

    /// M = I, q = (-1, -2): the solution is z = (1, 2).
    fn lcp() -> Lcp {
        Lcp::from_dense_rows(&[vec![1.0, 0.0], vec![0.0, 1.0]], vec![-1.0, -2.0]).expect("valid")
    }

    fn run(state: Scripted, max_iter: usize) -> Outcome {
        let lcp = lcp();
        let mut ctx = SolveContext::new(1e-10, max_iter);
        run_steps(&lcp, &mut ctx, |_, _| Ok(Start::Run(state))).expect("runs")
    }

    fn scripted(path: &[[f64; 2]]) -> Scripted {
        Scripted {
            z: vec![0.0, 0.0],
            path: path.iter().map(|p| p.to_vec()).collect(),
            policy: Policy { stall_after: Some(2), ..Policy::named("step") },
            ending: None,
        }
    }

    #[test]
    fn the_test_passes_at_the_solution_and_counts_the_steps() {
        let o = run(scripted(&[[0.5, 1.0], [1.0, 2.0]]), 10);
        assert_eq!((o.status, o.iterations), (Status::Solved, 2));
        assert_eq!(o.z, vec![1.0, 2.0]);
    }

    #[test]
    fn a_start_at_the_solution_takes_no_step_only_when_the_policy_tests_it() {
        let mut s = scripted(&[[1.0, 2.0]]);
        s.z = vec![1.0, 2.0];
        s.policy.check_start = true;
        assert_eq!(run(s, 10).iterations, 0);
        let mut s = scripted(&[[1.0, 2.0]]);
        s.z = vec![1.0, 2.0];
        assert_eq!(run(s, 10).iterations, 1);
    }

    #[test]
    fn the_limit_gives_max_iterations_with_the_last_iterate() {
        let o = run(scripted(&[[0.1, 0.1], [0.2, 0.2], [0.3, 0.3]]), 3);
        assert_eq!((o.status, o.iterations), (Status::MaxIterations, 3));
        assert_eq!(o.z, vec![0.3, 0.3]);
    }

    #[test]
    fn a_non_finite_measure_is_a_numerical_failure_with_the_step_named() {
        let o = run(scripted(&[[0.1, 0.1], [f64::NAN, 0.2]]), 10);
        assert_eq!((o.status, o.iterations), (Status::NumericalFailure, 2));
        assert!(o.note.as_deref().is_some_and(|n| n.starts_with("step 2: the iterate")));
    }

    #[test]
    fn stall_needs_the_policy_count_of_quiet_steps() {
        // z stops at (0.5, 0.5): steps 2 and 3 do not move it; stall_after = 2 ends at 3.
        let o = run(scripted(&[[0.5, 0.5]]), 10);
        assert_eq!((o.status, o.iterations), (Status::Stalled, 3));
        let mut s = scripted(&[[0.5, 0.5]]);
        s.policy.stall_after = None;
        assert_eq!(run(s, 10).status, Status::MaxIterations);
    }

    #[test]
    fn an_end_is_solved_only_when_the_iterate_passes() {
        let mut s = scripted(&[[1.0, 2.0], [1.0, 2.0]]);
        s.ending = Some((2, Step::end(Status::Stalled)));
        s.policy.stall_after = None;
        // Step 1 reaches the solution and the test passes there: the end is never reached.
        assert_eq!(run(s, 10).status, Status::Solved);
        let mut s = scripted(&[[0.5, 1.0]]);
        s.ending = Some((2, Step::End { status: Status::Stalled, note: Some("why".into()) }));
        s.policy.stall_after = None;
        let o = run(s, 10);
        assert_eq!((o.status, o.iterations, o.note.as_deref()), (Status::Stalled, 2, Some("why")));
    }

    #[test]
    fn a_done_outcome_is_taken_as_is_and_the_time_limit_is_tested_before_the_first_step() {
        let mut s = scripted(&[[0.5, 1.0]]);
        s.ending = Some((1, Step::Done(Outcome::new(vec![7.0, 7.0], Status::RayTermination, 1))));
        let o = run(s, 10);
        assert_eq!((o.status, o.z), (Status::RayTermination, vec![7.0, 7.0]));
        // Through run_solver with a zero time limit, a real solver takes no step.
        let lcp = lcp();
        let opts =
            SolveOptions { time_limit: Some(std::time::Duration::ZERO), ..Default::default() };
        let sol =
            run_solver(&crate::algorithms::pgs::Pgs::default(), &lcp, &opts, None).expect("runs");
        assert_eq!((sol.status, sol.iterations), (Status::TimeLimit, 0));
    }
}
