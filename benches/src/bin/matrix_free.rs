//! Matrix-free against assembled Delassus sweeps (issue 16): on packings from
//! signorini-contact at the velocity level (h = 0.01, no friction), the time of one projected
//! Gauss–Seidel sweep and of one product W z with W assembled (compressed rows) and with W
//! held as its Gram form W = G G' (G = J L, nnz(G) = nnz(J); `Lcp::from_gram`), as the median
//! of repeated runs, with the achieved bytes per second against a triad measured in the same
//! run, the time to set up each form (detection and assembly) and the ratio nnz(W) / nnz(J)
//! that `DelassusForm::Auto` decides by.
//!
//! Bytes per sweep: assembled 16 nnz(W) + 40 n (value and column index per entry; row
//! pointer, q, diagonal, z read and written per row), matrix-free 16 nnz(G) + 40 n + 16 p
//! (G read once from memory, its second pass for v += Δz G_i' from cache; v of length p read
//! and written once). Gathers are not counted.
//!
//! Last, one solve each way with `pgs:tol=1e-6,max_iter=3000` from z = 0 (one timing, the
//! driver's solve time: sweeps, merit checks and the final row test, which on the Gram form
//! enumerates W's entries from G): the sweeps and the status must agree.
//!
//! Run: `cargo run --release -p signorini-benches --bin matrix_free [-- --runs 5 --max-n N]`.

use std::time::Instant;

use signorini_benches::{median, triad_bandwidth};
use signorini_contact::delassus::{delassus_nnz, jacobian_nnz};
use signorini_contact::packings::{box_stacks, cubic_lattice, fcc_pile, hex_disks, loaded_tray};
use signorini_contact::{
    contact_problem_with, ContactProblem, DelassusForm, Dimension, Level, Scene,
};
use signorini_lcp::linalg::sweeps::{checked_diagonal, sweep_forward, GramSweeper, Rows};
use signorini_lcp::{Lcp, Registry, SolveOptions};

fn arg_value(name: &str) -> Option<usize> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).and_then(|v| v.parse().ok())
}

fn build(scene: &Scene, form: DelassusForm) -> (ContactProblem, f64) {
    let t = Instant::now();
    let p = match contact_problem_with(scene, Level::Velocity, Some(0.01), None, form) {
        Ok(p) => p,
        Err(e) => panic!("{e}"),
    };
    (p, t.elapsed().as_secs_f64())
}

/// Median seconds of one call of `f`, over `runs` timings of `reps` calls each.
fn time_per_call(runs: usize, reps: usize, mut f: impl FnMut()) -> f64 {
    let mut t = Vec::new();
    for _ in 0..runs {
        let start = Instant::now();
        for _ in 0..reps {
            f();
        }
        t.push(start.elapsed().as_secs_f64() / reps as f64);
    }
    median(&t)
}

struct Row {
    name: String,
    n: usize,
    nnz_j: usize,
    nnz_w: usize,
    p: usize,
    setup: [f64; 2],
    sweep: [f64; 2],
    product: [f64; 2],
    /// (sweeps, status, seconds) of a pgs solve to 1e-6, assembled and matrix-free.
    solve: [(usize, String, f64); 2],
}

fn pgs_solve(lcp: &Lcp) -> (usize, String, f64) {
    let spec = "pgs:tol=1e-6,max_iter=3000";
    let solver = match Registry::builtin().build(spec) {
        Ok(s) => s,
        Err(e) => panic!("{spec}: {e}"),
    };
    match solver.solve(lcp, &SolveOptions::default(), None) {
        Ok(s) => (s.iterations, s.status.as_str().to_owned(), s.solve_seconds),
        Err(e) => panic!("{spec}: {e}"),
    }
}

fn measure(name: String, scene: &Scene, runs: usize) -> Row {
    let (a, setup_a) = build(scene, DelassusForm::Assembled);
    let (f, setup_f) = build(scene, DelassusForm::MatrixFree);
    let n = a.lcp.n();
    let (nnz_j, nnz_w) = (jacobian_nnz(&a.jacobian), delassus_nnz(&a.jacobian));
    let gram = match f.lcp.gram() {
        Some(g) => g,
        None => panic!("{name}: not matrix-free"),
    };
    let p = gram.factor().ncols();
    // Enough sweeps per timing for about 5e7 bytes, so the timer's resolution does not matter.
    let reps = (50_000_000 / (16 * nnz_w.min(nnz_j) + 40 * n)).clamp(3, 2000);
    let q = a.lcp.q();
    let rows = Rows::new(&a.lcp);
    let diag = match checked_diagonal(a.lcp.diag()) {
        Ok(d) => d,
        Err(e) => panic!("{name}: {e}"),
    };
    // Sweeps from z = 0 onward: the timings include the early sweeps, where most z_i move.
    let mut z = vec![0.0; n];
    let sweep_a = time_per_call(runs, reps, || {
        std::hint::black_box(sweep_forward(&rows, q, &diag, 1.0, &mut z));
    });
    let mut z = vec![0.0; n];
    let mut sweeper = GramSweeper::new(gram, &z);
    let diag_g = gram.diagonal().to_vec();
    let sweep_f = time_per_call(runs, reps, || {
        std::hint::black_box(sweeper.forward(q, &diag_g, 1.0, &mut z));
    });
    let x: Vec<f64> = (0..n).map(|i| 1.0 + (i % 7) as f64).collect();
    let mut y = vec![0.0; n];
    let product_a = time_per_call(runs, reps, || a.lcp.mul_vec(&x, &mut y));
    let product_f = time_per_call(runs, reps, || f.lcp.mul_vec(&x, &mut y));
    let solve = [pgs_solve(&a.lcp), pgs_solve(&f.lcp)];
    Row {
        name,
        n,
        nnz_j,
        nnz_w,
        p,
        setup: [setup_a, setup_f],
        sweep: [sweep_a, sweep_f],
        product: [product_a, product_f],
        solve,
    }
}

fn main() {
    let runs = arg_value("--runs").filter(|&r| r >= 1).unwrap_or(5);
    let max_n = arg_value("--max-n").unwrap_or(usize::MAX);
    let triad = triad_bandwidth(runs);
    println!("triad (one thread, median of {runs}): {:.2} GB/s", triad / 1e9);
    let cases: Vec<(String, Scene)> = vec![
        ("hex_disks(18, 18)".into(), hex_disks(18, 18, 10.0)),
        ("hex_disks(58, 58)".into(), hex_disks(58, 58, 10.0)),
        ("hex_disks(183, 183)".into(), hex_disks(183, 183, 10.0)),
        ("fcc_pile(4, 4, 3)".into(), fcc_pile((4, 4, 3), 0.05, 10.0, 1)),
        ("fcc_pile(8, 8, 7)".into(), fcc_pile((8, 8, 7), 0.05, 10.0, 1)),
        ("fcc_pile(17, 17, 15)".into(), fcc_pile((17, 17, 15), 0.05, 10.0, 1)),
        ("cubic_lattice(7)".into(), cubic_lattice(7)),
        ("cubic_lattice(15)".into(), cubic_lattice(15)),
        ("cubic_lattice(32)".into(), cubic_lattice(32)),
        ("box_stacks(3D, 25, 10)".into(), box_stacks(Dimension::Three, 25, 10, 100.0)),
        ("box_stacks(3D, 250, 10)".into(), box_stacks(Dimension::Three, 250, 10, 100.0)),
        ("box_stacks(3D, 2500, 10)".into(), box_stacks(Dimension::Three, 2500, 10, 100.0)),
        ("loaded_tray(10, 1)".into(), loaded_tray(10, 1)),
        ("loaded_tray(20, 1)".into(), loaded_tray(20, 1)),
        ("loaded_tray(20, 10)".into(), loaded_tray(20, 10)),
        ("loaded_tray(40, 1)".into(), loaded_tray(40, 1)),
        ("loaded_tray(40, 8)".into(), loaded_tray(40, 8)),
    ];
    println!(
        "| scene | n | nnz(J) | nnz(W) | nnz(W)/nnz(J) | set-up [ms] A / MF | sweep [ms] A / MF | \
         sweep GB/s A / MF | of triad A / MF | product [ms] A / MF | MF sweep speed-up | \
         pgs to 1e-6: sweeps, status | solve [ms] A / MF |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (name, scene) in cases {
        // The unknowns without forming anything: one row per contact.
        let contacts = match signorini_contact::detect_contacts(
            &scene.bodies,
            scene.dimension,
            scene.margin,
        ) {
            Ok(c) => c.len(),
            Err(e) => panic!("{name}: {e}"),
        };
        if contacts > max_n {
            continue;
        }
        let r = measure(name, &scene, runs);
        let bytes_a = (16 * r.nnz_w + 40 * r.n) as f64;
        let bytes_f = (16 * r.nnz_j + 40 * r.n + 16 * r.p) as f64;
        let (ga, gf) = (bytes_a / r.sweep[0], bytes_f / r.sweep[1]);
        println!(
            "| {} | {} | {} | {} | {:.2} | {:.1} / {:.1} | {:.4} / {:.4} | {:.2} / {:.2} | {:.2} / {:.2} | {:.4} / {:.4} | {:.2} | {} {} / {} {} | {:.1} / {:.1} |",
            r.name,
            r.n,
            r.nnz_j,
            r.nnz_w,
            r.nnz_w as f64 / r.nnz_j as f64,
            r.setup[0] * 1e3,
            r.setup[1] * 1e3,
            r.sweep[0] * 1e3,
            r.sweep[1] * 1e3,
            ga / 1e9,
            gf / 1e9,
            ga / triad,
            gf / triad,
            r.product[0] * 1e3,
            r.product[1] * 1e3,
            r.sweep[0] / r.sweep[1],
            r.solve[0].0,
            r.solve[0].1,
            r.solve[1].0,
            r.solve[1].1,
            r.solve[0].2 * 1e3,
            r.solve[1].2 * 1e3,
        );
    }
}
