//! Pivoting methods (`lemke`, `murty`) by matrix class: seeded random SPD, nonsymmetric P,
//! PSD singular and copositive-plus infeasible problems (proptest over seeds and sizes), and the
//! tiny cases of REFERENCE.md (seeds A1, A2, A4; skew, two- and three-solution, degenerate).
//! Every solution is re-verified here from z alone, independently of the driver's merit.

use proptest::prelude::*;
use signorini_lcp::generate;
use signorini_lcp::{verify_farkas, Certificate, Lcp, Registry, Solution, SolveOptions, Status};

fn solve(spec: &str, lcp: &Lcp) -> Solution {
    let solver = Registry::builtin().build(spec).expect("registered");
    solver.solve(lcp, &SolveOptions::default(), None).expect("set up")
}

/// Independent check: w = Mz + q recomputed entry by entry, z >= 0, w >= 0, z_i w_i = 0, all
/// up to `rel` times the scale of the data.
fn verify_solution(lcp: &Lcp, z: &[f64], rel: f64) -> Result<(), String> {
    let n = lcp.n();
    let zmax = z.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    let qmax = lcp.q().iter().fold(0.0f64, |a, v| a.max(v.abs()));
    let mut mmax: f64 = 0.0;
    for i in 0..n {
        for j in 0..n {
            mmax = mmax.max(lcp.get(i, j).abs());
        }
    }
    let scale = qmax + n as f64 * mmax * zmax;
    for i in 0..n {
        let wi = lcp.q()[i] + (0..n).map(|j| lcp.get(i, j) * z[j]).sum::<f64>();
        if z[i] < -rel * zmax.max(1e-300) {
            return Err(format!("z[{i}] = {}", z[i]));
        }
        if wi < -rel * scale {
            return Err(format!("w[{i}] = {wi}"));
        }
        if (z[i] * wi).abs() > rel * scale * zmax.max(1.0) {
            return Err(format!("z[{i}] w[{i}] = {}", z[i] * wi));
        }
    }
    Ok(())
}

fn assert_solved(spec: &str, lcp: &Lcp) -> Solution {
    let sol = solve(spec, lcp);
    assert_eq!(sol.status, Status::Solved, "{spec} on {:?}: {:?}", lcp.name, sol.note);
    assert!(sol.residual() <= 1e-10, "{spec}: residual {}", sol.residual());
    if let Err(e) = verify_solution(lcp, &sol.z, 1e-9) {
        panic!("{spec} on {:?}: {e}", lcp.name);
    }
    sol
}

fn dense(rows: &[&[f64]], q: &[f64]) -> Lcp {
    let rows: Vec<Vec<f64>> = rows.iter().map(|r| r.to_vec()).collect();
    Lcp::from_dense_rows(&rows, q.to_vec()).expect("valid")
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * (1.0 + b.abs())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn lemke_and_murty_solve_random_spd(n in 1usize..40, seed in 0u64..1_000_000) {
        let lcp = generate::random_spd(n, seed);
        let a = assert_solved("lemke", &lcp);
        let b = assert_solved("murty", &lcp);
        // Unique solution for SPD M.
        for (x, y) in a.z.iter().zip(&b.z) {
            prop_assert!((x - y).abs() <= 1e-8 * (1.0 + y.abs()));
        }
    }

    #[test]
    fn lemke_and_murty_solve_nonsymmetric_p(n in 1usize..40, seed in 0u64..1_000_000) {
        let lcp = generate::random_p_matrix(n, seed);
        assert_solved("lemke", &lcp);
        assert_solved("murty", &lcp);
    }

    #[test]
    fn lemke_solves_psd_singular(n in 2usize..40, rank in 1usize..10, seed in 0u64..1_000_000) {
        let lcp = generate::random_psd_singular(n, rank, seed);
        assert_solved("lemke", &lcp);
    }

    /// Integer data with q in {-1, 0, 1}: exact ties in the first step and zero basic values
    /// later, so the lexicographic rule decides many pivots.
    #[test]
    fn lemke_solves_degenerate_integer_p_problems(
        n in 2usize..12,
        entries in proptest::collection::vec(-2i32..=2, 144),
        signs in proptest::collection::vec(-1i32..=1, 12),
    ) {
        let mut rows = vec![vec![0.0; n]; n];
        for i in 0..n {
            let mut off = 0.0;
            for j in 0..n {
                if i != j {
                    rows[i][j] = f64::from(entries[i * 12 + j]);
                    off += rows[i][j].abs();
                }
            }
            rows[i][i] = off + 1.0;
        }
        let q: Vec<f64> = signs[..n].iter().map(|&s| f64::from(s)).collect();
        let lcp = Lcp::from_dense_rows(&rows, q).expect("valid");
        assert_solved("lemke", &lcp);
        assert_solved("murty", &lcp);
    }

    #[test]
    fn lemke_certifies_copositive_plus_infeasible(n in 2usize..40, seed in 0u64..1_000_000) {
        let (lcp, _) = generate::random_copositive_plus_infeasible(n, seed);
        let sol = solve("lemke", &lcp);
        prop_assert_eq!(sol.status, Status::Infeasible, "note {:?}", sol.note);
        match &sol.certificate {
            Some(Certificate::Farkas { y }) => prop_assert!(verify_farkas(&lcp, y, 1e-9).is_ok()),
            other => prop_assert!(false, "certificate {:?}", other),
        }
    }
}

#[test]
fn seed_a1_two_variables() {
    let lcp = dense(&[&[2.0, 1.0], &[1.0, 2.0]], &[-1.0, 0.0]);
    for spec in ["lemke", "murty"] {
        let sol = assert_solved(spec, &lcp);
        assert!(near(sol.z[0], 0.5) && near(sol.z[1], 0.0), "{spec}: {:?}", sol.z);
        assert!(near(sol.w[0], 0.0) && near(sol.w[1], 0.5), "{spec}: {:?}", sol.w);
    }
}

#[test]
fn seed_a2_infeasible_with_certificate() {
    let lcp = dense(&[&[-1.0]], &[-1.0]);
    let sol = solve("lemke", &lcp);
    assert_eq!(sol.status, Status::Infeasible);
    let Some(Certificate::Farkas { y }) = &sol.certificate else { panic!("no certificate") };
    assert!(y[0] > 0.0);
}

#[test]
fn seed_a4_coupled_contacts() {
    let lcp = dense(&[&[2.0, 1.0], &[1.0, 2.0]], &[-3.0, -3.0]);
    for spec in ["lemke", "murty"] {
        let sol = assert_solved(spec, &lcp);
        assert!(near(sol.z[0], 1.0) && near(sol.z[1], 1.0), "{spec}: {:?}", sol.z);
    }
}

#[test]
fn skew_infeasible() {
    let lcp = dense(&[&[0.0, 1.0], &[-1.0, 0.0]], &[-1.0, -1.0]);
    let sol = solve("lemke", &lcp);
    assert_eq!(sol.status, Status::Infeasible, "note {:?}", sol.note);
}

#[test]
fn negative_scalar_has_two_solutions_and_lemke_finds_one() {
    let lcp = dense(&[&[-1.0]], &[1.0]);
    let sol = assert_solved("lemke", &lcp);
    assert!(near(sol.z[0], 0.0) || near(sol.z[0], 1.0), "z = {:?}", sol.z);
}

#[test]
fn three_isolated_solutions_and_lemke_finds_one() {
    let lcp = dense(&[&[1.0, 2.0], &[2.0, 1.0]], &[-1.0, -1.0]);
    let sol = assert_solved("lemke", &lcp);
    let solutions = [[1.0, 0.0], [0.0, 1.0], [1.0 / 3.0, 1.0 / 3.0]];
    assert!(
        solutions.iter().any(|s| near(sol.z[0], s[0]) && near(sol.z[1], s[1])),
        "z = {:?}",
        sol.z
    );
}

#[test]
fn degenerate_p_matrix_ratio_tie_does_not_cycle() {
    // z0 enters at 2 (row 2); then z_2 enters and its ratio test ties w_1's row and z0's row
    // (both ratios 1). Unique solution z = (0, 1) with w = (0, 0): degenerate.
    let lcp = dense(&[&[2.0, 1.0], &[0.0, 2.0]], &[-1.0, -2.0]);
    for spec in ["lemke", "murty"] {
        let sol = assert_solved(spec, &lcp);
        assert!(near(sol.z[0], 0.0) && near(sol.z[1], 1.0), "{spec}: {:?}", sol.z);
        assert!(sol.pivots.unwrap_or(usize::MAX) <= 4, "{spec}: {:?}", sol.pivots);
    }
}

#[test]
fn lemke_handles_every_class_at_moderate_size() {
    let n = 200;
    assert_solved("lemke", &generate::random_spd(n, 11));
    assert_solved("lemke", &generate::random_p_matrix(n, 12));
    assert_solved("lemke", &generate::random_psd_singular(n, 20, 13));
    let (lcp, _) = generate::random_copositive_plus_infeasible(n, 14);
    let sol = solve("lemke", &lcp);
    assert_eq!(sol.status, Status::Infeasible, "note {:?}", sol.note);
}
