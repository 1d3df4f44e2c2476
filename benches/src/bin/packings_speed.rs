//! Time to merit 1e-8 of the LCP solvers against `qp` (clarabel, tolerance 1e-12 so that its
//! merit reaches about 1e-8) on contact problems assembled from scenes
//! (`signorini_contact::packings`): hexagonal disk packings (`hex`), random disk piles (`hexr`)
//! and FCC sphere piles, whose W is singular, the cubic lattice and box stacks with mass
//! ratios. All solvers alternate round by
//! round in one process, so the ratios come from the same machine load. One Markdown row per
//! (problem, solver): median and minimum time of the solve alone, iterations, factorisations,
//! residual, status, and the ratio of medians to `qp`; then the fitted growth exponent of each
//! solver's median time over the sizes of a family (least squares of log t on log n).
//!
//! `packings_speed [--family hex|hexr|fcc|cubic|stack2|stack3] [--sizes N,N,..] [--friction MU]
//! [--repeats K] [--solvers s1;s2;..] [--time-limit SECONDS] [--form assembled|matrix-free]
//! [--history]`
//!
//! `--history` records every iteration's measure (and the merit where the solver computes it)
//! and prints the last round's history of each solver to stderr.
//!
//! `--form matrix-free` hands W over in its Gram form G G' (frictionless only; see
//! `signorini_contact::DelassusForm`): the matrix-free solvers and `ipm` (velocity-space
//! Newton matrix) never form W. W is still assembled once before the timed solves, so that
//! the solvers that read entries (`qp` among them) are not charged for it.
//!
//! A solver `a>>b` runs `a`, then `b` warm-started from `a`'s z, timed as one solve (e.g.
//! `apgd:tol=1e-4>>newton-min:prox=1e-4,presweeps=0`).
//!
//! Sizes are target numbers of unknowns (contacts; with friction, contacts x (k + 2)); the
//! family's size parameters are chosen to come close. Defaults: hex, 1e3,1e4,1e5; frictionless;
//! 3 repeats; newton-min;bpp;pgs;apgd;qp.

use std::time::Duration;

use signorini_benches::median;
use signorini_contact::packings::{box_stacks, cubic_lattice, fcc_pile, hex_disks, random_disks};
use signorini_contact::{contact_problem_with, DelassusForm, Dimension, Level, Scene};
use signorini_lcp::{Registry, SolveOptions, Status};

struct Args {
    family: String,
    sizes: Vec<usize>,
    friction: f64,
    repeats: usize,
    solvers: Vec<String>,
    time_limit: f64,
    form: DelassusForm,
    history: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        family: "hex".into(),
        sizes: vec![1_000, 10_000, 100_000],
        friction: 0.0,
        repeats: 3,
        solvers: ["newton-min", "bpp", "pgs", "apgd", "qp:tol=1e-12"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        time_limit: 120.0,
        form: DelassusForm::Assembled,
        history: false,
    };
    let mut it = std::env::args().skip(1);
    let bad = |f: &str, v: &str| format!("{f}: cannot read {v:?}");
    while let Some(flag) = it.next() {
        if flag == "--history" {
            a.history = true;
            continue;
        }
        let v = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--family" => a.family = v,
            "--sizes" => {
                a.sizes = v
                    .split(',')
                    .map(|s| s.trim().parse::<f64>().map(|x| x as usize).map_err(|_| bad(&flag, s)))
                    .collect::<Result<_, _>>()?
            }
            "--friction" => a.friction = v.parse().map_err(|_| bad(&flag, &v))?,
            "--repeats" => a.repeats = v.parse().map_err(|_| bad(&flag, &v))?,
            "--time-limit" => a.time_limit = v.parse().map_err(|_| bad(&flag, &v))?,
            "--solvers" => a.solvers = v.split(';').map(|s| s.trim().to_string()).collect(),
            "--form" => {
                a.form = match v.as_str() {
                    "assembled" => DelassusForm::Assembled,
                    "matrix-free" => DelassusForm::MatrixFree,
                    _ => return Err(format!("--form: {v:?} is not assembled or matrix-free")),
                }
            }
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if a.repeats == 0 {
        return Err("--repeats must be at least 1".into());
    }
    Ok(a)
}

/// The family's scene with about `unknowns` normal contacts.
fn scene(family: &str, unknowns: usize) -> Result<Scene, String> {
    let side = |per_cell: f64, power: f64| {
        ((unknowns as f64 / per_cell).powf(power)).ceil().max(2.0) as usize
    };
    Ok(match family {
        // 3 contacts per disk: a square-ish block of rows x rows disks.
        "hex" => {
            let r = side(3.0, 0.5);
            hex_disks(r, r, 10.0)
        }
        // About 2.6 contacts per site with 5 % vacancies.
        "hexr" => {
            let r = side(2.6, 0.5);
            random_disks(r, r, 0.05, 10.0, 1)
        }
        // About 4 x 5.5 contacts per cubic cell with 5 % vacancies.
        "fcc" => {
            let c = side(22.0, 1.0 / 3.0);
            fcc_pile((c, c, c), 0.05, 10.0, 1)
        }
        "cubic" => cubic_lattice(side(3.0, 1.0 / 3.0)),
        "stack2" => box_stacks(Dimension::Two, side(2.0 * 10.0, 1.0), 10, 1000.0),
        "stack3" => box_stacks(Dimension::Three, side(4.0 * 10.0, 1.0), 10, 1000.0),
        other => {
            return Err(format!(
                "unknown family {other}; families: hex, hexr, fcc, cubic, stack2, stack3"
            ))
        }
    })
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("packings_speed: {e}");
            std::process::exit(2);
        }
    };
    let registry = Registry::builtin();
    let opts = SolveOptions {
        tol: Some(1e-8),
        time_limit: Some(Duration::from_secs_f64(args.time_limit)),
        history_every: args.history.then_some(1),
        ..SolveOptions::default()
    };
    // `a>>b` runs a, then b warm-started from a's z (one timed solve, counters summed).
    let solvers: Vec<Vec<_>> = args
        .solvers
        .iter()
        .map(|chain| {
            chain
                .split(">>")
                .map(|s| match registry.build(s.trim()) {
                    Ok(x) => x,
                    Err(e) => {
                        eprintln!("packings_speed: {s}: {e}");
                        std::process::exit(2);
                    }
                })
                .collect()
        })
        .collect();
    println!("family `{}`, friction {}, W {}", args.family, args.friction, args.form.as_str());
    println!(
        "| n | nnz(W) | solver | status | median [s] | min [s] | iterations | factorisations | residual | ratio to qp |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut growth: Vec<Vec<(f64, f64)>> = vec![Vec::new(); solvers.len()];
    for &size in &args.sizes {
        let t0 = std::time::Instant::now();
        let mut s = match scene(&args.family, size) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("packings_speed: {e}");
                std::process::exit(2);
            }
        };
        s.material.friction = args.friction;
        let problem = match contact_problem_with(&s, Level::Acceleration, None, None, args.form) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("packings_speed: assembly: {e}");
                std::process::exit(2);
            }
        };
        let lcp = problem.lcp;
        // The assembly of a Gram form happens here, outside the timed solves.
        let _ = lcp.matrix();
        eprintln!(
            "{} bodies, n = {} (nnz {}) assembled in {:.3} s",
            s.bodies.len(),
            lcp.n(),
            lcp.nnz(),
            t0.elapsed().as_secs_f64()
        );
        let mut times = vec![Vec::new(); solvers.len()];
        let mut last = vec![None; solvers.len()];
        // Per-call options: qp's own tol (1e-12) is judged against the merit 1e-8 here too.
        for _ in 0..args.repeats {
            for (k, solver) in solvers.iter().enumerate() {
                match solve_chain(solver, &lcp, &opts) {
                    Ok(sol) => {
                        // What a composite solver (auto) ran, and why a solve did not end solved.
                        let mut ran = if sol.solver.starts_with("auto(") {
                            format!("  {}", sol.solver)
                        } else {
                            String::new()
                        };
                        if sol.status != Status::Solved {
                            ran += &format!("  ({})", sol.note.as_deref().unwrap_or("no note"));
                        }
                        eprintln!(
                            "  {:<24} {:>9.4} s  it {:>5}  products {:>6}  fact {:>4}  res {:.2e}  {}{ran}",
                            args.solvers[k],
                            sol.solve_seconds,
                            sol.iterations,
                            sol.matvecs,
                            sol.factorizations,
                            sol.residual(),
                            sol.status
                        );
                        times[k].push(sol.solve_seconds);
                        last[k] = Some(sol);
                    }
                    Err(e) => eprintln!("  {}: {e}", args.solvers[k]),
                }
            }
        }
        let medians: Vec<f64> = times.iter().map(|t| median(t)).collect();
        let qp = args.solvers.iter().position(|s| s.starts_with("qp")).map(|k| medians[k]);
        if args.history {
            for (k, sol) in last.iter().enumerate() {
                let Some(h) = sol.as_ref().and_then(|s| s.history.as_ref()) else { continue };
                eprintln!("history of {} (last round; last stage of a chain):", args.solvers[k]);
                for e in h {
                    let res = e.residual.map_or("-".to_string(), |r| format!("{r:.3e}"));
                    eprintln!("  {:>6}  measure {:.3e}  residual {res}", e.iteration, e.measure);
                }
            }
        }
        for (k, sol) in last.iter().enumerate() {
            let Some(sol) = sol else { continue };
            let min = times[k].iter().copied().fold(f64::INFINITY, f64::min);
            let ratio = qp.map_or("-".to_string(), |q| format!("{:.3}", medians[k] / q));
            if sol.status == signorini_lcp::Status::Solved {
                growth[k].push((lcp.n() as f64, medians[k]));
            }
            println!(
                "| {} | {} | {} | {} | {:.4} | {:.4} | {} | {} | {:.2e} | {ratio} |",
                lcp.n(),
                lcp.nnz(),
                args.solvers[k],
                sol.status,
                medians[k],
                min,
                sol.iterations,
                sol.factorizations,
                sol.residual()
            );
        }
    }
    println!(
        "\n| solver | growth exponent of the median time (least squares in log-log) | sizes |"
    );
    println!("|---|---|---|");
    for (k, pts) in growth.iter().enumerate() {
        let slope = if pts.len() >= 2 { fit_slope(pts) } else { f64::NAN };
        println!("| {} | {:.2} | {} |", args.solvers[k], slope, pts.len());
    }
}

/// Runs the stages in order, each warm-started from the last one's z: the last stage's
/// solution with the time, iterations, products and factorisations of all stages.
fn solve_chain(
    stages: &[Box<dyn signorini_lcp::LcpSolver>],
    lcp: &signorini_lcp::Lcp,
    opts: &SolveOptions,
) -> Result<signorini_lcp::Solution, signorini_lcp::SolveError> {
    let mut acc: Option<signorini_lcp::Solution> = None;
    for stage in stages {
        let warm = acc.as_ref().map(|s| s.z.clone());
        let mut sol = stage.solve(lcp, opts, warm.as_deref())?;
        if let Some(prev) = &acc {
            sol.solve_seconds += prev.solve_seconds;
            sol.iterations += prev.iterations;
            sol.matvecs += prev.matvecs;
            sol.factorizations += prev.factorizations;
        }
        acc = Some(sol);
    }
    acc.ok_or_else(|| signorini_lcp::SolveError::Unsupported {
        solver: "chain".into(),
        reason: "no stage".into(),
    })
}

/// Least-squares slope of log t against log n.
fn fit_slope(pts: &[(f64, f64)]) -> f64 {
    let xs: Vec<f64> = pts.iter().map(|p| p.0.ln()).collect();
    let ys: Vec<f64> = pts.iter().map(|p| p.1.max(1e-9).ln()).collect();
    let n = xs.len() as f64;
    let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
    let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
    sxy / sxx
}
