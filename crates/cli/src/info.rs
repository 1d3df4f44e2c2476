//! `signorini info FILE`: matrix-class diagnostics. Until
//! `signorini_lcp::diagnostics::diagnose` lands this reports the cheap facts (size, nonzeros,
//! symmetry, sign of the diagonal); [`Diagnostics::of`] is the one place to swap it in.

use std::fmt::Write as _;
use std::path::PathBuf;

use serde::Serialize;
use signorini_lcp::formats::{self, Format};
use signorini_lcp::Lcp;

use crate::error::CliError;
use crate::Done;

/// Arguments of `signorini info`.
#[derive(Debug, clap::Args)]
pub struct InfoArgs {
    /// Problem file (.json, .dat, .mtx, or a directory holding M.mtx + q.mtx).
    pub file: PathBuf,
    /// Problem format (json, dat, mtx) when the extension does not tell.
    #[arg(long)]
    pub format: Option<Format>,
    /// Print one JSON object instead of a summary.
    #[arg(long)]
    pub json: bool,
}

/// Sign pattern of the diagonal of M.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiagonalSign {
    /// Every diagonal entry > 0.
    Positive,
    /// Every entry >= 0, at least one zero.
    Nonnegative,
    /// At least one entry < 0.
    HasNegative,
    /// n = 0.
    Empty,
}

/// What `info` reports.
#[derive(Debug, Clone, Serialize)]
pub struct Diagnostics {
    /// Problem name (file stem unless the file names it).
    pub name: Option<String>,
    /// Size.
    pub n: usize,
    /// Stored nonzeros.
    pub nnz: usize,
    /// `dense` or `sparse`.
    pub storage: &'static str,
    /// M = M' up to 1e-12 relative to max |M_ij|.
    pub symmetric: bool,
    /// Sign of the diagonal.
    pub diagonal: DiagonalSign,
    /// Smallest diagonal entry (null when n = 0).
    pub min_diagonal: Option<f64>,
    /// Largest diagonal entry (null when n = 0).
    pub max_diagonal: Option<f64>,
}

impl Diagnostics {
    /// Computes the diagnostics of `lcp`.
    pub fn of(lcp: &Lcp) -> Self {
        let n = lcp.n();
        let d = lcp.diag();
        let scale = lcp.to_sparse().val().iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let s = lcp.to_sparse();
        let symmetric = (0..n).all(|i| {
            s.col_idx_of_row_raw(i)
                .iter()
                .zip(s.val_of_row(i))
                .all(|(&j, &v)| (v - lcp.get(j, i)).abs() <= 1e-12 * scale)
        });
        let min = d.iter().copied().fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.min(v))));
        let max = d.iter().copied().fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
        let diagonal = match min {
            None => DiagonalSign::Empty,
            Some(m) if m > 0.0 => DiagonalSign::Positive,
            Some(m) if m >= 0.0 => DiagonalSign::Nonnegative,
            Some(_) => DiagonalSign::HasNegative,
        };
        Self {
            name: lcp.name.clone(),
            n,
            nnz: lcp.nnz(),
            storage: if lcp.is_sparse() { "sparse" } else { "dense" },
            symmetric,
            diagonal,
            min_diagonal: min,
            max_diagonal: max,
        }
    }
}

/// Runs `info`.
pub fn run(args: &InfoArgs) -> Result<Done, CliError> {
    let lcp = formats::read_problem(&args.file, args.format)?;
    let d = Diagnostics::of(&lcp);
    let stdout = if args.json {
        serde_json::to_string(&d).map_err(|e| CliError(e.to_string()))? + "\n"
    } else {
        let mut s = String::new();
        let _ = writeln!(s, "problem    {}", args.file.display());
        let _ = writeln!(s, "n          {}", d.n);
        let _ = writeln!(s, "nnz        {} ({})", d.nnz, d.storage);
        let _ = writeln!(s, "symmetric  {}", d.symmetric);
        let range = match (d.min_diagonal, d.max_diagonal) {
            (Some(a), Some(b)) => format!(" (min {a:.3e}, max {b:.3e})"),
            _ => String::new(),
        };
        let _ = writeln!(s, "diagonal   {}{range}", serde_json::to_value(d.diagonal).ok().and_then(|v| v.as_str().map(String::from)).unwrap_or_default());
        s
    };
    Ok(Done { stdout, code: 0 })
}
