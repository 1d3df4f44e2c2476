//! Snapshot of every (case, solver) pair of the quick set: status, residual to two significant
//! digits, iterations, pivots and z to 8 decimals — never timings. One `.snap` per case under
//! `tests/snapshots/`; a solver that is not registered appears as such, so registering one
//! changes the snapshot and must be reviewed (`INSTA_UPDATE=always cargo test -p
//! signorini-verification --test snapshots`, then read the diff).

use signorini_verification::lcp::{self, LcpCase};
use signorini_verification::Context;

fn quick_lcp_cases() -> Vec<LcpCase> {
    let mut v = Vec::new();
    v.extend(lcp::seed::cases());
    v.extend(lcp::tiny::cases());
    v.extend(lcp::classic::cases());
    v.extend(lcp::random::cases());
    v.extend(lcp::siconos::cases());
    v.extend(lcp::contact::cases());
    v.push(lcp::contact::granular_packing().inner);
    #[cfg(feature = "fclib")]
    v.push(lcp::fclib::case().inner);
    v.into_iter().filter(|c| c.quick).collect()
}

#[test]
fn quick_set_summaries() {
    let ctx = Context::builtin();
    let cases = quick_lcp_cases();
    assert!(cases.len() >= 14, "the quick set lost cases: {}", cases.len());
    for case in cases {
        let name = case.id.replace('/', "__");
        insta::assert_yaml_snapshot!(name, case.summaries(&ctx));
    }
}

#[test]
fn quick_checks_are_deterministic_with_the_builtin_solvers() {
    let sel = signorini_verification::Selection { quick: true, filter: None };
    let ctx = Context::builtin();
    assert_eq!(signorini_verification::run(&ctx, &sel), signorini_verification::run(&ctx, &sel));
}
