//! Issue 16, matrix-free sweeps: LCP(G G' + D, q) held as its factor G ([`Lcp::from_gram`])
//! against the same problem with M assembled. The matrix-free `pgs`, `psor`, `sgs` and `apgd`
//! give the assembled run's iterates up to rounding (same statuses, iterations and counted
//! products); every other solver reads the assembled M (bit-identical entries) behind a memory
//! check; bad G, D or q are typed errors.

use faer::sparse::Triplet;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use signorini_lcp::{
    GramError, GramMatrix, Lcp, LcpSolver, Matrix, ProblemError, Registry, SolveError,
    SolveOptions, Status,
};

/// A contact-like G: `n` rows over `bodies` blocks of 6 columns, each row on one or two
/// random bodies (a fixed partner leaves one block), with a compliance D when asked.
fn contact_like(n: usize, bodies: usize, compliance: bool, seed: u64) -> (GramMatrix, Vec<f64>) {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    let mut t = Vec::new();
    for i in 0..n {
        let a = r.gen_range(0..bodies);
        let b = r.gen_range(0..bodies);
        for body in if r.gen_bool(0.8) && a != b { vec![a, b] } else { vec![a] } {
            for k in 0..6 {
                t.push(Triplet::new(i, 6 * body + k, r.gen_range(-1.0..1.0)));
            }
        }
    }
    let d = compliance.then(|| (0..n).map(|_| r.gen_range(0.0..0.1)).collect());
    let g = GramMatrix::from_triplets(n, 6 * bodies, &t, d).expect("valid G");
    let q = (0..n).map(|_| r.gen_range(-1.0..0.5)).collect();
    (g, q)
}

/// The Gram-form problem and the same problem with M assembled.
fn both(gram: GramMatrix, q: Vec<f64>) -> (Lcp, Lcp) {
    let assembled = Lcp::new(Matrix::Sparse(gram.assemble()), q.clone()).expect("valid");
    (Lcp::from_gram(gram, q).expect("valid"), assembled)
}

fn solve(spec: &str, lcp: &Lcp) -> signorini_lcp::Solution {
    let solver = Registry::builtin().build(spec).expect("registered");
    let opts = SolveOptions { max_iter: Some(3000), ..Default::default() };
    solver.solve(lcp, &opts, None).expect("runs")
}

/// Same status, iterations and reported products; z equal to rounding.
fn assert_same_run(spec: &str, a: &signorini_lcp::Solution, b: &signorini_lcp::Solution) {
    assert_same_run_within(spec, a, b, 0);
}

/// As [`assert_same_run`], the iterations within `slack` of each other.
fn assert_same_run_within(
    spec: &str,
    a: &signorini_lcp::Solution,
    b: &signorini_lcp::Solution,
    slack: usize,
) {
    assert_eq!(a.status, b.status, "{spec}: {:?} / {:?}", a.note, b.note);
    assert!(
        a.iterations.abs_diff(b.iterations) <= slack,
        "{spec}: {} / {}",
        a.iterations,
        b.iterations
    );
    if slack == 0 {
        assert_eq!(a.matvecs, b.matvecs, "{spec}");
    }
    // Two runs a step apart stop at different points within the tolerance.
    let rel = if slack == 0 { 1e-8 } else { 1e-6 };
    let scale = b.z.iter().fold(1.0f64, |m, v| m.max(v.abs()));
    for (i, (x, y)) in a.z.iter().zip(&b.z).enumerate() {
        assert!((x - y).abs() <= rel * scale, "{spec}: z[{i}] = {x} vs {y}");
    }
}

/// Each matrix-free solver with the iterations by which rounding may move its run: none,
/// except `apgd:restart=function`, whose restart test f(x⁺) > f(x) compares two values that
/// agree to rounding near the solution, so a restart can come one step earlier or later
/// (measured: 119 against 118 iterations on the seed-2 problem below).
const MATRIX_FREE: [(&str, usize); 5] =
    [("pgs", 0), ("psor", 0), ("sgs", 0), ("apgd", 0), ("apgd:restart=function", 3)];

#[test]
fn matrix_free_solvers_follow_the_assembled_iterates() {
    for (seed, compliance) in [(1, false), (2, true), (3, true)] {
        let (gram, q) = contact_like(120, 60, compliance, seed);
        let (free, assembled) = both(gram, q);
        for (spec, slack) in MATRIX_FREE {
            let before = free.products();
            let a = solve(spec, &free);
            let b = solve(spec, &assembled);
            assert_same_run_within(spec, &a, &b, slack);
            // apgd's products are all counted (the sweeps' are not products: see counters.rs).
            if spec.starts_with("apgd") {
                assert_eq!(a.matvecs, free.products() - before, "{spec}");
            }
            // Nothing assembled M on the way.
            assert!(!free.gram_is_assembled(), "{spec} assembled M");
        }
    }
}

#[test]
fn solvers_that_read_entries_get_the_assembled_matrix() {
    let (gram, q) = contact_like(30, 12, true, 7);
    for spec in ["lemke", "bpp", "newton-fb", "newton-min", "qp", "bpgs", "pgs-colored"] {
        let (free, assembled) = both(gram.clone(), q.clone());
        let a = solve(spec, &free);
        let b = solve(spec, &assembled);
        assert_same_run(spec, &a, &b);
    }
}

/// `ipm` on a Gram form factorises its Newton matrix in velocity space (Woodbury on
/// I + G' E⁻¹ G) and never assembles M: a different linear algebra from the assembled run's
/// sparse Cholesky of M + E, so the same status and a solution that agrees to the tolerance,
/// not the same iterates. Singular G G' (more rows than columns) and p > n both.
#[test]
fn ipm_solves_a_gram_form_in_velocity_space_without_assembling() {
    for (n, bodies, compliance, seed) in
        [(120, 10, false, 1), (120, 10, true, 2), (60, 40, false, 3), (200, 20, false, 4)]
    {
        let (gram, _) = contact_like(n, bodies, compliance, seed);
        // q = w* - M z* from a complementary pair: solvable (a random q need not be when
        // G G' is singular).
        let mut r = ChaCha8Rng::seed_from_u64(seed + 100);
        let z_star: Vec<f64> =
            (0..n).map(|i| if i % 2 == 0 { r.gen_range(0.1..1.0) } else { 0.0 }).collect();
        let mut q = vec![0.0; n];
        gram.mul_vec(&z_star, &mut q);
        for (i, qi) in q.iter_mut().enumerate() {
            *qi = if i % 2 == 0 { -*qi } else { r.gen_range(0.1..1.0) - *qi };
        }
        let (free, assembled) = both(gram, q);
        let a = solve("ipm", &free);
        let b = solve("ipm", &assembled);
        assert_eq!(a.status, Status::Solved, "{n}/{bodies}: {:?}", a.note);
        assert_eq!(b.status, Status::Solved, "{n}/{bodies}: {:?}", b.note);
        assert!(a.merit.residual <= 1e-10, "{}", a.merit.residual);
        assert!(!free.gram_is_assembled(), "ipm assembled M");
        assert!(a.z.iter().all(|v| *v >= 0.0));
        // With G G' singular the solution z need not be unique; w = M z + q is (the
        // gradient of a convex quadratic at its minimisers).
        let (wa, wb) = (&a.w, &b.w);
        let scale = wb.iter().fold(1.0f64, |m, v| m.max(v.abs()));
        for (i, (x, y)) in wa.iter().zip(wb).enumerate() {
            assert!((x - y).abs() <= 1e-6 * scale, "{n}/{bodies}: w[{i}] = {x} vs {y}");
        }
    }
}

#[test]
fn the_merit_and_entries_match_the_assembled_matrix_bit_for_bit() {
    let (gram, q) = contact_like(50, 20, true, 11);
    let (free, assembled) = both(gram, q);
    assert_eq!(free.nnz(), assembled.nnz());
    assert_eq!(free.diag(), assembled.diag());
    assert_eq!(free.column_abs_max(), assembled.column_abs_max());
    for i in 0..50 {
        for j in 0..50 {
            assert_eq!(free.get(i, j).to_bits(), assembled.get(i, j).to_bits(), "({i}, {j})");
        }
    }
    let z: Vec<f64> = (0..50).map(|i| (i % 3) as f64 * 0.5).collect();
    let (mut a, mut b) = (vec![0.0; 50], vec![0.0; 50]);
    free.abs_mul_vec(&z, &mut a);
    assembled.abs_mul_vec(&z, &mut b);
    assert_eq!(a, b);
}

#[test]
fn assembling_for_an_entry_solver_respects_the_memory_budget() {
    let (gram, q) = contact_like(200, 20, false, 5);
    let lcp = Lcp::from_gram(gram, q).expect("valid");
    let opts = SolveOptions { memory_budget: Some(1000), ..Default::default() };
    let bpp = Registry::builtin().build("bpp").expect("registered");
    assert!(matches!(bpp.solve(&lcp, &opts, None), Err(SolveError::Memory(_))));
    // The matrix-free solvers need no assembly.
    let pgs = Registry::builtin().build("pgs").expect("registered");
    let sol = pgs.solve(&lcp, &opts, None).expect("runs");
    assert_ne!(sol.status, Status::NumericalFailure, "{:?}", sol.note);
}

#[test]
fn auto_on_a_large_gram_form_starts_matrix_free() {
    // 6000 rows on 3000 bodies: n above auto's LARGE_SPARSE_N. The gpcg probe, pgs and apgd
    // are matrix-free.
    let (gram, q) = contact_like(6000, 3000, true, 13);
    let lcp = Lcp::from_gram(gram, q).expect("valid");
    let sol = Registry::builtin().build("auto").expect("registered").solve(
        &lcp,
        &SolveOptions::default(),
        None,
    );
    let sol = sol.expect("runs");
    assert_eq!(sol.status, Status::Solved, "{:?}", sol.note);
    assert!(
        ["auto(gpcg", "auto(pgs", "auto(apgd"].iter().any(|p| sol.solver.starts_with(p)),
        "{}",
        sol.solver
    );
    assert!(!lcp.gram_is_assembled(), "auto assembled M");
}

#[test]
fn bad_data_are_typed_errors() {
    let t = [Triplet::new(0, 0, 1.0), Triplet::new(1, 1, 2.0)];
    let g = GramMatrix::from_triplets(2, 2, &t, None).expect("valid");
    assert!(matches!(
        Lcp::from_gram(g.clone(), vec![1.0]),
        Err(ProblemError::SizeMismatch { n: 2, q_len: 1 })
    ));
    assert!(matches!(
        Lcp::from_gram(g, vec![1.0, f64::INFINITY]),
        Err(ProblemError::NonFiniteQ { index: 1, .. })
    ));
    let e = GramMatrix::from_triplets(2, 2, &t, Some(vec![0.0, f64::NAN])).expect_err("NaN D");
    assert!(matches!(e, GramError::InvalidDiagonal { index: 1, .. }));
    assert!(ProblemError::from(e).to_string().contains("D[1]"));
    // A zero row (no contact in it, D = 0) is a numerical failure naming the row, as on the
    // assembled matrix.
    let t = [Triplet::new(0, 0, 1.0)];
    let g = GramMatrix::from_triplets(2, 1, &t, None).expect("valid");
    let lcp = Lcp::from_gram(g, vec![-1.0, 1.0]).expect("valid");
    let sol = solve("pgs", &lcp);
    assert_eq!(sol.status, Status::NumericalFailure);
    assert!(sol.note.as_deref().is_some_and(|n| n.contains("row 1")), "{:?}", sol.note);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn pgs_and_apgd_on_random_gram_forms_match_the_assembled_runs(
        seed in 0u64..10_000,
        n in 1usize..40,
        bodies in 1usize..20,
        compliance in any::<bool>(),
    ) {
        // At least as many columns as rows: G of full row rank (almost surely), M positive
        // definite, so every run converges rather than wander along a null space.
        let (gram, q) = contact_like(n, bodies.max(n), compliance, seed);
        let (free, assembled) = both(gram, q);
        for spec in ["pgs", "sgs", "apgd"] {
            let a = solve(spec, &free);
            let b = solve(spec, &assembled);
            assert_same_run(spec, &a, &b);
        }
    }
}

#[test]
fn a_boxed_solver_forwards_its_matrix_free_flag() {
    let pgs: Box<dyn LcpSolver> = Registry::builtin().build("pgs").expect("registered");
    assert!(pgs.matrix_free());
    let lemke: Box<dyn LcpSolver> = Registry::builtin().build("lemke").expect("registered");
    assert!(!lemke.matrix_free());
}

#[test]
fn writers_write_the_assembled_matrix() {
    let (gram, q) = contact_like(20, 10, true, 17);
    let (free, assembled) = both(gram, q);
    let text = signorini_lcp::formats::json::to_string(&free);
    assert_eq!(text, signorini_lcp::formats::json::to_string(&assembled));
    assert_eq!(
        signorini_lcp::formats::siconos::to_string(&free),
        signorini_lcp::formats::siconos::to_string(&assembled)
    );
}
