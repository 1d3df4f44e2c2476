//! Measures (a) projected Gauss–Seidel sweep throughput in stored nonzeros per second on a
//! Delassus-like problem of about 10^5 unknowns, (b) a STREAM-like triad `a[i] = b[i] + s c[i]`
//! over arrays much larger than the caches (memory bandwidth, GB/s), both as the median of
//! repeated runs, and (c) PGS sweeps to merit 1e-6 and 1e-8 on box stacks with mass ratios
//! 1, 10, 100, 1000 (alternating light/heavy and geometric profiles).
//!
//! `--bandwidth` runs only (e): the bytes a `pgs` sweep must move (CSR values and column
//! indices, row pointers, q, the diagonal, z read and written) per second at 10^3 to 10^6
//! unknowns (`--max-n N` stops earlier), against the triad (b) measured in the same run.
//!
//! Run: `cargo run --release -p signorini-benches --bin pgs_throughput [-- --runs 7]`;
//! `--solvers` adds (d), one solve of each splitting / gradient solver on `delassus_like` at
//! 10^3, 10^4 and 10^5 unknowns (`--max-n N` stops earlier); `--solvers-only K` runs only (d),
//! with K contacts per body.

use std::time::Instant;

use signorini_benches::median;
use signorini_lcp::generate::{self, MassProfile};
use signorini_lcp::{Registry, SolveOptions, Status};

fn runs_from_args() -> usize {
    arg_value("--runs").filter(|&r| r >= 1).unwrap_or(7)
}

fn pgs_throughput(runs: usize) {
    let t0 = Instant::now();
    let lcp = generate::delassus_like(33_334, 3, 10.0, 1);
    let build = t0.elapsed().as_secs_f64();
    let nnz = lcp.nnz();
    let sweeps = 50;
    // A tolerance that is not reached: exactly `sweeps` sweeps and one exact check at the end.
    let spec = format!("pgs:tol=1e-300,max_iter={sweeps},check_every={sweeps}");
    let solver = match Registry::builtin().build(&spec) {
        Ok(s) => s,
        Err(e) => panic!("{spec}: {e}"),
    };
    let mut rates = Vec::new();
    let mut times = Vec::new();
    for _ in 0..runs {
        let sol = match solver.solve(&lcp, &SolveOptions::default(), None) {
            Ok(s) => s,
            Err(e) => panic!("{spec}: {e}"),
        };
        assert_eq!(sol.iterations, sweeps, "{:?}", sol.note);
        // Passes over the nonzeros inside the timed solve: the sweeps, the exact check, and the
        // scan for the diagonal at set-up.
        let passes = sol.matvecs + 1;
        rates.push((nnz * passes) as f64 / sol.solve_seconds);
        times.push(sol.solve_seconds / sweeps as f64);
    }
    let rate = median(&rates);
    println!("## (a) PGS sweep throughput");
    println!(
        "problem: delassus_like(33334 bodies, 3 contacts/body, mass ratio 10, seed 1): n = {}, \
         nnz = {nnz} ({:.1} per row), built in {build:.3} s",
        lcp.n(),
        nnz as f64 / lcp.n() as f64
    );
    println!(
        "median of {runs} solves of {sweeps} sweeps: {:.3} ms per sweep, {:.1} M nonzeros/s, \
         {:.2} GB/s of CSR values + column indices (16 B per nonzero)",
        median(&times) * 1e3,
        rate / 1e6,
        rate * 16.0 / 1e9
    );
}

/// The triad bandwidth in bytes/s (median of `runs`), printed.
fn triad(runs: usize) -> f64 {
    let len = 1usize << 25; // 3 arrays x 256 MiB
    let rate = signorini_benches::triad_bandwidth(runs);
    println!("## (b) STREAM-like triad, one thread");
    println!(
        "a[i] = b[i] + s c[i], {len} doubles per array (768 MiB in all), 24 B per element \
         (write-allocate not counted): median of {runs}: {:.2} GB/s",
        rate / 1e9
    );
    rate
}

/// (e): bytes per second of `pgs` sweeps at growing n against the triad bandwidth.
fn sweep_bandwidth(runs: usize, max_n: usize, triad: f64) {
    println!("## (e) PGS sweep bandwidth against the triad ({:.2} GB/s)", triad / 1e9);
    println!(
        "bytes per sweep = nnz (8 B value + 8 B column index) + n (8 B row pointer + 8 B q + 8 B \
         diagonal + 8 B z read + 8 B z written); the gathers z[j] are not counted"
    );
    println!("| n | nnz | sweeps per solve | time per sweep [ms] | bytes per sweep [MB] | GB/s | fraction of triad |");
    println!("|---|---|---|---|---|---|---|");
    for n in [1_000usize, 10_000, 100_000, 1_000_000].into_iter().filter(|&n| n <= max_n) {
        let lcp = generate::delassus_like(n.div_ceil(3), 3, 10.0, 1);
        let nnz = lcp.nnz();
        // At least about 2e8 nonzeros per timed solve, so that the timer's resolution and the
        // set-up (the diagonal scan) do not matter.
        let sweeps = (200_000_000 / nnz).clamp(5, 5000);
        let spec = format!("pgs:tol=1e-300,max_iter={sweeps},check_every={sweeps}");
        let solver = match Registry::builtin().build(&spec) {
            Ok(s) => s,
            Err(e) => panic!("{spec}: {e}"),
        };
        let mut per_sweep = Vec::new();
        for _ in 0..runs {
            let sol = match solver.solve(&lcp, &SolveOptions::default(), None) {
                Ok(s) => s,
                Err(e) => panic!("{spec}: {e}"),
            };
            // The sweeps plus the exact check and the diagonal scan: matvecs + 1 passes.
            per_sweep.push(sol.solve_seconds / (sol.matvecs + 1) as f64);
        }
        let t = median(&per_sweep);
        let bytes = (16 * nnz + 40 * lcp.n()) as f64;
        println!(
            "| {} | {nnz} | {sweeps} | {:.4} | {:.2} | {:.2} | {:.2} |",
            lcp.n(),
            t * 1e3,
            bytes / 1e6,
            bytes / t / 1e9,
            bytes / t / triad
        );
    }
}

fn mass_ratio_study() {
    println!("## (c) PGS sweeps to tolerance on box stacks (z = 0 start, exact merit every sweep)");
    let registry = Registry::builtin();
    println!("| profile | boxes | mass ratio | sweeps to 1e-6 | sweeps to 1e-8 |");
    println!("|---|---|---|---|---|");
    for profile in [MassProfile::Alternating, MassProfile::Geometric] {
        for n_boxes in [10usize, 50] {
            for ratio in [1.0, 10.0, 100.0, 1000.0] {
                let lcp = generate::box_stack_with(n_boxes, ratio, profile);
                let mut cells = Vec::new();
                for tol in [1e-6, 1e-8] {
                    let spec = format!("pgs:tol={tol:e},check_every=1,max_iter=10000000");
                    let solver = match registry.build(&spec) {
                        Ok(s) => s,
                        Err(e) => panic!("{spec}: {e}"),
                    };
                    let sol = match solver.solve(&lcp, &SolveOptions::default(), None) {
                        Ok(s) => s,
                        Err(e) => panic!("{spec}: {e}"),
                    };
                    cells.push(if sol.status == Status::Solved {
                        sol.iterations.to_string()
                    } else {
                        format!("{} ({})", sol.iterations, sol.status)
                    });
                }
                println!("| {profile:?} | {n_boxes} | {ratio} | {} | {} |", cells[0], cells[1]);
            }
        }
    }
}

fn arg_value(key: &str) -> Option<usize> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == key).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok())
}

fn delassus_solvers(contacts: usize, max_n: usize) {
    println!(
        "## (d) Solvers on delassus_like ({contacts} contacts/body, mass ratio 10, seed 1), one \
         run each"
    );
    println!("| n | solver | status | iterations | matvecs | residual | seconds |");
    println!("|---|---|---|---|---|---|---|");
    let registry = Registry::builtin();
    let opts = SolveOptions { tol: Some(1e-8), max_iter: Some(100_000), ..Default::default() };
    for n in [1_000usize, 10_000, 100_000].into_iter().filter(|&n| n <= max_n) {
        let lcp = generate::delassus_like(n.div_ceil(contacts), contacts, 10.0, 1);
        for spec in ["pgs", "psor", "sgs", "bpgs:block=3", "pgs-colored", "apgd"] {
            let solver = match registry.build(spec) {
                Ok(s) => s,
                Err(e) => panic!("{spec}: {e}"),
            };
            match solver.solve(&lcp, &opts, None) {
                Ok(sol) => println!(
                    "| {} | {spec} | {} | {} | {} | {:.2e} | {:.3} |",
                    lcp.n(),
                    sol.status,
                    sol.iterations,
                    sol.matvecs,
                    sol.residual(),
                    sol.solve_seconds
                ),
                Err(e) => println!("| {} | {spec} | error: {e} | | | | |", lcp.n()),
            }
        }
    }
}

fn main() {
    let runs = runs_from_args();
    if std::env::args().any(|a| a == "--bandwidth") {
        let t = triad(runs);
        sweep_bandwidth(runs, arg_value("--max-n").unwrap_or(1_000_000), t);
        return;
    }
    if let Some(contacts) = arg_value("--solvers-only") {
        delassus_solvers(contacts.max(1), arg_value("--max-n").unwrap_or(100_000));
        return;
    }
    pgs_throughput(runs);
    triad(runs);
    mass_ratio_study();
    if std::env::args().any(|a| a == "--solvers") {
        delassus_solvers(3, arg_value("--max-n").unwrap_or(100_000));
    }
}
