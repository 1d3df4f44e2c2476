//! `cargo xtask verify [--quick] [--filter PATTERN] [--out DIR] [--problems DIR]...`: runs the
//! reference cases of signorini-verification (and, in the full run, the external-solver example
//! crate; with `--problems`, every problem file of the directories), prints the summary table
//! and writes the report.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::SystemTime;

use signorini_verification::report::run_id;
use signorini_verification::{
    all_cases, problem_dir, run_cases_with_plots, seeds_of, write_report, Case, Check, Context,
    Provenance, Report, Selection,
};

const USAGE: &str = "usage: verify [--quick] [--filter PATTERN] [--out DIR] [--problems DIR]...";

struct Args {
    selection: Selection,
    out: Option<PathBuf>,
    problems: Vec<PathBuf>,
}

fn parse(args: &[String]) -> Result<Args, String> {
    let mut selection = Selection::default();
    let mut out = None;
    let mut problems = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => selection.quick = true,
            "--filter" => {
                let v = it.next().ok_or("--filter needs a PATTERN")?;
                selection.filter = Some(v.clone());
            }
            "--out" => {
                let v = it.next().ok_or("--out needs a DIR")?;
                out = Some(PathBuf::from(v));
            }
            "--problems" => {
                let v = it.next().ok_or("--problems needs a DIR")?;
                problems.push(PathBuf::from(v));
            }
            other => return Err(format!("verify: unknown argument `{other}`; {USAGE}")),
        }
    }
    Ok(Args { selection, out, problems })
}

pub fn main(args: &[String]) -> Result<ExitCode, String> {
    let args = parse(args)?;
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
    let (checks, plots) = run_cases_with_plots(&ctx, &cases, &args.selection);
    if checks.is_empty() {
        return Err("no case matches the selection".into());
    }
    let now = SystemTime::now();
    let id = run_id(now);
    let selection = describe(&args);
    let provenance =
        Provenance::collect(&root, ctx.threads, seeds_of(&cases, &args.selection), &selection);
    let mut report = Report::new(id.clone(), provenance, checks);
    report.plots = plots;
    print_table(&report.checks);
    let dir = args.out.unwrap_or_else(|| root.join("target").join("verify").join(&id));
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

fn describe(args: &Args) -> String {
    let s = &args.selection;
    let mut parts = vec!["verify".to_string()];
    if s.quick {
        parts.push("--quick".into());
    }
    if let Some(f) = &s.filter {
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
