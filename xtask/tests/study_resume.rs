//! Crash-safe studies (issue 14 §4): a study killed with SIGKILL half-way keeps every case it
//! finished in its journal (`DIR/cases.jsonl`), `--resume` runs only the rest, and the merged
//! result holds every case exactly once; a journal of another study is refused.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// A study of the 10^4-unknown Delassus case under 24 PGS variants: long enough (seconds in
/// the test profile) to be killed after its first finished case.
fn study_file(d: &Path, name: &str) -> PathBuf {
    let solvers: Vec<String> =
        (0..24).map(|k| format!("\"pgs:omega={:.2}\"", 1.0 + 0.01 * f64::from(k))).collect();
    let text = format!(
        "name = \"{name}\"\nproblems = [\"lcp/random/delassus_like_n1e4_s11\"]\nsolvers = [{}]\n\
         tol = 1e-8\ntime_limit = 5.0\n",
        solvers.join(", ")
    );
    let path = d.join(format!("{name}.toml"));
    std::fs::write(&path, text).expect("study file");
    path
}

fn journal_lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map(|t| t.matches('\n').count()).unwrap_or(0)
}

#[test]
fn a_killed_study_resumes_where_its_journal_ends() {
    let d = dir("study_resume");
    let file = study_file(&d, "resume");
    let out = d.join("out");
    let journal = out.join("cases.jsonl");
    let mut child = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["study", &file.to_string_lossy(), "--threads", "1", "--out"])
        .arg(&out)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("xtask starts");
    // Header plus at least one finished case, then SIGKILL (no chance to clean up).
    let started = Instant::now();
    while journal_lines(&journal) < 2 && started.elapsed() < Duration::from_secs(300) {
        if child.try_wait().expect("poll").is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let _ = child.kill();
    let _ = child.wait();
    let kept = journal_lines(&journal).saturating_sub(1);
    assert!(kept >= 1, "at least one case was journaled before the kill");
    assert!(!out.join("results.json").exists() || kept == 24, "killed before the end");

    let resumed = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["study", &file.to_string_lossy(), "--threads", "1", "--resume", "--out"])
        .arg(&out)
        .output()
        .expect("xtask resumes");
    let stdout = String::from_utf8_lossy(&resumed.stdout);
    assert!(resumed.status.success(), "{stdout}{}", String::from_utf8_lossy(&resumed.stderr));
    // Complete lines survive (a torn last line, killed mid-write, has no newline: it is not
    // counted in `kept`, and the resume drops and reruns it).
    let line = stdout.lines().find(|l| l.starts_with("resumed:")).expect("resume line");
    let counts: Vec<usize> =
        line.split(|c: char| !c.is_ascii_digit()).filter_map(|w| w.parse().ok()).collect();
    assert_eq!(counts.len(), 2, "{line}");
    assert_eq!(counts[0], kept, "{line}");
    assert_eq!(counts[0] + counts[1], 24, "{line}");

    let results: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("results.json")).expect("results.json"),
    )
    .expect("JSON");
    let mut indices: Vec<u64> = results["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|r| r["index"].as_u64())
        .collect();
    indices.sort_unstable();
    assert_eq!(indices, (0..24).collect::<Vec<u64>>(), "every case exactly once");
    assert_eq!(journal_lines(&journal), 25, "header and 24 cases");

    // Another study may not resume this journal.
    let other = study_file(&d, "other");
    let refused = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["study", &other.to_string_lossy(), "--resume", "--out"])
        .arg(&out)
        .output()
        .expect("xtask runs");
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert!(err.contains("another study"), "{err}");
}

#[test]
fn an_output_folder_under_a_missing_parent_is_an_error() {
    let d = dir("study_missing");
    let file = study_file(&d, "missing");
    let out = d.join("no/such/parent/out");
    let run = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["study", &file.to_string_lossy(), "--out"])
        .arg(&out)
        .output()
        .expect("xtask runs");
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(err.contains("does not exist"), "{err}");
    assert!(!out.exists());
}
