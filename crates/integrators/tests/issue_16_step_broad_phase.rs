//! Issue 16, "time stepping that scales": the time steppers used to take a scene's contacts
//! from a candidate set fixed at construction, by default every pair of bodies, so 2 000 free
//! spheres that never touch asked for two million contacts (rows, gaps and a step LCP over
//! them). [`SceneModel::with_step_broad_phase`], the default of [`Simulation`] for the time
//! steppers, finds each step's contacts with the grid broad phase instead: the step's data
//! grow with the contacts near each body, and Moreau–Jean takes exactly the steps of the
//! every-pair model.

use signorini_contact::{Body, Dimension, Scene, Shape};
use signorini_integrators::scene_model::DEFAULT_STEP_CONTACT_MARGIN;
use signorini_integrators::simulation::Candidates;
use signorini_integrators::stepping::StepView;
use signorini_integrators::{
    run_stepping, MoreauJean, NoObserver, Sample, SceneModel, Scheme, Simulation, SimulationError,
    SimulationOptions, StepObserver, SteppingParams, SteppingRun, TimeStepper, WarmStart,
};
use signorini_lcp::Registry;

/// n spheres (radius 0.5) on a 3D grid with spacing `spacing`, no floor.
fn spheres(n: usize, spacing: f64) -> Scene {
    let mut scene = Scene::new(Dimension::Three, [0.0, -9.81, 0.0]);
    let side = (n as f64).cbrt().ceil() as usize;
    for i in 0..n {
        let (x, y, z) = (i % side, (i / side) % side, i / (side * side));
        scene.bodies.push(Body::rigid(
            format!("s{i}"),
            Dimension::Three,
            1.0,
            Shape::Sphere { radius: 0.5 },
            [spacing * x as f64, spacing * y as f64, spacing * z as f64],
        ));
    }
    scene
}

/// Records the largest number of contacts any step looked at.
#[derive(Default)]
struct MostContacts(usize);

impl StepObserver for MostContacts {
    fn step(&mut self, step: &StepView<'_>) -> Result<(), String> {
        self.0 = self.0.max(step.gaps.len());
        Ok(())
    }
}

#[test]
fn issue_16_free_spheres_step_with_data_linear_in_the_bodies() {
    let scene = spheres(2000, 2.0);
    let mut options = SimulationOptions::new(Scheme::MoreauJean, 0.005);
    options.limits.memory_bytes = 8 << 20;
    // Every pair a candidate: about two million contacts, far over 8 MiB.
    let all = SimulationOptions { candidates: Candidates::AllPairs, ..options.clone() };
    match Simulation::new(scene.clone(), all) {
        Err(SimulationError::Memory(e)) => assert!(e.bytes > 100 << 20, "{e}"),
        other => panic!("every pair should be refused under 8 MiB: {:?}", other.map(|_| ())),
    }
    // The default finds each step's contacts: none here, and the run fits.
    let sim = Simulation::new(scene.clone(), options).expect("per-step contacts fit in 8 MiB");
    let solver = Registry::builtin().build("pgs").expect("pgs");
    let out = sim.run(solver.as_ref(), &mut NoObserver).expect("run");
    assert_eq!((out.steps, out.lcp_solves), (5, 0));
    // The stepping loop itself looked at no contact in any step.
    let model = SceneModel::with_step_broad_phase(scene, DEFAULT_STEP_CONTACT_MARGIN).unwrap();
    let (q, v) = model.initial_state();
    let mut seen = MostContacts::default();
    let p = SteppingParams::with_step(1e-3);
    let stepper = TimeStepper::MoreauJean(&model, MoreauJean::default());
    let start = Sample { t: 0.0, q, v };
    run_stepping(&model, stepper, solver.as_ref(), &start, 5, &p, &mut seen).expect("run");
    assert_eq!(seen.0, 0);
}

const PILE: &str = r#"
dimension = 2
gravity = [0.0, -9.81]
[material]
restitution = 0.3
friction = 0.4
[[body]]
name = "floor"
fixed = true
shape = { type = "halfspace", normal = [0.0, 1.0], offset = 0.0 }
[[body]]
name = "a"
mass = 1.0
shape = { type = "sphere", radius = 0.5 }
position = [0.0, 0.5]
[[body]]
name = "b"
mass = 2.0
shape = { type = "sphere", radius = 0.5 }
position = [1.0, 0.5]
[[body]]
name = "c"
mass = 3.0
shape = { type = "sphere", radius = 0.5 }
position = [0.5, 1.9]
velocity = [0.3, -1.0]
[[body]]
name = "box"
mass = 2.0
shape = { type = "box", half_extents = [0.4, 0.2] }
position = [2.5, 1.0]
angle = 0.3
angular_velocity = 2.0
"#;

fn run(model: &SceneModel, solver: &str, warm: WarmStart) -> SteppingRun {
    let (q, v) = model.initial_state();
    let solver = Registry::builtin().build(solver).expect("solver");
    let mut p = SteppingParams::with_step(1e-3);
    p.options.tol = Some(1e-10);
    p.warm_start = warm;
    p.sample_every = 0;
    let stepper = TimeStepper::MoreauJean(model, MoreauJean::default());
    let start = Sample { t: 0.0, q, v };
    run_stepping(model, stepper, solver.as_ref(), &start, 600, &p, &mut NoObserver).expect("run")
}

#[test]
fn issue_16_moreau_jean_with_per_step_contacts_takes_the_steps_of_every_pair() {
    let scene = Scene::from_toml_str(PILE).expect("scene");
    let every_pair = SceneModel::new(scene.clone()).expect("model");
    let per_step = SceneModel::with_step_broad_phase(scene, DEFAULT_STEP_CONTACT_MARGIN).unwrap();
    for solver in ["lemke", "pgs"] {
        let a = run(&every_pair, solver, WarmStart::Off);
        let b = run(&per_step, solver, WarmStart::Off);
        // Same active sets in the same order: the same LCPs, bit for bit.
        assert_eq!(a.q, b.q, "{solver}");
        assert_eq!(a.v, b.v, "{solver}");
        assert_eq!(a.totals, b.totals, "{solver}");
        assert!(a.totals.lcp_solves > 100, "{solver}: {:?}", a.totals);
    }
    // Warm starts follow contacts by bodies and feature: fewer sweeps (801 against 1323 when
    // written; the ball's impact and the rolling box change the contact set), the same state.
    let cold = run(&per_step, "pgs", WarmStart::Off);
    let warm = run(&per_step, "pgs", WarmStart::PreviousStep);
    let diff = cold.q.iter().zip(&warm.q).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    assert!(diff < 1e-7, "states differ by {diff}");
    assert!(
        warm.totals.iterations < cold.totals.iterations,
        "{} warm vs {} cold",
        warm.totals.iterations,
        cold.totals.iterations
    );
}

#[test]
fn issue_16_stewart_trinkle_and_position_lcp_with_per_step_contacts_agree_to_round_off() {
    // Both pose their LCP over the step's contacts instead of every pair: far contacts, which
    // the every-pair LCP keeps at zero impulse, leave it. With a pivoting solver the result
    // moves by round-off only.
    let scene = Scene::from_toml_str(PILE).expect("scene");
    let every_pair = SceneModel::new(scene.clone()).expect("model");
    let per_step = SceneModel::with_step_broad_phase(scene, DEFAULT_STEP_CONTACT_MARGIN).unwrap();
    let lemke = Registry::builtin().build("lemke").expect("lemke");
    let p = SteppingParams::with_step(1e-3);
    for (name, a, b) in [
        (
            "stewart-trinkle",
            TimeStepper::StewartTrinkle(&every_pair),
            TimeStepper::StewartTrinkle(&per_step),
        ),
        (
            "position-lcp",
            TimeStepper::PositionLcp(&every_pair),
            TimeStepper::PositionLcp(&per_step),
        ),
    ] {
        let (q, v) = every_pair.initial_state();
        let start = Sample { t: 0.0, q, v };
        let ra = run_stepping(&every_pair, a, lemke.as_ref(), &start, 400, &p, &mut NoObserver);
        let rb = run_stepping(&per_step, b, lemke.as_ref(), &start, 400, &p, &mut NoObserver);
        let (ra, rb) = (ra.expect(name), rb.expect(name));
        let diff = ra.q.iter().zip(&rb.q).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
        assert!(diff < 1e-9, "{name}: final states differ by {diff}");
        // Every step poses an LCP over every pair; per step only while a contact is near.
        assert_eq!(ra.totals.lcp_solves, 400, "{name}");
        assert!(rb.totals.max_active < ra.totals.max_active, "{name}");
    }
}
