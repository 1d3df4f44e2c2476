//! `cargo xtask ci`: the checks `.ci/run` makes, as child processes, stopping at the first
//! failure: fmt, clippy, doc, unused dependencies, tests, quick verification, and the Python
//! package (`crates/python/ci.sh`: a fresh virtual environment, maturin, pytest).

use std::process::{Command, ExitCode, Stdio};

/// One step: its name, the cargo arguments, and extra environment variables.
type Step = (&'static str, &'static [&'static str], &'static [(&'static str, &'static str)]);

const STEPS: &[Step] = &[
    ("fmt", &["fmt", "--all", "--", "--check"], &[]),
    ("clippy", &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"], &[]),
    ("doc", &["doc", "--workspace", "--no-deps"], &[("RUSTDOCFLAGS", "-D warnings")]),
    // The tidy test finds declared-but-unused dependencies without extra tools; `cargo
    // machete` (below) runs too where it is installed.
    ("unused dependencies", &["test", "-p", "signorini-verification", "--test", "tidy"], &[]),
    ("test", &["test", "--workspace"], &[]),
    ("verify", &["xtask", "verify", "--quick"], &[]),
];

pub fn main() -> Result<ExitCode, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let root = super::workspace_root();
    let run = |name: &str, args: &[&str], env: &[(&str, &str)]| {
        eprintln!("xtask ci: {name}: cargo {}", args.join(" "));
        Command::new(&cargo)
            .args(args)
            .envs(env.iter().copied())
            .current_dir(&root)
            .status()
            .map_err(|e| format!("ci: cannot start `{cargo}`: {e}"))
    };
    for (name, cargo_args, env) in STEPS {
        if !run(name, cargo_args, env)?.success() {
            eprintln!("xtask ci: step `{name}` failed");
            return Ok(ExitCode::from(1));
        }
        if *name == "unused dependencies" {
            if machete_installed(&cargo) {
                if !run("machete", &["machete"], &[])?.success() {
                    eprintln!("xtask ci: step `machete` failed");
                    return Ok(ExitCode::from(1));
                }
            } else {
                eprintln!("xtask ci: cargo machete not installed (cargo install cargo-machete); the tidy test covered unused dependencies");
            }
        }
    }
    eprintln!("xtask ci: python: bash crates/python/ci.sh");
    let python = Command::new("bash")
        .arg("crates/python/ci.sh")
        .current_dir(&root)
        .status()
        .map_err(|e| format!("ci: cannot start `bash`: {e}"))?;
    if !python.success() {
        eprintln!("xtask ci: step `python` failed");
        return Ok(ExitCode::from(1));
    }
    eprintln!("xtask ci: all steps passed");
    Ok(ExitCode::SUCCESS)
}

fn machete_installed(cargo: &str) -> bool {
    Command::new(cargo)
        .args(["machete", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
