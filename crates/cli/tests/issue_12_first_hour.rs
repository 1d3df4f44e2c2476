//! Regressions from issue 12 ("a clone that works anywhere, and the rough edges a new user hits
//! in the first hour"), one test per finding.
//!
//! - `simulate --out` wrote CSV by joining fields with commas, so a body named `"ball, red"`
//!   gave a 13-field header over 7-field rows. The writer is now the `csv` crate (RFC 4180).
//! - A TOML scene with the simulation keys `impact_law` / `impact` was re-serialised to JSON so
//!   that the contact crate's strict reader would accept the rest; any later error then named
//!   "JSON error ... at line 1 column 15". The scene reader now keeps the two keys itself, so
//!   the TOML parser reports the file's own line and key.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("issue_12");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    dir
}

fn write(name: &str, text: &str) -> PathBuf {
    let path = dir().join(name);
    std::fs::write(&path, text).expect("write scene");
    path
}

fn signorini(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_signorini")).args(args).output().expect("binary runs")
}

/// A falling disk named `name` above a floor, with both simulation keys set. Line 18 is the
/// disk's `position`.
fn ball_scene(name: &str, position_key: &str) -> String {
    format!(
        r#"# issue 12 regression scene
dimension = 2
gravity = [0.0, -9.81]

[material]
restitution = 0.5
impact_law = "newton"
impact = "simultaneous"

[[body]]
name = "floor"
fixed = true
shape = {{ type = "halfspace", normal = [0.0, 1.0], offset = 0.0 }}

[[body]]
name = "{name}"
mass = 1.0
{position_key} = [0.0, 0.2]
particle = true
shape = {{ type = "sphere", radius = 0.1 }}
"#
    )
}

#[test]
fn csv_quotes_a_body_name_with_a_comma() {
    let scene = write("ball_red.toml", &ball_scene("ball, red", "position"));
    let out = dir().join("ball_red.csv");
    let run = signorini(&[
        "simulate",
        &scene.to_string_lossy(),
        "--scheme",
        "moreau-jean",
        "--step",
        "1e-3",
        "--t-end",
        "0.005",
        "--out",
        &out.to_string_lossy(),
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let mut reader = csv::Reader::from_path(&out).expect("CSV written");
    let header: Vec<String> = reader.headers().expect("header").iter().map(str::to_owned).collect();
    assert_eq!(header.len(), 7, "t and six columns of the one free body: {header:?}");
    assert_eq!(header[1], "ball, red.x");
    let mut rows = 0;
    for record in reader.records() {
        let record = record.expect("every row parses with the header's field count");
        assert_eq!(record.len(), header.len());
        assert!(record.iter().all(|f| f.parse::<f64>().is_ok()), "numbers only: {record:?}");
        rows += 1;
    }
    assert_eq!(rows, 6, "t = 0, 1e-3, ..., 5e-3");
}

#[test]
fn toml_scene_with_impact_keys_reports_its_own_line_and_key() {
    let text = ball_scene("ball", "positon");
    assert_eq!(text.lines().nth(17), Some("positon = [0.0, 0.2]"), "the typo is on line 18");
    let scene = write("typo_line_18.toml", &text);
    let run = signorini(&[
        "simulate",
        &scene.to_string_lossy(),
        "--scheme",
        "moreau-jean",
        "--t-end",
        "0.01",
    ]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(err.contains("line 18"), "names the TOML file's own line: {err}");
    assert!(err.contains("`positon`"), "names the key: {err}");
    assert!(err.contains("TOML") && !err.contains("JSON"), "{err}");
    assert!(err.contains("typo_line_18.toml"), "names the file: {err}");
    // `contact` reads the same scene the same way.
    let run = signorini(&["contact", &scene.to_string_lossy()]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(err.contains("line 18") && err.contains("`positon`"), "{err}");
}

#[test]
fn a_bad_impact_law_names_its_key_and_value() {
    let text =
        ball_scene("ball", "position").replace("impact_law = \"newton\"", "impact_law = \"newtn\"");
    let scene = write("bad_law.toml", &text);
    let run = signorini(&[
        "simulate",
        &scene.to_string_lossy(),
        "--scheme",
        "moreau-jean",
        "--t-end",
        "0.01",
    ]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(err.contains("material.impact_law") && err.contains("newtn"), "{err}");
}

#[test]
fn solvers_json_lists_every_registered_solver_with_its_parameters() {
    let run = signorini(&["solvers", "--json"]);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let list: serde_json::Value = serde_json::from_slice(&run.stdout).expect("JSON");
    let list = list.as_array().expect("an array");
    let names: Vec<&str> = list.iter().filter_map(|s| s["name"].as_str()).collect();
    let registry = signorini_lcp::Registry::builtin();
    assert_eq!(names, registry.names(), "every registered solver, in registry order");
    for (entry, listed) in registry.entries().iter().zip(list) {
        let keys: Vec<&str> = listed["parameters"]
            .as_array()
            .expect("parameters")
            .iter()
            .filter_map(|p| p["key"].as_str())
            .collect();
        let expected: Vec<&str> = entry.keys.iter().map(|k| k.key).collect();
        assert_eq!(keys, expected, "{}", entry.name);
        assert!(listed["parameters"]
            .as_array()
            .into_iter()
            .flatten()
            .all(|p| p["default"].is_string() && p["doc"].is_string()));
        assert!(listed["summary"].as_str().is_some_and(|s| !s.is_empty()), "{}", entry.name);
    }
    for name in ["lemke", "pgs", "newton-min", "qp", "auto"] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    let text = signorini(&["solvers"]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("omega=") && text.contains("lemke"), "{text}");
}

#[test]
fn help_gives_exit_codes_and_output_keys() {
    let help = |cmd: &str| {
        let run = signorini(&[cmd, "--help"]);
        assert_eq!(run.status.code(), Some(0), "{cmd} --help");
        String::from_utf8_lossy(&run.stdout).into_owned()
    };
    let solve = help("solve");
    assert!(solve.contains("signorini solvers"), "solve --help points to the solver list");
    for key in ["status", "residual", "certificate", "solve_seconds", "warm_start"] {
        assert!(solve.contains(key), "solve --help names the JSON key {key}");
    }
    for cmd in ["solve", "contact", "simulate", "info", "convert"] {
        let h = help(cmd);
        assert!(h.contains("Exit codes") && h.contains("  2  bad input"), "{cmd} --help: {h}");
    }
    assert!(help("contact").contains("reactions"));
    assert!(help("simulate").contains("solver_failures"));
}
