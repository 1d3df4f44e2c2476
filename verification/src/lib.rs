#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]
//! signorini-verification: the registry of named reference cases, the checks they produce, the
//! expected-failure table, and the report writer behind `cargo xtask verify`.
//!
//! # Shape
//!
//! A [`Case`] has an id (`lcp/seed/a1_two_variable`), a kind, a source (provenance), a `quick`
//! flag and `run(&Context) -> Vec<Check>`. A [`Check`] records what was expected, what was
//! observed (recomputed from the returned z, never copied from a solver) and the tolerance.
//! Solvers are looked up by name in the [`Context`]'s registry, so a solver written in another
//! crate is verified by registering it there. Families live in modules: [`lcp`] now;
//! `contact`, `impact` and `integrators` cases implement the same trait.
//!
//! ```
//! use signorini_verification::{run, Context, Selection};
//! let selection = Selection { quick: true, filter: Some("lcp/seed/a2".into()) };
//! let checks = run(&Context::builtin(), &selection);
//! assert!(!checks.is_empty());
//! ```

pub mod case;
pub mod check;
pub mod convergence;
pub mod expected_failures;
pub mod friction;
pub mod friction_siconos;
pub mod fuzz;
pub mod lcp;
pub mod mechanics;
pub mod order;
pub mod plot;
pub mod problem_dir;
pub mod report;
pub mod study;

pub use case::{Case, Context, Selection};
pub use check::{Check, CheckStatus, Summary};
pub use order::{observed_order, OrderError};
pub use report::{write_report, Provenance, Report, ReportError};

/// Every case of every family, in report order.
pub fn all_cases() -> Vec<Box<dyn Case>> {
    let mut cases = lcp::cases();
    cases.extend(convergence::cases());
    cases.extend(mechanics::cases());
    cases.extend(friction::cases());
    cases
}

/// Runs the selected cases in order and applies the expected-failure table. Deterministic: the
/// same inputs and thread count give the same checks.
pub fn run(ctx: &Context, selection: &Selection) -> Vec<Check> {
    run_cases(ctx, &all_cases(), selection)
}

/// Runs the selected cases among `cases` and applies the project's expected-failure table.
pub fn run_cases(ctx: &Context, cases: &[Box<dyn Case>], selection: &Selection) -> Vec<Check> {
    let mut checks = Vec::new();
    for case in cases.iter().filter(|c| selection.takes(c.as_ref())) {
        checks.extend(case.run(ctx));
    }
    expected_failures::apply_project_tables(&mut checks);
    checks
}

/// [`run`] that also collects the plots of the selected cases (for `plots/*.svg`).
pub fn run_with_plots(
    ctx: &Context,
    selection: &Selection,
) -> (Vec<Check>, Vec<(String, plot::LogLogPlot)>) {
    run_cases_with_plots(ctx, &all_cases(), selection)
}

/// [`run_cases`] that also collects the plots of the selected cases: the entry point for a
/// caller that adds cases of its own (a problem directory, an external crate's check) to
/// [`all_cases`].
pub fn run_cases_with_plots(
    ctx: &Context,
    cases: &[Box<dyn Case>],
    selection: &Selection,
) -> (Vec<Check>, Vec<(String, plot::LogLogPlot)>) {
    run_cases_with_progress(ctx, cases, selection, &mut |_| {})
}

/// [`run_cases_with_plots`] that calls `done(case_id)` after each selected case (for a
/// progress bar).
pub fn run_cases_with_progress(
    ctx: &Context,
    cases: &[Box<dyn Case>],
    selection: &Selection,
    done: &mut dyn FnMut(&str),
) -> (Vec<Check>, Vec<(String, plot::LogLogPlot)>) {
    let (mut checks, mut plots) = (Vec::new(), Vec::new());
    for case in cases.iter().filter(|c| selection.takes(c.as_ref())) {
        let (c, p) = case.run_with_plots(ctx);
        checks.extend(c);
        plots.extend(p);
        done(case.id());
    }
    expected_failures::apply_project_tables(&mut checks);
    (checks, plots)
}

/// Seeds of the selected cases, sorted and without repeats (recorded in the provenance).
pub fn seeds(selection: &Selection) -> Vec<u64> {
    seeds_of(&all_cases(), selection)
}

/// Seeds of the selected cases among `cases`, sorted and without repeats.
pub fn seeds_of(cases: &[Box<dyn Case>], selection: &Selection) -> Vec<u64> {
    let mut s: Vec<u64> =
        cases.iter().filter(|c| selection.takes(c.as_ref())).flat_map(|c| c.seeds()).collect();
    s.sort_unstable();
    s.dedup();
    s
}
