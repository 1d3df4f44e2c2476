//! Time to merit 1e-8 of every sparse-capable solver against `qp` (clarabel) on
//! `generate::delassus_like` problems, all solvers alternating round by round in one process
//! (so ratios come from the same machine load). Prints one Markdown row per (problem, solver):
//! median and minimum time of the solve alone, iterations, factorisations, matvecs, residual,
//! and the ratio of medians to `qp`.
//!
//! `sparse_speed [--bodies B,B,..] [--contacts C] [--ratio R] [--seed S] [--repeats K]
//! [--solvers s1;s2;..] [--time-limit SECONDS]`
//!
//! Defaults: bodies 333,3333 (n = 999, 9999), 3 contacts per body, mass ratio 10 (the
//! criterion bench `sparse`), seed 1, 3 repeats, solvers newton-min;newton-fb;ipm;apgd;qp.

use std::time::Duration;

use signorini_benches::median;
use signorini_lcp::{generate, Registry, SolveOptions};

struct Args {
    bodies: Vec<usize>,
    contacts: usize,
    ratio: f64,
    seed: u64,
    repeats: usize,
    solvers: Vec<String>,
    time_limit: f64,
    profile: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        bodies: vec![333, 3333],
        contacts: 3,
        ratio: 10.0,
        seed: 1,
        repeats: 3,
        solvers: ["newton-min", "newton-fb", "ipm", "apgd", "qp"]
            .iter()
            .map(|s| s.to_string())
            .collect(),
        time_limit: 120.0,
        profile: false,
    };
    let mut it = std::env::args().skip(1);
    let bad = |f: &str, v: &str| format!("{f}: cannot read {v:?}");
    while let Some(flag) = it.next() {
        if flag == "--profile" {
            a.profile = true;
            continue;
        }
        let v = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--bodies" => {
                a.bodies = v
                    .split(',')
                    .map(|s| s.trim().parse().map_err(|_| bad(&flag, s)))
                    .collect::<Result<_, _>>()?
            }
            "--contacts" => a.contacts = v.parse().map_err(|_| bad(&flag, &v))?,
            "--ratio" => a.ratio = v.parse().map_err(|_| bad(&flag, &v))?,
            "--seed" => a.seed = v.parse().map_err(|_| bad(&flag, &v))?,
            "--repeats" => a.repeats = v.parse().map_err(|_| bad(&flag, &v))?,
            "--time-limit" => a.time_limit = v.parse().map_err(|_| bad(&flag, &v))?,
            "--solvers" => a.solvers = v.split(';').map(|s| s.trim().to_string()).collect(),
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    if a.repeats == 0 {
        return Err("--repeats must be at least 1".into());
    }
    Ok(a)
}

fn main() {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("sparse_speed: {e}");
            std::process::exit(2);
        }
    };
    let registry = Registry::builtin();
    let opts = SolveOptions {
        tol: Some(1e-8),
        time_limit: Some(Duration::from_secs_f64(args.time_limit)),
        ..SolveOptions::default()
    };
    println!(
        "| n | nnz | solver | status | median [s] | min [s] | iterations | factorisations | matvecs | residual | ratio to qp |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for &b in &args.bodies {
        let t0 = std::time::Instant::now();
        let lcp = generate::delassus_like(b, args.contacts, args.ratio, args.seed);
        let nnz = match lcp.matrix() {
            signorini_lcp::Matrix::Sparse(s) => s.compute_nnz(),
            signorini_lcp::Matrix::Dense(_) => lcp.n() * lcp.n(),
        };
        eprintln!("n = {} nnz = {nnz} generated in {:.3} s", lcp.n(), t0.elapsed().as_secs_f64());
        if args.profile {
            profile(&lcp, args.repeats);
        }
        let solvers: Vec<_> = args
            .solvers
            .iter()
            .map(|s| match registry.build(s) {
                Ok(x) => x,
                Err(e) => {
                    eprintln!("sparse_speed: {s}: {e}");
                    std::process::exit(2);
                }
            })
            .collect();
        let mut times = vec![Vec::new(); solvers.len()];
        let mut last = vec![None; solvers.len()];
        for _ in 0..args.repeats {
            for (k, s) in solvers.iter().enumerate() {
                match s.solve(&lcp, &opts, None) {
                    Ok(sol) => {
                        eprintln!(
                            "  {:<28} {:>9.4} s  it {:>5}  fact {:>4}  res {:.2e}  {}",
                            args.solvers[k],
                            sol.solve_seconds,
                            sol.iterations,
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
        for (k, sol) in last.iter().enumerate() {
            let Some(sol) = sol else { continue };
            let min = times[k].iter().copied().fold(f64::INFINITY, f64::min);
            let ratio = qp.map_or("-".to_string(), |q| format!("{:.3}", medians[k] / q));
            println!(
                "| {} | {nnz} | {} | {} | {:.4} | {:.4} | {} | {} | {} | {:.2e} | {ratio} |",
                lcp.n(),
                args.solvers[k],
                sol.status,
                medians[k],
                min,
                sol.iterations,
                sol.factorizations,
                sol.matvecs,
                sol.residual()
            );
        }
    }
}

/// Times the pieces of one Newton-min iteration on `lcp` (the free set of the solution z* is
/// not known here, so the free set of the cold start, {i : q_i < 0}, is used): the symbolic
/// analysis, a numeric Cholesky factorisation, a solve, a matvec, and the same for the
/// unsymmetric sparse LU of `JacobianSystem`; prints nnz of the input and of L.
fn profile(lcp: &signorini_lcp::Lcp, repeats: usize) {
    use signorini_lcp::linalg::jacobian_system::{
        FillOrdering, JacobianSystem, KrylovSettings, LinearSolver, PrincipalCholesky,
    };
    use signorini_lcp::SolveContext;
    use std::time::Instant;
    let n = lcp.n();
    let free: Vec<bool> = lcp.q().iter().map(|q| *q < 0.0).collect();
    let mut ctx = SolveContext::new(1e-8, 10);
    let t = Instant::now();
    let Some(mut chol) = PrincipalCholesky::new(lcp, 1e-12) else {
        eprintln!("profile: M is not sparse symmetric");
        return;
    };
    let t_new = t.elapsed().as_secs_f64();
    let t = Instant::now();
    if let Err(e) = chol.factor(&free, &mut ctx) {
        eprintln!("profile: {e}");
        return;
    }
    let t_first = t.elapsed().as_secs_f64();
    let mut tf = Vec::new();
    let mut ts = Vec::new();
    let mut rhs: Vec<f64> = lcp.q().iter().map(|q| -q).collect();
    for _ in 0..repeats.max(3) {
        let t = Instant::now();
        let _ = chol.factor(&free, &mut ctx);
        tf.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let _ = chol.solve(&mut rhs);
        ts.push(t.elapsed().as_secs_f64());
    }
    let mut tm = Vec::new();
    let mut y = vec![0.0; n];
    for _ in 0..repeats.max(3) {
        let t = Instant::now();
        lcp.mul_vec(&rhs, &mut y);
        tm.push(t.elapsed().as_secs_f64());
    }
    for ordering in [FillOrdering::Auto, FillOrdering::Amd, FillOrdering::Natural] {
        let mut times = Vec::new();
        let mut nnz = 0;
        for _ in 0..3 {
            let Some(mut c) = PrincipalCholesky::with_ordering(lcp, 1e-12, ordering) else {
                return;
            };
            let t = Instant::now();
            let _ = c.factor(&free, &mut ctx);
            times.push(t.elapsed().as_secs_f64());
            nnz = c.factor_nnz();
        }
        eprintln!("  {ordering:?}: first factorisation (ordering + symbolic + numeric) median {:.4} s, nnz(L) {nnz}", median(&times));
    }
    let a: Vec<f64> = free.iter().map(|f| if *f { 0.0 } else { 1.0 }).collect();
    let b: Vec<f64> = free.iter().map(|f| if *f { 1.0 } else { 0.0 }).collect();
    let mut sys =
        JacobianSystem::new(lcp, LinearSolver::Direct, KrylovSettings { restart: 1, max_iter: 1 });
    let mut tl = Vec::new();
    for _ in 0..repeats.max(3) {
        let t = Instant::now();
        let _ = sys.factor(lcp, &a, &b, &mut ctx);
        tl.push(t.elapsed().as_secs_f64());
    }
    eprintln!(
        "profile n = {n}: set-up (symmetry check, pattern) {:.4} s; first factor (AMD + symbolic + numeric) {:.4} s; \
         numeric LL' median {:.4} s; solve {:.5} s; matvec {:.5} s; nnz(upper K) {}, nnz(L) {} (fill {:.2}); \
         sparse LU (first incl. symbolic {:.4} s) median {:.4} s",
        t_new,
        t_first,
        median(&tf),
        median(&ts),
        median(&tm),
        chol.matrix_nnz(),
        chol.factor_nnz(),
        chol.factor_nnz() as f64 / chol.matrix_nnz() as f64,
        tl[0],
        median(&tl[1..]),
    );
}
