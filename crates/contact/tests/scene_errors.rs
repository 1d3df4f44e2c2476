//! Bad scenes give typed errors that name the key (and the body), never a panic: unknown keys
//! and shapes, negative mass, non-unit quaternions, NaN, wrong lengths, in TOML and JSON.
#![allow(clippy::needless_range_loop)] // matrix tests read best with indices

use signorini_contact::{Scene, SceneError};

const BLOCK: &str = r#"
dimension = 2
gravity = [0.0, -9.81]
[[body]]
name = "block"
mass = 2.0
shape = { type = "box", half_extents = [0.25, 0.25] }
position = [0.0, 0.25]
[[body]]
name = "floor"
fixed = true
shape = { type = "halfspace", normal = [0.0, 1.0], offset = 0.0 }
"#;

fn toml_err(text: &str) -> SceneError {
    match Scene::from_toml_str(text) {
        Ok(s) => panic!("accepted a bad scene: {s:?}"),
        Err(e) => e,
    }
}

/// The message must name every word in `words`.
fn check(err: SceneError, words: &[&str]) {
    let msg = err.to_string();
    for w in words {
        assert!(msg.contains(w), "message `{msg}` does not name `{w}`");
    }
}

#[test]
fn the_base_scene_is_valid() {
    let s = Scene::from_toml_str(BLOCK).expect("valid");
    assert_eq!(s.bodies.len(), 2);
}

#[test]
fn unknown_top_level_key() {
    check(toml_err(&format!("colour = 1\n{BLOCK}")), &["colour"]);
}

#[test]
fn unknown_body_key() {
    let text = BLOCK.replace("mass = 2.0", "mass = 2.0\nmas = 3.0");
    check(toml_err(&text), &["mas"]);
}

#[test]
fn unknown_shape_type() {
    let text = BLOCK.replace("type = \"box\"", "type = \"cone\"");
    check(toml_err(&text), &["cone"]);
}

#[test]
fn unknown_shape_key() {
    let text = BLOCK.replace("half_extents", "half_extent");
    check(toml_err(&text), &["half_extent"]);
}

#[test]
fn negative_mass_names_body_and_key() {
    let text = BLOCK.replace("mass = 2.0", "mass = -2.0");
    let err = toml_err(&text);
    assert!(
        matches!(&err, SceneError::Invalid { key, body: Some(b), .. } if key == "mass" && b == "block")
    );
    check(err, &["block", "mass"]);
}

#[test]
fn nan_is_rejected_with_its_key() {
    let text = BLOCK.replace("position = [0.0, 0.25]", "position = [nan, 0.25]");
    check(toml_err(&text), &["block", "position[0]"]);
}

#[test]
fn wrong_length_vector() {
    let text = BLOCK.replace("position = [0.0, 0.25]", "position = [0.0, 0.25, 1.0]");
    check(toml_err(&text), &["position", "expected 2"]);
}

#[test]
fn non_unit_quaternion() {
    let text = r#"
dimension = 3
[[body]]
name = "cube"
mass = 1.0
shape = { type = "box", half_extents = [0.5, 0.5, 0.5] }
orientation = [1.0, 0.1, 0.0, 0.0]
"#;
    check(toml_err(text), &["cube", "orientation", "unit quaternion"]);
}

#[test]
fn angle_in_3d_and_orientation_in_2d() {
    let text = BLOCK.replace(
        "position = [0.0, 0.25]",
        "position = [0.0, 0.25]\norientation = [1.0, 0.0, 0.0, 0.0]",
    );
    check(toml_err(&text), &["orientation"]);
}

#[test]
fn missing_mass_for_a_free_body() {
    let text = BLOCK.replace("mass = 2.0\n", "");
    check(toml_err(&text), &["block", "mass"]);
}

#[test]
fn duplicate_names() {
    let text = BLOCK.replace("name = \"floor\"", "name = \"block\"");
    check(toml_err(&text), &["block", "twice"]);
}

#[test]
fn bad_dimension_and_restitution() {
    check(toml_err(&BLOCK.replace("dimension = 2", "dimension = 4")), &["dimension"]);
    check(toml_err(&format!("{BLOCK}\n[material]\nrestitution = 1.5\n")), &["restitution"]);
}

#[test]
fn json_errors_name_the_key() {
    let err = Scene::from_json_str(r#"{"dimension": 2, "body": [{"name": "a", "mass": 1.0, "shape": {"type": "sphere", "radius": 1.0}, "colour": 1}]}"#)
        .expect_err("unknown key");
    check(err, &["colour"]);
    let err = Scene::from_json_str(r#"{"dimension": 2, "body": [{"name": "a", "mass": -1.0, "shape": {"type": "sphere", "radius": 1.0}}]}"#)
        .expect_err("negative mass");
    check(err, &["a", "mass"]);
}

#[test]
fn missing_file_and_extension() {
    assert!(matches!(Scene::from_path("/nonexistent/scene.toml"), Err(SceneError::Io { .. })));
    let dir = std::env::temp_dir().join(format!("signorini-contact-{}.yaml", std::process::id()));
    std::fs::write(&dir, "x").expect("write");
    assert!(matches!(Scene::from_path(&dir), Err(SceneError::UnknownExtension { .. })));
    let _ = std::fs::remove_file(dir);
}
