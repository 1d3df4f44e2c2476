//! `signorini solve FILE`: runs a solver chosen by name from the registry and reports the
//! solver-independent merit recomputed from z.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Duration;

use signorini_lcp::formats::{self, Format, FormatErrorKind, SolutionRecord};
use signorini_lcp::memory::fmt_bytes;
use signorini_lcp::{Lcp, LcpSolver, Registry, Solution, SolveError, SolveOptions, Status};

use crate::error::CliError;
use crate::Done;

/// The solver used when `--solver` is not given.
pub const DEFAULT_SOLVER: &str = "auto";

/// Shown under `signorini solve --help`.
const SOLVE_HELP: &str = "\
Solvers: `signorini solvers` lists every registered solver with its parameters and defaults
(`--json` for a machine-readable list).

JSON output (--json), one object:
  status, solver, n, z, w, residual (||min(z, w)||_2 / ||q||_2 recomputed from z),
  complementarity (max |z_i w_i|), z_violation, w_violation, tol, iterations, pivots,
  matvecs, factorizations, solve_seconds, certificate (null | {kind: farkas, y} |
  {kind: enumeration, index_sets}), note, warm_start (absent without --warm-start; \"used\" or
  \"ignored\": lemke, murty, enum and qp ignore a warm start)

Limits (the work is bounded by the request, never by a crash):
  --memory-limit GiB    budget of each dense array a solver sizes from the problem (default 2,
                        i.e. signorini_lcp::DEFAULT_MEMORY_BUDGET); lemke, murty and enum need a
                        dense copy of M (lemke 2 n^2, murty 3 n^2 doubles), so a large sparse
                        problem is refused with the bytes it would need (exit 2); auto never
                        gives them a sparse M whose dense form exceeds the budget
  --max-input-size GiB  bytes read from the problem file (default 1); a larger file, or a
                        stream such as /dev/urandom, is refused (exit 2)

Exit codes:
  0  solved
  1  another status (infeasible, no_solution, ray_termination, max_iterations, time_limit,
     stalled, numerical_failure)
  2  bad input or usage, or an output that cannot be written: one line on stderr naming
     the file and what is wrong
  3  internal error (a bug in signorini): one line on stderr; please report it";

/// Arguments of `signorini solve`.
#[derive(Debug, clap::Args)]
#[command(after_help = SOLVE_HELP)]
pub struct SolveArgs {
    /// Problem file (.json, .dat, .mtx, or a directory holding M.mtx + q.mtx).
    pub file: PathBuf,
    /// Solver spec `NAME[:key=value,...]`, e.g. `lemke` or `pgs:omega=1.3`; `auto` picks by
    /// matrix class. `signorini solvers` lists the names and parameters.
    #[arg(long, default_value = DEFAULT_SOLVER)]
    pub solver: String,
    /// Tolerance on the residual ||min(z, w)|| / ||q|| and on every row at its own scale;
    /// 0 < tol <= 1e-2 (default: the solver's own).
    #[arg(long, allow_negative_numbers = true)]
    pub tol: Option<f64>,
    /// Iteration (pivot) limit (default: the solver's own).
    #[arg(long = "max-iter")]
    pub max_iter: Option<usize>,
    /// Wall-clock limit of the solve, seconds.
    #[arg(long = "time-limit", allow_negative_numbers = true)]
    pub time_limit: Option<f64>,
    /// Warm start: a JSON array, or the JSON output of an earlier solve (its `z` is used).
    #[arg(long = "warm-start")]
    pub warm_start: Option<PathBuf>,
    /// Problem format (json, dat, mtx, hdf5 = FCLIB) when the extension does not tell.
    #[arg(long)]
    pub format: Option<Format>,
    /// Print one JSON object (status, solver, n, z, w, residual, ...) instead of a summary.
    #[arg(long)]
    pub json: bool,
    /// Budget of each dense array a solver sizes from the problem, GiB (default 2).
    #[arg(long = "memory-limit", allow_negative_numbers = true)]
    pub memory_limit: Option<f64>,
    /// Largest problem file read, GiB (default 1).
    #[arg(long = "max-input-size", allow_negative_numbers = true)]
    pub max_input_size: Option<f64>,
}

/// Reads a problem through the input-size cap `max_input_size` GiB (default
/// [`formats::DEFAULT_MAX_INPUT_BYTES`]), naming the flag when the file is larger.
pub(crate) fn read_problem(
    file: &Path,
    format: Option<Format>,
    max_input_size: Option<f64>,
) -> Result<Lcp, CliError> {
    let max_input = match max_input_size {
        Some(g) => gib_to_bytes("--max-input-size", g)?,
        None => formats::DEFAULT_MAX_INPUT_BYTES,
    };
    formats::read_problem_limited(file, format, max_input).map_err(|e| match e.kind {
        FormatErrorKind::TooLarge { limit } => CliError(format!(
            "{}: larger than --max-input-size {} GiB ({limit} bytes): raise --max-input-size to \
             read it",
            file.display(),
            limit as f64 / (1u64 << 30) as f64
        )),
        _ => CliError::from(e),
    })
}

/// `gib` GiB in bytes, when it is a number of GiB > 0 that fits a u64 (at least one byte).
pub(crate) fn gib_to_bytes(flag: &str, gib: f64) -> Result<u64, CliError> {
    let bytes = gib * (1u64 << 30) as f64;
    if bytes.is_finite() && bytes >= 1.0 && bytes < u64::MAX as f64 {
        Ok(bytes as u64)
    } else {
        Err(CliError(format!("{flag} {gib}: must be a number of GiB > 0 (at most 1.6e10)")))
    }
}

pub(crate) fn build_solver(spec: &str) -> Result<Box<dyn LcpSolver>, CliError> {
    let registry = Registry::builtin();
    let names = registry.names();
    let chosen = if spec.trim() == DEFAULT_SOLVER && !names.contains(&DEFAULT_SOLVER) {
        match names.first() {
            Some(first) => first.to_string(),
            None => return Err(CliError("no solver is registered in this build".into())),
        }
    } else {
        spec.to_string()
    };
    registry.build(&chosen).map_err(|e| CliError(format!("--solver {spec}: {e}")))
}

/// Refuses a flag (`--tol`, `--max-iter`, `--time-limit`) beside a spec string that sets the
/// same key to another value: the spec would win (signorini-lcp's precedence), so the flag
/// would be silently ignored.
pub(crate) fn check_spec_agrees(
    spec: &str,
    preset: &SolveOptions,
    flags: &SolveOptions,
) -> Result<(), CliError> {
    let conflict = |key: &str, flag: &str, a: String, b: String| {
        CliError(format!(
            "{flag} {b} and --solver {spec} (which sets {key}={a}) disagree; give the value once"
        ))
    };
    if let (Some(a), Some(b)) = (preset.tol, flags.tol) {
        if a != b {
            return Err(conflict("tol", "--tol", a.to_string(), b.to_string()));
        }
    }
    if let (Some(a), Some(b)) = (preset.max_iter, flags.max_iter) {
        if a != b {
            return Err(conflict("max_iter", "--max-iter", a.to_string(), b.to_string()));
        }
    }
    if let (Some(a), Some(b)) = (preset.time_limit, flags.time_limit) {
        if a != b {
            let (a, b) = (a.as_secs_f64().to_string(), b.as_secs_f64().to_string());
            return Err(conflict("time_limit", "--time-limit", a, b));
        }
    }
    Ok(())
}

fn options(args: &SolveArgs) -> Result<SolveOptions, CliError> {
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
    let memory_budget = args.memory_limit.map(|g| gib_to_bytes("--memory-limit", g)).transpose()?;
    let options = SolveOptions {
        tol: args.tol,
        max_iter: args.max_iter,
        time_limit,
        history_every: None,
        memory_budget,
    };
    options.validate().map_err(|e| CliError(e.to_string()))?;
    Ok(options)
}

/// Runs the solve.
pub fn run(args: &SolveArgs) -> Result<Done, CliError> {
    let options = options(args)?;
    let lcp = read_problem(&args.file, args.format, args.max_input_size)?;
    let solver = build_solver(&args.solver)?;
    check_spec_agrees(&args.solver, &solver.preset(), &options)?;
    let warm = match &args.warm_start {
        Some(path) => {
            let z = formats::read_warm_start(path)?;
            if z.len() != lcp.n() {
                return Err(CliError(format!(
                    "{}: warm start has {} entries, the problem in {} has n = {}",
                    path.display(),
                    z.len(),
                    args.file.display(),
                    lcp.n()
                )));
            }
            Some(z)
        }
        None => None,
    };
    let solution = solver.solve(&lcp, &options, warm.as_deref()).map_err(|e| match e {
        SolveError::Memory(m) => CliError(format!(
            "{}: {} would need {} bytes ({}) of memory, more than --memory-limit {} GiB: use a \
             sparse-capable solver (auto, bpp, pgs, apgd, gpcg, newton-fb, ipm, qp) or raise \
             --memory-limit",
            args.file.display(),
            m.what,
            m.bytes,
            fmt_bytes(m.bytes),
            m.budget as f64 / (1u64 << 30) as f64
        )),
        e => CliError(format!("{}: {e}", args.file.display())),
    })?;
    let code = if solution.status == Status::Solved { 0 } else { 1 };
    let stdout = if args.json {
        formats::solution_to_json(&lcp, &solution) + "\n"
    } else {
        summary(args, &lcp, &solution)
    };
    Ok(Done { stdout, code })
}

fn fmt_vec(v: &[f64]) -> String {
    const SHOWN: usize = 8;
    let mut parts: Vec<String> = v.iter().take(SHOWN).map(|x| format!("{x:.6e}")).collect();
    if v.len() > SHOWN {
        parts.push(format!("... ({} more)", v.len() - SHOWN));
    }
    format!("[{}]", parts.join(", "))
}

fn summary(args: &SolveArgs, lcp: &Lcp, solution: &Solution) -> String {
    let r = SolutionRecord::new(lcp, solution);
    let storage = if lcp.is_sparse() { "sparse" } else { "dense" };
    let mut s = String::new();
    let _ = writeln!(
        s,
        "problem          {} (n = {}, {storage}, nnz = {})",
        args.file.display(),
        r.n,
        lcp.nnz()
    );
    let _ = writeln!(s, "solver           {}", r.solver);
    let _ = writeln!(s, "status           {}", r.status);
    let _ = writeln!(
        s,
        "residual         {:.3e} (tol {:.1e}; ||min(z, w)|| / ||q||)",
        r.residual, r.tol
    );
    let _ = writeln!(s, "complementarity  {:.3e} (max |z_i w_i|)", r.complementarity);
    let _ = writeln!(s, "violations       z {:.3e}, w {:.3e}", r.z_violation, r.w_violation);
    let pivots = r.pivots.map_or_else(|| "-".to_string(), |p| p.to_string());
    let _ = writeln!(
        s,
        "iterations       {} (pivots {pivots}, matvecs {}, factorizations {})",
        r.iterations, r.matvecs, r.factorizations
    );
    let _ = writeln!(s, "solve time       {:.3e} s", r.solve_seconds);
    let _ = writeln!(s, "z                {}", fmt_vec(&r.z));
    let _ = writeln!(s, "w                {}", fmt_vec(&r.w));
    if let Some(c) = &r.certificate {
        let _ = writeln!(s, "certificate      {}", serde_json::to_string(c).unwrap_or_default());
    }
    if let Some(note) = &r.note {
        let _ = writeln!(s, "note             {note}");
    }
    s
}
