//! Runs every registered solver on every vendored Siconos frictional-contact file and prints
//! status, error (recomputed) and iterations: the measurements quoted in `docs/friction.md`.

use std::path::Path;
use std::time::Duration;

use signorini_friction::formats::read_fc_problem;
use signorini_friction::FcRegistry;
use signorini_lcp::SolveOptions;

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../verification/data/siconos-fc");
    let args: Vec<String> = std::env::args().skip(1).collect();
    let solvers: Vec<String> = if args.is_empty() {
        FcRegistry::builtin().names().iter().map(|s| s.to_string()).collect()
    } else {
        args
    };
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|e| e == "dat" || e == "hdf5"));
    files.sort();
    let options = SolveOptions {
        tol: Some(1e-8),
        max_iter: std::env::var("FC_MAX_ITER").ok().and_then(|v| v.parse().ok()),
        time_limit: Some(Duration::from_secs(20)),
        history_every: None,
        ..SolveOptions::default()
    };
    for f in &files {
        let name = f.file_name().and_then(|s| s.to_str()).unwrap_or("?");
        let p = match read_fc_problem(f, None) {
            Ok(p) => p,
            Err(e) => {
                println!("{name:45} LOAD ERROR {e}");
                continue;
            }
        };
        for s in &solvers {
            let Ok(solver) = FcRegistry::builtin().build(s) else {
                println!("bad spec {s}");
                continue;
            };
            // FC_WARM=spec: warm-start every solve from that solver's result (200 iterations).
            let warm = std::env::var("FC_WARM").ok().and_then(|w| {
                let ws = FcRegistry::builtin().build(&w).ok()?;
                let o = SolveOptions { max_iter: Some(200), ..options.clone() };
                ws.solve(&p, &o, None).ok().map(|s| s.r)
            });
            match solver.solve(&p, &options, warm.as_deref()) {
                Ok(sol) => println!(
                    "{name:45} d={} nc={:4} {:28} {:18} err {:.2e} it {:6} {:.3}s",
                    p.dimension(),
                    p.n_contacts(),
                    s,
                    sol.status.as_str(),
                    sol.error,
                    sol.iterations,
                    sol.solve_seconds
                ),
                Err(e) => println!("{name:45} {s:28} ERROR {e}"),
            }
        }
    }
}
