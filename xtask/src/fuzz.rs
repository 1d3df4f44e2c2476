//! `cargo xtask fuzz [--time S] [--target NAME]... [--sanitizer address|none]`: runs every
//! cargo-fuzz target of `fuzz/` (libFuzzer, coverage guided) for S seconds each, seeded from the
//! repository's own files (signorini_verification::fuzz::seeds), and prints the executions per
//! target as each ends (then a table); a target that crashes leaves its reproducer under
//! `fuzz/artifacts/<target>/`, the other targets still run, and the command fails at the end. cargo-fuzz runs
//! on the stable toolchain through `RUSTC_BOOTSTRAP=1`.

use std::path::Path;
use std::process::{Command, ExitCode, Stdio};

use signorini_verification::fuzz::{seeds, HARNESSES};

/// Arguments of `cargo xtask fuzz`.
#[derive(Debug, clap::Args)]
pub struct FuzzArgs {
    /// Seconds per target.
    #[arg(long, value_name = "S", default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub time: u64,
    /// Run only these targets (repeatable; default: all).
    #[arg(long = "target", value_name = "NAME")]
    pub targets: Vec<String>,
    /// libFuzzer sanitizer: none (fast; the workspace forbids unsafe code) or address.
    #[arg(long, default_value = "none", value_parser = ["none", "address"])]
    pub sanitizer: String,
}

pub fn main(args: FuzzArgs) -> Result<ExitCode, String> {
    let root = super::workspace_root();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let installed = Command::new(&cargo)
        .args(["fuzz", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !installed {
        return Err("fuzz: cargo-fuzz is not installed (cargo install cargo-fuzz)".into());
    }
    let names: Vec<&str> = HARNESSES.iter().map(|(n, _)| *n).collect();
    for t in &args.targets {
        if !names.contains(&t.as_str()) {
            return Err(format!("fuzz: unknown target `{t}`; targets: {}", names.join(", ")));
        }
    }
    let chosen: Vec<&str> = if args.targets.is_empty() {
        names
    } else {
        names.into_iter().filter(|n| args.targets.iter().any(|t| t == n)).collect()
    };
    let mut table = Vec::new();
    let row = |name: &str, runs: Option<u64>, size: usize, state: &str| {
        let runs = runs.map_or_else(|| "?".into(), |r| r.to_string());
        format!("{name:<18} {runs:>14} {size:>10}  {state}")
    };
    for name in chosen {
        let corpus = root.join("target").join("fuzz").join("corpus").join(name);
        write_seeds(&corpus, name)?;
        eprintln!("xtask fuzz: {name}: {} s", args.time);
        let output = Command::new(&cargo)
            .current_dir(root.join("fuzz"))
            .env("RUSTC_BOOTSTRAP", "1")
            .env("CARGO_TARGET_DIR", root.join("target").join("fuzz").join("build"))
            .args(["fuzz", "run", "--sanitizer", &args.sanitizer, name])
            .arg(&corpus)
            .arg("--")
            .arg(format!("-max_total_time={}", args.time))
            .args(["-rss_limit_mb=4096", "-timeout=20", "-print_final_stats=1"])
            .stderr(Stdio::piped())
            .output()
            .map_err(|e| format!("fuzz: cannot start cargo fuzz: {e}"))?;
        let log = String::from_utf8_lossy(&output.stderr);
        let runs = final_stat(&log, "stat::number_of_executed_units:");
        let corpus_size = std::fs::read_dir(&corpus).map(|d| d.count()).unwrap_or(0);
        let state = if output.status.success() {
            "ok".to_string()
        } else {
            let tail: Vec<&str> = log.lines().rev().take(30).collect();
            eprintln!("{}", tail.into_iter().rev().collect::<Vec<_>>().join("\n"));
            format!("FAILED (reproducer under fuzz/artifacts/{name}/)")
        };
        // Each target's line as it ends, so a long run reports what it has done so far.
        eprintln!("xtask fuzz: {}", row(name, runs, corpus_size, &state));
        table.push((name, runs, corpus_size, state));
    }
    println!("{:<18} {:>14} {:>10}  state", "target", "executions", "corpus");
    for (name, runs, size, state) in &table {
        println!("{}", row(name, *runs, *size, state));
    }
    let failed: Vec<&str> =
        table.iter().filter(|(_, _, _, s)| s != "ok").map(|(n, _, _, _)| *n).collect();
    if failed.is_empty() {
        Ok(ExitCode::SUCCESS)
    } else {
        Err(format!("fuzz: {} failed: {}", failed.len(), failed.join(", ")))
    }
}

/// Writes the harness's seeds into its corpus folder (kept between runs).
fn write_seeds(dir: &Path, name: &str) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (k, seed) in seeds(name).iter().enumerate() {
        let path = dir.join(format!("seed-{k:03}"));
        std::fs::write(&path, seed).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    Ok(())
}

/// The value of libFuzzer's final statistic `key` (`-print_final_stats=1`).
fn final_stat(log: &str, key: &str) -> Option<u64> {
    log.lines().rev().find_map(|l| l.trim().strip_prefix(key).and_then(|v| v.trim().parse().ok()))
}
