//! `Simulation`: options that do not apply to the scheme are refused (not ignored), an
//! observer's error stops the run with the time of the sample, the scene's impact keys are the
//! ones `simulate` reads, and every scheme streams one sample per step.

use signorini_contact::Scene;
use signorini_impact::ImpactMode;
use signorini_integrators::{
    Sample, Scheme, Simulation, SimulationError, SimulationObserver, SimulationOptions,
};
use signorini_lcp::Registry;

const BALL: &str = r#"
dimension = 2
gravity = [0.0, -9.81]
[material]
restitution = 0.5
stiffness = 1.0e5
impact = "simultaneous"
[[body]]
name = "floor"
fixed = true
shape = { type = "halfspace", normal = [0.0, 1.0], offset = 0.0 }
[[body]]
name = "ball"
mass = 1.0
particle = true
position = [0.0, 0.2]
shape = { type = "sphere", radius = 0.1 }
"#;

fn scene() -> Scene {
    Scene::from_toml_str(BALL).expect("scene")
}

/// Counts samples; fails from the `fail_at`-th on.
struct Count {
    samples: usize,
    fail_at: usize,
}

impl SimulationObserver for Count {
    fn sample(&mut self, _sample: &Sample) -> Result<(), String> {
        self.samples += 1;
        if self.samples >= self.fail_at {
            return Err("disk full".into());
        }
        Ok(())
    }
}

#[test]
fn options_that_do_not_apply_are_refused() {
    let mut o = SimulationOptions::new(Scheme::StewartTrinkle, 0.1);
    o.theta = Some(0.5);
    let e = Simulation::new(scene(), o).unwrap_err();
    assert!(matches!(e, SimulationError::Option { option: "theta", .. }), "{e}");
    let mut o = SimulationOptions::new(Scheme::MoreauJean, 0.1);
    o.friction_directions = Some(2);
    let e = Simulation::new(scene(), o).unwrap_err();
    assert!(matches!(e, SimulationError::Option { option: "friction_directions", .. }), "{e}");
    let mut o = SimulationOptions::new(Scheme::MoreauJean, 1.0);
    o.limits.max_steps = 999;
    let e = Simulation::new(scene(), o).unwrap_err();
    assert!(matches!(e, SimulationError::TooManySteps { max_steps: 999, .. }), "{e}");
}

#[test]
fn every_scheme_streams_one_sample_per_step_and_an_observer_error_stops_it() {
    let solver = Registry::builtin().build("lemke").expect("lemke");
    for scheme in Scheme::all() {
        let sim = Simulation::new(scene(), SimulationOptions::new(scheme, 0.05)).expect("sim");
        assert_eq!(sim.impact().mode, ImpactMode::Simultaneous);
        let mut count = Count { samples: 0, fail_at: usize::MAX };
        let out = sim.run(solver.as_ref(), &mut count).expect("run");
        assert_eq!(count.samples, out.steps + 1, "{scheme}");
        assert!((out.end.t - 0.05).abs() < 1e-12, "{scheme}: ends at {}", out.end.t);
        let mut failing = Count { samples: 0, fail_at: 3 };
        match sim.run(solver.as_ref(), &mut failing) {
            Err(SimulationError::Output { t, message }) => {
                assert_eq!(message, "disk full");
                assert!(t > 0.0 && t < 0.05, "{scheme}: t = {t}");
            }
            other => panic!("{scheme}: expected an output error, got {other:?}"),
        }
    }
}
