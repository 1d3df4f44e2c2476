//! A study run as shards and merged equals the same study run whole (every non-timing field).

use std::path::Path;

use signorini_lcp::Registry;
use signorini_verification::report::Provenance;
use signorini_verification::study::{
    expand_problems, merge, performance_profile, profile_taus, read_result, run_study,
    success_rates, write_study, StudyResult, StudySpec,
};

fn spec() -> StudySpec {
    StudySpec::parse(
        "name = \"shards\"\nproblems = [\"lcp/seed\", \"lcp/tiny\"]\n\
         solvers = [\"lemke\", \"pgs:omega=1.3\", \"bpp\"]\ntol = 1e-8\ntime_limit = 5.0\n",
        "test",
    )
    .expect("valid study")
}

fn provenance() -> Provenance {
    Provenance::collect(Path::new(env!("CARGO_MANIFEST_DIR")), 2, Vec::new(), "test")
}

fn run(shard: Option<(usize, usize)>, threads: usize) -> StudyResult {
    let spec = spec();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let problems = expand_problems(&spec, &root).expect("problems");
    run_study(&spec, problems, &Registry::builtin(), shard, threads, provenance(), &|| {})
        .expect("study runs")
}

/// Index, problem, solver, n, status, iterations and residual of a row.
type Fields = (usize, String, String, usize, String, usize, Option<f64>);

/// The non-timing fields of every row.
fn fields(r: &StudyResult) -> Vec<Fields> {
    r.rows
        .iter()
        .map(|x| {
            (
                x.index,
                x.problem.clone(),
                x.solver.clone(),
                x.n,
                x.status.clone(),
                x.iterations,
                x.residual,
            )
        })
        .collect()
}

#[test]
fn two_shards_merged_equal_one_run() {
    let whole = run(None, 2);
    assert!(whole.rows.len() >= 6, "expected several cases, got {}", whole.rows.len());
    let a = run(Some((1, 2)), 1);
    let b = run(Some((2, 2)), 2);
    assert!(!a.rows.is_empty() && !b.rows.is_empty());
    assert_eq!(a.rows.len() + b.rows.len(), whole.rows.len());
    // Through the files, as `cargo xtask merge` does.
    let tmp = std::env::temp_dir().join(format!("signorini-study-shards-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("temp dir");
    write_study(&tmp.join("a"), &a).expect("write a");
    write_study(&tmp.join("b"), &b).expect("write b");
    let merged = merge(vec![
        read_result(&tmp.join("b")).expect("read b"),
        read_result(&tmp.join("a")).expect("read a"),
    ])
    .expect("merge");
    assert_eq!(fields(&merged), fields(&whole));
    assert_eq!(merged.checks, whole.checks);
    assert_eq!(success_rates(&merged), success_rates(&whole));
    assert_eq!(merged.merged_from, vec![(1, 2), (2, 2)]);
    // The profile depends on timings; its end value at tau = 100 is not sensitive to them
    // within a factor 100 and must be the same fraction of solved problems, at most 1.
    let taus = profile_taus(5);
    for (s, rho) in performance_profile(&merged, &taus) {
        assert!(rho.windows(2).all(|w| w[0] <= w[1]), "{s}: profile not monotone {rho:?}");
        assert!(rho.iter().all(|&r| (0.0..=1.0).contains(&r)));
    }
    assert!(tmp.join("a/plots/profile.svg").is_file());
    std::fs::remove_dir_all(&tmp).ok();
}

#[test]
fn incomplete_or_repeated_shards_do_not_merge() {
    let a = run(Some((1, 3)), 1);
    let b = run(Some((2, 3)), 1);
    let err = merge(vec![a.clone(), b]).expect_err("shard 3 missing");
    assert!(err.to_string().contains("missing"), "{err}");
    let err = merge(vec![a.clone(), a]).expect_err("shard twice");
    assert!(err.to_string().contains("twice"), "{err}");
}
