//! The check that a solver defined outside the workspace can be added to a study: builds and
//! runs the stand-alone crate `verification/examples/external-solver` (its own workspace) with
//! `cargo run --manifest-path ...`, sharing this workspace's target directory so the
//! dependencies already built are reused, and checks that its solver appears in the study's
//! results table with every problem solved, beside the built-in `lemke` and `pgs`.
//!
//! Part of the full `cargo xtask verify` only (not `--quick`): the first build of the example
//! takes a while on a small CI machine.

use std::path::{Path, PathBuf};
use std::process::Command;

use signorini_verification::{Case, Check, Context};

/// Case id of the check.
pub const ID: &str = "verification/examples/external-solver";

const SOURCE: &str = "verification/examples/external-solver (a projected Jacobi solver written \
                      outside the workspace, registered beside the built-in solvers)";

/// Solver specs of the example's study and whether each must solve every problem.
const EXPECTED: &[(&str, bool)] =
    &[("pjacobi", true), ("pjacobi:omega=0.8", true), ("lemke", true), ("pgs", true)];

/// The example crate as a case.
pub struct ExternalSolverExample {
    root: PathBuf,
}

impl ExternalSolverExample {
    /// The check for the workspace at `root`.
    pub fn new(root: &Path) -> Self {
        Self { root: root.to_path_buf() }
    }

    fn check(&self, solver: Option<&str>, pass: bool, expected: String, observed: String) -> Check {
        Check::new(ID, solver, "example.external_solver", pass, expected, observed, None, SOURCE)
    }

    fn fail(&self, observed: String) -> Vec<Check> {
        vec![self.check(
            None,
            false,
            "the example crate builds and runs its study".into(),
            observed,
        )]
    }
}

/// Rows `(problem, solver, status)` of the study table the example prints
/// (`| `problem` | n | `solver` | status | iterations | residual | time |`).
pub fn table_rows(stdout: &str) -> Vec<(String, String, String)> {
    stdout
        .lines()
        .filter_map(|line| {
            let cells: Vec<&str> =
                line.trim().trim_matches('|').split('|').map(str::trim).collect();
            match cells.as_slice() {
                [problem, n, solver, status, _, _, _]
                    if problem.starts_with('`') && n.parse::<usize>().is_ok() =>
                {
                    Some((
                        problem.trim_matches('`').to_string(),
                        solver.trim_matches('`').to_string(),
                        status.to_string(),
                    ))
                }
                _ => None,
            }
        })
        .collect()
}

impl Case for ExternalSolverExample {
    fn id(&self) -> &str {
        ID
    }
    fn kind(&self) -> &str {
        "example"
    }
    fn source(&self) -> &str {
        SOURCE
    }
    fn quick(&self) -> bool {
        false
    }
    fn run(&self, _ctx: &Context) -> Vec<Check> {
        let manifest = self.root.join("verification/examples/external-solver/Cargo.toml");
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map_or_else(|| self.root.join("target"), PathBuf::from);
        let out = target.join("verify").join("external-solver-example");
        // The study writes into `out`, whose parent exists only when the report of this run
        // went to the same target folder (not with a CARGO_TARGET_DIR elsewhere).
        if let Some(parent) = out.parent() {
            if let Err(e) = std::fs::create_dir_all(parent) {
                return self.fail(format!("cannot create {}: {e}", parent.display()));
            }
        }
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let output = Command::new(cargo)
            .arg("run")
            .arg("--quiet")
            .arg("--manifest-path")
            .arg(&manifest)
            .arg("--")
            .arg(manifest.with_file_name("study.toml"))
            .arg(&out)
            .env("CARGO_TARGET_DIR", &target)
            .output();
        let output = match output {
            Ok(o) => o,
            Err(e) => return self.fail(format!("cannot start cargo: {e}")),
        };
        if !output.status.success() {
            let stderr = String::from_utf8_lossy(&output.stderr);
            let tail: Vec<&str> = stderr.lines().rev().take(6).collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            return self.fail(format!(
                "cargo run failed ({}): {}",
                output.status,
                tail.join(" / ")
            ));
        }
        let rows = table_rows(&String::from_utf8_lossy(&output.stdout));
        let mut problems: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
        problems.sort_unstable();
        problems.dedup();
        EXPECTED
            .iter()
            .map(|&(solver, all)| {
                let mine: Vec<_> = rows.iter().filter(|r| r.1 == solver).collect();
                let solved = mine.iter().filter(|r| r.2 == "solved").count();
                let pass = !mine.is_empty()
                    && (!all || solved == mine.len())
                    && mine.len() == problems.len();
                self.check(
                    Some(solver),
                    pass,
                    format!("`{solver}` in the example study's table, solved on every problem"),
                    format!("solved {solved} of {} problems ({} rows)", problems.len(), mine.len()),
                )
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_rows_are_parsed_from_the_study_markdown() {
        let md = "| problem | n | solver | status | iterations | residual | time [ms] |\n\
                  |---|---|---|---|---|---|---|\n\
                  | `lcp/seed/a1` | 2 | `pjacobi` | solved | 12 | 3.1e-11 | 0.010 |\n\
                  | `lcp/seed/a1` | 2 | `lemke` | error: x \\| y | 0 | – | 0.000 |\n";
        let rows = table_rows(md);
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0], ("lcp/seed/a1".into(), "pjacobi".into(), "solved".into()));
    }
}
