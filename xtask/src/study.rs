//! `cargo xtask study FILE.toml [--shard K/N] [--out DIR] [--threads T]`: runs a solver study
//! (signorini_verification::study) with a progress bar and writes its table and profile.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::SystemTime;

use indicatif::{ProgressBar, ProgressStyle};
use signorini_lcp::Registry;
use signorini_verification::case::default_threads;
use signorini_verification::report::run_id;
use signorini_verification::study::{
    expand_problems, parse_shard, run_study, shard_indices, success_rates, write_study, StudySpec,
};
use signorini_verification::Provenance;

const USAGE: &str = "usage: study FILE.toml [--shard K/N] [--out DIR] [--threads T]";

pub fn main(args: &[String]) -> Result<ExitCode, String> {
    let mut file = None;
    let mut shard = None;
    let mut out = None;
    let mut threads = default_threads();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--shard" => {
                let v = it.next().ok_or("--shard needs K/N")?;
                shard = Some(parse_shard(v).map_err(|e| e.to_string())?);
            }
            "--out" => out = Some(PathBuf::from(it.next().ok_or("--out needs a DIR")?)),
            "--threads" => {
                let v = it.next().ok_or("--threads needs a count")?;
                threads = v
                    .parse()
                    .ok()
                    .filter(|&t: &usize| t >= 1)
                    .ok_or_else(|| format!("--threads `{v}`: expected a positive integer"))?;
            }
            s if !s.starts_with("--") && file.is_none() => file = Some(PathBuf::from(s)),
            other => return Err(format!("study: unexpected argument `{other}`; {USAGE}")),
        }
    }
    let file = file.ok_or_else(|| format!("study: no study file; {USAGE}"))?;
    let spec = StudySpec::read(&file).map_err(|e| e.to_string())?;
    let root = super::workspace_root();
    let problems = expand_problems(&spec, &root).map_err(|e| e.to_string())?;
    let total = problems.len() * spec.solvers.len();
    let mine = shard_indices(total, shard).len();
    let command = format!("cargo xtask study {}", args.join(" "));
    let provenance = Provenance::collect(&root, threads, Vec::new(), &command);
    let bar = ProgressBar::new(mine as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{prefix} [{bar:40}] {pos}/{len} cases, {elapsed} ({eta} left)",
        )
        .map_err(|e| e.to_string())?
        .progress_chars("=> "),
    );
    bar.set_prefix(spec.name.clone());
    let tick = || bar.inc(1);
    let result =
        run_study(&spec, problems, &Registry::builtin(), shard, threads, provenance, &tick)
            .map_err(|e| e.to_string())?;
    bar.finish();
    let id = run_id(SystemTime::now());
    let suffix = shard.map_or(String::new(), |(k, n)| format!("-shard{k}of{n}"));
    let dir = out.unwrap_or_else(|| {
        root.join("target").join("study").join(format!("{}-{id}{suffix}", spec.name))
    });
    let md = write_study(&dir, &result).map_err(|e| e.to_string())?;
    println!("{:<28} {:>7} {:>7} {:>7}", "solver", "solved", "cases", "rate");
    for (s, solved, all) in success_rates(&result) {
        let rate = if all == 0 { 0.0 } else { 100.0 * solved as f64 / all as f64 };
        println!("{s:<28} {solved:>7} {all:>7} {rate:>6.1}%");
    }
    println!("report: {}", md.display());
    Ok(ExitCode::SUCCESS)
}
