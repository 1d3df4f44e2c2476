//! Time stepping of a scene model through its block structure (block-diagonal M^-1, sparse J,
//! the contact crate's assembly of W, a sparse LCP) with Moreau–Jean, the position-level LCP and
//! Stewart–Trinkle, against the same model seen only through
//! its dense M(q) and J(q): the trajectories agree to round-off.

use faer::Mat;
use signorini_contact::Scene;
use signorini_integrators::{
    simulate_moreau_jean, simulate_position_lcp, simulate_stewart_trinkle, ContactModel,
    FrictionModel, MechanicalSystem, MoreauJeanParams, MoreauJeanRun, PositionLcpParams,
    SceneModel, StewartTrinkleParams,
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
    let (q0, v0) = model.initial_state();
    let solver = Registry::builtin().build("lemke").expect("lemke");
    let view = DenseView(&model);
    let mut p = MoreauJeanParams::with_step(1e-3);
    p.sample_every = 0;
    let fast = simulate_moreau_jean(&model, &model, solver.as_ref(), 0.0, &q0, &v0, 600, &p)
        .expect("structured run");
    let dense = simulate_moreau_jean(&view, &view, solver.as_ref(), 0.0, &q0, &v0, 600, &p)
        .expect("dense run");
    let impacts = fast.steps.iter().filter(|s| s.n_active > 0).count();
    assert!(impacts > 50, "the run must have contact in many steps, had {impacts}");
    agree(&fast, &dense);
    let mut p = PositionLcpParams::with_step(1e-3);
    p.sample_every = 0;
    let fast = simulate_position_lcp(&model, &model, solver.as_ref(), 0.0, &q0, &v0, 600, &p)
        .expect("structured position-level run");
    let dense = simulate_position_lcp(&view, &view, solver.as_ref(), 0.0, &q0, &v0, 600, &p)
        .expect("dense position-level run");
    agree(&fast, &dense);
    let mut p = StewartTrinkleParams::with_step(1e-3);
    p.sample_every = 0;
    let dense = simulate_stewart_trinkle(&view, &view, solver.as_ref(), 0.0, &q0, &v0, 300, &p)
        .expect("dense Stewart–Trinkle run");
    let fast = simulate_stewart_trinkle(&model, &model, solver.as_ref(), 0.0, &q0, &v0, 300, &p)
        .expect("structured Stewart–Trinkle run");
    agree(&fast, &dense);
}

fn agree(fast: &MoreauJeanRun, dense: &MoreauJeanRun) {
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
