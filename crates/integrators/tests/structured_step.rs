//! Time stepping of a scene model through its block structure (block-diagonal M^-1, sparse J,
//! the contact crate's assembly of W, a sparse LCP) with Moreau–Jean, the position-level LCP and
//! Stewart–Trinkle, against the same model seen only through
//! its dense M(q) and J(q): the trajectories agree to round-off.

use faer::Mat;
use signorini_contact::Scene;
use signorini_integrators::{
    run_stepping, ContactModel, FrictionModel, MechanicalSystem, MoreauJean, NoObserver, Sample,
    SceneModel, SteppingParams, SteppingRun, TimeStepper,
};
use signorini_lcp::Registry;

/// The model without its structured hooks: steppers fall back to the dense path.
struct DenseView<'a>(&'a SceneModel);

impl MechanicalSystem for DenseView<'_> {
    fn n_dof(&self) -> usize {
        self.0.n_dof()
    }
    fn mass_matrix(&self, q: &[f64]) -> Mat<f64> {
        self.0.mass_matrix(q)
    }
    fn forces(&self, t: f64, q: &[f64], v: &[f64]) -> Vec<f64> {
        self.0.forces(t, q, v)
    }
}

impl ContactModel for DenseView<'_> {
    fn n_contacts(&self) -> usize {
        self.0.n_contacts()
    }
    fn gaps(&self, q: &[f64]) -> Vec<f64> {
        self.0.gaps(q)
    }
    fn jacobian(&self, q: &[f64]) -> Mat<f64> {
        ContactModel::jacobian(self.0, q)
    }
    fn restitution(&self, contact_idx: usize) -> f64 {
        self.0.restitution(contact_idx)
    }
}

impl FrictionModel for DenseView<'_> {
    fn n_directions(&self) -> usize {
        self.0.n_directions()
    }
    fn tangent_jacobian(&self, q: &[f64]) -> Mat<f64> {
        self.0.tangent_jacobian(q)
    }
    fn friction_coefficient(&self, contact_idx: usize) -> f64 {
        self.0.friction_coefficient(contact_idx)
    }
}

const SCENE_2D: &str = r#"
dimension = 2
gravity = [0.0, -9.81]
[material]
restitution = 0.5
friction = 0.3
[[body]]
name = "block"
mass = 2.0
inertia = 0.0417
shape = { type = "box", half_extents = [0.25, 0.25] }
position = [0.0, 0.3]
angle = 0.1
[[body]]
name = "disk"
mass = 0.7
inertia = 0.01
shape = { type = "sphere", radius = 0.2 }
position = [0.05, 1.0]
velocity = [0.0, -1.0]
[[body]]
name = "floor"
fixed = true
shape = { type = "halfspace", normal = [0.0, 1.0], offset = 0.0 }
"#;

const SCENE_3D: &str = r#"
dimension = 3
gravity = [0.0, -9.81, 0.0]
[material]
friction = 0.4
[[body]]
name = "low"
mass = 1.0
shape = { type = "sphere", radius = 0.5 }
position = [0.0, 0.6, 0.0]
[[body]]
name = "high"
mass = 3.0
shape = { type = "sphere", radius = 0.5 }
position = [0.1, 1.7, 0.05]
velocity = [0.0, -0.5, 0.0]
[[body]]
name = "floor"
fixed = true
shape = { type = "halfspace", normal = [0.0, 1.0, 0.0], offset = 0.0 }
"#;

fn compare(text: &str) {
    let model = SceneModel::new(Scene::from_toml_str(text).expect("scene")).expect("model");
    let (q, v) = model.initial_state();
    let start = Sample { t: 0.0, q, v };
    let solver = Registry::builtin().build("lemke").expect("lemke");
    let view = DenseView(&model);
    let mut p = SteppingParams::with_step(1e-3);
    p.sample_every = 0;
    let run = |sys: &dyn MechanicalSystem, stepper, n| {
        run_stepping(sys, stepper, solver.as_ref(), &start, n, &p, &mut NoObserver)
    };
    let mj = MoreauJean::default();
    let fast = run(&model, TimeStepper::MoreauJean(&model, mj), 600).expect("structured run");
    let dense = run(&view, TimeStepper::MoreauJean(&view, mj), 600).expect("dense run");
    let impacts = fast.steps.iter().filter(|s| s.n_active > 0).count();
    assert!(impacts > 50, "the run must have contact in many steps, had {impacts}");
    agree(&fast, &dense);
    let fast =
        run(&model, TimeStepper::PositionLcp(&model), 600).expect("structured position-level run");
    let dense = run(&view, TimeStepper::PositionLcp(&view), 600).expect("dense position-level run");
    agree(&fast, &dense);
    let dense =
        run(&view, TimeStepper::StewartTrinkle(&view), 300).expect("dense Stewart–Trinkle run");
    let fast = run(&model, TimeStepper::StewartTrinkle(&model), 300)
        .expect("structured Stewart–Trinkle run");
    agree(&fast, &dense);
}

fn agree(fast: &SteppingRun, dense: &SteppingRun) {
    assert_eq!(
        fast.steps.iter().map(|s| s.n_active).collect::<Vec<_>>(),
        dense.steps.iter().map(|s| s.n_active).collect::<Vec<_>>(),
        "active sets differ"
    );
    let scale = dense.q.iter().chain(&dense.v).fold(1.0_f64, |a, x| a.max(x.abs()));
    for (a, b) in fast.q.iter().chain(&fast.v).zip(dense.q.iter().chain(&dense.v)) {
        assert!((a - b).abs() <= 1e-10 * scale, "structured {a} vs dense {b}");
    }
}

#[test]
fn structured_and_dense_steps_agree_in_2d() {
    compare(SCENE_2D);
}

#[test]
fn structured_and_dense_steps_agree_in_3d() {
    compare(SCENE_3D);
}

/// A 3 x 3 x 3 lattice of touching spheres on a floor, masses 1..3 kg.
fn lattice_scene() -> Scene {
    let mut scene = Scene::new(signorini_contact::Dimension::Three, [0.0, -9.81, 0.0]);
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..3 {
                scene.bodies.push(signorini_contact::Body::rigid(
                    format!("g{i}{j}{k}"),
                    signorini_contact::Dimension::Three,
                    1.0 + ((i + j + k) % 3) as f64,
                    signorini_contact::Shape::Sphere { radius: 0.5 },
                    [i as f64, 0.5 + j as f64, k as f64],
                ));
            }
        }
    }
    scene.with_body(signorini_contact::Body::fixed(
        "floor",
        signorini_contact::Shape::HalfSpace { normal: [0.0, 1.0, 0.0], offset: 0.0 },
    ))
}

#[test]
fn broad_phase_candidates_give_the_all_pairs_trajectory() {
    let all = SceneModel::new(lattice_scene()).expect("model");
    let near = SceneModel::with_candidate_distance(lattice_scene(), 0.1).expect("model");
    // 27 spheres: 351 sphere pairs + 27 floor pairs. With d = 0.1 the broad phase keeps the
    // sphere pairs whose boxes (side 1, centres on the unit lattice) overlap once inflated by
    // 0.05, i.e. centres at most 1.1 apart along every axis (face, edge and corner neighbours),
    // and the floor with the bottom layer only.
    assert_eq!(all.n_contacts(), 351 + 27);
    let centres: Vec<[f64; 3]> = lattice_scene().bodies[..27].iter().map(|b| b.position).collect();
    let mut sphere_pairs = 0;
    for (a, pa) in centres.iter().enumerate() {
        for pb in &centres[a + 1..] {
            if (0..3).all(|d| (pa[d] - pb[d]).abs() <= 1.1) {
                sphere_pairs += 1;
            }
        }
    }
    assert_eq!(near.n_contacts(), sphere_pairs + 9);
    let solver = Registry::builtin().build("lemke").expect("lemke");
    let mut p = SteppingParams::with_step(1e-3);
    p.sample_every = 0;
    let (q, v) = all.initial_state();
    let start = Sample { t: 0.0, q, v };
    let mj = MoreauJean::default();
    let a = run_stepping(
        &all,
        TimeStepper::MoreauJean(&all, mj),
        solver.as_ref(),
        &start,
        200,
        &p,
        &mut NoObserver,
    )
    .expect("all-pairs run");
    let b = run_stepping(
        &near,
        TimeStepper::MoreauJean(&near, mj),
        solver.as_ref(),
        &start,
        200,
        &p,
        &mut NoObserver,
    )
    .expect("broad-phase run");
    assert!(a.steps.iter().all(|s| s.n_active >= 9), "the bottom layer rests on the floor");
    assert_eq!(
        a.steps.iter().map(|s| s.n_active).collect::<Vec<_>>(),
        b.steps.iter().map(|s| s.n_active).collect::<Vec<_>>()
    );
    let scale = a.q.iter().chain(&a.v).fold(1.0_f64, |m, x| m.max(x.abs()));
    for (x, y) in a.q.iter().chain(&a.v).zip(b.q.iter().chain(&b.v)) {
        assert!((x - y).abs() <= 1e-10 * scale, "all pairs {x} vs broad phase {y}");
    }
}

#[test]
fn a_bad_candidate_distance_is_an_error() {
    for d in [-1.0, f64::NAN, f64::INFINITY] {
        let e = SceneModel::with_candidate_distance(lattice_scene(), d).expect_err("bad d");
        assert!(e.to_string().contains("candidate_distance"), "{e}");
    }
}
