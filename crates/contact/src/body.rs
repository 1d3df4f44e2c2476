//! Bodies: particles, rigid bodies (2D: x, y, θ; 3D: position + unit quaternion) and fixed
//! bodies, and the layout of their velocities in the generalised velocity vector v.
//!
//! Every body lives in 3D internally; a 2D scene is the z = 0 plane with rotations about z, so
//! one set of gap functions serves both. Angular velocities are in the world frame.

use crate::math::{Quat, Vec3};
use crate::shape::Shape;

/// Spatial dimension of a scene.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Dimension {
    /// Planar: x, y and a rotation angle about z.
    Two,
    /// Spatial: position and unit quaternion.
    Three,
}

impl Dimension {
    /// 2 or 3.
    pub fn as_usize(self) -> usize {
        match self {
            Dimension::Two => 2,
            Dimension::Three => 3,
        }
    }
}

/// How a body moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BodyKind {
    /// Translation and rotation (2D: 3 velocity components, 3D: 6).
    Rigid,
    /// Translation only (2D: 2, 3D: 3); the shape does not rotate.
    Particle,
    /// No degrees of freedom (floors, walls).
    Fixed,
}

/// One body of a scene, in validated form (see [`crate::scene`] for the file form).
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    /// Name (unique in a scene; reports use it).
    pub name: String,
    /// Particle, rigid or fixed.
    pub kind: BodyKind,
    /// Mass m > 0 (ignored for fixed bodies).
    pub mass: f64,
    /// Principal moments of inertia about the centre of mass in the body frame
    /// [Ixx, Iyy, Izz]; 2D uses Izz only.
    pub inertia: Vec3,
    /// Shape in the body frame.
    pub shape: Shape,
    /// Position of the centre of mass (z = 0 in 2D).
    pub position: Vec3,
    /// Orientation (a rotation about z in 2D).
    pub orientation: Quat,
    /// Linear velocity of the centre of mass.
    pub velocity: Vec3,
    /// Angular velocity in the world frame (only z in 2D).
    pub angular_velocity: Vec3,
    /// Constant applied force at the centre of mass, beside gravity.
    pub force: Vec3,
}

impl Body {
    /// A fixed body with the given shape at the origin.
    pub fn fixed(name: impl Into<String>, shape: Shape) -> Self {
        Self {
            name: name.into(),
            kind: BodyKind::Fixed,
            mass: 0.0,
            inertia: [0.0; 3],
            shape,
            position: [0.0; 3],
            orientation: Quat::IDENTITY,
            velocity: [0.0; 3],
            angular_velocity: [0.0; 3],
            force: [0.0; 3],
        }
    }

    /// A rigid body of mass m at `position`, with the inertia of a uniform solid of that shape
    /// in dimension `dim` ([`Shape::uniform_inertia`]).
    pub fn rigid(
        name: impl Into<String>,
        dim: Dimension,
        mass: f64,
        shape: Shape,
        position: Vec3,
    ) -> Self {
        Self {
            name: name.into(),
            kind: BodyKind::Rigid,
            mass,
            inertia: shape.uniform_inertia(mass, dim),
            shape,
            position,
            orientation: Quat::IDENTITY,
            velocity: [0.0; 3],
            angular_velocity: [0.0; 3],
            force: [0.0; 3],
        }
    }

    /// A particle (translation only) of mass m at `position`.
    pub fn particle(
        name: impl Into<String>,
        dim: Dimension,
        mass: f64,
        shape: Shape,
        position: Vec3,
    ) -> Self {
        Self { kind: BodyKind::Particle, ..Self::rigid(name, dim, mass, shape, position) }
    }

    /// Number of velocity components of this body in a scene of dimension `dim`.
    pub fn n_dofs(&self, dim: Dimension) -> usize {
        match (self.kind, dim) {
            (BodyKind::Fixed, _) => 0,
            (BodyKind::Particle, d) => d.as_usize(),
            (BodyKind::Rigid, Dimension::Two) => 3,
            (BodyKind::Rigid, Dimension::Three) => 6,
        }
    }

    /// Rotation matrix of the body frame.
    pub fn rotation(&self) -> [[f64; 3]; 3] {
        self.orientation.to_matrix()
    }
}

/// Where each body's velocity block sits in v: offset and size (0 for fixed bodies).
#[derive(Debug, Clone, PartialEq)]
pub struct DofLayout {
    /// Dimension of the scene.
    pub dimension: Dimension,
    /// Per body: (offset into v, number of components).
    pub blocks: Vec<(usize, usize)>,
    /// Total size of v.
    pub n_dofs: usize,
}

impl DofLayout {
    /// Lays the bodies out in order.
    pub fn new(dimension: Dimension, bodies: &[Body]) -> Self {
        let mut offset = 0;
        let blocks = bodies
            .iter()
            .map(|b| {
                let n = b.n_dofs(dimension);
                let block = (offset, n);
                offset += n;
                block
            })
            .collect();
        Self { dimension, blocks, n_dofs: offset }
    }

    /// Indices into a 3D spatial velocity [v_x, v_y, v_z, ω_x, ω_y, ω_z] of the components a
    /// body of this kind carries, in the order of its block of v.
    pub fn spatial_components(dimension: Dimension, kind: BodyKind) -> &'static [usize] {
        match (kind, dimension) {
            (BodyKind::Fixed, _) => &[],
            (BodyKind::Particle, Dimension::Two) => &[0, 1],
            (BodyKind::Particle, Dimension::Three) => &[0, 1, 2],
            (BodyKind::Rigid, Dimension::Two) => &[0, 1, 5],
            (BodyKind::Rigid, Dimension::Three) => &[0, 1, 2, 3, 4, 5],
        }
    }

    /// The generalised velocity v of the bodies' current state.
    pub fn velocity(&self, bodies: &[Body]) -> Vec<f64> {
        let mut v = vec![0.0; self.n_dofs];
        for (body, &(offset, _)) in bodies.iter().zip(&self.blocks) {
            let spatial = spatial_of(body.velocity, body.angular_velocity);
            for (k, &c) in Self::spatial_components(self.dimension, body.kind).iter().enumerate() {
                v[offset + k] = spatial[c];
            }
        }
        v
    }
}

/// [v, ω] as one 6-vector.
pub fn spatial_of(v: Vec3, w: Vec3) -> [f64; 6] {
    [v[0], v[1], v[2], w[0], w[1], w[2]]
}
