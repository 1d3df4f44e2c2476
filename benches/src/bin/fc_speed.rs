//! Our frictional-contact solvers alone on the 3D files of `verification/data/siconos-fc`, for
//! profiling and A/B comparisons of changes: each (file, solver) pair is solved repeatedly
//! until `--seconds` (default 0.2) have passed, in `--rounds` rounds (default 5), and the
//! median over rounds of the mean time per solve is printed with the recomputed error and
//! the iterations. Peers are compared in `cargo xtask bench --peers --only fc`, not here.
//!
//! With `--cold`, every solve is timed alone after 64 MB have been written (the caches hold
//! none of the problem or the code), as a single solve in the peers run is; the median over
//! `--rounds` solves is printed.
//!
//! Usage: fc_speed [--solvers auto,newton-ac,nsgs] [--only SUBSTRING] [--seconds S] [--rounds R] [--cold]

use std::path::Path;
use std::time::Instant;

use signorini_friction::formats::read_fc_problem;
use signorini_friction::FcRegistry;
use signorini_lcp::SolveOptions;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let value = |key: &str| args.iter().position(|a| a == key).and_then(|i| args.get(i + 1));
    let solvers: Vec<String> = value("--solvers")
        .map_or("auto,newton-ac,nsgs", String::as_str)
        .split(',')
        .map(str::to_string)
        .collect();
    let only = value("--only").cloned().unwrap_or_default();
    let seconds: f64 = value("--seconds").and_then(|s| s.parse().ok()).unwrap_or(0.2);
    let rounds: usize = value("--rounds").and_then(|s| s.parse().ok()).unwrap_or(5).max(1);
    let cold = args.iter().any(|a| a == "--cold");
    let mut thrash = vec![0u8; 64 << 20];
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../verification/data/siconos-fc");
    let mut paths: Vec<_> = std::fs::read_dir(&data)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    paths.retain(|p| p.extension().is_some_and(|e| e == "dat" || e == "hdf5"));
    paths.sort();
    let options = SolveOptions { tol: Some(1e-8), ..SolveOptions::default() };
    std::hint::black_box(&thrash);
    println!("| file | solver | median µs per solve | error | iterations | status |");
    println!("|---|---|---|---|---|---|");
    for path in paths {
        let name = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        if !name.contains(&only) {
            continue;
        }
        let Ok(problem) = read_fc_problem(&path, None) else { continue };
        if problem.dimension() != 3 {
            continue;
        }
        for spec in &solvers {
            let Ok(solver) = FcRegistry::builtin().build(spec) else {
                eprintln!("{spec}: unknown solver");
                continue;
            };
            let mut means = Vec::new();
            let mut last = None;
            for round in 0..rounds {
                if cold {
                    thrash.iter_mut().for_each(|b| *b = b.wrapping_add(round as u8 | 1));
                    let start = Instant::now();
                    last = solver.solve(&problem, &options, None).ok();
                    means.push(start.elapsed().as_secs_f64());
                    continue;
                }
                let start = Instant::now();
                let mut count = 0usize;
                while count == 0 || start.elapsed().as_secs_f64() < seconds / rounds as f64 {
                    last = solver.solve(&problem, &options, None).ok();
                    count += 1;
                }
                means.push(start.elapsed().as_secs_f64() / count as f64);
            }
            means.sort_by(f64::total_cmp);
            let median = means[means.len() / 2];
            match last {
                Some(s) => println!(
                    "| {name} | {spec} | {:.2} | {:.1e} | {} | {} |",
                    median * 1e6,
                    s.error,
                    s.iterations,
                    s.status
                ),
                None => println!("| {name} | {spec} | - | - | - | error |"),
            }
        }
    }
}
