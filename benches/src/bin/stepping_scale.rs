//! Moreau–Jean on sphere piles of 10^3 to 10^5 bodies (issue 16, "time stepping that scales"):
//! steps per second and peak resident memory, one child process per size so that each peak
//! is its own. The model is the one `signorini simulate` steps with by default
//! ([`SceneModel::with_step_broad_phase`]: each step's contacts from the grid broad phase,
//! sparse J, block-diagonal M); `--all-pairs` runs the every-pair model instead for
//! comparison.
//!
//! Pile: an m x m x layers simple cubic lattice of touching rigid spheres (radius 0.5, masses
//! 1-3 kg) on a floor, the column of the `stepping` criterion bench. `--family free` spaces
//! the spheres 2 m apart without a floor (they fall and never touch).
//!
//! ```sh
//! cargo build --release -p signorini-benches --bin stepping_scale
//! target/release/stepping_scale --spheres 1000,10000,100000 --steps 10 --solver pgs
//! ```
//!
//! Peak memory is `VmHWM` of /proc/self/status (the kernel's ru_maxrss), read at the end of
//! the child; time is the wall time of the stepping loop alone (scene and model built before).

use std::process::Command;
use std::time::Instant;

use signorini_contact::Scene;
use signorini_integrators::scene_model::DEFAULT_STEP_CONTACT_MARGIN;
use signorini_integrators::{
    run_stepping, MoreauJean, NoObserver, OnSolverFailure, Recording, Sample, SceneModel,
    SteppingParams, TimeStepper, WarmStart,
};
use signorini_lcp::Registry;

struct Args {
    spheres: Vec<usize>,
    steps: usize,
    solver: String,
    tol: f64,
    family: String,
    all_pairs: bool,
    warm: bool,
    child: Option<usize>,
}

fn parse() -> Result<Args, String> {
    let mut a = Args {
        spheres: vec![1000, 10_000],
        steps: 10,
        solver: "pgs".into(),
        tol: 1e-6,
        family: "pile".into(),
        all_pairs: false,
        warm: false,
        child: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--spheres" => {
                a.spheres = value()?
                    .split(',')
                    .map(|s| s.trim().parse().map_err(|e| format!("--spheres {s}: {e}")))
                    .collect::<Result<_, _>>()?
            }
            "--steps" => a.steps = value()?.parse().map_err(|e| format!("--steps: {e}"))?,
            "--solver" => a.solver = value()?,
            "--tol" => a.tol = value()?.parse().map_err(|e| format!("--tol: {e}"))?,
            "--family" => a.family = value()?,
            "--all-pairs" => a.all_pairs = true,
            "--warm-start" => a.warm = true,
            "--child" => a.child = Some(value()?.parse().map_err(|e| format!("--child: {e}"))?),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if !matches!(a.family.as_str(), "pile" | "free") {
        return Err(format!("--family {}: pile or free", a.family));
    }
    Ok(a)
}

/// m x m x layers with m * m * layers close to n.
fn shape_of(n: usize) -> (usize, usize) {
    let m = ((n as f64).cbrt().round() as usize).max(1);
    let layers = (n as f64 / (m * m) as f64).round().max(1.0) as usize;
    (m, layers)
}

fn scene(family: &str, n: usize) -> Scene {
    let (m, layers) = shape_of(n);
    let spacing = if family == "free" { 2.0 } else { 1.0 };
    signorini_benches::sphere_grid(m, layers, (spacing, spacing, 0.0), family == "pile")
}

/// Peak resident set (kB) of this process.
fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|x| x.parse().ok()))
        })
        .unwrap_or(0)
}

fn child(a: &Args, n: usize) -> Result<(), String> {
    let scene = scene(&a.family, n);
    let bodies = scene.bodies.len();
    let build = Instant::now();
    let model = if a.all_pairs {
        SceneModel::new(scene)
    } else {
        SceneModel::with_step_broad_phase(scene, DEFAULT_STEP_CONTACT_MARGIN)
    }
    .map_err(|e| e.to_string())?;
    let build_s = build.elapsed().as_secs_f64();
    let solver = Registry::builtin().build(&a.solver).map_err(|e| e.to_string())?;
    let (q, v) = model.initial_state();
    let mut p = SteppingParams::with_step(1e-3);
    p.options.tol = Some(a.tol);
    p.on_failure = OnSolverFailure::Continue;
    p.sample_every = 0;
    p.recording = Recording::EveryStep;
    p.warm_start = if a.warm { WarmStart::PreviousStep } else { WarmStart::Off };
    let start = Sample { t: 0.0, q, v };
    let stepper = TimeStepper::MoreauJean(&model, MoreauJean::default());
    let t0 = Instant::now();
    let run = run_stepping(&model, stepper, solver.as_ref(), &start, a.steps, &p, &mut NoObserver)
        .map_err(|e| e.to_string())?;
    let secs = t0.elapsed().as_secs_f64();
    let tot = run.totals;
    let solve_seconds: f64 =
        run.steps.iter().filter_map(|s| s.lcp.as_ref()).map(|r| r.solve_seconds).sum::<f64>() + 0.0;
    println!(
        "{}",
        serde_json::json!({
            "spheres": n, "bodies": bodies, "steps": tot.steps, "seconds": secs,
            "steps_per_second": tot.steps as f64 / secs, "model_seconds": build_s,
            "max_active": tot.max_active, "solve_seconds": solve_seconds, "iterations": tot.iterations,
            "failures": tot.solver_failures, "peak_rss_kb": peak_rss_kb(),
        })
    );
    Ok(())
}

fn main() {
    let a = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("stepping_scale: {e}");
            std::process::exit(2);
        }
    };
    if let Some(n) = a.child {
        if let Err(e) = child(&a, n) {
            eprintln!("stepping_scale: {n} spheres: {e}");
            std::process::exit(1);
        }
        return;
    }
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("stepping_scale: {e}");
            std::process::exit(2);
        }
    };
    println!(
        "family {}, solver {} (tol {:e}), {} steps of h = 1e-3, {}{}",
        a.family,
        a.solver,
        a.tol,
        a.steps,
        if a.all_pairs { "every pair a candidate" } else { "per-step broad phase" },
        if a.warm { ", warm start" } else { "" }
    );
    println!("| spheres (m x m x layers) | max active contacts | steps/s | s per step | of which LCP solve | solver iterations per step | failed solves | model build [s] | peak RSS [MiB] |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for &n in &a.spheres {
        let mut cmd = Command::new(&exe);
        cmd.args(["--child", &n.to_string(), "--steps", &a.steps.to_string()]).args([
            "--solver",
            &a.solver,
            "--tol",
            &a.tol.to_string(),
            "--family",
            &a.family,
        ]);
        if a.all_pairs {
            cmd.arg("--all-pairs");
        }
        if a.warm {
            cmd.arg("--warm-start");
        }
        let out = match cmd.output() {
            Ok(o) => o,
            Err(e) => {
                eprintln!("stepping_scale: {n}: {e}");
                continue;
            }
        };
        let text = String::from_utf8_lossy(&out.stdout);
        let Some(r) =
            text.lines().last().and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        else {
            println!(
                "| {n} | failed: {} | | | | | | | |",
                String::from_utf8_lossy(&out.stderr).trim()
            );
            continue;
        };
        let (m, layers) = shape_of(n);
        let f = |k: &str| r[k].as_f64().unwrap_or(f64::NAN);
        let steps = f("steps").max(1.0);
        println!(
            "| {} ({m} x {m} x {layers}) | {} | {:.3} | {:.3} | {:.0} % | {:.0} | {} | {:.2} | {:.0} |",
            r["spheres"],
            r["max_active"],
            f("steps_per_second"),
            f("seconds") / steps,
            100.0 * f("solve_seconds") / f("seconds"),
            f("iterations") / steps,
            r["failures"],
            f("model_seconds"),
            f("peak_rss_kb") / 1024.0
        );
    }
}
