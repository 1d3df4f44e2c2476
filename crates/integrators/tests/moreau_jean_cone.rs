//! Moreau–Jean with the exact Coulomb cone (`FrictionLaw::Cone`, `Simulation::run_cone`)
//! against closed forms. With a closed contact and constant forces the scheme is exact: a
//! block sliding down an incline gains h g (sin a - mu cos a) per step, one that sticks keeps
//! v = 0, a sphere sliding on a floor loses h mu g per step along its own direction. Warm
//! starting each step from the previous reactions saves iterations on the granular column.

use std::path::PathBuf;

use signorini_contact::Scene;
use signorini_friction::FcRegistry;
use signorini_integrators::{
    FrictionLaw, NoObserver, Scheme, Simulation, SimulationOptions, SimulationOutcome, WarmStart,
};

const G: f64 = 9.81;

fn scene_file(name: &str) -> Scene {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../verification/scenes").join(name);
    Scene::from_path(&path).expect("scene")
}

fn options(t_end: f64, warm: WarmStart) -> SimulationOptions {
    let mut o = SimulationOptions::new(Scheme::MoreauJean, t_end);
    o.friction = FrictionLaw::Cone;
    o.step = Some(1e-3);
    o.warm_start = warm;
    o.solve.tol = Some(1e-12);
    o
}

fn run(scene: Scene, o: SimulationOptions, solver: &str) -> (Simulation, SimulationOutcome) {
    let sim = Simulation::new(scene, o).expect("set-up");
    let solver = FcRegistry::builtin().build(solver).expect("solver");
    let out = sim.run_cone(solver.as_ref(), &mut NoObserver).expect("run");
    assert_eq!(out.solver_failures.total, 0, "failed solves: {:?}", out.solver_failures.items);
    (sim, out)
}

/// The velocity (vx, vy[, vz], then omega or wx, wy, wz) of the body named `name` at the end of a run.
fn velocity(sim: &Simulation, out: &SimulationOutcome, name: &str) -> Vec<f64> {
    let b = sim.body_states(&out.end.q, &out.end.v).into_iter().find(|b| b.name == name);
    let b = b.expect("body");
    b.columns.iter().filter(|(c, _)| c.starts_with(['v', 'w', 'o'])).map(|&(_, x)| x).collect()
}

/// tan a from the scene's incline normal n: 2D (sin a, cos a), 3D (sin a, 0, cos a).
fn incline_angle(scene: &Scene) -> f64 {
    let b = &scene.bodies[0];
    // The block's centre sits at h n above the origin, so n is its position's direction.
    let p = b.position;
    let n = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
    let (s, c) =
        if scene.dimension.as_usize() == 2 { (p[0] / n, p[1] / n) } else { (p[0] / n, p[2] / n) };
    s.atan2(c)
}

#[test]
fn a_block_slides_down_an_incline_with_g_sin_minus_mu_cos_in_2d() {
    let scene = scene_file("incline-2d-slide.toml");
    let (a, mu) = (incline_angle(&scene), scene.material.friction);
    assert!(a.tan() > mu);
    let t = 0.5;
    for solver in ["auto", "nsgs", "newton-ac"] {
        let (sim, out) = run(scene.clone(), options(t, WarmStart::PreviousStep), solver);
        assert_eq!(out.steps, 500);
        let v = velocity(&sim, &out, "block");
        let expected = G * (a.sin() - mu * a.cos()) * t;
        let along = v[0] * a.cos() - v[1] * a.sin();
        let normal = v[0] * a.sin() + v[1] * a.cos();
        assert!((along - expected).abs() <= 1e-9 * expected, "{solver}: {along} vs {expected}");
        assert!(normal.abs() <= 1e-9 * expected, "{solver}: normal velocity {normal}");
        assert!(v[2].abs() <= 1e-9, "{solver}: omega {}", v[2]);
    }
}

#[test]
fn a_block_sticks_on_an_incline_when_mu_is_at_least_tan_a_in_2d() {
    let scene = scene_file("incline-2d-stick.toml");
    assert!(incline_angle(&scene).tan() <= scene.material.friction);
    let (sim, out) = run(scene, options(0.5, WarmStart::PreviousStep), "auto");
    let v = velocity(&sim, &out, "block");
    assert!(v.iter().all(|x| x.abs() <= 1e-9), "velocity {v:?}");
}

#[test]
fn a_sphere_sticks_then_slides_on_a_3d_incline_as_the_exact_cone_says() {
    // tan a = 0.47: mu = 0.5 sticks (a polyhedral cone with k = 6 would slide), mu = 0.3 slides.
    let scene = scene_file("incline-3d-cone.toml");
    let a = incline_angle(&scene);
    assert!((a.tan() - 0.47).abs() < 1e-12);
    let (sim, out) = run(scene.clone(), options(0.5, WarmStart::PreviousStep), "auto");
    let v = velocity(&sim, &out, "block");
    assert!(v.iter().all(|x| x.abs() <= 1e-9), "mu = 0.5: velocity {v:?}");

    let mut slide = scene;
    slide.material.friction = 0.3;
    let t = 0.5;
    let (sim, out) = run(slide, options(t, WarmStart::PreviousStep), "auto");
    let v = velocity(&sim, &out, "block");
    let expected = G * (a.sin() - 0.3 * a.cos()) * t;
    // Downhill s = (cos a, 0, -sin a).
    let along = v[0] * a.cos() - v[2] * a.sin();
    assert!((along - expected).abs() <= 1e-9 * expected, "{along} vs {expected}");
    assert!(v[1].abs() <= 1e-9 * expected, "sideways {}", v[1]);
}

#[test]
fn friction_on_a_sphere_sliding_diagonally_is_opposite_its_velocity() {
    let text = r#"
dimension = 3
gravity = [0.0, 0.0, -9.81]
[material]
friction = 0.5
impact_law = "inelastic"
[[body]]
name = "ball"
mass = 2.0
particle = true
shape = { type = "sphere", radius = 0.1 }
position = [0.0, 0.0, 0.1]
velocity = [1.2, 1.6, 0.0]
[[body]]
name = "floor"
fixed = true
shape = { type = "halfspace", normal = [0.0, 0.0, 1.0], offset = 0.0 }
"#;
    let scene = Scene::from_toml_str(text).expect("scene");
    let t = 0.2;
    for solver in ["auto", "nsgs", "admm"] {
        let (sim, out) = run(scene.clone(), options(t, WarmStart::PreviousStep), solver);
        let v = velocity(&sim, &out, "ball");
        let speed = v[0].hypot(v[1]).hypot(v[2]);
        let expected = 2.0 - 0.5 * G * t;
        // admm stops at its tolerance (1e-12 relative to |q|), not at round-off.
        let tol = if solver == "admm" { 1e-7 } else { 1e-9 };
        assert!((speed - expected).abs() <= tol * expected, "{solver}: speed {speed}");
        assert!((v[0] / speed - 0.6).abs() <= tol && (v[1] / speed - 0.8).abs() <= tol, "{v:?}");
        assert!(v[2].abs() <= tol, "{solver}: vz {}", v[2]);
    }
}

#[test]
fn warm_start_saves_iterations_on_the_granular_column() {
    let scene = scene_file("granular-column.toml");
    let mut cold = options(0.1, WarmStart::Off);
    cold.solve.tol = None;
    let warm = SimulationOptions { warm_start: WarmStart::PreviousStep, ..cold.clone() };
    let (sim, c) = run(scene.clone(), cold, "auto");
    let (_, w) = run(scene, warm, "auto");
    assert_eq!((c.lcp_solves, w.lcp_solves), (100, 100));
    assert!(
        w.solver_iterations < c.solver_iterations,
        "warm {} against cold {}",
        w.solver_iterations,
        c.solver_iterations
    );
    // Both at rest to the solver's tolerance.
    for (a, b) in c.end.q.iter().zip(&w.end.q) {
        assert!((a - b).abs() < 1e-9, "{a} vs {b}");
    }
    let _ = sim;
}

#[test]
fn the_cone_is_refused_outside_moreau_jean_and_with_friction_directions() {
    let scene = scene_file("incline-2d-slide.toml");
    let mut o = options(0.1, WarmStart::Off);
    o.scheme = Scheme::StewartTrinkle;
    let e = Simulation::new(scene.clone(), o).expect_err("refused").to_string();
    assert!(e.contains("friction = cone") && e.contains("moreau-jean"), "{e}");
    let mut o = options(0.1, WarmStart::Off);
    o.friction_directions = Some(2);
    let e = Simulation::new(scene.clone(), o).expect_err("refused").to_string();
    assert!(e.contains("friction_directions"), "{e}");
    // An LCP solver cannot run the cone, nor a frictional solver an LCP run.
    let sim = Simulation::new(scene.clone(), options(0.1, WarmStart::Off)).expect("set-up");
    let lcp = signorini_lcp::Registry::builtin().build("pgs").expect("pgs");
    assert!(sim.run(lcp.as_ref(), &mut NoObserver).is_err());
    let plain =
        Simulation::new(scene, SimulationOptions::new(Scheme::MoreauJean, 0.1)).expect("ok");
    let fc = FcRegistry::builtin().build("nsgs").expect("nsgs");
    assert!(plain.run_cone(fc.as_ref(), &mut NoObserver).is_err());
}

#[test]
fn with_mu_0_the_cone_bounces_like_frictionless_moreau_jean() {
    // Regression: the mu = 0 cone kept a negative normal reaction, so the ball of
    // bouncing-ball.toml (e = 0.9) was pulled back after its rebound, 29 "impacts" in 1 s.
    let scene = scene_file("bouncing-ball.toml");
    let mut o = options(1.0, WarmStart::PreviousStep);
    o.solve.tol = None;
    let (_, cone) = run(scene.clone(), o, "auto");
    let plain =
        Simulation::new(scene, SimulationOptions::new(Scheme::MoreauJean, 1.0)).expect("ok");
    let lcp = signorini_lcp::Registry::builtin().build("lemke").expect("lemke");
    let frictionless = plain.run(lcp.as_ref(), &mut NoObserver).expect("run");
    assert_eq!(cone.impacts.total, 1);
    assert_eq!(frictionless.impacts.total, 1);
    for (a, b) in cone
        .end
        .q
        .iter()
        .chain(&cone.end.v)
        .zip(frictionless.end.q.iter().chain(&frictionless.end.v))
    {
        assert!((a - b).abs() <= 1e-12, "{a} vs {b}");
    }
}
