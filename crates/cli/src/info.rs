//! `signorini info FILE`: matrix-class diagnostics from `signorini_lcp::diagnostics::diagnose`
//! (symmetry, definiteness of the symmetric part, P- and Z-matrix, diagonal sign,
//! copositive-plus), with the problem's name and storage.

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
  diagonal, copositive_plus_sufficient, min_eigenvalue_sym

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

/// Runs `info`.
pub fn run(args: &InfoArgs) -> Result<Done, CliError> {
    let lcp = crate::solve::read_problem(&args.file, args.format, args.max_input_size)?;
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
