//! Scene files (TOML or JSON, same structure): dimension, gravity, margin, material defaults and
//! bodies with shapes, initial state and applied forces. Parsed with `deny_unknown_fields`, then
//! validated into a [`Scene`]; every error names the key and, for bodies, the body.
//!
//! The schema is written out in `docs/contact-scenes.md`.

use std::path::Path;

use serde::Deserialize;

use crate::body::{Body, BodyKind, Dimension};
use crate::error::SceneError;
use crate::math::{Quat, Vec3};
use crate::shape::Shape;

/// Contact material of every pair (one set of defaults per scene).
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// Newton restitution coefficient e in [0, 1] (default 0).
    pub restitution: f64,
    /// Coulomb friction coefficient μ >= 0 (default 0).
    pub friction: f64,
    /// Penalty stiffness k >= 0 in N/m, compliant models only (default: none).
    pub stiffness: Option<f64>,
    /// Damping coefficient c >= 0 in N s/m, compliant models only (default 0).
    pub damping: f64,
    /// Simulation key `impact_law` as written (`newton`, `poisson`, `inelastic`): kept for the
    /// time steppers of signorini-integrators, which validate it; assembly ignores it.
    pub impact_law: Option<String>,
    /// Simulation key `impact` as written (`simultaneous`, `sequential`): kept for
    /// signorini-integrators, which validates it; assembly ignores it.
    pub impact: Option<String>,
}

impl Default for Material {
    fn default() -> Self {
        Self {
            restitution: 0.0,
            friction: 0.0,
            stiffness: None,
            damping: 0.0,
            impact_law: None,
            impact: None,
        }
    }
}

/// A validated scene.
#[derive(Debug, Clone, PartialEq)]
pub struct Scene {
    /// 2 or 3.
    pub dimension: Dimension,
    /// Gravitational acceleration (z = 0 in 2D).
    pub gravity: Vec3,
    /// Contact margin: a gap d counts as closed when d <= margin (default 0).
    pub margin: f64,
    /// Material of every pair.
    pub material: Material,
    /// Bodies in file order.
    pub bodies: Vec<Body>,
}

impl Scene {
    /// An empty scene.
    pub fn new(dimension: Dimension, gravity: Vec3) -> Self {
        Self { dimension, gravity, margin: 0.0, material: Material::default(), bodies: Vec::new() }
    }

    /// Adds a body (builder style).
    pub fn with_body(mut self, body: Body) -> Self {
        self.bodies.push(body);
        self
    }

    /// Reads a `.toml` or `.json` scene file.
    pub fn from_path(path: impl AsRef<Path>) -> Result<Self, SceneError> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|source| SceneError::Io { path: shown.clone(), source })?;
        let with_path = |e: SceneError| match e {
            SceneError::Parse { format, message, .. } => {
                SceneError::Parse { path: Some(shown.clone()), format, message }
            }
            other => other,
        };
        match path.extension().and_then(|e| e.to_str()) {
            Some("toml") => Self::from_toml_str(&text).map_err(with_path),
            Some("json") => Self::from_json_str(&text).map_err(with_path),
            _ => Err(SceneError::UnknownExtension { path: shown }),
        }
    }

    /// Parses and validates TOML text.
    pub fn from_toml_str(text: &str) -> Result<Self, SceneError> {
        let file: SceneFile = toml::from_str(text).map_err(|e| SceneError::Parse {
            path: None,
            format: "TOML",
            message: toml_message(text, &e),
        })?;
        file.validate()
    }

    /// Parses and validates JSON text.
    pub fn from_json_str(text: &str) -> Result<Self, SceneError> {
        let file: SceneFile = serde_json::from_str(text).map_err(|e| SceneError::Parse {
            path: None,
            format: "JSON",
            message: signorini_lcp::formats::one_line(&e.to_string()),
        })?;
        file.validate()
    }
}

/// A number or a vector (2D scalars vs 3D vectors).
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum ScalarOrVector {
    Scalar(f64),
    Vector(Vec<f64>),
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct SceneFile {
    dimension: u32,
    gravity: Option<Vec<f64>>,
    margin: Option<f64>,
    material: Option<MaterialFile>,
    #[serde(default)]
    body: Vec<BodyFile>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct MaterialFile {
    restitution: Option<f64>,
    friction: Option<f64>,
    stiffness: Option<f64>,
    damping: Option<f64>,
    impact_law: Option<String>,
    impact: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, tag = "type", rename_all = "lowercase")]
enum ShapeFile {
    Sphere { radius: f64 },
    Box { half_extents: Vec<f64> },
    Halfspace { normal: Vec<f64>, offset: f64 },
    Capsule { half_length: f64, radius: f64 },
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct BodyFile {
    name: String,
    mass: Option<f64>,
    inertia: Option<ScalarOrVector>,
    shape: ShapeFile,
    position: Option<Vec<f64>>,
    angle: Option<f64>,
    orientation: Option<Vec<f64>>,
    velocity: Option<Vec<f64>>,
    angular_velocity: Option<ScalarOrVector>,
    force: Option<Vec<f64>>,
    fixed: Option<bool>,
    particle: Option<bool>,
}

fn invalid(body: Option<&str>, key: &str, message: impl Into<String>) -> SceneError {
    use signorini_lcp::formats::one_line;
    SceneError::Invalid {
        body: body.map(one_line),
        key: key.to_owned(),
        message: one_line(&message.into()),
    }
}

fn finite(body: Option<&str>, key: &str, v: f64) -> Result<f64, SceneError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(invalid(body, key, format!("{v} is not a finite number")))
    }
}

/// A vector of exactly `dim` finite entries, embedded in 3D.
fn vector(body: Option<&str>, key: &str, v: &[f64], dim: usize) -> Result<Vec3, SceneError> {
    if v.len() != dim {
        return Err(invalid(body, key, format!("has {} entries, expected {dim}", v.len())));
    }
    let mut out = [0.0; 3];
    for (k, &x) in v.iter().enumerate() {
        out[k] = finite(body, &format!("{key}[{k}]"), x)?;
    }
    Ok(out)
}

fn positive(body: Option<&str>, key: &str, v: f64) -> Result<f64, SceneError> {
    let v = finite(body, key, v)?;
    if v > 0.0 {
        Ok(v)
    } else {
        Err(invalid(body, key, format!("{v} must be positive")))
    }
}

fn nonnegative(body: Option<&str>, key: &str, v: f64) -> Result<f64, SceneError> {
    let v = finite(body, key, v)?;
    if v >= 0.0 {
        Ok(v)
    } else {
        Err(invalid(body, key, format!("{v} must not be negative")))
    }
}

/// A TOML error as `line L, column C: message` (1-based, from the error's byte span), without
/// the multi-line source excerpt toml's `Display` draws.
fn toml_message(text: &str, e: &toml::de::Error) -> String {
    let message = signorini_lcp::formats::one_line(&e.message().trim().replace('\n', " "));
    match e.span() {
        Some(span) => {
            let before = text.get(..span.start).unwrap_or(text);
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            format!("line {line}, column {column}: {message}")
        }
        None => message,
    }
}

impl SceneFile {
    fn validate(self) -> Result<Scene, SceneError> {
        let dimension = match self.dimension {
            2 => Dimension::Two,
            3 => Dimension::Three,
            d => return Err(invalid(None, "dimension", format!("{d}: expected 2 or 3"))),
        };
        let dim = dimension.as_usize();
        let gravity = match &self.gravity {
            Some(g) => vector(None, "gravity", g, dim)?,
            None => [0.0; 3],
        };
        let margin = nonnegative(None, "margin", self.margin.unwrap_or(0.0))?;
        let material = match self.material {
            Some(m) => {
                let restitution =
                    nonnegative(None, "material.restitution", m.restitution.unwrap_or(0.0))?;
                if restitution > 1.0 {
                    return Err(invalid(
                        None,
                        "material.restitution",
                        format!("{restitution} exceeds 1"),
                    ));
                }
                Material {
                    restitution,
                    friction: nonnegative(None, "material.friction", m.friction.unwrap_or(0.0))?,
                    stiffness: m
                        .stiffness
                        .map(|k| nonnegative(None, "material.stiffness", k))
                        .transpose()?,
                    damping: nonnegative(None, "material.damping", m.damping.unwrap_or(0.0))?,
                    impact_law: m.impact_law,
                    impact: m.impact,
                }
            }
            None => Material::default(),
        };
        let mut bodies: Vec<Body> = Vec::with_capacity(self.body.len());
        for (index, b) in self.body.into_iter().enumerate() {
            let body = b.validate(index, dimension)?;
            if bodies.iter().any(|o| o.name == body.name) {
                return Err(invalid(Some(&body.name), "name", "appears twice"));
            }
            bodies.push(body);
        }
        Ok(Scene { dimension, gravity, margin, material, bodies })
    }
}

impl BodyFile {
    fn validate(self, index: usize, dimension: Dimension) -> Result<Body, SceneError> {
        let dim = dimension.as_usize();
        if self.name.is_empty() {
            return Err(invalid(Some(&format!("#{index}")), "name", "must not be empty"));
        }
        let name = Some(self.name.as_str());
        let fixed = self.fixed.unwrap_or(false);
        let particle = self.particle.unwrap_or(false);
        if fixed && particle {
            return Err(invalid(name, "particle", "a body cannot be both fixed and a particle"));
        }
        let kind = if fixed {
            BodyKind::Fixed
        } else if particle {
            BodyKind::Particle
        } else {
            BodyKind::Rigid
        };
        let shape = match self.shape {
            ShapeFile::Sphere { radius } => {
                Shape::Sphere { radius: positive(name, "shape.radius", radius)? }
            }
            ShapeFile::Box { half_extents } => {
                let h = vector(name, "shape.half_extents", &half_extents, dim)?;
                for (k, &x) in h.iter().take(dim).enumerate() {
                    positive(name, &format!("shape.half_extents[{k}]"), x)?;
                }
                Shape::Box { half_extents: h }
            }
            ShapeFile::Halfspace { normal, offset } => {
                let n = vector(name, "shape.normal", &normal, dim)?;
                let len = crate::math::norm(n);
                if len <= 0.0 {
                    return Err(invalid(name, "shape.normal", "must not be zero"));
                }
                let offset = finite(name, "shape.offset", offset)?;
                // {n.x <= o} is the same set as {(n/|n|).x <= o/|n|}.
                Shape::HalfSpace { normal: n.map(|x| x / len), offset: offset / len }
            }
            ShapeFile::Capsule { half_length, radius } => Shape::Capsule {
                half_length: nonnegative(name, "shape.half_length", half_length)?,
                radius: positive(name, "shape.radius", radius)?,
            },
        };
        let mass = match (kind, self.mass) {
            (BodyKind::Fixed, Some(m)) => nonnegative(name, "mass", m)?,
            (BodyKind::Fixed, None) => 0.0,
            (_, Some(m)) => positive(name, "mass", m)?,
            (_, None) => {
                return Err(invalid(name, "mass", "is required for a body that is not fixed"))
            }
        };
        if !fixed && matches!(shape, Shape::HalfSpace { .. }) {
            return Err(invalid(name, "shape", "a half-space must be fixed"));
        }
        let inertia = match (dimension, self.inertia) {
            (_, None) => shape.uniform_inertia(mass, dimension),
            (Dimension::Two, Some(ScalarOrVector::Scalar(i))) => {
                [0.0, 0.0, positive(name, "inertia", i)?]
            }
            (Dimension::Three, Some(ScalarOrVector::Vector(v))) => {
                let i = vector(name, "inertia", &v, 3)?;
                for (k, &x) in i.iter().enumerate() {
                    positive(name, &format!("inertia[{k}]"), x)?;
                }
                i
            }
            (Dimension::Two, Some(ScalarOrVector::Vector(_))) => {
                return Err(invalid(
                    name,
                    "inertia",
                    "in 2D it is a scalar (about the centre of mass)",
                ))
            }
            (Dimension::Three, Some(ScalarOrVector::Scalar(_))) => {
                return Err(invalid(name, "inertia", "in 3D it is [Ixx, Iyy, Izz]"))
            }
        };
        let position = match &self.position {
            Some(p) => vector(name, "position", p, dim)?,
            None => [0.0; 3],
        };
        let orientation = match (dimension, self.angle, &self.orientation) {
            (Dimension::Two, Some(a), None) => Quat::from_angle_z(finite(name, "angle", a)?),
            (Dimension::Two, None, None) | (Dimension::Three, None, None) => Quat::IDENTITY,
            (Dimension::Two, _, Some(_)) => {
                return Err(invalid(name, "orientation", "is for 3D scenes; use `angle` in 2D"))
            }
            (Dimension::Three, Some(_), _) => {
                return Err(invalid(name, "angle", "is for 2D scenes; use `orientation` in 3D"))
            }
            (Dimension::Three, None, Some(q)) => {
                if q.len() != 4 {
                    return Err(invalid(
                        name,
                        "orientation",
                        format!("has {} entries, expected [w, x, y, z]", q.len()),
                    ));
                }
                let mut c = [0.0; 4];
                for (k, &x) in q.iter().enumerate() {
                    c[k] = finite(name, &format!("orientation[{k}]"), x)?;
                }
                let quat = Quat(c);
                let n = quat.norm();
                if (n - 1.0).abs() > 1e-9 {
                    return Err(invalid(
                        name,
                        "orientation",
                        format!("quaternion has norm {n}, must be a unit quaternion (within 1e-9)"),
                    ));
                }
                quat.normalized()
            }
        };
        let velocity = match &self.velocity {
            Some(v) => vector(name, "velocity", v, dim)?,
            None => [0.0; 3],
        };
        let angular_velocity = match (dimension, self.angular_velocity) {
            (_, None) => [0.0; 3],
            (Dimension::Two, Some(ScalarOrVector::Scalar(w))) => {
                [0.0, 0.0, finite(name, "angular_velocity", w)?]
            }
            (Dimension::Three, Some(ScalarOrVector::Vector(v))) => {
                vector(name, "angular_velocity", &v, 3)?
            }
            (Dimension::Two, Some(ScalarOrVector::Vector(_))) => {
                return Err(invalid(name, "angular_velocity", "in 2D it is a scalar"))
            }
            (Dimension::Three, Some(ScalarOrVector::Scalar(_))) => {
                return Err(invalid(name, "angular_velocity", "in 3D it is a vector [wx, wy, wz]"))
            }
        };
        let force = match &self.force {
            Some(f) => vector(name, "force", f, dim)?,
            None => [0.0; 3],
        };
        Ok(Body {
            name: self.name,
            kind,
            mass,
            inertia,
            shape,
            position,
            orientation,
            velocity,
            angular_velocity,
            force,
        })
    }
}
