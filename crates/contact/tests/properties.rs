//! Property tests on random configurations: J against central finite differences of the gap
//! functions, J'v against second differences (normal rows) and first differences of J_t v
//! (tangential rows), W = J M^-1 J^T symmetric, PSD and equal to the
//! generic dense product, and the parallel assembly independent of the thread count.
#![allow(clippy::needless_range_loop)] // matrix tests read best with indices

use proptest::prelude::*;
use signorini_contact::math::{add, scale};
use signorini_contact::{
    pair_contacts, BlockDiagonalMass, Body, BodyKind, Contact, DenseMass, Dimension, DofLayout,
    Jacobian, MassMatrix, Quat, Shape,
};

/// Moves every body along its velocity for time t: x + t v, q <- exp(t ω) q (world ω).
fn advance(bodies: &[Body], t: f64) -> Vec<Body> {
    bodies
        .iter()
        .map(|b| {
            let mut b = b.clone();
            match b.kind {
                BodyKind::Fixed => {}
                BodyKind::Particle => b.position = add(b.position, scale(t, b.velocity)),
                BodyKind::Rigid => {
                    b.position = add(b.position, scale(t, b.velocity));
                    b.orientation = Quat::from_rotation_vector(scale(t, b.angular_velocity))
                        .compose(b.orientation)
                        .normalized();
                }
            }
            b
        })
        .collect()
}

fn gap_of(bodies: &[Body], dim: Dimension, c: &Contact) -> Option<f64> {
    let (i, j) = (c.body_a.min(c.body_b), c.body_a.max(c.body_b));
    pair_contacts(bodies, dim, i, j, f64::INFINITY)
        .ok()?
        .into_iter()
        .find(|d| d.body_a == c.body_a && d.body_b == c.body_b && d.feature == c.feature)
        .map(|d| d.gap)
}

fn unit_quat() -> impl Strategy<Value = Quat> {
    (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64)
        .prop_filter("nonzero", |(a, b, c, d)| a * a + b * b + c * c + d * d > 0.1)
        .prop_map(|(a, b, c, d)| Quat([a, b, c, d]).normalized())
}

fn vec3(r: f64) -> impl Strategy<Value = [f64; 3]> {
    (-r..r, -r..r, -r..r).prop_map(|(a, b, c)| [a, b, c])
}

fn shape_a() -> impl Strategy<Value = Shape> {
    prop_oneof![
        (0.2..1.0f64).prop_map(|radius| Shape::Sphere { radius }),
        (vec3(1.0)).prop_map(|h| Shape::Box { half_extents: h.map(|x| 0.2 + x.abs()) }),
        (0.1..1.0f64, 0.1..0.5f64)
            .prop_map(|(half_length, radius)| Shape::Capsule { half_length, radius }),
    ]
}

fn shape_b() -> impl Strategy<Value = Shape> {
    prop_oneof![
        vec3(1.0).prop_filter("nonzero", |n| n.iter().map(|x| x * x).sum::<f64>() > 0.1).prop_map(
            |n| {
                let l = n.iter().map(|x| x * x).sum::<f64>().sqrt();
                Shape::HalfSpace { normal: n.map(|x| x / l), offset: 0.3 }
            }
        ),
        (0.2..1.0f64).prop_map(|radius| Shape::Sphere { radius }),
        (vec3(1.0)).prop_map(|h| Shape::Box { half_extents: h.map(|x| 0.2 + x.abs()) }),
        (0.1..1.0f64, 0.1..0.5f64)
            .prop_map(|(half_length, radius)| Shape::Capsule { half_length, radius }),
    ]
}

/// Pairs with a narrow phase (capsule–box has none yet).
fn supported(a: &Shape, b: &Shape) -> bool {
    !matches!(
        (a, b),
        (Shape::Capsule { .. }, Shape::Box { .. }) | (Shape::Box { .. }, Shape::Capsule { .. })
    )
}

/// Two moving rigid bodies in 3D (a supported pair), with random poses and velocities.
fn pair_3d() -> impl Strategy<Value = Vec<Body>> {
    (
        shape_a(),
        shape_b(),
        vec3(1.5),
        vec3(1.5),
        unit_quat(),
        unit_quat(),
        vec3(2.0),
        vec3(2.0),
        vec3(2.0),
        vec3(2.0),
    )
        .prop_filter("supported", |(a, b, ..)| supported(a, b))
        .prop_map(|(sa, sb, xa, xb, qa, qb, va, vb, wa, wb)| {
            let mut a = Body::rigid("a", Dimension::Three, 1.3, sa, xa);
            a.orientation = qa;
            a.velocity = va;
            a.angular_velocity = wa;
            let mut b = Body::rigid("b", Dimension::Three, 2.1, sb, xb);
            b.orientation = qb;
            b.velocity = vb;
            b.angular_velocity = wb;
            vec![a, b]
        })
}

/// The same in 2D: poses in the plane, rotation about z.
fn pair_2d() -> impl Strategy<Value = Vec<Body>> {
    (
        shape_a(),
        shape_b(),
        vec3(1.5),
        vec3(1.5),
        -3.0..3.0f64,
        -3.0..3.0f64,
        vec3(2.0),
        vec3(2.0),
        -2.0..2.0f64,
        -2.0..2.0f64,
    )
        .prop_filter("supported", |(a, b, ..)| supported(a, b))
        .prop_map(|(sa, sb, xa, xb, ta, tb, va, vb, wa, wb)| {
            let flat = |s: Shape| match s {
                Shape::Box { half_extents: h } => Shape::Box { half_extents: [h[0], h[1], 0.0] },
                Shape::HalfSpace { normal: n, offset } => {
                    let l = (n[0] * n[0] + n[1] * n[1]).sqrt().max(1e-3);
                    Shape::HalfSpace { normal: [n[0] / l, n[1] / l, 0.0], offset }
                }
                s => s,
            };
            let mut a = Body::rigid("a", Dimension::Two, 1.3, flat(sa), [xa[0], xa[1], 0.0]);
            a.orientation = Quat::from_angle_z(ta);
            a.velocity = [va[0], va[1], 0.0];
            a.angular_velocity = [0.0, 0.0, wa];
            let mut b = Body::rigid("b", Dimension::Two, 2.1, flat(sb), [xb[0], xb[1], 0.0]);
            b.orientation = Quat::from_angle_z(tb);
            b.velocity = [vb[0], vb[1], 0.0];
            b.angular_velocity = [0.0, 0.0, wb];
            vec![a, b]
        })
}

/// J v and J'v of every feature against differences of the gap along the free motion.
fn check_derivatives(bodies: &[Body], dim: Dimension) -> Result<(), TestCaseError> {
    let layout = DofLayout::new(dim, bodies);
    let contacts = pair_contacts(bodies, dim, 0, 1, f64::INFINITY)
        .map_err(|e| TestCaseError::fail(e.to_string()))?;
    let jac = Jacobian::normal(&layout, bodies, &contacts);
    let v = layout.velocity(bodies);
    let jv = jac.apply(&v);
    let eps = 1e-6;
    let (plus, minus) = (advance(bodies, eps), advance(bodies, -eps));
    // The gap's second derivative is compared at h = 1e-5 and skipped where the second
    // differences at h = 1e-4 and 1e-5 disagree: there a Voronoi-region change of a box lies
    // within 1e-4 and the difference quotient does not converge yet. Both regression cases of
    // `properties.proptest-regressions` are of that kind; probed at h = 1e-6 the quotient
    // converges to J'v (0.8958 and 13.8089 = J'v 13.8084).
    let h2 = 1e-5;
    let h3 = 1e-4;
    let (plus3, minus3) = (advance(bodies, h3), advance(bodies, -h3));
    let (plus2, minus2) = (advance(bodies, h2), advance(bodies, -h2));
    for (c, jvi) in contacts.iter().zip(&jv) {
        let (Some(dp), Some(dm)) = (gap_of(&plus, dim, c), gap_of(&minus, dim, c)) else {
            continue;
        };
        if crossed_capsule_cores(bodies, c) {
            continue;
        }
        let forward = (dp - c.gap) / eps;
        let backward = (c.gap - dm) / eps;
        // Skip features on a kink of the distance function (region change within ±eps).
        if (forward - backward).abs() > 1e-3 * (1.0 + forward.abs()) {
            continue;
        }
        let central = (dp - dm) / (2.0 * eps);
        prop_assert!(
            (central - jvi).abs() <= 1e-6 * (1.0 + jvi.abs()),
            "J v = {jvi}, FD = {central}, contact {c:?}"
        );
        if parallel_capsules(bodies, c) {
            continue;
        }
        let (Some(dp2), Some(dm2)) = (gap_of(&plus2, dim, c), gap_of(&minus2, dim, c)) else {
            continue;
        };
        let (Some(dp3), Some(dm3)) = (gap_of(&plus3, dim, c), gap_of(&minus3, dim, c)) else {
            continue;
        };
        let second = (dp2 - 2.0 * c.gap + dm2) / (h2 * h2);
        let coarse = (dp3 - 2.0 * c.gap + dm3) / (h3 * h3);
        if (second - coarse).abs() > 1e-3 * (1.0 + second.abs()) {
            continue;
        }
        let bias = signorini_contact::detect::gap_acceleration_bias(bodies, dim, c);
        prop_assert!(
            (second - bias).abs() <= 1e-3 * (1.0 + bias.abs()),
            "J'v = {bias}, FD = {second}, contact {c:?}"
        );
    }
    check_tangential_rates(bodies, dim, &contacts, &layout)
}

/// Capsules whose core segments meet (distance 0, a set of positive measure in 2D): the gap
/// is the constant −(r_a + r_b) there and the normal a fixed fallback, not a derivative.
fn crossed_capsule_cores(bodies: &[Body], c: &Contact) -> bool {
    match (&bodies[c.body_a].shape, &bodies[c.body_b].shape) {
        (Shape::Capsule { radius: ra, .. }, Shape::Capsule { radius: rb, .. }) => {
            c.gap <= -(ra + rb) + 1e-12
        }
        _ => false,
    }
}

/// Parallel capsule axes (|a × b|² < 1e-6): the closest points of the segments are not unique,
/// the witness points jump as soon as the axes turn and the gap has a kink there, so neither
/// second derivative (normal J'v) nor the tangential J'v of the chosen witness is defined; J v
/// still is and is still compared.
fn parallel_capsules(bodies: &[Body], c: &Contact) -> bool {
    let (a, b) = (&bodies[c.body_a], &bodies[c.body_b]);
    if !matches!((&a.shape, &b.shape), (Shape::Capsule { .. }, Shape::Capsule { .. })) {
        return false;
    }
    let axis = |b: &Body| {
        let r = b.rotation();
        [r[0][0], r[1][0], r[2][0]]
    };
    let cr = signorini_contact::math::cross(axis(a), axis(b));
    cr.iter().map(|x| x * x).sum::<f64>() < 1e-6
}

/// The J'v of the tangential (friction) rows against central differences of J_t(q(t)) v along
/// the free motion (v constant), compared at h = 1e-5 and skipped only where the differences at
/// h = 1e-4 and 1e-5 disagree (a Voronoi-region change of a box, or a switch of the tangent
/// basis axis, within 1e-4). Also: the general row formula with u = n reproduces the normal
/// rows' J'v.
fn check_tangential_rates(
    bodies: &[Body],
    dim: Dimension,
    contacts: &[Contact],
    layout: &DofLayout,
) -> Result<(), TestCaseError> {
    use signorini_contact::detect::{
        contact_rates, friction_acceleration_bias, gap_acceleration_bias, row_acceleration_bias,
    };
    let k = if dim == Dimension::Two { 2 } else { 5 };
    let v = layout.velocity(bodies);
    let (h2, h3) = (1e-5, 1e-4);
    let states: Vec<Vec<Body>> = [h2, -h2, h3, -h3].iter().map(|&t| advance(bodies, t)).collect();
    for c in contacts {
        let Some(rates) = contact_rates(bodies, dim, c) else { continue };
        let normal = row_acceleration_bias(bodies, c, &rates, c.normal, rates.normal);
        let reference = gap_acceleration_bias(bodies, dim, c);
        prop_assert!(
            (normal - reference).abs() <= 1e-9 * (1.0 + reference.abs()),
            "row formula along n {normal} vs normal J'v {reference}, contact {c:?}"
        );
        if parallel_capsules(bodies, c) {
            continue;
        }
        let bias = friction_acceleration_bias(bodies, dim, c, k);
        // J_t(q) v of this contact's tangential rows at a moved state.
        let rows_at = |bs: &[Body]| -> Option<Vec<f64>> {
            let (i, j) = (c.body_a.min(c.body_b), c.body_a.max(c.body_b));
            let d = pair_contacts(bs, dim, i, j, f64::INFINITY)
                .ok()?
                .into_iter()
                .find(|d| d.body_a == c.body_a && d.body_b == c.body_b && d.feature == c.feature)?;
            let jac = Jacobian::with_friction(layout, bs, std::slice::from_ref(&d), k);
            Some(jac.apply(&v)[1..].to_vec())
        };
        let moved: Option<Vec<Vec<f64>>> = states.iter().map(|s| rows_at(s)).collect();
        let Some(moved) = moved else { continue };
        prop_assert_eq!(bias.len(), moved[0].len());
        for (d, b) in bias.iter().enumerate() {
            let fine = (moved[0][d] - moved[1][d]) / (2.0 * h2);
            let coarse = (moved[2][d] - moved[3][d]) / (2.0 * h3);
            if (fine - coarse).abs() > 1e-3 * (1.0 + fine.abs()) {
                continue;
            }
            prop_assert!(
                (fine - b).abs() <= 1e-6 * (1.0 + b.abs()),
                "tangential row {d}: J'v = {b}, FD = {fine}, contact {c:?}"
            );
        }
    }
    Ok(())
}

/// A random cloud of spheres, boxes and a floor with a large margin (many contacts).
fn cloud(n: usize, seed: u64, dim: Dimension) -> Vec<Body> {
    use rand::{Rng, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut bodies = Vec::new();
    for i in 0..n {
        let z = if dim == Dimension::Three { rng.gen_range(-1.5..1.5) } else { 0.0 };
        let x = [rng.gen_range(-1.5..1.5), rng.gen_range(0.0..3.0), z];
        let shape = if i % 3 == 2 {
            let hz = if dim == Dimension::Three { rng.gen_range(0.2..0.5) } else { 0.0 };
            Shape::Box { half_extents: [rng.gen_range(0.2..0.5), rng.gen_range(0.2..0.5), hz] }
        } else {
            Shape::Sphere { radius: rng.gen_range(0.2..0.6) }
        };
        let mut b = if i % 4 == 3 {
            Body::particle(format!("p{i}"), dim, rng.gen_range(0.5..5.0), shape, x)
        } else {
            Body::rigid(format!("r{i}"), dim, rng.gen_range(0.5..5.0), shape, x)
        };
        if dim == Dimension::Three {
            b.orientation = Quat([
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1.0..1.0),
                rng.gen_range(-1.0..1.0),
                1.0,
            ])
            .normalized();
        } else {
            b.orientation = Quat::from_angle_z(rng.gen_range(-3.0..3.0));
        }
        bodies.push(b);
    }
    bodies.push(Body::fixed("floor", Shape::HalfSpace { normal: [0.0, 1.0, 0.0], offset: 0.5 }));
    bodies
}

fn assembled(
    bodies: &[Body],
    dim: Dimension,
    friction: bool,
) -> (DofLayout, Jacobian, BlockDiagonalMass) {
    let layout = DofLayout::new(dim, bodies);
    let contacts = signorini_contact::detect_contacts(bodies, dim, 0.5).expect("detects");
    let k = if dim == Dimension::Two { 2 } else { 5 };
    let jac = if friction {
        Jacobian::with_friction(&layout, bodies, &contacts, k)
    } else {
        Jacobian::normal(&layout, bodies, &contacts)
    };
    let mass = BlockDiagonalMass::new(&layout, bodies);
    (layout, jac, mass)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn jacobian_matches_finite_differences_3d(bodies in pair_3d()) {
        check_derivatives(&bodies, Dimension::Three)?;
    }

    #[test]
    fn jacobian_matches_finite_differences_2d(bodies in pair_2d()) {
        check_derivatives(&bodies, Dimension::Two)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    #[test]
    fn delassus_symmetric_psd_and_equal_to_dense_product(seed in 0u64..1_000_000, three_d in any::<bool>(), friction in any::<bool>()) {
        let dim = if three_d { Dimension::Three } else { Dimension::Two };
        let bodies = cloud(12, seed, dim);
        let (_, jac, mass) = assembled(&bodies, dim, friction);
        // CSR form: columns strictly increasing within each row (no duplicates), in range.
        let csr = mass.delassus_csr(&jac);
        prop_assert_eq!(csr.row_ptr.len(), csr.nrows + 1);
        for r in 0..csr.nrows {
            let cols = &csr.col[csr.row_ptr[r]..csr.row_ptr[r + 1]];
            prop_assert!(cols.windows(2).all(|c| c[0] < c[1]), "row {r}: columns {cols:?}");
            prop_assert!(cols.iter().all(|&c| c < csr.ncols), "row {r}: column out of range");
        }
        let w = mass.delassus(&jac).to_dense();
        let m = w.len();
        let scale = w.iter().flatten().fold(0.0_f64, |a, v| a.max(v.abs())).max(1e-300);
        for i in 0..m {
            for j in 0..m {
                prop_assert!((w[i][j] - w[j][i]).abs() <= 1e-15 * scale, "asymmetric at ({i},{j})");
            }
        }
        // Dense mass matrix from the blocks, inverted by Cholesky: the generic J M^-1 J^T.
        let dense = mass.dense_matrix();
        let generic = DenseMass::new(dense).expect("SPD").delassus(&jac).to_dense();
        for i in 0..m {
            for j in 0..m {
                prop_assert!((w[i][j] - generic[i][j]).abs() <= 1e-10 * scale, "W[{i}][{j}] = {} vs dense {}", w[i][j], generic[i][j]);
            }
        }
        if m > 0 {
            let wm = faer::Mat::from_fn(m, m, |i, j| w[i][j]);
            let eig = wm.self_adjoint_eigenvalues(faer::Side::Lower).expect("eigenvalues");
            let min = eig.iter().fold(f64::INFINITY, |a, &v| a.min(v));
            prop_assert!(min >= -1e-12 * scale, "W not PSD: min eigenvalue {min}");
        }
    }
}

#[test]
fn delassus_assembly_is_independent_of_thread_count() {
    let bodies = cloud(80, 7, Dimension::Three);
    let (_, jac, mass) = assembled(&bodies, Dimension::Three, true);
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool")
            .install(|| mass.delassus(&jac))
    };
    let (one, four) = (run(1), run(4));
    assert!(one.nnz() > 0);
    assert_eq!(one.row, four.row);
    assert_eq!(one.col, four.col);
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&one.val), bits(&four.val));
}

#[test]
fn broad_phase_finds_exactly_the_brute_force_pairs() {
    for (seed, dim) in [(1, Dimension::Three), (2, Dimension::Two), (3, Dimension::Three)] {
        let bodies = cloud(200, seed, dim);
        let fast = signorini_contact::detect_contacts(&bodies, dim, 0.05).expect("detects");
        let mut brute = Vec::new();
        for i in 0..bodies.len() {
            for j in i + 1..bodies.len() {
                brute.extend(pair_contacts(&bodies, dim, i, j, 0.05).expect("pair"));
            }
        }
        assert_eq!(fast.len(), brute.len(), "seed {seed}");
        for (a, b) in fast.iter().zip(&brute) {
            assert_eq!((a.body_a, a.body_b, a.feature), (b.body_a, b.body_b, b.feature));
        }
    }
}

#[test]
fn matrix_free_operator_equals_assembled_w() {
    let bodies = cloud(60, 11, Dimension::Three);
    let (_, jac, mass) = assembled(&bodies, Dimension::Three, true);
    let w = mass.delassus(&jac);
    let op = signorini_contact::DelassusOperator::new(&jac, &mass);
    let x: Vec<f64> = (0..jac.n_rows()).map(|i| ((i * 37 % 11) as f64) - 5.0).collect();
    let (a, b) = (w.mul_vec(&x), op.apply(&x));
    let scale = a.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
    for (p, q) in a.iter().zip(&b) {
        assert!((p - q).abs() <= 1e-12 * scale);
    }
    let diag = op.diagonal();
    let dense = w.to_dense();
    for (i, d) in diag.iter().enumerate() {
        assert!((d - dense[i][i]).abs() <= 1e-12 * scale);
    }
}
