//! `signorini convert IN OUT`: reads a problem in one format and writes it in another (formats
//! by extension, `--from` / `--to` override).

use std::path::PathBuf;

use signorini_lcp::formats::{self, Format};

use crate::error::CliError;
use crate::Done;

/// Shown under the command's `--help`.
const CONVERT_HELP: &str = "\
Exit codes:
  0  written
  2  bad input or usage, or an output that cannot be written: one line on stderr naming
     the file and what is wrong
  3  internal error (a bug in signorini): one line on stderr; please report it";

/// Arguments of `signorini convert`.
#[derive(Debug, clap::Args)]
#[command(after_help = CONVERT_HELP)]
pub struct ConvertArgs {
    /// Input problem (.json, .dat, .mtx, or a directory holding M.mtx + q.mtx).
    pub input: PathBuf,
    /// Output problem (.json, .dat, .mtx, or a directory for M.mtx + q.mtx).
    pub output: PathBuf,
    /// Input format (json, dat, mtx, hdf5 = FCLIB, read-only) when the extension does not tell.
    #[arg(long)]
    pub from: Option<Format>,
    /// Output format (json, dat, mtx) when the extension does not tell.
    #[arg(long)]
    pub to: Option<Format>,
    /// Largest input file read, GiB (default 1).
    #[arg(long = "max-input-size", allow_negative_numbers = true)]
    pub max_input_size: Option<f64>,
}

/// Runs the conversion.
pub fn run(args: &ConvertArgs) -> Result<Done, CliError> {
    let lcp = crate::solve::read_problem(&args.input, args.from, args.max_input_size)?;
    let to = formats::resolve_format(&args.output, args.to)?;
    formats::check_output(&args.output, &[&args.input]).map_err(|e| CliError(e.to_string()))?;
    formats::write_problem(&args.output, &lcp, Some(to))?;
    Ok(Done {
        stdout: format!(
            "wrote {} ({to}, n = {}, nnz = {})\n",
            args.output.display(),
            lcp.n(),
            lcp.nnz()
        ),
        code: 0,
    })
}
