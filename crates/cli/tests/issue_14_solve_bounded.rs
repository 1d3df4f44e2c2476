//! Regressions from issue 14 §2 ("work bounded by the user's request, never by a crash"), the
//! `solve` part. One test per finding; the root causes were:
//!
//! - `lemke` and `murty` densified a sparse M with no size check: a diagonal with n = 200 000
//!   asked for 320 GB and the process aborted. The dense working set is now checked against
//!   `--memory-limit` (default 2 GiB) and refused with the bytes it would need (exit 2).
//! - The problem file was read into memory whole, with no size cap: `signorini solve
//!   /dev/urandom --format json` never ended. Files are read through a cap (`--max-input-size`,
//!   default 1 GiB), and binary input is refused at its first byte that is not UTF-8.
//! - `auto` under a time limit too small for any candidate must report `time_limit`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("issue_14_solve");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    dir
}

fn write(name: &str, text: &str) -> String {
    let path = dir().join(name);
    std::fs::write(&path, text).expect("write problem");
    path.to_string_lossy().into_owned()
}

/// Runs the binary, killing it after `limit` (a regression that hangs fails here instead of
/// hanging the test run).
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

/// Asserts exit 2 with exactly one line on stderr, no internal error, and returns the line.
fn refused(args: &[&str]) -> String {
    let out = signorini_within(args, Duration::from_secs(30));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: not one line: {err}");
    assert!(!err.contains("internal error"), "{args:?}: {err}");
    err
}

/// A sparse diagonal problem (M_ii = 1 + i mod 7, q = -e) in the JSON format.
fn sparse_diagonal_json(n: usize) -> String {
    let idx: Vec<String> = (0..n).map(|i| i.to_string()).collect();
    let idx = idx.join(",");
    let val: Vec<String> = (0..n).map(|i| (1 + i % 7).to_string()).collect();
    let q = vec!["-1"; n].join(",");
    format!(
        r#"{{"format": "signorini-lcp/1", "M": {{"coo": {{"n": {n}, "row": [{idx}], "col": [{idx}], "val": [{}]}}}}, "q": [{q}]}}"#,
        val.join(",")
    )
}

#[test]
fn issue_14_pivoting_solvers_refuse_a_large_sparse_problem_with_the_bytes() {
    let file = write("diagonal_200000.json", &sparse_diagonal_json(200_000));
    // lemke: M and up to n columns of B^-1; murty: M, a principal submatrix and its LU.
    for (solver, bytes) in [("lemke", "640000000000 bytes"), ("murty", "960000000000 bytes")] {
        let started = Instant::now();
        let err = refused(&["solve", &file, "--solver", solver]);
        assert!(started.elapsed() < Duration::from_secs(20), "{solver}: {:?}", started.elapsed());
        assert!(err.contains(bytes) && err.contains("GiB"), "{solver}: {err}");
        assert!(err.contains("--memory-limit 2 GiB"), "{solver}: {err}");
    }
    let err = refused(&["solve", &file, "--solver", "enum"]);
    assert!(err.contains("n = 200000"), "{err}");
    // auto picks a sparse-capable solver.
    let out = signorini_within(&["solve", &file, "--json"], Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["status"], "solved");
    let solver = v["solver"].as_str().expect("solver");
    assert!(!solver.contains("lemke") && !solver.contains("murty"), "{solver}");
}

#[test]
fn issue_14_the_memory_limit_is_the_users() {
    let file = write(
        "two_by_two.json",
        r#"{"format": "signorini-lcp/1", "M": {"dense": [[2, 1], [1, 2]]}, "q": [-3, -3]}"#,
    );
    // 2 * 2^2 * 8 = 64 bytes for lemke's tableau; 1e-9 GiB is 1 byte.
    let err = refused(&["solve", &file, "--solver", "lemke", "--memory-limit", "1e-9"]);
    assert!(err.contains("would need 64 bytes"), "{err}");
    for bad in ["0", "-1", "nan", "1e300"] {
        let err = refused(&["solve", &file, "--memory-limit", bad]);
        assert!(err.contains("--memory-limit"), "{bad}: {err}");
    }
    let out = signorini_within(
        &["solve", &file, "--solver", "lemke", "--memory-limit", "0.001"],
        Duration::from_secs(30),
    );
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let help = signorini_within(&["solve", "--help"], Duration::from_secs(30));
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(text.contains("--memory-limit GiB") && text.contains("default 2"), "{text}");
    assert!(text.contains("--max-input-size GiB") && text.contains("default 1"), "{text}");
}

#[test]
fn issue_14_input_is_read_through_a_size_cap() {
    // A valid problem of a few KiB against a cap of 1e-6 GiB (1073 bytes).
    let file = write("diagonal_300.json", &sparse_diagonal_json(300));
    assert!(std::fs::metadata(&file).expect("file").len() > 1073);
    let err = refused(&["solve", &file, "--max-input-size", "1e-6"]);
    assert!(err.contains("--max-input-size") && err.contains("1073 bytes"), "{err}");
    let err = refused(&["info", &file, "--max-input-size", "1e-6"]);
    assert!(err.contains("--max-input-size"), "{err}");
    let out = dir().join("converted.dat");
    let err = refused(&["convert", &file, &out.to_string_lossy(), "--max-input-size", "1e-6"]);
    assert!(err.contains("--max-input-size"), "{err}");
    let out = signorini_within(&["solve", &file], Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    refused(&["solve", &file, "--max-input-size", "0"]);
    let urandom = Path::new("/dev/urandom");
    if !urandom.exists() {
        eprintln!("no /dev/urandom on this system: stream part skipped");
        return;
    }
    for format in [None, Some("json"), Some("dat"), Some("mtx")] {
        let mut args = vec!["solve", "/dev/urandom"];
        if let Some(f) = format {
            args.extend(["--format", f]);
        }
        let started = Instant::now();
        refused(&args);
        assert!(started.elapsed() < Duration::from_secs(10), "{format:?}: {:?}", started.elapsed());
    }
}

#[test]
fn issue_14_auto_with_a_tiny_time_limit_reports_time_limit() {
    let file = write("diagonal_2000.json", &sparse_diagonal_json(2000));
    // 1e-10 s is zero nanoseconds: auto ran no candidate and exited 2.
    for limit in ["1e-9", "1e-10"] {
        let out = signorini_within(
            &["solve", &file, "--time-limit", limit, "--json"],
            Duration::from_secs(30),
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{limit}: {err}");
        let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        assert_eq!(v["status"], "time_limit", "{limit}: {v}");
    }
}

/// Found by the `fclib_hdf5` fuzz target: rust-hdf5 0.7.9 panics (integer overflow) on a
/// crafted datatype message. The reader turns the panic into a typed error and the CLI's panic
/// hook lets it unwind: bad input, exit 2 with one line, not an internal error (exit 3).
#[test]
fn issue_14_a_panic_inside_the_hdf5_decoder_exits_2() {
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../verification/tests/data/fuzz_fclib_datatype_overflow.hdf5"
    );
    for command in ["info", "solve"] {
        let line = refused(&[command, file]);
        assert!(line.contains("HDF5 decoder failed"), "{command}: {line}");
    }
}
