//! Small 3-vector and unit-quaternion helpers; 2D scenes are embedded in the z = 0 plane.

/// A 3-vector.
pub type Vec3 = [f64; 3];

/// a + b.
pub fn add(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}

/// a - b.
pub fn sub(a: Vec3, b: Vec3) -> Vec3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// s a.
pub fn scale(s: f64, a: Vec3) -> Vec3 {
    [s * a[0], s * a[1], s * a[2]]
}

/// a . b.
pub fn dot(a: Vec3, b: Vec3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// a x b.
pub fn cross(a: Vec3, b: Vec3) -> Vec3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}

/// Euclidean norm.
pub fn norm(a: Vec3) -> f64 {
    dot(a, a).sqrt()
}

/// A unit quaternion [w, x, y, z] (scalar first), the orientation of a body frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quat(pub [f64; 4]);

impl Quat {
    /// The identity rotation.
    pub const IDENTITY: Quat = Quat([1.0, 0.0, 0.0, 0.0]);

    /// Rotation by `angle` about the z axis (the 2D angle).
    pub fn from_angle_z(angle: f64) -> Self {
        let (s, c) = (0.5 * angle).sin_cos();
        Quat([c, 0.0, 0.0, s])
    }

    /// Rotation exp(ω̂ t) as a quaternion, for a rotation vector `phi` = ω t (world frame).
    pub fn from_rotation_vector(phi: Vec3) -> Self {
        let theta = norm(phi);
        if theta < 1e-300 {
            return Self::IDENTITY;
        }
        let (s, c) = (0.5 * theta).sin_cos();
        let k = s / theta;
        Quat([c, k * phi[0], k * phi[1], k * phi[2]])
    }

    /// Hamilton product self * other.
    pub fn compose(self, o: Quat) -> Quat {
        let [a1, b1, c1, d1] = self.0;
        let [a2, b2, c2, d2] = o.0;
        Quat([
            a1 * a2 - b1 * b2 - c1 * c2 - d1 * d2,
            a1 * b2 + b1 * a2 + c1 * d2 - d1 * c2,
            a1 * c2 - b1 * d2 + c1 * a2 + d1 * b2,
            a1 * d2 + b1 * c2 - c1 * b2 + d1 * a2,
        ])
    }

    /// Euclidean norm of the four components.
    pub fn norm(self) -> f64 {
        self.0.iter().map(|v| v * v).sum::<f64>().sqrt()
    }

    /// This quaternion divided by its norm.
    pub fn normalized(self) -> Quat {
        let n = self.norm();
        Quat(self.0.map(|v| v / n))
    }

    /// The rotation matrix (rows are rows).
    pub fn to_matrix(self) -> [[f64; 3]; 3] {
        let [w, x, y, z] = self.0;
        [
            [1.0 - 2.0 * (y * y + z * z), 2.0 * (x * y - w * z), 2.0 * (x * z + w * y)],
            [2.0 * (x * y + w * z), 1.0 - 2.0 * (x * x + z * z), 2.0 * (y * z - w * x)],
            [2.0 * (x * z - w * y), 2.0 * (y * z + w * x), 1.0 - 2.0 * (x * x + y * y)],
        ]
    }
}

/// R a.
pub fn mat_vec(r: &[[f64; 3]; 3], a: Vec3) -> Vec3 {
    [dot(r[0], a), dot(r[1], a), dot(r[2], a)]
}

/// R^T a.
pub fn mat_t_vec(r: &[[f64; 3]; 3], a: Vec3) -> Vec3 {
    [
        r[0][0] * a[0] + r[1][0] * a[1] + r[2][0] * a[2],
        r[0][1] * a[0] + r[1][1] * a[1] + r[2][1] * a[2],
        r[0][2] * a[0] + r[1][2] * a[1] + r[2][2] * a[2],
    ]
}

/// The coordinate axis a that [`tangent_basis`] crosses with n: the first one less aligned with
/// n than 1/sqrt(3) (so |a × n| stays away from zero).
fn tangent_axis(n: Vec3) -> Vec3 {
    if n[0].abs() < 0.57735 {
        [1.0, 0.0, 0.0]
    } else if n[1].abs() < 0.57735 {
        [0.0, 1.0, 0.0]
    } else {
        [0.0, 0.0, 1.0]
    }
}

/// Two unit tangents completing the unit normal n to a right-handed frame (t1, t2, n);
/// deterministic, continuous away from n = ±e_x.
pub fn tangent_basis(n: Vec3) -> (Vec3, Vec3) {
    let a = tangent_axis(n);
    let t1 = cross(a, n);
    let t1 = scale(1.0 / norm(t1), t1);
    let t2 = cross(n, t1);
    (t1, t2)
}

/// Rates (ṫ1, ṫ2) of [`tangent_basis`] when n moves with rate ṅ (the same axis a is used):
/// t1 = (a × n)/|a × n|, ṫ1 = (I − t1 t1ᵀ)(a × ṅ)/|a × n|; t2 = n × t1, ṫ2 = ṅ × t1 + n × ṫ1.
pub fn tangent_basis_rate(n: Vec3, n_dot: Vec3) -> (Vec3, Vec3) {
    let a = tangent_axis(n);
    let u = cross(a, n);
    let len = norm(u);
    let t1 = scale(1.0 / len, u);
    let u_dot = cross(a, n_dot);
    let t1_dot = scale(1.0 / len, sub(u_dot, scale(dot(t1, u_dot), t1)));
    let t2_dot = add(cross(n_dot, t1), cross(n, t1_dot));
    (t1_dot, t2_dot)
}
