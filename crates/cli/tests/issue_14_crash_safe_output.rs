//! Output files (issue 14 §4): every file is written to a temporary name and renamed, so a
//! killed run never leaves a truncated file; writing into a missing folder or onto the run's
//! own input is a clear one-line error (exit 2), not a silent overwrite or an I/O message
//! without the path.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

fn signorini(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_signorini")).args(args).output().expect("binary runs")
}

const PROBLEM: &str =
    r#"{"format": "signorini-lcp/1", "M": {"dense": [[2, 1], [1, 2]]}, "q": [-5, -6]}"#;

#[test]
fn convert_refuses_to_overwrite_its_input() {
    let d = dir("issue_14_onto_input");
    let input = d.join("p.json");
    std::fs::write(&input, PROBLEM).expect("input");
    let same = d.join(".").join("p.json");
    let run = signorini(&["convert", &input.to_string_lossy(), &same.to_string_lossy()]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(err.contains("refusing to overwrite an input"), "{err}");
    assert_eq!(std::fs::read_to_string(&input).expect("input kept"), PROBLEM);
}

#[test]
fn convert_into_a_missing_folder_names_the_folder() {
    let d = dir("issue_14_missing_folder");
    let input = d.join("p.json");
    std::fs::write(&input, PROBLEM).expect("input");
    let out = d.join("no/such/folder/p.dat");
    let run = signorini(&["convert", &input.to_string_lossy(), &out.to_string_lossy()]);
    let err = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("does not exist") && err.contains("no/such/folder"), "{err}");
}

#[test]
fn convert_writes_through_a_temporary_file() {
    let d = dir("issue_14_atomic");
    let input = d.join("p.json");
    std::fs::write(&input, PROBLEM).expect("input");
    let out = d.join("p.dat");
    std::fs::write(&out, "old contents").expect("old output");
    let run = signorini(&["convert", &input.to_string_lossy(), &out.to_string_lossy()]);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let names: Vec<String> = std::fs::read_dir(&d)
        .expect("list")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "no temporary left behind: {names:?}");
    let back = signorini(&["solve", &out.to_string_lossy(), "--solver", "lemke", "--json"]);
    assert_eq!(back.status.code(), Some(0), "the written file reads back and solves");
}
