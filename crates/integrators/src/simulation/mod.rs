//! A scene and a set of options as one run: [`Simulation`] interprets a scene's simulation
//! keys, picks the scheme ([`Scheme`], parsed from its name), checks the run's size against
//! documented limits ([`SimulationLimits`]: steps, wall-clock time, memory), runs it with any
//! [`LcpSolver`] (or, for Moreau–Jean with the exact Coulomb cone, any
//! [`signorini_friction::FcSolver`]: [`Simulation::run_cone`]), streams every sample to a [`SimulationObserver`] and returns a bounded
//! summary ([`SimulationOutcome`]: impacts, solves, failures, the final state). The CLI's
//! `signorini simulate`, the verification suite and the benches all run scenes through it.
//!
//! - [`scheme`]: [`Scheme`] and [`PenaltyIntegrator`] by name, [`ImpactSettings`] from the
//!   scene's `material.impact_law` / `material.impact`.
//! - [`impacts`]: how each family of schemes reports impacts ([`SteppedImpactDetection`]).
//! - [`budget`]: the memory estimates checked before a run ([`BudgetExceeded`]).
//! - [`columns`]: a sample as named values (the CSV header of `signorini simulate --out`) and
//!   a run kept in columns ([`SampleColumns`], [`Simulation::run_to_columns`]).

pub mod budget;
pub mod columns;
pub mod impacts;
pub mod scheme;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use signorini_contact::{BodyKind, ContactError, Dimension, Scene, SceneError};
use signorini_friction::FcSolver;
use signorini_impact::ImpactLaw;
use signorini_lcp::{LcpSolver, SolveOptions, Status};

use crate::event_driven::{simulate_event_driven_observed, EventDrivenError, EventDrivenParams};
use crate::impact_support::{check_impact_support, SchemeKind, UnsupportedImpact};
use crate::moreau_jean::MoreauJean;
use crate::moreau_jean_cone::cone_directions;
use crate::scene_model::{PenaltyScene, SceneModel, DEFAULT_STEP_CONTACT_MARGIN};
use crate::smooth::IntegratorError;
use crate::stepping::{
    run_stepping, run_stepping_cone, OnSolverFailure, Recording, RunEnd, Sample, StepObserver,
    StepView, SteppingError, SteppingParams, SteppingRun, TimeStepper, WarmStart,
};

pub use budget::{fmt_bytes, BudgetExceeded, DEFAULT_MEMORY_LIMIT};
pub use columns::SampleColumns;
pub use impacts::{
    ImpactEvent, Listed, SteppedImpactDetection, DEFAULT_APPROACH_SPEED, DEFAULT_GAP_SLACK,
    DEFAULT_JUMP_FACTOR, DEFAULT_JUMP_SLACK, MAX_LISTED,
};
pub use scheme::{ImpactSettings, PenaltyIntegrator, SceneKeyError, Scheme, UnknownScheme};

use budget::{Budget, StepContactCounts};
use impacts::{contact_names, Episodes, SteppedImpacts};

/// The default limit on the number of steps of a run: 10^7.
pub const DEFAULT_MAX_STEPS: usize = 10_000_000;

/// The most friction-cone directions per contact a 3D Stewart–Trinkle run takes (2D takes 2).
pub const MAX_FRICTION_DIRECTIONS: usize = 256;

/// How far a run may go: it is refused before it starts when it would need more steps or
/// memory than this, and stops (with [`RunEnd::TimeLimit`]) once its wall-clock time passes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimulationLimits {
    /// Most steps (time steps, flight steps or integrator steps) a run may take: t_end / h
    /// beyond it is refused (default [`DEFAULT_MAX_STEPS`]).
    pub max_steps: usize,
    /// Wall-clock limit of the run (default none).
    pub time_limit: Option<Duration>,
    /// Budget in bytes for the data sized from the scene and options (default
    /// [`DEFAULT_MEMORY_LIMIT`], 4 GiB).
    pub memory_bytes: u64,
}

impl Default for SimulationLimits {
    fn default() -> Self {
        Self { max_steps: DEFAULT_MAX_STEPS, time_limit: None, memory_bytes: DEFAULT_MEMORY_LIMIT }
    }
}

/// Which pairs of bodies are contact candidates.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum Candidates {
    /// The default: the time steppers (moreau-jean, stewart-trinkle, position-lcp) find each
    /// step's contacts with the grid broad phase at that step
    /// ([`SceneModel::with_step_broad_phase`], margin the larger of
    /// [`crate::scene_model::DEFAULT_STEP_CONTACT_MARGIN`] and the impact report's gap slack):
    /// data linear in bodies and contacts, and for Moreau–Jean exactly the steps of
    /// [`Candidates::AllPairs`]. The event-driven and penalty schemes take every pair.
    #[default]
    Auto,
    /// Every pair of bodies that are not both fixed, fixed for the run: exact whatever the
    /// motion, and quadratic in the number of bodies.
    AllPairs,
    /// The pairs whose bounding boxes are within this distance in the initial state, fixed for
    /// the run (the contact crate's grid broad phase, near linear in the number of bodies):
    /// exact as long as no two bodies that start further apart meet during the run.
    WithinDistance(f64),
}

/// The friction law of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FrictionLaw {
    /// The scheme's own (default): none for moreau-jean and position-lcp, the polyhedral cone
    /// of [`SimulationOptions::friction_directions`] for stewart-trinkle, none for the
    /// event-driven and penalty schemes.
    #[default]
    Scheme,
    /// Coulomb's law on the exact cone with the scene's `material.friction` (moreau-jean
    /// only): each step's contact problem is a signorini-friction problem, run with
    /// [`Simulation::run_cone`] and any [`FcSolver`].
    Cone,
}

impl FrictionLaw {
    /// `scheme` or `cone`.
    pub fn as_str(self) -> &'static str {
        match self {
            FrictionLaw::Scheme => "scheme",
            FrictionLaw::Cone => "cone",
        }
    }
}

/// What to run and how far.
#[derive(Debug, Clone)]
pub struct SimulationOptions {
    /// The scheme.
    pub scheme: Scheme,
    /// Final time T (> 0; the run starts at 0).
    pub t_end: f64,
    /// Step h (event-driven: the step of its RK4 flight integrator); default
    /// [`Scheme::default_step`].
    pub step: Option<f64>,
    /// Moreau–Jean theta in [0, 1] (default 1/2); moreau-jean only.
    pub theta: Option<f64>,
    /// Friction-cone directions k per contact (2D: 2, the default; 3D: 3 to
    /// [`MAX_FRICTION_DIRECTIONS`], default 4); stewart-trinkle only.
    pub friction_directions: Option<usize>,
    /// The friction law (default [`FrictionLaw::Scheme`]; [`FrictionLaw::Cone`] with
    /// moreau-jean only, without `friction_directions`).
    pub friction: FrictionLaw,
    /// Warm start of each step's LCP or frictional solve (time steppers; default off).
    pub warm_start: WarmStart,
    /// Options of every LCP solve (tolerance, iteration and time limits of one solve).
    pub solve: SolveOptions,
    /// The contact candidates (default [`Candidates::Auto`]).
    pub candidates: Candidates,
    /// Thresholds of the time steppers' impact report.
    pub impact_detection: SteppedImpactDetection,
    /// Steps, time and memory.
    pub limits: SimulationLimits,
}

impl SimulationOptions {
    /// `scheme` to `t_end` with every other option at its default.
    pub fn new(scheme: Scheme, t_end: f64) -> Self {
        Self {
            scheme,
            t_end,
            step: None,
            theta: None,
            friction_directions: None,
            friction: FrictionLaw::Scheme,
            warm_start: WarmStart::Off,
            solve: SolveOptions::default(),
            candidates: Candidates::Auto,
            impact_detection: SteppedImpactDetection::default(),
            limits: SimulationLimits::default(),
        }
    }
}

/// Why a simulation could not be set up or stopped early.
#[derive(Debug, thiserror::Error)]
pub enum SimulationError {
    /// The scene file of [`Simulation::from_path`] could not be read or is invalid.
    #[error("{}", source.naming(path))]
    Scene {
        /// The file.
        path: PathBuf,
        /// Why.
        source: SceneError,
    },
    /// An option is out of range or does not apply to the scheme.
    #[error("{option} = {value}: {reason}")]
    Option {
        /// The option's name in [`SimulationOptions`] (`t_end`, `step`, ...).
        option: &'static str,
        /// Its value as given.
        value: String,
        /// What is wrong and what is valid.
        reason: String,
    },
    /// The run would take more steps than [`SimulationLimits::max_steps`].
    #[error(
        "t_end / step = {steps:.3e} steps, more than the limit of {max_steps} (max steps): use a \
         longer step or a shorter t_end, or raise the limit"
    )]
    TooManySteps {
        /// t_end / h.
        steps: f64,
        /// The limit.
        max_steps: usize,
    },
    /// The run would need more memory than [`SimulationLimits::memory_bytes`].
    #[error(transparent)]
    Memory(#[from] BudgetExceeded),
    /// A scene impact key holds an unknown value.
    #[error(transparent)]
    SceneKey(#[from] SceneKeyError),
    /// The scheme does not implement the scene's impact law or mode.
    #[error(transparent)]
    Unsupported(#[from] UnsupportedImpact),
    /// A penalty scheme on a scene without `material.stiffness`.
    #[error("key `material.stiffness`: required by penalty schemes")]
    MissingStiffness,
    /// The scene could not become a model (a pair of shapes without a narrow phase).
    #[error(transparent)]
    Model(#[from] ContactError),
    /// A time stepper stopped.
    #[error("{scheme}: {source}")]
    Stepping {
        /// The scheme.
        scheme: Scheme,
        /// Why.
        source: SteppingError,
    },
    /// The event-driven scheme stopped.
    #[error("{scheme}: {source}")]
    EventDriven {
        /// The scheme.
        scheme: Scheme,
        /// Why.
        source: EventDrivenError,
    },
    /// A penalty integrator stopped.
    #[error("{scheme}: {source}")]
    Penalty {
        /// The scheme.
        scheme: Scheme,
        /// Why.
        source: IntegratorError,
    },
    /// The observer refused a sample (e.g. the output could not be written).
    #[error("{message} (at t = {t})")]
    Output {
        /// Time of the sample.
        t: f64,
        /// The observer's error.
        message: String,
    },
}

/// A solve inside the run that did not end `solved` (the run went on with its answer).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FailedSolve {
    /// Time (start of the step).
    pub t: f64,
    /// Its status.
    pub status: Status,
}

/// What a run produced besides its samples: bounded whatever the number of steps.
#[derive(Debug, Clone, PartialEq)]
pub struct SimulationOutcome {
    /// Steps taken (event-driven: samples after the initial one).
    pub steps: usize,
    /// The final state (the last sample).
    pub end: Sample,
    /// Whether the run reached t_end or stopped at the time limit.
    pub finished: RunEnd,
    /// Impacts ([`impacts`] says what counts as one per scheme).
    pub impacts: Listed<ImpactEvent>,
    /// LCP solves (with the exact cone: frictional solves).
    pub lcp_solves: usize,
    /// Solver iterations summed over the solves of a time stepper (0 for the event-driven
    /// and penalty schemes).
    pub solver_iterations: usize,
    /// Solves that did not end `solved`.
    pub solver_failures: Listed<FailedSolve>,
    /// Remarks on the scene and scheme (e.g. a restitution the scheme cannot honour).
    pub notes: Vec<String>,
}

/// Receives a run's samples as they are produced: the initial state, then one per step or
/// event.
pub trait SimulationObserver {
    /// One sample; an error stops the run with [`SimulationError::Output`].
    fn sample(&mut self, sample: &Sample) -> Result<(), String>;
    /// Progress, every few steps.
    fn progress(&mut self, done: usize, total: usize) {
        let _ = (done, total);
    }
}

/// Keeps no samples (a run checked by its outcome alone, a benchmark).
impl SimulationObserver for crate::stepping::NoObserver {
    fn sample(&mut self, _sample: &Sample) -> Result<(), String> {
        Ok(())
    }
}

/// One non-fixed body's state by coordinate name: x, y[, z], angle (2D) or qw, qx, qy, qz
/// (3D), vx, vy[, vz], omega (2D) or wx, wy, wz (3D).
#[derive(Debug, Clone, PartialEq)]
pub struct BodyState {
    /// The body's name.
    pub name: String,
    /// (coordinate, value) in the order above.
    pub columns: Vec<(&'static str, f64)>,
}

/// A scene set up for one run (see the module documentation).
#[derive(Debug, Clone)]
pub struct Simulation {
    model: SceneModel,
    options: SimulationOptions,
    impact: ImpactSettings,
    step: f64,
    n_steps: usize,
    notes: Vec<String>,
}

/// A number as a user would type it: plain in [1e-4, 1e6), else with an exponent.
fn fmt_num(x: f64) -> String {
    if x == 0.0 || (1e-4..1e6).contains(&x.abs()) {
        x.to_string()
    } else {
        format!("{x:e}")
    }
}

fn invalid(option: &'static str, value: String, reason: &str) -> SimulationError {
    SimulationError::Option { option, value, reason: reason.to_owned() }
}

/// A ratio t_end / h within this of an integer counts as that integer when the steps are
/// counted, so that round-off in the division (0.07 / 0.01 = 7.000000000000001) adds no step.
pub const STEP_COUNT_ROUNDING: f64 = 1e-9;

/// Observers hear of the progress every this many steps (or samples).
pub const PROGRESS_EVERY: usize = 256;

/// n = ceil(t_end / h) steps (the last one ends at or after t_end by less than h), refused
/// beyond `max_steps`.
fn step_count(t_end: f64, h: f64, max_steps: usize) -> Result<usize, SimulationError> {
    let steps = (t_end / h - STEP_COUNT_ROUNDING).ceil().max(1.0);
    if !(steps.is_finite() && steps <= max_steps as f64) {
        return Err(SimulationError::TooManySteps { steps: t_end / h, max_steps });
    }
    Ok(steps as usize)
}

impl Simulation {
    /// Checks the options against the scene and the limits and builds the model; nothing is
    /// run yet.
    pub fn new(scene: Scene, options: SimulationOptions) -> Result<Self, SimulationError> {
        let o = &options;
        let scheme = o.scheme;
        if !(o.t_end.is_finite() && o.t_end > 0.0) {
            return Err(invalid("t_end", fmt_num(o.t_end), "must be a finite number > 0"));
        }
        if let Some(h) = o.step {
            if !(h.is_finite() && h > 0.0) {
                return Err(invalid("step", fmt_num(h), "must be a finite number > 0"));
            }
        }
        if let Some(theta) = o.theta {
            if scheme != Scheme::MoreauJean {
                return Err(invalid("theta", fmt_num(theta), &format!("{scheme} has no theta")));
            }
            if !(0.0..=1.0).contains(&theta) {
                return Err(invalid("theta", fmt_num(theta), "must lie in [0, 1]"));
            }
        }
        if o.friction == FrictionLaw::Cone {
            if scheme != Scheme::MoreauJean {
                return Err(invalid(
                    "friction",
                    "cone".into(),
                    &format!("the exact cone is for moreau-jean, not {scheme}"),
                ));
            }
            if let Some(k) = o.friction_directions {
                return Err(invalid(
                    "friction_directions",
                    k.to_string(),
                    "the exact cone (friction = cone) has no directions; they belong to \
                     stewart-trinkle's polyhedral cone",
                ));
            }
        }
        if let Some(k) = o.friction_directions {
            if scheme != Scheme::StewartTrinkle {
                return Err(invalid(
                    "friction_directions",
                    k.to_string(),
                    &format!("{scheme} has no friction cone (stewart-trinkle has)"),
                ));
            }
            let ok = match scene.dimension {
                Dimension::Two => k == 2,
                Dimension::Three => (3..=MAX_FRICTION_DIRECTIONS).contains(&k),
            };
            if !ok {
                return Err(invalid(
                    "friction_directions",
                    k.to_string(),
                    &format!("must be 2 in 2D and from 3 to {MAX_FRICTION_DIRECTIONS} in 3D"),
                ));
            }
        }
        if let Candidates::WithinDistance(d) = o.candidates {
            if !(d.is_finite() && d >= 0.0) {
                return Err(invalid(
                    "candidate_distance",
                    fmt_num(d),
                    "must be a finite number >= 0",
                ));
            }
        }
        if o.limits.max_steps == 0 {
            return Err(invalid("max_steps", "0".into(), "must be at least 1"));
        }
        if o.limits.memory_bytes == 0 {
            return Err(invalid("memory_bytes", "0".into(), "must be at least 1"));
        }
        if let Some((name, x)) = o.impact_detection.invalid() {
            return Err(invalid(name, fmt_num(x), "must be a finite number >= 0"));
        }
        let impact = ImpactSettings::from_material(&scene.material)?;
        check_impact_support(scheme.kind(), impact.law, impact.mode)?;
        let notes = notes(scheme, impact, scene.material.restitution);
        let step = o.step.unwrap_or_else(|| scheme.default_step());
        let n_steps = step_count(o.t_end, step, o.limits.max_steps)?;
        if let Scheme::Penalty(_) = scheme {
            if scene.material.stiffness.is_none() {
                return Err(SimulationError::MissingStiffness);
            }
        }
        let budget = Budget { limit: o.limits.memory_bytes };
        let per_step = o.candidates == Candidates::Auto
            && matches!(scheme, Scheme::MoreauJean | Scheme::StewartTrinkle | Scheme::PositionLcp);
        let mut model = match o.candidates {
            Candidates::Auto if per_step => {
                let margin = DEFAULT_STEP_CONTACT_MARGIN.max(o.impact_detection.gap_slack);
                SceneModel::with_step_broad_phase(scene, margin)?
            }
            Candidates::Auto | Candidates::AllPairs => {
                let n_fixed = scene.bodies.iter().filter(|b| b.kind == BodyKind::Fixed).count();
                budget.check_candidate_pairs(scene.bodies.len(), n_fixed)?;
                SceneModel::new(scene)?
            }
            Candidates::WithinDistance(d) => SceneModel::with_candidate_distance(scene, d)?,
        };
        if impact.law == ImpactLaw::Inelastic {
            model.set_restitution(0.0);
        }
        if let Some(k) = o.friction_directions {
            model.set_friction_directions(k);
        }
        let cone = o.friction == FrictionLaw::Cone;
        if cone {
            if let Some(k) = cone_directions(model.scene().dimension.as_usize()) {
                model.set_friction_directions(k);
            }
        }
        let step_contacts = || -> Result<StepContactCounts, SimulationError> {
            match model.initial_step_contacts_per_body(step) {
                Some(count) => {
                    let count = count?;
                    let n_c = count.iter().map(|&c| c as u128).sum::<u128>() / 2;
                    Ok(StepContactCounts::from_per_body(&model, n_c, &count))
                }
                None => Ok(StepContactCounts::fixed(&model)),
            }
        };
        match scheme {
            Scheme::MoreauJean if cone => {
                use crate::stewart_trinkle::FrictionModel as _;
                budget.check_stepping(&step_contacts()?, 1 + model.n_directions(), 0)?
            }
            Scheme::MoreauJean | Scheme::PositionLcp => {
                budget.check_stepping(&step_contacts()?, 1, 0)?
            }
            Scheme::StewartTrinkle => {
                use crate::stewart_trinkle::FrictionModel as _;
                budget.check_stepping(&step_contacts()?, 1 + model.n_directions(), 1)?
            }
            Scheme::EventDriven => budget.check_event_driven(&model)?,
            Scheme::Penalty(_) => budget.check_penalty(&model)?,
        }
        Ok(Self { model, options, impact, step, n_steps, notes })
    }

    /// Reads a `.toml` or `.json` scene file and sets it up as [`Simulation::new`] does.
    pub fn from_path(
        path: impl AsRef<Path>,
        options: SimulationOptions,
    ) -> Result<Self, SimulationError> {
        let path = path.as_ref();
        let scene = Scene::from_path(path)
            .map_err(|source| SimulationError::Scene { path: path.to_owned(), source })?;
        Self::new(scene, options)
    }

    /// The scene as a model (coordinates, contacts).
    pub fn model(&self) -> &SceneModel {
        &self.model
    }

    /// The options as given.
    pub fn options(&self) -> &SimulationOptions {
        &self.options
    }

    /// The scene's impact law and mode.
    pub fn impact(&self) -> ImpactSettings {
        self.impact
    }

    /// The step h in use (given or the scheme's default).
    pub fn step(&self) -> f64 {
        self.step
    }

    /// Steps the run takes to t_end (event-driven: flight steps without events).
    pub fn n_steps(&self) -> usize {
        self.n_steps
    }

    /// Remarks on the scene and scheme.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Every non-fixed body's state at (q, v).
    pub fn body_states(&self, q: &[f64], v: &[f64]) -> Vec<BodyState> {
        let dim = self.model.scene().dimension;
        let d = dim.as_usize();
        let axes = ["x", "y", "z"];
        let rates = ["vx", "vy", "vz"];
        self.model
            .bodies_at(q, v)
            .into_iter()
            .filter(|b| b.kind != BodyKind::Fixed)
            .map(|b| {
                let mut columns: Vec<(&'static str, f64)> =
                    axes.iter().copied().zip(b.position).take(d).collect();
                let [qw, qx, qy, qz] = b.orientation.0;
                match dim {
                    Dimension::Two => columns.push(("angle", 2.0 * qz.atan2(qw))),
                    Dimension::Three => {
                        columns.extend([("qw", qw), ("qx", qx), ("qy", qy), ("qz", qz)])
                    }
                }
                columns.extend(rates.iter().copied().zip(b.velocity).take(d));
                match dim {
                    Dimension::Two => columns.push(("omega", b.angular_velocity[2])),
                    Dimension::Three => {
                        columns.extend(["wx", "wy", "wz"].iter().copied().zip(b.angular_velocity))
                    }
                }
                BodyState { name: b.name, columns }
            })
            .collect()
    }

    /// The Moreau–Jean settings of the run (theta given or 1/2).
    fn moreau_jean(&self) -> MoreauJean {
        let theta = self.options.theta.unwrap_or(MoreauJean::default().theta);
        MoreauJean { theta, ..MoreauJean::default() }
    }

    /// The error of a run started with the wrong kind of solver for its friction law.
    fn wrong_solver(&self, reason: &str) -> SimulationError {
        invalid("friction", self.options.friction.as_str().into(), reason)
    }

    /// Runs the simulation with `solver`, handing every sample to `observer`. A run with
    /// [`FrictionLaw::Cone`] needs a frictional-contact solver ([`Simulation::run_cone`]) and
    /// is refused here.
    pub fn run(
        &self,
        solver: &dyn LcpSolver,
        observer: &mut dyn SimulationObserver,
    ) -> Result<SimulationOutcome, SimulationError> {
        if self.options.friction == FrictionLaw::Cone {
            return Err(self.wrong_solver(
                "the exact cone is solved by a frictional-contact solver (Simulation::run_cone)",
            ));
        }
        let (q, v) = self.model.initial_state();
        let start = Sample { t: 0.0, q, v };
        let model = &self.model;
        let stepper = match self.options.scheme {
            Scheme::MoreauJean => TimeStepper::MoreauJean(model, self.moreau_jean()),
            Scheme::StewartTrinkle => TimeStepper::StewartTrinkle(model),
            Scheme::PositionLcp => TimeStepper::PositionLcp(model),
            Scheme::EventDriven => return self.run_event_driven(solver, start, observer),
            Scheme::Penalty(integrator) => return self.run_penalty(integrator, start, observer),
        };
        let (n, params) = (self.n_steps, self.stepping_params());
        let go = |forward: &mut dyn StepObserver, start: &Sample| {
            run_stepping(model, stepper, solver, start, n, &params, forward)
        };
        self.run_stepping(go, start, observer)
    }

    /// Runs a moreau-jean simulation with [`FrictionLaw::Cone`]: each step's contact problem
    /// is the exact Coulomb-cone problem of its active contacts, solved by `solver`
    /// ([`crate::moreau_jean_cone`]); samples go to `observer`. Other runs are refused here
    /// ([`Simulation::run`] takes an LCP solver).
    pub fn run_cone(
        &self,
        solver: &dyn FcSolver,
        observer: &mut dyn SimulationObserver,
    ) -> Result<SimulationOutcome, SimulationError> {
        if self.options.friction != FrictionLaw::Cone || self.options.scheme != Scheme::MoreauJean {
            return Err(self.wrong_solver(
                "a frictional-contact solver runs moreau-jean with friction = cone only",
            ));
        }
        let (q, v) = self.model.initial_state();
        let start = Sample { t: 0.0, q, v };
        let model = &self.model;
        let dim = model.scene().dimension.as_usize();
        let (n, params, mj) = (self.n_steps, self.stepping_params(), self.moreau_jean());
        let go = |forward: &mut dyn StepObserver, start: &Sample| {
            run_stepping_cone(model, model, mj, dim, solver, start, n, &params, forward)
        };
        self.run_stepping(go, start, observer)
    }

    fn outcome(&self, steps: usize, end: Sample, finished: RunEnd) -> SimulationOutcome {
        SimulationOutcome {
            steps,
            end,
            finished,
            impacts: Listed::default(),
            lcp_solves: 0,
            solver_iterations: 0,
            solver_failures: Listed::default(),
            notes: self.notes.clone(),
        }
    }

    /// The stepping loop's settings of a run.
    fn stepping_params(&self) -> SteppingParams {
        let o = &self.options;
        let mut params = SteppingParams::with_step(self.step);
        params.on_failure = OnSolverFailure::Continue;
        params.sample_every = 0;
        params.recording = Recording::TotalsOnly;
        params.warm_start = o.warm_start;
        params.time_limit = o.limits.time_limit;
        params.options = o.solve.clone();
        params
    }

    /// Runs a time stepper (`go`, given the forwarding observer and the start) and collects
    /// its outcome.
    fn run_stepping(
        &self,
        go: impl FnOnce(&mut dyn StepObserver, &Sample) -> Result<SteppingRun, SteppingError>,
        start: Sample,
        observer: &mut dyn SimulationObserver,
    ) -> Result<SimulationOutcome, SimulationError> {
        let o = &self.options;
        let model = &self.model;
        let mut forward = Forward {
            observer,
            impacts: SteppedImpacts::new(model, o.impact_detection),
            failures: Listed::default(),
            last_t: start.t,
            total: self.n_steps,
        };
        let run = go(&mut forward, &start).map_err(|source| match source {
            SteppingError::Observer { t, message, .. } => SimulationError::Output { t, message },
            source => SimulationError::Stepping { scheme: o.scheme, source },
        })?;
        let end = Sample { t: forward.last_t, q: run.q, v: run.v };
        Ok(SimulationOutcome {
            impacts: forward.impacts.found,
            lcp_solves: run.totals.lcp_solves,
            solver_iterations: run.totals.iterations,
            solver_failures: forward.failures,
            ..self.outcome(run.totals.steps, end, run.end)
        })
    }

    fn run_event_driven(
        &self,
        solver: &dyn LcpSolver,
        start: Sample,
        observer: &mut dyn SimulationObserver,
    ) -> Result<SimulationOutcome, SimulationError> {
        let o = &self.options;
        let model = &self.model;
        let params = EventDrivenParams {
            flight: crate::event_driven::Flight::Integrator {
                scheme: Arc::new(crate::smooth::Rk4),
                step: self.step,
            },
            law: self.impact.law,
            mode: self.impact.mode,
            time_limit: o.limits.time_limit,
            recording: Recording::TotalsOnly,
            options: o.solve.clone(),
            ..EventDrivenParams::default()
        };
        let (mut samples, total, t_end) = (0usize, self.n_steps, o.t_end);
        let mut sink = |s: &Sample| {
            if samples.is_multiple_of(PROGRESS_EVERY) {
                observer.progress(((s.t / t_end) * total as f64) as usize, total);
            }
            samples += 1;
            observer.sample(s)
        };
        let run =
            simulate_event_driven_observed(model, model, solver, &start, t_end, &params, &mut sink)
                .map_err(|source| match source {
                    EventDrivenError::Output { t, message } => {
                        SimulationError::Output { t, message }
                    }
                    source => SimulationError::EventDriven { scheme: o.scheme, source },
                })?;
        let names = contact_names(model);
        let mut impacts = Listed::default();
        for r in &run.impacts {
            let mut bodies: Vec<String> =
                r.contacts.iter().flat_map(|&i| names[i].iter().cloned()).collect();
            bodies.dedup();
            impacts.push(ImpactEvent {
                t: r.t,
                bodies,
                impulse: r.impulse.iter().map(|p| p * p).sum::<f64>().sqrt(),
                energy_before: r.energy_before,
                energy_after: r.energy_after,
                separated: None,
                t_separation: None,
            });
        }
        let mut solver_failures = Listed::default();
        for (t, r) in &run.lcp_failures {
            solver_failures.push(FailedSolve { t: *t, status: r.status });
        }
        Ok(SimulationOutcome {
            impacts,
            lcp_solves: run.lcp_solve_count,
            solver_failures,
            ..self.outcome(samples.saturating_sub(1), run.end, run.finished)
        })
    }

    fn run_penalty(
        &self,
        integrator: PenaltyIntegrator,
        start: Sample,
        observer: &mut dyn SimulationObserver,
    ) -> Result<SimulationOutcome, SimulationError> {
        let material = &self.model.scene().material;
        let stiffness = material.stiffness.ok_or(SimulationError::MissingStiffness)?;
        let sys = PenaltyScene { model: self.model.clone(), stiffness, damping: material.damping };
        let scheme = integrator.integrator();
        let h = self.step;
        let output = |t: f64| move |message| SimulationError::Output { t, message };
        observer.sample(&start).map_err(output(start.t))?;
        let mut episodes = Episodes::new(&sys, &start);
        let mut state = start;
        let (mut steps, mut finished) = (0, RunEnd::Finished);
        let started = Instant::now();
        for k in 0..self.n_steps {
            if self.options.limits.time_limit.is_some_and(|l| started.elapsed() >= l) {
                finished = RunEnd::TimeLimit;
                break;
            }
            let t = k as f64 * h;
            scheme.step(&sys, t, h, &mut state.q, &mut state.v).map_err(|source| {
                SimulationError::Penalty { scheme: self.options.scheme, source }
            })?;
            state.t = (k + 1) as f64 * h;
            episodes.advance(&state);
            observer.sample(&state).map_err(output(state.t))?;
            steps += 1;
            if k.is_multiple_of(PROGRESS_EVERY) {
                observer.progress(k, self.n_steps);
            }
        }
        Ok(SimulationOutcome { impacts: episodes.finish(), ..self.outcome(steps, state, finished) })
    }
}

/// Remarks on a restitution the scheme does not use.
fn notes(scheme: Scheme, impact: ImpactSettings, e: f64) -> Vec<String> {
    let kind = scheme.kind();
    let mut notes = Vec::new();
    if kind.is_inelastic_by_construction() && impact.law == ImpactLaw::Newton && e > 0.0 {
        notes.push(format!(
            "{scheme} is perfectly inelastic by construction (next-gap constraint): \
             material.restitution = {e} has no effect"
        ));
    }
    if kind == SchemeKind::Penalty && impact.law_given && e > 0.0 {
        notes.push(format!(
            "{scheme}: the penalty law (material.stiffness, material.damping) decides the \
             rebound; material.restitution = {e} has no effect"
        ));
    }
    notes
}

/// Forwards a time stepper's states to the simulation's observer and collects impacts and
/// failed solves.
struct Forward<'a, 'm> {
    observer: &'a mut dyn SimulationObserver,
    impacts: SteppedImpacts<'m>,
    failures: Listed<FailedSolve>,
    last_t: f64,
    total: usize,
}

impl StepObserver for Forward<'_, '_> {
    fn start(&mut self, state: &Sample) -> Result<(), String> {
        self.observer.sample(state)
    }

    fn step(&mut self, step: &StepView<'_>) -> Result<(), String> {
        if let Some(lcp) = &step.stats.lcp {
            if lcp.status != Status::Solved {
                self.failures.push(FailedSolve { t: step.stats.t, status: lcp.status });
            }
        }
        self.impacts.step(step);
        self.last_t = step.after.t;
        if step.step_idx.is_multiple_of(PROGRESS_EVERY) {
            self.observer.progress(step.step_idx, self.total);
        }
        self.observer.sample(step.after)
    }
}
