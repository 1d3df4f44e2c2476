//! `signorini simulate SCENE --scheme SCHEME --t-end T`: argument parsing and output around
//! [`Simulation`] (signorini-integrators), which reads the scene's simulation keys, checks the
//! run against its limits and runs the scheme. This module streams the samples to the CSV file
//! (`--out`, RFC 4180) as they are produced — under a temporary name beside it, renamed when
//! the run ends, so a killed or failed run leaves no truncated file (issue 14 §4) — draws the
//! progress bar, and prints the bounded JSON or text summary. With `--friction cone`
//! (moreau-jean only) each step's contact problem is the exact Coulomb cone, solved by a
//! signorini-friction solver by name ([`Simulation::run_cone`]), warm-started by default; with
//! `--compare-cold` the same run is repeated cold to report the iterations the warm start saved.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, IsTerminal};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{json, Value};
use signorini_friction::FcRegistry;
use signorini_integrators::simulation::{fmt_bytes, Candidates, DEFAULT_MAX_STEPS, MAX_LISTED};
use signorini_integrators::{
    FrictionLaw, ImpactEvent, NoObserver, RunEnd, Sample, Scheme, Simulation, SimulationError,
    SimulationObserver, SimulationOptions, SimulationOutcome, WarmStart,
};

use crate::error::CliError;
use crate::solve::build_solver;
use crate::Done;

/// Shown under the command's `--help`.
const SIMULATE_HELP: &str = "\
JSON output (--json), one object:
  steps, end (finished | time_limit), impacts ([{t, bodies, impulse, energy_before,
  energy_after}], penalty episodes add separated, t_separation; the first 10000),
  impacts_total, lcp_solves, solver_failures ([{t, status}], the first 10000),
  solver_failures_total, final_state ({t, bodies: {name: {x, y, ..., vx, vy, ...}}}), notes;
  with --friction cone also friction (\"cone\"), warm_start (off | previous-step) and
  solver_iterations (summed over the steps' frictional solves), and with --compare-cold
  solver_iterations_cold, solver_failures_cold_total and iterations_saved_by_warm_start
  (solver_iterations_cold - solver_iterations; the cold run is the same run with
  --warm-start off)
CSV (--out FILE): RFC 4180; column t, then <body>.<coordinate> for every free body; one row
  per step (event-driven: per flight step and event), streamed to a temporary file beside FILE
  and renamed to FILE when the run ends (also at --time-limit); after an error no file is left.

Limits (checked before the run starts):
  steps      --t-end / --step at most --max-steps (default 10000000)
  memory     the contacts, Jacobian rows and step LCP the scene and options ask for at most
             --memory-limit GiB (default 4). Contacts: the time steppers find each step's
             contacts with a grid broad phase (linear in bodies and contacts; moreau-jean takes
             exactly the steps of --all-pairs), event-driven and penalty take every pair;
             --all-pairs makes every pair a candidate for the whole run (quadratic), and
             --candidate-distance D keeps the pairs within D in the initial state
  friction   --friction-directions 2 in 2D, 3 to 256 in 3D (stewart-trinkle only)
  time       --time-limit SECONDS stops the run where it is (end = time_limit, exit 1)

Friction with the exact cone (--friction cone, moreau-jean only): each step's contact
  problem is the Coulomb-cone problem of signorini fc (De Saxce's form) over the active
  contacts, normal and tangential rows in each contact's frame, W = H M^-1 H', q = H v_free
  plus Newton's restitution on the normal rows, mu = material.friction; --solver is then a
  frictional-contact solver spec (auto, nsgs, newton-ac, admm, ...; default auto), and each
  solve starts from the previous step's reactions, contacts matched by bodies and feature
  (--warm-start off to start cold). --friction-directions does not apply.

Exit codes:
  0  the run finished and every step's LCP was solved
  1  the run finished but some step's solve did not end solved (see solver_failures), or it
     stopped at --time-limit
  2  bad input or usage, or an output that cannot be written: one line on stderr naming the
     file, the line and key where known
  3  internal error (a bug in signorini): one line on stderr; please report it";

/// Arguments of `signorini simulate`.
#[derive(Debug, clap::Args)]
#[command(after_help = SIMULATE_HELP)]
pub struct SimulateArgs {
    /// Scene file (.toml or .json).
    pub scene: PathBuf,
    /// Scheme: moreau-jean, stewart-trinkle, position-lcp, event-driven or penalty:INTEGRATOR
    /// (explicit-euler, symplectic-euler, verlet, rk4, implicit-euler, implicit-midpoint).
    #[arg(long)]
    pub scheme: String,
    /// Time step h (event-driven: the step of its RK4 flight integrator). Default 1e-3
    /// (penalty: 1e-5; event-driven: 1e-2).
    #[arg(long, allow_negative_numbers = true)]
    pub step: Option<f64>,
    /// Final time T.
    #[arg(long = "t-end", allow_negative_numbers = true)]
    pub t_end: f64,
    /// LCP solver spec (default `auto`); with --friction cone a frictional-contact solver spec
    /// (signorini-friction's registry: auto, nsgs, newton-ac, admm, ...).
    #[arg(long, default_value = crate::solve::DEFAULT_SOLVER)]
    pub solver: String,
    /// Coulomb friction on the exact cone (moreau-jean only): each step's contact problem is
    /// solved by a frictional-contact solver.
    #[arg(long, value_parser = ["cone"])]
    pub friction: Option<String>,
    /// With --friction cone: run the same simulation again with --warm-start off and report
    /// both iteration totals in the summary.
    #[arg(long = "compare-cold")]
    pub compare_cold: bool,
    /// Moreau–Jean theta in [0, 1] (default 1/2; moreau-jean only).
    #[arg(long, allow_negative_numbers = true)]
    pub theta: Option<f64>,
    /// Number k of friction-cone directions for stewart-trinkle (2D: 2, the default; 3D: 3 to
    /// 256, default 4).
    #[arg(long = "friction-directions")]
    pub friction_directions: Option<usize>,
    /// Most steps the run may take (t_end / step beyond it is refused).
    #[arg(long = "max-steps", default_value_t = DEFAULT_MAX_STEPS)]
    pub max_steps: usize,
    /// Wall-clock limit of the run in seconds; the run stops where it is (exit 1).
    #[arg(long = "time-limit", allow_negative_numbers = true)]
    pub time_limit: Option<f64>,
    /// Memory budget in GiB for the data sized from the scene and options (default 4).
    #[arg(long = "memory-limit", allow_negative_numbers = true)]
    pub memory_limit: Option<f64>,
    /// Contact candidates: the pairs whose bounding boxes are within this distance in the
    /// initial state, for the whole run (grid broad phase, linear in the number of bodies;
    /// exact while no two bodies that start further apart meet). Default: time steppers find
    /// each step's contacts anew, the other schemes take every pair.
    #[arg(
        long = "candidate-distance",
        allow_negative_numbers = true,
        conflicts_with = "all_pairs"
    )]
    pub candidate_distance: Option<f64>,
    /// Every pair of bodies is a contact candidate for the whole run (quadratic in the number
    /// of bodies; the default of the event-driven and penalty schemes).
    #[arg(long = "all-pairs")]
    pub all_pairs: bool,
    /// Start each step's solve from the previous step's impulses (time steppers) [default:
    /// off; previous-step with --friction cone].
    #[arg(long = "warm-start", value_enum)]
    pub warm_start: Option<WarmStartArg>,
    /// Write the trajectory as CSV to this file (streamed while the run goes).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print a JSON summary (steps, impacts, lcp_solves, solver_failures, final_state).
    #[arg(long)]
    pub json: bool,
}

/// `--warm-start` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum WarmStartArg {
    /// Every solve starts from the solver's own initial point.
    Off,
    /// From the previous step's impulses, contacts matched by identity.
    PreviousStep,
}

/// The options of the run from the arguments (the ranges are checked by [`Simulation::new`],
/// the durations and sizes here).
fn options(args: &SimulateArgs, scheme: Scheme) -> Result<SimulationOptions, CliError> {
    let mut o = SimulationOptions::new(scheme, args.t_end);
    o.step = args.step;
    o.theta = args.theta;
    o.friction_directions = args.friction_directions;
    let cone = args.friction.is_some();
    if cone {
        o.friction = FrictionLaw::Cone;
    }
    o.warm_start = match args.warm_start {
        Some(WarmStartArg::Off) => WarmStart::Off,
        Some(WarmStartArg::PreviousStep) => WarmStart::PreviousStep,
        None if cone => WarmStart::PreviousStep,
        None => WarmStart::Off,
    };
    o.limits.max_steps = args.max_steps;
    if let Some(d) = args.candidate_distance {
        o.candidates = Candidates::WithinDistance(d);
    }
    if args.all_pairs {
        o.candidates = Candidates::AllPairs;
    }
    if let Some(s) = args.time_limit {
        let limit = Duration::try_from_secs_f64(s).ok().filter(|d| !d.is_zero());
        o.limits.time_limit = Some(limit.ok_or_else(|| {
            CliError(format!("--time-limit {}: must be a finite number of seconds > 0", num(s)))
        })?);
    }
    if let Some(gib) = args.memory_limit {
        let bytes = gib * (1u64 << 30) as f64;
        if !(bytes.is_finite() && bytes >= 1.0 && bytes < u64::MAX as f64) {
            return Err(CliError(format!(
                "--memory-limit {}: must be a number of GiB > 0 (at most 1.6e10)",
                num(gib)
            )));
        }
        o.limits.memory_bytes = bytes as u64;
    }
    Ok(o)
}

/// A number as a user would type it: plain in [1e-4, 1e6), else with an exponent.
fn num(x: f64) -> String {
    if x == 0.0 || (1e-4..1e6).contains(&x.abs()) {
        x.to_string()
    } else {
        format!("{x:e}")
    }
}

/// One line for a simulation error, with the options named as flags.
fn simulation_error(
    file: &str,
    args: &SimulateArgs,
    scheme: Scheme,
    e: SimulationError,
) -> CliError {
    match e {
        SimulationError::Option { option, value, reason } => {
            CliError(format!("--{} {value}: {reason}", option.replace('_', "-")))
        }
        SimulationError::TooManySteps { steps, max_steps } => CliError(format!(
            "--t-end {} / --step {} = {steps:.3e} steps, more than --max-steps {max_steps}: use \
             a longer --step or a shorter --t-end, or raise --max-steps",
            num(args.t_end),
            num(args.step.unwrap_or_else(|| scheme.default_step())),
        )),
        SimulationError::Memory(b) => CliError(format!(
            "{file}: {} would need {} of memory, more than --memory-limit {} GiB: use a smaller \
             scene or option, or raise --memory-limit",
            b.what,
            fmt_bytes(b.bytes),
            b.limit as f64 / (1u64 << 30) as f64
        )),
        SimulationError::Output { t, message } => CliError(format!("{message} (at t = {t})")),
        e => CliError(format!("{file}: {e}")),
    }
}

/// Runs the subcommand.
pub fn run(args: &SimulateArgs) -> Result<Done, CliError> {
    let scheme: Scheme = args
        .scheme
        .parse()
        .map_err(|e| CliError(format!("--scheme {}: {e}", args.scheme.trim())))?;
    check_cone_flags(args, scheme)?;
    let file = args.scene.display().to_string();
    let scene = crate::contact::read_scene(&args.scene)?;
    let sim = Simulation::new(scene, options(args, scheme)?)
        .map_err(|e| simulation_error(&file, args, scheme, e))?;
    if args.friction.is_some() {
        return run_cone(args, scheme, &file, &sim);
    }
    let solver = build_solver(&args.solver)?;
    let mut output = Output::new(&sim, args.out.as_deref(), &args.scene)?;
    let outcome = sim
        .run(solver.as_ref(), &mut output)
        .map_err(|e| simulation_error(&file, args, scheme, e))?;
    output.finish()?;
    let failed = outcome.solver_failures.total > 0 || outcome.finished != RunEnd::Finished;
    let stdout = if args.json {
        summary_json(&sim, &outcome) + "\n"
    } else {
        summary_text(args, &sim, &outcome)
    };
    Ok(Done { stdout, code: u8::from(failed) })
}

/// The flags that go with `--friction cone` (or need it), refused before anything is read.
fn check_cone_flags(args: &SimulateArgs, scheme: Scheme) -> Result<(), CliError> {
    let cone = args.friction.is_some();
    if cone && scheme != Scheme::MoreauJean {
        return Err(CliError(format!(
            "--friction cone: the exact Coulomb cone runs with --scheme moreau-jean, not \
             {scheme} (stewart-trinkle has its polyhedral cone, --friction-directions)"
        )));
    }
    if cone && args.friction_directions.is_some() {
        return Err(CliError(
            "--friction-directions is for stewart-trinkle's polyhedral cone; --friction cone \
             is the exact cone and has no directions"
                .into(),
        ));
    }
    if args.compare_cold && !cone {
        return Err(CliError("--compare-cold needs --friction cone".into()));
    }
    if args.compare_cold && args.warm_start == Some(WarmStartArg::Off) {
        return Err(CliError(
            "--compare-cold compares the warm-started run with a cold one: drop --warm-start off"
                .into(),
        ));
    }
    Ok(())
}

/// `--friction cone`: the run with a frictional-contact solver, and with `--compare-cold` the
/// same run cold (no output file, no progress bar) for the iterations the warm start saved.
fn run_cone(
    args: &SimulateArgs,
    scheme: Scheme,
    file: &str,
    sim: &Simulation,
) -> Result<Done, CliError> {
    let solver = FcRegistry::builtin()
        .build(&args.solver)
        .map_err(|e| CliError(format!("--solver {}: {e}", args.solver.trim())))?;
    let mut output = Output::new(sim, args.out.as_deref(), &args.scene)?;
    let outcome = sim
        .run_cone(solver.as_ref(), &mut output)
        .map_err(|e| simulation_error(file, args, scheme, e))?;
    output.finish()?;
    let cold = if args.compare_cold {
        let options = SimulationOptions { warm_start: WarmStart::Off, ..sim.options().clone() };
        let cold = Simulation::new(sim.model().scene().clone(), options)
            .map_err(|e| simulation_error(file, args, scheme, e))?;
        let outcome = cold
            .run_cone(solver.as_ref(), &mut NoObserver)
            .map_err(|e| simulation_error(file, args, scheme, e))?;
        Some(outcome)
    } else {
        None
    };
    let failed = outcome.solver_failures.total > 0 || outcome.finished != RunEnd::Finished;
    let warm = sim.options().warm_start;
    let stdout = if args.json {
        let mut v = summary_value(sim, &outcome);
        if let Value::Object(map) = &mut v {
            map.insert("friction".into(), json!("cone"));
            map.insert("warm_start".into(), json!(warm_start_name(warm)));
            map.insert("solver_iterations".into(), json!(outcome.solver_iterations));
            if let Some(c) = &cold {
                map.insert("solver_iterations_cold".into(), json!(c.solver_iterations));
                map.insert("solver_failures_cold_total".into(), json!(c.solver_failures.total));
                let saved = c.solver_iterations as i64 - outcome.solver_iterations as i64;
                map.insert("iterations_saved_by_warm_start".into(), json!(saved));
            }
        }
        v.to_string() + "\n"
    } else {
        let mut s = summary_text(args, sim, &outcome);
        let _ = writeln!(s, "friction         exact cone ({})", args.solver.trim());
        let _ = writeln!(s, "warm start       {}", warm_start_name(warm));
        let _ = writeln!(s, "solver iterations {}", outcome.solver_iterations);
        if let Some(c) = &cold {
            let _ = writeln!(
                s,
                "cold run         {} solver iterations, {} failed solves: the warm start saved {}",
                c.solver_iterations,
                c.solver_failures.total,
                c.solver_iterations as i64 - outcome.solver_iterations as i64
            );
        }
        s
    };
    Ok(Done { stdout, code: u8::from(failed) })
}

/// `off` or `previous-step`, as the flag spells it.
fn warm_start_name(w: WarmStart) -> &'static str {
    match w {
        WarmStart::Off => "off",
        WarmStart::PreviousStep => "previous-step",
    }
}

/// A progress bar on stderr, shown only when stderr is a terminal and the run passes a second.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
    started: Instant,
}

impl Progress {
    fn new(total: u64) -> Self {
        let started = Instant::now();
        if !std::io::stderr().is_terminal() {
            return Self { bar: None, started };
        }
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(total),
            indicatif::ProgressDrawTarget::stderr(),
        );
        // Drawing starts after a second, so short runs print nothing.
        bar.enable_steady_tick(Duration::from_millis(200));
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        Self { bar: Some(bar), started }
    }

    fn set(&self, done: u64) {
        if let Some(bar) = &self.bar {
            if self.started.elapsed() > Duration::from_secs(1) && bar.is_hidden() {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            }
            bar.set_position(done);
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// The CSV file being written: to `partial` (a temporary name beside `path`) when `path` is a
/// regular file or new, renamed at the end; straight to `path` when it is a device or a pipe
/// (`/dev/stdout`, `/dev/full`), which must not be replaced.
struct CsvOut {
    path: PathBuf,
    partial: Option<PathBuf>,
    writer: csv::Writer<BufWriter<File>>,
    header_written: bool,
}

impl Drop for CsvOut {
    /// A run that did not finish leaves no temporary file behind.
    fn drop(&mut self) {
        if let Some(partial) = &self.partial {
            let _ = std::fs::remove_file(partial);
        }
    }
}

/// Where the samples go while the run goes: the CSV file (if any) and the progress bar.
struct Output<'a> {
    sim: &'a Simulation,
    csv: Option<CsvOut>,
    progress: Progress,
}

impl<'a> Output<'a> {
    fn new(sim: &'a Simulation, out: Option<&Path>, scene: &Path) -> Result<Self, CliError> {
        let csv = match out {
            None => None,
            Some(path) => Some(CsvOut::create(path, scene)?),
        };
        Ok(Self { sim, csv, progress: Progress::new(sim.n_steps() as u64) })
    }

    /// Flushes the CSV file (and renames it into place) and clears the progress bar.
    fn finish(mut self) -> Result<(), CliError> {
        self.progress.finish();
        match self.csv.take() {
            Some(c) => c.finish(),
            None => Ok(()),
        }
    }
}

impl CsvOut {
    /// Opens the output (see the type's documentation); the folder must exist and the file
    /// must not be the scene.
    fn create(path: &Path, scene: &Path) -> Result<Self, CliError> {
        signorini_lcp::formats::check_output(path, &[scene])
            .map_err(|e| CliError(e.to_string()))?;
        let special = std::fs::metadata(path).is_ok_and(|m| !m.file_type().is_file());
        let partial = (!special).then(|| {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let folder = path.parent().filter(|p| !p.as_os_str().is_empty());
            folder.unwrap_or(Path::new(".")).join(format!(
                ".{}.{}.tmp",
                name.unwrap_or_default(),
                std::process::id()
            ))
        });
        let target = partial.as_deref().unwrap_or(path);
        let f = File::create(target)
            .map_err(|e| CliError(format!("{}: cannot write: {e}", path.display())))?;
        Ok(Self {
            path: path.to_owned(),
            partial,
            writer: csv::Writer::from_writer(BufWriter::new(f)),
            header_written: false,
        })
    }

    /// Flushes and syncs the file and renames it into place.
    fn finish(mut self) -> Result<(), CliError> {
        let cannot =
            |e: std::io::Error| CliError(format!("{}: cannot write: {e}", self.path.display()));
        self.writer.flush().map_err(cannot)?;
        if let Some(partial) = self.partial.take() {
            let done = self
                .writer
                .get_ref()
                .get_ref()
                .sync_all()
                .and_then(|()| std::fs::rename(&partial, &self.path));
            if let Err(e) = done {
                let _ = std::fs::remove_file(&partial);
                return Err(cannot(e));
            }
        }
        Ok(())
    }

    /// The header ([`Simulation::column_names`]) before the first record, then one record:
    /// the sample's values ([`Simulation::row`]), each to 17 significant digits.
    fn write(&mut self, sim: &Simulation, sample: &Sample) -> csv::Result<()> {
        if !self.header_written {
            self.writer.write_record(sim.column_names())?;
            self.header_written = true;
        }
        self.writer.write_record(sim.row(sample).iter().map(|x| format!("{x:.17e}")))
    }
}

impl SimulationObserver for Output<'_> {
    fn sample(&mut self, sample: &Sample) -> Result<(), String> {
        let Some(c) = &mut self.csv else { return Ok(()) };
        c.write(self.sim, sample).map_err(|e| format!("{}: cannot write: {e}", c.path.display()))
    }

    fn progress(&mut self, done: usize, _total: usize) {
        self.progress.set(done as u64);
    }
}

#[derive(Serialize)]
struct ImpactOut<'a> {
    t: f64,
    bodies: &'a [String],
    impulse: f64,
    energy_before: f64,
    energy_after: f64,
    /// Penalty episodes only: whether the pair separated before the end of the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    separated: Option<bool>,
    /// Penalty episodes only: the first sample after separation.
    #[serde(skip_serializing_if = "Option::is_none")]
    t_separation: Option<f64>,
}

impl<'a> From<&'a ImpactEvent> for ImpactOut<'a> {
    fn from(e: &'a ImpactEvent) -> Self {
        Self {
            t: e.t,
            bodies: &e.bodies,
            impulse: e.impulse,
            energy_before: e.energy_before,
            energy_after: e.energy_after,
            separated: e.separated,
            t_separation: e.t_separation,
        }
    }
}

fn final_state(sim: &Simulation, end: &Sample) -> Value {
    let mut bodies = serde_json::Map::new();
    for s in sim.body_states(&end.q, &end.v) {
        let obj: serde_json::Map<String, Value> =
            s.columns.into_iter().map(|(c, x)| (c.to_owned(), json!(x))).collect();
        bodies.insert(s.name, Value::Object(obj));
    }
    json!({ "t": end.t, "bodies": bodies })
}

fn summary_json(sim: &Simulation, o: &SimulationOutcome) -> String {
    summary_value(sim, o).to_string()
}

fn summary_value(sim: &Simulation, o: &SimulationOutcome) -> Value {
    let impacts: Vec<ImpactOut<'_>> = o.impacts.items.iter().map(ImpactOut::from).collect();
    let failures: Vec<Value> = o
        .solver_failures
        .items
        .iter()
        .map(|f| json!({ "t": f.t, "status": f.status.as_str() }))
        .collect();
    json!({
        "steps": o.steps,
        "end": o.finished.as_str(),
        "impacts": impacts,
        "impacts_total": o.impacts.total,
        "lcp_solves": o.lcp_solves,
        "solver_failures": failures,
        "solver_failures_total": o.solver_failures.total,
        "final_state": final_state(sim, &o.end),
        "notes": o.notes,
    })
}

fn summary_text(args: &SimulateArgs, sim: &Simulation, o: &SimulationOutcome) -> String {
    let mut s = String::new();
    for note in &o.notes {
        let _ = writeln!(s, "note: {note}");
    }
    let _ = writeln!(s, "scene            {}", args.scene.display());
    let _ = writeln!(s, "scheme           {}", sim.options().scheme);
    let _ = writeln!(s, "steps            {}", o.steps);
    if o.finished != RunEnd::Finished {
        let _ = writeln!(s, "end              {} (--time-limit)", o.finished.as_str());
    }
    let _ = writeln!(s, "impacts          {}", o.impacts.total);
    let _ = writeln!(s, "lcp solves       {}", o.lcp_solves);
    let _ = writeln!(s, "solver failures  {}", o.solver_failures.total);
    let _ = writeln!(s, "final time       {}", o.end.t);
    for b in sim.body_states(&o.end.q, &o.end.v) {
        let parts: Vec<String> = b.columns.iter().map(|(c, x)| format!("{c} = {x:.9}")).collect();
        let _ = writeln!(s, "  {}: {}", b.name, parts.join(", "));
    }
    if o.impacts.total > MAX_LISTED || o.solver_failures.total > MAX_LISTED {
        let _ = writeln!(s, "(--json lists the first {MAX_LISTED} impacts and failed solves)");
    }
    s
}
