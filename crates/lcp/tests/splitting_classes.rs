//! Splitting and gradient methods by matrix class: on random SPD, diagonally dominant and
//! Delassus-like problems every solver either returns `solved` with a residual that verifies
//! independently, or an honest non-solved status (never a wrong `solved`); and `pgs` equals
//! `psor:omega=1` bit for bit.

use proptest::prelude::*;
use signorini_lcp::{generate, Lcp, Registry, SolveOptions, Status};

/// Every splitting / gradient solver of this crate, by spec.
const SPECS: &[&str] = &[
    "pgs",
    "psor",
    "psor:omega=0.8",
    "sgs",
    "bpgs:block=1",
    "bpgs:block=3",
    "pgs-colored",
    "pgs-colored:threads=2",
    "apgd",
    "apgd:restart=function",
];

/// Solver specs that need symmetric M.
fn needs_symmetric(spec: &str) -> bool {
    spec.starts_with("apgd")
}

/// Independent residual ||min(z, Mz + q)|| / ||q|| from dense rows (not the crate's merit code).
fn independent_residual(lcp: &Lcp, z: &[f64]) -> f64 {
    let rows = lcp.dense_rows();
    let q = lcp.q();
    let mut sq = 0.0;
    for (i, row) in rows.iter().enumerate() {
        let w: f64 = q[i] + row.iter().zip(z).map(|(a, b)| a * b).sum::<f64>();
        let m = z[i].min(w);
        sq += m * m;
    }
    let qn = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    if qn <= f64::EPSILON {
        sq.sqrt()
    } else {
        sq.sqrt() / qn
    }
}

/// Solves with every applicable spec and checks: solved ⇒ the independent residual is within
/// tolerance (with a round-off margin); `require_solved` ⇒ solved.
fn check(lcp: &Lcp, symmetric: bool, require_solved: bool) {
    let registry = Registry::builtin();
    let tol = 1e-8;
    let opts = SolveOptions { tol: Some(tol), max_iter: Some(200_000), ..Default::default() };
    for spec in SPECS.iter().filter(|s| symmetric || !needs_symmetric(s)) {
        let solver = registry.build(spec).expect("spec is registered");
        let sol = solver.solve(lcp, &opts, None).expect("set up");
        if sol.status == Status::Solved {
            let r = independent_residual(lcp, &sol.z);
            assert!(r <= tol * (1.0 + 1e-6), "{spec} on {:?}: solved but residual {r}", lcp.name);
            assert!(sol.z.iter().all(|&v| v >= 0.0), "{spec}: negative z");
        } else {
            assert!(!require_solved, "{spec} on {:?}: {} ({:?})", lcp.name, sol.status, sol.note);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn spd_problems_are_solved(n in 1usize..30, seed in any::<u64>()) {
        check(&generate::random_spd(n, seed), true, true);
    }

    #[test]
    fn diagonally_dominant_problems_are_solved(n in 1usize..30, seed in any::<u64>()) {
        // Strictly row diagonally dominant, nonsymmetric: PGS converges (Cottle-Pang-Stone
        // 1992, §5.2); over-relaxed and block variants may not, but must never lie.
        let lcp = generate::random_p_matrix(n, seed);
        let registry = Registry::builtin();
        let opts = SolveOptions { max_iter: Some(200_000), ..Default::default() };
        let sol = registry.build("pgs").expect("pgs").solve(&lcp, &opts, None).expect("set up");
        prop_assert_eq!(sol.status, Status::Solved);
        prop_assert!(independent_residual(&lcp, &sol.z) <= 1e-8 * (1.0 + 1e-6));
        check(&lcp, false, false);
    }

}

proptest! {
    // Fewer cases: each runs every solver on up to 120 coupled contacts.
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]

    #[test]
    fn delassus_like_problems_are_solved(
        bodies in 1usize..40,
        contacts in 1usize..4,
        ratio_exp in 0u32..4,
        seed in any::<u64>(),
    ) {
        let ratio = 10f64.powi(ratio_exp as i32);
        let (lcp, z_star) = generate::delassus_like_with_solution(bodies, contacts, ratio, seed);
        check(&lcp, true, true);
        // The generator's own solution verifies independently too.
        prop_assert!(independent_residual(&lcp, &z_star) <= 1e-12);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn pgs_is_psor_with_omega_one_bit_for_bit(n in 1usize..30, seed in any::<u64>()) {
        let lcp = generate::random_spd(n, seed);
        let registry = Registry::builtin();
        let opts = SolveOptions { max_iter: Some(50), ..Default::default() };
        let a = registry.build("pgs").expect("pgs").solve(&lcp, &opts, None).expect("runs");
        let b = registry.build("psor:omega=1").expect("psor").solve(&lcp, &opts, None).expect("runs");
        prop_assert_eq!(a.iterations, b.iterations);
        prop_assert!(a.z.iter().zip(&b.z).all(|(x, y)| x.to_bits() == y.to_bits()));
    }
}

#[test]
fn psd_singular_problems_never_get_a_wrong_solved() {
    for seed in 0..10 {
        check(&generate::random_psd_singular(12, 4, seed), true, false);
    }
}

#[test]
fn box_stacks_with_large_mass_ratios_are_solved_or_honestly_not() {
    for ratio in [1.0, 10.0, 100.0, 1000.0] {
        let lcp = generate::box_stack(10, ratio);
        check(&lcp, true, false);
    }
}
