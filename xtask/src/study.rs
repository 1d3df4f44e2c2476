//! `cargo xtask study FILE.toml [--shard K/N] [--out DIR] [--threads T] [--resume]`: runs a
//! solver study (signorini_verification::study) with a progress bar, journals every finished
//! case into `DIR/cases.jsonl` as it goes, and writes its table and profile; `--resume` picks a
//! killed run up where its journal ends.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::SystemTime;

use signorini_lcp::Registry;
use signorini_verification::case::default_threads;
use signorini_verification::report::run_id;
use signorini_verification::study::{
    expand_problems, parse_shard, run_study_in, shard_indices, success_rates, write_study,
    StudySpec,
};
use signorini_verification::Provenance;

/// Arguments of `cargo xtask study`.
#[derive(Debug, clap::Args)]
pub struct StudyArgs {
    /// The study file (TOML: name, problems, solvers, tol, time_limit).
    pub file: PathBuf,
    /// Run only shard K of N (1-based), for a cluster array job; merge the shards afterwards.
    #[arg(long, value_name = "K/N", value_parser = shard)]
    pub shard: Option<(usize, usize)>,
    /// Output folder (default target/study/NAME-RUN-ID[-shardKofN]).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Worker threads (default: the verification default thread count).
    #[arg(long, value_name = "T", value_parser = clap::value_parser!(u64).range(1..=1024))]
    pub threads: Option<u64>,
    /// Resume an interrupted run: skip the cases its journal (DIR/cases.jsonl) holds. Needs
    /// --out DIR of that run, and the same study file and shard.
    #[arg(long, requires = "out")]
    pub resume: bool,
}

fn shard(text: &str) -> Result<(usize, usize), String> {
    parse_shard(text).map_err(|e| e.to_string())
}

pub fn main(args: StudyArgs) -> Result<ExitCode, String> {
    let StudyArgs { file, shard, out, threads, resume } = args;
    let threads = threads.map_or_else(default_threads, |t| t as usize);
    let spec = StudySpec::read(&file).map_err(|e| e.to_string())?;
    let root = super::workspace_root();
    let problems = expand_problems(&spec, &root).map_err(|e| e.to_string())?;
    let total = problems.len() * spec.solvers.len();
    let mine = shard_indices(total, shard).len();
    let command = std::iter::once("cargo xtask".to_string())
        .chain(std::env::args().skip(1))
        .collect::<Vec<_>>()
        .join(" ");
    let provenance = Provenance::collect(&root, threads, Vec::new(), &command);
    let id = run_id(SystemTime::now());
    let suffix = shard.map_or(String::new(), |(k, n)| format!("-shard{k}of{n}"));
    let dir = match out {
        Some(dir) => dir,
        None => super::default_out("study", &format!("{}-{id}{suffix}", spec.name))?,
    };
    let bar = super::progress::bar(mine as u64, &spec.name, "cases")?;
    let tick = || bar.inc(1);
    let (result, resumed) = run_study_in(
        &dir,
        resume,
        &spec,
        problems,
        &Registry::builtin(),
        shard,
        threads,
        provenance,
        &tick,
    )
    .map_err(|e| e.to_string())?;
    bar.finish();
    let md = write_study(&dir, &result).map_err(|e| e.to_string())?;
    if resume {
        let now = result.rows.len() - resumed;
        println!("resumed: {resumed} cases from the journal, {now} run now");
    }
    println!("{:<28} {:>7} {:>7} {:>7}", "solver", "solved", "cases", "rate");
    for (s, solved, all) in success_rates(&result) {
        let rate = if all == 0 { 0.0 } else { 100.0 * solved as f64 / all as f64 };
        println!("{s:<28} {solved:>7} {all:>7} {rate:>6.1}%");
    }
    println!("report: {}", md.display());
    Ok(ExitCode::SUCCESS)
}
