#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]
//! Multibody contact assembly: bodies, shapes, exact gap functions, Jacobians, Delassus matrices
//! W = J M^-1 J^T, the contact LCP at acceleration, velocity and position level (with the
//! Stewart–Trinkle / Anitescu–Potra polyhedral friction cone), compliant contact laws and scene
//! files.
//!
//! # Map
//!
//! - [`body`], [`shape`], [`math`]: bodies (particles, rigid, fixed), shapes, 3-vectors and
//!   quaternions. A 2D scene is the z = 0 plane with rotations about z, so one set of gap
//!   functions serves both dimensions.
//! - [`detect`]: uniform-grid broad phase and exact narrow phase ([`Contact`]: witness points,
//!   normal from b to a, gap), and J'v ([`detect::gap_acceleration_bias`]).
//! - [`jacobian`]: J with at most two body blocks per row ([`Jacobian`]); polyhedral friction
//!   directions.
//! - [`mass`]: the [`MassMatrix`] interface, [`BlockDiagonalMass`] (closed-form inverse blocks,
//!   parallel block Delassus assembly) and [`DenseMass`] (general SPD M, generic product).
//! - [`delassus`]: the matrix-free operator (apply J, apply M^-1 J^T).
//! - [`problem`]: the contact LCP at acceleration / velocity / position level, with or without
//!   friction, [`contact_problem`], [`solve_contact`] and the [`ContactReport`] of the CLI.
//! - [`compliant`]: penalty, Kelvin–Voigt and Hunt–Crossley laws.
//! - [`scene`]: scene files (schema in `docs/contact-scenes.md`).
//!
//! **API boundary**: this crate knows nothing of time integration; it poses one LCP for one
//! state. `signorini-lcp` knows nothing of bodies.
//!
//! # Usage
//!
//! ```
//! use signorini_contact::{contact_problem, Level, Scene};
//! let scene = Scene::from_toml_str(r#"
//! dimension = 2
//! gravity = [0.0, -9.81]
//! [[body]]
//! name = "block"
//! mass = 2.0
//! shape = { type = "box", half_extents = [0.25, 0.25] }
//! position = [0.0, 0.25]
//! force = [0.0, 5.0]
//! [[body]]
//! name = "floor"
//! fixed = true
//! shape = { type = "halfspace", normal = [0.0, 1.0], offset = 0.0 }
//! "#).unwrap();
//! let problem = contact_problem(&scene, Level::Acceleration, None, None).unwrap();
//! assert_eq!(problem.n_contacts(), 2); // two corners on the floor
//! ```

pub mod body;
pub mod compliant;
pub mod delassus;
pub mod detect;
pub mod error;
pub mod jacobian;
pub mod mass;
pub mod math;
pub mod packings;
pub mod problem;
pub mod scene;
pub mod shape;

pub use body::{Body, BodyKind, Dimension, DofLayout};
pub use delassus::{DelassusForm, DelassusOperator};
pub use detect::{broad_phase, detect_contacts, pair_contacts, Contact};
pub use error::{ContactError, SceneError};
pub use jacobian::{Coo, Csr, Jacobian, JacobianRow, RowBlock};
pub use mass::{BlockDiagonalMass, DenseMass, MassMatrix};
pub use math::{Quat, Vec3};
pub use problem::{
    contact_problem, contact_problem_with, coulomb_1d_lcp, coulomb_problem, generalized_force,
    solve_contact, stewart_trinkle, ContactEntry, ContactProblem, ContactReport, CooEntries,
    CoulombProblem, Level,
};
pub use scene::{Material, Scene};
pub use shape::Shape;

/// Reads a scene file (`.toml` or `.json`) from a path.
pub fn read_scene(path: impl AsRef<std::path::Path>) -> Result<Scene, SceneError> {
    Scene::from_path(path)
}
