//! Splitting and gradient solvers on sparse Delassus-like problems of 10^3, 10^4 and 10^5
//! unknowns (`generate::delassus_like`, 3 contacts per body, mass ratio 10, seed 1), each solved
//! from z = 0 to a merit of 1e-8 (the time users wait for).
//!
//! Run with `cargo bench -p signorini-benches --bench sparse`. Flat sampling, 10 samples. One
//! solve at 10^5 takes from seconds (`apgd`) to minutes (`pgs`, `sgs`: about 2·10^4 sweeps, see
//! docs/performance.md), so at 10^5 only `apgd` and `bpgs:block=3` run unless
//! `SIGNORINI_BENCH_FULL=1` is set.

use std::time::Duration;

use criterion::{criterion_main, BenchmarkId, Criterion, SamplingMode};
use signorini_lcp::{generate, Registry, SolveOptions};

const SPECS: &[&str] = &["pgs", "psor", "sgs", "bpgs:block=3", "pgs-colored", "apgd"];
const FAST_AT_1E5: &[&str] = &["bpgs:block=3", "apgd"];

fn sparse(c: &mut Criterion) {
    let registry = Registry::builtin();
    let opts = SolveOptions { tol: Some(1e-8), max_iter: Some(100_000), ..Default::default() };
    let full = std::env::var("SIGNORINI_BENCH_FULL").is_ok_and(|v| v == "1");
    for n_bodies in [333usize, 3_333, 33_334] {
        let lcp = generate::delassus_like(n_bodies, 3, 10.0, 1);
        let n = lcp.n();
        let mut group = c.benchmark_group(format!("delassus_like_n{n}"));
        group.sampling_mode(SamplingMode::Flat);
        group.sample_size(10);
        group.warm_up_time(Duration::from_millis(500));
        group.measurement_time(Duration::from_secs(if n > 50_000 { 30 } else { 10 }));
        let specs = if n > 50_000 && !full { FAST_AT_1E5 } else { SPECS };
        for spec in specs {
            let solver = match registry.build(spec) {
                Ok(s) => s,
                Err(e) => panic!("bench spec {spec}: {e}"),
            };
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
