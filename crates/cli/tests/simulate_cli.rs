//! `signorini simulate` end to end on scenes written to a temporary folder: the bouncing ball of
//! REFERENCE.md C (h0 = 1 m, e = 0.9) with the event-driven scheme (impact times t1, t2 to 1e-9,
//! rest at the accumulation time to 1e-6), Moreau–Jean and a penalty scheme; energy never grows
//! at an impact; bad scheme names exit 2.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const G: f64 = 9.81;
const E: f64 = 0.9;
const R: f64 = 0.1;

fn dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("simulate_cli");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    dir
}

fn scene(name: &str, text: &str) -> String {
    let path = dir().join(name);
    std::fs::write(&path, text).expect("write scene");
    path.to_string_lossy().into_owned()
}

/// A disk of radius R whose lowest point is h0 = 1 m above the floor.
fn ball(law: &str) -> String {
    format!(
        r#"
dimension = 2
gravity = [0.0, -{G:?}]
[material]
restitution = {E:?}
stiffness = 1.0e5
impact_law = "{law}"
impact = "simultaneous"
[[body]]
name = "ball"
mass = 1.0
particle = true
shape = {{ type = "sphere", radius = {R:?} }}
position = [0.0, {y:?}]
[[body]]
name = "floor"
fixed = true
shape = {{ type = "halfspace", normal = [0.0, 1.0], offset = 0.0 }}
"#,
        y = 1.0 + R
    )
}

fn signorini(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_signorini")).args(args).output().expect("binary runs")
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

fn read_csv(path: &Path) -> (Vec<String>, Vec<Vec<f64>>) {
    let text = std::fs::read_to_string(path).expect("csv written");
    let mut lines = text.lines();
    let header = lines.next().expect("header").split(',').map(str::to_owned).collect();
    let rows =
        lines.map(|l| l.split(',').map(|x| x.parse::<f64>().expect("number")).collect()).collect();
    (header, rows)
}

fn assert_energy_never_grows(v: &Value) {
    for imp in v["impacts"].as_array().expect("impacts") {
        let before = imp["energy_before"].as_f64().expect("energy_before");
        let after = imp["energy_after"].as_f64().expect("energy_after");
        assert!(after <= before + 1e-9 * before.abs().max(1.0), "impact {imp}");
    }
}

#[test]
fn event_driven_bouncing_ball_impact_times_and_rest() {
    let s = scene("ball_ed.toml", &ball("newton"));
    let csv = dir().join("ball_ed.csv");
    let c = csv.to_string_lossy().into_owned();
    let v = run_json(&[
        "simulate",
        &s,
        "--scheme",
        "event-driven",
        "--t-end",
        "10",
        "--out",
        &c,
        "--json",
        "--solver",
        "lemke",
    ]);
    let impacts = v["impacts"].as_array().expect("impacts");
    let t1 = (2.0 / G).sqrt();
    let t2 = t1 + 2.0 * (2.0 * G).sqrt() / G * E;
    assert!((t1 - 0.4515236410).abs() < 1e-9 && (t2 - 1.2642661948).abs() < 1e-9);
    let ts: Vec<f64> = impacts.iter().map(|i| i["t"].as_f64().expect("t")).collect();
    assert!((ts[0] - t1).abs() < 1e-9, "t1 = {}", ts[0]);
    assert!((ts[1] - t2).abs() < 1e-9, "t2 = {}", ts[1]);
    assert_eq!(impacts[0]["bodies"], serde_json::json!(["ball", "floor"]));
    assert_energy_never_grows(&v);

    let (header, rows) = read_csv(&csv);
    assert_eq!(header, ["t", "ball.x", "ball.y", "ball.angle", "ball.vx", "ball.vy", "ball.omega"]);
    let rest = rows
        .iter()
        .find(|r| r[0] > t1 && (r[2] - R).abs() <= 1e-9 && r[5].abs() <= 1e-9)
        .expect("the ball comes to rest");
    let t_inf = t1 * (1.0 + E) / (1.0 - E);
    assert!((t_inf - 8.5789491787).abs() < 1e-9);
    assert!((rest[0] - t_inf).abs() < 1e-6, "rest at {}", rest[0]);
    let last = rows.last().expect("rows");
    assert!((last[0] - 10.0).abs() < 1e-12 && (last[2] - R).abs() < 1e-9 && last[5].abs() < 1e-9);
}

#[test]
fn moreau_jean_ball_ends_at_rest_on_the_floor() {
    let s = scene("ball_mj.toml", &ball("newton"));
    let v = run_json(&[
        "simulate",
        &s,
        "--scheme",
        "moreau-jean",
        "--step",
        "1e-3",
        "--t-end",
        "10",
        "--json",
        "--solver",
        "lemke",
    ]);
    let b = &v["final_state"]["bodies"]["ball"];
    let y = b["y"].as_f64().expect("y");
    let vy = b["vy"].as_f64().expect("vy");
    assert!((y - R).abs() < 1e-2, "y = {y}");
    assert!(vy.abs() < 1e-6, "vy = {vy}");
    assert!(!v["impacts"].as_array().expect("impacts").is_empty());
    assert!(v["lcp_solves"].as_u64().expect("lcp_solves") > 0);
    assert_eq!(v["solver_failures"].as_array().map(Vec::len), Some(0));
    assert_energy_never_grows(&v);
    let first = v["impacts"][0]["t"].as_f64().expect("t");
    assert!((first - 0.4515236410).abs() < 2e-3, "first impact at {first}");
}

#[test]
fn penalty_ball_rebounds() {
    let s = scene("ball_pen.toml", &ball("newton"));
    let v = run_json(&[
        "simulate",
        &s,
        "--scheme",
        "penalty:symplectic-euler",
        "--step",
        "1e-5",
        "--t-end",
        "0.5",
        "--json",
    ]);
    let b = &v["final_state"]["bodies"]["ball"];
    let vy = b["vy"].as_f64().expect("vy");
    // Undamped penalty: exit speed = entry speed sqrt(2 g h0); 0.5 - t1 - pi/w_c later.
    let t1 = (2.0 / G).sqrt();
    let contact = std::f64::consts::PI / (1.0e5_f64).sqrt();
    let expected = (2.0 * G).sqrt() - G * (0.5 - t1 - contact);
    assert!((vy - expected).abs() < 2e-2 * expected, "vy = {vy}, expected {expected}");
}

#[test]
fn inelastic_law_stops_the_ball_at_the_first_impact() {
    let s = scene("ball_inel.toml", &ball("inelastic"));
    let v = run_json(&["simulate", &s, "--scheme", "event-driven", "--t-end", "1", "--json"]);
    let impacts = v["impacts"].as_array().expect("impacts");
    assert_eq!(impacts.len(), 1, "{v}");
    assert!(impacts[0]["energy_after"].as_f64().expect("e").abs() < 1e-12);
}

#[test]
fn bad_scheme_exits_2() {
    let s = scene("ball_bad.toml", &ball("newton"));
    let out = signorini(&["simulate", &s, "--scheme", "leapfrog", "--t-end", "1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1);
    assert!(err.contains("leapfrog") && err.contains("moreau-jean"), "{err}");
    let out = signorini(&["simulate", &s, "--scheme", "penalty:leapfrog", "--t-end", "1"]);
    assert_eq!(out.status.code(), Some(2));
    let bad = scene("ball_bad_law.toml", &ball("bounce"));
    let out = signorini(&["simulate", &bad, "--scheme", "event-driven", "--t-end", "1"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("impact_law") && err.contains("ball_bad_law.toml"), "{err}");
}
