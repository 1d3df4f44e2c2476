//! Property tests of `bpp` and `enum` by matrix class: seeded random SPD and P-matrices
//! (signorini_lcp::generate) and random dense problems, every answer verified here from z alone
//! (w = Mz + q recomputed in this file, not taken from the solver or the driver).

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use signorini_lcp::diagnostics::{diagnose, Definiteness};
use signorini_lcp::{generate, Lcp, Matrix, Registry, Solution, SolveOptions, Status};

fn run(spec: &str, lcp: &Lcp, warm: Option<&[f64]>) -> Solution {
    let solver = Registry::builtin().build(spec).expect("registered");
    solver.solve(lcp, &SolveOptions::default(), warm).expect("set up")
}

/// w = Mz + q by a plain double loop over the dense rows.
fn w_of(lcp: &Lcp, z: &[f64]) -> Vec<f64> {
    let rows = lcp.dense_rows();
    rows.iter()
        .zip(lcp.q())
        .map(|(r, qi)| r.iter().zip(z).map(|(a, b)| a * b).sum::<f64>() + qi)
        .collect()
}

/// Independent check that z solves LCP(M, q): z >= 0, w >= 0 and z_i w_i = 0, each to `rtol`
/// relative to the scale of q and M z. Returns ||min(z, w)|| / ||q|| for the caller.
fn verify(lcp: &Lcp, z: &[f64], rtol: f64) -> Result<f64, String> {
    let w = w_of(lcp, z);
    let qn = lcp.q().iter().map(|v| v * v).sum::<f64>().sqrt();
    let zmax = z.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let scale = lcp.q().iter().chain(&w).fold(1e-300f64, |m, v| m.max(v.abs()));
    for (i, (&zi, &wi)) in z.iter().zip(&w).enumerate() {
        if zi < -rtol * zmax.max(1.0) {
            return Err(format!("z[{i}] = {zi:e} < 0"));
        }
        if wi < -rtol * scale {
            return Err(format!("w[{i}] = {wi:e} < 0"));
        }
        if (zi * wi).abs() > rtol * scale * zmax.max(1.0) {
            return Err(format!("z[{i}] w[{i}] = {:e}", zi * wi));
        }
    }
    let r = z.iter().zip(&w).map(|(a, b)| a.min(*b).powi(2)).sum::<f64>().sqrt();
    Ok(if qn > f64::EPSILON { r / qn } else { r })
}

fn random_dense(n: usize, seed: u64) -> Lcp {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let rows: Vec<Vec<f64>> =
        (0..n).map(|_| (0..n).map(|_| r.gen_range(-1.0..1.0)).collect()).collect();
    let q = (0..n).map(|_| r.gen_range(-1.0..1.0)).collect();
    Lcp::from_dense_rows(&rows, q).expect("finite")
}

/// Entries and q in {-1, 0, 1}: many singular principal submatrices and degenerate sets.
fn random_integer(n: usize, seed: u64) -> Lcp {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let rows: Vec<Vec<f64>> =
        (0..n).map(|_| (0..n).map(|_| f64::from(r.gen_range(-1i32..=1))).collect()).collect();
    let q = (0..n).map(|_| f64::from(r.gen_range(-1i32..=1))).collect();
    Lcp::from_dense_rows(&rows, q).expect("finite")
}

fn quad(lcp: &Lcp, d: &[f64]) -> f64 {
    w_of(&Lcp::new(lcp.matrix().clone(), vec![0.0; lcp.n()]).expect("valid"), d)
        .iter()
        .zip(d)
        .map(|(a, b)| a * b)
        .sum()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn bpp_solves_spd(n in 1usize..=40, seed in any::<u64>()) {
        let lcp = generate::random_spd(n, seed);
        let sol = run("bpp", &lcp, None);
        prop_assert_eq!(sol.status, Status::Solved, "{:?}", sol.note);
        let r = verify(&lcp, &sol.z, 1e-10).map_err(TestCaseError::fail)?;
        prop_assert!(r <= 1e-10, "residual {}", r);
    }

    #[test]
    fn bpp_solves_p_matrices(n in 1usize..=40, seed in any::<u64>()) {
        let lcp = generate::random_p_matrix(n, seed);
        let sol = run("bpp", &lcp, None);
        prop_assert_eq!(sol.status, Status::Solved, "{:?}", sol.note);
        let r = verify(&lcp, &sol.z, 1e-10).map_err(TestCaseError::fail)?;
        prop_assert!(r <= 1e-10, "residual {}", r);
    }

    #[test]
    fn bpp_sparse_agrees_with_dense(n in 1usize..=40, seed in any::<u64>(), spd in any::<bool>()) {
        let dense = if spd { generate::random_spd(n, seed) } else { generate::random_p_matrix(n, seed) };
        let sparse = Lcp::new(Matrix::Sparse(dense.to_sparse()), dense.q().to_vec()).expect("valid");
        let a = run("bpp", &dense, None);
        let b = run("bpp", &sparse, None);
        prop_assert_eq!(b.status, Status::Solved, "{:?}", b.note);
        prop_assert!(verify(&sparse, &b.z, 1e-10).map_err(TestCaseError::fail)? <= 1e-10);
        let zmax = a.z.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        for (x, y) in a.z.iter().zip(&b.z) {
            prop_assert!((x - y).abs() <= 1e-9 * zmax);
        }
    }

    #[test]
    fn bpp_with_least_index_only_solves_p_matrices(n in 1usize..=25, seed in any::<u64>()) {
        let lcp = generate::random_p_matrix(n, seed);
        let sol = run("bpp:max_block_failures=0", &lcp, None);
        prop_assert_eq!(sol.status, Status::Solved);
        prop_assert!(verify(&lcp, &sol.z, 1e-10).map_err(TestCaseError::fail)? <= 1e-10);
    }

    #[test]
    fn enum_solutions_verify_on_random_problems(n in 1usize..=8, seed in any::<u64>()) {
        let lcp = random_dense(n, seed);
        let sol = run("enum", &lcp, None);
        match sol.status {
            Status::Solved => {
                let all = sol.all_solutions.expect("enum lists its solutions");
                prop_assert!(!all.is_empty());
                for z in &all {
                    verify(&lcp, z, 1e-8).map_err(TestCaseError::fail)?;
                }
            }
            Status::NoSolution => {
                prop_assert_eq!(sol.all_solutions.map(|a| a.len()), Some(0));
                // The proof must not contradict a solution found by bpp.
                let b = run("bpp", &lcp, None);
                prop_assert_ne!(b.status, Status::Solved);
            }
            other => prop_assert!(false, "unexpected status {} ({:?})", other, sol.note),
        }
    }

    #[test]
    fn enum_decides_degenerate_integer_problems(n in 1usize..=6, seed in any::<u64>()) {
        let lcp = random_integer(n, seed);
        let sol = run("enum", &lcp, None);
        match sol.status {
            Status::Solved => {
                for z in sol.all_solutions.as_deref().unwrap_or(&[]) {
                    verify(&lcp, z, 1e-8).map_err(TestCaseError::fail)?;
                }
            }
            Status::NoSolution => {
                let b = run("bpp", &lcp, None);
                prop_assert_ne!(b.status, Status::Solved);
            }
            other => prop_assert!(false, "unexpected status {} ({:?})", other, sol.note),
        }
    }

    /// Seed A3: for PD M any two solutions coincide, because
    /// (z - z')'M(z - z') = -(z'w' + z''w) <= 0 while the left side is >= lambda_min ||z - z'||^2.
    #[test]
    fn enum_finds_exactly_one_solution_on_spd(n in 1usize..=8, seed in any::<u64>()) {
        let lcp = generate::random_spd(n, seed);
        let sol = run("enum", &lcp, None);
        prop_assert_eq!(sol.status, Status::Solved);
        let all = sol.all_solutions.expect("listed");
        prop_assert_eq!(all.len(), 1);
        let lambda = diagnose(&lcp).min_eigenvalue_sym.expect("small n");
        prop_assert!(lambda > 0.0);
        // A second solution from another method and another start.
        let mut r = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed);
        let warm: Vec<f64> = (0..n).map(|_| r.gen_range(0.0..1.0)).collect();
        let other = run("bpp", &lcp, Some(&warm));
        prop_assert_eq!(other.status, Status::Solved);
        let (z, zp) = (&all[0], &other.z);
        let (w, wp) = (w_of(&lcp, z), w_of(&lcp, zp));
        let d: Vec<f64> = z.iter().zip(zp).map(|(a, b)| a - b).collect();
        let lhs = quad(&lcp, &d);
        let rhs = -(dot(z, &wp) + dot(zp, &w));
        let scale = 1.0 + dot(z, z) + dot(zp, zp) + dot(&w, &w) + dot(&wp, &wp);
        prop_assert!((lhs - rhs).abs() <= 1e-9 * scale, "identity: {} vs {}", lhs, rhs);
        prop_assert!(rhs <= 1e-9 * scale, "rhs {}", rhs);
        prop_assert!(dot(&d, &d) <= lhs.max(0.0) / lambda + 1e-18 * scale,
            "||z - z'||^2 = {}", dot(&d, &d));
        prop_assert!(dot(&d, &d).sqrt() <= 1e-8 * scale.sqrt());
    }

    #[test]
    fn enum_agrees_with_bpp_on_p_matrices(n in 1usize..=8, seed in any::<u64>()) {
        let lcp = generate::random_p_matrix(n, seed);
        let e = run("enum", &lcp, None);
        let b = run("bpp", &lcp, None);
        prop_assert_eq!(e.status, Status::Solved);
        prop_assert_eq!(b.status, Status::Solved);
        let all = e.all_solutions.expect("listed");
        prop_assert_eq!(all.len(), 1, "a P-matrix LCP has exactly one solution");
        let zmax = b.z.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        for (x, y) in all[0].iter().zip(&b.z) {
            prop_assert!((x - y).abs() <= 1e-9 * zmax);
        }
    }
}

#[test]
fn generators_have_the_classes_the_tests_assume() {
    for seed in 0..5 {
        assert_eq!(
            diagnose(&generate::random_spd(12, seed)).definiteness,
            Definiteness::PositiveDefinite
        );
        assert_eq!(diagnose(&generate::random_p_matrix(12, seed)).p_matrix, Some(true));
    }
}
