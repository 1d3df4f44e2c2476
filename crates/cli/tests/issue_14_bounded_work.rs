//! Regressions from issue 14 §2 ("work bounded by the user's request, never by a crash"), the
//! `simulate` part and the exit codes every command shares. One test per finding; the root
//! causes were:
//!
//! - `simulate` cast t_end / h to `usize` and reserved that many per-step records
//!   (`Vec::with_capacity`): `--t-end 1e30` overflowed the capacity (a panic, reported as exit
//!   2 "internal error"), `--t-end 1e6` asked for ~96 GB and aborted (exit 134, which bypasses
//!   the panic hook), and `--step 1e-300` saturated the cast and looped for ever. The step
//!   count is now checked against `--max-steps` (default 10^7) before anything runs.
//! - There was no wall-clock limit: `--time-limit SECONDS` now stops the run where it is
//!   (JSON `end = "time_limit"`, exit 1).
//! - Every sample was kept in memory until the run ended and only then written; the samples
//!   now stream to the CSV file as they are produced, and the summary lists at most 10^4
//!   impacts and failed solves (with totals).
//! - The dense and sparse data sized from the input were never checked: `--friction-directions
//!   100000` asked for terabytes (k + 1 Jacobian rows per contact, (k + 1)² Delassus entries),
//!   and 2 000 coincident disks (2·10^6 active contacts, 8·10^9 Delassus entries) aborted. The
//!   friction directions have a documented range (3 to 256 in 3D) and the contacts, rows and
//!   step LCP an estimated size checked against `--memory-limit` (default 4 GiB), refused with
//!   the bytes they would need.
//! - The panic hook exited 2, the code of bad input, so a bug read as a user error; it now
//!   exits 3 (documented under every command's `--help`).
//! - Output was written with its error discarded, so `> /dev/full` exited 0 with nothing
//!   written; a write error (other than a closed pipe) is now exit 2 with one line.
//! - `simulate` printed `note:` lines on stderr before running, so an error after them was not
//!   one line; notes are now part of the JSON (`notes`) and text output.
//! - (§4, crash-safe output) the streamed CSV goes to a temporary name beside `--out` and is
//!   renamed when the run ends; a run that fails leaves neither a truncated file nor the
//!   temporary one, and a device such as `/dev/full` is written in place, never replaced.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("issue_14");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    dir
}

fn write(name: &str, text: &str) -> String {
    let path = dir().join(name);
    std::fs::write(&path, text).expect("write scene");
    path.to_string_lossy().into_owned()
}

/// Runs the binary, killing it after `limit` (a regression that hangs or crawls fails here
/// instead of hanging the test run).
fn signorini_within(args: &[&str], limit: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_signorini"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("binary runs");
    let (mut out, mut err) =
        (child.stdout.take().expect("stdout"), child.stderr.take().expect("stderr"));
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = out.read_to_end(&mut text);
        text
    });
    let err_reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        let _ = err.read_to_end(&mut text);
        text
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("{args:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: reader.join().expect("stdout reader"),
        stderr: err_reader.join().expect("stderr reader"),
    }
}

fn signorini(args: &[&str]) -> Output {
    signorini_within(args, Duration::from_secs(120))
}

/// Asserts exit 2 with exactly one line on stderr, no internal error, and returns the line.
fn refused(args: &[&str]) -> String {
    let out = signorini_within(args, Duration::from_secs(60));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err}");
    assert!(!err.contains("internal error"), "{args:?}: {err}");
    err
}

/// A disk of radius 0.1 falling onto a floor (restitution 0.5).
const BALL: &str = r#"
dimension = 2
gravity = [0.0, -9.81]
[material]
restitution = 0.5
stiffness = 1.0e5
[[body]]
name = "floor"
fixed = true
shape = { type = "halfspace", normal = [0.0, 1.0], offset = 0.0 }
[[body]]
name = "ball"
mass = 1.0
particle = true
position = [0.0, 0.5]
shape = { type = "sphere", radius = 0.1 }
"#;

#[test]
fn issue_14_t_end_beyond_the_step_limit_is_refused_before_the_run() {
    let ball = write("ball.toml", BALL);
    for scheme in ["moreau-jean", "stewart-trinkle", "position-lcp", "event-driven", "penalty:rk4"]
    {
        // 1e30: the capacity overflow; 1e6: the 96 GB abort (10^9 steps of 1e-3).
        for t_end in ["1e30", "1e6"] {
            let err = refused(&["simulate", &ball, "--scheme", scheme, "--t-end", t_end]);
            assert!(err.contains("--max-steps 10000000"), "{scheme} {t_end}: {err}");
        }
    }
    // The limit is the user's to raise.
    let err = refused(&[
        "simulate",
        &ball,
        "--scheme",
        "moreau-jean",
        "--t-end",
        "1",
        "--max-steps",
        "999",
    ]);
    assert!(err.contains("1.000e3 steps") && err.contains("--max-steps 999"), "{err}");
    let ok = signorini(&[
        "simulate",
        &ball,
        "--scheme",
        "moreau-jean",
        "--t-end",
        "1",
        "--max-steps",
        "1000",
    ]);
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stderr));
}

#[test]
fn issue_14_a_tiny_step_is_refused_instead_of_hanging() {
    let ball = write("ball_tiny_step.toml", BALL);
    for scheme in ["moreau-jean", "event-driven", "penalty:verlet"] {
        let err =
            refused(&["simulate", &ball, "--scheme", scheme, "--t-end", "1", "--step", "1e-300"]);
        assert!(err.contains("--step 1e-300") && err.contains("steps"), "{err}");
    }
}

#[test]
fn issue_14_time_limit_stops_the_run_where_it_is() {
    let ball = write("ball_time_limit.toml", BALL);
    let csv = dir().join("time_limit.csv");
    let c = csv.to_string_lossy().into_owned();
    for scheme in ["moreau-jean", "event-driven", "penalty:explicit-euler"] {
        // 10^7 steps: far more than 0.5 s of work.
        let step = if scheme == "event-driven" { "1e-5" } else { "1e-6" };
        let started = Instant::now();
        let out = signorini(&[
            "simulate",
            &ball,
            "--scheme",
            scheme,
            "--step",
            step,
            "--t-end",
            "10",
            "--time-limit",
            "0.5",
            "--out",
            &c,
            "--json",
        ]);
        let wall = started.elapsed();
        assert_eq!(
            out.status.code(),
            Some(1),
            "{scheme}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(wall < Duration::from_secs(30), "{scheme}: took {wall:?}");
        let v: Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!(v["end"], "time_limit", "{scheme}: {v}");
        let t = v["final_state"]["t"].as_f64().expect("final t");
        assert!(t > 0.0 && t < 10.0, "{scheme}: stopped at t = {t}");
        // The samples streamed to the file up to where the run stopped.
        let mut reader = csv::Reader::from_path(&csv).expect("CSV written");
        let rows: Vec<csv::StringRecord> = reader.records().map(|r| r.expect("row")).collect();
        let steps = v["steps"].as_u64().expect("steps") as usize;
        assert_eq!(rows.len(), steps + 1, "{scheme}: one row per step and the initial state");
        let last: f64 = rows[rows.len() - 1][0].parse().expect("t");
        assert!((last - t).abs() <= 1e-12 * t.max(1.0), "{scheme}: last row {last}, final {t}");
    }
    refused(&["simulate", &ball, "--scheme", "moreau-jean", "--t-end", "1", "--time-limit", "-1"]);
    refused(&["simulate", &ball, "--scheme", "moreau-jean", "--t-end", "1", "--time-limit", "nan"]);
}

/// n spheres of radius 0.5 in a row on a floor, 3D.
fn spheres_3d(n: usize) -> String {
    let mut s = String::from(
        "dimension = 3\ngravity = [0.0, -9.81, 0.0]\n[material]\nfriction = 0.5\n\
         [[body]]\nname = \"floor\"\nfixed = true\n\
         shape = { type = \"halfspace\", normal = [0.0, 1.0, 0.0], offset = 0.0 }\n",
    );
    for i in 0..n {
        s.push_str(&format!(
            "[[body]]\nname = \"s{i}\"\nmass = 1.0\nposition = [{}.0, 0.5, 0.0]\n\
             shape = {{ type = \"sphere\", radius = 0.5 }}\n",
            i
        ));
    }
    s
}

#[test]
fn issue_14_friction_directions_have_a_range_and_the_step_lcp_a_memory_budget() {
    let one = write("sphere_3d.toml", &spheres_3d(1));
    let base = ["simulate", one.as_str(), "--scheme", "stewart-trinkle", "--t-end", "0.01"];
    for k in ["100000", "257", "2"] {
        let err = refused(&[&base[..], &["--friction-directions", k]].concat());
        assert!(err.contains("--friction-directions") && err.contains("256"), "{k}: {err}");
    }
    let ok = signorini(&[&base[..], &["--friction-directions", "256"]].concat());
    assert_eq!(ok.status.code(), Some(0), "{}", String::from_utf8_lossy(&ok.stderr));
    // 100 spheres, every pair a candidate: 100 contacts per sphere with 257 rows each.
    let many = write("spheres_3d_100.toml", &spheres_3d(100));
    let err = refused(&[
        "simulate",
        &many,
        "--scheme",
        "stewart-trinkle",
        "--t-end",
        "0.01",
        "--friction-directions",
        "256",
        "--all-pairs",
    ]);
    assert!(
        err.contains("would need") && err.contains("TiB") && err.contains("--memory-limit 4 GiB"),
        "{err}"
    );
    // A budget the user sets: the same run refused under 1 MiB with k = 4.
    let err = refused(&[
        "simulate",
        &many,
        "--scheme",
        "stewart-trinkle",
        "--t-end",
        "0.01",
        "--memory-limit",
        "0.001",
        "--all-pairs",
    ]);
    assert!(err.contains("would need"), "{err}");
    refused(&[
        "simulate",
        &many,
        "--scheme",
        "moreau-jean",
        "--t-end",
        "0.01",
        "--memory-limit",
        "0",
    ]);
}

#[test]
fn issue_14_coincident_disks_are_refused_with_the_bytes_they_would_need() {
    let mut s = String::from(
        "dimension = 2\ngravity = [0.0, -9.81]\n[[body]]\nname = \"floor\"\nfixed = true\n\
         shape = { type = \"halfspace\", normal = [0.0, 1.0], offset = 0.0 }\n",
    );
    for i in 0..2000 {
        s.push_str(&format!(
            "[[body]]\nname = \"d{i}\"\nmass = 1.0\nparticle = true\nposition = [0.0, 0.5]\n\
             shape = {{ type = \"sphere\", radius = 0.5 }}\n"
        ));
    }
    let disks = write("coincident_disks.toml", &s);
    for scheme in ["moreau-jean", "event-driven"] {
        let err = refused(&["simulate", &disks, "--scheme", scheme, "--t-end", "0.001"]);
        assert!(err.contains("would need") && err.contains("contacts"), "{scheme}: {err}");
    }
    // The broad phase does not help when every pair overlaps.
    let err = refused(&[
        "simulate",
        &disks,
        "--scheme",
        "moreau-jean",
        "--t-end",
        "0.001",
        "--candidate-distance",
        "0.1",
    ]);
    assert!(err.contains("would need"), "{err}");
    let err = refused(&[
        "simulate",
        &disks,
        "--scheme",
        "moreau-jean",
        "--t-end",
        "0.001",
        "--candidate-distance",
        "-1",
    ]);
    assert!(err.contains("--candidate-distance -1"), "{err}");
}

#[test]
fn issue_14_a_panic_exits_3_and_the_help_says_so() {
    let out = Command::new(env!("CARGO_BIN_EXE_signorini"))
        .args(["solvers"])
        .env("SIGNORINI_INTERNAL_TEST_PANIC", "1")
        .output()
        .expect("binary runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("internal error"), "{err}");
    for cmd in ["solve", "contact", "simulate", "info", "convert", "solvers"] {
        let help = signorini(&[cmd, "--help"]);
        let text = String::from_utf8_lossy(&help.stdout);
        assert!(text.contains("  3  internal error"), "{cmd} --help: {text}");
    }
    let help = signorini(&["--help"]);
    assert!(String::from_utf8_lossy(&help.stdout).contains("  3  internal error"));
}

#[test]
fn issue_14_a_write_error_on_stdout_is_an_error() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        eprintln!("no /dev/full on this system: nothing to check");
        return;
    }
    let ball = write("ball_dev_full.toml", BALL);
    let runs: [&[&str]; 2] = [
        &["solvers"],
        &["simulate", &ball, "--scheme", "moreau-jean", "--t-end", "0.01", "--json"],
    ];
    for args in runs {
        let sink = std::fs::OpenOptions::new().write(true).open(full).expect("open /dev/full");
        let out = Command::new(env!("CARGO_BIN_EXE_signorini"))
            .args(args)
            .stdout(sink)
            .output()
            .expect("binary runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains("stdout"), "{args:?}: {err}");
    }
    // The CSV file too.
    let err = refused(&[
        "simulate",
        &ball,
        "--scheme",
        "moreau-jean",
        "--t-end",
        "0.01",
        "--out",
        "/dev/full",
    ]);
    assert!(err.contains("/dev/full") && err.contains("cannot write"), "{err}");
}

#[test]
fn issue_14_notes_go_to_the_output_not_before_an_error() {
    let ball = write("ball_notes.toml", BALL);
    // position-lcp is inelastic by construction: restitution 0.5 earns a note.
    let err = refused(&[
        "simulate",
        &ball,
        "--scheme",
        "position-lcp",
        "--t-end",
        "0.01",
        "--solver",
        "nosuch",
    ]);
    assert!(err.contains("--solver nosuch"), "{err}");
    let out =
        signorini(&["simulate", &ball, "--scheme", "position-lcp", "--t-end", "0.01", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let note = v["notes"][0].as_str().expect("a note");
    assert!(note.contains("inelastic by construction"), "{note}");
    let out = signorini(&["simulate", &ball, "--scheme", "position-lcp", "--t-end", "0.01"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("note: position-lcp is perfectly inelastic"), "{text}");
    assert!(out.stderr.is_empty());
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn issue_14_the_csv_is_renamed_into_place_and_a_failed_run_leaves_none() {
    let d = dir().join("csv_rename");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("dir");
    let ball = write("ball_csv_rename.toml", BALL);
    let out = d.join("traj.csv");
    let o = out.to_string_lossy().into_owned();
    let run =
        signorini(&["simulate", &ball, "--scheme", "moreau-jean", "--t-end", "0.01", "--out", &o]);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    assert_eq!(files_in(&d), ["traj.csv"]);
    // Gravity 1e308 overflows the velocity to infinity after about 1 800 steps: the run fails.
    let blow_up = write(
        "ball_blow_up.toml",
        "dimension = 2\ngravity = [0.0, -1e308]\n[[body]]\nname = \"ball\"\nmass = 1.0\n\
         particle = true\nposition = [0.0, 0.0]\nshape = { type = \"sphere\", radius = 0.1 }\n",
    );
    let failed = d.join("failed.csv");
    let f = failed.to_string_lossy().into_owned();
    let err =
        refused(&["simulate", &blow_up, "--scheme", "moreau-jean", "--t-end", "3", "--out", &f]);
    assert!(err.contains("non-finite"), "{err}");
    assert_eq!(files_in(&d), ["traj.csv"], "no truncated or temporary file");
    // The scene itself is not an output.
    let err =
        refused(&["simulate", &ball, "--scheme", "moreau-jean", "--t-end", "0.01", "--out", &ball]);
    assert!(err.contains("refusing to overwrite an input"), "{err}");
}
