//! `cargo xtask`: the project's tasks as a Rust program (argument parsing and calls only; the
//! work lives in the library crates). One module per subcommand; arguments parsed by clap, so
//! `cargo xtask <command> --help` and `--flag=value` work everywhere.

mod bench;
mod ci;
mod example;
mod merge;
mod progress;
mod study;
mod verify;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// The tasks of the signorini workspace.
#[derive(Debug, Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Every command `cargo xtask` dispatches (the tidy test checks docs/ARCHITECTURE.md lists the
/// same set).
#[derive(Debug, Subcommand)]
enum Command {
    /// Run the reference cases, print a summary table, write report.md, results.json and plots/;
    /// exit 1 if any check fails.
    Verify(verify::VerifyArgs),
    /// Solver study: table, success rates and performance profile (target/study/...).
    Study(study::StudyArgs),
    /// Merge the shard results of one study into the whole study's report.
    Merge(merge::MergeArgs),
    /// Criterion benches, or with --peers the side-by-side run against Siconos, Drake and
    /// clarabel.
    Bench(bench::BenchArgs),
    /// What CI runs: fmt --check, clippy -D warnings, doc (-D warnings), unused dependencies,
    /// tests, verify --quick; stops at the first failure.
    Ci,
}

/// Names of the commands, as `cargo xtask` spells them.
pub const COMMANDS: [&str; 5] = ["verify", "study", "merge", "bench", "ci"];

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let result = match cli.command {
        Command::Verify(args) => verify::main(args),
        Command::Study(args) => study::main(args),
        Command::Merge(args) => merge::main(args),
        Command::Bench(args) => bench::main(args),
        Command::Ci => ci::main(),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::from(2)
        }
    }
}

/// `target/<kind>/<name>` under the workspace root, with `target/<kind>` created: the default
/// output folder of a run (an explicit `--out` must have an existing parent).
fn default_out(kind: &str, name: &str) -> Result<PathBuf, String> {
    let parent = workspace_root().join("target").join(kind);
    std::fs::create_dir_all(&parent)
        .map_err(|e| format!("{}: cannot create: {e}", parent.display()))?;
    Ok(parent.join(name))
}

/// The workspace root (the parent of this crate's folder).
fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    #[test]
    fn the_command_list_matches_the_dispatch() {
        let names: Vec<String> =
            Cli::command().get_subcommands().map(|c| c.get_name().to_string()).collect();
        assert_eq!(names, COMMANDS);
    }

    #[test]
    fn flags_take_the_equals_form() {
        let cli = Cli::try_parse_from(["xtask", "verify", "--quick", "--filter=lcp/seed"])
            .expect("parses");
        let Command::Verify(args) = cli.command else { panic!("verify") };
        assert!(args.quick);
        assert_eq!(args.filter.as_deref(), Some("lcp/seed"));
        assert!(Cli::try_parse_from(["xtask", "verify", "--bogus"]).is_err());
    }
}
