//! `cargo xtask`: the project's tasks as a Rust program (argument parsing and calls only; the
//! work lives in the library crates). One module per subcommand.

mod bench;
mod ci;
mod example;
mod merge;
mod study;
mod verify;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

const HELP: &str = "\
usage: cargo xtask <command> [options]

commands:
  verify [--quick] [--filter PATTERN] [--out DIR] [--problems DIR]...
         run the reference cases, print a summary table, write report.md, results.json and
         plots/ to DIR (default target/verify/<run-id>); exit 1 if any check fails.
         PATTERN is a substring of case ids, `*` matching any run of characters.
         --problems DIR adds every problem file in DIR (.json, .dat, .mtx pairs, .hdf5
         FCLIB) as a case lcp/user/<file>. The full run (no --quick) also builds and runs
         the external-solver example crate (verification/examples/external-solver).
  study FILE.toml [--shard K/N] [--out DIR] [--threads T]
         solver study: table, success rates and performance profile (target/study/...).
  merge DIR... [--out DIR]
         merge the shard results of one study into the whole study's report.
  bench [--quick] [--peers [--profile P]]
         criterion benches (cargo bench -p signorini-benches); --peers: side-by-side run
         against Siconos / Drake / clarabel on the same problem files (target/bench/<run>/).
  ci     cargo fmt --check, clippy -D warnings, doc (-D warnings), test, verify --quick;
         stops at the first failure.
  help   this text.
";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (command, rest) = match args.split_first() {
        Some((c, r)) => (c.as_str(), r),
        None => {
            eprint!("{HELP}");
            return ExitCode::from(2);
        }
    };
    let result = match command {
        "verify" => verify::main(rest),
        "ci" => ci::main(rest),
        "study" => study::main(rest),
        "merge" => merge::main(rest),
        "bench" => bench::main(rest),
        "help" | "--help" | "-h" => {
            print!("{HELP}");
            Ok(ExitCode::SUCCESS)
        }
        other => Err(format!(
            "unknown command `{other}`; commands: verify, study, merge, bench, ci, help"
        )),
    };
    match result {
        Ok(code) => code,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::from(2)
        }
    }
}

/// The workspace root (the parent of this crate's folder).
fn workspace_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().unwrap_or(manifest).to_path_buf()
}
