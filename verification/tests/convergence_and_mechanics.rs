//! Every convergence study and mechanics case passes with the built-in solvers, and every
//! convergence study draws a plot whose legend carries the fitted slope (issue 6); check ids
//! are unique.

use signorini_verification::{convergence, mechanics, CheckStatus, Context};

#[test]
fn every_study_and_mechanics_case_passes() {
    let ctx = Context::builtin();
    let mut failed = Vec::new();
    let mut ids = Vec::new();
    for case in convergence::cases().into_iter().chain(mechanics::cases()) {
        let (checks, plots) = case.run_with_plots(&ctx);
        assert!(!checks.is_empty(), "{}: no checks", case.id());
        ids.extend(checks.iter().map(|c| c.id.clone()));
        failed.extend(
            checks
                .iter()
                .filter(|c| c.status != CheckStatus::Pass)
                .map(|c| format!("{}: {} (expected {})", c.id, c.observed, c.expected)),
        );
        if case.id().contains("/convergence/") || case.id().contains("/pgs/") {
            assert_eq!(plots.len(), 1, "{}: one plot per study", case.id());
            let svg = plots[0].1.to_svg().expect("plot renders");
            assert!(svg.contains("fitted slope"), "{}: legend lacks the fitted slope", case.id());
        }
    }
    assert!(failed.is_empty(), "failed checks: {failed:#?}");
    let n = ids.len();
    assert!(n >= 100, "only {n} checks");
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), n, "duplicate check ids");
}
