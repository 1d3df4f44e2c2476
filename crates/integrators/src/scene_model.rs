//! A signorini-contact [`Scene`] as a time-stepping model: [`SceneModel`] implements
//! [`MechanicalSystem`], [`ContactModel`] and [`FrictionModel`] with the contact crate's gap
//! functions, Jacobians and block-diagonal mass matrix, and [`PenaltyScene`] is the same scene
//! with a compliant (Kelvin–Voigt) normal law as a smooth ODE for the smooth integrators.
//!
//! **Coordinates.** Per non-fixed body, in scene order: 2D particle (x, y), 2D rigid (x, y, θ),
//! 3D particle (x, y, z), 3D rigid (x, y, z, φ) with φ a world-frame rotation vector and
//! R = exp(φ̂) R₀ (R₀ the initial orientation). Velocities are the contact crate's generalised
//! velocities (linear velocity, world angular velocity). The steppers advance q' = v, which is
//! exact in 2D and for 3D rotations about a fixed axis; for a general 3D tumble φ' = ω holds to
//! first order in |φ| only (a stated limitation of this adapter).
//!
//! **Contacts.** The contact set is fixed at construction: every pair of bodies that are not
//! both fixed, with every point feature of the pair (sphere centre, box vertices, capsule ends),
//! i.e. the contact crate's narrow phase with an infinite margin. Gaps may therefore be large
//! and positive; the steppers activate a contact by its gap. That set has O(n²) pairs; for
//! large scenes [`SceneModel::with_candidate_distance`] keeps only the pairs whose bounding
//! boxes are within a distance d at construction (the contact crate's grid broad phase, near
//! linear in n), which is exact as long as no two bodies that start further apart than d meet
//! during the run (a packing that settles, not a scene where bodies travel).
//!
//! **Contacts found at every step.** [`SceneModel::with_step_broad_phase`] has no fixed
//! contact set: the time steppers ask it for each step's contacts
//! ([`ContactModel::step_contacts`]), which it finds with the grid broad phase at q_k and keeps
//! the point features of each pair with gap d <= 2 h (s_a + s_b) + margin, where s is a bound
//! on the speed of any point of a body over the step (|v| + h |g + f/m| + |ω| r, r the radius
//! of the body's bounding box about its centre, 0 for fixed bodies). Because |J v| <= s_a + s_b
//! for every normal row, this keeps every contact that Moreau–Jean's activation test
//! g + γ h J v_k <= tol (γ <= 1, tol <= margin) can switch on and every one the impact report
//! can see, so Moreau–Jean takes exactly the steps of the every-pair model, at data linear in
//! bodies and contacts. Stewart–Trinkle and the position-level LCP pose their LCP over the
//! step's contacts instead of every pair: a contact further away than the bound, which the
//! all-pairs LCP would keep at zero impulse unless an impulse inside the same step throws a
//! body across the gap, waits for the next step. Contacts are identified by
//! [`ContactId::Feature`] (bodies and feature), so warm starts follow them across steps.

use faer::Mat;
use signorini_contact::detect::{gap_acceleration_bias, pair_contacts};
use signorini_contact::jacobian::Jacobian;
use signorini_contact::{
    broad_phase, generalized_force, BlockDiagonalMass, Body, BodyKind, Contact, ContactError,
    Dimension, DofLayout, MassMatrix, Quat, Scene, SceneError,
};

use crate::model::{ContactId, ContactModel, MechanicalSystem, StepContacts, StepRows};
use crate::stewart_trinkle::FrictionModel;
use crate::system::{SecondOrderSystem, SystemError};

/// A scene as a rigid-contact model (see the module documentation for the coordinates).
#[derive(Debug, Clone)]
pub struct SceneModel {
    scene: Scene,
    layout: DofLayout,
    reference: Vec<Quat>,
    pairs: Vec<(usize, usize)>,
    n_contacts: usize,
    restitution: f64,
    friction_directions: usize,
    per_step: Option<PerStep>,
}

/// What [`SceneModel::with_step_broad_phase`] keeps to find each step's contacts.
#[derive(Debug, Clone)]
struct PerStep {
    /// The length added to every pair's reach (scene length unit).
    margin: f64,
    /// Per body: the radius of its bounding box about its centre (0 for half-spaces).
    radius: Vec<f64>,
}

/// The default margin of [`SceneModel::with_step_broad_phase`], in the scene's length unit:
/// far above round-off in a resting contact's gap, far below any body's size in the scenes of
/// the repository.
pub const DEFAULT_STEP_CONTACT_MARGIN: f64 = 1e-6;

impl SceneModel {
    /// Builds the model with every pair of bodies as a contact candidate; fails when a pair of
    /// shapes has no narrow phase.
    pub fn new(scene: Scene) -> Result<Self, ContactError> {
        let n = scene.bodies.len();
        let all = (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j)));
        Self::with_candidates(scene, all)
    }

    /// Builds the model with the pairs whose bounding boxes, each inflated by d / 2, overlap in
    /// the initial state (so bounding boxes at most d apart; half-spaces pair with every bounded
    /// body) as the only contact candidates. Errors when d is not a finite number >= 0 or a pair
    /// of shapes has no narrow phase.
    pub fn with_candidate_distance(scene: Scene, d: f64) -> Result<Self, ContactError> {
        if !(d.is_finite() && d >= 0.0) {
            return Err(ContactError::Scene(SceneError::Invalid {
                body: None,
                key: "candidate_distance".into(),
                message: format!("{d}: must be a finite number >= 0"),
            }));
        }
        let pairs = broad_phase(&scene.bodies, 0.5 * d);
        Self::with_candidates(scene, pairs)
    }

    fn with_candidates(
        scene: Scene,
        candidates: impl IntoIterator<Item = (usize, usize)>,
    ) -> Result<Self, ContactError> {
        let dim = scene.dimension;
        let layout = DofLayout::new(dim, &scene.bodies);
        let reference = scene.bodies.iter().map(|b| b.orientation).collect();
        let mut pairs = Vec::new();
        let mut n_contacts = 0;
        for (i, j) in candidates {
            let c = pair_contacts(&scene.bodies, dim, i, j, f64::INFINITY)?;
            if !c.is_empty() {
                n_contacts += c.len();
                pairs.push((i, j));
            }
        }
        let restitution = scene.material.restitution;
        let friction_directions = match dim {
            Dimension::Two => 2,
            Dimension::Three => 4,
        };
        Ok(Self {
            scene,
            layout,
            reference,
            pairs,
            n_contacts,
            restitution,
            friction_directions,
            per_step: None,
        })
    }

    /// Builds the model without a fixed contact set: the time steppers get each step's
    /// contacts from the grid broad phase at that step (see the module documentation), with
    /// `margin` (scene length unit, finite, >= 0) added to every pair's reach. Its fixed-set
    /// methods ([`ContactModel::n_contacts`], [`ContactModel::gaps`], ...) describe no contact,
    /// so the event-driven and penalty schemes need one of the other constructors. Errors when
    /// the margin is not a finite number >= 0 or a pair of shapes near each other in the
    /// initial state has no narrow phase.
    pub fn with_step_broad_phase(scene: Scene, margin: f64) -> Result<Self, ContactError> {
        if !(margin.is_finite() && margin >= 0.0) {
            return Err(ContactError::Scene(SceneError::Invalid {
                body: None,
                key: "step_contact_margin".into(),
                message: format!("{margin}: must be a finite number >= 0"),
            }));
        }
        let identity = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let radius = scene
            .bodies
            .iter()
            .map(|b| match b.shape.aabb([0.0; 3], &identity, 0.0) {
                Some((_, hi)) => hi.iter().map(|x| x * x).sum::<f64>().sqrt(),
                None => 0.0,
            })
            .collect();
        for (i, j) in broad_phase(&scene.bodies, margin) {
            pair_contacts(&scene.bodies, scene.dimension, i, j, margin)?;
        }
        let mut model = Self::with_candidates(scene, std::iter::empty())?;
        model.per_step = Some(PerStep { margin, radius });
        Ok(model)
    }

    /// Whether the model finds its contacts at every step
    /// ([`SceneModel::with_step_broad_phase`]).
    pub fn finds_contacts_every_step(&self) -> bool {
        self.per_step.is_some()
    }

    /// The candidate pairs of a step from (q, v) with step h, each with its reach (see the
    /// module documentation), and the bodies at (q, v).
    fn step_pairs(
        &self,
        per: &PerStep,
        (q, v): (&[f64], &[f64]),
        h: f64,
    ) -> (Vec<Body>, Vec<(usize, usize, f64)>) {
        let bodies = self.bodies_at(q, v);
        let g = self.scene.gravity;
        let norm = |x: [f64; 3]| x.iter().map(|c| c * c).sum::<f64>().sqrt();
        let speed: Vec<f64> = bodies
            .iter()
            .zip(&per.radius)
            .map(|(b, &r)| match b.kind {
                BodyKind::Fixed => 0.0,
                kind => {
                    let a = [0, 1, 2].map(|k| g[k] + b.force[k] / b.mass);
                    let spin =
                        if kind == BodyKind::Rigid { norm(b.angular_velocity) * r } else { 0.0 };
                    norm(b.velocity) + h * norm(a) + spin
                }
            })
            .collect();
        let fastest = speed.iter().copied().fold(0.0, f64::max);
        let pairs = broad_phase(&bodies, 2.0 * h * fastest + 0.5 * per.margin)
            .into_iter()
            .map(|(i, j)| (i, j, 2.0 * h * (speed[i] + speed[j]) + per.margin))
            .collect();
        (bodies, pairs)
    }

    /// The number of contacts on every body in the first step from the initial state with
    /// step h, for a model built by [`SceneModel::with_step_broad_phase`] (None for the other
    /// constructors): the figures a memory estimate needs, counted without keeping the
    /// contacts.
    pub fn initial_step_contacts_per_body(
        &self,
        h: f64,
    ) -> Option<Result<Vec<usize>, ContactError>> {
        let per = self.per_step.as_ref()?;
        let (q, v) = self.initial_state();
        let (bodies, pairs) = self.step_pairs(per, (&q, &v), h);
        let mut count = vec![0; bodies.len()];
        for (i, j, reach) in pairs {
            match pair_contacts(&bodies, self.scene.dimension, i, j, reach) {
                Ok(c) => {
                    for c in c {
                        count[c.body_a] += 1;
                        count[c.body_b] += 1;
                    }
                }
                Err(e) => return Some(Err(e)),
            }
        }
        Some(Ok(count))
    }

    /// A step's contacts from a model built by [`SceneModel::with_step_broad_phase`].
    fn find_step_contacts(
        &self,
        per: &PerStep,
        (q, v): (&[f64], &[f64]),
        h: f64,
        rows: StepRows,
    ) -> Result<StepContacts, ContactError> {
        let (bodies, pairs) = self.step_pairs(per, (q, v), h);
        let mut contacts = Vec::new();
        for (i, j, reach) in pairs {
            contacts.extend(pair_contacts(&bodies, self.scene.dimension, i, j, reach)?);
        }
        let rows = match rows {
            StepRows::Normal => Jacobian::normal(&self.layout, &bodies, &contacts),
            StepRows::NormalAndTangent => {
                Jacobian::with_friction(&self.layout, &bodies, &contacts, self.friction_directions)
            }
        };
        let n_c = contacts.len();
        Ok(StepContacts {
            ids: contacts
                .iter()
                .map(|c| ContactId::Feature {
                    body_a: c.body_a,
                    body_b: c.body_b,
                    feature: c.feature,
                })
                .collect(),
            gaps: contacts.iter().map(|c| c.gap).collect(),
            restitution: vec![self.restitution; n_c],
            friction: vec![self.scene.material.friction; n_c],
            rows,
        })
    }

    /// The scene (initial state).
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// The velocity layout (the same layout indexes q).
    pub fn layout(&self) -> &DofLayout {
        &self.layout
    }

    /// Overrides the restitution of every contact (e.g. 0 for the perfectly inelastic law).
    pub fn set_restitution(&mut self, e: f64) {
        self.restitution = e;
    }

    /// Sets the number k of friction-cone directions (2 in 2D; >= 3 in 3D).
    pub fn set_friction_directions(&mut self, k: usize) {
        self.friction_directions = k;
    }

    /// Initial (q, v).
    pub fn initial_state(&self) -> (Vec<f64>, Vec<f64>) {
        let dim = self.scene.dimension;
        let mut q = vec![0.0; self.layout.n_dofs];
        for (b, &(offset, len)) in self.scene.bodies.iter().zip(&self.layout.blocks) {
            let d = dim.as_usize();
            if len == 0 {
                continue;
            }
            q[offset..offset + d].copy_from_slice(&b.position[..d]);
            if b.kind == BodyKind::Rigid && dim == Dimension::Two {
                let [w, _, _, z] = b.orientation.0;
                q[offset + 2] = 2.0 * z.atan2(w);
            }
            // 3D rigid: φ = 0 relative to the reference orientation.
        }
        (q, self.layout.velocity(&self.scene.bodies))
    }

    /// The bodies at state (q, v).
    pub fn bodies_at(&self, q: &[f64], v: &[f64]) -> Vec<Body> {
        let dim = self.scene.dimension;
        let d = dim.as_usize();
        let mut bodies = self.scene.bodies.clone();
        for (k, (b, &(offset, len))) in bodies.iter_mut().zip(&self.layout.blocks).enumerate() {
            if len == 0 {
                continue;
            }
            b.position = [0.0; 3];
            b.velocity = [0.0; 3];
            b.position[..d].copy_from_slice(&q[offset..offset + d]);
            b.velocity[..d].copy_from_slice(&v[offset..offset + d]);
            if b.kind != BodyKind::Rigid {
                continue;
            }
            match dim {
                Dimension::Two => {
                    b.orientation = Quat::from_angle_z(q[offset + 2]);
                    b.angular_velocity = [0.0, 0.0, v[offset + 2]];
                }
                Dimension::Three => {
                    let phi = [q[offset + 3], q[offset + 4], q[offset + 5]];
                    b.orientation =
                        Quat::from_rotation_vector(phi).compose(self.reference[k]).normalized();
                    b.angular_velocity = [v[offset + 3], v[offset + 4], v[offset + 5]];
                }
            }
        }
        bodies
    }

    /// Every potential contact at (q, v), in the fixed order of the model.
    pub fn contacts_at(&self, bodies: &[Body]) -> Vec<Contact> {
        let dim = self.scene.dimension;
        let mut out = Vec::with_capacity(self.n_contacts);
        for &(i, j) in &self.pairs {
            // The pairs were checked at construction, so the narrow phase exists.
            if let Ok(c) = pair_contacts(bodies, dim, i, j, f64::INFINITY) {
                out.extend(c);
            }
        }
        debug_assert_eq!(out.len(), self.n_contacts);
        out
    }

    /// The (body a, body b) names of a contact.
    pub fn contact_bodies(&self, contact_idx: usize) -> (String, String) {
        let (q, v) = self.initial_state();
        let bodies = self.bodies_at(&q, &v);
        let c = self.contacts_at(&bodies);
        match c.get(contact_idx) {
            Some(c) => (bodies[c.body_a].name.clone(), bodies[c.body_b].name.clone()),
            None => (String::new(), String::new()),
        }
    }

    /// The (body a, body b) scene indices of every contact, in the model's order.
    pub fn contact_body_indices(&self) -> Vec<(usize, usize)> {
        let (q, v) = self.initial_state();
        self.contacts_at(&self.bodies_at(&q, &v)).iter().map(|c| (c.body_a, c.body_b)).collect()
    }

    /// The block-diagonal mass matrix M(q) with its exact inverse blocks.
    pub fn block_mass(&self, q: &[f64]) -> BlockDiagonalMass {
        let v = vec![0.0; q.len()];
        BlockDiagonalMass::new(&self.layout, &self.bodies_at(q, &v))
    }

    /// The gaps and the sparse normal Jacobian at q, from one contact evaluation.
    pub fn gaps_and_rows(&self, q: &[f64]) -> (Vec<f64>, Jacobian) {
        let v = vec![0.0; q.len()];
        let bodies = self.bodies_at(q, &v);
        let contacts = self.contacts_at(&bodies);
        let gaps = contacts.iter().map(|c| c.gap).collect();
        (gaps, Jacobian::normal(&self.layout, &bodies, &contacts))
    }

    /// Kinetic energy ½ vᵀ M v at (q, v).
    pub fn kinetic_energy(&self, q: &[f64], v: &[f64]) -> f64 {
        let mass = BlockDiagonalMass::new(&self.layout, &self.bodies_at(q, v));
        let mut mv = vec![0.0; v.len()];
        mass.apply(v, &mut mv);
        0.5 * v.iter().zip(&mv).map(|(a, b)| a * b).sum::<f64>()
    }

    fn dense_rows(&self, rows: &[signorini_contact::JacobianRow]) -> Mat<f64> {
        let mut m = Mat::zeros(rows.len(), self.layout.n_dofs);
        for (i, r) in rows.iter().enumerate() {
            for b in r.blocks() {
                for (k, &a) in b.as_slice().iter().enumerate() {
                    m[(i, b.offset + k)] += a;
                }
            }
        }
        m
    }

    fn forces_at(&self, bodies: Vec<Body>) -> Vec<f64> {
        let scene = Scene { bodies, ..self.scene.clone() };
        generalized_force(&scene, &self.layout)
    }
}

impl MechanicalSystem for SceneModel {
    fn n_dof(&self) -> usize {
        self.layout.n_dofs
    }
    fn mass_matrix(&self, q: &[f64]) -> Mat<f64> {
        let v = vec![0.0; q.len()];
        let mass = BlockDiagonalMass::new(&self.layout, &self.bodies_at(q, &v));
        let n = self.layout.n_dofs;
        let mut m = Mat::zeros(n, n);
        let mut e = vec![0.0; n];
        let mut col = vec![0.0; n];
        for j in 0..n {
            e[j] = 1.0;
            mass.apply(&e, &mut col);
            e[j] = 0.0;
            for i in 0..n {
                m[(i, j)] = col[i];
            }
        }
        m
    }
    fn forces(&self, _t: f64, q: &[f64], v: &[f64]) -> Vec<f64> {
        self.forces_at(self.bodies_at(q, v))
    }
    fn mass_operator(&self, q: &[f64]) -> Option<Box<dyn MassMatrix>> {
        Some(Box::new(self.block_mass(q)))
    }
}

impl ContactModel for SceneModel {
    fn n_contacts(&self) -> usize {
        self.n_contacts
    }
    fn gaps(&self, q: &[f64]) -> Vec<f64> {
        let v = vec![0.0; q.len()];
        self.contacts_at(&self.bodies_at(q, &v)).iter().map(|c| c.gap).collect()
    }
    fn jacobian(&self, q: &[f64]) -> Mat<f64> {
        let v = vec![0.0; q.len()];
        let bodies = self.bodies_at(q, &v);
        let contacts = self.contacts_at(&bodies);
        let j = Jacobian::normal(&self.layout, &bodies, &contacts);
        self.dense_rows(&j.rows)
    }
    fn jacobian_rows(&self, q: &[f64]) -> Option<Jacobian> {
        Some(self.gaps_and_rows(q).1)
    }
    fn restitution(&self, _contact_idx: usize) -> f64 {
        self.restitution
    }
    fn jacobian_rate_times_velocity(&self, q: &[f64], v: &[f64]) -> Vec<f64> {
        let bodies = self.bodies_at(q, v);
        let dim = self.scene.dimension;
        self.contacts_at(&bodies).iter().map(|c| gap_acceleration_bias(&bodies, dim, c)).collect()
    }
    fn step_contacts(
        &self,
        q: &[f64],
        v: &[f64],
        h: f64,
        rows: StepRows,
    ) -> Option<Result<StepContacts, ContactError>> {
        let per = self.per_step.as_ref()?;
        Some(self.find_step_contacts(per, (q, v), h, rows))
    }
}

impl FrictionModel for SceneModel {
    fn n_directions(&self) -> usize {
        self.friction_directions
    }
    fn tangent_jacobian(&self, q: &[f64]) -> Mat<f64> {
        let v = vec![0.0; q.len()];
        let bodies = self.bodies_at(q, &v);
        let contacts = self.contacts_at(&bodies);
        let j = Jacobian::with_friction(&self.layout, &bodies, &contacts, self.friction_directions);
        self.dense_rows(&j.rows[contacts.len()..])
    }
    fn tangent_rows(&self, q: &[f64]) -> Option<Jacobian> {
        let v = vec![0.0; q.len()];
        let bodies = self.bodies_at(q, &v);
        let contacts = self.contacts_at(&bodies);
        let mut j =
            Jacobian::with_friction(&self.layout, &bodies, &contacts, self.friction_directions);
        j.rows.drain(..contacts.len());
        Some(j)
    }
    fn friction_coefficient(&self, _contact_idx: usize) -> f64 {
        self.scene.material.friction
    }
}

/// The scene with the Kelvin–Voigt normal law N = max(k δ + c δ', 0) (δ = max(−d, 0), k the
/// material stiffness, c its damping) on every contact: v' = M⁻¹ (f + Jᵀ N), a smooth ODE
/// for [`crate::smooth`] (no friction).
#[derive(Debug, Clone)]
pub struct PenaltyScene {
    /// The rigid model whose gaps and Jacobian are used.
    pub model: SceneModel,
    /// Stiffness k (N/m).
    pub stiffness: f64,
    /// Damping c (N s/m).
    pub damping: f64,
}

impl PenaltyScene {
    /// The normal force N_i = max(k δ + c δ', 0) of every contact at (q, v).
    pub fn normal_forces(&self, q: &[f64], v: &[f64]) -> Vec<f64> {
        let m = &self.model;
        let bodies = m.bodies_at(q, v);
        let contacts = m.contacts_at(&bodies);
        let j = Jacobian::normal(&m.layout, &bodies, &contacts);
        let rates = j.apply(v);
        contacts
            .iter()
            .zip(&rates)
            .map(|(c, &r)| {
                signorini_contact::compliant::kelvin_voigt(self.stiffness, self.damping, c.gap, r)
            })
            .collect()
    }

    /// The energy stored in the springs, Σ ½ k δ_i² with δ_i = max(−d_i, 0). With it,
    /// T + V_gravity + V_elastic does not grow along exact solutions for c >= 0: its rate is
    /// −c δ'² where the force is k δ + c δ' and k δ δ' < 0 where the force is clamped at 0.
    pub fn elastic_energy(&self, q: &[f64]) -> f64 {
        use crate::model::ContactModel as _;
        self.model.gaps(q).iter().map(|d| 0.5 * self.stiffness * d.min(0.0).powi(2)).sum()
    }
}

impl SecondOrderSystem for PenaltyScene {
    fn dim(&self) -> usize {
        self.model.layout.n_dofs
    }
    fn acceleration(&self, t: f64, x: &[f64], v: &[f64], a: &mut [f64]) -> Result<(), SystemError> {
        let m = &self.model;
        let bodies = m.bodies_at(x, v);
        let contacts = m.contacts_at(&bodies);
        let j = Jacobian::normal(&m.layout, &bodies, &contacts);
        let rates = j.apply(v);
        let normal: Vec<f64> = contacts
            .iter()
            .zip(&rates)
            .map(|(c, &r)| {
                signorini_contact::compliant::kelvin_voigt(self.stiffness, self.damping, c.gap, r)
            })
            .collect();
        let jt = j.apply_transpose(&normal);
        let mass = BlockDiagonalMass::new(&m.layout, &bodies);
        let f = m.forces_at(bodies);
        let total: Vec<f64> = f.iter().zip(&jt).map(|(f, r)| f + r).collect();
        mass.apply_inverse(&total, a);
        if a.iter().all(|x| x.is_finite()) {
            Ok(())
        } else {
            Err(SystemError { t, message: "non-finite acceleration".into() })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BALL: &str = r#"
dimension = 2
gravity = [0.0, -9.81]
[material]
restitution = 0.5
[[body]]
name = "ball"
mass = 1.0
shape = { type = "sphere", radius = 0.1 }
position = [0.0, 1.1]
[[body]]
name = "floor"
fixed = true
shape = { type = "halfspace", normal = [0.0, 1.0], offset = 0.0 }
"#;

    #[test]
    fn ball_gap_jacobian_and_forces() {
        let model = SceneModel::new(Scene::from_toml_str(BALL).unwrap()).unwrap();
        let (q, v) = model.initial_state();
        assert_eq!(q.len(), 3);
        assert_eq!(model.n_contacts(), 1);
        let g = model.gaps(&q);
        assert!((g[0] - 1.0).abs() < 1e-12);
        let j = model.jacobian(&q);
        assert!((j[(0, 1)] - 1.0).abs() < 1e-12 && j[(0, 0)].abs() < 1e-12);
        let f = model.forces(0.0, &q, &v);
        assert!((f[1] + 9.81).abs() < 1e-12);
        let m = model.mass_matrix(&q);
        assert!((m[(2, 2)] - 0.5 * 0.01).abs() < 1e-15);
    }

    #[test]
    fn tilted_box_gaps_follow_the_angle() {
        let text = r#"
dimension = 2
gravity = [0.0, -9.81]
[[body]]
name = "box"
mass = 1.0
shape = { type = "box", half_extents = [0.5, 0.25] }
position = [0.0, 1.0]
[[body]]
name = "floor"
fixed = true
shape = { type = "halfspace", normal = [0.0, 1.0], offset = 0.0 }
"#;
        let model = SceneModel::new(Scene::from_toml_str(text).unwrap()).unwrap();
        let (mut q, _) = model.initial_state();
        assert_eq!(model.n_contacts(), 4);
        q[2] = std::f64::consts::FRAC_PI_2;
        let lowest = model.gaps(&q).into_iter().fold(f64::INFINITY, f64::min);
        assert!((lowest - 0.5).abs() < 1e-12, "lowest gap {lowest}");
    }
}
