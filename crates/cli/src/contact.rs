//! `signorini contact SCENE`: detects the contacts of a scene's initial state, assembles W and b
//! at the acceleration, velocity or position level, solves the LCP with a solver chosen by name
//! and prints the [`ContactReport`] (JSON) or a summary. With `--friction cone` it assembles
//! the exact Coulomb-cone problem instead (signorini-contact's `coulomb_problem`), solves it
//! with a signorini-friction solver by name and can export it as `signorini-fc/1` JSON or an
//! FCLIB local problem (`.hdf5`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use signorini_contact::{
    contact_problem_with, coulomb_problem, ContactReport, DelassusForm, Level, Scene,
};
use signorini_friction::{FcProblem, FcRegistry};
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
With --friction cone: level, friction (\"cone\"), dimension, n_contacts, contacts, status,
  solver, error (Siconos' fc3d error), iterations, r and u (per contact: normal first)

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
    /// Friction model for a scene with mu > 0: polyhedral (the Stewart-Trinkle LCP with
    /// --friction-directions) or cone (the exact Coulomb cone, acceleration or velocity
    /// level, solved by a `signorini solvers --fc` solver).
    #[arg(long, default_value = "polyhedral", value_parser = ["polyhedral", "cone"])]
    pub friction: String,
    /// With --friction cone: also write the problem to this file, signorini-fc/1 JSON (.json)
    /// or an FCLIB local problem (.hdf5, .h5).
    #[arg(long, value_name = "FILE")]
    pub export: Option<PathBuf>,
    /// How W reaches the solver: assembled (its entries), matrix-free (the Gram form
    /// W = G G', G = J L: pgs, psor, sgs, apgd, gpcg and ipm never form W; other solvers assemble it,
    /// memory-checked; frictionless LCPs only) or auto (matrix-free when
    /// nnz(W) / nnz(J) >= 3 and there is no friction)
    #[arg(long, default_value = "assembled")]
    pub delassus: DelassusForm,
    /// Solver spec `NAME[:key=value,...]` (default `auto`; with --friction cone, a
    /// frictional-contact solver).
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
    Scene::from_path(path).map_err(|e| CliError(e.naming(path)))
}

/// Runs the subcommand.
pub fn run(args: &ContactArgs) -> Result<Done, CliError> {
    let scene = read_scene(&args.scene)?;
    let file = args.scene.display();
    if args.friction == "cone" {
        return run_cone(args, &scene);
    }
    if args.export.is_some() {
        return Err(CliError("--export needs --friction cone".into()));
    }
    let problem = contact_problem_with(
        &scene,
        args.level,
        args.step,
        args.friction_directions,
        args.delassus,
    )
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

/// `--friction cone`: the exact-cone problem, solved by a signorini-friction solver.
fn run_cone(args: &ContactArgs, scene: &Scene) -> Result<Done, CliError> {
    let file = args.scene.display();
    if args.friction_directions.is_some() {
        return Err(CliError("--friction-directions is for --friction polyhedral".into()));
    }
    if args.delassus != DelassusForm::Assembled {
        return Err(CliError("--delassus is for --friction polyhedral".into()));
    }
    let cone = coulomb_problem(scene, args.level, args.step)
        .map_err(|e| CliError(format!("{file}: {e}")))?;
    let n = cone.w.nrows;
    let problem = FcProblem::from_coo(
        cone.dimension,
        n,
        &cone.w.row,
        &cone.w.col,
        &cone.w.val,
        cone.q.clone(),
        cone.mu.clone(),
    )
    .map_err(|e| CliError(format!("{file}: {e}")))?;
    if let Some(out) = &args.export {
        signorini_lcp::formats::check_output(out, &[&args.scene])
            .map_err(|e| CliError(e.to_string()))?;
        let named = problem.clone().with_name(
            args.scene.file_stem().map_or_else(String::new, |s| s.to_string_lossy().into_owned()),
        );
        match out.extension().and_then(|e| e.to_str()) {
            Some("json") => signorini_friction::formats::write_fc_json(out, &named)?,
            Some("hdf5" | "h5") => signorini_friction::formats::write_fclib(out, &named)?,
            _ => {
                return Err(CliError(format!(
                    "{}: --export writes signorini-fc/1 JSON (.json) or an FCLIB local problem \
                     (.hdf5, .h5); name the file so",
                    out.display()
                )))
            }
        }
    }
    let solver = FcRegistry::builtin()
        .build(&args.solver)
        .map_err(|e| CliError(format!("--solver {}: {e}", args.solver)))?;
    let s = solver
        .solve(&problem, &SolveOptions::default(), None)
        .map_err(|e| CliError(format!("{file}: {e}")))?;
    let code = if s.status == Status::Solved { 0 } else { 1 };
    let contacts: Vec<serde_json::Value> = cone
        .contacts
        .iter()
        .map(|c| {
            serde_json::json!({
                "body_a": cone.body_names.get(c.body_a).cloned().unwrap_or_default(),
                "body_b": cone.body_names.get(c.body_b).cloned().unwrap_or_default(),
                "point": c.point(), "normal": c.normal, "gap": c.gap,
            })
        })
        .collect();
    let stdout = if args.json {
        let v = serde_json::json!({
            "level": args.level.as_str(), "friction": "cone", "dimension": cone.dimension,
            "n_contacts": cone.contacts.len(), "contacts": contacts, "status": s.status,
            "solver": s.solver, "error": s.error, "iterations": s.iterations,
            "r": s.r, "u": s.u,
        });
        serde_json::to_string(&v).map_err(|e| CliError(format!("{file}: {e}")))? + "\n"
    } else {
        let mut t = String::new();
        let _ = writeln!(
            t,
            "scene    {file} ({}D, {} contacts, exact Coulomb cone, {} level)",
            cone.dimension,
            cone.contacts.len(),
            args.level.as_str()
        );
        let _ = writeln!(
            t,
            "status   {} ({}, error {:.3e}, {} iterations)",
            s.status, s.solver, s.error, s.iterations
        );
        for (c, block) in s.r.chunks(cone.dimension).enumerate() {
            let _ = writeln!(t, "contact  {c}: r = {}", fmt_vec(block));
        }
        t
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
