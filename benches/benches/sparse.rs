//! Splitting and gradient solvers on sparse Delassus-like problems of 10^3, 10^4 and 10^5
//! unknowns (`generate::delassus_like`, 3 contacts per body, mass ratio 10), each solved to a
//! merit of 1e-8 from z = 0. Run with `cargo bench -p signorini-benches --bench sparse`.
// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use signorini_lcp::{generate, Registry, SolveOptions};

const SPECS: &[&str] = &["pgs", "psor", "sgs", "bpgs:block=3", "pgs-colored", "apgd"];

fn sparse(c: &mut Criterion) {
    let registry = Registry::builtin();
    let opts = SolveOptions { tol: Some(1e-8), max_iter: Some(100_000), ..Default::default() };
    for n_bodies in [333usize, 3_333, 33_333] {
        let lcp = generate::delassus_like(n_bodies, 3, 10.0, 1);
        let n = lcp.n();
        let mut group = c.benchmark_group(format!("delassus_like_n{n}"));
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(if n > 50_000 { 20 } else { 5 }));
        for spec in SPECS {
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

criterion_group!(benches, sparse);
criterion_main!(benches);
