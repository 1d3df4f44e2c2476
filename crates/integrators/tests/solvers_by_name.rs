//! Every stepper takes any `LcpSolver`: the same runs with every solver of the built-in
//! registry, selected by name, give the same trajectories (REFERENCE.md C bouncing ball;
//! Newton's cradle through signorini-impact).

use signorini_impact::{solve_simultaneous, ImpactLaw, ImpactProblem, SimultaneousParams};
use signorini_integrators::{
    run_stepping, simulate_event_driven, BouncingBall, EventDrivenParams, Flight, MoreauJean,
    NoObserver, Sample, SteppingParams, TimeStepper,
};
use signorini_lcp::{Registry, SolveOptions};

fn ball() -> BouncingBall {
    BouncingBall { mass: 1.0, gravity: 9.81, pull: 0.0, restitution: 0.9 }
}

/// Every registered name (run with tolerance 1e-12 so iterative and pivoting methods compare).
fn solvers() -> Vec<String> {
    let names: Vec<String> = Registry::builtin().names().iter().map(|s| s.to_string()).collect();
    assert!(names.iter().any(|n| n == "lemke"), "lemke is registered on this branch: {names:?}");
    names
}

#[test]
fn moreau_jean_and_event_driven_with_every_registered_solver() {
    let b = ball();
    let registry = Registry::builtin();
    let options = SolveOptions { tol: Some(1e-12), ..SolveOptions::default() };
    let mut reference: Option<(f64, Vec<f64>)> = None;
    for name in solvers() {
        let solver = registry.build(&name).unwrap();
        let mut p = SteppingParams::with_step(1e-3);
        p.options = options.clone();
        p.sample_every = 0;
        let start = Sample { t: 0.0, q: vec![1.0], v: vec![0.0] };
        let stepper = TimeStepper::MoreauJean(&b, MoreauJean::default());
        let mj = run_stepping(&b, stepper, solver.as_ref(), &start, 2400, &p, &mut NoObserver)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let ed_params = EventDrivenParams {
            flight: Flight::Ballistic,
            options: options.clone(),
            ..EventDrivenParams::default()
        };
        let ed =
            simulate_event_driven(&b, &b, solver.as_ref(), 0.0, &[1.0], &[0.0], 9.0, &ed_params)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(ed.accumulations.len(), 1, "{name}");
        let times: Vec<f64> = ed.impacts.iter().take(3).map(|i| i.t).collect();
        match &reference {
            None => reference = Some((mj.q[0], times)),
            Some((q_ref, t_ref)) => {
                assert!(
                    (mj.q[0] - q_ref).abs() <= 1e-8,
                    "{name}: Moreau-Jean q = {} vs {q_ref}",
                    mj.q[0]
                );
                for (t, r) in times.iter().zip(t_ref) {
                    assert!((t - r).abs() <= 1e-9, "{name}: impact {t} vs {r}");
                }
            }
        }
        // Per-step statistics carry the solver's name.
        let stat = mj.steps.iter().find_map(|s| s.lcp.clone()).unwrap();
        assert!(
            stat.solver.starts_with(name.split(':').next().unwrap_or("")),
            "{name}: {}",
            stat.solver
        );
    }
}

#[test]
fn cradle_lcp_with_every_registered_solver() {
    // Five balls, m = 1: W = tridiag(-1, 2, -1), u- = (-1, 0, 0, 0), e = 1: P = (1.6, 1.2, 0.8, 0.4).
    let w: Vec<Vec<f64>> = (0..4usize)
        .map(|i| {
            (0..4)
                .map(|j| {
                    if i == j {
                        2.0
                    } else if i.abs_diff(j) == 1 {
                        -1.0
                    } else {
                        0.0
                    }
                })
                .collect()
        })
        .collect();
    let p = ImpactProblem::from_rows(&w, vec![-1.0, 0.0, 0.0, 0.0], vec![1.0; 4]).unwrap();
    let registry = Registry::builtin();
    for name in solvers() {
        let solver = registry.build(&name).unwrap();
        let params = SimultaneousParams {
            options: SolveOptions {
                tol: Some(1e-12),
                max_iter: Some(100_000),
                ..SolveOptions::default()
            },
            ..SimultaneousParams::default()
        };
        let out = solve_simultaneous(&p, ImpactLaw::Newton, solver.as_ref(), &params)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        for (got, want) in out.impulse.iter().zip([1.6, 1.2, 0.8, 0.4]) {
            assert!((got - want).abs() <= 1e-9, "{name}: {:?}", out.impulse);
        }
    }
}
