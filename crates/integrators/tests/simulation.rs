//! `Simulation`: options that do not apply to the scheme are refused (not ignored), an
//! observer's error stops the run with the time of the sample, the scene's impact keys are the
//! ones `simulate` reads, every scheme streams one sample per step, a bouncing ball's impacts
//! come at the closed-form times with Newton's energy loss, samples are named by the CSV
//! header's columns and kept within the memory limit, and scene files are read with their
//! name in the error.

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

/// The ball of [`BALL`] falls 0.1 m onto the floor: the first impact at t1 = sqrt(2 · 0.1 / g),
/// the second after a flight of 2 e sqrt(2 · 0.1 g) / g = 2 e t1 (so at 2 t1 for e = 1/2).
fn first_impacts() -> [f64; 2] {
    let t1 = (2.0 * 0.1 / 9.81f64).sqrt();
    [t1, t1 + 2.0 * 0.5 * t1]
}

#[test]
fn bouncing_ball_impacts_and_their_energy_event_driven() {
    let solver = Registry::builtin().build("lemke").expect("lemke");
    let sim =
        Simulation::new(scene(), SimulationOptions::new(Scheme::EventDriven, 0.3)).expect("sim");
    let out = sim.run(solver.as_ref(), &mut Count { samples: 0, fail_at: usize::MAX }).unwrap();
    assert_eq!(out.impacts.total, 2, "{:?}", out.impacts);
    assert!((out.impacts.items[0].energy_before - 9.81 * 0.1).abs() < 1e-9);
    for (impact, t) in out.impacts.items.iter().zip(first_impacts()) {
        assert!((impact.t - t).abs() < 1e-9, "impact at {} instead of {t}", impact.t);
        assert_eq!(impact.bodies, ["ball", "floor"]);
        // Event-driven impacts report kinetic energies: g · 0.1 per unit mass at the first,
        // and Newton's law with e = 1/2 keeps a quarter of it.
        let ratio = impact.energy_after / impact.energy_before;
        assert!((ratio - 0.25).abs() < 1e-9, "kinetic energy ratio {ratio}");
    }
}

#[test]
fn bouncing_ball_impacts_and_their_energy_moreau_jean() {
    let solver = Registry::builtin().build("lemke").expect("lemke");
    let h = 1e-3;
    let mut o = SimulationOptions::new(Scheme::MoreauJean, 0.3);
    o.step = Some(h);
    let sim = Simulation::new(scene(), o).expect("sim");
    let out = sim.run(solver.as_ref(), &mut Count { samples: 0, fail_at: usize::MAX }).unwrap();
    assert_eq!((out.steps, out.lcp_solves > 0), (300, true));
    assert_eq!(out.impacts.total, 2, "{:?}", out.impacts);
    for (impact, t) in out.impacts.items.iter().zip(first_impacts()) {
        // The step that holds the impact starts within one step before it (the second one
        // carries the first's O(h) error in time).
        assert!(impact.t <= t + h && impact.t > t - 3.0 * h, "impact at {} near {t}", impact.t);
        assert!(impact.energy_after < impact.energy_before, "{impact:?}");
        assert!(impact.impulse > 0.0, "{impact:?}");
    }
}

#[test]
fn columns_are_the_csv_header_and_run_to_columns_keeps_every_sample() {
    let solver = Registry::builtin().build("lemke").expect("lemke");
    let sim =
        Simulation::new(scene(), SimulationOptions::new(Scheme::MoreauJean, 0.05)).expect("sim");
    let names = sim.column_names();
    assert_eq!(names, ["t", "ball.x", "ball.y", "ball.angle", "ball.vx", "ball.vy", "ball.omega"]);
    let (columns, out) = sim.run_to_columns(solver.as_ref()).expect("run");
    assert_eq!(columns.names(), names.as_slice());
    assert_eq!(columns.n_rows(), out.steps + 1);
    let t = columns.column("t").expect("t");
    assert!(t[0] == 0.0 && (t[out.steps] - 0.05).abs() < 1e-12);
    let last: Vec<f64> = columns.iter().map(|(_, values)| values[out.steps]).collect();
    assert_eq!(last, sim.row(&out.end));
    assert!(columns.column("floor.y").is_none(), "fixed bodies have no columns");
}

#[test]
fn keeping_samples_counts_against_the_memory_limit() {
    let solver = Registry::builtin().build("lemke").expect("lemke");
    let mut o = SimulationOptions::new(Scheme::MoreauJean, 10.0);
    // 10^4 samples of 7 values need 560 kB, more than 64 KiB; the run itself fits.
    o.limits.memory_bytes = 64 << 10;
    let sim = Simulation::new(scene(), o).expect("the run fits the limit");
    match sim.run_to_columns(solver.as_ref()) {
        Err(SimulationError::Output { message, .. }) => {
            assert!(message.contains("memory limit"), "{message}")
        }
        other => panic!("expected the memory limit, got {other:?}"),
    }
}

#[test]
fn a_scene_file_is_read_with_its_name_in_the_error() {
    let o = || SimulationOptions::new(Scheme::MoreauJean, 0.1);
    let e = Simulation::from_path("no/such/scene.toml", o()).unwrap_err();
    assert!(matches!(e, SimulationError::Scene { .. }), "{e}");
    assert_eq!(e.to_string().matches("no/such/scene.toml").count(), 1, "{e}");
    let dir = std::env::temp_dir().join(format!("signorini-sim-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("ball.toml");
    std::fs::write(&path, BALL).unwrap();
    let sim = Simulation::from_path(&path, o()).expect("the ball scene");
    assert_eq!(sim.n_steps(), 100);
    std::fs::write(&path, BALL.replace("mass = 1.0", "mass = -1.0")).unwrap();
    let e = Simulation::from_path(&path, o()).unwrap_err().to_string();
    assert!(e.starts_with(&path.display().to_string()) && e.contains("mass"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unknown_scheme_name_is_a_typed_error_listing_the_valid_ones() {
    let e = "moreau_jean".parse::<Scheme>().unwrap_err();
    assert_eq!(e.given, "moreau_jean");
    assert!(e.to_string().contains("moreau-jean, stewart-trinkle, position-lcp"), "{e}");
}
