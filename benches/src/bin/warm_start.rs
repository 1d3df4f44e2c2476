//! Warm starts across time steps (issue 16): every step's LCP solved from z = 0 (cold) or from
//! the previous step's impulses matched by contact identity (`WarmStart::PreviousStep`), on a
//! granular column and a box stack, Moreau–Jean and Stewart–Trinkle, with the solvers that take
//! a warm start. Reports solver iterations per solve and time per step, warm against cold, with
//! the residuals both reached (every solve runs to the same tolerance) and how far the final
//! states of the two runs lie apart.
//!
//! ```sh
//! cargo build --release -p signorini-benches --bin warm_start
//! target/release/warm_start --steps 200 --repeats 3
//! ```
//!
//! Cold and warm runs alternate within each repeat, so both see the same machine load; times
//! are medians over the repeats, iterations are deterministic. The model is the one `signorini
//! simulate` steps with ([`SceneModel::with_step_broad_phase`]).

use std::time::Instant;

use signorini_contact::packings::box_stacks;
use signorini_contact::{Dimension, Scene};
use signorini_integrators::scene_model::DEFAULT_STEP_CONTACT_MARGIN;
use signorini_integrators::{
    run_stepping, MoreauJean, NoObserver, OnSolverFailure, Sample, SceneModel, SteppingParams,
    SteppingRun, TimeStepper, WarmStart,
};
use signorini_lcp::{Registry, Status};

/// The bench column of touching rigid spheres: m x m x layers on a floor, masses 1-3 kg.
fn column(m: usize, layers: usize) -> Scene {
    column_with_gap(m, layers, 0.0)
}

/// The column with `gap` between the layers and above the floor: the spheres fall onto each
/// other (impacts, contacts closing one after another).
fn column_with_gap(m: usize, layers: usize, gap: f64) -> Scene {
    signorini_benches::sphere_grid(m, layers, (1.0, 1.0 + gap, gap), true)
}

#[derive(Clone, Copy, PartialEq)]
enum Stepper {
    MoreauJean,
    StewartTrinkle,
}

struct Figures {
    solves: usize,
    iterations: usize,
    failures: usize,
    worst_residual: f64,
    step_seconds: f64,
    solve_seconds: f64,
    run: SteppingRun,
}

fn run(
    model: &SceneModel,
    stepper: Stepper,
    solver: &str,
    tol: f64,
    steps: usize,
    warm: WarmStart,
) -> Result<Figures, String> {
    let solver = Registry::builtin().build(solver).map_err(|e| e.to_string())?;
    let (q, v) = model.initial_state();
    let mut p = SteppingParams::with_step(1e-3);
    p.options.tol = Some(tol);
    p.on_failure = OnSolverFailure::Continue;
    p.sample_every = 0;
    p.warm_start = warm;
    let start = Sample { t: 0.0, q, v };
    let s = match stepper {
        Stepper::MoreauJean => TimeStepper::MoreauJean(model, MoreauJean::default()),
        Stepper::StewartTrinkle => TimeStepper::StewartTrinkle(model),
    };
    let t0 = Instant::now();
    let run = run_stepping(model, s, solver.as_ref(), &start, steps, &p, &mut NoObserver)
        .map_err(|e| e.to_string())?;
    let wall = t0.elapsed().as_secs_f64();
    let records: Vec<_> = run.steps.iter().filter_map(|s| s.lcp.as_ref()).collect();
    Ok(Figures {
        solves: records.len(),
        iterations: records.iter().map(|r| r.iterations).sum(),
        failures: records.iter().filter(|r| r.status != Status::Solved).count(),
        worst_residual: records.iter().map(|r| r.residual).fold(0.0, f64::max),
        step_seconds: wall / run.totals.steps.max(1) as f64,
        solve_seconds: records.iter().map(|r| r.solve_seconds).sum::<f64>()
            / run.totals.steps.max(1) as f64,
        run,
    })
}

fn median(mut x: Vec<f64>) -> f64 {
    x.sort_by(f64::total_cmp);
    if x.is_empty() {
        f64::NAN
    } else {
        x[x.len() / 2]
    }
}

fn main() {
    let mut steps = 200;
    let mut repeats = 3;
    let mut tol = 1e-8;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let value = args.next().and_then(|v| v.parse::<f64>().ok());
        match (flag.as_str(), value) {
            ("--steps", Some(v)) if v >= 1.0 => steps = v as usize,
            ("--repeats", Some(v)) if v >= 1.0 => repeats = v as usize,
            ("--tol", Some(v)) if v > 0.0 => tol = v,
            _ => {
                eprintln!("warm_start: usage: warm_start [--steps N] [--repeats R] [--tol T]");
                std::process::exit(2);
            }
        }
    }
    let mj = ["pgs", "psor", "pgs:check_every=1", "apgd", "newton-min", "newton-fb"];
    let st = ["newton-fb", "newton-min", "lemke"];
    let cases: Vec<(&str, Scene, Stepper, &[&str])> = vec![
        ("column 5x5x4 (100 spheres)", column(5, 4), Stepper::MoreauJean, &mj),
        ("column 10x10x10 (1000 spheres)", column(10, 10), Stepper::MoreauJean, &mj),
        ("column 5x5x4 dropped, gaps 0.01", column_with_gap(5, 4, 0.01), Stepper::MoreauJean, &mj),
        (
            "box stacks 2D 5 x 8, ratio 10",
            box_stacks(Dimension::Two, 5, 8, 10.0),
            Stepper::MoreauJean,
            &mj,
        ),
        ("column 3x3x3 (27 spheres)", column(3, 3), Stepper::StewartTrinkle, &st),
        (
            "box stacks 2D 5 x 8, ratio 10",
            box_stacks(Dimension::Two, 5, 8, 10.0),
            Stepper::StewartTrinkle,
            &st,
        ),
    ];
    println!("{steps} steps of h = 1e-3, tol {tol:e}, {repeats} repeats (times: medians)");
    println!("| scene | scheme | solver | solves | iterations per solve cold / warm | ratio | time per step cold / warm [ms] | ratio | solve time per step cold / warm [ms] | failed cold / warm | worst residual cold / warm | max abs q difference |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (name, scene, stepper, solvers) in cases {
        let model = match SceneModel::with_step_broad_phase(scene, DEFAULT_STEP_CONTACT_MARGIN) {
            Ok(m) => m,
            Err(e) => {
                eprintln!("warm_start: {name}: {e}");
                continue;
            }
        };
        let scheme = match stepper {
            Stepper::MoreauJean => "moreau-jean",
            Stepper::StewartTrinkle => "stewart-trinkle",
        };
        for &solver in solvers {
            let (mut cold_t, mut warm_t, mut cold_s, mut warm_s) = (vec![], vec![], vec![], vec![]);
            let mut last = None;
            for _ in 0..repeats {
                let cold = run(&model, stepper, solver, tol, steps, WarmStart::Off);
                let warm = run(&model, stepper, solver, tol, steps, WarmStart::PreviousStep);
                match (cold, warm) {
                    (Ok(c), Ok(w)) => {
                        cold_t.push(c.step_seconds);
                        warm_t.push(w.step_seconds);
                        cold_s.push(c.solve_seconds);
                        warm_s.push(w.solve_seconds);
                        last = Some((c, w));
                    }
                    (c, w) => {
                        let e = c.err().or(w.err()).unwrap_or_default();
                        println!("| {name} | {scheme} | {solver} | stopped: {e} | | | | | | | | |");
                        break;
                    }
                }
            }
            let Some((c, w)) = last else { continue };
            let per = |f: &Figures| f.iterations as f64 / f.solves.max(1) as f64;
            let dq = c.run.q.iter().zip(&w.run.q).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
            let (ct, wt) = (median(cold_t), median(warm_t));
            println!(
                "| {name} | {scheme} | {solver} | {} | {:.2} / {:.2} | {:.1} | {:.3} / {:.3} | {:.2} | {:.3} / {:.3} | {} / {} | {:.1e} / {:.1e} | {:.1e} |",
                c.solves,
                per(&c),
                per(&w),
                per(&c) / per(&w).max(f64::MIN_POSITIVE),
                1e3 * ct,
                1e3 * wt,
                ct / wt,
                1e3 * median(cold_s),
                1e3 * median(warm_s),
                c.failures,
                w.failures,
                c.worst_residual,
                w.worst_residual,
                dq
            );
        }
    }
}
