//! Single- and multi-contact impact laws against closed forms, and the energy guarantee.

use proptest::prelude::*;
use signorini_impact::{
    solve_sequential, solve_simultaneous, ImpactError, ImpactLaw, ImpactProblem, SequentialParams,
    SimultaneousParams,
};
use signorini_lcp::{Lcp, LcpSolver, SolveOptions, Status};

fn simultaneous(p: &ImpactProblem, law: ImpactLaw) -> signorini_impact::ImpactOutcome {
    solve_simultaneous(
        p,
        law,
        signorini_lcp::Registry::builtin()
            .build("lemke")
            .expect("lemke is always registered")
            .as_ref(),
        &SimultaneousParams::default(),
    )
    .unwrap()
}

#[test]
fn single_contact_newton_poisson_inelastic() {
    // A ball of mass 2 on a floor: W = 1/m, u- = -3, e = 0.6.
    let p = ImpactProblem::from_rows(&[vec![0.5]], vec![-3.0], vec![0.6]).unwrap();
    for (law, u_plus) in
        [(ImpactLaw::Newton, 1.8), (ImpactLaw::Poisson, 1.8), (ImpactLaw::Inelastic, 0.0)]
    {
        for out in [
            simultaneous(&p, law),
            solve_sequential(&p, law, &SequentialParams::default()).unwrap(),
        ] {
            assert!((out.post_velocity[0] - u_plus).abs() <= 1e-12 * 3.0, "{law:?}: {out:?}");
            // Delta T = m/2 (u+^2 - u-^2).
            let de = 1.0 * (u_plus * u_plus - 9.0);
            assert!((out.energy_change - de).abs() <= 1e-12 * 9.0, "{law:?}");
        }
    }
    // Poisson needs two LCPs (compression, expansion), Newton one.
    assert_eq!(simultaneous(&p, ImpactLaw::Poisson).lcp_solves.len(), 2);
    assert_eq!(simultaneous(&p, ImpactLaw::Newton).lcp_solves.len(), 1);
}

#[test]
fn separating_contact_is_untouched() {
    let p = ImpactProblem::from_rows(&[vec![1.0]], vec![2.0], vec![0.5]).unwrap();
    let out = simultaneous(&p, ImpactLaw::Newton);
    assert_eq!(out.passes, 0);
    assert!(out.impulse[0].abs() <= 0.0);
}

/// Posing Newton's law also on a separating contact (u-_2 = 0.5 > 0) that the other contact
/// pushes into approach gains energy: W = [[1, -0.9], [-0.9, 1]], u- = (-1, 0.5), e = (1, 0)
/// gives q = (-2, 0.5), P = (8.16, 6.84) and, from Delta T = sum_i P_i (1 - e_i) u-_i / 2,
/// Delta T = +1.71. The pass rule of `solve_simultaneous`
/// (closing contacts first, then a follow-up impact for the pushed one) does not.
#[test]
fn separating_contact_in_the_law_would_gain_energy() {
    let rows = vec![vec![1.0, -0.9], vec![-0.9, 1.0]];
    let p = ImpactProblem::from_rows(&rows, vec![-1.0, 0.5], vec![1.0, 0.0]).unwrap();
    let solver =
        signorini_lcp::Registry::builtin().build("lemke").expect("lemke is always registered");
    let naive = Lcp::from_dense_rows(&rows, vec![-2.0, 0.5]).unwrap();
    let sol = solver.solve(&naive, &SolveOptions::default(), None).unwrap();
    assert_eq!(sol.status, Status::Solved);
    let gain = p.energy_change(&sol.z);
    assert!((gain - 0.5 * 0.5 * 1.3 / 0.19).abs() <= 1e-9, "naive law: Delta T = {gain}");

    let out = simultaneous(&p, ImpactLaw::Newton);
    assert!(out.passes >= 2, "a follow-up impact is needed: {out:?}");
    assert!(out.energy_change <= 1e-12, "Delta T = {}", out.energy_change);
    assert!(out.post_velocity.iter().all(|u| *u >= -1e-9));
}

#[test]
fn coupled_inelastic_impact_matches_the_seed_lcp() {
    // Seed A4 read at velocity level: W = [[2,1],[1,2]], u- = (-3,-3), inelastic: P = (1,1),
    // u+ = 0 at both contacts.
    let p =
        ImpactProblem::from_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![-3.0, -3.0], vec![0.0; 2])
            .unwrap();
    let out = simultaneous(&p, ImpactLaw::Inelastic);
    for i in 0..2 {
        assert!((out.impulse[i] - 1.0).abs() <= 1e-10);
        assert!(out.post_velocity[i].abs() <= 1e-10);
    }
}

#[test]
fn pairwise_impact_needs_positive_diagonal() {
    let p = ImpactProblem::from_rows(&[vec![0.0]], vec![-1.0], vec![0.5]).unwrap();
    let err = solve_sequential(&p, ImpactLaw::Newton, &SequentialParams::default()).unwrap_err();
    assert!(matches!(err, ImpactError::NonPositiveDiagonal { contact_idx: 0, .. }));
}

/// Random SPD Delassus matrices W = A'A + 0.05 I (n <= 5), velocities in [-2, 2], e in [0, 1].
fn impact_problem() -> impl Strategy<Value = ImpactProblem> {
    (1usize..=5).prop_flat_map(|n| {
        (
            prop::collection::vec(-1.0f64..1.0, n * n),
            prop::collection::vec(-2.0f64..2.0, n),
            prop::collection::vec(0.0f64..=1.0, n),
        )
            .prop_map(move |(a, u, e)| {
                let w: Vec<Vec<f64>> = (0..n)
                    .map(|i| {
                        (0..n)
                            .map(|j| {
                                (0..n).map(|k| a[k * n + i] * a[k * n + j]).sum::<f64>()
                                    + if i == j { 0.05 } else { 0.0 }
                            })
                            .collect()
                    })
                    .collect();
                ImpactProblem::from_rows(&w, u, e).unwrap()
            })
    })
}

/// Energy scale of an outcome for a relative tolerance: sum_i P_i |u-_i| + P'WP/2.
fn energy_scale(p: &ImpactProblem, imp: &[f64]) -> f64 {
    let n = p.n_contacts();
    let w = p.delassus();
    let wpp: f64 = (0..n).map(|i| (0..n).map(|j| imp[i] * w[(i, j)] * imp[j]).sum::<f64>()).sum();
    imp.iter().zip(p.pre_velocity()).map(|(a, b)| a * b.abs()).sum::<f64>() + 0.5 * wpp + 1e-300
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        failure_persistence: Some(Box::new(
            proptest::test_runner::FileFailurePersistence::WithSource("proptest-regressions"),
        )),
        ..ProptestConfig::default()
    })]

    #[test]
    fn no_impact_gains_energy_for_e_at_most_one(p in impact_problem()) {
        let solver = signorini_lcp::Registry::builtin().build("lemke").expect("lemke is always registered");
        for law in [ImpactLaw::Newton, ImpactLaw::Poisson, ImpactLaw::Inelastic] {
            let sim = solve_simultaneous(&p, law, solver.as_ref(), &SimultaneousParams::default());
            let seq = solve_sequential(&p, law, &SequentialParams::default());
            for (mode, out) in [("simultaneous", sim), ("sequential", seq)] {
                let out = match out {
                    Ok(o) => o,
                    Err(e) => return Err(TestCaseError::fail(format!("{law:?} {mode}: {e}"))),
                };
                let scale = energy_scale(&p, &out.impulse);
                prop_assert!(out.energy_change <= 1e-9 * scale,
                    "{:?} {}: Delta T = {} (scale {})", law, mode, out.energy_change, scale);
                prop_assert!(out.impulse.iter().all(|x| *x >= 0.0));
                let umax = p.pre_velocity().iter().fold(1.0f64, |a, b| a.max(b.abs()));
                prop_assert!(out.post_velocity.iter().all(|u| *u >= -1e-8 * umax),
                    "{:?} {}: approaching after impact: {:?}", law, mode, out.post_velocity);
            }
        }
    }
}
