//! `signorini info FILE`: matrix-class diagnostics from `signorini_lcp::diagnostics::diagnose`
//! (symmetry, definiteness of the symmetric part, P- and Z-matrix, diagonal sign,
//! copositive-plus), with the problem's name and storage. A frictional-contact file
//! (Siconos FC `.dat`, `signorini-fc/1` JSON, or any FCLIB file with `--fc`) is described by
//! its dimension, contacts and friction coefficients, and the same diagnostics of W.

use std::fmt::Write as _;
use std::path::PathBuf;

use serde::Serialize;
use signorini_lcp::diagnostics::{diagnose, Diagnostics};
use signorini_lcp::formats::Format;

use crate::error::CliError;
use crate::Done;

/// Shown under the command's `--help`.
const INFO_HELP: &str = "\
JSON output (--json), one object:
  name, storage (dense | sparse), n, nnz, symmetric, definiteness, p_matrix, z_matrix,
  diagonal, copositive_plus_sufficient, min_eigenvalue_sym; for a frictional-contact
  problem also problem = \"fc\", dimension, n_contacts, mu_min, mu_max (the diagnostics
  are of W)

Exit codes:
  0  the file was read and described
  2  bad input or usage, or an output that cannot be written: one line on stderr naming
     the file and what is wrong
  3  internal error (a bug in signorini): one line on stderr; please report it";

/// Arguments of `signorini info`.
#[derive(Debug, clap::Args)]
#[command(after_help = INFO_HELP)]
pub struct InfoArgs {
    /// Problem file (.json, .dat, .mtx, or a directory holding M.mtx + q.mtx).
    pub file: PathBuf,
    /// Problem format (json, dat, mtx, hdf5 = FCLIB) when the extension does not tell.
    #[arg(long)]
    pub format: Option<Format>,
    /// Print one JSON object instead of a summary.
    #[arg(long)]
    pub json: bool,
    /// Read the file as a frictional-contact problem (without it, a file that is not an LCP
    /// is tried as one).
    #[arg(long)]
    pub fc: bool,
    /// Largest problem file read, GiB (default 1).
    #[arg(long = "max-input-size", allow_negative_numbers = true)]
    pub max_input_size: Option<f64>,
}

/// What `info --json` prints: name, storage and every field of [`Diagnostics`].
#[derive(Debug, Serialize)]
struct Report {
    name: Option<String>,
    storage: &'static str,
    #[serde(flatten)]
    diagnostics: Diagnostics,
}

/// What `info --json` prints for a frictional-contact problem.
#[derive(Debug, Serialize)]
struct FcReport {
    name: Option<String>,
    problem: &'static str,
    dimension: usize,
    n_contacts: usize,
    mu_min: f64,
    mu_max: f64,
    storage: &'static str,
    #[serde(flatten)]
    diagnostics: Diagnostics,
}

/// Describes a frictional-contact problem.
fn run_fc(args: &InfoArgs) -> Result<Done, CliError> {
    let problem = signorini_friction::formats::read_fc_problem(&args.file, None)?;
    let mu = problem.mu();
    let report = FcReport {
        name: problem.name.clone(),
        problem: "fc",
        dimension: problem.dimension(),
        n_contacts: problem.n_contacts(),
        mu_min: mu.iter().copied().fold(f64::INFINITY, f64::min),
        mu_max: mu.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        storage: if problem.is_sparse() { "sparse" } else { "dense" },
        diagnostics: diagnose(problem.data()),
    };
    let stdout = if args.json {
        serde_json::to_string(&report).map_err(|e| CliError(e.to_string()))? + "\n"
    } else {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "problem  {} (frictional contact, {}D, {} contacts, mu in [{}, {}], {})",
            args.file.display(),
            report.dimension,
            report.n_contacts,
            report.mu_min,
            report.mu_max,
            report.storage
        );
        let _ = writeln!(s, "W:");
        let _ = write!(s, "{}", report.diagnostics);
        s
    };
    Ok(Done { stdout, code: 0 })
}

/// Runs `info`.
pub fn run(args: &InfoArgs) -> Result<Done, CliError> {
    if args.fc {
        return run_fc(args);
    }
    let lcp = match crate::solve::read_problem(&args.file, args.format, args.max_input_size) {
        Ok(lcp) => lcp,
        // Not an LCP: a frictional-contact file is described as one, anything else keeps the
        // LCP reader's error.
        Err(e) => return run_fc(args).map_err(|_| e),
    };
    let report = Report {
        name: lcp.name.clone(),
        storage: if lcp.is_sparse() { "sparse" } else { "dense" },
        diagnostics: diagnose(&lcp),
    };
    let stdout = if args.json {
        serde_json::to_string(&report).map_err(|e| CliError(e.to_string()))? + "\n"
    } else {
        let mut s = String::new();
        let _ = writeln!(s, "problem  {} ({})", args.file.display(), report.storage);
        let _ = write!(s, "{}", report.diagnostics);
        s
    };
    Ok(Done { stdout, code: 0 })
}
