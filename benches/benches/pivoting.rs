//! Dense pivoting solvers on seeded random SPD problems (`generate::random_spd`), selected by
//! name through `Registry::builtin()`: `lemke`, `murty`, `bpp` and the dense paths of
//! `newton-min` / `newton-fb` at n = 100, 300, 1000, 2000 (murty up to 1000) (`enum` is limited to n <= 20 and has
//! its own cost, 2^n, so it is not here). A solver that is not registered, or does not solve a
//! size, is skipped with a note. Each sample is one full solve (setup included, as a
//! user calls it).

// criterion_group! generates an undocumented `pub fn benches`.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use signorini_lcp::{generate, Registry, SolveOptions, Status};

fn pivoting(c: &mut Criterion) {
    let registry = Registry::builtin();
    let mut group = c.benchmark_group("pivoting/random_spd");
    group.sample_size(10);
    group.warm_up_time(std::time::Duration::from_millis(500));
    group.measurement_time(std::time::Duration::from_secs(3));
    // (solver, largest n): least-index principal pivoting refactors per pivot and takes
    // 6 s at n = 1000 here, so it stops there.
    for (spec, n_max) in
        [("lemke", 2000), ("murty", 1000), ("bpp", 2000), ("newton-min", 2000), ("newton-fb", 2000)]
    {
        let Ok(solver) = registry.build(spec) else {
            eprintln!("pivoting bench: `{spec}` is not registered, skipped");
            continue;
        };
        for n in [100usize, 300, 1000, 2000].into_iter().filter(|&n| n <= n_max) {
            let lcp = generate::random_spd(n, 2026 + n as u64);
            let options = SolveOptions::default();
            match solver.solve(&lcp, &options, None) {
                Ok(sol) if sol.status == Status::Solved => {}
                Ok(sol) => {
                    eprintln!("pivoting bench: {spec} n = {n} ends {}, skipped", sol.status);
                    continue;
                }
                Err(e) => {
                    eprintln!("pivoting bench: {spec} n = {n}: {e}, skipped");
                    continue;
                }
            }
            group.bench_with_input(BenchmarkId::new(spec, n), &lcp, |b, lcp| {
                b.iter(|| solver.solve(lcp, &options, None))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, pivoting);
criterion_main!(benches);
