//! Moreau–Jean time stepping of a granular column: an m x m x h lattice of touching spheres
//! (radius 0.5, masses 1-3 kg) on a floor, 10^2, 10^3 and 10^4 spheres, ten steps of
//! h = 10^-3 s per sample, the velocity-level LCP of every step solved by name (`pgs` and
//! `newton-min`), run as `signorini simulate` runs a scene ([`Simulation`]) with contact
//! candidates from the grid broad phase (`Candidates::WithinDistance`). The figure is the cost
//! of a step with everything in it: contact detection, Jacobians, the Delassus assembly, the
//! LCP solve, the update and the impact report.
// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use signorini_contact::{Body, Dimension, Scene, Shape};
use signorini_integrators::simulation::Candidates;
use signorini_integrators::{NoObserver, Scheme, Simulation, SimulationOptions};
use signorini_lcp::Registry;

/// (m, layers): m * m * layers spheres.
const COLUMNS: [(usize, usize); 3] = [(5, 4), (10, 10), (22, 21)];
const STEPS: usize = 10;
const H: f64 = 1e-3;

fn column(m: usize, layers: usize) -> Scene {
    let mut scene = Scene::new(Dimension::Three, [0.0, -9.81, 0.0]);
    scene.margin = 1e-9;
    for i in 0..m {
        for j in 0..layers {
            for k in 0..m {
                let mass = 1.0 + ((i + j + k) % 3) as f64;
                scene.bodies.push(Body::rigid(
                    format!("g{i}_{j}_{k}"),
                    Dimension::Three,
                    mass,
                    Shape::Sphere { radius: 0.5 },
                    [i as f64, 0.5 + j as f64, k as f64],
                ));
            }
        }
    }
    scene.with_body(Body::fixed("floor", Shape::HalfSpace { normal: [0.0, 1.0, 0.0], offset: 0.0 }))
}

fn bench_stepping(c: &mut Criterion) {
    let registry = Registry::builtin();
    let mut group = c.benchmark_group("moreau_jean_granular_column");
    group.sample_size(10).warm_up_time(Duration::from_secs(1));
    for (m, layers) in COLUMNS {
        let spheres = m * m * layers;
        let mut options = SimulationOptions::new(Scheme::MoreauJean, STEPS as f64 * H);
        options.step = Some(H);
        options.solve.tol = Some(1e-8);
        // Candidates from the grid broad phase (boxes within 0.1 m): the column only settles.
        options.candidates = Candidates::WithinDistance(0.1);
        // The simulation's memory budget (default 4 GiB) refuses a size that would not fit.
        let sim = match Simulation::new(column(m, layers), options) {
            Ok(sim) => sim,
            Err(e) => {
                eprintln!("stepping: column of {spheres} spheres skipped: {e}");
                continue;
            }
        };
        for name in ["pgs", "newton-min"] {
            let Ok(solver) = registry.build(name) else {
                eprintln!("stepping: solver {name} is not registered; skipped");
                continue;
            };
            // One run outside the timing: solves and failures, for the record.
            match sim.run(solver.as_ref(), &mut NoObserver) {
                Ok(run) => eprintln!(
                    "stepping: {spheres} spheres, {name}: {} solves, {} failed in {STEPS} steps",
                    run.lcp_solves, run.solver_failures.total
                ),
                Err(e) => {
                    eprintln!("stepping: {spheres} spheres, {name}: skipped: {e}");
                    continue;
                }
            }
            group.bench_with_input(BenchmarkId::new(name, spheres), &spheres, |b, _| {
                b.iter(|| sim.run(solver.as_ref(), &mut NoObserver))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_stepping);
criterion_main!(benches);
