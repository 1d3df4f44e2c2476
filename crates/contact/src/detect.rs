//! Contact detection: a uniform-grid broad phase and exact narrow-phase gap functions.
//!
//! Every supported pair reduces to a *point feature* of body a (a sphere centre with its
//! radius, a box vertex with radius 0, a capsule end point with the capsule radius) against a
//! *surface* of body b (half-space, sphere, box). The gap is the signed distance of the point
//! to the surface minus the point's radius; the normal points from b to a; the witness points
//! `point_a`, `point_b` are the closest points on each body, so that the rigid-body formula
//! d' = n . (v_a(point_a) - v_b(point_b)) is the exact derivative of the gap.
//!
//! Pairs: sphere–sphere, sphere–half-space, box–half-space (one contact per vertex),
//! capsule–half-space (one per end point), sphere–capsule (the sphere centre against the
//! capsule's core segment: distance to its closest point minus both radii), capsule–capsule (the
//! closest points of the two core segments: one contact), sphere–box, and box–box as vertex–box in both
//! directions (vertex–face contacts only: edge–edge contacts are not detected, and coincident
//! corners give the face of the lowest axis index). Other pairs are an error
//! ([`ContactError::UnsupportedPair`]).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::body::{Body, BodyKind, Dimension};
use crate::error::ContactError;
use crate::math::{add, cross, dot, mat_t_vec, mat_vec, norm, scale, sub, Vec3};
use crate::shape::Shape;

/// One closed contact (gap <= margin) between two bodies.
#[derive(Debug, Clone, PartialEq)]
pub struct Contact {
    /// Index of body a (the point feature's owner; the normal points towards it).
    pub body_a: usize,
    /// Index of body b (the surface owner).
    pub body_b: usize,
    /// Which feature of the pair (vertex or end-point index, 0 for smooth pairs).
    pub feature: usize,
    /// Closest point on body a (world frame).
    pub point_a: Vec3,
    /// Closest point on body b (world frame).
    pub point_b: Vec3,
    /// Unit contact normal, from b to a.
    pub normal: Vec3,
    /// Signed gap d (negative: penetration).
    pub gap: f64,
}

impl Contact {
    /// Midpoint of the two witness points (the reported contact point).
    pub fn point(&self) -> Vec3 {
        scale(0.5, add(self.point_a, self.point_b))
    }
}

/// A point feature of a body: material point and radius.
#[derive(Debug, Clone, Copy)]
struct PointFeature {
    point: Vec3,
    radius: f64,
}

/// Point features of a shape (sphere: its centre; box: its vertices; capsule: its end points).
fn point_features(body: &Body, dim: Dimension) -> Vec<PointFeature> {
    let r = body.rotation();
    let x = body.position;
    match body.shape {
        Shape::Sphere { radius } => vec![PointFeature { point: x, radius }],
        Shape::Box { half_extents: h } => {
            let n_vertices = if dim == Dimension::Two { 4 } else { 8 };
            (0..n_vertices)
                .map(|k| {
                    let s = |bit: usize| if k & (1 << bit) == 0 { -1.0 } else { 1.0 };
                    let local = [
                        s(0) * h[0],
                        s(1) * h[1],
                        if dim == Dimension::Two { 0.0 } else { s(2) * h[2] },
                    ];
                    PointFeature { point: add(x, mat_vec(&r, local)), radius: 0.0 }
                })
                .collect()
        }
        Shape::Capsule { half_length, radius } => [-1.0, 1.0]
            .iter()
            .map(|s| PointFeature {
                point: add(x, mat_vec(&r, [s * half_length, 0.0, 0.0])),
                radius,
            })
            .collect(),
        Shape::HalfSpace { .. } => Vec::new(),
    }
}

/// World normal and world offset of a half-space body.
fn halfspace_world(body: &Body) -> Option<(Vec3, f64)> {
    match body.shape {
        Shape::HalfSpace { normal, offset } => {
            let n = mat_vec(&body.rotation(), normal);
            Some((n, offset + dot(n, body.position)))
        }
        _ => None,
    }
}

/// Signed distance of world point p to the box of body b, the closest surface point (world) and
/// the outward unit normal at it. Inside (or on the boundary): the nearest face among the first
/// `dim` axes. Returns None when p is the box centre's degenerate twin (never in practice).
fn box_distance(p: Vec3, b: &Body, h: Vec3, dim: Dimension) -> (f64, Vec3, Vec3) {
    let r = b.rotation();
    let c = mat_t_vec(&r, sub(p, b.position));
    let d = dim.as_usize();
    let inside = (0..3).all(|i| c[i].abs() <= h[i]);
    if inside {
        let mut best = 0;
        let mut best_dist = f64::INFINITY;
        for i in 0..d {
            let dist = h[i] - c[i].abs();
            if dist < best_dist {
                best_dist = dist;
                best = i;
            }
        }
        let s = if c[best] < 0.0 { -1.0 } else { 1.0 };
        let mut nl = [0.0; 3];
        nl[best] = s;
        let mut q = c;
        q[best] = s * h[best];
        (-best_dist, add(b.position, mat_vec(&r, q)), mat_vec(&r, nl))
    } else {
        let q = [c[0].clamp(-h[0], h[0]), c[1].clamp(-h[1], h[1]), c[2].clamp(-h[2], h[2])];
        let u = sub(c, q);
        let dist = norm(u);
        (dist, add(b.position, mat_vec(&r, q)), mat_vec(&r, scale(1.0 / dist, u)))
    }
}

/// Gap of a point feature of body a against the surface of body b: (normal, gap, point_b).
fn point_against(f: PointFeature, b: &Body, dim: Dimension) -> Option<(Vec3, f64, Vec3)> {
    match b.shape {
        Shape::HalfSpace { .. } => {
            let (n, o) = halfspace_world(b)?;
            let d = dot(n, f.point) - o - f.radius;
            Some((n, d, sub(f.point, scale(f.radius + d, n))))
        }
        Shape::Sphere { radius } => {
            let delta = sub(f.point, b.position);
            let dist = norm(delta);
            // Concentric spheres have no defined normal; a fixed direction keeps the gap exact.
            let n = if dist > 0.0 { scale(1.0 / dist, delta) } else { [0.0, 1.0, 0.0] };
            Some((n, dist - f.radius - radius, add(b.position, scale(radius, n))))
        }
        Shape::Box { half_extents } => {
            let (dist, q, n) = box_distance(f.point, b, half_extents, dim);
            Some((n, dist - f.radius, q))
        }
        Shape::Capsule { half_length, radius } => {
            let (axis, sigma) = capsule_closest(b, half_length, f.point);
            let centre = add(b.position, scale(sigma, axis));
            let delta = sub(f.point, centre);
            let dist = norm(delta);
            // A point on the axis has no defined normal; a fixed perpendicular keeps the gap exact.
            let n = if dist > 0.0 {
                scale(1.0 / dist, delta)
            } else if dim == Dimension::Two {
                [-axis[1], axis[0], 0.0]
            } else {
                crate::math::tangent_basis(axis).0
            };
            Some((n, dist - f.radius - radius, add(centre, scale(radius, n))))
        }
    }
}

/// The world axis R_b e_x of a capsule and the parameter σ in [−l, l] of the closest point
/// x_b + σ axis of its core segment to p.
fn capsule_closest(b: &Body, half_length: f64, p: Vec3) -> (Vec3, f64) {
    let axis = mat_vec(&b.rotation(), [1.0, 0.0, 0.0]);
    (axis, dot(sub(p, b.position), axis).clamp(-half_length, half_length))
}

/// Closest points of the core segments of two capsules a (centre x_a, unit axis a, half length
/// l_a) and b: parameters (s, t) of P = x_a + s a and Q = x_b + t b, with their rates along the
/// free motion (Ericson, *Real-Time Collision Detection*, 2005, §5.1.9, with unit axes):
/// s = clamp((c β − α)/(1 − c²)) with α = a·w, β = b·w, c = a·b, w = x_a − x_b, then
/// t = clamp(s c + β) and, if t was clamped, s = clamp(t c − α). Parallel axes (1 − c² < 1e-12):
/// s is the midpoint of the overlap of the projections (the closest points are not unique; the
/// rate is that of this choice).
/// Rates differentiate the formula of the branch taken (0 on a clamped parameter).
#[allow(clippy::too_many_arguments)]
fn segment_segment(
    w: Vec3,
    w_dot: Vec3,
    a: Vec3,
    a_dot: Vec3,
    la: f64,
    b: Vec3,
    b_dot: Vec3,
    lb: f64,
) -> (f64, f64, f64, f64) {
    let (alpha, beta, c) = (dot(a, w), dot(b, w), dot(a, b));
    let alpha_dot = dot(a_dot, w) + dot(a, w_dot);
    let beta_dot = dot(b_dot, w) + dot(b, w_dot);
    let c_dot = dot(a_dot, b) + dot(a, b_dot);
    let denom = 1.0 - c * c;
    let (mut s, mut s_dot);
    if denom > 1e-12 {
        let free = (c * beta - alpha) / denom;
        s = free.clamp(-la, la);
        s_dot = if free.abs() < la {
            (c_dot * beta + c * beta_dot - alpha_dot + 2.0 * s * c * c_dot) / denom
        } else {
            0.0
        };
    } else {
        // Projection s0 of x_b on axis a; the overlap [lo, hi] of [-l_a, l_a] and s0 ± l_b.
        let s0 = -alpha;
        let (lo, hi) = ((-la).max(s0 - lb), la.min(s0 + lb));
        let lo_dot = if s0 - lb > -la { -alpha_dot } else { 0.0 };
        let hi_dot = if s0 + lb < la { -alpha_dot } else { 0.0 };
        if lo <= hi {
            s = 0.5 * (lo + hi);
            s_dot = 0.5 * (lo_dot + hi_dot);
        } else {
            s = if s0 > 0.0 { la } else { -la };
            s_dot = 0.0;
        }
    }
    let t_free = s * c + beta;
    let (t, t_dot);
    if t_free.abs() <= lb {
        t = t_free;
        t_dot = s_dot * c + s * c_dot + beta_dot;
    } else {
        t = t_free.clamp(-lb, lb);
        t_dot = 0.0;
        let s_free = t * c - alpha;
        s = s_free.clamp(-la, la);
        s_dot = if s_free.abs() < la { t * c_dot - alpha_dot } else { 0.0 };
    }
    (s, s_dot, t, t_dot)
}

/// The capsule–capsule contact (closest points of the core segments), with the rates of its
/// normal and witness points: (contact, rates). When the cores meet (distance 0: deep
/// penetration) the gap saturates at −(r_a + r_b) and the normal is a fixed perpendicular.
fn capsule_capsule(
    bodies: &[Body],
    dim: Dimension,
    i: usize,
    j: usize,
) -> Option<(Contact, ContactRates)> {
    let (bi, bj) = (&bodies[i], &bodies[j]);
    let (
        Shape::Capsule { half_length: la, radius: ra },
        Shape::Capsule { half_length: lb, radius: rb },
    ) = (&bi.shape, &bj.shape)
    else {
        return None;
    };
    let (va, wa) = motion(bi);
    let (vb, wb) = motion(bj);
    let a = mat_vec(&bi.rotation(), [1.0, 0.0, 0.0]);
    let b = mat_vec(&bj.rotation(), [1.0, 0.0, 0.0]);
    let (a_dot, b_dot) = (cross(wa, a), cross(wb, b));
    let w = sub(bi.position, bj.position);
    let (s, s_dot, t, t_dot) = segment_segment(w, sub(va, vb), a, a_dot, *la, b, b_dot, *lb);
    let p = add(bi.position, scale(s, a));
    let q = add(bj.position, scale(t, b));
    let p_dot = add(va, add(scale(s_dot, a), scale(s, a_dot)));
    let q_dot = add(vb, add(scale(t_dot, b), scale(t, b_dot)));
    let delta = sub(p, q);
    let dist = norm(delta);
    let (n, n_dot) = if dist > 0.0 {
        let n = scale(1.0 / dist, delta);
        let d_dot = sub(p_dot, q_dot);
        (n, scale(1.0 / dist, sub(d_dot, scale(dot(n, d_dot), n))))
    } else if dim == Dimension::Two {
        ([-b[1], b[0], 0.0], [0.0; 3])
    } else {
        (crate::math::tangent_basis(b).0, [0.0; 3])
    };
    let contact = Contact {
        body_a: i,
        body_b: j,
        feature: 0,
        point_a: sub(p, scale(*ra, n)),
        point_b: add(q, scale(*rb, n)),
        normal: n,
        gap: dist - ra - rb,
    };
    let rates = ContactRates {
        normal: n_dot,
        point_a: sub(p_dot, scale(*ra, n_dot)),
        point_b: add(q_dot, scale(*rb, n_dot)),
    };
    Some((contact, rates))
}

/// Which body carries the point features of the pair (i, j), or None if unsupported.
/// Returns the list of (point owner, surface owner) passes.
fn pair_passes(bi: &Body, bj: &Body, i: usize, j: usize) -> Option<Vec<(usize, usize)>> {
    use Shape::*;
    match (&bi.shape, &bj.shape) {
        (HalfSpace { .. }, HalfSpace { .. }) => Some(Vec::new()),
        (Sphere { .. } | Box { .. } | Capsule { .. }, HalfSpace { .. }) => Some(vec![(i, j)]),
        (HalfSpace { .. }, Sphere { .. } | Box { .. } | Capsule { .. }) => Some(vec![(j, i)]),
        (Sphere { .. }, Sphere { .. }) => Some(vec![(i, j)]),
        (Sphere { .. }, Box { .. }) => Some(vec![(i, j)]),
        (Box { .. }, Sphere { .. }) => Some(vec![(j, i)]),
        (Box { .. }, Box { .. }) => Some(vec![(i, j), (j, i)]),
        (Sphere { .. }, Capsule { .. }) => Some(vec![(i, j)]),
        (Capsule { .. }, Sphere { .. }) => Some(vec![(j, i)]),
        (Capsule { .. }, Capsule { .. }) => Some(Vec::new()),
        _ => None,
    }
}

/// The contacts of one pair of bodies with gap <= margin, in feature order. Pairs of two fixed
/// bodies give none.
pub fn pair_contacts(
    bodies: &[Body],
    dim: Dimension,
    i: usize,
    j: usize,
    margin: f64,
) -> Result<Vec<Contact>, ContactError> {
    let (bi, bj) = (&bodies[i], &bodies[j]);
    if bi.kind == BodyKind::Fixed && bj.kind == BodyKind::Fixed {
        return Ok(Vec::new());
    }
    let passes = pair_passes(bi, bj, i, j).ok_or_else(|| ContactError::UnsupportedPair {
        body_a: bi.name.clone(),
        body_b: bj.name.clone(),
        shape_a: bi.shape.type_name(),
        shape_b: bj.shape.type_name(),
    })?;
    let mut out = Vec::new();
    if let Some((c, _)) = capsule_capsule(bodies, dim, i, j) {
        if c.gap <= margin {
            out.push(c);
        }
    }
    for (a, b) in passes {
        for (feature, f) in point_features(&bodies[a], dim).into_iter().enumerate() {
            if let Some((normal, gap, point_b)) = point_against(f, &bodies[b], dim) {
                if gap <= margin {
                    let point_a = sub(f.point, scale(f.radius, normal));
                    out.push(Contact {
                        body_a: a,
                        body_b: b,
                        feature,
                        point_a,
                        point_b,
                        normal,
                        gap,
                    });
                }
            }
        }
    }
    Ok(out)
}

/// Candidate pairs (i < j) whose inflated bounding volumes overlap: bounded shapes through a
/// uniform grid (cell size = the largest AABB extent, so each box meets at most 2^3 cells and
/// each pair is reported once, by the cell holding the lower corner of the overlap), half-spaces
/// against every bounded shape. Sorted, hence deterministic.
pub fn broad_phase(bodies: &[Body], margin: f64) -> Vec<(usize, usize)> {
    let mut boxes: Vec<(usize, Vec3, Vec3)> = Vec::new();
    let mut halfspaces = Vec::new();
    for (i, b) in bodies.iter().enumerate() {
        match b.shape.aabb(b.position, &b.rotation(), margin) {
            Some((lo, hi)) => boxes.push((i, lo, hi)),
            None => halfspaces.push(i),
        }
    }
    let mut pairs = Vec::new();
    for &h in &halfspaces {
        let Some((n, o)) = halfspace_world(&bodies[h]) else { continue };
        for &(i, lo, hi) in &boxes {
            let c = scale(0.5, add(lo, hi));
            let e = scale(0.5, sub(hi, lo));
            let lowest = dot(n, c) - (n[0].abs() * e[0] + n[1].abs() * e[1] + n[2].abs() * e[2]);
            if lowest <= o + margin {
                pairs.push((i.min(h), i.max(h)));
            }
        }
    }
    for a in 0..halfspaces.len() {
        for b in a + 1..halfspaces.len() {
            pairs.push((halfspaces[a], halfspaces[b]));
        }
    }
    let cell = boxes
        .iter()
        .map(|(_, lo, hi)| (0..3).map(|k| hi[k] - lo[k]).fold(0.0_f64, f64::max))
        .fold(0.0_f64, f64::max);
    if cell > 0.0 && cell.is_finite() {
        let key = |p: Vec3| -> [i64; 3] { p.map(|v| (v / cell).floor() as i64) };
        let mut grid: HashMap<[i64; 3], Vec<usize>, BuildHasherDefault<CellHasher>> =
            HashMap::default();
        for (k, &(_, lo, hi)) in boxes.iter().enumerate() {
            let (l, u) = (key(lo), key(hi));
            for x in l[0]..=u[0] {
                for y in l[1]..=u[1] {
                    for z in l[2]..=u[2] {
                        grid.entry([x, y, z]).or_default().push(k);
                    }
                }
            }
        }
        for (cell_key, members) in &grid {
            for (s, &p) in members.iter().enumerate() {
                for &q in &members[s + 1..] {
                    let (_, lo1, hi1) = boxes[p];
                    let (_, lo2, hi2) = boxes[q];
                    if (0..3).any(|k| lo1[k] > hi2[k] || lo2[k] > hi1[k]) {
                        continue;
                    }
                    let corner = [lo1[0].max(lo2[0]), lo1[1].max(lo2[1]), lo1[2].max(lo2[2])];
                    if key(corner) != *cell_key {
                        continue;
                    }
                    let (i, j) = (boxes[p].0, boxes[q].0);
                    pairs.push((i.min(j), i.max(j)));
                }
            }
        }
    }
    pairs.sort_unstable();
    pairs.dedup();
    pairs
}

/// The multiply-rotate hash of rustc's FxHasher for the broad phase's integer cell keys: the
/// standard library's SipHash, built against adversarial keys, took a seventh of a step of
/// 10^5 free spheres (perf). The pairs are sorted afterwards, so the hash never shows.
#[derive(Default)]
struct CellHasher(u64);

impl Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    fn write_i64(&mut self, x: i64) {
        self.write_u64(x as u64);
    }
}

/// All contacts with gap <= margin, ordered by pair (i < j) and feature.
pub fn detect_contacts(
    bodies: &[Body],
    dim: Dimension,
    margin: f64,
) -> Result<Vec<Contact>, ContactError> {
    let mut contacts = Vec::new();
    for (i, j) in broad_phase(bodies, margin) {
        contacts.extend(pair_contacts(bodies, dim, i, j, margin)?);
    }
    Ok(contacts)
}

/// Effective (linear, angular) velocity of a body: fixed bodies do not move and particles do
/// not rotate.
fn motion(b: &Body) -> (Vec3, Vec3) {
    match b.kind {
        BodyKind::Fixed => ([0.0; 3], [0.0; 3]),
        BodyKind::Particle => (b.velocity, [0.0; 3]),
        BodyKind::Rigid => (b.velocity, b.angular_velocity),
    }
}

/// The term J'v of the contact's normal row: the second time derivative of its gap along the
/// motion with constant linear and (world) angular velocities, computed in closed form.
///
/// With p the material point of body a's feature (ṗ = v_a + ω_a × (p − x_a),
/// p̈ = ω_a × (ω_a × (p − x_a))), r = p − x_b, ṙ = ṗ − v_b:
/// - half-space of b, n = R_b n_l: d̈ = (ω_b × (ω_b × n))·r + 2 (ω_b × n)·ṙ + n·p̈;
/// - sphere of b: d̈ = n·p̈ + (|ṙ|² − (n·ṙ)²)/|r|;
/// - capsule of b, axis a = R_b e_x, closest parameter σ = clamp(r·a, ±l) (σ̇ = ṙ·a + r·(ω_b × a)
///   inside, 0 at an end), centre s = x_b + σ a, ṡ = v_b + σ̇ a + σ ω_b × a, δ = p − s:
///   ṅ = (I − n nᵀ)(ṗ − ṡ)/|δ|, point_b = s + r_b n;
/// - box of b, local point c = R_bᵀ r: ċ = R_bᵀ(ṙ − ω_b × r),
///   c̈ = R_bᵀ(p̈ + ω_b × (ω_b × r) − 2 ω_b × ṙ); outside the box the gap is |c − clamp(c)| − ρ
///   (gradient n_l, Hessian P(I − n_l n_lᵀ)P/|c − clamp(c)| with P the mask of clamped axes), so
///   d̈ = n_l·c̈ + ċᵀ H ċ; inside it is linear in c (d̈ = n_l·c̈).
///
/// It vanishes when every body is at rest, and for a sphere on a fixed half-space.
pub fn gap_acceleration_bias(bodies: &[Body], dim: Dimension, c: &Contact) -> f64 {
    if let Some((_, rates)) = capsule_capsule(bodies, dim, c.body_a, c.body_b) {
        return row_acceleration_bias(bodies, c, &rates, c.normal, rates.normal);
    }
    let (a, b) = (&bodies[c.body_a], &bodies[c.body_b]);
    let features = point_features(a, dim);
    let Some(f) = features.get(c.feature) else { return 0.0 };
    let (va, wa) = motion(a);
    let (vb, wb) = motion(b);
    let arm = sub(f.point, a.position);
    let p_dot = add(va, cross(wa, arm));
    let p_ddot = cross(wa, cross(wa, arm));
    let r = sub(f.point, b.position);
    let r_dot = sub(p_dot, vb);
    match b.shape {
        Shape::HalfSpace { .. } => {
            let n = c.normal;
            let n_dot = cross(wb, n);
            let n_ddot = cross(wb, n_dot);
            dot(n_ddot, r) + 2.0 * dot(n_dot, r_dot) + dot(n, p_ddot)
        }
        Shape::Sphere { .. } => {
            let dist = norm(r);
            if dist <= 0.0 {
                return 0.0;
            }
            let n = scale(1.0 / dist, r);
            let rn = dot(n, r_dot);
            dot(n, p_ddot) + (dot(r_dot, r_dot) - rn * rn) / dist
        }
        Shape::Box { half_extents: h } => {
            let rot = b.rotation();
            let cl = mat_t_vec(&rot, r);
            let cl_dot = mat_t_vec(&rot, sub(r_dot, cross(wb, r)));
            let accel = add(add(p_ddot, cross(wb, cross(wb, r))), scale(-2.0, cross(wb, r_dot)));
            let cl_ddot = mat_t_vec(&rot, accel);
            let nl = mat_t_vec(&rot, c.normal);
            let inside = (0..3).all(|i| cl[i].abs() <= h[i]);
            let mut value = dot(nl, cl_ddot);
            if !inside {
                let q =
                    [cl[0].clamp(-h[0], h[0]), cl[1].clamp(-h[1], h[1]), cl[2].clamp(-h[2], h[2])];
                let dist = norm(sub(cl, q));
                let mask = [0, 1, 2].map(|i| if cl[i].abs() > h[i] { 1.0 } else { 0.0 });
                let pc = [cl_dot[0] * mask[0], cl_dot[1] * mask[1], cl_dot[2] * mask[2]];
                let pn = dot(pc, nl);
                value += (dot(pc, pc) - pn * pn) / dist;
            }
            value
        }
        Shape::Capsule { .. } => match contact_rates(bodies, dim, c) {
            Some(rates) => row_acceleration_bias(bodies, c, &rates, c.normal, rates.normal),
            None => 0.0,
        },
    }
}

/// Rates of a contact's geometry along the free motion (constant linear and world angular
/// velocities): the normal ṅ and the witness points ṗ_a, ṗ_b (the rates of the closest points
/// themselves, which slide over the surfaces, not the material velocities at them).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactRates {
    /// ṅ.
    pub normal: Vec3,
    /// Rate of `point_a`.
    pub point_a: Vec3,
    /// Rate of `point_b`.
    pub point_b: Vec3,
}

/// The rates of the contact's normal and witness points (see [`ContactRates`]), in closed form
/// from the same construction as [`pair_contacts`]. With p the material point of body a's
/// feature (ṗ = v_a + ω_a × (p − x_a)), ρ its radius, r = p − x_b, ṙ = ṗ − v_b:
/// point_a = p − ρ n, so ṗ_a = ṗ − ρ ṅ, and for the surface of b:
/// - half-space: ṅ = ω_b × n; point_b = p − σ n with σ = n·r − offset, σ̇ = ṅ·r + n·ṙ;
/// - sphere: ṅ = (I − n nᵀ) ṙ / |r|; point_b = x_b + R n;
/// - box, local point c = R_bᵀ r, ċ = R_bᵀ(ṙ − ω_b × r), closest local point q (the clamp of c
///   outside, c moved to the nearest face inside) with q̇ = ċ on the free axes and 0 on the
///   clamped (or face) axes; outside n_l = u/|u| with u = c − q, ṅ_l = (I − n_l n_lᵀ) u̇ / |u|;
///   inside ṅ_l = 0; n = R_b n_l, ṅ = ω_b × n + R_b ṅ_l; point_b = x_b + R_b q,
///   ṗ_b = v_b + ω_b × R_b q + R_b q̇.
///
/// None for a feature index the body does not have.
pub fn contact_rates(bodies: &[Body], dim: Dimension, c: &Contact) -> Option<ContactRates> {
    if let Some((_, rates)) = capsule_capsule(bodies, dim, c.body_a, c.body_b) {
        return Some(rates);
    }
    let (a, b) = (&bodies[c.body_a], &bodies[c.body_b]);
    let features = point_features(a, dim);
    let f = features.get(c.feature)?;
    let (va, wa) = motion(a);
    let (vb, wb) = motion(b);
    let p_dot = add(va, cross(wa, sub(f.point, a.position)));
    let r = sub(f.point, b.position);
    let r_dot = sub(p_dot, vb);
    let n = c.normal;
    let (n_dot, pb_dot) = match b.shape {
        Shape::HalfSpace { offset, .. } => {
            let n_dot = cross(wb, n);
            let sigma = dot(n, r) - offset;
            let sigma_dot = dot(n_dot, r) + dot(n, r_dot);
            (n_dot, sub(p_dot, add(scale(sigma_dot, n), scale(sigma, n_dot))))
        }
        Shape::Sphere { radius } => {
            let dist = norm(r);
            if dist <= 0.0 {
                return Some(ContactRates { normal: [0.0; 3], point_a: p_dot, point_b: vb });
            }
            let n_dot = scale(1.0 / dist, sub(r_dot, scale(dot(n, r_dot), n)));
            (n_dot, add(vb, scale(radius, n_dot)))
        }
        Shape::Box { half_extents: h } => {
            let rot = b.rotation();
            let cl = mat_t_vec(&rot, r);
            let cl_dot = mat_t_vec(&rot, sub(r_dot, cross(wb, r)));
            let inside = (0..3).all(|i| cl[i].abs() <= h[i]);
            let (q, q_dot, nl_dot) = if inside {
                // The face axis chosen as in `box_distance`.
                let d = dim.as_usize();
                let mut best = 0;
                let mut best_dist = f64::INFINITY;
                for i in 0..d {
                    let dist = h[i] - cl[i].abs();
                    if dist < best_dist {
                        best_dist = dist;
                        best = i;
                    }
                }
                let mut q = cl;
                q[best] = if cl[best] < 0.0 { -h[best] } else { h[best] };
                let mut q_dot = cl_dot;
                q_dot[best] = 0.0;
                (q, q_dot, [0.0; 3])
            } else {
                let q =
                    [cl[0].clamp(-h[0], h[0]), cl[1].clamp(-h[1], h[1]), cl[2].clamp(-h[2], h[2])];
                let clamped = [0, 1, 2].map(|i| cl[i].abs() > h[i]);
                let q_dot = [0, 1, 2].map(|i| if clamped[i] { 0.0 } else { cl_dot[i] });
                let u = sub(cl, q);
                let dist = norm(u);
                let nl = scale(1.0 / dist, u);
                let u_dot = sub(cl_dot, q_dot);
                (q, q_dot, scale(1.0 / dist, sub(u_dot, scale(dot(nl, u_dot), nl))))
            };
            let n_dot = add(cross(wb, n), mat_vec(&rot, nl_dot));
            let arm = mat_vec(&rot, q);
            (n_dot, add(add(vb, cross(wb, arm)), mat_vec(&rot, q_dot)))
        }
        Shape::Capsule { half_length, radius } => {
            let (axis, sigma) = capsule_closest(b, half_length, f.point);
            let axis_dot = cross(wb, axis);
            // σ = r·axis while interior (its rate follows), constant at an end.
            let sigma_dot = if dot(r, axis).abs() < half_length {
                dot(r_dot, axis) + dot(r, axis_dot)
            } else {
                0.0
            };
            let centre = add(b.position, scale(sigma, axis));
            let centre_dot = add(vb, add(scale(sigma_dot, axis), scale(sigma, axis_dot)));
            let delta = sub(f.point, centre);
            let dist = norm(delta);
            if dist <= 0.0 {
                return None;
            }
            let delta_dot = sub(p_dot, centre_dot);
            let n_dot = scale(1.0 / dist, sub(delta_dot, scale(dot(n, delta_dot), n)));
            (n_dot, add(centre_dot, scale(radius, n_dot)))
        }
    };
    Some(ContactRates {
        normal: n_dot,
        point_a: sub(p_dot, scale(f.radius, n_dot)),
        point_b: pb_dot,
    })
}

/// J'v of the row of J along direction u (from b to a) of the contact, u having rate u̇ along
/// the free motion: the time derivative of u · (v_a(point_a) − v_b(point_b)) at constant
/// velocities,
/// u̇ · Δ + u · (ω_a × (ṗ_a − v_a) − ω_b × (ṗ_b − v_b)), with Δ the relative velocity of the
/// witness points and ṗ_a, ṗ_b from [`contact_rates`]. With u = n it equals
/// [`gap_acceleration_bias`]; with the friction directions and their rates
/// ([`crate::jacobian::friction_direction_rates`]) it is the J'v of the tangential rows.
pub fn row_acceleration_bias(
    bodies: &[Body],
    c: &Contact,
    rates: &ContactRates,
    u: Vec3,
    u_dot: Vec3,
) -> f64 {
    let (a, b) = (&bodies[c.body_a], &bodies[c.body_b]);
    let (va, wa) = motion(a);
    let (vb, wb) = motion(b);
    let vel_a = add(va, cross(wa, sub(c.point_a, a.position)));
    let vel_b = add(vb, cross(wb, sub(c.point_b, b.position)));
    let delta = sub(vel_a, vel_b);
    let acc = sub(cross(wa, sub(rates.point_a, va)), cross(wb, sub(rates.point_b, vb)));
    dot(u_dot, delta) + dot(u, acc)
}

/// J'v of the k tangential rows of the contact (in the order of
/// [`crate::jacobian::friction_directions`]); zeros where the rates are not defined.
pub fn friction_acceleration_bias(
    bodies: &[Body],
    dim: Dimension,
    c: &Contact,
    k: usize,
) -> Vec<f64> {
    let dirs = crate::jacobian::friction_directions(dim, c.normal, k);
    let Some(rates) = contact_rates(bodies, dim, c) else { return vec![0.0; dirs.len()] };
    let dir_rates = crate::jacobian::friction_direction_rates(dim, c.normal, rates.normal, k);
    dirs.iter()
        .zip(&dir_rates)
        .map(|(&u, &u_dot)| row_acceleration_bias(bodies, c, &rates, u, u_dot))
        .collect()
}
