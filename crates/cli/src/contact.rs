//! `signorini contact SCENE`: detects the contacts of a scene's initial state, assembles W and b
//! at the acceleration, velocity or position level, solves the LCP with a solver chosen by name
//! and prints the [`ContactReport`] (JSON) or a summary.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use signorini_contact::{contact_problem, ContactReport, Level, Scene, SceneError};
use signorini_lcp::{SolveOptions, Status};

use crate::error::CliError;
use crate::solve::build_solver;
use crate::Done;

/// Shown under the command's `--help`.
const CONTACT_HELP: &str = "\
JSON output (--json), one object:
  level, n_contacts, contacts ([{body_a, body_b, point, normal, gap}]), W ({n, row, col, val}),
  b, status, solver, residual, reactions, sliding_speeds (with friction),
  normal_accelerations (acceleration level), normal_velocities (velocity and position level)

Exit codes:
  0  the contact LCP was solved
  1  the solver ended with another status
  2  bad input or usage, or an output that cannot be written: one line on stderr naming
     the file, the line and key where known
  3  internal error (a bug in signorini): one line on stderr; please report it";

/// Arguments of `signorini contact`.
#[derive(Debug, clap::Args)]
#[command(after_help = CONTACT_HELP)]
pub struct ContactArgs {
    /// Scene file (.toml or .json; schema in docs/contact-scenes.md).
    pub scene: PathBuf,
    /// Level of the LCP: acceleration (forces), velocity or position (impulses, need --step).
    #[arg(long, default_value = "acceleration")]
    pub level: Level,
    /// Time step h (velocity and position level).
    #[arg(long, allow_negative_numbers = true)]
    pub step: Option<f64>,
    /// Number k of friction-cone directions per contact (2 in 2D, >= 3 in 3D).
    #[arg(long = "friction-directions")]
    pub friction_directions: Option<usize>,
    /// Solver spec `NAME[:key=value,...]` (default `auto`).
    #[arg(long, default_value = crate::solve::DEFAULT_SOLVER)]
    pub solver: String,
    /// Print the contact report as one JSON object instead of a summary.
    #[arg(long)]
    pub json: bool,
}

/// Reads and validates a scene with the contact crate's parser (the simulation keys
/// `material.impact_law` and `material.impact` are kept as written and ignored by assembly);
/// the error names the file, and for TOML the line and key.
pub fn read_scene(path: &Path) -> Result<Scene, CliError> {
    Scene::from_path(path).map_err(|e| scene_error(path, &e))
}

fn scene_error(path: &Path, e: &SceneError) -> CliError {
    let shown = path.display().to_string();
    let text = e.to_string();
    if text.contains(&shown) {
        CliError(text)
    } else {
        CliError(format!("{shown}: {text}"))
    }
}

/// Runs the subcommand.
pub fn run(args: &ContactArgs) -> Result<Done, CliError> {
    let scene = read_scene(&args.scene)?;
    let file = args.scene.display();
    let problem = contact_problem(&scene, args.level, args.step, args.friction_directions)
        .map_err(|e| CliError(format!("{file}: {e}")))?;
    let solver = build_solver(&args.solver)?;
    let solution = solver
        .solve(&problem.lcp, &SolveOptions::default(), None)
        .map_err(|e| CliError(format!("{file}: {e}")))?;
    let report =
        ContactReport::new(&problem, &solution).map_err(|e| CliError(format!("{file}: {e}")))?;
    let code = if solution.status == Status::Solved { 0 } else { 1 };
    let stdout = if args.json {
        serde_json::to_string(&report).map_err(|e| CliError(format!("{file}: {e}")))? + "\n"
    } else {
        summary(&args.scene, &report)
    };
    Ok(Done { stdout, code })
}

fn fmt_vec(v: &[f64]) -> String {
    let parts: Vec<String> = v.iter().map(|x| format!("{x:.6}")).collect();
    format!("[{}]", parts.join(", "))
}

fn summary(path: &Path, r: &ContactReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "scene            {}", path.display());
    let _ = writeln!(s, "level            {}", r.level.as_str());
    let _ = writeln!(s, "contacts         {}", r.n_contacts);
    for (i, c) in r.contacts.iter().enumerate() {
        let _ = writeln!(
            s,
            "  #{i:<3} {} on {}: point {}, normal {}, gap {:.3e}",
            c.body_a,
            c.body_b,
            fmt_vec(&c.point),
            fmt_vec(&c.normal),
            c.gap
        );
    }
    let _ = writeln!(s, "solver           {}", r.solver);
    let _ = writeln!(s, "status           {}", r.status);
    let _ = writeln!(s, "residual         {:.3e}", r.residual);
    let nc = r.n_contacts;
    let normal: f64 = r.reactions.iter().take(nc).sum();
    let unit = if r.level == Level::Acceleration { "N" } else { "N s" };
    let _ =
        writeln!(s, "reactions        {} (normal sum {normal:.6} {unit})", fmt_vec(&r.reactions));
    if let Some(a) = &r.normal_accelerations {
        let _ = writeln!(s, "normal accel.    {} m/s^2", fmt_vec(a));
    }
    if let Some(v) = &r.normal_velocities {
        let _ = writeln!(s, "normal velocity  {} m/s", fmt_vec(v));
    }
    s
}
