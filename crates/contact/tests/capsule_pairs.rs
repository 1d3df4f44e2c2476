//! Sphere–capsule and capsule–capsule contacts: exact gaps, normals and witness points against
//! hand-computed segment distances (interior and end regions, 2D and 3D, capsules crossed at
//! right angles), and the acceleration-level LCP of a ball resting on a fixed capsule off its
//! top (N = m g cos φ along the normal through the axis).

use signorini_contact::{
    contact_problem, pair_contacts, Body, Dimension, Level, Quat, Scene, Shape,
};

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs().max(1.0)
}

fn capsule_and_ball(ball: [f64; 3], turn: f64, dim: Dimension) -> Vec<Body> {
    let mut rod = Body::rigid(
        "rod",
        dim,
        2.0,
        Shape::Capsule { half_length: 1.0, radius: 0.2 },
        [0.5, 0.0, 0.0],
    );
    rod.orientation = Quat::from_angle_z(turn);
    let ball = Body::rigid("ball", dim, 1.0, Shape::Sphere { radius: 0.5 }, ball);
    vec![rod, ball]
}

#[test]
fn ball_over_the_capsule_interior() {
    // Axis along x through (0.5, 0, 0): the closest axis point of (0.8, 1.2, 0) is (0.8, 0, 0).
    let bodies = capsule_and_ball([0.8, 1.2, 0.0], 0.0, Dimension::Three);
    let c = pair_contacts(&bodies, Dimension::Three, 0, 1, f64::INFINITY).expect("supported");
    assert_eq!(c.len(), 1);
    let c = &c[0];
    assert_eq!((c.body_a, c.body_b), (1, 0), "the ball is the point feature, the rod the surface");
    assert!(close(c.gap, 1.2 - 0.5 - 0.2), "gap {}", c.gap);
    assert!(close(c.normal[1], 1.0) && c.normal[0].abs() < 1e-15 && c.normal[2].abs() < 1e-15);
    assert!(close(c.point_b[0], 0.8) && close(c.point_b[1], 0.2));
    assert!(close(c.point_a[0], 0.8) && close(c.point_a[1], 0.7));
}

#[test]
fn ball_beyond_the_capsule_end_in_2d() {
    // Rod turned by 90°: its axis runs from (0.5, -1) to (0.5, 1); the ball at (1.5, 2) is
    // nearest the end (0.5, 1): distance √2, normal (1, 1)/√2.
    let bodies = capsule_and_ball([1.5, 2.0, 0.0], std::f64::consts::FRAC_PI_2, Dimension::Two);
    let c = &pair_contacts(&bodies, Dimension::Two, 0, 1, f64::INFINITY).expect("supported")[0];
    let s = std::f64::consts::FRAC_1_SQRT_2;
    assert!(close(c.gap, 2.0_f64.sqrt() - 0.7), "gap {}", c.gap);
    assert!(close(c.normal[0], s) && close(c.normal[1], s), "normal {:?}", c.normal);
    assert!(close(c.point_b[0], 0.5 + 0.2 * s) && close(c.point_b[1], 1.0 + 0.2 * s));
}

#[test]
fn ball_resting_on_a_fixed_capsule_carries_its_weight_component() {
    // Ball touching the rod's surface off the top: normal at angle φ from vertical; at the
    // acceleration level (frictionless) N = m g cos φ and the normal acceleration is 0.
    let phi: f64 = 0.4;
    let d = 0.2 + 0.5;
    let text = format!(
        r#"
dimension = 3
gravity = [0.0, -9.81, 0.0]
[[body]]
name = "rod"
fixed = true
shape = {{ type = "capsule", half_length = 1.0, radius = 0.2 }}
position = [0.0, 0.0, 0.0]
[[body]]
name = "ball"
mass = 1.5
shape = {{ type = "sphere", radius = 0.5 }}
position = [0.3, {:?}, {:?}]
"#,
        d * phi.cos(),
        d * phi.sin()
    );
    let scene = Scene::from_toml_str(&text).expect("scene");
    let p = contact_problem(&scene, Level::Acceleration, None, None).expect("problem");
    assert_eq!(p.n_contacts(), 1);
    assert!(p.contacts[0].gap.abs() < 1e-12);
    // 1 x 1 LCP: N = -b / W when b < 0.
    let w = p.delassus.as_ref().expect("assembled").to_dense()[0][0];
    let n = -p.b[0] / w;
    assert!(close(w, 1.0 / 1.5 + 0.0), "W = {w}");
    assert!(close(n, 1.5 * 9.81 * phi.cos()), "N = {n}");
}

#[test]
fn crossed_capsules_at_right_angles() {
    // Rod a along x through (0.5, 0, 0); rod b along z (turned about y) through (0.9, 0.6, 0.3):
    // closest core points (0.9, 0, 0) and (0.9, 0.6, 0), distance 0.6, normal from b to a -y,
    // witness points on the surfaces facing each other: (0.9, 0.2, 0) and (0.9, 0.3, 0).
    let mut a = Body::rigid(
        "a",
        Dimension::Three,
        1.0,
        Shape::Capsule { half_length: 1.0, radius: 0.2 },
        [0.5, 0.0, 0.0],
    );
    a.orientation = Quat([1.0, 0.0, 0.0, 0.0]);
    let mut b = Body::rigid(
        "b",
        Dimension::Three,
        1.0,
        Shape::Capsule { half_length: 0.5, radius: 0.3 },
        [0.9, 0.6, 0.3],
    );
    b.orientation = Quat::from_rotation_vector([0.0, -std::f64::consts::FRAC_PI_2, 0.0]);
    let bodies = vec![a, b];
    let c = pair_contacts(&bodies, Dimension::Three, 0, 1, f64::INFINITY).expect("supported");
    assert_eq!(c.len(), 1);
    let c = &c[0];
    assert!(close(c.gap, 0.6 - 0.2 - 0.3), "gap {}", c.gap);
    assert!(close(c.normal[1], -1.0), "normal {:?}", c.normal);
    assert!(c.normal[0].abs() < 1e-12 && c.normal[2].abs() < 1e-12);
    assert!(close(c.point_a[0], 0.9) && close(c.point_a[1], 0.2) && c.point_a[2].abs() < 1e-12);
    assert!(close(c.point_b[0], 0.9) && close(c.point_b[1], 0.3) && c.point_b[2].abs() < 1e-12);
}
