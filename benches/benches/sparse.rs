//! Every sparse-capable solver on sparse Delassus-like problems of 10^3, 10^4 and 10^5 unknowns
//! (and `newton-min`, the fastest, also at 10^6)
//! (`generate::delassus_like`, 3 contacts per body, mass ratio 10, seed 1), each solved from
//! z = 0 to a merit of 1e-8 (the time users wait for): the splitting and gradient methods
//! (`pgs`, `psor`, `sgs`, `bpgs:block=3`, `pgs-colored`, `apgd`), the Newton methods
//! (`newton-min`, `newton-fb`), `ipm`, block principal pivoting (`bpp`) and `qp` (clarabel).
//!
//! Run with `cargo bench -p signorini-benches --bench sparse` (filter by group and solver, e.g.
//! `-- delassus_like_n9999/newton-min`). Flat sampling, 10 samples, short measurement times at
//! 10^5 so that the whole bench stays within minutes. At 10^5 the solvers that take tens of
//! seconds to minutes per solve there (`pgs`, `psor`, `sgs`, `pgs-colored`: 10^4 sweeps and
//! more, see docs/performance.md) are skipped with the reason printed, unless
//! `SIGNORINI_BENCH_FULL=1` is set.

use std::time::Duration;

use criterion::{criterion_main, BenchmarkId, Criterion, SamplingMode};
use signorini_lcp::{generate, Registry, SolveOptions, Status};

/// Every solver of the bench, in the order of the table in docs/performance.md.
const SPECS: &[&str] = &[
    "pgs",
    "psor",
    "sgs",
    "bpgs:block=3",
    "pgs-colored",
    "apgd",
    "newton-min",
    "newton-fb",
    "ipm",
    "bpp",
    "qp",
];

/// Why a solver is skipped at 10^5 unknowns without `SIGNORINI_BENCH_FULL=1` (measured single
/// solves on a shared 2-core machine, docs/performance.md).
fn skip_at_1e5(spec: &str) -> Option<&'static str> {
    match spec {
        "pgs" => Some("about 2·10^4 sweeps, 106 s per solve"),
        "psor" => Some("about 1.1·10^4 sweeps, 56 s per solve"),
        "sgs" => Some("about 2·10^4 symmetric sweeps, 200 s per solve"),
        "pgs-colored" => Some("about 1.8·10^4 sweeps, 190 s per solve on 2 cores"),
        _ => None,
    }
}

/// At 10^6 unknowns only the fastest solver runs by default (one solve of the others there
/// takes from tens of seconds, `qp` and `ipm`, to hours, the splitting methods);
/// `SIGNORINI_BENCH_FULL=1` runs every solver.
fn runs_at_1e6(spec: &str) -> bool {
    spec == "newton-min"
}

/// Criterion's filter (an argument that is neither a flag nor a flag's value) when it is plain
/// text; `None` for no filter or a regular expression.
fn plain_filter() -> Option<String> {
    const BOOLEAN_FLAGS: &[&str] = &[
        "--bench",
        "--test",
        "--list",
        "--exact",
        "--ignored",
        "--nocapture",
        "--quiet",
        "--verbose",
        "--noplot",
        "--quick",
        "--discard-baseline",
    ];
    let args: Vec<String> = std::env::args().skip(1).collect();
    let filter = args.iter().enumerate().find_map(|(k, a)| {
        let after_value_flag =
            k > 0 && args[k - 1].starts_with('-') && !BOOLEAN_FLAGS.contains(&args[k - 1].as_str());
        (!a.starts_with('-') && !after_value_flag).then(|| a.clone())
    })?;
    let regex = filter.chars().any(|c| "^$.*+?()[]{}|\\".contains(c));
    (!regex).then_some(filter)
}

fn sparse(c: &mut Criterion) {
    let registry = Registry::builtin();
    let opts = SolveOptions {
        tol: Some(1e-8),
        max_iter: Some(100_000),
        time_limit: Some(Duration::from_secs(300)),
        ..Default::default()
    };
    let full = std::env::var("SIGNORINI_BENCH_FULL").is_ok_and(|v| v == "1");
    let filter = plain_filter();
    for n_bodies in [333usize, 3_333, 33_334, 333_334] {
        let lcp = generate::delassus_like(n_bodies, 3, 10.0, 1);
        let n = lcp.n();
        let large = n > 50_000;
        let huge = n > 500_000;
        let mut group = c.benchmark_group(format!("delassus_like_n{n}"));
        group.sampling_mode(SamplingMode::Flat);
        group.sample_size(10);
        group.warm_up_time(Duration::from_millis(if large { 100 } else { 500 }));
        group.measurement_time(Duration::from_secs(if large { 5 } else { 10 }));
        for spec in SPECS {
            if huge && !full && !runs_at_1e6(spec) {
                eprintln!(
                    "sparse bench: skipping {spec} at n = {n} (only newton-min runs at 10^6 \
                     by default); SIGNORINI_BENCH_FULL=1 runs it"
                );
                continue;
            }
            if large && !full {
                if let Some(reason) = skip_at_1e5(spec) {
                    eprintln!(
                        "sparse bench: skipping {spec} at n = {n} ({reason}); \
                         SIGNORINI_BENCH_FULL=1 runs it"
                    );
                    continue;
                }
            }
            let solver = match registry.build(spec) {
                Ok(s) => s,
                Err(e) => panic!("bench spec {spec}: {e}"),
            };
            // One checked solve first: a solver that does not reach the tolerance here is
            // reported and skipped, never timed as if it had. Ids that a plain-text filter
            // excludes skip the check too (criterion would not run them).
            let id = format!("delassus_like_n{n}/{spec}");
            if filter.as_deref().is_some_and(|f| !id.contains(f)) {
                continue;
            }
            match solver.solve(&lcp, &opts, None) {
                Ok(sol) if sol.status == Status::Solved => {}
                Ok(sol) => {
                    eprintln!(
                        "sparse bench: skipping {spec} at n = {n}: {} after {} iterations, \
                         residual {:.2e}",
                        sol.status,
                        sol.iterations,
                        sol.residual()
                    );
                    continue;
                }
                Err(e) => {
                    eprintln!("sparse bench: skipping {spec} at n = {n}: {e}");
                    continue;
                }
            }
            group.bench_with_input(BenchmarkId::from_parameter(spec), &lcp, |b, lcp| {
                b.iter(|| match solver.solve(lcp, &opts, None) {
                    Ok(sol) => sol.iterations,
                    Err(e) => panic!("{spec}: {e}"),
                })
            });
        }
        group.finish();
    }
}

mod group {
    // criterion_group! defines a public function that cannot carry a doc comment.
    #![allow(missing_docs)]
    use super::sparse;
    criterion::criterion_group!(benches, sparse);
}

criterion_main!(group::benches);
