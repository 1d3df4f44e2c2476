//! `cargo xtask bench [--quick] [--peers [--only lcp|fc]]`: the criterion benches of
//! signorini-benches (`cargo bench -p signorini-benches`, `--quick` passes criterion's
//! `--quick`), or with `--peers` the side-by-side run against Siconos, Drake and clarabel (the
//! `peers` binary of signorini-benches, in release unless `--profile P` names another cargo
//! profile) writing `target/bench/<run>/`: the LCP problems, then the 3D frictional-contact
//! files against Siconos' fc3d solvers (`<run>/fc/`); `--only` runs one half.

use std::process::{Command, ExitCode};
use std::time::SystemTime;

use signorini_verification::report::run_id;

/// Arguments of `cargo xtask bench`.
#[derive(Debug, clap::Args)]
pub struct BenchArgs {
    /// Short runs (criterion's `--quick`; fewer sizes for the peers run).
    #[arg(long)]
    pub quick: bool,
    /// Side-by-side run against Siconos, Drake and clarabel on the same problem files.
    #[arg(long)]
    pub peers: bool,
    /// Cargo profile of the peers binary.
    #[arg(long, value_name = "P", default_value = "release", requires = "peers")]
    pub profile: String,
    /// Only one half of the peers run: `lcp` or `fc`.
    #[arg(long, value_name = "HALF", value_parser = ["lcp", "fc"], requires = "peers")]
    pub only: Option<String>,
}

pub fn main(args: BenchArgs) -> Result<ExitCode, String> {
    let BenchArgs { quick, peers, profile, only } = args;
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
        if let Some(half) = &only {
            cmd.args(["--only", half.as_str()]);
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
