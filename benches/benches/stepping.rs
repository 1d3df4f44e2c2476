//! Moreau–Jean time stepping of a granular column: an m x m x h lattice of touching spheres
//! (radius 0.5, masses 1-3 kg) on a floor, 10^2, 10^3 and 10^4 spheres, ten steps of
//! h = 10^-3 s per sample, the velocity-level LCP of every step solved by name (`pgs` and
//! `newton-min`). The figure is the cost of a step with everything in it: contact detection,
//! Jacobians, the Delassus assembly, the LCP solve and the update.
// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use signorini_contact::{Body, Dimension, Scene, Shape};
use signorini_integrators::{
    simulate_moreau_jean, ContactModel, MoreauJeanParams, OnSolverFailure, SceneModel,
};
use signorini_lcp::Registry;

/// (m, layers): m * m * layers spheres.
const COLUMNS: [(usize, usize); 3] = [(5, 4), (10, 10), (22, 21)];
const STEPS: usize = 10;
const MAX_CANDIDATES: usize = 2_000_000;

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
        let model = match SceneModel::new(column(m, layers)) {
            Ok(model) => model,
            Err(e) => {
                eprintln!("stepping: column of {spheres} spheres skipped: {e}");
                continue;
            }
        };
        // The model's candidate contacts (one per feature pair it tracks) bound the memory
        // of a step; skip a size where they would not fit rather than fail.
        if model.n_contacts() > MAX_CANDIDATES {
            eprintln!(
                "stepping: column of {spheres} spheres skipped: {} candidate contacts (limit {MAX_CANDIDATES})",
                model.n_contacts()
            );
            continue;
        }
        let (q0, v0) = model.initial_state();
        for name in ["pgs", "newton-min"] {
            let Ok(solver) = registry.build(name) else {
                eprintln!("stepping: solver {name} is not registered; skipped");
                continue;
            };
            let mut params = MoreauJeanParams::with_step(1e-3);
            params.on_failure = OnSolverFailure::Continue;
            params.sample_every = 0;
            params.options.tol = Some(1e-8);
            // One run outside the timing: contacts per step and failures, for the record.
            match simulate_moreau_jean(
                &model,
                &model,
                solver.as_ref(),
                0.0,
                &q0,
                &v0,
                STEPS,
                &params,
            ) {
                Ok(run) => {
                    let active: usize = run.steps.iter().map(|s| s.n_active).max().unwrap_or(0);
                    eprintln!(
                        "stepping: {spheres} spheres, {name}: up to {active} active contacts per step, {} failed solves in {STEPS} steps",
                        run.solver_failures.len()
                    );
                }
                Err(e) => {
                    eprintln!("stepping: {spheres} spheres, {name}: skipped: {e}");
                    continue;
                }
            }
            group.bench_with_input(BenchmarkId::new(name, spheres), &spheres, |b, _| {
                b.iter(|| {
                    simulate_moreau_jean(
                        &model,
                        &model,
                        solver.as_ref(),
                        0.0,
                        &q0,
                        &v0,
                        STEPS,
                        &params,
                    )
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench_stepping);
criterion_main!(benches);
