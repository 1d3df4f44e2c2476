//! Closed-form frictional-contact problems (one contact with decoupled W = diag(a, b, b)):
//! take-off, sticking and sliding in 3D and 2D, solved by every registered solver, r checked
//! entry by entry against the formula (Acary, Brogliato 2008, §13.1: the single-contact
//! cases of Coulomb's law).

use signorini_friction::{FcProblem, FcRegistry};
use signorini_lcp::{SolveOptions, Status};

/// W = diag(a, b, ..., b) of size d.
fn decoupled(d: usize, a: f64, b: f64, q: Vec<f64>, mu: f64) -> FcProblem {
    let rows: Vec<Vec<f64>> = (0..d)
        .map(|i| {
            (0..d)
                .map(|j| {
                    if i != j {
                        0.0
                    } else if i == 0 {
                        a
                    } else {
                        b
                    }
                })
                .collect()
        })
        .collect();
    FcProblem::from_dense_rows(d, &rows, q, vec![mu]).expect("valid")
}

/// The exact reaction of one decoupled contact: r_N = max(0, -q_N / a); sticking
/// r_T = -q_T / b when |q_T| <= mu b r_N, else sliding r_T = -mu r_N q_T / |q_T|.
fn exact(a: f64, b: f64, q: &[f64], mu: f64) -> Vec<f64> {
    let rn = (-q[0] / a).max(0.0);
    let qt = &q[1..];
    let nqt = qt.iter().map(|v| v * v).sum::<f64>().sqrt();
    let mut r = vec![rn];
    if nqt <= mu * b * rn {
        r.extend(qt.iter().map(|v| -v / b));
    } else {
        r.extend(qt.iter().map(|v| -mu * rn * v / nqt));
    }
    r
}

/// The solvers of the exact problem (`apgd-ccp` without the shift solves the relaxation).
const EXACT: [&str; 5] = ["nsgs", "nsgs:local=proj", "newton-ac", "apgd-ccp:desaxce=true", "admm"];

fn check(d: usize, a: f64, b: f64, q: &[f64], mu: f64, regime: &str) {
    let p = decoupled(d, a, b, q.to_vec(), mu);
    let want = exact(a, b, q, mu);
    let registry = FcRegistry::builtin();
    let options = SolveOptions { tol: Some(1e-12), ..SolveOptions::default() };
    for spec in EXACT {
        let solver = registry.build(spec).expect("builds");
        let sol = solver.solve(&p, &options, None).expect("runs");
        assert_eq!(sol.status, Status::Solved, "{spec} on {regime}: {:?}", sol.note);
        for (k, (got, w)) in sol.r.iter().zip(&want).enumerate() {
            assert!(
                (got - w).abs() <= 1e-10 * (1.0 + w.abs()),
                "{spec} {regime} r[{k}] = {got}, want {w}"
            );
        }
    }
}

#[test]
fn take_off_3d_gives_zero_reaction() {
    check(3, 1.0, 1.0, &[0.5, 0.3, -0.2], 0.4, "take-off");
}

#[test]
fn sticking_3d_cancels_the_velocity() {
    // |q_T| = 0.25 <= mu |q_N| = 0.5.
    check(3, 1.0, 1.0, &[-1.0, 0.15, 0.2], 0.5, "sticking");
    check(3, 2.0, 0.5, &[-4.0, 0.1, -0.05], 0.3, "sticking, a = 2, b = 0.5");
}

#[test]
fn sliding_3d_puts_the_reaction_on_the_cone_boundary() {
    // |q_T| = 5 > mu |q_N| = 0.5: r = (1, -0.5 (3, 4) / 5).
    check(3, 1.0, 1.0, &[-1.0, 3.0, 4.0], 0.5, "sliding");
    check(3, 2.0, 0.5, &[-4.0, 1.0, -2.0], 0.3, "sliding, a = 2, b = 0.5");
}

#[test]
fn frictionless_contact_has_no_tangential_reaction() {
    check(3, 1.0, 1.0, &[-1.0, 3.0, 4.0], 0.0, "mu = 0");
}

#[test]
fn two_dimensional_cases() {
    check(2, 1.0, 1.0, &[-1.0, 0.2], 0.5, "2D sticking");
    check(2, 1.0, 1.0, &[-1.0, -2.0], 0.5, "2D sliding");
    check(2, 3.0, 2.0, &[-3.0, 5.0], 0.2, "2D sliding, a = 3, b = 2");
    check(2, 1.0, 1.0, &[2.0, -2.0], 0.5, "2D take-off");
}

/// Two coupled 2D contacts (a disk on two supports would give such W): the solvers agree with
/// each other and the driver's error is below tolerance.
#[test]
fn coupled_contacts_agree_between_solvers() {
    let w = vec![
        vec![2.0, 0.5, 1.0, 0.0],
        vec![0.5, 3.0, 0.0, 0.2],
        vec![1.0, 0.0, 2.5, -0.4],
        vec![0.0, 0.2, -0.4, 1.5],
    ];
    let p = FcProblem::from_dense_rows(2, &w, vec![-1.0, 0.8, -0.5, -0.9], vec![0.3, 0.6])
        .expect("valid");
    let registry = FcRegistry::builtin();
    let options = SolveOptions { tol: Some(1e-12), ..SolveOptions::default() };
    let sols: Vec<_> = EXACT
        .iter()
        .map(|s| registry.build(s).expect("builds").solve(&p, &options, None).expect("runs"))
        .collect();
    for s in &sols {
        assert_eq!(s.status, Status::Solved, "{}", s.solver);
        assert!(s.error <= 1e-12);
        for (a, b) in s.r.iter().zip(&sols[0].r) {
            assert!((a - b).abs() < 1e-9, "{} vs {}", s.solver, sols[0].solver);
        }
    }
}

/// The convex relaxation agrees with Coulomb where the contact sticks, and differs where it
/// slides: there apgd-ccp returns P_K(-q) (for W = I), which the driver grades as unsolved.
#[test]
fn the_convex_relaxation_is_exact_only_without_sliding() {
    let registry = FcRegistry::builtin();
    let solver = registry.build("apgd-ccp").expect("builds");
    let options = SolveOptions { tol: Some(1e-10), ..SolveOptions::default() };
    let stick = decoupled(3, 1.0, 1.0, vec![-1.0, 0.15, 0.2], 0.5);
    let sol = solver.solve(&stick, &options, None).expect("runs");
    assert_eq!(sol.status, Status::Solved);
    assert!((sol.r[0] - 1.0).abs() < 1e-9 && (sol.r[2] + 0.2).abs() < 1e-9);
    let slide = decoupled(3, 1.0, 1.0, vec![-1.0, 3.0, 4.0], 0.5);
    let sol = solver.solve(&slide, &options, None).expect("runs");
    assert_ne!(sol.status, Status::Solved);
    // P_K((1, -3, -4)) with mu = 0.5: r_N = (1 + 0.5 * 5) / 1.25 = 2.8.
    assert!((sol.r[0] - 2.8).abs() < 1e-6, "{:?}", sol.r);
    assert!(sol.error > 1e-2);
}

/// The polyhedral LCP route is exact in 2D (two directions are the whole 2D cone) and where a
/// 3D contact sticks inside the inscribed polygon; a 3D contact sliding between two of the k
/// directions keeps an error the driver reports.
#[test]
fn the_polyhedral_route_is_exact_in_2d_and_for_sticking() {
    let registry = FcRegistry::builtin();
    let solver = registry.build("lcp:k=8,solver=lemke").expect("builds");
    let options = SolveOptions { tol: Some(1e-10), ..SolveOptions::default() };
    for (d, q) in [(2, vec![-1.0, -2.0]), (2, vec![-1.0, 0.2]), (3, vec![-1.0, 0.15, 0.2])] {
        let p = decoupled(d, 1.0, 1.0, q.clone(), 0.5);
        let sol = solver.solve(&p, &options, None).expect("runs");
        assert_eq!(sol.status, Status::Solved, "q = {q:?}: {:?}", sol.note);
        for (got, want) in sol.r.iter().zip(exact(1.0, 1.0, &q, 0.5)) {
            assert!((got - want).abs() < 1e-9, "q = {q:?}: {:?}", sol.r);
        }
    }
    let slide = decoupled(3, 1.0, 1.0, vec![-1.0, 3.0, 4.0], 0.5);
    let sol = solver.solve(&slide, &options, None).expect("runs");
    assert_eq!(sol.status, Status::NumericalFailure);
    assert!(sol.note.is_some_and(|n| n.contains("facets")));
    assert!(sol.error > 1e-4 && sol.error < 1e-1, "{}", sol.error);
}
