//! Shapes in the body frame and their axis-aligned bounding boxes.

use crate::math::{add, mat_vec, sub, Vec3};

/// A shape in its body's frame (2D scenes use the z = 0 plane: a sphere is a disk, a box a
/// rectangle with `half_extents[2] = 0`, a half-space a half-plane with `normal[2] = 0`).
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    /// Ball (disk in 2D) centred at the body origin.
    Sphere {
        /// Radius r > 0.
        radius: f64,
    },
    /// Box (rectangle in 2D) centred at the body origin, axes along the body axes.
    Box {
        /// Half side lengths along the body axes (z = 0 in 2D).
        half_extents: Vec3,
    },
    /// The solid {x : normal . x <= offset} in the body frame, with unit `normal` pointing out
    /// of the solid.
    HalfSpace {
        /// Unit outward normal.
        normal: Vec3,
        /// Signed distance of the boundary from the body origin along `normal`.
        offset: f64,
    },
    /// Capsule (rod): the points within `radius` of the segment from -half_length to
    /// +half_length along the body x axis.
    Capsule {
        /// Half length of the core segment.
        half_length: f64,
        /// Radius r > 0.
        radius: f64,
    },
}

impl Shape {
    /// Name as in scene files.
    pub fn type_name(&self) -> &'static str {
        match self {
            Shape::Sphere { .. } => "sphere",
            Shape::Box { .. } => "box",
            Shape::HalfSpace { .. } => "halfspace",
            Shape::Capsule { .. } => "capsule",
        }
    }

    /// Principal moments [Ixx, Iyy, Izz] of a uniform solid of mass m with this shape, in a scene
    /// of dimension `dim`.
    ///
    /// 3D: sphere 2/5 m r²; box m/12 (b² + c², a² + c², a² + b²) with side lengths a, b, c;
    /// capsule: the solid cylinder of length 2 half_length + 2 r (an approximation: give
    /// `inertia` explicitly when it matters). 2D (Izz only): disk m r²/2, rectangle
    /// m (a² + b²)/12, capsule m (l² + 4 r²)/12 as for its bounding rectangle (approximation).
    /// A half-space has none (zeros).
    pub fn uniform_inertia(&self, m: f64, dim: crate::body::Dimension) -> Vec3 {
        if dim == crate::body::Dimension::Two {
            let izz = match *self {
                Shape::Sphere { radius } => 0.5 * m * radius * radius,
                Shape::Box { half_extents: h } => m * 4.0 * (h[0] * h[0] + h[1] * h[1]) / 12.0,
                Shape::Capsule { half_length, radius } => {
                    let l = 2.0 * (half_length + radius);
                    m * (l * l + 4.0 * radius * radius) / 12.0
                }
                Shape::HalfSpace { .. } => 0.0,
            };
            return [0.0, 0.0, izz];
        }
        match *self {
            Shape::Sphere { radius } => {
                let i = 0.4 * m * radius * radius;
                [i, i, i]
            }
            Shape::Box { half_extents: h } => {
                let (a, b, c) = (2.0 * h[0], 2.0 * h[1], 2.0 * h[2]);
                [m * (b * b + c * c) / 12.0, m * (a * a + c * c) / 12.0, m * (a * a + b * b) / 12.0]
            }
            Shape::Capsule { half_length, radius } => {
                let l = 2.0 * (half_length + radius);
                let axial = 0.5 * m * radius * radius;
                let transverse = m * (3.0 * radius * radius + l * l) / 12.0;
                [axial, transverse, transverse]
            }
            Shape::HalfSpace { .. } => [0.0; 3],
        }
    }

    /// World-frame AABB (min, max) of the shape at pose (x, R), inflated by `margin`; None for a
    /// half-space (unbounded).
    pub fn aabb(&self, x: Vec3, r: &[[f64; 3]; 3], margin: f64) -> Option<(Vec3, Vec3)> {
        let half: Vec3 = match *self {
            Shape::Sphere { radius } => [radius; 3],
            Shape::Box { half_extents: h } => {
                let mut e = [0.0; 3];
                for (i, ei) in e.iter_mut().enumerate() {
                    *ei = r[i][0].abs() * h[0] + r[i][1].abs() * h[1] + r[i][2].abs() * h[2];
                }
                e
            }
            Shape::Capsule { half_length, radius } => {
                let axis = mat_vec(r, [half_length, 0.0, 0.0]);
                [axis[0].abs() + radius, axis[1].abs() + radius, axis[2].abs() + radius]
            }
            Shape::HalfSpace { .. } => return None,
        };
        let half = half.map(|h| h + margin);
        Some((sub(x, half), add(x, half)))
    }
}
