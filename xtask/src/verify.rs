//! `cargo xtask verify [--quick] [--filter PATTERN] [--out DIR] [--problems DIR]...`: runs the
//! reference cases of signorini-verification (and, in the full run, the external-solver example
//! crate; with `--problems`, every problem file of the directories), prints the summary table
//! and writes the report, with a progress bar on a terminal.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::SystemTime;

use signorini_verification::report::run_id;
use signorini_verification::{
    all_cases, problem_dir, run_cases_with_progress, seeds_of, write_report, Case, Check, Context,
    Provenance, Report, Selection,
};

/// Arguments of `cargo xtask verify`.
#[derive(Debug, clap::Args)]
pub struct VerifyArgs {
    /// Run the subset CI runs (no large random cases, no external-solver crate).
    #[arg(long)]
    pub quick: bool,
    /// Select case ids: a substring, `*` matching any run of characters.
    #[arg(long, value_name = "PATTERN")]
    pub filter: Option<String>,
    /// Folder for report.md, results.json and plots/ (default target/verify/RUN-ID).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Add every problem file in DIR (.json, .dat, .mtx pairs, .hdf5 FCLIB) as a case
    /// lcp/user/FILE; repeatable.
    #[arg(long, value_name = "DIR")]
    pub problems: Vec<PathBuf>,
}

pub fn main(args: VerifyArgs) -> Result<ExitCode, String> {
    let selection = Selection { quick: args.quick, filter: args.filter.clone() };
    let ctx = Context::builtin();
    let root = super::workspace_root();
    let mut cases = all_cases();
    cases.push(Box::new(super::example::ExternalSolverExample::new(&root)) as Box<dyn Case>);
    for dir in &args.problems {
        // Every file is read here: an unreadable one stops the run with its name.
        for c in problem_dir::cases(dir).map_err(|e| e.to_string())? {
            cases.push(Box::new(c));
        }
    }
    let total = cases.iter().filter(|c| selection.takes(c.as_ref())).count();
    let bar = super::progress::bar(total as u64, "verify", "cases")?;
    let (checks, plots) = run_cases_with_progress(&ctx, &cases, &selection, &mut |id| {
        bar.set_message(id.to_string());
        bar.inc(1);
    });
    bar.finish_and_clear();
    if checks.is_empty() {
        return Err("no case matches the selection".into());
    }
    let now = SystemTime::now();
    let id = run_id(now);
    let described = describe(&args);
    let provenance =
        Provenance::collect(&root, ctx.threads, seeds_of(&cases, &selection), &described);
    let mut report = Report::new(id.clone(), provenance, checks);
    report.plots = plots;
    print_table(&report.checks);
    let dir = match args.out {
        Some(dir) => dir,
        None => super::default_out("verify", &id)?,
    };
    let md = write_report(&dir, &report).map_err(|e| e.to_string())?;
    let s = report.summary;
    println!(
        "\n{} pass, {} fail, {} expected failure; report: {}",
        s.pass,
        s.fail,
        s.expected_failure,
        md.display()
    );
    Ok(if s.ok() { ExitCode::SUCCESS } else { ExitCode::from(1) })
}

fn describe(args: &VerifyArgs) -> String {
    let mut parts = vec!["verify".to_string()];
    if args.quick {
        parts.push("--quick".into());
    }
    if let Some(f) = &args.filter {
        parts.push(format!("--filter {f}"));
    }
    for d in &args.problems {
        parts.push(format!("--problems {}", d.display()));
    }
    parts.join(" ")
}

fn print_table(checks: &[Check]) {
    let w_id = checks.iter().map(|c| c.id.len()).max().unwrap_or(2).max(2);
    let w_kind = checks.iter().map(|c| c.kind.len()).max().unwrap_or(4).max(4);
    println!("{:<w_id$}  {:<w_kind$}  {:<16}  observed | expected", "id", "kind", "status");
    for c in checks {
        println!(
            "{:<w_id$}  {:<w_kind$}  {:<16}  {} | {}",
            c.id, c.kind, c.status, c.observed, c.expected
        );
    }
}
