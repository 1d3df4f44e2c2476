//! Class tests for `newton-fb`, `newton-min`, `ipm` and `qp`: on every matrix class each solver
//! returns `solved` with a z checked here independently of the crate's merit code, or an
//! honest non-solved status, never a wrong `solved`; infeasible problems are never `solved`;
//! a sparse SPD problem (1-D Laplacian + shift, n = 2000) is solved to 1e-10.

use proptest::prelude::*;
use signorini_lcp::{generate, Lcp, Registry, Solution, SolveOptions, Status};

fn run(spec: &str, lcp: &Lcp) -> Solution {
    let solver = Registry::builtin().build(spec).expect("valid spec");
    solver.solve(lcp, &SolveOptions::default(), None).expect("set up")
}

/// Independent check: w = Mz + q from the rows of M, then ||min(z, w)|| <= tol ||q||
/// (tolerance with a round-off margin).
fn independently_solved(lcp: &Lcp, z: &[f64], tol: f64) -> bool {
    let rows = lcp.dense_rows();
    let q = lcp.q();
    let mut sq = 0.0;
    for (i, row) in rows.iter().enumerate() {
        let wi: f64 = row.iter().zip(z).map(|(m, zj)| m * zj).sum::<f64>() + q[i];
        sq += z[i].min(wi).powi(2);
    }
    let qn = q.iter().map(|v| v * v).sum::<f64>().sqrt().max(f64::EPSILON);
    sq.sqrt() <= tol * qn * (1.0 + 1e-6)
}

fn check_honest(spec: &str, lcp: &Lcp) -> Solution {
    let sol = run(spec, lcp);
    if sol.status == Status::Solved {
        assert!(
            independently_solved(lcp, &sol.z, sol.tol),
            "{spec} claims solved on {:?} but the residual fails",
            lcp.name
        );
    }
    sol
}

fn max_rel_diff(a: &[f64], b: &[f64]) -> f64 {
    let scale = a.iter().map(|v| v.abs()).fold(1.0, f64::max);
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max) / scale
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn spd_is_solved_by_all_four_and_they_agree(n in 2usize..25, seed in 0u64..10_000) {
        let lcp = generate::random_spd(n, seed);
        let mut solved: Vec<Vec<f64>> = Vec::new();
        for spec in ["newton-fb", "newton-min", "ipm", "qp"] {
            let sol = check_honest(spec, &lcp);
            prop_assert_eq!(sol.status, Status::Solved, "{} n {} seed {}: {:?}", spec, n, seed, sol.note);
            solved.push(sol.z);
        }
        // The SPD solution is unique: every solver must find the same z.
        for z in &solved[1..] {
            prop_assert!(max_rel_diff(&solved[0], z) < 1e-6);
        }
    }

    #[test]
    fn p_matrix_newton_methods_are_honest(n in 2usize..25, seed in 0u64..10_000) {
        let lcp = generate::random_p_matrix(n, seed);
        for spec in ["newton-fb", "newton-min"] {
            let sol = check_honest(spec, &lcp);
            // DFK: for a P-matrix every stationary point of Ψ solves the LCP.
            prop_assert_eq!(sol.status, Status::Solved, "{} n {} seed {}", spec, n, seed);
        }
    }

    #[test]
    fn psd_singular_is_honest(n in 2usize..20, rank in 1usize..10, seed in 0u64..10_000) {
        let lcp = generate::random_psd_singular(n, rank, seed);
        for spec in ["ipm", "qp", "newton-fb"] {
            check_honest(spec, &lcp);
        }
    }

    #[test]
    fn copositive_plus_infeasible_is_never_solved(n in 2usize..15, seed in 0u64..10_000) {
        let (lcp, _) = generate::random_copositive_plus_infeasible(n, seed);
        for spec in ["newton-fb", "newton-min", "ipm"] {
            let sol = run(spec, &lcp);
            // The generator makes P y = 0 exactly (it used to leave M_kk = 7.7e-34 at
            // n = 4, seed 1546, which made the data solvable): the LCP is infeasible.
            prop_assert!(sol.status != Status::Solved, "{} n {} seed {}: solved", spec, n, seed);
        }
    }
}

#[test]
fn psd_singular_ipm_and_qp_solve() {
    for seed in 0..6 {
        let lcp = generate::random_psd_singular(15, 5, seed);
        for spec in ["ipm", "qp"] {
            let sol = check_honest(spec, &lcp);
            assert_eq!(sol.status, Status::Solved, "{spec} seed {seed}: {:?}", sol.note);
        }
    }
}

/// M = tridiag(-1, 2 + shift, -1) (1-D Laplacian plus a diagonal shift, SPD), q from a
/// deterministic pattern with both signs so that both index sets are large.
fn laplacian(n: usize, shift: f64) -> Lcp {
    let q = (0..n).map(|i| ((i as f64) * 0.37).sin() - 0.2).collect();
    generate::tridiagonal(|_| 2.0 + shift, -1.0, -1.0, q).with_name(format!("laplacian_n{n}"))
}

#[test]
fn sparse_laplacian_2000_reaches_1e_10() {
    let lcp = laplacian(2000, 0.01);
    assert!(lcp.is_sparse());
    for spec in ["newton-fb", "newton-fb:linear=gmres", "ipm", "newton-min", "qp"] {
        let sol = check_honest(spec, &lcp);
        assert_eq!(sol.status, Status::Solved, "{spec}: {:?}", sol.note);
        assert!(sol.residual() <= 1e-10, "{spec}: {}", sol.residual());
        eprintln!(
            "{spec}: n = 2000, iterations {}, factorizations {}, matvecs {}, {:.3} s, residual {:.2e}",
            sol.iterations, sol.factorizations, sol.matvecs, sol.solve_seconds, sol.residual()
        );
    }
}

#[test]
fn bad_dimensions_of_warm_start_are_errors_for_each_solver() {
    let lcp = generate::random_spd(5, 0);
    for spec in ["newton-fb", "newton-min", "ipm", "qp", "auto"] {
        let solver = Registry::builtin().build(spec).expect("valid spec");
        assert!(solver.solve(&lcp, &SolveOptions::default(), Some(&[0.0; 4])).is_err(), "{spec}");
        assert!(solver.solve(&lcp, &SolveOptions::default(), Some(&[0.0; 6])).is_err(), "{spec}");
    }
}

#[test]
fn empty_problem_is_solved_by_each_solver() {
    let lcp = Lcp::from_dense_rows(&[], vec![]).expect("valid");
    for spec in ["newton-fb", "newton-min", "ipm", "qp"] {
        assert_eq!(run(spec, &lcp).status, Status::Solved, "{spec}");
    }
}

#[test]
fn iteration_limit_is_respected() {
    let lcp = generate::random_spd(30, 4);
    for spec in ["newton-fb", "newton-min", "ipm"] {
        let solver = Registry::builtin().build(spec).expect("valid spec");
        let opts = SolveOptions { max_iter: Some(1), ..SolveOptions::default() };
        let sol = solver.solve(&lcp, &opts, None).expect("set up");
        assert!(sol.iterations <= 1, "{spec}");
        assert!(sol.status == Status::Solved || sol.status == Status::MaxIterations, "{spec}");
    }
}

#[test]
fn residual_history_is_recorded() {
    let lcp = generate::random_spd(20, 9);
    for spec in ["newton-fb", "newton-min", "ipm"] {
        let solver = Registry::builtin().build(spec).expect("valid spec");
        let opts = SolveOptions { history_every: Some(1), ..SolveOptions::default() };
        let sol = solver.solve(&lcp, &opts, None).expect("set up");
        let h = sol.history.expect("history requested");
        assert_eq!(h.len(), sol.iterations, "{spec}");
        let last = h.last().and_then(|e| e.residual).expect("exact residual recorded");
        assert!(last <= 1e-10, "{spec}: {last}");
    }
}

#[test]
fn delassus_like_sparse_reaches_1e_10_and_the_known_solution() {
    for (ratio, seed) in [(1.0, 1u64), (100.0, 2), (1e4, 3)] {
        let (lcp, z_star) = generate::delassus_like_with_solution(300, 2, ratio, seed);
        assert!(lcp.is_sparse());
        for spec in ["newton-fb", "newton-min", "ipm", "qp"] {
            let sol = check_honest(spec, &lcp);
            assert_eq!(sol.status, Status::Solved, "{spec} ratio {ratio}: {:?}", sol.note);
            assert!(sol.residual() <= 1e-10, "{spec} ratio {ratio}: {}", sol.residual());
            // W is positive definite: the solution is unique, so z must be z*.
            assert!(max_rel_diff(&z_star, &sol.z) < 1e-6, "{spec} ratio {ratio}");
            eprintln!(
                "{spec}: delassus n = {}, ratio {ratio:e}: iterations {}, factorizations {}, \
                 matvecs {}, residual {:.2e}",
                lcp.n(),
                sol.iterations,
                sol.factorizations,
                sol.matvecs,
                sol.residual()
            );
        }
    }
}

#[test]
fn box_stack_reactions_are_recovered() {
    let n = 50;
    let lcp = generate::box_stack(n, 1000.0);
    let expected = generate::box_stack_reactions(n, 1000.0, generate::MassProfile::Alternating);
    for spec in ["newton-fb", "newton-min", "ipm", "qp"] {
        let sol = check_honest(spec, &lcp);
        assert_eq!(sol.status, Status::Solved, "{spec}: {:?}", sol.note);
        assert!(max_rel_diff(&expected, &sol.z) < 1e-8, "{spec}");
    }
}

/// Issue 3's accuracy point at 10^3 unknowns (10^4 is checked by the release probe
/// `examples/delassus_accuracy.rs`): `newton-fb` and `ipm` reach residual 1e-10 on sparse SPD
/// Delassus-like problems with 4 contacts per body, at mass ratios 1, 100 and 10^4, and z
/// matches the generator's known solution (up to ratio 100, see below).
#[test]
fn delassus_like_1000_newton_fb_and_ipm_reach_1e_10() {
    let options = SolveOptions { tol: Some(1e-10), ..SolveOptions::default() };
    for (ratio, seed) in [(1.0, 11u64), (100.0, 12), (1e4, 13)] {
        let (lcp, z_star) = generate::delassus_like_with_solution(250, 4, ratio, seed);
        assert_eq!(lcp.n(), 1000);
        assert!(lcp.is_sparse());
        for spec in ["newton-fb", "ipm"] {
            let solver = Registry::builtin().build(spec).expect("valid spec");
            let sol = solver.solve(&lcp, &options, None).expect("set up");
            assert_eq!(sol.status, Status::Solved, "{spec} ratio {ratio:e}: {:?}", sol.note);
            assert!(independently_solved(&lcp, &sol.z, 1e-10), "{spec} ratio {ratio:e}");
            let diff = max_rel_diff(&z_star, &sol.z);
            // At mass ratio 10^4 W is ill-conditioned (heavy bodies give W_cc ~ 1e-4, and
            // nearly redundant contacts are kept apart only by the 1e-6 regularisation): ipm
            // was measured at merit 1.2e-14 with |z - z*| / |z*| = 1.0e-5, newton-fb at 1.3e-13
            // with 4.6e-7. The distance to z* is therefore only asserted up to ratio 100.
            if ratio <= 100.0 {
                assert!(diff < 1e-6, "{spec} ratio {ratio:e}: |z - z*| / |z*| = {diff:.2e}");
            }
            eprintln!(
                "{spec}: delassus n = 1000, ratio {ratio:e}: residual {:.2e}, |z - z*| / |z*| \
                 {diff:.1e}, iterations {}, factorizations {}, {:.3} s",
                sol.residual(),
                sol.iterations,
                sol.factorizations,
                sol.solve_seconds
            );
        }
    }
}
