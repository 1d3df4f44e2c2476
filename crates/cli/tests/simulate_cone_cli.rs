//! `signorini simulate --scheme moreau-jean --friction cone`: the exact Coulomb cone in the time
//! stepper, end to end. Closed forms of the reference inclines (slide with
//! g (sin a - mu cos a), stick), the warm start's JSON figures on the granular column
//! (`--compare-cold`), the CSV, and every refused combination with its one line (exit 2).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const G: f64 = 9.81;

fn signorini(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_signorini")).args(args).output().expect("binary runs")
}

fn reference(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../verification/scenes")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn run_json(args: &[&str]) -> Value {
    let out = signorini(args);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{args:?}: stdout {stdout} stderr {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&stdout).expect("one JSON object")
}

/// Runs the binary, asserts exit 2 with one line on stderr and returns it.
fn refused(args: &[&str]) -> String {
    let out = signorini(args);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: more than one line: {err}");
    assert!(out.stdout.is_empty(), "{args:?}: stdout {}", String::from_utf8_lossy(&out.stdout));
    err
}

fn body(v: &Value, name: &str, key: &str) -> f64 {
    v["final_state"]["bodies"][name][key]
        .as_f64()
        .unwrap_or_else(|| panic!("final_state.bodies.{name}.{key} in {v}"))
}

fn count(v: &Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or_else(|| panic!("{key} in {v}"))
}

#[test]
fn inclines_slide_and_stick_with_the_exact_cone() {
    // incline-2d-slide: tan a = 0.7 > mu = 0.5, a = g (sin a - mu cos a) down the slope.
    let a = 0.7f64.atan();
    let slide = reference("incline-2d-slide.toml");
    for solver in ["auto", "nsgs"] {
        let v = run_json(&[
            "simulate",
            &slide,
            "--scheme",
            "moreau-jean",
            "--friction",
            "cone",
            "--solver",
            solver,
            "--step",
            "1e-3",
            "--t-end",
            "0.5",
            "--json",
        ]);
        assert_eq!(v["friction"], "cone");
        assert_eq!(v["warm_start"], "previous-step");
        assert_eq!(count(&v, "lcp_solves"), 500);
        let (vx, vy) = (body(&v, "block", "vx"), body(&v, "block", "vy"));
        let expected = G * (a.sin() - 0.5 * a.cos()) * 0.5;
        let along = vx * a.cos() - vy * a.sin();
        assert!((along - expected).abs() <= 1e-9 * expected, "{solver}: {along} vs {expected}");
        assert!((vx * a.sin() + vy * a.cos()).abs() <= 1e-9, "{solver}: leaves the incline");
    }
    // incline-2d-stick: tan a = 0.4 < mu, at rest; the 3D reference (tan a = 0.47 < 0.5) too,
    // where a polyhedral cone with six directions slides.
    for (scene, block) in [("incline-2d-stick.toml", "block"), ("incline-3d-cone.toml", "block")] {
        let v = run_json(&[
            "simulate",
            &reference(scene),
            "--scheme",
            "moreau-jean",
            "--friction",
            "cone",
            "--t-end",
            "0.5",
            "--json",
        ]);
        for key in ["vx", "vy", "vz"] {
            let x = v["final_state"]["bodies"][block][key].as_f64().unwrap_or(0.0);
            assert!(x.abs() <= 1e-9, "{scene}: {key} in {v}");
        }
    }
}

#[test]
fn compare_cold_reports_the_iterations_the_warm_start_saved_on_the_granular_column() {
    let column = reference("granular-column.toml");
    let v = run_json(&[
        "simulate",
        &column,
        "--scheme",
        "moreau-jean",
        "--friction",
        "cone",
        "--t-end",
        "0.2",
        "--json",
        "--compare-cold",
    ]);
    let (warm, cold) = (count(&v, "solver_iterations"), count(&v, "solver_iterations_cold"));
    assert!(warm < cold, "warm {warm}, cold {cold}");
    assert_eq!(v["iterations_saved_by_warm_start"].as_i64(), Some(cold as i64 - warm as i64));
    assert_eq!(count(&v, "solver_failures_total"), 0);
    assert_eq!(count(&v, "solver_failures_cold_total"), 0);
    // The cold run alone gives the cold figure.
    let alone = run_json(&[
        "simulate",
        &column,
        "--scheme",
        "moreau-jean",
        "--friction",
        "cone",
        "--t-end",
        "0.2",
        "--json",
        "--warm-start",
        "off",
    ]);
    assert_eq!(alone["warm_start"], "off");
    assert_eq!(count(&alone, "solver_iterations"), cold);
    assert!(alone.get("solver_iterations_cold").is_none());
}

#[test]
fn without_friction_cone_the_summary_keeps_its_keys() {
    let column = reference("granular-column.toml");
    let v =
        run_json(&["simulate", &column, "--scheme", "moreau-jean", "--t-end", "0.05", "--json"]);
    let keys: Vec<&str> = v.as_object().expect("object").keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "end",
            "final_state",
            "impacts",
            "impacts_total",
            "lcp_solves",
            "notes",
            "solver_failures",
            "solver_failures_total",
            "steps"
        ]
    );
}

#[test]
fn the_cone_streams_its_csv_and_prints_its_text_summary() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("simulate_cone_cli");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let csv = dir.join("slide.csv");
    let out = signorini(&[
        "simulate",
        &reference("incline-2d-slide.toml"),
        "--scheme",
        "moreau-jean",
        "--friction",
        "cone",
        "--t-end",
        "0.1",
        "--out",
        csv.to_str().expect("utf8"),
        "--compare-cold",
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("exact cone (auto)") && text.contains("the warm start saved"), "{text}");
    let rows = std::fs::read_to_string(&csv).expect("csv").lines().count();
    assert_eq!(rows, 1 + 1 + 100, "header, initial state, 100 steps");
}

#[test]
fn refused_combinations_exit_2_with_one_line() {
    let slide = reference("incline-2d-slide.toml");
    let base = ["simulate", slide.as_str(), "--t-end", "0.1"];
    let with = |extra: &[&'static str]| -> String {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        refused(&args)
    };
    let e = with(&["--scheme", "stewart-trinkle", "--friction", "cone"]);
    assert!(e.contains("--friction cone") && e.contains("moreau-jean"), "{e}");
    let e = with(&["--scheme", "event-driven", "--friction", "cone"]);
    assert!(e.contains("--friction cone") && e.contains("event-driven"), "{e}");
    let e = with(&["--scheme", "moreau-jean", "--friction", "cone", "--friction-directions", "2"]);
    assert!(e.contains("--friction-directions"), "{e}");
    let e = with(&["--scheme", "moreau-jean", "--friction", "cone", "--solver", "pgs"]);
    assert!(e.contains("--solver pgs") && e.contains("nsgs"), "{e}");
    let e = with(&["--scheme", "moreau-jean", "--friction", "cone", "--solver", "nsgs:omega=x"]);
    assert!(e.contains("--solver nsgs:omega=x") && e.contains("omega"), "{e}");
    let e = with(&["--scheme", "moreau-jean", "--friction", "polyhedral"]);
    assert!(e.contains("polyhedral") && e.contains("cone"), "{e}");
    let e = with(&["--scheme", "moreau-jean", "--compare-cold"]);
    assert!(e.contains("--compare-cold needs --friction cone"), "{e}");
    let e = with(&[
        "--scheme",
        "moreau-jean",
        "--friction",
        "cone",
        "--compare-cold",
        "--warm-start",
        "off",
    ]);
    assert!(e.contains("--compare-cold") && e.contains("--warm-start off"), "{e}");
    let missing = refused(&[
        "simulate",
        "no-such-scene.toml",
        "--scheme",
        "moreau-jean",
        "--friction",
        "cone",
        "--t-end",
        "0.1",
    ]);
    assert!(missing.contains("no-such-scene.toml"), "{missing}");
}
