//! `cargo xtask ci`: the checks `.ci/run` makes, as child processes, stopping at the first
//! failure: fmt, clippy, doc, tests, quick verification.

use std::process::{Command, ExitCode};

/// One step: its name, the cargo arguments, and extra environment variables.
type Step = (&'static str, &'static [&'static str], &'static [(&'static str, &'static str)]);

const STEPS: &[Step] = &[
    ("fmt", &["fmt", "--all", "--", "--check"], &[]),
    ("clippy", &["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"], &[]),
    ("doc", &["doc", "--workspace", "--no-deps"], &[("RUSTDOCFLAGS", "-D warnings")]),
    ("test", &["test", "--workspace"], &[]),
    ("verify", &["xtask", "verify", "--quick"], &[]),
];

pub fn main(args: &[String]) -> Result<ExitCode, String> {
    if let Some(a) = args.first() {
        return Err(format!("ci: takes no arguments, got `{a}`"));
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let root = super::workspace_root();
    for (name, cargo_args, env) in STEPS {
        eprintln!("xtask ci: {name}: cargo {}", cargo_args.join(" "));
        let status = Command::new(&cargo)
            .args(*cargo_args)
            .envs(env.iter().copied())
            .current_dir(&root)
            .status()
            .map_err(|e| format!("ci: cannot start `{cargo}`: {e}"))?;
        if !status.success() {
            eprintln!("xtask ci: step `{name}` failed ({status})");
            return Ok(ExitCode::from(1));
        }
    }
    eprintln!("xtask ci: all steps passed");
    Ok(ExitCode::SUCCESS)
}
