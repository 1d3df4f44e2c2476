//! `signorini simulate SCENE --scheme SCHEME --t-end T`: runs a scene with a nonsmooth time
//! stepper (Moreau–Jean, Stewart–Trinkle, position-level LCP), the event-driven scheme, or a
//! penalty model under a smooth integrator, and writes a CSV trajectory and/or a JSON summary.
//!
//! Impacts of the event-driven scheme are its located impacts. For the time steppers an impact
//! is a step in which a contact that was approaching (J v < 0, gap within one step's travel)
//! receives a normal velocity jump larger than twice the free-flight change over the step; its
//! `impulse` is the 2-norm of the step's contact impulse M (v⁺ − v) − h f, and its energies are
//! the mechanical energies (kinetic + gravity + constant applied forces) at the step ends.

use std::fmt::Write as _;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde_json::{json, Value};
use signorini_contact::{BodyKind, Dimension, Scene};
use signorini_impact::{ImpactLaw, ImpactMode};
use signorini_integrators::event_driven::Flight;
use signorini_integrators::moreau_jean::OnSolverFailure;
use signorini_integrators::{
    check_impact_support, integrator_from_name, simulate_event_driven, simulate_moreau_jean,
    simulate_position_lcp, simulate_stewart_trinkle, ContactModel, EventDrivenParams,
    MechanicalSystem, MoreauJeanParams, PenaltyScene, PositionLcpParams, SceneModel, SchemeKind,
    StewartTrinkleParams,
};
use signorini_lcp::{LcpSolver, Status};

use crate::error::CliError;
use crate::solve::build_solver;
use crate::Done;

/// Every scheme name `--scheme` accepts.
pub const SCHEMES: [&str; 10] = [
    "moreau-jean",
    "stewart-trinkle",
    "position-lcp",
    "event-driven",
    "penalty:explicit-euler",
    "penalty:symplectic-euler",
    "penalty:verlet",
    "penalty:rk4",
    "penalty:implicit-euler",
    "penalty:implicit-midpoint",
];

/// Shown under the command's `--help`.
const SIMULATE_HELP: &str = "\
JSON output (--json), one object:
  steps, impacts ([{t, bodies, impulse, energy_before, energy_after}], penalty episodes add
  separated, t_separation), lcp_solves, solver_failures ([{t, status}]),
  final_state ({t, bodies: {name: {x, y, ..., vx, vy, ...}}}), notes
CSV (--out FILE): RFC 4180; column t, then <body>.<coordinate> for every free body.

Exit codes:
  0  the run finished and every step's LCP was solved
  1  the run finished but some step's solve did not end solved (see solver_failures)
  2  bad input or usage: one line on stderr naming the file, the line and key where known";

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
    /// LCP solver spec (default `auto`).
    #[arg(long, default_value = crate::solve::DEFAULT_SOLVER)]
    pub solver: String,
    /// Moreau–Jean theta in [0, 1] (default 1/2).
    #[arg(long, allow_negative_numbers = true)]
    pub theta: Option<f64>,
    /// Number k of friction-cone directions for stewart-trinkle (2D: 2, the default; 3D: k >= 3,
    /// default 4).
    #[arg(long = "friction-directions")]
    pub friction_directions: Option<usize>,
    /// Write the trajectory as CSV to this file.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Print a JSON summary (steps, impacts, lcp_solves, solver_failures, final_state).
    #[arg(long)]
    pub json: bool,
}

/// A scene with the simulation keys of `[material]` (`impact_law`, `impact`) taken out.
#[derive(Debug, Clone)]
pub struct SimulationScene {
    /// The contact scene.
    pub scene: Scene,
    /// The impact law (`material.impact_law`, default newton).
    pub impact_law: ImpactLaw,
    /// Simultaneous or sequential resolution (`material.impact`, default simultaneous).
    pub impact_mode: ImpactMode,
    /// Whether the scene named `material.impact_law` itself (not the default).
    pub impact_law_given: bool,
}

/// Reads a scene file for `simulate`; `material.impact_law` is newton | poisson | inelastic and
/// `material.impact` simultaneous | sequential. Which scheme takes which is checked by
/// [`check_impact_support`] once the scheme is known.
pub fn read_simulation_scene(path: &Path) -> Result<SimulationScene, CliError> {
    let shown = path.display().to_string();
    let scene = crate::contact::read_scene(path)?;
    let key_error = |key: &str, v: &str, e: String| {
        CliError(format!("{shown}: key `material.{key}`: \"{v}\": {e}"))
    };
    let impact_law = match &scene.material.impact_law {
        None => ImpactLaw::Newton,
        Some(v) => {
            ImpactLaw::from_name(v).map_err(|e| key_error("impact_law", v, e.to_string()))?
        }
    };
    let impact_mode = match &scene.material.impact {
        None => ImpactMode::Simultaneous,
        Some(v) => ImpactMode::from_name(v).map_err(|e| key_error("impact", v, e.to_string()))?,
    };
    let impact_law_given = scene.material.impact_law.is_some();
    Ok(SimulationScene { scene, impact_law, impact_mode, impact_law_given })
}

fn scheme_kind(scheme: &str) -> SchemeKind {
    match scheme {
        "event-driven" => SchemeKind::EventDriven,
        "moreau-jean" => SchemeKind::MoreauJean,
        "stewart-trinkle" => SchemeKind::StewartTrinkle,
        "position-lcp" => SchemeKind::PositionLcp,
        _ => SchemeKind::Penalty,
    }
}

/// One sampled state.
struct Row {
    t: f64,
    q: Vec<f64>,
    v: Vec<f64>,
}

#[derive(Serialize)]
struct ImpactOut {
    t: f64,
    bodies: Vec<String>,
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

#[derive(Serialize)]
struct FailureOut {
    t: f64,
    status: String,
}

struct Outcome {
    rows: Vec<Row>,
    steps: usize,
    impacts: Vec<ImpactOut>,
    lcp_solves: usize,
    failures: Vec<FailureOut>,
    notes: Vec<String>,
}

fn scheme_error(scheme: &str) -> CliError {
    CliError(format!("--scheme {scheme}: unknown scheme; valid: {}", SCHEMES.join(", ")))
}

/// Runs the subcommand.
pub fn run(args: &SimulateArgs) -> Result<Done, CliError> {
    let scheme = args.scheme.trim();
    if !SCHEMES.contains(&scheme) {
        return Err(scheme_error(scheme));
    }
    if !(args.t_end.is_finite() && args.t_end > 0.0) {
        return Err(CliError(format!("--t-end {}: must be a finite number > 0", args.t_end)));
    }
    if let Some(h) = args.step {
        if !(h.is_finite() && h > 0.0) {
            return Err(CliError(format!("--step {h}: must be a finite number > 0")));
        }
    }
    if let Some(th) = args.theta {
        if !(0.0..=1.0).contains(&th) {
            return Err(CliError(format!("--theta {th}: must lie in [0, 1]")));
        }
    }
    let file = args.scene.display().to_string();
    let sim = read_simulation_scene(&args.scene)?;
    let kind = scheme_kind(scheme);
    check_impact_support(kind, sim.impact_law, sim.impact_mode)
        .map_err(|e| CliError(format!("{file}: {e}")))?;
    let mut notes = Vec::new();
    let e = sim.scene.material.restitution;
    if kind.is_inelastic_by_construction() && sim.impact_law == ImpactLaw::Newton && e > 0.0 {
        notes.push(format!(
            "{scheme} is perfectly inelastic by construction (next-gap constraint): \
             material.restitution = {e} has no effect"
        ));
    }
    if kind == SchemeKind::Penalty && sim.impact_law_given && e > 0.0 {
        notes.push(format!(
            "{scheme}: the penalty law (material.stiffness, material.damping) decides the \
             rebound; material.restitution = {e} has no effect"
        ));
    }
    for n in &notes {
        eprintln!("signorini: note: {n}");
    }
    let mut model = SceneModel::new(sim.scene).map_err(|e| CliError(format!("{file}: {e}")))?;
    if sim.impact_law == ImpactLaw::Inelastic {
        model.set_restitution(0.0);
    }
    if let Some(k) = args.friction_directions {
        let ok = match model.scene().dimension {
            Dimension::Two => k == 2,
            Dimension::Three => k >= 3,
        };
        if !ok {
            return Err(CliError(format!(
                "--friction-directions {k}: must be 2 in 2D and at least 3 in 3D"
            )));
        }
        model.set_friction_directions(k);
    }
    let solver = build_solver(&args.solver)?;
    let impact = (sim.impact_law, sim.impact_mode);
    let mut outcome = if let Some(name) = scheme.strip_prefix("penalty:") {
        run_penalty(args, &model, name, &file)?
    } else {
        run_nonsmooth(args, &model, scheme, impact, solver.as_ref(), &file)?
    };
    outcome.notes = notes;
    if let Some(out) = &args.out {
        let csv = to_csv(&model, &outcome.rows)
            .map_err(|e| CliError(format!("{}: cannot write CSV: {e}", out.display())))?;
        std::fs::write(out, csv)
            .map_err(|e| CliError(format!("{}: cannot write: {e}", out.display())))?;
    }
    let code = if outcome.failures.is_empty() { 0 } else { 1 };
    let stdout = if args.json {
        summary_json(&model, &outcome) + "\n"
    } else {
        summary_text(args, &model, &outcome)
    };
    Ok(Done { stdout, code })
}

fn n_steps(t_end: f64, h: f64) -> usize {
    ((t_end / h) - 1e-9).ceil().max(1.0) as usize
}

/// A progress bar on stderr, shown only when stderr is a terminal and the run passes a second.
struct Progress {
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    fn new(total: u64) -> Self {
        if !std::io::stderr().is_terminal() {
            return Self { bar: None };
        }
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(total),
            indicatif::ProgressDrawTarget::stderr(),
        );
        // Drawing starts after a second, so short runs print nothing.
        bar.enable_steady_tick(Duration::from_millis(200));
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
        Self { bar: Some(bar) }
    }

    fn set(&self, started: Instant, done: u64) {
        if let Some(bar) = &self.bar {
            if started.elapsed() > Duration::from_secs(1) && bar.is_hidden() {
                bar.set_draw_target(indicatif::ProgressDrawTarget::stderr());
            }
            bar.set_position(done);
        }
    }

    fn finish(self) {
        if let Some(bar) = self.bar {
            bar.finish_and_clear();
        }
    }
}

fn run_penalty(
    args: &SimulateArgs,
    model: &SceneModel,
    name: &str,
    file: &str,
) -> Result<Outcome, CliError> {
    let integrator = integrator_from_name(name).map_err(|_| scheme_error(&args.scheme))?;
    let material = &model.scene().material;
    let stiffness = material.stiffness.ok_or_else(|| {
        CliError(format!("{file}: key `material.stiffness`: required by penalty schemes"))
    })?;
    let sys = PenaltyScene { model: model.clone(), stiffness, damping: material.damping };
    let h = args.step.unwrap_or(1e-5);
    let n = n_steps(args.t_end, h);
    let (mut q, mut v) = model.initial_state();
    let mut rows = vec![Row { t: 0.0, q: q.clone(), v: v.clone() }];
    let mut episodes = Episodes::new(model, &sys, &q, &v);
    let progress = Progress::new(n as u64);
    let started = Instant::now();
    for k in 0..n {
        let t = k as f64 * h;
        integrator
            .step(&sys, t, h, &mut q, &mut v)
            .map_err(|e| CliError(format!("{file}: {e}")))?;
        let t1 = (k + 1) as f64 * h;
        episodes.advance(model, &sys, t1, &q, &v);
        rows.push(Row { t: t1, q: q.clone(), v: v.clone() });
        if k % 256 == 0 {
            progress.set(started, k as u64);
        }
    }
    progress.finish();
    Ok(Outcome {
        rows,
        steps: n,
        impacts: episodes.finish(model),
        lcp_solves: 0,
        failures: Vec::new(),
        notes: Vec::new(),
    })
}

/// T + V_gravity + V_applied + V_elastic of a penalty scene.
fn penalty_energy(model: &SceneModel, sys: &PenaltyScene, q: &[f64], v: &[f64]) -> f64 {
    mechanical_energy(model, q, v) + sys.elastic_energy(q)
}

/// Contact episodes of a penalty run, per body pair: from the last sample before any contact
/// of the pair penetrates to the first sample after none does. The impulse of an episode is the
/// trapezoidal integral of the pair's normal forces over its samples.
struct Episodes {
    pair_of_contact: Vec<usize>,
    pairs: Vec<(usize, usize)>,
    /// Per pair: (start time, energy at start, impulse so far) while in contact.
    open: Vec<Option<(f64, f64, f64)>>,
    previous: Previous,
    done: Vec<(usize, f64, f64, f64, f64, Option<f64>)>,
}

/// The last sample's time, energy and per-pair penetration and normal force.
struct Previous {
    t: f64,
    energy: f64,
    penetrating: Vec<bool>,
    force: Vec<f64>,
}

impl Episodes {
    fn new(model: &SceneModel, sys: &PenaltyScene, q: &[f64], v: &[f64]) -> Self {
        let by_contact = model.contact_body_indices();
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        let pair_of_contact = by_contact
            .iter()
            .map(|p| match pairs.iter().position(|x| x == p) {
                Some(i) => i,
                None => {
                    pairs.push(*p);
                    pairs.len() - 1
                }
            })
            .collect();
        let mut e = Self {
            pair_of_contact,
            open: vec![None; pairs.len()],
            pairs,
            previous: Previous { t: 0.0, energy: 0.0, penetrating: Vec::new(), force: Vec::new() },
            done: Vec::new(),
        };
        e.previous = e.sample(model, sys, 0.0, q, v);
        // A pair already penetrating at t = 0 starts its episode there.
        for (p, open) in e.open.iter_mut().enumerate() {
            if e.previous.penetrating[p] {
                *open = Some((0.0, e.previous.energy, 0.0));
            }
        }
        e
    }

    fn sample(
        &self,
        model: &SceneModel,
        sys: &PenaltyScene,
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Previous {
        let gaps = model.gaps(q);
        let forces = sys.normal_forces(q, v);
        let mut penetrating = vec![false; self.pairs.len()];
        let mut force = vec![0.0; self.pairs.len()];
        for (i, &p) in self.pair_of_contact.iter().enumerate() {
            penetrating[p] |= gaps[i] < 0.0;
            force[p] += forces[i];
        }
        Previous { t, energy: penalty_energy(model, sys, q, v), penetrating, force }
    }

    fn advance(&mut self, model: &SceneModel, sys: &PenaltyScene, t: f64, q: &[f64], v: &[f64]) {
        let now = self.sample(model, sys, t, q, v);
        let prev = &self.previous;
        for p in 0..self.pairs.len() {
            let dt = now.t - prev.t;
            match (&mut self.open[p], now.penetrating[p]) {
                (None, true) => {
                    self.open[p] =
                        Some((prev.t, prev.energy, 0.5 * dt * (prev.force[p] + now.force[p])))
                }
                (Some((_, _, impulse)), true) => {
                    *impulse += 0.5 * dt * (prev.force[p] + now.force[p]);
                }
                (Some((t0, e0, impulse)), false) => {
                    let total = *impulse + 0.5 * dt * (prev.force[p] + now.force[p]);
                    self.done.push((p, *t0, total, *e0, now.energy, Some(now.t)));
                    self.open[p] = None;
                }
                (None, false) => {}
            }
        }
        self.previous = now;
    }

    fn finish(mut self, model: &SceneModel) -> Vec<ImpactOut> {
        for p in 0..self.pairs.len() {
            if let Some((t0, e0, impulse)) = self.open[p] {
                self.done.push((p, t0, impulse, e0, self.previous.energy, None));
            }
        }
        self.done.sort_by(|a, b| a.1.total_cmp(&b.1));
        let names: Vec<String> = model.scene().bodies.iter().map(|b| b.name.clone()).collect();
        self.done
            .into_iter()
            .map(|(p, t, impulse, energy_before, energy_after, end)| {
                let (a, b) = self.pairs[p];
                ImpactOut {
                    t,
                    bodies: vec![names[a].clone(), names[b].clone()],
                    impulse,
                    energy_before,
                    energy_after,
                    separated: Some(end.is_some()),
                    t_separation: end,
                }
            })
            .collect()
    }
}

fn run_nonsmooth(
    args: &SimulateArgs,
    model: &SceneModel,
    scheme: &str,
    (law, mode): (ImpactLaw, ImpactMode),
    solver: &dyn LcpSolver,
    file: &str,
) -> Result<Outcome, CliError> {
    let (q0, v0) = model.initial_state();
    let err = |e: String| CliError(format!("{file}: {scheme}: {e}"));
    if scheme == "event-driven" {
        let step = args.step.unwrap_or(1e-2);
        let params = EventDrivenParams {
            flight: Flight::Integrator { scheme: Arc::new(signorini_integrators::Rk4), step },
            law,
            mode,
            ..EventDrivenParams::default()
        };
        let run = simulate_event_driven(model, model, solver, 0.0, &q0, &v0, args.t_end, &params)
            .map_err(|e| err(e.to_string()))?;
        let names = |i: usize| {
            let (a, b) = model.contact_bodies(i);
            vec![a, b]
        };
        let impacts = run
            .impacts
            .iter()
            .map(|r| {
                let mut bodies: Vec<String> = r.contacts.iter().flat_map(|&i| names(i)).collect();
                bodies.dedup();
                ImpactOut {
                    t: r.t,
                    bodies,
                    impulse: r.impulse.iter().map(|p| p * p).sum::<f64>().sqrt(),
                    energy_before: r.energy_before,
                    energy_after: r.energy_after,
                    separated: None,
                    t_separation: None,
                }
            })
            .collect();
        let failures = run
            .lcp_solves
            .iter()
            .filter(|(_, r)| r.status != Status::Solved)
            .map(|(t, r)| FailureOut { t: *t, status: r.status.as_str().to_owned() })
            .collect();
        let rows: Vec<Row> =
            run.samples.iter().map(|s| Row { t: s.t, q: s.q.clone(), v: s.v.clone() }).collect();
        return Ok(Outcome {
            steps: rows.len().saturating_sub(1),
            rows,
            impacts,
            lcp_solves: run.lcp_solves.len(),
            failures,
            notes: Vec::new(),
        });
    }
    let h = args.step.unwrap_or(1e-3);
    let n = n_steps(args.t_end, h);
    let run = match scheme {
        "moreau-jean" => {
            let mut p = MoreauJeanParams::with_step(h);
            if let Some(th) = args.theta {
                p.theta = th;
            }
            p.on_failure = OnSolverFailure::Continue;
            simulate_moreau_jean(model, model, solver, 0.0, &q0, &v0, n, &p)
                .map_err(|e| err(e.to_string()))?
        }
        "stewart-trinkle" => {
            let mut p = StewartTrinkleParams::with_step(h);
            p.on_failure = OnSolverFailure::Continue;
            simulate_stewart_trinkle(model, model, solver, 0.0, &q0, &v0, n, &p)
                .map_err(|e| err(e.to_string()))?
        }
        _ => {
            let mut p = PositionLcpParams::with_step(h);
            p.on_failure = OnSolverFailure::Continue;
            simulate_position_lcp(model, model, solver, 0.0, &q0, &v0, n, &p)
                .map_err(|e| err(e.to_string()))?
        }
    };
    let rows: Vec<Row> =
        run.samples.iter().map(|(t, q, v)| Row { t: *t, q: q.clone(), v: v.clone() }).collect();
    let impacts = stepped_impacts(model, &rows, h);
    Ok(Outcome {
        steps: run.steps.len(),
        impacts,
        lcp_solves: run.steps.iter().filter(|s| s.lcp.is_some()).count(),
        failures: run
            .solver_failures
            .iter()
            .map(|f| FailureOut { t: f.t, status: f.status.as_str().to_owned() })
            .collect(),
        rows,
        notes: Vec::new(),
    })
}

/// Kinetic energy plus the potential of gravity and the constant applied forces.
fn mechanical_energy(model: &SceneModel, q: &[f64], v: &[f64]) -> f64 {
    let scene = model.scene();
    let potential: f64 = model
        .bodies_at(q, v)
        .iter()
        .filter(|b| b.kind != BodyKind::Fixed)
        .map(|b| {
            (0..3).map(|k| -(b.mass * scene.gravity[k] + b.force[k]) * b.position[k]).sum::<f64>()
        })
        .sum();
    model.kinetic_energy(q, v) + potential
}

fn mat_vec(m: &faer::Mat<f64>, x: &[f64]) -> Vec<f64> {
    (0..m.nrows()).map(|i| (0..m.ncols()).map(|j| m[(i, j)] * x[j]).sum()).collect()
}

fn stepped_impacts(model: &SceneModel, rows: &[Row], h: f64) -> Vec<ImpactOut> {
    let mut out = Vec::new();
    for pair in rows.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let gaps = model.gaps(&a.q);
        let j = model.jacobian(&a.q);
        let un_pre = mat_vec(&j, &a.v);
        let un_post = mat_vec(&j, &b.v);
        let m = model.mass_matrix(&a.q);
        let f = model.forces(a.t, &a.q, &a.v);
        let mut a_free = vec![0.0; f.len()];
        // Free-flight change of the normal velocities over the step: h J M^-1 f.
        if let Ok(llt) = m.llt(faer::Side::Lower) {
            use faer::linalg::solvers::Solve;
            let rhs = faer::Mat::from_fn(f.len(), 1, |i, _| f[i]);
            let sol = llt.solve(&rhs);
            for (i, x) in a_free.iter_mut().enumerate() {
                *x = sol[(i, 0)];
            }
        }
        let free = mat_vec(&j, &a_free);
        let hit: Vec<usize> = (0..gaps.len())
            .filter(|&i| {
                un_pre[i] < -1e-6
                    && gaps[i] <= -un_pre[i] * h + 1e-9
                    && un_post[i] - un_pre[i] > 2.0 * h * free[i].abs() + 1e-9
            })
            .collect();
        if hit.is_empty() {
            continue;
        }
        let dv: Vec<f64> = b.v.iter().zip(&a.v).map(|(x, y)| x - y).collect();
        let mdv = mat_vec(&m, &dv);
        let impulse = mdv.iter().zip(&f).map(|(p, f)| (p - h * f).powi(2)).sum::<f64>().sqrt();
        let mut bodies: Vec<String> = hit
            .iter()
            .flat_map(|&i| {
                let (x, y) = model.contact_bodies(i);
                [x, y]
            })
            .collect();
        bodies.sort();
        bodies.dedup();
        out.push(ImpactOut {
            t: a.t,
            bodies,
            impulse,
            energy_before: mechanical_energy(model, &a.q, &a.v),
            energy_after: mechanical_energy(model, &b.q, &b.v),
            separated: None,
            t_separation: None,
        });
    }
    out
}

/// Per non-fixed body: position, orientation, velocity, angular velocity.
fn body_state(model: &SceneModel, q: &[f64], v: &[f64]) -> Vec<(String, Vec<(String, f64)>)> {
    let dim = model.scene().dimension;
    let d = dim.as_usize();
    let axes = ["x", "y", "z"];
    model
        .bodies_at(q, v)
        .into_iter()
        .filter(|b| b.kind != BodyKind::Fixed)
        .map(|b| {
            let mut cols: Vec<(String, f64)> = Vec::new();
            for (axis, x) in axes.iter().zip(b.position).take(d) {
                cols.push(((*axis).into(), x));
            }
            let [qw, qx, qy, qz] = b.orientation.0;
            match dim {
                Dimension::Two => cols.push(("angle".into(), 2.0 * qz.atan2(qw))),
                Dimension::Three => {
                    for (n, x) in [("qw", qw), ("qx", qx), ("qy", qy), ("qz", qz)] {
                        cols.push((n.into(), x));
                    }
                }
            }
            for (axis, x) in axes.iter().zip(b.velocity).take(d) {
                cols.push((format!("v{axis}"), x));
            }
            match dim {
                Dimension::Two => cols.push(("omega".into(), b.angular_velocity[2])),
                Dimension::Three => {
                    for (k, n) in ["wx", "wy", "wz"].iter().enumerate() {
                        cols.push(((*n).into(), b.angular_velocity[k]));
                    }
                }
            }
            (b.name, cols)
        })
        .collect()
}

/// The trajectory as RFC 4180 CSV: `t`, then `<body>.<coordinate>` per column (a body name with
/// a comma or a quote is quoted, so every row has as many fields as the header).
fn to_csv(model: &SceneModel, rows: &[Row]) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header = vec!["t".to_string()];
    if let Some(first) = rows.first() {
        for (name, cols) in body_state(model, &first.q, &first.v) {
            header.extend(cols.into_iter().map(|(c, _)| format!("{name}.{c}")));
        }
    }
    w.write_record(&header)?;
    for r in rows {
        let mut record = vec![format!("{:.17e}", r.t)];
        for (_, cols) in body_state(model, &r.q, &r.v) {
            record.extend(cols.into_iter().map(|(_, x)| format!("{x:.17e}")));
        }
        w.write_record(&record)?;
    }
    w.into_inner().map_err(|e| e.into_error().into())
}

fn final_state(model: &SceneModel, outcome: &Outcome) -> Value {
    let Some(last) = outcome.rows.last() else { return Value::Null };
    let mut bodies = serde_json::Map::new();
    for (name, cols) in body_state(model, &last.q, &last.v) {
        let obj: serde_json::Map<String, Value> =
            cols.into_iter().map(|(c, x)| (c, json!(x))).collect();
        bodies.insert(name, Value::Object(obj));
    }
    json!({ "t": last.t, "bodies": bodies })
}

fn summary_json(model: &SceneModel, outcome: &Outcome) -> String {
    json!({
        "steps": outcome.steps,
        "impacts": outcome.impacts,
        "lcp_solves": outcome.lcp_solves,
        "solver_failures": outcome.failures,
        "final_state": final_state(model, outcome),
        "notes": outcome.notes,
    })
    .to_string()
}

fn summary_text(args: &SimulateArgs, model: &SceneModel, outcome: &Outcome) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "scene            {}", args.scene.display());
    let _ = writeln!(s, "scheme           {}", args.scheme);
    let _ = writeln!(s, "steps            {}", outcome.steps);
    let _ = writeln!(s, "impacts          {}", outcome.impacts.len());
    let _ = writeln!(s, "lcp solves       {}", outcome.lcp_solves);
    let _ = writeln!(s, "solver failures  {}", outcome.failures.len());
    if let Some(last) = outcome.rows.last() {
        let _ = writeln!(s, "final time       {}", last.t);
        for (name, cols) in body_state(model, &last.q, &last.v) {
            let parts: Vec<String> = cols.iter().map(|(c, x)| format!("{c} = {x:.9}")).collect();
            let _ = writeln!(s, "  {name}: {}", parts.join(", "));
        }
    }
    s
}
