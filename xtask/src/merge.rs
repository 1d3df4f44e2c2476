//! `cargo xtask merge DIR... [--out DIR]`: merges the shard results of one study (each DIR
//! holds a `results.json` from `cargo xtask study --shard K/N`) into the whole study's table,
//! profile and checks.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::SystemTime;

use signorini_verification::report::run_id;
use signorini_verification::study::{merge, read_result, success_rates, write_study};

pub fn main(args: &[String]) -> Result<ExitCode, String> {
    let mut dirs = Vec::new();
    let mut out = None;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--out" => out = Some(PathBuf::from(it.next().ok_or("--out needs a DIR")?)),
            s if !s.starts_with("--") => dirs.push(PathBuf::from(s)),
            other => {
                return Err(format!(
                    "merge: unknown argument `{other}`; usage: merge DIR... [--out DIR]"
                ))
            }
        }
    }
    if dirs.is_empty() {
        return Err("merge: no shard folders given; usage: merge DIR... [--out DIR]".into());
    }
    let parts = dirs
        .iter()
        .map(|d| read_result(d))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())?;
    let merged = merge(parts).map_err(|e| e.to_string())?;
    let root = super::workspace_root();
    let dir = out.unwrap_or_else(|| {
        let id = run_id(SystemTime::now());
        root.join("target").join("study").join(format!("{}-{id}-merged", merged.spec.name))
    });
    let md = write_study(&dir, &merged).map_err(|e| e.to_string())?;
    for (s, solved, all) in success_rates(&merged) {
        println!("{s:<28} {solved:>7}/{all}");
    }
    println!("merged {} shards: {}", merged.merged_from.len(), md.display());
    Ok(ExitCode::SUCCESS)
}
