//! `signorini fc FILE`: solves a frictional-contact problem (Siconos `.dat`, `signorini-fc/1`
//! JSON, FCLIB local `.hdf5`) with a solver of signorini-friction chosen by name, and reports
//! the Siconos error recomputed from the returned r.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

use signorini_friction::formats::{read_fc_problem, read_fc_warm_start, FcFormat};
use signorini_friction::{FcProblem, FcRegistry, FcSolution};
use signorini_lcp::{SolveOptions, Status};

use crate::error::CliError;
use crate::Done;

/// The solver used when `--solver` is not given.
pub const DEFAULT_FC_SOLVER: &str = "nsgs";

const FC_HELP: &str = "\
Solvers (spec NAME[:key=value,...]):
  nsgs        nonsmooth Gauss-Seidel (local=ac|proj, omega, shuffle, seed, check_every,
              local_max_iter, local_tol)
  nsgs-colored  nsgs over a colouring of the contacts, parallel, the same r for any thread
              count (local, omega, check_every, local_max_iter, local_tol, threads)
  newton-ac   global Alart-Curnier semismooth Newton (linear=auto|dense|sparse, rho_scale,
              max_backtracks, memory, fallback_sweeps, gradient_fallback)
  admm        ADMM with the De Saxce shift (rho_scale, balance_every, check_every)
  apgd-ccp    accelerated projected gradient on the convex relaxation (desaxce, check_every)
  ipm-ccp     convex relaxation as an SOCP through clarabel, De Saxce shift (shift_iter)
  fixed-point Tresca fixed point on the friction threshold (inner_sweeps, local_iter)
  lcp         polyhedral cone as an LCP (k, solver = a signorini-lcp solver name)
  auto        newton-ac with nsgs fallback, then nsgs, then apgd-ccp:desaxce=true
              (nsgs_sweeps, apgd_iter)

JSON output (--json), one object:
  status, solver, dimension, n_contacts, r, u (= W r + q), error (Siconos fc3d_compute_error
  recomputed from r), tol, iterations, solve_seconds, note

Exit codes:
  0  solved (error <= tol)
  1  another status (max_iterations, time_limit, stalled, numerical_failure)
  2  bad input or usage: one line on stderr naming the file and what is wrong
  3  internal error (a bug in signorini): one line on stderr; please report it";

/// Arguments of `signorini fc`.
#[derive(Debug, clap::Args)]
#[command(after_help = FC_HELP)]
pub struct FcArgs {
    /// Problem file (.dat Siconos, .json signorini-fc/1, .hdf5 FCLIB local).
    pub file: PathBuf,
    /// Solver spec `NAME[:key=value,...]`, e.g. `nsgs:local=proj` or `newton-ac`.
    #[arg(long, default_value = DEFAULT_FC_SOLVER)]
    pub solver: String,
    /// Tolerance on the error (0 < tol <= 1e-2; default 1e-8).
    #[arg(long, allow_negative_numbers = true)]
    pub tol: Option<f64>,
    /// Iteration limit (default: the solver's own).
    #[arg(long = "max-iter")]
    pub max_iter: Option<usize>,
    /// Wall-clock limit of the solve, seconds.
    #[arg(long = "time-limit", allow_negative_numbers = true)]
    pub time_limit: Option<f64>,
    /// Warm start: a JSON array, or the JSON output of an earlier `fc` run (its `r` is used).
    #[arg(long = "warm-start")]
    pub warm_start: Option<PathBuf>,
    /// Problem format (dat, json, hdf5) when the extension does not tell.
    #[arg(long, value_parser = parse_format)]
    pub format: Option<FcFormat>,
    /// Print one JSON object instead of a summary.
    #[arg(long)]
    pub json: bool,
}

fn parse_format(s: &str) -> Result<FcFormat, String> {
    FcFormat::from_name(s).ok_or_else(|| format!("unknown format `{s}`; valid: dat, json, hdf5"))
}

fn options(args: &FcArgs) -> Result<SolveOptions, CliError> {
    let time_limit = match args.time_limit {
        None => None,
        Some(s) => match Duration::try_from_secs_f64(s) {
            Ok(d) if s > 0.0 => Some(d),
            _ => {
                return Err(CliError(format!(
                    "--time-limit {s}: must be a finite number of seconds > 0"
                )))
            }
        },
    };
    let options = SolveOptions {
        tol: args.tol,
        max_iter: args.max_iter,
        time_limit,
        history_every: None,
        ..SolveOptions::default()
    };
    signorini_friction::solver::validate_options(&options).map_err(|e| CliError(e.to_string()))?;
    Ok(options)
}

/// Runs the solve.
pub fn run(args: &FcArgs) -> Result<Done, CliError> {
    let options = options(args)?;
    let solver = FcRegistry::builtin()
        .build(&args.solver)
        .map_err(|e| CliError(format!("--solver {}: {e}", args.solver)))?;
    crate::solve::check_spec_agrees(&args.solver, &solver.preset(), &options)?;
    let problem = read_fc_problem(&args.file, args.format)?;
    let warm = match &args.warm_start {
        Some(path) => Some(read_fc_warm_start(path)?),
        None => None,
    };
    let solution = solver
        .solve(&problem, &options, warm.as_deref())
        .map_err(|e| CliError(format!("{}: {e}", args.file.display())))?;
    let code = if solution.status == Status::Solved { 0 } else { 1 };
    let stdout = if args.json {
        to_json(&problem, &solution) + "\n"
    } else {
        summary(args, &problem, &solution)
    };
    Ok(Done { stdout, code })
}

fn to_json(problem: &FcProblem, s: &FcSolution) -> String {
    let v = serde_json::json!({
        "status": s.status.as_str(),
        "solver": s.solver,
        "dimension": problem.dimension(),
        "n_contacts": problem.n_contacts(),
        "r": s.r,
        "u": s.u,
        "error": s.error,
        "tol": s.tol,
        "iterations": s.iterations,
        "solve_seconds": s.solve_seconds,
        "note": s.note,
    });
    v.to_string()
}

fn fmt_vec(v: &[f64]) -> String {
    const SHOWN: usize = 9;
    let mut parts: Vec<String> = v.iter().take(SHOWN).map(|x| format!("{x:.6e}")).collect();
    if v.len() > SHOWN {
        parts.push(format!("... ({} more)", v.len() - SHOWN));
    }
    format!("[{}]", parts.join(", "))
}

fn summary(args: &FcArgs, p: &FcProblem, s: &FcSolution) -> String {
    let storage = if p.is_sparse() { "sparse" } else { "dense" };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "problem          {} (d = {}, {} contacts, {storage} W)",
        args.file.display(),
        p.dimension(),
        p.n_contacts()
    );
    let _ = writeln!(out, "solver           {}", s.solver);
    let _ = writeln!(out, "status           {}", s.status);
    let _ = writeln!(
        out,
        "error            {:.3e} (tol {:.1e}; Siconos fc3d_compute_error)",
        s.error, s.tol
    );
    let _ = writeln!(out, "iterations       {}", s.iterations);
    let _ = writeln!(out, "solve time       {:.3e} s", s.solve_seconds);
    let _ = writeln!(out, "r                {}", fmt_vec(&s.r));
    let _ = writeln!(out, "u                {}", fmt_vec(&s.u));
    if let Some(note) = &s.note {
        let _ = writeln!(out, "note             {note}");
    }
    out
}
