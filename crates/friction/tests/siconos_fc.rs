//! The vendored Siconos frictional-contact suite (`verification/data/siconos-fc/`, Siconos
//! numerics, INRIA, Apache-2.0): every file loads with the dimension and contact count of the
//! README's table, and every file is solved to 1e-8 (error recomputed by the driver) by at
//! least one solver of its row; the pairs that do not reach it are FIXMEs stating what was
//! measured.

use std::path::{Path, PathBuf};

use signorini_friction::formats::read_fc_problem;
use signorini_friction::{merit, FcRegistry};
use signorini_lcp::{SolveOptions, Status};

const TOL: f64 = 1e-8;

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../verification/data/siconos-fc").join(name)
}

/// What a (file, solver) pair is expected to do.
#[derive(Debug, Clone, Copy)]
enum Expect {
    /// Error <= 1e-8 within the iteration cap.
    Solved,
    /// FIXME: not solved; the text says what was measured and why.
    Unsolved(&'static str),
}

use Expect::{Solved, Unsolved};

/// (file, d, contacts, [(solver spec, iteration cap, expectation)]).
type Row = (&'static str, usize, usize, &'static [(&'static str, usize, Expect)]);

const NEWTON_FAILS_00727: Expect = Unsolved(
    "FIXME(newton-ac, FrictionContactProblem00727): Armijo steps on ½|Phi|² stall; error \
     4.9e-4 after 200 steps, 4.9e-4 after 6004 (20 s); nsgs solves it, and so does newton-ac \
     with fallback_sweeps=50 (25 steps)",
);

const TABLE: &[Row] = &[
    // FCLIB global (M v = H r + f, u = H'v + w), reduced to W = H'M^-1 H, q = H'M^-1 f + w.
    ("Box_Stacks-i0122-82-5.hdf5", 3, 82, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved)]),
    ("BoxesStack1-i100000-32.hdf5.dat", 3, 52, &[
        ("nsgs", 2000, Unsolved(
            "FIXME(nsgs, BoxesStack1): error 1.7e-4 after 1000 sweeps, 1.5e-5 after 20000 \
             (linear convergence too slow on this stack of boxes with a singular W)")),
        ("newton-ac", 200, Unsolved(
            "FIXME(newton-ac, BoxesStack1): stalls near 3.6e-2 (rho_scale 10: 4.0e-5 after 300 \
             steps; warm start from 200 nsgs sweeps: 2.0e-5)")),
        // Nothing slides at this solution, so the convex relaxation's solution is Coulomb's.
        ("apgd-ccp", 6000, Solved),
    ]),
    ("Capsules-i100-1090.dat", 3, 276, &[
        ("nsgs", 6000, Solved),
        // Newton with 50 nsgs sweeps whenever Armijo fails: 72 steps.
        ("newton-ac:fallback_sweeps=50", 200, Solved),
    ]),
    ("Capsules-i101-404.dat", 3, 225, &[("newton-ac", 200, Solved)]),
    ("Capsules-i125-1213.hdf5", 3, 286, &[
        ("nsgs", 3000, Solved),
        ("newton-ac:rho_scale=10", 200, Solved),
        ("apgd-ccp:desaxce=true", 1200, Solved),
    ]),
    ("Confeti-ex03-Fc3D-SBM.dat", 3, 54, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved)]),
    ("Confeti-ex13-4contact-Fc3D-SBM.dat", 3, 4, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved)]),
    ("FC2D_SliderCrankLagrangian00000.dat", 2, 2, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved), ("lcp", 10_000, Solved)]),
    ("FC3D_Example1.dat", 3, 3, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved), ("lcp", 10_000, Unsolved(
        "the 8-facet polyhedral cone is not the Coulomb cone: the LCP is solved but the true \
         error is 9.7e-3 (k = 16: 2.1e-3); exact in 2D only"))]),
    ("FC3D_Example1_SBM.dat", 3, 3, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved)]),
    ("FrictionContact3D_1c.dat", 3, 1, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved)]),
    ("FrictionContact3D_RR_1c.dat", 3, 1, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved)]),
    ("FrictionContactProblem00031.dat", 2, 11, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved), ("lcp", 10_000, Solved)]),
    ("FrictionContactProblem00071.dat", 2, 89, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved), ("lcp", 10_000, Solved)]),
    ("FrictionContactProblem00237.dat", 2, 376, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved)]),
    ("FrictionContactProblem00374.dat", 2, 28, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved), ("lcp", 10_000, Solved)]),
    ("FrictionContactProblem00394.dat", 2, 6, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved), ("lcp", 10_000, Solved)]),
    ("FrictionContactProblem00727.dat", 2, 367, &[
        ("nsgs", 1000, Solved),
        ("newton-ac", 200, NEWTON_FAILS_00727),
        ("newton-ac:fallback_sweeps=50", 200, Solved),
        ("apgd-ccp:desaxce=true", 1000, Solved),
    ]),
    ("NESpheres_10_1.dat", 3, 9, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved)]),
    ("OneObject-i1028-138.hdf5.dat", 3, 23, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved)]),
    ("Rover1039.dat", 3, 4, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved)]),
    ("Rover1040.dat", 3, 5, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved)]),
    ("Rover1041.dat", 3, 5, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved)]),
    ("Rover3865.dat", 3, 5, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved)]),
    ("Rover4144.dat", 3, 4, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved)]),
    ("Rover4396.dat", 3, 2, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved)]),
    ("fc2d_granularflowonwall_00667_00000.dat", 2, 667, &[("nsgs", 1000, Solved), ("newton-ac", 200, Solved)]),
];

#[test]
fn every_vendored_file_loads_with_the_readme_sizes() {
    let mut listed: Vec<&str> = TABLE.iter().map(|r| r.0).collect();
    listed.sort_unstable();
    let mut on_disk: Vec<String> = std::fs::read_dir(data(""))
        .expect("data dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".dat") || n.ends_with(".hdf5"))
        .collect();
    on_disk.sort_unstable();
    assert_eq!(listed, on_disk, "the table must name every vendored problem file");
    for &(file, d, nc, _) in TABLE {
        let p = read_fc_problem(&data(file), None).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!((p.dimension(), p.n_contacts()), (d, nc), "{file}");
    }
}

#[test]
fn every_file_is_solved_by_a_solver_or_is_a_named_fixme() {
    let registry = FcRegistry::builtin();
    let mut failures = Vec::new();
    for &(file, _, _, runs) in TABLE {
        let p = read_fc_problem(&data(file), None).expect("loads");
        let mut solved_by_one = false;
        for &(spec, cap, expect) in runs {
            let solver = registry.build(spec).expect("spec");
            let options =
                SolveOptions { tol: Some(TOL), max_iter: Some(cap), ..SolveOptions::default() };
            let sol = solver.solve(&p, &options, None).expect("runs");
            // The driver's figure, recomputed once more here from r.
            let error = merit::error(&p, &sol.r);
            assert!((error - sol.error).abs() <= 1e-12 * (1.0 + error), "{file} {spec}");
            let solved = sol.status == Status::Solved && error <= TOL;
            solved_by_one |= solved;
            match (expect, solved) {
                (Solved, true) | (Unsolved(_), false) => {}
                (Solved, false) => failures.push(format!(
                    "{file} {spec}: {} error {error:.2e} after {}",
                    sol.status, sol.iterations
                )),
                (Unsolved(why), true) => failures.push(format!(
                    "{file} {spec}: now solved ({error:.2e}); remove the FIXME: {why}"
                )),
            }
        }
        assert!(solved_by_one, "{file}: no solver reached {TOL:e}");
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// `ipm-ccp` (clarabel on the shifted cone relaxation) solves the small files whose W is
/// symmetric to 1e-8 and, where its shift iteration stalls, says so (never `solved` above tol:
/// the error is recomputed here).
#[test]
fn ipm_ccp_solves_the_small_symmetric_files_and_is_honest_elsewhere() {
    let solver = FcRegistry::builtin().build("ipm-ccp").expect("registered");
    let options = SolveOptions { tol: Some(TOL), ..SolveOptions::default() };
    for file in
        ["FC3D_Example1.dat", "FrictionContact3D_1c.dat", "FC2D_SliderCrankLagrangian00000.dat"]
    {
        let p = read_fc_problem(&data(file), None).expect("loads");
        let sol = solver.solve(&p, &options, None).expect("runs");
        assert_eq!(sol.status, Status::Solved, "{file}: {:.2e}", sol.error);
        assert!(merit::error(&p, &sol.r) <= TOL, "{file}");
    }
    for file in ["Rover1039.dat", "FrictionContactProblem00394.dat"] {
        let p = read_fc_problem(&data(file), None).expect("loads");
        let sol = solver.solve(&p, &options, None).expect("runs");
        let error = merit::error(&p, &sol.r);
        assert_eq!(
            sol.status == Status::Solved,
            error <= TOL,
            "{file}: {:?} {error:.2e}",
            sol.status
        );
        assert!(error.is_finite() && error < 1e-3, "{file}: {error:.2e}");
    }
}

/// `auto` (newton-ac with nsgs fallback sweeps, then nsgs, then apgd-ccp with the shift, each
/// warm-started from the best r) solves every vendored file to 1e-8, each with the stage the
/// measured table predicts for three of them.
#[test]
fn auto_solves_every_vendored_file() {
    let solver = FcRegistry::builtin().build("auto").expect("registered");
    let options = SolveOptions { tol: Some(TOL), ..SolveOptions::default() };
    let mut failures = Vec::new();
    for &(file, _, _, _) in TABLE {
        let p = read_fc_problem(&data(file), None).expect("loads");
        let sol = solver.solve(&p, &options, None).expect("runs");
        let error = merit::error(&p, &sol.r);
        if !(sol.status == Status::Solved && error <= TOL) {
            failures.push(format!("{file}: {} {error:.2e} ({:?})", sol.status, sol.note));
        }
        let note = sol.note.unwrap_or_default();
        let stage = match file {
            "BoxesStack1-i100000-32.hdf5.dat" => "r from apgd-ccp",
            "Capsules-i125-1213.hdf5" => "r from nsgs",
            "Capsules-i100-1090.dat" => "r from newton-ac",
            _ => "auto:",
        };
        assert!(note.contains(stage), "{file}: {note}");
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// The global-to-local reduction gives a Delassus matrix: symmetric with a positive diagonal.
#[test]
fn the_reduced_fclib_global_problem_has_a_symmetric_delassus_matrix() {
    let p = read_fc_problem(&data("Box_Stacks-i0122-82-5.hdf5"), None).expect("loads");
    let n = p.n();
    let scale = (0..n).map(|i| p.get(i, i).abs()).fold(0.0f64, f64::max);
    for i in 0..n {
        assert!(p.get(i, i) > 0.0, "W[{i}][{i}] = {}", p.get(i, i));
        for j in 0..i {
            assert!((p.get(i, j) - p.get(j, i)).abs() <= 1e-10 * scale, "({i}, {j})");
        }
    }
}

/// Every solver honours the wall-clock limit on a problem it cannot finish in 2 ms.
#[test]
fn the_time_limit_is_honoured_by_every_solver() {
    let p = read_fc_problem(&data("Capsules-i100-1090.dat"), None).expect("loads");
    let registry = FcRegistry::builtin();
    let options = SolveOptions {
        tol: Some(1e-12),
        time_limit: Some(std::time::Duration::from_millis(2)),
        ..SolveOptions::default()
    };
    for spec in ["nsgs", "newton-ac", "admm", "apgd-ccp:desaxce=true", "lcp", "auto", "ipm-ccp"] {
        let sol = registry.build(spec).expect("spec").solve(&p, &options, None).expect("runs");
        assert_eq!(sol.status, Status::TimeLimit, "{spec}");
        assert!(sol.solve_seconds < 1.0, "{spec} took {} s", sol.solve_seconds);
    }
}

/// A shuffled sweep order is reproducible from its seed and differs between seeds.
#[test]
fn shuffled_nsgs_is_deterministic_for_a_seed() {
    let p = read_fc_problem(&data("FrictionContactProblem00071.dat"), None).expect("loads");
    let options = SolveOptions { max_iter: Some(5), ..SolveOptions::default() };
    let run = |spec: &str| {
        FcRegistry::builtin().build(spec).expect("spec").solve(&p, &options, None).expect("runs").r
    };
    let a = run("nsgs:shuffle=true,seed=7");
    let b = run("nsgs:shuffle=true,seed=7");
    let c = run("nsgs:shuffle=true,seed=8");
    assert!(a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits()));
    assert!(a.iter().zip(&c).any(|(x, y)| x.to_bits() != y.to_bits()));
}

/// The `/solution` group stored in the FCLIB file, measured with this crate's merit. What was
/// found (and is asserted here so that a reader change shows), as rust-hdf5 reads it (not
/// cross-checked with the C HDF5 library): the stored r is identically zero and the stored u is not W r + q = q (they differ by 5.8e-2 at the scale 4.1 of u), so
/// the pair is not a solution of the stored problem: the error of r = 0 is 1.6e-2, while nsgs
/// reaches 1e-8 on the same data. The stored (r, u) does satisfy the cone conditions with the
/// stored u taken as given (4.95e-9): it fits some other q.
#[test]
fn the_fclib_stored_solution_of_capsules_i125_is_not_one_of_its_problem() {
    use signorini_lcp::formats::fclib::read_local_solution;
    let path = data("Capsules-i125-1213.hdf5");
    let p = read_fc_problem(&path, None).expect("loads");
    let stored = read_local_solution(&path).expect("reads").expect("the file has a solution");
    let (r, u) = (stored.r, stored.u);
    assert_eq!((r.len(), u.len()), (p.n(), p.n()));
    let r_max = r.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    assert!(r_max < 1e-300, "the stored r is no longer zero: max |r| = {r_max:e}");
    let recomputed = p.velocity(&r);
    let gap = u.iter().zip(&recomputed).fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
    assert!((gap - 5.83e-2).abs() < 1e-3, "stored u vs W r + q: {gap:e}");
    let stored_error = merit::error(&p, &r);
    assert!((stored_error - 1.58e-2).abs() < 1e-4, "{stored_error:e}");
    assert!(merit::error_with_velocity(&p, &r, &u) < 1e-8);
}

/// Every vendored problem written as an FCLIB local problem and read back is the same problem:
/// the same d, mu and q bit for bit, and the same W entry by entry (W's nonzeros; the writer
/// drops explicit zeros). The files are written to a temporary folder.
#[test]
fn every_vendored_file_round_trips_through_the_fclib_writer() {
    let dir = std::env::temp_dir().join(format!("signorini-fclib-write-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    for &(file, ..) in TABLE {
        let p = read_fc_problem(&data(file), None).expect("loads");
        let out = dir.join(format!("{file}.hdf5"));
        signorini_friction::formats::write_fclib(&out, &p)
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        let back = read_fc_problem(&out, None).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(
            (back.dimension(), back.mu(), back.q()),
            (p.dimension(), p.mu(), p.q()),
            "{file}"
        );
        let n = p.n();
        for i in 0..n {
            for j in 0..n {
                let (a, b) = (back.get(i, j), p.get(i, j));
                assert!(a == b, "{file}: W[{i}][{j}] = {a} read back, {b} written");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
