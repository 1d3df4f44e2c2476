//! Probe (issue 3): do `newton-fb` and `ipm` reach residual 1e-10 on sparse SPD Delassus-like
//! problems (`generate::delassus_like`) at 10^3, 10^4 (and, with `--large`, 10^5) unknowns?
//! Prints one line per (n, mass ratio, solver): status, merit recomputed from z, iterations,
//! factorisations, wall time.
//!
//! `cargo run --release -p signorini-lcp --example delassus_accuracy [-- --large]`

use std::time::Instant;

use signorini_lcp::merit::evaluate;
use signorini_lcp::{generate, Registry, SolveOptions};

fn main() {
    let large = std::env::args().any(|a| a == "--large");
    let registry = Registry::builtin();
    let mut sizes = vec![250, 2500];
    if large {
        sizes.push(25_000);
    }
    for n_bodies in sizes {
        for mass_ratio in [1.0, 100.0, 1e4] {
            let lcp = generate::delassus_like(n_bodies, 4, mass_ratio, 7);
            for name in ["newton-fb", "ipm"] {
                let solver = match registry.build(name) {
                    Ok(s) => s,
                    Err(e) => {
                        eprintln!("{name}: {e}");
                        continue;
                    }
                };
                let options = SolveOptions { tol: Some(1e-10), ..SolveOptions::default() };
                let t = Instant::now();
                match solver.solve(&lcp, &options, None) {
                    Ok(sol) => {
                        let (_, merit) = evaluate(&lcp, &sol.z);
                        println!(
                            "n = {:6} nnz = {:8} ratio = {:7.0e} {:10} {:18} residual {:.2e} \
                             iterations {:3} factorizations {:3} {:.3} s",
                            lcp.n(),
                            lcp.nnz(),
                            mass_ratio,
                            name,
                            sol.status.as_str(),
                            merit.residual,
                            sol.iterations,
                            sol.factorizations,
                            t.elapsed().as_secs_f64()
                        );
                    }
                    Err(e) => eprintln!("{name}: {e}"),
                }
            }
        }
    }
}
