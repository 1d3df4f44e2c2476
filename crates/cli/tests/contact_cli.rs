//! `signorini contact` end to end on scenes written to a temporary folder: the pulled block of
//! REFERENCE.md A5 (u = 5, 25, 19.62 N), a 3D box resting on four corners (singular W: only the
//! sum of the reactions is unique) and bad scenes (exit 2, one stderr line naming file and key).

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
