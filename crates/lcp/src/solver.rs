//! The solver trait, the options every solver shares, and the one driver that owns timing,
//! limits, counters, residual histories and the final merit check (argmin's split between a
//! solver's steps and the loop that runs them).

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::memory::{MemoryError, DEFAULT_MEMORY_BUDGET};
use crate::merit::{evaluate, worst_row, Merit};
use crate::status::{verify_farkas, Certificate, Status};
use crate::Lcp;

/// Options that apply to every solver; `None` keeps the solver's own default.
#[derive(Debug, Clone, Default)]
pub struct SolveOptions {
    /// Overrides the solver's tolerance on the merit residual.
    pub tol: Option<f64>,
    /// Overrides the solver's iteration limit (pivots for pivoting methods).
    pub max_iter: Option<usize>,
    /// Wall-clock limit for the solve.
    pub time_limit: Option<Duration>,
    /// Record the in-loop residual every iteration and the exact merit every `k` iterations
    /// (`Some(k)`), or record nothing (`None`).
    pub history_every: Option<usize>,
    /// Budget in bytes of each dense array a solver sizes from the problem (a dense copy of
    /// M, a pivoting tableau); `None` is [`DEFAULT_MEMORY_BUDGET`] (2 GiB). A request above it
    /// is [`SolveError::Memory`], checked before anything is allocated.
    pub memory_budget: Option<u64>,
}

impl SolveOptions {
    /// Checks that every set option is usable.
    pub fn validate(&self) -> Result<(), SolveError> {
        if let Some(t) = self.tol {
            check_tol(t)?;
        }
        if self.max_iter == Some(0) {
            return Err(SolveError::InvalidOption("max_iter = 0: must be at least 1".into()));
        }
        if self.history_every == Some(0) {
            return Err(SolveError::InvalidOption("history_every = 0: must be at least 1".into()));
        }
        if self.memory_budget == Some(0) {
            return Err(SolveError::InvalidOption(
                "memory_budget = 0: must be at least 1 byte".into(),
            ));
        }
        Ok(())
    }
}

/// The largest merit tolerance the driver accepts: above it, z = 0 would pass as `solved` on
/// problems that have no solution (`--tol 1`).
pub const MAX_TOL: f64 = 1e-2;

/// Checks 0 < tol <= [`MAX_TOL`].
pub fn check_tol(tol: f64) -> Result<(), SolveError> {
    if tol.is_finite() && tol > 0.0 && tol <= MAX_TOL {
        Ok(())
    } else {
        Err(SolveError::InvalidOption(format!(
            "tol = {tol}: must be a number with 0 < tol <= {MAX_TOL:e}"
        )))
    }
}

/// Why a solve could not be set up (a run that ends badly is a [`Status`], not an error).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SolveError {
    /// The warm start has the wrong length or a non-finite entry.
    #[error("warm start: {0}")]
    WarmStart(String),
    /// An option is out of range.
    #[error("invalid option: {0}")]
    InvalidOption(String),
    /// The problem is outside what this solver can take at all (e.g. `enum` above n = 20).
    #[error("{solver} cannot take this problem: {reason}")]
    Unsupported {
        /// Solver name.
        solver: String,
        /// What is wrong.
        reason: String,
    },
    /// A dense array sized from the problem would exceed the memory budget.
    #[error(transparent)]
    Memory(#[from] MemoryError),
}

/// One entry of a residual history.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct HistoryEntry {
    /// Iteration index (1-based).
    pub iteration: usize,
    /// The solver's cheap in-loop measure (its own definition, documented per solver).
    pub measure: f64,
    /// The exact merit residual, when it was computed at this iteration.
    pub residual: Option<f64>,
}

/// What a solver's own loop reports back to the driver.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The candidate z (the driver recomputes w and the merit from it).
    pub z: Vec<f64>,
    /// The status the solver claims; the driver checks it.
    pub status: Status,
    /// Iterations of the main loop.
    pub iterations: usize,
    /// Pivots (pivoting methods only).
    pub pivots: Option<usize>,
    /// A certificate for a negative status (checked by the driver).
    pub certificate: Option<Certificate>,
    /// All solutions found (only `enum` fills this).
    pub all_solutions: Option<Vec<Vec<f64>>>,
    /// Why the solver stopped, when it has more to say than the status (e.g. the row with a
    /// zero pivot); passed on as [`Solution::note`] unless the driver overrides the status.
    pub note: Option<String>,
}

impl Outcome {
    /// A plain outcome with no pivots, certificate or solution list.
    pub fn new(z: Vec<f64>, status: Status, iterations: usize) -> Self {
        Self {
            z,
            status,
            iterations,
            pivots: None,
            certificate: None,
            all_solutions: None,
            note: None,
        }
    }
}

/// Everything a solver needs from the driver while it runs: effective limits, counters,
/// the clock and the history recorder.
#[derive(Debug)]
pub struct SolveContext<'a> {
    /// Effective merit tolerance.
    pub tol: f64,
    /// Effective iteration limit.
    pub max_iter: usize,
    /// Warm start, validated (length n, finite).
    pub warm_start: Option<&'a [f64]>,
    time_limit: Option<Duration>,
    start: Instant,
    history_every: Option<usize>,
    history: Vec<HistoryEntry>,
    /// Matrix-vector products with M.
    pub matvecs: usize,
    /// Matrix factorisations.
    pub factorizations: usize,
    /// Budget in bytes of each dense array sized from the problem (see [`crate::memory`]).
    pub memory_budget: u64,
}

impl<'a> SolveContext<'a> {
    /// A context with the given effective tolerance and limit, for running a solver's loop
    /// directly (the driver [`run_solver`] builds one from [`SolveOptions`]).
    pub fn new(tol: f64, max_iter: usize) -> Self {
        Self {
            tol,
            max_iter,
            warm_start: None,
            time_limit: None,
            start: Instant::now(),
            history_every: None,
            history: Vec::new(),
            matvecs: 0,
            factorizations: 0,
            memory_budget: DEFAULT_MEMORY_BUDGET,
        }
    }

    /// True once the wall-clock limit has passed.
    pub fn time_exceeded(&self) -> bool {
        self.time_limit.is_some_and(|t| self.start.elapsed() >= t)
    }

    /// Elapsed time since the solve began.
    pub fn elapsed(&self) -> Duration {
        self.start.elapsed()
    }

    /// Time left before the wall-clock limit: `None` without a limit, zero once it passed
    /// (for solvers that hand the limit to a library, e.g. clarabel's `time_limit`).
    pub fn time_left(&self) -> Option<Duration> {
        self.time_limit.map(|t| t.saturating_sub(self.start.elapsed()))
    }

    /// True when this iteration should also record the exact merit.
    pub fn wants_exact(&self, iteration: usize) -> bool {
        self.history_every.is_some_and(|k| iteration.is_multiple_of(k))
    }

    /// True when a history is recorded at all.
    pub fn records_history(&self) -> bool {
        self.history_every.is_some()
    }

    /// Records the in-loop measure of an iteration; when [`Self::wants_exact`] holds the
    /// exact merit of `z` is computed and stored beside it.
    pub fn record(&mut self, lcp: &Lcp, iteration: usize, measure: f64, z: &[f64]) {
        if !self.records_history() {
            return;
        }
        let residual =
            if self.wants_exact(iteration) { Some(evaluate(lcp, z).1.residual) } else { None };
        self.history.push(HistoryEntry { iteration, measure, residual });
    }

    /// The stopping test every solver shares with the driver: `residual` (the solver's merit
    /// of z, as [`evaluate`] defines it) within tolerance **and** every row within tolerance at
    /// its own scale ([`worst_row`] with w = M z + q as the solver holds it). A solver that
    /// stops on the norm alone would hand the driver answers it then rejects.
    pub fn converged(&self, lcp: &Lcp, z: &[f64], w: &[f64], residual: f64) -> bool {
        residual <= self.tol
            && worst_row(lcp, z, w, row_tolerance(self.tol, lcp.n())).is_none_or(|r| r.holds())
    }

    /// y = M x, counted.
    pub fn mul_vec(&mut self, lcp: &Lcp, x: &[f64], y: &mut [f64]) {
        self.matvecs += 1;
        lcp.mul_vec(x, y);
    }
}

/// The result of a solve, as it leaves the crate: every figure recomputed from z.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Solution {
    /// The solver's name (its spec string).
    pub solver: String,
    /// How the run ended (checked by the driver).
    pub status: Status,
    /// The returned z.
    pub z: Vec<f64>,
    /// w = Mz + q recomputed from z.
    pub w: Vec<f64>,
    /// Merit figures recomputed from z.
    pub merit: Merit,
    /// The tolerance the status was judged against.
    pub tol: f64,
    /// Iterations of the solver's main loop.
    pub iterations: usize,
    /// Pivots (pivoting methods), `None` otherwise.
    pub pivots: Option<usize>,
    /// Matrix-vector products with M.
    pub matvecs: usize,
    /// Matrix factorisations.
    pub factorizations: usize,
    /// Wall time of the solve alone, seconds.
    pub solve_seconds: f64,
    /// Certificate for `infeasible` / `no_solution`, checked.
    pub certificate: Option<Certificate>,
    /// Per-iteration history when requested.
    pub history: Option<Vec<HistoryEntry>>,
    /// All solutions (`enum` only), each verified.
    pub all_solutions: Option<Vec<Vec<f64>>>,
    /// Why the driver changed the status the solver claimed, if it did.
    pub note: Option<String>,
}

impl Solution {
    /// The merit residual (shortcut).
    pub fn residual(&self) -> f64 {
        self.merit.residual
    }
}

/// An LCP algorithm. Implementors write [`LcpSolver::run`]; users call [`LcpSolver::solve`],
/// whose default implementation is the driver [`run_solver`].
pub trait LcpSolver: Send + Sync {
    /// Canonical name with non-default parameters, e.g. `pgs:omega=1.3`.
    fn name(&self) -> String;

    /// Default merit tolerance of this solver.
    fn default_tol(&self) -> f64;

    /// Default iteration (or pivot) limit for a problem of size n.
    fn default_max_iter(&self, n: usize) -> usize;

    /// The algorithm's own loop. Claimed statuses and certificates are checked by the driver.
    fn run(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError>;

    /// Solves `lcp` with optional warm start; the returned figures are recomputed from z.
    fn solve(
        &self,
        lcp: &Lcp,
        options: &SolveOptions,
        warm_start: Option<&[f64]>,
    ) -> Result<Solution, SolveError> {
        run_solver(self, lcp, options, warm_start)
    }
}

impl<S: LcpSolver + ?Sized> LcpSolver for Box<S> {
    fn name(&self) -> String {
        (**self).name()
    }
    fn default_tol(&self) -> f64 {
        (**self).default_tol()
    }
    fn default_max_iter(&self, n: usize) -> usize {
        (**self).default_max_iter(n)
    }
    fn run(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        (**self).run(lcp, ctx)
    }
    fn solve(
        &self,
        lcp: &Lcp,
        options: &SolveOptions,
        warm_start: Option<&[f64]>,
    ) -> Result<Solution, SolveError> {
        (**self).solve(lcp, options, warm_start)
    }
}

/// Relative tolerance used when re-checking Farkas certificates.
pub const FARKAS_TOL: f64 = 1e-9;

/// The driver: validates options and warm start, times the solver's loop, recomputes the merit
/// from z and decides the final status.
///
/// Rules:
/// - the returned z is projected onto z >= 0 and w and the merit are recomputed from it;
/// - `solved` iff the recomputed residual is within tolerance **and** every row holds at its own
///   scale ([`worst_row`] at [`row_tolerance`]: w_i >= -t S_i and z_i <= t ‖z‖_∞ or
///   w_i <= t S_i, S_i = max(|q_i| + (|M||z|)_i, (|M|e)_i ‖z‖_∞), z and e read in column
///   units as [`worst_row`] documents), so one large |q_i| cannot hide an unsolved row; a solver that claims `solved` and fails either test gets
///   `numerical_failure` with the reason in [`Solution::note`]; one that ran out of iterations
///   but whose z passes both is `solved`;
/// - `infeasible` only with a Farkas vector that [`verify_farkas`] accepts, scale-free
///   (otherwise `ray_termination` for a pivoting method, whose rejected claim came from a ray,
///   and `numerical_failure` for any other);
/// - `no_solution` only with an enumeration certificate, and never when M + M' is positive
///   definite after diagonal scaling (then the LCP has a unique solution, so the claim is
///   refuted and the status is `numerical_failure`);
/// - the effective tolerance (option, spec string or default) must satisfy 0 < tol <=
///   [`MAX_TOL`].
pub fn run_solver<S: LcpSolver + ?Sized>(
    solver: &S,
    lcp: &Lcp,
    options: &SolveOptions,
    warm_start: Option<&[f64]>,
) -> Result<Solution, SolveError> {
    options.validate()?;
    let n = lcp.n();
    if let Some(z0) = warm_start {
        if z0.len() != n {
            return Err(SolveError::WarmStart(format!(
                "has {} entries, the problem has n = {n}",
                z0.len()
            )));
        }
        if let Some((i, v)) = z0.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(SolveError::WarmStart(format!("entry {i} = {v} is not finite")));
        }
    }
    let tol = options.tol.unwrap_or_else(|| solver.default_tol());
    check_tol(tol)?;
    let mut ctx = SolveContext {
        tol,
        max_iter: options.max_iter.unwrap_or_else(|| solver.default_max_iter(n)),
        warm_start,
        time_limit: options.time_limit,
        start: Instant::now(),
        history_every: options.history_every,
        history: Vec::new(),
        matvecs: 0,
        factorizations: 0,
        memory_budget: options.memory_budget.unwrap_or(DEFAULT_MEMORY_BUDGET),
    };
    let outcome = if n == 0 {
        Outcome::new(Vec::new(), Status::Solved, 0)
    } else {
        solver.run(lcp, &mut ctx)?
    };
    let solve_seconds = ctx.start.elapsed().as_secs_f64();
    finish(solver.name(), lcp, outcome, ctx, solve_seconds)
}

/// The tolerance of the componentwise test: tol sqrt(n). The norm test
/// ||min(z, w)||_2 <= tol ||q||_2 implies |min(z_i, w_i)| <= tol sqrt(n) s when every row has
/// the same scale s, so this holds each row to the standard the merit would hold it to in a
/// uniformly scaled problem, and no row can hide behind another's scale.
pub fn row_tolerance(tol: f64, n: usize) -> f64 {
    tol * (n.max(1) as f64).sqrt()
}

/// True when D (M + M') D is numerically positive definite for D = diag(|M_ii|)^(-1/2)
/// (Cholesky with every pivot above 1e3 n eps of the unit diagonal). Then x'Mx > 0 for x != 0,
/// M is a P-matrix and the LCP has exactly one solution. Only for n <= 2000 (dense); larger
/// problems answer false (no refutation attempted).
fn scaled_symmetric_part_is_pd(lcp: &Lcp) -> bool {
    let n = lcp.n();
    if n == 0 || n > 2000 {
        return false;
    }
    let d = lcp.diag();
    if d.iter().any(|&v| !(v.is_finite() && v > 0.0)) {
        return false;
    }
    let s: Vec<f64> = d.iter().map(|v| 1.0 / v.sqrt()).collect();
    let m = lcp.to_dense();
    let mut a = vec![0.0; n * n];
    for j in 0..n {
        for i in 0..n {
            a[i * n + j] = 0.5 * (m[(i, j)] + m[(j, i)]) * s[i] * s[j];
        }
    }
    let threshold = 1e3 * n as f64 * f64::EPSILON;
    for k in 0..n {
        let mut p = a[k * n + k];
        for l in 0..k {
            p -= a[k * n + l] * a[k * n + l];
        }
        if !(p.is_finite() && p > threshold) {
            return false;
        }
        let p = p.sqrt();
        a[k * n + k] = p;
        for i in k + 1..n {
            let mut v = a[i * n + k];
            for l in 0..k {
                v -= a[i * n + l] * a[k * n + l];
            }
            a[i * n + k] = v / p;
        }
    }
    true
}

fn finish(
    name: String,
    lcp: &Lcp,
    outcome: Outcome,
    ctx: SolveContext<'_>,
    solve_seconds: f64,
) -> Result<Solution, SolveError> {
    let n = lcp.n();
    let mut z = outcome.z;
    let mut note = outcome.note;
    if z.len() != n {
        note = Some(format!("solver returned z of length {} for n = {n}", z.len()));
        z = vec![0.0; n];
    }
    // z >= 0 exactly: a contact force is never negative, whatever the solver's round-off. A
    // non-finite entry (a solver that diverged) becomes 0 too, and the note says so; the status
    // is then decided from that z like any other.
    let mut non_finite = 0usize;
    z.iter_mut().for_each(|v| {
        if !v.is_finite() {
            non_finite += 1;
            *v = 0.0
        } else if *v < 0.0 {
            *v = 0.0
        }
    });
    if non_finite > 0 && note.is_none() {
        note = Some(format!(
            "the solver returned {non_finite} non-finite entries of z; they were set to 0"
        ));
    }
    let (w, merit) = evaluate(lcp, &z);
    let row_tol = row_tolerance(ctx.tol, n);
    let row = worst_row(lcp, &z, &w, row_tol);
    let rows_hold = row.is_none_or(|r| r.holds());
    let passes = merit.residual <= ctx.tol && rows_hold;
    let mut certificate = outcome.certificate;
    let claimed = outcome.status;
    let status = match claimed {
        Status::Infeasible => match &certificate {
            Some(Certificate::Farkas { y }) => match verify_farkas(lcp, y, FARKAS_TOL) {
                Ok(()) => Status::Infeasible,
                Err(e) => {
                    note = Some(format!("Farkas vector rejected: {e}"));
                    certificate = None;
                    if outcome.pivots.is_some() {
                        Status::RayTermination
                    } else {
                        Status::NumericalFailure
                    }
                }
            },
            _ => {
                note = Some("infeasible claimed without a Farkas vector".into());
                certificate = None;
                Status::NumericalFailure
            }
        },
        Status::NoSolution => match certificate {
            Some(Certificate::Enumeration { .. }) if scaled_symmetric_part_is_pd(lcp) => {
                note = Some(
                    "no_solution refuted: M + M' is positive definite, so the LCP has a unique \
                     solution (the enumeration rejected it numerically)"
                        .into(),
                );
                certificate = None;
                Status::NumericalFailure
            }
            Some(Certificate::Enumeration { .. }) => Status::NoSolution,
            _ => {
                note = Some("no_solution claimed without enumeration".into());
                certificate = None;
                Status::NumericalFailure
            }
        },
        _ if passes => {
            if claimed != Status::Solved {
                note = Some(format!("solver ended with {claimed} but z passes the merit check"));
            }
            certificate = None;
            Status::Solved
        }
        Status::Solved => {
            note = Some(match row {
                Some(r) if merit.residual <= ctx.tol => format!(
                    "solver claimed solved but row {} has |min(z, w)| = {:.3e}, above {:.3e} \
                     (tol sqrt(n) = {:.1e} at its scale {:.3e}; \
                     the residual {:.3e} hides it)",
                    r.row, r.violation, r.allowed, row_tol, r.scale, merit.residual
                ),
                _ => format!(
                    "solver claimed solved but the recomputed residual {:.3e} exceeds tol {:.1e}",
                    merit.residual, ctx.tol
                ),
            });
            Status::NumericalFailure
        }
        other => other,
    };
    let all_solutions = outcome.all_solutions.map(|sols| {
        sols.into_iter()
            .filter(|s| s.len() == n && evaluate(lcp, s).1.residual <= ctx.tol)
            .collect()
    });
    Ok(Solution {
        solver: name,
        status,
        z,
        w,
        merit,
        tol: ctx.tol,
        iterations: outcome.iterations,
        pivots: outcome.pivots,
        matvecs: ctx.matvecs,
        factorizations: ctx.factorizations,
        solve_seconds,
        certificate,
        history: ctx.history_every.map(|_| ctx.history),
        all_solutions,
        note,
    })
}
