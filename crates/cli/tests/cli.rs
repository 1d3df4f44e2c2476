//! The `signorini` binary end to end: exit codes 0/1/2, the `--json` contract, one-line
//! stderr on bad input, warm starts in both forms, and `convert` round trips.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../verification/data/siconos-lcp");

/// The solver the solve tests use (registered by the lemke branch).
const SOLVER: &str = "lemke";

fn data(name: &str) -> String {
    let dir = Path::new(DATA);
    assert!(
        dir.is_dir(),
        "Siconos data folder missing: {} (see verification/data/README.md)",
        dir.display()
    );
    dir.join(name).to_string_lossy().into_owned()
}

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    dir.join(name)
}

fn signorini(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_signorini")).args(args).output().expect("binary runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Exit 2 with exactly one stderr line containing every `needle`, and no panic text.
fn assert_bad_input(args: &[&str], needles: &[&str]) {
    let out = signorini(args);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "args {args:?}: stderr {err:?}");
    assert_eq!(err.trim_end().lines().count(), 1, "args {args:?}: stderr not one line: {err:?}");
    assert!(!err.contains("panicked") && !err.contains("RUST_BACKTRACE"), "{err}");
    for n in needles {
        assert!(err.contains(n), "args {args:?}: stderr {err:?} lacks {n:?}");
    }
    assert!(out.stdout.is_empty(), "args {args:?}: stdout not empty");
}

fn json_of(out: &Output) -> Value {
    let text = String::from_utf8_lossy(&out.stdout);
    match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => panic!("stdout is not one JSON object ({e}): {text:?}; stderr {:?}", stderr(out)),
    }
}

#[test]
fn solve_json_contract_keys_and_types() {
    let out = signorini(&["solve", &data("lcp_deudeu.dat"), "--solver", SOLVER, "--json"]);
    assert_eq!(out.status.code(), Some(0), "stderr {:?}", stderr(&out));
    let v = json_of(&out);
    assert_eq!(v["status"], "solved");
    assert!(v["solver"].as_str().is_some_and(|s| s.starts_with(SOLVER)), "{v}");
    assert_eq!(v["n"], 2);
    let z: Vec<f64> =
        v["z"].as_array().expect("z").iter().map(|x| x.as_f64().expect("number")).collect();
    assert!((z[0] - 4.0 / 3.0).abs() < 1e-9 && (z[1] - 7.0 / 3.0).abs() < 1e-9, "{z:?}");
    assert_eq!(v["w"].as_array().map(Vec::len), Some(2));
    assert!(v["residual"].as_f64().is_some_and(|r| r <= 1e-8), "{v}");
    assert!(v["complementarity"].as_f64().is_some());
    assert!(v["iterations"].as_u64().is_some());
    assert!(v["pivots"].is_null() || v["pivots"].as_u64().is_some());
    assert!(v["solve_seconds"].as_f64().is_some_and(|t| t >= 0.0));
    assert!(v["certificate"].is_null(), "{v}");
    for key in [
        "status",
        "solver",
        "n",
        "z",
        "w",
        "residual",
        "complementarity",
        "iterations",
        "pivots",
        "solve_seconds",
        "certificate",
    ] {
        assert!(v.get(key).is_some(), "missing key {key}");
    }
}

#[test]
fn readable_summary_and_exit_zero() {
    let out = signorini(&["solve", &data("lcp_trivial.dat"), "--solver", SOLVER]);
    assert_eq!(out.status.code(), Some(0), "stderr {:?}", stderr(&out));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("status") && text.contains("solved") && text.contains("residual"),
        "{text}"
    );
}

#[test]
fn unsolved_status_exits_one() {
    // lcp_exp_murty2 takes 2^6 Lemke pivots; one is not enough.
    let out = signorini(&[
        "solve",
        &data("lcp_exp_murty2.dat"),
        "--solver",
        SOLVER,
        "--max-iter",
        "1",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1), "stderr {:?}", stderr(&out));
    let v = json_of(&out);
    assert_ne!(v["status"], "solved");
}

#[test]
fn bad_input_exits_two_with_one_line() {
    assert_bad_input(&["solve", "no/such/file.dat", "--solver", SOLVER], &["no/such/file.dat"]);
    let broken = tmp("broken.dat");
    std::fs::write(&broken, "2\n0\n2\n2\n2 2\n1 0\nnan 1\n-1 -1\n").expect("write");
    assert_bad_input(
        &["solve", broken.to_str().expect("utf8"), "--solver", SOLVER],
        &["broken.dat", ":7:", "nan"],
    );
    let trailing = tmp("trailing.json");
    std::fs::write(
        &trailing,
        r#"{"format": "signorini-lcp/1", "M": {"dense": [[1]]}, "q": [1]} x"#,
    )
    .expect("write");
    assert_bad_input(&["info", trailing.to_str().expect("utf8")], &["trailing.json"]);
    assert_bad_input(
        &["solve", &data("lcp_deudeu.dat"), "--solver", "no-such-solver"],
        &["no-such-solver"],
    );
    assert_bad_input(
        &["solve", &data("lcp_deudeu.dat"), "--solver", SOLVER, "--tol", "-1"],
        &["tol"],
    );
    assert_bad_input(
        &["solve", &data("lcp_deudeu.dat"), "--solver", SOLVER, "--time-limit", "nan"],
        &["time-limit"],
    );
    // One value per key: a flag beside a spec string that sets the key otherwise is refused
    // (the spec would win and the flag would be silently ignored); the same value is fine.
    assert_bad_input(
        &["solve", &data("lcp_deudeu.dat"), "--solver", "lemke:tol=1e-9", "--tol", "1e-6"],
        &["--tol", "tol=1e-9", "disagree"],
    );
    assert_bad_input(
        &["solve", &data("lcp_deudeu.dat"), "--solver", "pgs:max_iter=5", "--max-iter", "7"],
        &["--max-iter", "max_iter=5"],
    );
    let same = signorini(&[
        "solve",
        &data("lcp_deudeu.dat"),
        "--solver",
        "lemke:tol=1e-9",
        "--tol",
        "1e-9",
    ]);
    assert!(same.status.code().is_some_and(|c| c < 2), "{}", stderr(&same));
    assert_bad_input(&["solve", &data("lcp_deudeu.dat"), "--format", "xml"], &["xml"]);
    assert_bad_input(
        &["convert", &data("lcp_deudeu.dat"), tmp("out.unknown").to_str().expect("utf8")],
        &["out.unknown"],
    );
}

#[test]
fn usage_errors_exit_two_with_one_line() {
    assert_bad_input(&[], &["subcommand"]);
    assert_bad_input(&["solve"], &[]);
    assert_bad_input(&["solve", &data("lcp_deudeu.dat"), "--no-such-flag"], &["--no-such-flag"]);
    assert_bad_input(&["frobnicate"], &["frobnicate"]);
    assert_bad_input(&["solve", &data("lcp_deudeu.dat"), "--max-iter", "many"], &["many"]);
    let help = signorini(&["--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("solve"));
}

#[test]
fn warm_start_as_array_and_as_earlier_output() {
    let file = data("lcp_deudeu.dat");
    let array = tmp("warm_array.json");
    std::fs::write(&array, "[1.3333333333333333, 2.3333333333333335]").expect("write");
    let out = signorini(&[
        "solve",
        &file,
        "--solver",
        SOLVER,
        "--warm-start",
        array.to_str().expect("utf8"),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "stderr {:?}", stderr(&out));
    assert_eq!(json_of(&out)["status"], "solved");

    let first = signorini(&["solve", &file, "--solver", SOLVER, "--json"]);
    let earlier = tmp("warm_earlier.json");
    std::fs::write(&earlier, &first.stdout).expect("write");
    let out = signorini(&[
        "solve",
        &file,
        "--solver",
        SOLVER,
        "--warm-start",
        earlier.to_str().expect("utf8"),
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "stderr {:?}", stderr(&out));
    assert_eq!(json_of(&out)["status"], "solved");

    let short = tmp("warm_short.json");
    std::fs::write(&short, "[1]").expect("write");
    assert_bad_input(
        &["solve", &file, "--solver", SOLVER, "--warm-start", short.to_str().expect("utf8")],
        &["warm_short.json", "n = 2"],
    );
}

fn info_json(path: &str, extra: &[&str]) -> Value {
    let mut args = vec!["info", path, "--json"];
    args.extend_from_slice(extra);
    let out = signorini(&args);
    assert_eq!(out.status.code(), Some(0), "info {path}: {:?}", stderr(&out));
    json_of(&out)
}

#[test]
fn info_reports_size_nonzeros_and_symmetry() {
    let v = info_json(&data("lcp_deudeu.dat"), &[]);
    assert_eq!((v["n"].as_u64(), v["nnz"].as_u64()), (Some(2), Some(4)));
    assert_eq!(v["symmetric"], true);
    assert_eq!(v["definiteness"], "positive_definite");
    assert_eq!(v["p_matrix"], true);
    assert_eq!(v["name"], "lcp_deudeu");
    let v = info_json(&data("lcp_ortiz_block.dat"), &[]);
    assert_eq!(v["symmetric"], false);
    assert_eq!(v["n"], 4);
    let text = signorini(&["info", &data("lcp_mmc.dat")]);
    assert_eq!(text.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&text.stdout).contains("26"));
}

#[test]
fn convert_round_trips_through_every_format() {
    let src = data("lcp_ortiz.dat");
    let json = tmp("ortiz.json");
    let dat = tmp("ortiz_back.dat");
    let mm_dir = tmp("ortiz_mm");
    let mm_file = tmp("ortiz.mtx");
    let s = |p: &Path| p.to_string_lossy().into_owned();
    for args in [
        vec!["convert".to_string(), src.clone(), s(&json)],
        vec!["convert".to_string(), s(&json), s(&dat)],
        vec!["convert".to_string(), s(&dat), s(&mm_dir), "--to".into(), "mtx".into()],
        vec!["convert".to_string(), s(&mm_dir), s(&mm_file)],
    ] {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = signorini(&a);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {:?}", stderr(&out));
    }
    let original = signorini_lcp::formats::read_problem(Path::new(&src), None).expect("original");
    for p in [&json, &dat, &mm_dir, &mm_file] {
        let back = signorini_lcp::formats::read_problem(p, None).expect("converted");
        assert_eq!(back.n(), original.n());
        for i in 0..4 {
            assert!((back.q()[i] - original.q()[i]).abs() <= 1e-15);
            for j in 0..4 {
                assert!(
                    (back.get(i, j) - original.get(i, j)).abs() <= 1e-15,
                    "{} M({i},{j})",
                    p.display()
                );
            }
        }
    }
    // --from overrides an extension that does not tell.
    let odd = tmp("ortiz.siconos");
    std::fs::copy(&src, &odd).expect("copy");
    let out = signorini(&["convert", &s(&odd), &s(&tmp("odd.json")), "--from", "dat"]);
    assert_eq!(out.status.code(), Some(0), "{:?}", stderr(&out));
}

#[test]
fn infeasible_problem_exits_one_with_its_farkas_certificate() {
    // Skew-symmetric (copositive-plus) M with w2 = -z1 - 1 < 0 for every z >= 0.
    let file = tmp("infeasible.json");
    std::fs::write(
        &file,
        r#"{"format": "signorini-lcp/1", "M": {"dense": [[0, 1], [-1, 0]]}, "q": [-1, -1]}"#,
    )
    .expect("write");
    let out = signorini(&["solve", file.to_str().expect("utf8"), "--solver", SOLVER, "--json"]);
    assert_eq!(out.status.code(), Some(1), "stderr {:?}", stderr(&out));
    let v = json_of(&out);
    assert_eq!(v["status"], "infeasible");
    assert_eq!(v["certificate"]["kind"], "farkas");
    let y: Vec<f64> =
        v["certificate"]["y"].as_array().expect("y").iter().filter_map(Value::as_f64).collect();
    // y >= 0, M'y = (-y2, y1) <= 0, q'y = -y1 - y2 < 0.
    assert_eq!(y.len(), 2);
    assert!(y.iter().all(|&t| t >= 0.0) && y[0] <= 1e-12 && y[1] > 0.0, "{y:?}");
}

#[test]
fn default_solver_is_auto() {
    let out = signorini(&["solve", &data("lcp_ortiz.dat"), "--json"]);
    assert_eq!(out.status.code(), Some(0), "stderr {:?}", stderr(&out));
    let v = json_of(&out);
    assert!(v["solver"].as_str().is_some_and(|s| s.starts_with("auto")), "{v}");
    assert_eq!(v["status"], "solved");
}

/// Reads z from a `--json` answer.
fn z_of(v: &Value) -> Vec<f64> {
    v["z"].as_array().map(|a| a.iter().filter_map(Value::as_f64).collect()).unwrap_or_default()
}

/// ||min(z, Mz + q)|| / ||q|| from the problem as generated, independently of the binary.
fn residual_of(lcp: &signorini_lcp::Lcp, z: &[f64]) -> f64 {
    let rows = lcp.dense_rows();
    let sq: f64 = rows
        .iter()
        .zip(lcp.q())
        .zip(z)
        .map(|((row, qi), zi)| {
            let wi = row.iter().zip(z).map(|(a, b)| a * b).sum::<f64>() + qi;
            zi.min(wi).powi(2)
        })
        .sum();
    let qn = lcp.q().iter().map(|v| v * v).sum::<f64>().sqrt();
    sq.sqrt() / if qn <= f64::EPSILON { 1.0 } else { qn }
}

/// How one `signorini solve --solver NAME --json` run ended.
enum Answer {
    /// Exit 0, status `solved`, z with its residual recomputed here.
    Solved(f64),
    /// Exit 1 with a non-solved status (the status).
    NotSolved(String),
    /// Exit 2: the solver declined the problem at set-up (one stderr line).
    Refused,
}

fn solve_file(file: &Path, name: &str, lcp: &signorini_lcp::Lcp) -> Answer {
    let out = signorini(&["solve", file.to_str().expect("utf8"), "--solver", name, "--json"]);
    match out.status.code() {
        Some(0) => {
            let v = json_of(&out);
            assert_eq!(v["status"], "solved", "{name}: exit 0 with {v}");
            let z = z_of(&v);
            assert_eq!(z.len(), lcp.n(), "{name}: z has the wrong length");
            Answer::Solved(residual_of(lcp, &z))
        }
        Some(1) => {
            let v = json_of(&out);
            let status = v["status"].as_str().unwrap_or("").to_string();
            assert!(!status.is_empty() && status != "solved", "{name}: exit 1 with {v}");
            Answer::NotSolved(status)
        }
        Some(2) => {
            let err = stderr(&out);
            assert_eq!(err.trim_end().lines().count(), 1, "{name}: {err:?}");
            assert!(!err.contains("panicked"), "{name}: {err}");
            Answer::Refused
        }
        code => panic!("{name}: exit {code:?}, stderr {:?}", stderr(&out)),
    }
}

/// Every registered solver through the binary on problems generated now (seeded, written to
/// a temporary file, never stored in the repository): in its class it solves and z verifies
/// against the generated problem; outside it, any `solved` still verifies; on problems
/// without a solution nothing claims `solved`, and the PSD-only solvers report a non-solved
/// status on a non-monotone problem.
#[test]
fn every_registered_solver_on_problems_generated_at_test_time() {
    use signorini_lcp::{formats, generate, Lcp, Registry};
    let names: Vec<String> = Registry::builtin().names().iter().map(|s| s.to_string()).collect();
    // (label, problem, solvers that must solve it: `None` = every registered solver).
    let psd_only = ["ipm", "apgd", "qp"];
    let general = ["lemke", "enum", "newton-fb", "newton-min", "auto"];
    let cases: Vec<(&str, Lcp, Option<Vec<&str>>)> = vec![
        ("spd", generate::random_spd(12, 20_261_201), None),
        ("delassus_sparse", generate::delassus_like(6, 2, 10.0, 20_261_202), None),
        (
            "psd_singular",
            generate::random_psd_singular(12, 4, 20_261_203),
            Some(vec!["lemke", "enum", "newton-fb", "ipm", "qp", "auto"]),
        ),
        (
            "p_matrix",
            generate::random_p_matrix(10, 20_261_204),
            Some(vec!["lemke", "murty", "bpp", "enum", "newton-fb", "newton-min", "auto"]),
        ),
        // Symmetric indefinite M = [[1, 2], [2, 1]], q = -e: three solutions, not monotone.
        (
            "indefinite_solvable",
            Lcp::from_dense_rows(&[vec![1.0, 2.0], vec![2.0, 1.0]], vec![-1.0, -1.0])
                .expect("valid"),
            Some(general.to_vec()),
        ),
        (
            "copositive_plus_infeasible",
            generate::random_copositive_plus_infeasible(8, 20_261_205).0,
            Some(vec![]),
        ),
        // M = -I, q = -e: w = -z - e < 0 for every z >= 0 (negative definite, infeasible).
        (
            "negative_definite_infeasible",
            Lcp::from_dense_rows(&[vec![-1.0, 0.0], vec![0.0, -1.0]], vec![-1.0, -1.0])
                .expect("valid"),
            Some(vec![]),
        ),
    ];
    let mut failures = Vec::new();
    for (label, lcp, must) in &cases {
        let file = tmp(&format!("generated_{label}.json"));
        formats::write_problem(&file, lcp, None).expect("write");
        let solvable = !label.ends_with("infeasible");
        for name in &names {
            let required = must.as_ref().is_none_or(|m| m.contains(&name.as_str()));
            let answer = solve_file(&file, name, lcp);
            match answer {
                Answer::Solved(res) => {
                    // The solvers' default tolerances are at most 1e-8; allow for the
                    // round trip of z through JSON text.
                    if res.is_nan() || res > 1e-8 * (1.0 + 1e-6) {
                        failures.push(format!("{label} / {name}: solved but residual {res:.2e}"));
                    }
                    if !solvable {
                        failures
                            .push(format!("{label} / {name}: solved a problem without solution"));
                    }
                    if label.starts_with("negative") && psd_only.contains(&name.as_str()) {
                        failures.push(format!("{label} / {name}: PSD-only solver claimed solved"));
                    }
                }
                Answer::NotSolved(status) if required => {
                    failures.push(format!("{label} / {name}: in its class but ended {status}"))
                }
                Answer::Refused if required => {
                    failures.push(format!("{label} / {name}: in its class but refused"))
                }
                Answer::NotSolved(_) | Answer::Refused => {}
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
