//! The one time-stepping loop of signorini-integrators. Moreau–Jean
//! ([`crate::moreau_jean`]), Stewart–Trinkle / Anitescu–Potra ([`crate::stewart_trinkle`]) and
//! the position-level LCP scheme ([`crate::position_lcp`]) are strategies of [`run_stepping`]:
//! each poses its step's impulse LCP, and the driver owns everything else — validation, the
//! time grid t_k = t0 + k h, mass solves and the free velocity, the solve with its failure
//! policy and optional warm start, the impulse update, the finiteness check, per-step
//! statistics, samples, observers and the wall-clock limit (the argmin pattern: small step
//! interface, one driver).
//!
//! One step from (t_k, q_k, v_k): v_free = v_k + h M(q_k)^-1 f(t_f, q_k, v_k) with the force
//! time t_f chosen by the scheme; the scheme poses LCP(A, b) for the impulses z on some rows
//! J_A of the contact Jacobian; the driver solves it with any [`LcpSolver`] and sets
//! v_{k+1} = v_free + M^-1 J_A' max(z, 0); the scheme advances q.
//!
//! Moreau–Jean with the exact Coulomb cone ([`crate::moreau_jean_cone`], entry point
//! [`run_stepping_cone`]) is a strategy of the same loop whose step problem is a
//! signorini-friction [`FcProblem`] instead of an LCP, solved by any [`FcSolver`]; its
//! reactions r (each block in its cone, tangential components of either sign) enter the
//! update as they are: v_{k+1} = v_free + M^-1 H' r.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use signorini_friction::{FcProblem, FcSolver};
use signorini_impact::LcpSolveRecord;
use signorini_lcp::{Lcp, LcpSolver, SolveOptions, Status};

use crate::model::{ContactId, ContactModel, MechanicalSystem, ModelError, StepRows};
use crate::moreau_jean::MoreauJean;
use crate::step_matrices::{ActiveRows, SetRequest, StepMatrices, StepSet};
use crate::stewart_trinkle::FrictionModel;

/// A state (t, q, v) of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// Time.
    pub t: f64,
    /// Coordinates.
    pub q: Vec<f64>,
    /// Velocities.
    pub v: Vec<f64>,
}

/// What to do when the LCP solver fails inside a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnSolverFailure {
    /// Stop with [`SteppingError::SolverFailed`] (default).
    #[default]
    Stop,
    /// Record the failure in [`SteppingRun::solver_failures`] and go on with the returned
    /// impulse (clamped at zero).
    Continue,
}

/// Where each step's LCP solve starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WarmStart {
    /// No warm start: every solve starts from the solver's own initial point (default, so
    /// results do not depend on the previous step's solve).
    #[default]
    Off,
    /// Start from the previous step's impulses, matched by contact identity (the model's
    /// contact index and the impulse component: normal, tangential direction, sliding
    /// multiplier); components new in this step start at 0. Solvers that take no warm start
    /// (lemke, murty, enum, qp) ignore it.
    PreviousStep,
}

/// How much of each step a [`SteppingRun`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Recording {
    /// Every step's [`StepStats`] and every failed solve (default; memory grows with the
    /// number of steps).
    #[default]
    EveryStep,
    /// Only [`StepTotals`]: memory independent of the number of steps (observers see every
    /// step).
    TotalsOnly,
}

/// Settings every time stepper shares.
#[derive(Debug, Clone)]
pub struct SteppingParams {
    /// Time step h (finite, > 0).
    pub step: f64,
    /// Options for every LCP solve.
    pub options: SolveOptions,
    /// Policy for failed solves (default stop).
    pub on_failure: OnSolverFailure,
    /// Keep every k-th state in [`SteppingRun::samples`] (default 1; 0 keeps none).
    pub sample_every: usize,
    /// Warm start of each step's solve (default off).
    pub warm_start: WarmStart,
    /// What the run keeps per step (default every step).
    pub recording: Recording,
    /// Wall-clock limit of the run; once passed the run ends after the current step with
    /// [`RunEnd::TimeLimit`] (default none).
    pub time_limit: Option<Duration>,
}

impl SteppingParams {
    /// Defaults with step h.
    pub fn with_step(step: f64) -> Self {
        Self {
            step,
            options: SolveOptions::default(),
            on_failure: OnSolverFailure::Stop,
            sample_every: 1,
            warm_start: WarmStart::Off,
            recording: Recording::EveryStep,
            time_limit: None,
        }
    }

    /// Checks ranges.
    pub fn validate(&self) -> Result<(), SteppingError> {
        if !(self.step.is_finite() && self.step > 0.0) {
            return Err(SteppingError::Input(format!(
                "step = {}: must be a finite number > 0",
                self.step
            )));
        }
        Ok(())
    }
}

/// Why a run stopped early.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SteppingError {
    /// Bad settings or initial state.
    #[error("invalid input: {0}")]
    Input(String),
    /// The model failed.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The LCP could not be set up.
    #[error("LCP set-up failed at t = {t}: {message}")]
    Setup {
        /// Step start time.
        t: f64,
        /// What failed.
        message: String,
    },
    /// The solver failed (policy Stop).
    #[error("{solver} ended with {status} (residual {residual:.3e}) at step {step_idx}, t = {t}")]
    SolverFailed {
        /// Step index.
        step_idx: usize,
        /// Step start time.
        t: f64,
        /// Solver name.
        solver: String,
        /// Status.
        status: Status,
        /// Merit residual.
        residual: f64,
    },
    /// The state became non-finite.
    #[error("non-finite state at step {step_idx}, t = {t}")]
    NonFinite {
        /// Step index.
        step_idx: usize,
        /// Time.
        t: f64,
    },
    /// An observer stopped the run (e.g. its output could not be written).
    #[error("at step {step_idx}, t = {t}: {message}")]
    Observer {
        /// Step index (0 for the initial state).
        step_idx: usize,
        /// Time.
        t: f64,
        /// The observer's error.
        message: String,
    },
}

/// Statistics of one step.
#[derive(Debug, Clone, PartialEq)]
pub struct StepStats {
    /// Step start time.
    pub t: f64,
    /// Number of contacts in the step's LCP (0 when none was posed).
    pub n_active: usize,
    /// The LCP solve (None when no contact was active). For the exact Coulomb cone
    /// ([`run_stepping_cone`]) the record of the frictional solve: its `residual` is the
    /// Coulomb error of signorini-friction's driver, `n` the number of reactions.
    pub lcp: Option<LcpSolveRecord>,
}

/// A failed solve that the run went past (policy Continue).
#[derive(Debug, Clone, PartialEq)]
pub struct SolverFailure {
    /// Step index.
    pub step_idx: usize,
    /// Step start time.
    pub t: f64,
    /// Status.
    pub status: Status,
    /// Merit residual.
    pub residual: f64,
}

/// Counts over every step of a run, kept whatever the [`Recording`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StepTotals {
    /// Steps taken.
    pub steps: usize,
    /// Steps with an LCP solve.
    pub lcp_solves: usize,
    /// Solver iterations summed over the solves.
    pub iterations: usize,
    /// Solves that did not end `solved` (policy Continue).
    pub solver_failures: usize,
    /// Largest number of contacts in one step's LCP.
    pub max_active: usize,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RunEnd {
    /// Every requested step (or the whole interval) was taken.
    #[default]
    Finished,
    /// The wall-clock limit passed first; the run holds the state reached.
    TimeLimit,
}

impl RunEnd {
    /// `finished` or `time_limit`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunEnd::Finished => "finished",
            RunEnd::TimeLimit => "time_limit",
        }
    }
}

/// The outcome of a time-stepping run (every scheme).
#[derive(Debug, Clone, PartialEq)]
pub struct SteppingRun {
    /// Final time.
    pub t: f64,
    /// Final coordinates.
    pub q: Vec<f64>,
    /// Final velocities.
    pub v: Vec<f64>,
    /// How the run ended.
    pub end: RunEnd,
    /// (t, q, v) every `sample_every` steps (with the initial state).
    pub samples: Vec<Sample>,
    /// Per-step statistics ([`Recording::EveryStep`]; empty otherwise).
    pub steps: Vec<StepStats>,
    /// Failed solves the run went past ([`Recording::EveryStep`]; counted in
    /// [`StepTotals::solver_failures`] either way).
    pub solver_failures: Vec<SolverFailure>,
    /// Counts over every step.
    pub totals: StepTotals,
}

/// One finished step, as an observer sees it, with the step's own evaluations of the model
/// at q_k (so an observer need not evaluate it again).
#[derive(Clone, Copy)]
pub struct StepView<'a> {
    /// Step index k.
    pub step_idx: usize,
    /// Step h.
    pub h: f64,
    /// State at the start of the step (t_k, q_k, v_k; t_k as the previous step ended it).
    pub before: &'a Sample,
    /// State at its end (t_k + h, q_{k+1}, v_{k+1}).
    pub after: &'a Sample,
    /// The step's statistics.
    pub stats: &'a StepStats,
    /// Gaps g(q_k) of every contact of the step.
    pub gaps: &'a [f64],
    /// Identity of every contact of the step (same order as `gaps`): the model's contact
    /// index, or the bodies and feature for a model that finds its contacts at every step.
    pub contact_ids: &'a [ContactId],
    /// The generalised forces f of the step.
    pub forces: &'a [f64],
    /// M(q_k)^-1 f.
    pub free_acceleration: &'a [f64],
    mats: &'a StepMatrices,
}

impl StepView<'_> {
    /// The normal velocities J(q_k) x of every contact.
    pub fn normal_velocities(&self, x: &[f64]) -> Vec<f64> {
        let mut u = self.mats.jv(x);
        u.truncate(self.gaps.len());
        u
    }

    /// M(q_k) x.
    pub fn mass_times(&self, x: &[f64]) -> Vec<f64> {
        self.mats.mass_times(x)
    }
}

/// Sees a run as it goes: the initial state, then every step. An error stops the run with
/// [`SteppingError::Observer`].
pub trait StepObserver {
    /// The initial state.
    fn start(&mut self, state: &Sample) -> Result<(), String> {
        let _ = state;
        Ok(())
    }
    /// A finished step.
    fn step(&mut self, step: &StepView<'_>) -> Result<(), String>;
}

/// An observer that does nothing (of a stepping run, or of a [`crate::Simulation`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoObserver;

impl StepObserver for NoObserver {
    fn step(&mut self, _step: &StepView<'_>) -> Result<(), String> {
        Ok(())
    }
}

/// The scheme of a run and the contact model it steps with.
#[derive(Clone, Copy)]
pub enum TimeStepper<'a> {
    /// Moreau–Jean with Newton's law at velocity level ([`crate::moreau_jean`]).
    MoreauJean(&'a dyn ContactModel, MoreauJean),
    /// Stewart–Trinkle / Anitescu–Potra with Coulomb friction ([`crate::stewart_trinkle`]).
    StewartTrinkle(&'a dyn FrictionModel),
    /// The position-level LCP, no friction ([`crate::position_lcp`]).
    PositionLcp(&'a dyn ContactModel),
}

impl std::fmt::Debug for TimeStepper<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TimeStepper::MoreauJean(_, p) => write!(f, "MoreauJean({p:?})"),
            TimeStepper::StewartTrinkle(_) => write!(f, "StewartTrinkle"),
            TimeStepper::PositionLcp(_) => write!(f, "PositionLcp"),
        }
    }
}

/// What a step hands the scheme to pose its LCP.
pub(crate) struct StepInput<'a> {
    pub(crate) t: f64,
    pub(crate) h: f64,
    /// v_k.
    pub(crate) v: &'a [f64],
    /// v_free = v_k + h M^-1 f.
    pub(crate) v_free: &'a [f64],
    /// g(q_k) of the step's contacts.
    pub(crate) gaps: &'a [f64],
    /// The step's contacts (identities, laws) with M and J.
    pub(crate) set: &'a StepSet,
    pub(crate) mats: &'a StepMatrices,
}

/// One impulse component's identity across steps: (contact identity, component), component
/// 0 the normal impulse and further ones the scheme's own (tangential directions, multiplier).
pub(crate) type ImpulseLabel = (ContactId, usize);

/// The problem of one step: an LCP in impulses (and multipliers), or the exact Coulomb-cone
/// problem in the reactions r.
pub(crate) enum StepProblem {
    /// LCP(A, b) in z; the impulses z[..rows] are clamped at 0.
    Lcp(Lcp),
    /// u = W r + q with r in the cones; r acts along the rows as it is.
    Cone(FcProblem),
}

/// A step's impulse problem as a scheme poses it: the impulses z[..rows] act along `rows`
/// (v += M^-1 J_rows' max(z, 0) for an LCP, v += M^-1 J_rows' r for the cone); further entries
/// are multipliers.
pub(crate) struct ImpulseLcp<'a> {
    pub(crate) rows: ActiveRows<'a>,
    pub(crate) problem: StepProblem,
    /// Contacts in the LCP (reported as [`StepStats::n_active`]).
    pub(crate) n_active: usize,
    /// Identity of every entry of z (for the warm start).
    pub(crate) labels: Vec<ImpulseLabel>,
}

/// A time-stepping scheme: what differs between Moreau–Jean, Stewart–Trinkle and the
/// position-level LCP. The loop is [`run_stepping`].
pub(crate) trait StepScheme {
    /// The contacts (gaps, normal rows, restitution).
    fn contacts(&self) -> &dyn ContactModel;
    /// Checks the scheme's settings and model constants once before the loop.
    fn validate(&self) -> Result<(), SteppingError> {
        Ok(())
    }
    /// The forces of the step from t_k are evaluated at t_k + force_theta h (default 0).
    fn force_theta(&self) -> f64 {
        0.0
    }
    /// q_{k+1} = q_k + h ((1 - theta) v_k + theta v_{k+1}) with this theta (default 1:
    /// semi-implicit Euler).
    fn position_theta(&self) -> f64 {
        1.0
    }
    /// The step's contacts with M(q) and the Jacobian rows the scheme needs at q (default:
    /// the normal rows), from the state (q, v) at time t with step h.
    fn evaluate(
        &self,
        sys: &dyn MechanicalSystem,
        (q, v): (&[f64], &[f64]),
        (t, h): (f64, f64),
    ) -> Result<StepSet, ModelError> {
        let contacts = self.contacts();
        StepSet::evaluate(
            sys,
            (q, v),
            (t, h),
            SetRequest {
                rows: StepRows::Normal,
                rows_per_contact: 1,
                fixed_matrices: || StepMatrices::at(sys, contacts, q, t),
                friction: |_| 0.0,
                contacts,
            },
        )
    }
    /// The step's impulse LCP, or None when no contact takes part.
    fn pose<'m>(&self, step: &StepInput<'m>) -> Result<Option<ImpulseLcp<'m>>, SteppingError>;
}

/// The previous step's impulses by identity ([`WarmStart::PreviousStep`]).
#[derive(Default)]
struct WarmStartMemory {
    previous: HashMap<ImpulseLabel, f64>,
}

impl WarmStartMemory {
    fn initial_point(&self, labels: &[ImpulseLabel]) -> Vec<f64> {
        labels.iter().map(|l| self.previous.get(l).copied().unwrap_or(0.0)).collect()
    }

    fn store(&mut self, labels: &[ImpulseLabel], z: &[f64]) {
        self.previous.clear();
        self.previous.extend(labels.iter().copied().zip(z.iter().copied()));
    }
}

/// The solver of a run: an LCP solver for the LCP schemes, a frictional-contact solver for
/// the exact cone.
#[derive(Clone, Copy)]
enum StepSolver<'a> {
    Lcp(&'a dyn LcpSolver),
    Cone(&'a dyn FcSolver),
}

/// A step's solve as the loop uses it: the impulses along the rows (an LCP's z clamped at 0,
/// or the cone's r as it is), the record (status, iterations, merit) and the solution vector
/// kept for the warm start.
struct Solved {
    impulses: Vec<f64>,
    record: LcpSolveRecord,
    z: Vec<f64>,
}

struct Driver<'a> {
    solver: StepSolver<'a>,
    params: &'a SteppingParams,
    run: SteppingRun,
    warm: Option<WarmStartMemory>,
}

impl Driver<'_> {
    /// Solves one step's LCP (warm-started when asked); a solve that cannot start is a
    /// [`SteppingError::Setup`], one that ends other than `solved` stops the run
    /// ([`OnSolverFailure::Stop`]) or is recorded and its answer used.
    fn solve(
        &mut self,
        posed: &ImpulseLcp<'_>,
        (step_idx, t): (usize, f64),
    ) -> Result<Solved, SteppingError> {
        let z0 = self.warm.as_ref().map(|w| w.initial_point(&posed.labels));
        let setup = |message: String| SteppingError::Setup { t, message };
        let options = &self.params.options;
        let n_rows = posed.rows.len();
        let solved = match (self.solver, &posed.problem) {
            (StepSolver::Lcp(solver), StepProblem::Lcp(lcp)) => {
                let sol =
                    solver.solve(lcp, options, z0.as_deref()).map_err(|e| setup(e.to_string()))?;
                let impulses = sol.z[..n_rows].iter().map(|z| z.max(0.0)).collect();
                Solved { impulses, record: LcpSolveRecord::from_solution(&sol), z: sol.z }
            }
            (StepSolver::Cone(solver), StepProblem::Cone(problem)) => {
                let sol = solver
                    .solve(problem, options, z0.as_deref())
                    .map_err(|e| setup(e.to_string()))?;
                let record = LcpSolveRecord {
                    solver: sol.solver,
                    status: sol.status,
                    n: sol.r.len(),
                    iterations: sol.iterations,
                    pivots: None,
                    residual: sol.error,
                    solve_seconds: sol.solve_seconds,
                };
                Solved { impulses: sol.r.clone(), record, z: sol.r }
            }
            _ => return Err(setup("the step problem and the solver do not match".into())),
        };
        if let Some(w) = &mut self.warm {
            w.store(&posed.labels, &solved.z);
        }
        let r = &solved.record;
        if r.status != Status::Solved {
            match self.params.on_failure {
                OnSolverFailure::Stop => {
                    return Err(SteppingError::SolverFailed {
                        step_idx,
                        t,
                        solver: r.solver.clone(),
                        status: r.status,
                        residual: r.residual,
                    })
                }
                OnSolverFailure::Continue => {
                    self.run.totals.solver_failures += 1;
                    if self.params.recording == Recording::EveryStep {
                        self.run.solver_failures.push(SolverFailure {
                            step_idx,
                            t,
                            status: r.status,
                            residual: r.residual,
                        });
                    }
                }
            }
        }
        Ok(solved)
    }

    fn record(&mut self, stats: &StepStats) {
        let totals = &mut self.run.totals;
        totals.steps += 1;
        totals.max_active = totals.max_active.max(stats.n_active);
        if let Some(l) = &stats.lcp {
            totals.lcp_solves += 1;
            totals.iterations += l.iterations;
        }
        if self.params.recording == Recording::EveryStep {
            self.run.steps.push(stats.clone());
        }
    }
}

/// Runs `n_steps` steps of `stepper` from `start` (the last one ends at t0 + n_steps h; the
/// step is never shortened). `observer` sees the initial state and every step; with
/// [`SteppingParams::time_limit`] the run may end early with [`RunEnd::TimeLimit`].
pub fn run_stepping(
    sys: &dyn MechanicalSystem,
    stepper: TimeStepper<'_>,
    solver: &dyn LcpSolver,
    start: &Sample,
    n_steps: usize,
    params: &SteppingParams,
    observer: &mut dyn StepObserver,
) -> Result<SteppingRun, SteppingError> {
    let (mj, st, pl);
    let scheme: &dyn StepScheme = match stepper {
        TimeStepper::MoreauJean(contacts, p) => {
            mj = crate::moreau_jean::MoreauJeanScheme { contacts, p };
            &mj
        }
        TimeStepper::StewartTrinkle(contacts) => {
            st = crate::stewart_trinkle::StewartTrinkleScheme { contacts };
            &st
        }
        TimeStepper::PositionLcp(contacts) => {
            pl = crate::position_lcp::PositionLcpScheme { contacts };
            &pl
        }
    };
    run_loop(sys, scheme, StepSolver::Lcp(solver), start, n_steps, params, observer)
}

/// Moreau–Jean with the exact Coulomb cone ([`crate::moreau_jean_cone`]): runs `n_steps`
/// steps from `start` like [`run_stepping`], each step's contact problem the signorini-friction
/// [`FcProblem`] of the active contacts in dimension `dimension` (2 or 3; the model's
/// friction directions must be 2 in 2D and 4 in 3D, of which the first d - 1 are the contact
/// frame's tangents), solved by `solver`. The warm start ([`WarmStart::PreviousStep`]) starts
/// each solve from the previous step's reactions, matched by contact identity (components:
/// 0 normal, 1 and 2 the tangents); the failure policy, statistics and observers are those of
/// every stepper.
#[allow(clippy::too_many_arguments)]
pub fn run_stepping_cone(
    sys: &dyn MechanicalSystem,
    contacts: &dyn FrictionModel,
    p: MoreauJean,
    dimension: usize,
    solver: &dyn FcSolver,
    start: &Sample,
    n_steps: usize,
    params: &SteppingParams,
    observer: &mut dyn StepObserver,
) -> Result<SteppingRun, SteppingError> {
    let scheme = crate::moreau_jean_cone::MoreauJeanConeScheme { contacts, p, dimension };
    run_loop(sys, &scheme, StepSolver::Cone(solver), start, n_steps, params, observer)
}

/// The loop shared by every scheme (see the module documentation).
fn run_loop(
    sys: &dyn MechanicalSystem,
    scheme: &dyn StepScheme,
    solver: StepSolver<'_>,
    start: &Sample,
    n_steps: usize,
    params: &SteppingParams,
    observer: &mut dyn StepObserver,
) -> Result<SteppingRun, SteppingError> {
    params.validate()?;
    scheme.validate()?;
    let n = sys.n_dof();
    if start.q.len() != n || start.v.len() != n {
        return Err(SteppingError::Input(format!(
            "q0 has {}, v0 has {} entries, the model has {n} coordinates",
            start.q.len(),
            start.v.len()
        )));
    }
    let h = params.step;
    let (force_theta, theta) = (scheme.force_theta(), scheme.position_theta());
    let keep_every_step = params.recording == Recording::EveryStep;
    let mut d = Driver {
        solver,
        params,
        run: SteppingRun {
            t: start.t,
            q: Vec::new(),
            v: Vec::new(),
            end: RunEnd::Finished,
            samples: if params.sample_every > 0 { vec![start.clone()] } else { Vec::new() },
            steps: if keep_every_step {
                Vec::with_capacity(n_steps.min(1 << 20))
            } else {
                Vec::new()
            },
            solver_failures: Vec::new(),
            totals: StepTotals::default(),
        },
        warm: (params.warm_start == WarmStart::PreviousStep).then(WarmStartMemory::default),
    };
    observer.start(start).map_err(|message| SteppingError::Observer {
        step_idx: 0,
        t: start.t,
        message,
    })?;
    let started = Instant::now();
    let mut before = start.clone();
    let mut after = start.clone();
    for k in 0..n_steps {
        if params.time_limit.is_some_and(|limit| started.elapsed() >= limit) {
            d.run.end = RunEnd::TimeLimit;
            break;
        }
        let t = start.t + k as f64 * h;
        let (q, v) = (&before.q, &before.v);
        let set = scheme.evaluate(sys, (q, v), (t, h))?;
        let (gaps, mats) = (&set.gaps, &set.mats);
        let f = sys.forces(t + force_theta * h, q, v);
        if f.len() != n {
            return Err(ModelError::Dimension(format!("n_dof {n}, forces {}", f.len())).into());
        }
        let minv_f = mats.solve_mass(&f);
        let v_free: Vec<f64> = (0..n).map(|i| v[i] + h * minv_f[i]).collect();
        let mut v_new = v_free.clone();
        let input = StepInput { t, h, v, v_free: &v_free, gaps, set: &set, mats };
        let mut stats = StepStats { t, n_active: 0, lcp: None };
        if let Some(posed) = scheme.pose(&input)? {
            let solved = d.solve(&posed, (k, t))?;
            for (vi, dv) in v_new.iter_mut().zip(posed.rows.impulse_velocity(&solved.impulses)) {
                *vi += dv;
            }
            stats.n_active = posed.n_active;
            stats.lcp = Some(solved.record);
        }
        for (i, qi) in after.q.iter_mut().enumerate() {
            *qi = before.q[i] + h * ((1.0 - theta) * before.v[i] + theta * v_new[i]);
        }
        after.v = v_new;
        after.t = t + h;
        if after.q.iter().chain(&after.v).any(|x| !x.is_finite()) {
            return Err(SteppingError::NonFinite { step_idx: k, t: t + h });
        }
        d.record(&stats);
        let view = StepView {
            step_idx: k,
            h,
            before: &before,
            after: &after,
            stats: &stats,
            gaps,
            contact_ids: &set.ids,
            forces: &f,
            free_acceleration: &minv_f,
            mats,
        };
        observer.step(&view).map_err(|message| SteppingError::Observer {
            step_idx: k + 1,
            t: t + h,
            message,
        })?;
        if params.sample_every > 0 && (k + 1) % params.sample_every == 0 {
            d.run.samples.push(after.clone());
        }
        std::mem::swap(&mut before, &mut after);
    }
    let mut run = d.run;
    run.t = start.t + run.totals.steps as f64 * h;
    run.q = before.q;
    run.v = before.v;
    Ok(run)
}
