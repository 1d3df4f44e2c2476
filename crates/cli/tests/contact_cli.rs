//! `signorini contact` end to end on scenes written to a temporary folder: the pulled block of
//! REFERENCE.md A5 (u = 5, 25, 19.62 N), a 3D box resting on four corners (singular W: only the
//! sum of the reactions is unique), scenes built here from the schema (2D and 3D, coupled and
//! singular W, with and without friction) against closed forms to 1e-9, and bad scenes (exit 2,
//! one stderr line naming file and key).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn tmp(name: &str, text: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("contact_cli");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write scene");
    path
}

fn signorini(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_signorini")).args(args).output().expect("binary runs")
}

fn contact_json(path: &Path, extra: &[&str]) -> Value {
    let p = path.to_string_lossy().into_owned();
    let mut args = vec!["contact", p.as_str(), "--json", "--solver", "lemke"];
    args.extend_from_slice(extra);
    let out = signorini(&args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout {stdout} stderr {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).expect("one JSON object")
}

fn floats(v: &Value, key: &str) -> Vec<f64> {
    v[key]
        .as_array()
        .unwrap_or_else(|| panic!("{key} missing in {v}"))
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn pulled_block(u: f64) -> String {
    format!(
        r#"
dimension = 2
gravity = [0.0, -9.81]
[[body]]
name = "block"
mass = 2.0
inertia = 0.0417
shape = {{ type = "box", half_extents = [0.25, 0.25] }}
position = [0.0, 0.25]
force = [0.0, {u:?}]
[[body]]
name = "floor"
fixed = true
shape = {{ type = "halfspace", normal = [0.0, 1.0], offset = 0.0 }}
"#
    )
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(1.0)
}

/// N = max(mg - u, 0) and a = max((u - mg)/m, 0) with m = 2 kg, g = 9.81 m/s^2.
fn check_pulled_block(u: f64, expected_sum: f64, expected_accel: f64) {
    let v = contact_json(&tmp(&format!("block_{u}.toml"), &pulled_block(u)), &[]);
    assert_eq!(v["n_contacts"].as_u64(), Some(2), "{v}");
    assert_eq!(v["status"].as_str(), Some("solved"));
    for key in ["contacts", "W", "b", "reactions", "normal_accelerations"] {
        assert!(v.get(key).is_some(), "{key} missing");
    }
    for c in v["contacts"].as_array().expect("contacts") {
        assert_eq!(c["body_a"].as_str(), Some("block"));
        assert_eq!(c["body_b"].as_str(), Some("floor"));
        assert!(c["gap"].as_f64().expect("gap").abs() < 1e-12);
    }
    let n = floats(&v, "reactions");
    let sum: f64 = n.iter().sum();
    assert!(close(sum, expected_sum, 1e-9), "u = {u}: sum of reactions {sum}");
    assert!(n.iter().all(|&x| x >= -1e-12), "{n:?}");
    for a in floats(&v, "normal_accelerations") {
        assert!(close(a, expected_accel, 1e-9), "u = {u}: normal acceleration {a}");
    }
}

#[test]
fn pulled_block_u5_carries_14_62_newton() {
    check_pulled_block(5.0, 2.0 * 9.81 - 5.0, 0.0);
}

#[test]
fn pulled_block_u25_lifts_off_at_2_69() {
    check_pulled_block(25.0, 0.0, (25.0 - 2.0 * 9.81) / 2.0);
}

#[test]
fn pulled_block_u19_62_touches_unloaded() {
    check_pulled_block(19.62, 0.0, 0.0);
}

#[test]
fn box_3d_on_four_corners_carries_its_weight() {
    let text = r#"
dimension = 3
gravity = [0.0, 0.0, -9.81]
[[body]]
name = "box"
mass = 3.0
shape = { type = "box", half_extents = [0.5, 0.3, 0.2] }
position = [0.0, 0.0, 0.2]
orientation = [1.0, 0.0, 0.0, 0.0]
[[body]]
name = "floor"
fixed = true
shape = { type = "halfspace", normal = [0.0, 0.0, 1.0], offset = 0.0 }
"#;
    let v = contact_json(&tmp("box3d.toml", text), &[]);
    assert_eq!(v["n_contacts"].as_u64(), Some(4));
    let sum: f64 = floats(&v, "reactions").iter().sum();
    assert!(close(sum, 3.0 * 9.81, 1e-9), "sum {sum}");
    for a in floats(&v, "normal_accelerations") {
        assert!(a.abs() < 1e-9, "normal acceleration {a}");
    }
}

#[test]
fn velocity_level_reports_normal_velocities() {
    let v = contact_json(
        &tmp("block_vel.toml", &pulled_block(5.0)),
        &["--level", "velocity", "--step", "0.01"],
    );
    let sum: f64 = floats(&v, "reactions").iter().sum();
    assert!(close(sum, 0.01 * 14.62, 1e-9), "impulse sum {sum}");
    for u in floats(&v, "normal_velocities") {
        assert!(u.abs() < 1e-9, "{u}");
    }
}

fn assert_bad(name: &str, text: &str, needle: &str) {
    let path = tmp(name, text);
    let p = path.to_string_lossy().into_owned();
    let out = signorini(&["contact", &p, "--json"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{name}: stderr {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{name}: {err}");
    assert!(err.contains(name), "{name}: file not named: {err}");
    assert!(err.contains(needle), "{name}: {err} lacks {needle}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.stdout.is_empty());
}

#[test]
fn bad_scenes_exit_2_naming_file_and_key() {
    let base = pulled_block(5.0);
    assert_bad(
        "unknown_key.toml",
        &base.replace("inertia = 0.0417", "inertai = 0.0417"),
        "inertai",
    );
    assert_bad("unknown_shape.toml", &base.replace("\"box\"", "\"cone\""), "cone");
    assert_bad("negative_mass.toml", &base.replace("mass = 2.0", "mass = -2.0"), "mass");
    assert_bad(
        "nan_position.toml",
        &base.replace("position = [0.0, 0.25]", "position = [nan, 0.25]"),
        "position",
    );
    let quat = r#"
dimension = 3
[[body]]
name = "box"
mass = 1.0
shape = { type = "box", half_extents = [0.5, 0.5, 0.5] }
orientation = [1.0, 1.0, 0.0, 0.0]
"#;
    assert_bad("non_unit_quaternion.toml", quat, "orientation");
}

// ---------------------------------------------------------------------------------------------
// Scenes written here from the schema (not in the repository), against closed forms: 2D and
// 3D, coupled W, singular W, with and without friction. Singular W: only what is unique is
// compared (resultant force and moment of the reactions, the accelerations).

const G: f64 = 9.81;

/// Contact points and normals of a report, as 3-vectors (2D: z = 0).
fn frames(v: &Value) -> Vec<([f64; 3], [f64; 3])> {
    let vec3 = |x: &Value| {
        let a: Vec<f64> =
            x.as_array().expect("array").iter().map(|e| e.as_f64().expect("number")).collect();
        [a[0], a[1], a.get(2).copied().unwrap_or(0.0)]
    };
    v["contacts"]
        .as_array()
        .expect("contacts")
        .iter()
        .map(|c| (vec3(&c["point"]), vec3(&c["normal"])))
        .collect()
}

/// The friction directions of a contact with normal n, as the reactions order them
/// (signorini_contact::jacobian::friction_directions: 2D ±e_z × n; 3D k in the tangent plane).
fn directions(dim: usize, n: [f64; 3], k: usize) -> Vec<[f64; 3]> {
    let d = if dim == 2 {
        signorini_contact::Dimension::Two
    } else {
        signorini_contact::Dimension::Three
    };
    signorini_contact::jacobian::friction_directions(d, n, k)
}

/// Resultant force and moment about `centre` of the reactions (normal components first, then k
/// tangential components per contact when `k` is given).
fn resultant(v: &Value, dim: usize, k: Option<usize>, centre: [f64; 3]) -> ([f64; 3], [f64; 3]) {
    let z = floats(v, "reactions");
    let fr = frames(v);
    let nc = fr.len();
    let mut force = [0.0; 3];
    let mut moment = [0.0; 3];
    for (c, (p, n)) in fr.iter().enumerate() {
        let mut f = n.map(|x| x * z[c]);
        if let Some(k) = k {
            for (d, t) in directions(dim, *n, k).iter().enumerate() {
                for i in 0..3 {
                    f[i] += z[nc + c * k + d] * t[i];
                }
            }
        }
        let r = [p[0] - centre[0], p[1] - centre[1], p[2] - centre[2]];
        let m = [r[1] * f[2] - r[2] * f[1], r[2] * f[0] - r[0] * f[2], r[0] * f[1] - r[1] * f[0]];
        for i in 0..3 {
            force[i] += f[i];
            moment[i] += m[i];
        }
    }
    (force, moment)
}

fn assert_close(what: &str, got: f64, want: f64, scale: f64) {
    assert!((got - want).abs() <= 1e-9 * scale, "{what}: {got} vs closed form {want}");
}

fn assert_zero_accelerations(v: &Value) {
    for a in floats(v, "normal_accelerations") {
        assert!(a.abs() <= 1e-9 * G, "normal acceleration {a}");
    }
}

/// A disk in an asymmetric V-groove of half-planes through the origin with inward normals
/// n1 = (sin α, cos α), n2 = (−sin β, cos β); `pull` is a force at the centre.
fn groove_2d(alpha: f64, beta: f64, pull: [f64; 2]) -> String {
    let (sa, ca, sb, cb) = (alpha.sin(), alpha.cos(), beta.sin(), beta.cos());
    format!(
        r#"
dimension = 2
gravity = [0.0, -9.81]
[[body]]
name = "disk"
mass = 1.5
shape = {{ type = "sphere", radius = 0.3 }}
position = [0.0, 0.0]
force = [{:?}, {:?}]
[[body]]
name = "left"
fixed = true
shape = {{ type = "halfspace", normal = [{sa:?}, {ca:?}], offset = -0.3 }}
[[body]]
name = "right"
fixed = true
shape = {{ type = "halfspace", normal = [{:?}, {cb:?}], offset = -0.3 }}
"#,
        pull[0], pull[1], -sb
    )
}

#[test]
fn coupled_2d_disk_in_asymmetric_groove() {
    // W = [[1, c], [c, 1]] / m with c = n1 . n2 = cos(α + β): coupled. Statics:
    // N1 = m g sin β / sin(α + β), N2 = m g sin α / sin(α + β).
    let (alpha, beta, m) = (0.5_f64, 0.9_f64, 1.5);
    let v = contact_json(&tmp("groove2d.toml", &groove_2d(alpha, beta, [0.0, 0.0])), &[]);
    assert_eq!(v["n_contacts"].as_u64(), Some(2), "{v}");
    let w = &v["W"];
    let off: Vec<f64> = w["row"]
        .as_array()
        .expect("row")
        .iter()
        .zip(w["col"].as_array().expect("col"))
        .zip(w["val"].as_array().expect("val"))
        .filter(|((r, c), _)| r != c)
        .map(|(_, x)| x.as_f64().expect("number"))
        .collect();
    assert_eq!(off.len(), 2, "W is coupled: {w}");
    for x in off {
        assert_close("W_12", x, (alpha + beta).cos() / m, 1.0 / m);
    }
    let n = floats(&v, "reactions");
    let s = (alpha + beta).sin();
    assert_close("N1", n[0], m * G * beta.sin() / s, m * G);
    assert_close("N2", n[1], m * G * alpha.sin() / s, m * G);
    assert_zero_accelerations(&v);
}

#[test]
fn coupled_2d_groove_pushed_sideways_separates_one_contact() {
    // Push towards the left plane: the right contact opens. With F = m g + pull:
    // N1 = -n1 . F, N2 = 0, a2 = n2 . F / m + (n1 . n2) N1 / m (> 0).
    let (alpha, beta, m) = (0.5_f64, 0.9_f64, 1.5);
    let pull = [-40.0, 0.0];
    let v = contact_json(&tmp("groove2d_push.toml", &groove_2d(alpha, beta, pull)), &[]);
    let f = [pull[0], pull[1] - m * G];
    let n1 = [alpha.sin(), alpha.cos()];
    let n2 = [-beta.sin(), beta.cos()];
    let n1f = n1[0] * f[0] + n1[1] * f[1];
    let n2f = n2[0] * f[0] + n2[1] * f[1];
    let c = n1[0] * n2[0] + n1[1] * n2[1];
    let big_n1 = -n1f;
    let a2 = n2f / m + c * big_n1 / m;
    assert!(big_n1 > 0.0 && a2 > 0.0, "the chosen push opens contact 2");
    let n = floats(&v, "reactions");
    assert_close("N1", n[0], big_n1, 40.0);
    assert!(n[1].abs() <= 1e-9 * 40.0, "N2 = {}", n[1]);
    let a = floats(&v, "normal_accelerations");
    assert!(a[0].abs() <= 1e-9 * G, "a1 = {}", a[0]);
    assert_close("a2", a[1], a2, 40.0 / m);
}

#[test]
fn coupled_3d_sphere_in_a_tilted_groove() {
    // Groove along x, gravity tilted by θ towards -x: the sphere accelerates along the groove,
    // both contacts stay closed with N1 = m g cos θ sin β / sin(α + β), N2 likewise with α.
    let (alpha, beta, theta, m) = (0.6_f64, 0.8_f64, 0.3_f64, 2.5);
    let text = format!(
        r#"
dimension = 3
gravity = [{:?}, 0.0, {:?}]
[[body]]
name = "ball"
mass = 2.5
shape = {{ type = "sphere", radius = 0.4 }}
position = [0.0, 0.0, 0.0]
velocity = [1.0, 0.0, 0.0]
[[body]]
name = "left"
fixed = true
shape = {{ type = "halfspace", normal = [0.0, {:?}, {:?}], offset = -0.4 }}
[[body]]
name = "right"
fixed = true
shape = {{ type = "halfspace", normal = [0.0, {:?}, {:?}], offset = -0.4 }}
"#,
        -G * theta.sin(),
        -G * theta.cos(),
        alpha.sin(),
        alpha.cos(),
        -beta.sin(),
        beta.cos()
    );
    let v = contact_json(&tmp("groove3d.toml", &text), &[]);
    assert_eq!(v["n_contacts"].as_u64(), Some(2), "{v}");
    let n = floats(&v, "reactions");
    let s = (alpha + beta).sin();
    let load = m * G * theta.cos();
    assert_close("N1", n[0], load * beta.sin() / s, m * G);
    assert_close("N2", n[1], load * alpha.sin() / s, m * G);
    assert_zero_accelerations(&v);
}

#[test]
fn singular_2d_rectangle_on_three_coplanar_contacts() {
    // Two floor corners and a fixed disk under the bottom face at x = 0.1: three coplanar
    // contacts on a rigid body with three velocities, W of rank 2. Unique: the resultant
    // (m g - u upwards) and its moment about the centre (zero), the accelerations (zero).
    let (m, u) = (2.0, 5.0);
    let text = format!(
        r#"
dimension = 2
gravity = [0.0, -9.81]
[[body]]
name = "plank"
mass = {m:?}
inertia = 0.05
shape = {{ type = "box", half_extents = [0.4, 0.2] }}
position = [0.0, 0.2]
force = [0.0, {u:?}]
[[body]]
name = "floor"
fixed = true
shape = {{ type = "halfspace", normal = [0.0, 1.0], offset = 0.0 }}
[[body]]
name = "peg"
fixed = true
shape = {{ type = "sphere", radius = 0.3 }}
position = [0.1, -0.3]
"#
    );
    let v = contact_json(&tmp("plank3.toml", &text), &[]);
    assert_eq!(v["n_contacts"].as_u64(), Some(3), "{v}");
    assert_eq!(v["status"].as_str(), Some("solved"));
    // The peg contact's normal points from the plank to the peg; the force on the plank is
    // minus that on the peg: orient every reaction as a force on the plank.
    let z = floats(&v, "reactions");
    let fr = frames(&v);
    let names: Vec<&str> = v["contacts"]
        .as_array()
        .expect("contacts")
        .iter()
        .map(|c| c["body_a"].as_str().expect("name"))
        .collect();
    let (mut fy, mut moment) = (0.0, 0.0);
    for ((zi, (p, n)), a) in z.iter().zip(&fr).zip(&names) {
        let sign = if *a == "plank" { 1.0 } else { -1.0 };
        let f = [sign * zi * n[0], sign * zi * n[1]];
        fy += f[1];
        moment += p[0] * f[1] - (p[1] - 0.2) * f[0];
        assert!(f[0].abs() <= 1e-12 * m * G);
    }
    assert_close("resultant", fy, m * G - u, m * G);
    assert_close("moment about the centre", moment, 0.0, m * G);
    assert_zero_accelerations(&v);
}

#[test]
fn singular_3d_box_on_four_corners_resultant_and_moment() {
    // Singular W (4 contacts, 3 independent constraints): the reactions are not unique, their
    // resultant (m g up) and their moment about the centre (zero) are.
    let m = 3.0;
    let text = r#"
dimension = 3
gravity = [0.0, 0.0, -9.81]
[[body]]
name = "box"
mass = 3.0
shape = { type = "box", half_extents = [0.5, 0.3, 0.2] }
position = [0.0, 0.0, 0.2]
orientation = [0.9238795325112867, 0.0, 0.0, 0.3826834323650898]
[[body]]
name = "floor"
fixed = true
shape = { type = "halfspace", normal = [0.0, 0.0, 1.0], offset = 0.0 }
"#;
    let v = contact_json(&tmp("box3d_turned.toml", text), &[]);
    assert_eq!(v["n_contacts"].as_u64(), Some(4));
    let (f, mo) = resultant(&v, 3, None, [0.0, 0.0, 0.2]);
    assert_close("F_z", f[2], m * G, m * G);
    for (i, x) in mo.iter().enumerate() {
        assert_close(&format!("moment {i}"), *x, 0.0, m * G);
    }
    assert_zero_accelerations(&v);
}

fn block_with_friction(mu: f64, push: f64) -> String {
    format!(
        r#"
dimension = 2
gravity = [0.0, -9.81]
[material]
friction = {mu:?}
[[body]]
name = "block"
mass = 2.0
inertia = 0.0417
shape = {{ type = "box", half_extents = [0.25, 0.25] }}
position = [0.0, 0.25]
force = [{push:?}, 0.0]
[[body]]
name = "floor"
fixed = true
shape = {{ type = "halfspace", normal = [0.0, 1.0], offset = 0.0 }}
"#
    )
}

#[test]
fn friction_2d_block_sticks_below_mu_m_g() {
    // F = 5 N < μ m g = 9.81 N: the block stays (zero sliding multipliers); the friction
    // resultant is -F, the normal resultant m g, and the moment about the centre is zero
    // (two corners, singular tangential split: only resultants are compared).
    let (m, mu, push) = (2.0, 0.5, 5.0);
    let v = contact_json(&tmp("block_stick.toml", &block_with_friction(mu, push)), &[]);
    assert_eq!(v["status"].as_str(), Some("solved"));
    let (f, mo) = resultant(&v, 2, Some(2), [0.0, 0.25, 0.0]);
    assert_close("friction resultant", f[0], -push, m * G);
    assert_close("normal resultant", f[1], m * G, m * G);
    assert_close("moment", mo[2], 0.0, m * G);
    for l in floats(&v, "sliding_speeds") {
        assert!(l.abs() <= 1e-9 * G, "sliding multiplier {l}");
    }
    assert_zero_accelerations(&v);
}

#[test]
fn friction_2d_block_slides_above_mu_m_g() {
    // F = 15 N > μ m g: it slides with a = (F - μ m g)/m, the friction resultant is -μ m g and
    // each contact's sliding multiplier is the sliding acceleration a.
    let (m, mu, push) = (2.0, 0.5, 15.0);
    let v = contact_json(&tmp("block_slide.toml", &block_with_friction(mu, push)), &[]);
    let (f, mo) = resultant(&v, 2, Some(2), [0.0, 0.25, 0.0]);
    assert_close("friction resultant", f[0], -mu * m * G, m * G);
    assert_close("normal resultant", f[1], m * G, m * G);
    assert_close("moment", mo[2], 0.0, m * G);
    let a = (push - mu * m * G) / m;
    for l in floats(&v, "sliding_speeds") {
        assert_close("sliding acceleration", l, a, G);
    }
    assert_zero_accelerations(&v);
}

fn ball_with_friction(mu: f64, push: f64) -> String {
    format!(
        r#"
dimension = 3
gravity = [0.0, 0.0, -9.81]
[material]
friction = {mu:?}
[[body]]
name = "ball"
mass = 2.0
shape = {{ type = "sphere", radius = 0.5 }}
position = [0.0, 0.0, 0.5]
force = [{push:?}, 0.0, 0.0]
[[body]]
name = "floor"
fixed = true
shape = {{ type = "halfspace", normal = [0.0, 0.0, 1.0], offset = 0.0 }}
"#
    )
}

#[test]
fn friction_3d_ball_rolls_with_two_sevenths_friction() {
    // Solid ball (I = 2/5 m r²) pushed at its centre: rolling without slipping needs the
    // friction force -2F/7 (|2F/7| <= μ m g), along a cone direction (x) of k = 4.
    let (m, mu, push) = (2.0, 0.3, 7.0);
    let v = contact_json(&tmp("ball_roll.toml", &ball_with_friction(mu, push)), &[]);
    let (f, _) = resultant(&v, 3, Some(4), [0.0, 0.0, 0.5]);
    assert_close("friction x", f[0], -2.0 * push / 7.0, m * G);
    assert_close("friction y", f[1], 0.0, m * G);
    assert_close("normal", f[2], m * G, m * G);
    for l in floats(&v, "sliding_speeds") {
        assert!(l.abs() <= 1e-9 * G, "sliding multiplier {l}");
    }
    assert_zero_accelerations(&v);
}

#[test]
fn friction_3d_ball_slides_and_spins_up() {
    // 2F/7 > μ m g: it slides; friction -μ m g, and the contact point accelerates at
    // (F - μ m g)/m - r² μ m g / I = (F - μ m g)/m - (5/2) μ g: the sliding multiplier.
    let (m, mu, push) = (2.0, 0.2, 20.0);
    let v = contact_json(&tmp("ball_slide.toml", &ball_with_friction(mu, push)), &[]);
    let (f, _) = resultant(&v, 3, Some(4), [0.0, 0.0, 0.5]);
    assert_close("friction x", f[0], -mu * m * G, m * G);
    assert_close("normal", f[2], m * G, m * G);
    let slip = (push - mu * m * G) / m - 2.5 * mu * G;
    assert!(slip > 0.0);
    let l = floats(&v, "sliding_speeds");
    assert_eq!(l.len(), 1);
    assert_close("contact-point acceleration", l[0], slip, G);
    assert_zero_accelerations(&v);
}

/// The ball of `ball_with_friction` pushed with |F| along 30° (between the facet directions a
/// polyhedral cone would have).
fn ball_pushed_along_30_degrees(mu: f64, push: f64) -> String {
    let (c, s) = (push * 30f64.to_radians().cos(), push * 30f64.to_radians().sin());
    ball_with_friction(mu, push)
        .replace(&format!("force = [{push:?}, 0.0, 0.0]"), &format!("force = [{c:?}, {s:?}, 0.0]"))
}

/// `contact --friction cone`: the exact Coulomb cone from the scene, solved by a
/// signorini-friction solver. A solid ball pushed at its centre rolls with friction 2F/7 when
/// 2F/7 <= mu m g, whatever the direction (u = 0), and slides otherwise with mu m g against
/// its sliding velocity.
#[test]
fn friction_cone_ball_rolls_or_slides_in_any_direction() {
    let (m, mu) = (2.0, 0.3);
    for (push, rolls) in [(7.0, true), (30.0, false)] {
        let scene = tmp(&format!("ball_cone_{push}.toml"), &ball_pushed_along_30_degrees(mu, push));
        let out = signorini(&["contact", &scene.to_string_lossy(), "--friction", "cone", "--json"]);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!((v["friction"].as_str(), v["dimension"].as_u64()), (Some("cone"), Some(3)));
        let (r, u) = (floats(&v, "r"), floats(&v, "u"));
        assert_close("normal", r[0], m * G, m * G);
        let rt = r[1].hypot(r[2]);
        if rolls {
            assert_close("rolling friction", rt, 2.0 * push / 7.0, m * G);
            assert!(u.iter().all(|x| x.abs() <= 1e-9 * G), "rolling: u = {u:?}");
        } else {
            assert_close("sliding friction", rt, mu * m * G, m * G);
            let ut = u[1].hypot(u[2]);
            let cross = (r[1] * u[2] - r[2] * u[1]) / (rt * ut);
            assert!(cross.abs() <= 1e-9 && r[1] * u[1] + r[2] * u[2] < 0.0, "r {r:?} u {u:?}");
        }
    }
}

/// `--export` writes the problem as signorini-fc/1 JSON or FCLIB local HDF5 that `signorini fc`
/// solves to the same r; the position level and --export without the cone are refused with one line.
#[test]
fn friction_cone_export_round_trips_and_bad_combinations_are_refused() {
    let scene = tmp("ball_cone_export.toml", &ball_pushed_along_30_degrees(0.3, 7.0));
    let s = scene.to_string_lossy().into_owned();
    let out_file = scene.with_extension("json");
    let o = out_file.to_string_lossy().into_owned();
    let out = signorini(&["contact", &s, "--friction", "cone", "--json", "--export", &o]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let direct = floats(&serde_json::from_slice(&out.stdout).expect("JSON"), "r");
    let fc = signorini(&["fc", &o, "--json"]);
    assert_eq!(fc.status.code(), Some(0), "{}", String::from_utf8_lossy(&fc.stderr));
    let again = floats(&serde_json::from_slice(&fc.stdout).expect("JSON"), "r");
    for (a, b) in direct.iter().zip(&again) {
        assert!((a - b).abs() <= 1e-9 * 2.0 * G, "{direct:?} vs {again:?}");
    }
    // The FCLIB local form: `signorini fc` reads it back to the same r.
    let h5 = scene.with_extension("hdf5").to_string_lossy().into_owned();
    let out = signorini(&["contact", &s, "--friction", "cone", "--json", "--export", &h5]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let fc = signorini(&["fc", &h5, "--json"]);
    assert_eq!(fc.status.code(), Some(0), "{}", String::from_utf8_lossy(&fc.stderr));
    let from_fclib = floats(&serde_json::from_slice(&fc.stdout).expect("JSON"), "r");
    for (a, b) in direct.iter().zip(&from_fclib) {
        assert!((a - b).abs() <= 1e-9 * 2.0 * G, "{direct:?} vs {from_fclib:?}");
    }
    for (args, needle) in [
        (vec!["--friction", "cone", "--level", "position", "--step", "0.01"], "velocity level"),
        (vec!["--export", o.as_str()], "--friction cone"),
        (vec!["--friction", "cone", "--export", "/tmp/x.csv"], ".hdf5"),
    ] {
        let mut a = vec!["contact", s.as_str()];
        a.extend(args);
        let out = signorini(&a);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{a:?}: {err}");
        assert!(err.contains(needle) && err.trim_end().lines().count() == 1, "{a:?}: {err}");
    }
    let vel =
        signorini(&["contact", &s, "--friction", "cone", "--level", "velocity", "--step", "0.01"]);
    assert_eq!(vel.status.code(), Some(0), "{}", String::from_utf8_lossy(&vel.stderr));
}

/// Issue 16: `--delassus matrix-free` hands W over as its Gram form; lemke (which reads
/// entries) and pgs (matrix-free) give the assembled answer; friction rows refuse it.
#[test]
fn delassus_matrix_free_gives_the_assembled_reactions() {
    let path = tmp("tray_block.toml", &pulled_block(5.0));
    let assembled = contact_json(&path, &[]);
    let free = contact_json(&path, &["--delassus", "matrix-free"]);
    assert_eq!(free["W"]["row"], assembled["W"]["row"]);
    for (a, b) in floats(&free["W"], "val").iter().zip(floats(&assembled["W"], "val")) {
        assert!(close(*a, b, 1e-12), "W entry {a} vs {b}");
    }
    let sum = |v: &Value| floats(v, "reactions").iter().sum::<f64>();
    assert!(close(sum(&free), sum(&assembled), 1e-9));
    let p = path.to_string_lossy().into_owned();
    let out = signorini(&["contact", &p, "--json", "--solver", "pgs", "--delassus", "auto"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert!(close(sum(&v), sum(&assembled), 1e-6));
    let out =
        signorini(&["contact", &p, "--friction-directions", "2", "--delassus", "matrix-free"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("frictionless"));
    let out = signorini(&["contact", &p, "--delassus", "dense"]);
    assert_eq!(out.status.code(), Some(2));
}
