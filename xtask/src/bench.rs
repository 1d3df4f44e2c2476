//! `cargo xtask bench [--quick] [--peers]`: the criterion benches of signorini-benches
//! (`cargo bench -p signorini-benches`, `--quick` passes criterion's `--quick`), or with
//! `--peers` the side-by-side run against Siconos, Drake and clarabel (the `peers` binary of
//! signorini-benches, in release unless `--profile P` names another cargo profile) writing `target/bench/<run>/`.

use std::process::{Command, ExitCode};
use std::time::SystemTime;

use signorini_verification::report::run_id;

pub fn main(args: &[String]) -> Result<ExitCode, String> {
    let mut quick = false;
    let mut peers = false;
    let mut profile = "release".to_string();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => quick = true,
            "--peers" => peers = true,
            "--profile" => {
                profile = it.next().ok_or("--profile needs a cargo profile name")?.clone()
            }
            other => {
                return Err(format!(
                "bench: unknown argument `{other}`; usage: bench [--quick] [--peers [--profile P]]"
            ))
            }
        }
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let root = super::workspace_root();
    let mut cmd = Command::new(&cargo);
    cmd.current_dir(&root);
    if peers {
        let out = root.join("target").join("bench").join(run_id(SystemTime::now()));
        cmd.args(["run", "--profile", profile.as_str(), "-p", "signorini-benches"]);
        cmd.args(["--bin", "peers", "--"]);
        cmd.arg("--out").arg(&out);
        if quick {
            cmd.arg("--quick");
        }
        // A Drake installed in the repository's target/drake-venv is found without flags.
        let venv = root.join("target").join("drake-venv").join("bin").join("python");
        if std::env::var_os("SIGNORINI_DRAKE_PYTHON").is_none() && venv.exists() {
            cmd.env("SIGNORINI_DRAKE_PYTHON", &venv);
        }
    } else {
        cmd.args(["bench", "-p", "signorini-benches"]);
        if quick {
            cmd.args(["--", "--quick"]);
        }
    }
    eprintln!("xtask bench: {:?}", cmd);
    let status = cmd.status().map_err(|e| format!("bench: cannot start `{cargo}`: {e}"))?;
    Ok(if status.success() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}
