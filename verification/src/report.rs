//! The verification report: `target/verify/<run-id>/report.md`, `results.json` and
//! `plots/*.svg`, with the provenance a reader needs to reproduce or cite the run.
//!
//! `checks` hold no timings, so two runs with the same inputs and thread count have identical
//! `checks`; only `provenance.date` and `run_id` differ.

use signorini_lcp::formats::{create_output_dir, write_atomic};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::check::{Check, Summary};
use crate::plot::{LogLogPlot, PlotError};

/// Version tag of `results.json`.
pub const FORMAT: &str = "signorini-verify/1";

/// Where and with what a run was made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Provenance {
    /// `git rev-parse HEAD`, or "unknown" without git.
    pub git_commit: String,
    /// True when `git status --porcelain` lists changes; `None` without git.
    pub git_dirty: Option<bool>,
    /// `rustc -V`, or "unknown".
    pub rustc: String,
    /// `sha256:<hex>` of Cargo.lock, or "unknown" when it cannot be read.
    pub cargo_lock: String,
    /// CPU model from /proc/cpuinfo, or "unknown".
    pub cpu: String,
    /// Worker threads of the run.
    pub threads: usize,
    /// Seeds of the generated data in the selected cases.
    pub seeds: Vec<u64>,
    /// UTC date and time of the run, RFC 3339.
    pub date: String,
    /// The command line or selection that produced the run.
    pub selection: String,
}

impl Provenance {
    /// Collects the provenance of a run in workspace `root`.
    pub fn collect(root: &Path, threads: usize, seeds: Vec<u64>, selection: &str) -> Self {
        let git =
            |args: &[&str]| command_output(Command::new("git").arg("-C").arg(root).args(args));
        let git_commit = git(&["rev-parse", "HEAD"]).unwrap_or_else(|| "unknown".into());
        let git_dirty = git(&["status", "--porcelain"]).map(|s| !s.trim().is_empty());
        let rustc =
            command_output(Command::new("rustc").arg("-V")).unwrap_or_else(|| "unknown".into());
        let cargo_lock = std::fs::read(root.join("Cargo.lock"))
            .map(|bytes| format!("sha256:{}", sha256_hex(&bytes)))
            .unwrap_or_else(|_| "unknown".into());
        Self {
            git_commit,
            git_dirty,
            rustc,
            cargo_lock,
            cpu: cpu_model(),
            threads,
            seeds,
            date: rfc3339(SystemTime::now()),
            selection: selection.into(),
        }
    }
}

fn command_output(cmd: &mut Command) -> Option<String> {
    let out = cmd.output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

/// `time` as RFC 3339 UTC with whole seconds, e.g. `2026-12-01T21:05:07Z`.
pub fn rfc3339(time: SystemTime) -> String {
    let (y, mo, d, h, mi, s) = civil(time);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

/// A run id from `time`: `20261201T210507Z`.
pub fn run_id(time: SystemTime) -> String {
    let (y, mo, d, h, mi, s) = civil(time);
    format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z")
}

/// Calendar date and time of day (UTC), by Hinnant's days-from-civil inverse.
fn civil(time: SystemTime) -> (i64, u32, u32, u32, u32, u32) {
    let secs = time.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d, (rem / 3600) as u32, (rem % 3600 / 60) as u32, (rem % 60) as u32)
}

/// A complete run: what `results.json` holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    /// [`FORMAT`].
    pub format: String,
    /// The run id (also the folder name).
    pub run_id: String,
    /// Where and with what the run was made.
    pub provenance: Provenance,
    /// Counts by status.
    pub summary: Summary,
    /// Every check, in case order.
    pub checks: Vec<Check>,
    /// Plots to write under `plots/` (name without extension, plot); not part of the JSON.
    #[serde(skip)]
    pub plots: Vec<(String, LogLogPlot)>,
}

impl Report {
    /// A report of `checks` with its summary.
    pub fn new(run_id: String, provenance: Provenance, checks: Vec<Check>) -> Self {
        Self {
            format: FORMAT.into(),
            run_id,
            provenance,
            summary: Summary::of(&checks),
            checks,
            plots: Vec::new(),
        }
    }

    /// The Markdown text of `report.md`.
    pub fn markdown(&self) -> String {
        let p = &self.provenance;
        let dirty = match p.git_dirty {
            Some(true) => " (dirty)",
            Some(false) => "",
            None => " (dirty flag unknown)",
        };
        let s = &self.summary;
        let mut md = format!(
            "# signorini verification report {}\n\n\
             {} pass, {} fail, {} expected failure ({} checks).\n\n\
             ## Provenance\n\n\
             | | |\n|---|---|\n\
             | git commit | `{}`{dirty} |\n| rustc | {} |\n| Cargo.lock | `{}` |\n\
             | CPU | {} |\n| threads | {} |\n| seeds | {} |\n| date (UTC) | {} |\n\
             | selection | `{}` |\n\n\
             ## Checks\n\n\
             | id | kind | status | expected | observed | tolerance | source |\n\
             |---|---|---|---|---|---|---|\n",
            self.run_id,
            s.pass,
            s.fail,
            s.expected_failure,
            self.checks.len(),
            p.git_commit,
            p.rustc,
            p.cargo_lock,
            p.cpu,
            p.threads,
            if p.seeds.is_empty() {
                "none".to_string()
            } else {
                p.seeds.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
            },
            p.date,
            p.selection,
        );
        for c in &self.checks {
            let tol = c.tolerance.map_or(String::new(), |t| format!("{t:.0e}"));
            md.push_str(&format!(
                "| `{}` | {} | **{}** | {} | {} | {} | {} |\n",
                c.id,
                c.kind,
                c.status,
                md_cell(&c.expected),
                md_cell(&c.observed),
                tol,
                md_cell(&c.source)
            ));
        }
        if !self.plots.is_empty() {
            md.push_str("\n## Plots\n\n");
            for (name, plot) in &self.plots {
                md.push_str(&format!("![{}](plots/{name}.svg)\n\n", plot.title));
            }
        }
        md
    }
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// Why a report could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A file or folder could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The JSON could not be produced.
    #[error("cannot serialise results.json: {0}")]
    Json(String),
    /// A plot failed.
    #[error(transparent)]
    Plot(#[from] PlotError),
    /// An output file or folder could not be written (missing folder, file system).
    #[error(transparent)]
    Output(#[from] signorini_lcp::formats::OutputError),
}

/// Writes `report.md`, `results.json` and `plots/*.svg` into `dir` and returns the path of
/// `report.md`. `dir` is created when its parent exists (a missing parent is an error); every
/// file is written to a temporary name and renamed ([`write_atomic`]).
pub fn write_report(dir: &Path, report: &Report) -> Result<PathBuf, ReportError> {
    let plots = dir.join("plots");
    create_output_dir(dir)?;
    create_output_dir(&plots)?;
    let json =
        serde_json::to_string_pretty(report).map_err(|e| ReportError::Json(e.to_string()))?;
    write_atomic(&dir.join("results.json"), (json + "\n").as_bytes())?;
    for (name, plot) in &report.plots {
        plot.write(&plots.join(format!("{name}.svg")))?;
    }
    let md = dir.join("report.md");
    write_atomic(&md, report.markdown().as_bytes())?;
    Ok(md)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn dates_are_rfc3339_utc() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        // 2000-02-29 12:34:56 UTC = 951827696 s (a leap day in a century leap year).
        let t = UNIX_EPOCH + Duration::from_secs(951_827_696);
        assert_eq!(rfc3339(t), "2000-02-29T12:34:56Z");
        assert_eq!(run_id(t), "20000229T123456Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_798_761_599);
        assert_eq!(rfc3339(t), "2026-12-31T23:59:59Z");
    }

    #[test]
    fn sha256_of_abc_is_the_standard_vector() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}

#[cfg(test)]
mod write_tests {
    use super::*;
    use crate::plot::{Marker, Series};

    #[test]
    fn report_folder_holds_markdown_json_and_plots() {
        let dir =
            std::env::temp_dir().join(format!("signorini-report-test-{}", std::process::id()));
        let check = Check::new(
            "lcp/x",
            Some("s"),
            "lcp.point",
            true,
            "z = (1)".into(),
            "z = (1) | piped".into(),
            Some(1e-10),
            "test",
        );
        let prov = Provenance::collect(Path::new("."), 1, vec![7], "test");
        let mut report = Report::new("run".into(), prov, vec![check]);
        report.plots.push((
            "order".into(),
            LogLogPlot {
                title: "t".into(),
                x_label: "h".into(),
                y_label: "err".into(),
                series: vec![Series {
                    label: "e".into(),
                    points: vec![(0.1, 0.01), (0.05, 0.0025)],
                    marker: Marker::LinePoints,
                }],
            },
        ));
        let md = write_report(&dir, &report).expect("writes");
        let text = std::fs::read_to_string(md).expect("report.md");
        assert!(text.contains("| `lcp/x@s` | lcp.point | **pass** |"));
        assert!(text.contains("z = (1) \\| piped"), "pipes are escaped in table cells");
        assert!(text.contains("![t](plots/order.svg)"));
        let json = std::fs::read_to_string(dir.join("results.json")).expect("results.json");
        let back: Report = serde_json::from_str(&json).expect("parses");
        assert_eq!(back.checks, report.checks);
        assert_eq!(back.provenance.seeds, vec![7]);
        assert!(dir.join("plots/order.svg").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
