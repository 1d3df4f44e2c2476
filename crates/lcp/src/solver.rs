//! The solver trait, the options every solver shares, and the one driver that owns timing,
//! limits, counters, residual histories and the final merit check (argmin's split between a
//! solver's steps and the loop that runs them).

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::memory::{MemoryError, DEFAULT_MEMORY_BUDGET};
use crate::merit::{evaluate, evaluate_uncounted, worst_row, Merit};
use crate::params::{fmt_f64, ParamDoc, ParamValue, SolverParams, SpecError, COMMON_KEYS};
use crate::status::{verify_farkas, Certificate, Status};
use crate::Lcp;

/// Options that apply to every solver; `None` keeps the solver's own default.
///
/// `tol`, `max_iter` and `time_limit` live here and nowhere else: no algorithm's parameters
/// carry them. A spec string may set them too (`pgs:tol=1e-10,max_iter=500,time_limit=2`);
/// they become the built solver's preset ([`LcpSolver::preset`], [`Preset`]). **Precedence**,
/// for each of the three: the spec string's value, then these options, then the solver's
/// default ([`LcpSolver::default_tol`], [`LcpSolver::default_max_iter`], no time limit). The
/// CLI refuses `--tol` (or `--max-iter`, `--time-limit`) beside a spec that sets the same key
/// to another value, so neither can silently win there.
#[derive(Debug, Clone, Default, PartialEq)]
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
    /// `tol`, `max_iter` and `time_limit` from these options where set, else from `base`; the
    /// other fields from `base` (a spec string's preset over the caller's options).
    pub fn over(&self, base: &SolveOptions) -> SolveOptions {
        SolveOptions {
            tol: self.tol.or(base.tol),
            max_iter: self.max_iter.or(base.max_iter),
            time_limit: self.time_limit.or(base.time_limit),
            ..base.clone()
        }
    }

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
    /// A parameter of the solver is out of range (a parameter struct built in Rust; spec
    /// strings are checked when they are parsed).
    #[error(transparent)]
    Parameter(#[from] SpecError),
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

/// What a solver's run (the step loop, or a direct method) reports back to the driver.
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

    /// The same context with a wall-clock limit counted from its creation.
    pub fn with_time_limit(mut self, limit: Duration) -> Self {
        self.time_limit = Some(limit);
        self
    }

    /// True once the wall-clock limit has passed.
    pub fn time_exceeded(&self) -> bool {
        self.time_limit.is_some_and(|t| self.start.elapsed() >= t)
    }

    /// The starting point: the warm start as given, else 0.
    pub fn start(&self, n: usize) -> Vec<f64> {
        match self.warm_start {
            Some(z0) => z0.to_vec(),
            None => vec![0.0; n],
        }
    }

    /// The starting point projected onto z >= 0: the warm start's positive part, else 0.
    pub fn start_projected(&self, n: usize) -> Vec<f64> {
        self.start(n).into_iter().map(|v| v.max(0.0)).collect()
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
        let residual = if self.wants_exact(iteration) {
            Some(evaluate_uncounted(lcp, z).1.residual)
        } else {
            None
        };
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

    /// y = M' x, counted.
    pub fn mul_vec_transpose(&mut self, lcp: &Lcp, x: &[f64], y: &mut [f64]) {
        self.matvecs += 1;
        lcp.mul_vec_transpose(x, y);
    }

    /// w = M z + q, counted as one product.
    pub fn w_of(&mut self, lcp: &Lcp, z: &[f64]) -> Vec<f64> {
        let mut w = vec![0.0; lcp.n()];
        self.mul_vec(lcp, z, &mut w);
        w.iter_mut().zip(lcp.q()).for_each(|(wi, qi)| *wi += qi);
        w
    }

    /// w = M z + q and the merit of z ([`evaluate`]), counted as one product.
    pub fn evaluate(&mut self, lcp: &Lcp, z: &[f64]) -> (Vec<f64>, Merit) {
        self.matvecs += 1;
        evaluate(lcp, z)
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

    /// Options fixed by the spec string (`tol`, `max_iter`, `time_limit`): they win over the
    /// caller's [`SolveOptions`] (see its precedence). None by default.
    fn preset(&self) -> SolveOptions {
        SolveOptions::default()
    }

    /// Checks the solver's parameters; the driver calls it before [`LcpSolver::run`], so a
    /// parameter struct built in Rust with an out-of-range field is a typed error.
    fn validate(&self) -> Result<(), SolveError> {
        Ok(())
    }

    /// True when the solver runs on a Gram-form M = G G' + D ([`Lcp::from_gram`]) without its
    /// entries (products and sweeps through G). For any other solver the driver checks the
    /// sparse assembly of such an M against the memory budget before [`LcpSolver::run`], which
    /// then reads the assembled M through [`Lcp::matrix`]. False by default.
    fn matrix_free(&self) -> bool {
        false
    }

    /// The algorithm: for an iterative method, its initial [`crate::steps::Steps`] state handed to
    /// the loop [`crate::steps::run_steps`] (see [`crate::lcp_solver!`]'s `steps:`); for a
    /// direct one, the whole solve. Claimed statuses and certificates are checked by the driver.
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
    fn preset(&self) -> SolveOptions {
        (**self).preset()
    }
    fn validate(&self) -> Result<(), SolveError> {
        (**self).validate()
    }
    fn matrix_free(&self) -> bool {
        (**self).matrix_free()
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

/// The spec-string side of the options: the common keys parsed, split off and written back.
impl SolveOptions {
    /// The common keys of a spec string as options: `tol` (0 < tol <= [`MAX_TOL`]),
    /// `max_iter` (>= 1), `time_limit` (seconds, > 0). `solver` names the solver in errors.
    pub fn parse_common(
        solver: &str,
        pairs: &[(String, String)],
    ) -> Result<(SolveOptions, Vec<(String, String)>), SpecError> {
        let bad = |key: &str, value: &str, reason: &str| SpecError::BadValue {
            solver: solver.into(),
            key: key.into(),
            value: value.into(),
            reason: reason.into(),
        };
        let mut options = SolveOptions::default();
        let mut rest = Vec::new();
        for (k, v) in pairs {
            match k.as_str() {
                "tol" => {
                    let t = <f64 as ParamValue>::parse_param(v).map_err(|e| bad(k, v, &e))?;
                    check_tol(t)
                        .map_err(|_| bad(k, v, &format!("expected 0 < tol <= {MAX_TOL:e}")))?;
                    options.tol = Some(t);
                }
                "max_iter" => match <usize as ParamValue>::parse_param(v) {
                    Ok(m) if m >= 1 => options.max_iter = Some(m),
                    _ => return Err(bad(k, v, "expected an integer >= 1")),
                },
                "time_limit" => match <f64 as ParamValue>::parse_param(v) {
                    Ok(t) if t > 0.0 && t <= 1e9 => {
                        options.time_limit = Some(Duration::from_secs_f64(t))
                    }
                    _ => return Err(bad(k, v, "expected seconds, 0 < time_limit <= 1e9")),
                },
                _ => rest.push((k.clone(), v.clone())),
            }
        }
        Ok((options, rest))
    }

    /// Splits a spec's pairs into the common keys (as options) and the solver's own, checking
    /// that every own key is one of `keys`: what every registry does before it builds.
    pub fn split_spec(
        solver: &str,
        pairs: &[(String, String)],
        keys: &[ParamDoc],
    ) -> Result<(SolveOptions, Vec<(String, String)>), SpecError> {
        let (options, rest) = Self::parse_common(solver, pairs)?;
        if let Some((k, _)) = rest.iter().find(|(k, _)| !keys.iter().any(|d| d.key == k)) {
            return Err(SpecError::UnknownKey {
                solver: solver.into(),
                key: k.clone(),
                valid: keys
                    .iter()
                    .map(|d| d.key)
                    .chain(COMMON_KEYS.iter().map(|(k, _)| *k))
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        Ok((options, rest))
    }

    /// `inner` (a solver's spec) followed by the set common keys.
    pub fn spec_with(&self, inner: String) -> String {
        let pairs = self.common_pairs();
        if pairs.is_empty() {
            return inner;
        }
        let sep = if inner.contains(':') { ',' } else { ':' };
        format!("{inner}{sep}{}", pairs.join(","))
    }

    /// The set common keys as `key=value` texts, in the order tol, max_iter, time_limit.
    pub fn common_pairs(&self) -> Vec<String> {
        let mut pairs = Vec::new();
        if let Some(t) = self.tol {
            pairs.push(format!("tol={}", fmt_f64(t)));
        }
        if let Some(m) = self.max_iter {
            pairs.push(format!("max_iter={m}"));
        }
        if let Some(t) = self.time_limit {
            pairs.push(format!("time_limit={}", fmt_f64(t.as_secs_f64())));
        }
        pairs
    }
}

/// A solver with options fixed by its spec string (`pgs:omega=1.3,tol=1e-10`): the registry
/// wraps a built solver in it when the spec names any of [`COMMON_KEYS`].
#[derive(Debug, Clone)]
pub struct Preset<S> {
    /// The solver.
    pub solver: S,
    /// What the spec string set (only `tol`, `max_iter`, `time_limit` are read).
    pub options: SolveOptions,
}

impl<S: LcpSolver> LcpSolver for Preset<S> {
    fn name(&self) -> String {
        self.options.spec_with(self.solver.name())
    }
    fn default_tol(&self) -> f64 {
        self.solver.default_tol()
    }
    fn default_max_iter(&self, n: usize) -> usize {
        self.solver.default_max_iter(n)
    }
    fn preset(&self) -> SolveOptions {
        self.options.over(&self.solver.preset())
    }
    fn validate(&self) -> Result<(), SolveError> {
        self.solver.validate()
    }
    fn run(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        self.solver.run(lcp, ctx)
    }
    /// The inner solver's own `solve` (so a solver that composes others, `auto`, keeps its
    /// rule) with the preset merged over the caller's options.
    fn solve(
        &self,
        lcp: &Lcp,
        options: &SolveOptions,
        warm_start: Option<&[f64]>,
    ) -> Result<Solution, SolveError> {
        let mut sol = self.solver.solve(lcp, &self.options.over(options), warm_start)?;
        if sol.solver == self.solver.name() {
            sol.solver = self.name();
        }
        Ok(sol)
    }
}

/// Builds a boxed solver from the `key=value` pairs of a spec string (the common keys already
/// taken out).
pub type Builder = std::sync::Arc<
    dyn Fn(&[(String, String)]) -> Result<Box<dyn LcpSolver>, SpecError> + Send + Sync,
>;

/// A function that builds a boxed solver from a spec's own `key=value` pairs.
pub trait BuildFn:
    Fn(&[(String, String)]) -> Result<Box<dyn LcpSolver>, SpecError> + Send + Sync + 'static
{
}

impl<F> BuildFn for F where
    F: Fn(&[(String, String)]) -> Result<Box<dyn LcpSolver>, SpecError> + Send + Sync + 'static
{
}

/// What the registry knows of one solver: its name, one line, its parameters and how to build
/// it. Algorithms describe themselves with one (`Solver::entry()`); the registry collects them.
#[derive(Clone)]
pub struct Entry {
    /// Name used in spec strings.
    pub name: String,
    /// One line: algorithm and the matrix class it is for.
    pub summary: String,
    /// Parameter documentation (the common keys are documented once, in [`COMMON_KEYS`]).
    pub keys: Vec<ParamDoc>,
    /// Builds the solver.
    pub builder: Builder,
}

impl std::fmt::Debug for Entry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entry").field("name", &self.name).finish()
    }
}

impl Entry {
    /// An entry from its parts (for solvers whose parameters are not a [`SolverParams`]).
    pub fn new(name: &str, summary: &str, keys: Vec<ParamDoc>, builder: impl BuildFn) -> Self {
        Self {
            name: name.into(),
            summary: summary.into(),
            keys,
            builder: std::sync::Arc::new(builder),
        }
    }

    /// An entry for a solver built from its [`SolverParams`] by `make`.
    pub fn with_params<P: SolverParams + 'static, S: LcpSolver + 'static>(
        summary: &str,
        make: fn(P) -> S,
    ) -> Self {
        Self::new(P::SOLVER, summary, P::keys(), move |pairs| {
            Ok(Box::new(make(P::from_pairs(pairs)?)) as Box<dyn LcpSolver>)
        })
    }
}

/// Declares a solver of this crate (or of any crate) around its [`SolverParams`]: the struct
/// holding the parameters, `new`, `entry()` for the registry, and the [`LcpSolver`]
/// bookkeeping (canonical name from the parameters, default tolerance and iteration limit,
/// parameter validation before the run). The algorithm itself is either the method named by
/// `run`, `fn(&Self, &Lcp, &mut SolveContext) -> Result<Outcome, SolveError>` (a one-shot
/// method, or one that checks its input before its steps start), or, with
/// `steps: |solver, lcp, ctx| STATE`, the initial state of a [`crate::steps::Steps`] method
/// that the driver's loop [`crate::steps::run_steps`] runs. An optional `matrix_free: true,`
/// after `max_iter` declares that the algorithm runs on a Gram-form M without its entries
/// ([`LcpSolver::matrix_free`]).
///
/// ```
/// use signorini_lcp::{Lcp, Outcome, SolveContext, SolveError, Status, SolveOptions, LcpSolver};
/// signorini_lcp::solver_params! {
///     /// Parameters of `zero`.
///     pub struct ZeroParams for "zero" {
///         /// Unused.
///         scale: f64 = 1.0, valid if |v| v > 0.0 => "> 0";
///     }
/// }
/// signorini_lcp::lcp_solver! {
///     /// Returns z = 0.
///     pub struct Zero(ZeroParams) {
///         summary: "z = 0 (a demonstration)",
///         tol: 1e-8,
///         max_iter: |_params, _n| 1,
///         run: Zero::zero,
///     }
/// }
/// impl Zero {
///     fn zero(&self, lcp: &Lcp, _: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
///         Ok(Outcome::new(vec![0.0; lcp.n()], Status::Solved, 1))
///     }
/// }
/// let lcp = Lcp::from_dense_rows(&[vec![1.0]], vec![1.0]).unwrap();
/// let sol = Zero::default().solve(&lcp, &SolveOptions::default(), None).unwrap();
/// assert_eq!(sol.status, Status::Solved);
/// assert!(Zero::new(ZeroParams { scale: -1.0 }).solve(&lcp, &SolveOptions::default(), None).is_err());
/// ```
#[macro_export]
macro_rules! lcp_solver {
    (
        $(#[$meta:meta])*
        $vis:vis struct $solver:ident($params:ty) {
            summary: $summary:expr,
            tol: $tol:expr,
            max_iter: |$p:pat_param, $n:pat_param| $max_iter:expr,
            $(matrix_free: $mf:expr,)?
            steps: |$s:pat_param, $l:pat_param, $c:pat_param| $init:expr $(,)?
        }
    ) => {
        $crate::lcp_solver! {
            $(#[$meta])*
            $vis struct $solver($params) {
                summary: $summary,
                tol: $tol,
                max_iter: |$p, $n| $max_iter,
                $(matrix_free: $mf,)?
                run: |solver: &$solver,
                      lcp: &$crate::Lcp,
                      ctx: &mut $crate::SolveContext<'_>|
                      -> Result<$crate::Outcome, $crate::SolveError> {
                    $crate::steps::run_steps(lcp, ctx, |lcp, ctx| {
                        let ($s, $l, $c) = (solver, lcp, ctx);
                        Ok($crate::steps::Start::Run($init))
                    })
                },
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis struct $solver:ident($params:ty) {
            summary: $summary:expr,
            tol: $tol:expr,
            max_iter: |$p:pat_param, $n:pat_param| $max_iter:expr,
            $(matrix_free: $mf:expr,)?
            run: $run:expr $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Default)]
        $vis struct $solver {
            /// Parameters.
            pub params: $params,
        }

        impl $solver {
            /// Solver with the given parameters.
            pub fn new(params: $params) -> Self {
                Self { params }
            }

            /// This solver's registry entry.
            pub fn entry() -> $crate::solver::Entry {
                $crate::solver::Entry::with_params::<$params, $solver>($summary, $solver::new)
            }
        }

        impl $crate::LcpSolver for $solver {
            fn name(&self) -> String {
                $crate::params::SolverParams::spec(&self.params)
            }
            fn default_tol(&self) -> f64 {
                $tol
            }
            fn default_max_iter(&self, n: usize) -> usize {
                let $p = &self.params;
                let $n = n;
                $max_iter
            }
            fn validate(&self) -> Result<(), $crate::SolveError> {
                Ok($crate::params::SolverParams::validate(&self.params)?)
            }
            fn matrix_free(&self) -> bool {
                $crate::solver::declared(&[$($mf)?])
            }
            fn run(
                &self,
                lcp: &$crate::Lcp,
                ctx: &mut $crate::SolveContext<'_>,
            ) -> Result<$crate::Outcome, $crate::SolveError> {
                ($run)(self, lcp, ctx)
            }
        }
    };
}

/// The optional flag of [`crate::lcp_solver!`] (`matrix_free: EXPR,`): false when absent.
#[doc(hidden)]
pub fn declared(flag: &[bool]) -> bool {
    flag.first().copied().unwrap_or(false)
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
    solver.validate()?;
    let preset = solver.preset();
    preset.validate()?;
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
    // Precedence (documented on SolveOptions): spec string, then the caller, then the default.
    let effective = preset.over(options);
    let tol = effective.tol.unwrap_or_else(|| solver.default_tol());
    check_tol(tol)?;
    let mut ctx = SolveContext {
        tol,
        max_iter: effective.max_iter.unwrap_or_else(|| solver.default_max_iter(n)),
        warm_start,
        time_limit: effective.time_limit,
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
        if !solver.matrix_free() {
            crate::memory::check_assembly(lcp, ctx.memory_budget, &solver.name())?;
        }
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
    let (w, merit) = evaluate_uncounted(lcp, &z);
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
            .filter(|s| s.len() == n && evaluate_uncounted(lcp, s).1.residual <= ctx.tol)
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
