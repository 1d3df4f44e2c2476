//! `signorini fc` end to end: the JSON contract, exit codes 0 / 1 / 2, one-line stderr on bad
//! input, a warm start from an earlier run's JSON output.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../verification/data/siconos-fc")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fc_cli");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    dir.join(name)
}

fn signorini(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_signorini")).args(args).output().expect("binary runs")
}

fn json_of(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON object")
}

fn assert_bad_input(args: &[&str], needle: &str) {
    let out = signorini(args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err:?}");
    assert!(err.contains(needle), "{args:?}: {err:?} lacks {needle:?}");
    assert!(out.stdout.is_empty());
}

#[test]
fn fc_json_contract_and_solved_exit_code() {
    let out = signorini(&["fc", &data("Rover1040.dat"), "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v = json_of(&out);
    for key in [
        "status",
        "solver",
        "dimension",
        "n_contacts",
        "r",
        "u",
        "error",
        "iterations",
        "solve_seconds",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    assert_eq!(v["status"], "solved");
    assert_eq!(v["solver"], "nsgs");
    assert_eq!((v["dimension"].as_u64(), v["n_contacts"].as_u64()), (Some(3), Some(5)));
    assert_eq!(v["r"].as_array().map(Vec::len), Some(15));
    assert!(v["error"].as_f64().is_some_and(|e| e <= 1e-8));
}

#[test]
fn fc_other_solvers_2d_and_fclib() {
    let out = signorini(&[
        "fc",
        &data("FrictionContactProblem00071.dat"),
        "--solver",
        "newton-ac",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(json_of(&out)["dimension"], 2);
    let out = signorini(&[
        "fc",
        &data("Capsules-i125-1213.hdf5"),
        "--solver",
        "newton-ac:rho_scale=10",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(json_of(&out)["n_contacts"], 286);
}

#[test]
fn fc_unsolved_is_exit_1_and_a_warm_start_continues() {
    let file = data("Capsules-i125-1213.hdf5");
    let out = signorini(&["fc", &file, "--max-iter", "5", "--json"]);
    assert_eq!(out.status.code(), Some(1));
    let v = json_of(&out);
    assert_eq!(v["status"], "max_iterations");
    let first = v["error"].as_f64().expect("error");
    let warm = tmp("warm.json");
    std::fs::write(&warm, &out.stdout).expect("write");
    let out = signorini(&[
        "fc",
        &file,
        "--max-iter",
        "5",
        "--json",
        "--warm-start",
        warm.to_str().expect("utf8"),
    ]);
    let second = json_of(&out)["error"].as_f64().expect("error");
    assert!(second < first, "warm start did not continue: {first:e} -> {second:e}");
}

#[test]
fn fc_bad_input_is_one_line_exit_2() {
    let rover = data("Rover1040.dat");
    assert_bad_input(&["fc", "/nonexistent/x.dat"], "x.dat");
    assert_bad_input(&["fc", &rover, "--tol", "0.5"], "tol");
    assert_bad_input(&["fc", &rover, "--tol", "0"], "tol");
    assert_bad_input(&["fc", &rover, "--max-iter", "0"], "max_iter");
    assert_bad_input(&["fc", &rover, "--time-limit", "-1"], "time-limit");
    assert_bad_input(&["fc", &rover, "--solver", "bogus"], "unknown solver");
    assert_bad_input(&["fc", &rover, "--solver", "nsgs:omega=3"], "omega");
    let bad = tmp("bad.dat");
    std::fs::write(&bad, "3\n2\n0 6 6 6 6 1 2 3\n").expect("write");
    assert_bad_input(&["fc", bad.to_str().expect("utf8")], "bad.dat");
    let warm = tmp("short_warm.json");
    std::fs::write(&warm, "[1, 2]").expect("write");
    assert_bad_input(&["fc", &rover, "--warm-start", warm.to_str().expect("utf8")], "warm start");
}

#[test]
fn info_describes_frictional_contact_files() {
    let out = signorini(&["info", "--json", &data("Rover1039.dat")]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let v = json_of(&out);
    assert_eq!(v["problem"], "fc");
    assert_eq!(v["dimension"], 3);
    assert_eq!(v["n_contacts"], 4);
    assert_eq!(v["n"], 12);
    assert_eq!(v["mu_min"], 0.7);
    assert!(v["definiteness"].is_string() && v["symmetric"].is_boolean(), "{v}");
    let text = signorini(&["info", &data("FC2D_SliderCrankLagrangian00000.dat")]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("frictional contact, 2D"), "{text}");
    // An LCP file is still described as an LCP.
    let lcp = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../verification/data/siconos-lcp");
    let first = std::fs::read_dir(&lcp)
        .expect("LCP set")
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "dat"))
        .expect("a .dat");
    let v = json_of(&signorini(&["info", "--json", &first.to_string_lossy()]));
    assert!(v.get("problem").is_none() && v["n"].is_u64(), "{v}");
    // Neither: the LCP reader's error, one line, exit 2.
    let junk = tmp("junk.dat");
    std::fs::write(&junk, "3 x y\n").expect("write");
    assert_bad_input(&["info", &junk.to_string_lossy()], "junk.dat");
}

#[test]
fn solvers_fc_lists_the_frictional_contact_registry() {
    let out = signorini(&["solvers", "--fc", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let list: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let names: Vec<&str> =
        list.as_array().expect("array").iter().filter_map(|e| e["name"].as_str()).collect();
    let registry = signorini_friction::FcRegistry::builtin();
    let expected: Vec<&str> = registry.entries().iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, expected);
    assert!(names.contains(&"nsgs") && names.contains(&"newton-ac"), "{names:?}");
    let text = signorini(&["solvers"]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("signorini solvers --fc"));
}
