//! `cargo xtask merge DIR... [--out DIR]`: merges the shard results of one study (each DIR
//! holds a `results.json` from `cargo xtask study --shard K/N`) into the whole study's table,
//! profile and checks.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::SystemTime;

use signorini_verification::report::run_id;
use signorini_verification::study::{merge, read_result, success_rates, write_study};

/// Arguments of `cargo xtask merge`.
#[derive(Debug, clap::Args)]
pub struct MergeArgs {
    /// Shard folders, each holding a results.json from `cargo xtask study --shard K/N`.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
    /// Output folder (default target/study/NAME-RUN-ID-merged).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

pub fn main(args: MergeArgs) -> Result<ExitCode, String> {
    let MergeArgs { dirs, out } = args;
    let parts = dirs
        .iter()
        .map(|d| read_result(d))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let merged = merge(parts).map_err(|e| e.to_string())?;
    let dir = match out {
        Some(dir) => dir,
        None => {
            let id = run_id(SystemTime::now());
            super::default_out("study", &format!("{}-{id}-merged", merged.spec.name))?
        }
    };
    let md = write_study(&dir, &merged).map_err(|e| e.to_string())?;
    for (s, solved, all) in success_rates(&merged) {
        println!("{s:<28} {solved:>7}/{all}");
    }
    println!("merged {} shards: {}", merged.merged_from.len(), md.display());
    Ok(ExitCode::SUCCESS)
}
