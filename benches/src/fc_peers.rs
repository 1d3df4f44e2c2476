//! The frictional-contact half of `cargo xtask bench --peers`: our solvers against Siconos'
//! `fc3d_nsgs`, `fc3d_nonsmooth_Newton_AlartCurnier` and `fc3d_admm` (through `fc3d_driver`,
//! Debian `python3-siconos`, `benches/peers/siconos_fc.py`) on the 3D files of
//! `verification/data/siconos-fc`, in the same run.
//!
//! Siconos reads the `.dat` files itself; the FCLIB `.hdf5` files, which Debian's Siconos
//! cannot read, are handed to it as `signorini-fc/1` JSON written from our reader (the same W,
//! q, mu). Every (file, solver) pair runs `repeats` rounds, the solvers alternating within a
//! round; a peer process makes two driver calls and the second is kept (the first pays
//! library set-up), and so do ours (two solves in a row, the second timed). The error of
//! every answer is recomputed here from its r with
//! `signorini_friction::merit::error` (Siconos' `fc3d_compute_error`, after projecting r onto
//! the cones as our driver does) and a pair is solved when it is within [`TOL`].
//!
//! The target of issue 15: our best solver solves at least as many files as Siconos' best, and
//! the geometric mean, over the files both solve, of its median time over the median time of
//! Siconos' fastest solver that solved the file is at most 0.5.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use signorini_friction::formats::{read_fc_problem, write_fc_json};
use signorini_friction::solver::projected;
use signorini_friction::{merit, FcProblem, FcRegistry};
use signorini_lcp::SolveOptions;

use crate::median;

/// The tolerance on the Siconos error, for every solver.
pub const TOL: f64 = 1e-8;

/// Our solvers in the comparison.
pub const OURS: [&str; 3] = ["auto", "newton-ac", "nsgs"];

/// Siconos' solvers (the script's names).
pub const PEERS: [&str; 3] = ["nsgs", "nsn_ac", "admm"];

/// The C function behind each of Siconos' names.
fn peer_function(name: &str) -> &'static str {
    match name {
        "nsgs" => "fc3d_nsgs",
        "nsn_ac" => "fc3d_nonsmooth_Newton_AlartCurnier",
        _ => "fc3d_admm",
    }
}

/// Where to read, where to write, whom to call.
#[derive(Debug, Clone)]
pub struct FcPeersArgs {
    /// The folder of the Siconos frictional-contact set.
    pub data: PathBuf,
    /// The output folder (`fc/` is created inside).
    pub out: PathBuf,
    /// The Python with `siconos.numerics`.
    pub siconos_python: String,
    /// Rounds per (file, solver).
    pub repeats: usize,
    /// Time limit of each of our solves.
    pub time_limit: Duration,
}

/// One (file, solver) pair after all rounds.
#[derive(Debug, Clone)]
pub struct FcEntry {
    /// File name.
    pub file: String,
    /// Contacts.
    pub contacts: usize,
    /// `signorini <spec>` or `siconos <function>`.
    pub label: String,
    /// Ours or the peer's.
    pub ours: bool,
    /// Solve times of the rounds, seconds.
    pub times: Vec<f64>,
    /// The error recomputed here from the last round's r.
    pub error: f64,
    /// Iterations of the last round.
    pub iterations: usize,
    /// What went wrong, when the run gave no r.
    pub failure: Option<String>,
}

impl FcEntry {
    /// Solved to [`TOL`] by the recomputed error.
    pub fn solved(&self) -> bool {
        self.failure.is_none() && self.error.is_finite() && self.error <= TOL
    }
}

/// A file of the set with its problem and the path Siconos reads.
struct File {
    name: String,
    problem: FcProblem,
    peer_path: PathBuf,
}

/// Runs the comparison; returns the entries. Peers that cannot start leave failures in their
/// entries; a missing Siconos is the caller's decision (see [`siconos_available`]).
pub fn run(args: &FcPeersArgs, with_siconos: bool) -> Result<Vec<FcEntry>, String> {
    let files = three_d_files(args)?;
    let mut entries = Vec::new();
    for f in &files {
        let mut labels: Vec<(String, bool)> =
            OURS.iter().map(|s| (format!("signorini {s}"), true)).collect();
        if with_siconos {
            labels.extend(PEERS.iter().map(|s| (format!("siconos {}", peer_function(s)), false)));
        }
        let mut times = vec![Vec::new(); labels.len()];
        let mut last: Vec<Option<(Vec<f64>, usize)>> = vec![None; labels.len()];
        let mut failures: Vec<Option<String>> = vec![None; labels.len()];
        for round in 0..args.repeats {
            for k in 0..labels.len() {
                if failures[k].is_some() {
                    continue;
                }
                eprintln!(
                    "peers fc: {} round {}/{}: {}",
                    f.name,
                    round + 1,
                    args.repeats,
                    labels[k].0
                );
                let once = if k < OURS.len() {
                    ours_once(args, OURS[k], &f.problem)
                } else {
                    peer_once(args, PEERS[k - OURS.len()], &f.peer_path)
                };
                match once {
                    Ok((t, r, it)) => {
                        times[k].push(t);
                        last[k] = Some((r, it));
                    }
                    Err(e) => failures[k] = Some(e),
                }
            }
        }
        for (k, (label, ours)) in labels.into_iter().enumerate() {
            let (error, iterations) = match &last[k] {
                Some((r, it)) if r.len() == f.problem.n() => {
                    (merit::error(&f.problem, &projected(&f.problem, r)), *it)
                }
                Some((r, _)) => {
                    failures[k] = Some(format!("r has {} entries", r.len()));
                    (f64::NAN, 0)
                }
                None => (f64::NAN, 0),
            };
            entries.push(FcEntry {
                file: f.name.clone(),
                contacts: f.problem.n_contacts(),
                label,
                ours,
                times: times[k].clone(),
                error,
                iterations,
                failure: failures[k].clone(),
            });
        }
    }
    Ok(entries)
}

/// True when `python -c 'import siconos.numerics'` works.
pub fn siconos_available(python: &str) -> bool {
    Command::new(python)
        .args(["-c", "import siconos.numerics"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The 3D files of the set, sorted; `.hdf5` ones also written as JSON for the peer.
fn three_d_files(args: &FcPeersArgs) -> Result<Vec<File>, String> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&args.data)
        .map_err(|e| format!("{}: {e}", args.data.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "dat" || e == "hdf5"))
        .collect();
    paths.sort();
    let dir = args.out.join("fc").join("problems");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let mut out = Vec::new();
    for path in paths {
        let problem =
            read_fc_problem(&path, None).map_err(|e| format!("{}: {e}", path.display()))?;
        if problem.dimension() != 3 {
            continue;
        }
        let name = path.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let peer_path = if name.ends_with(".hdf5") {
            let json = dir.join(format!("{name}.json"));
            write_fc_json(&json, &problem).map_err(|e| format!("{}: {e}", json.display()))?;
            json
        } else {
            path.clone()
        };
        out.push(File { name, problem, peer_path });
    }
    Ok(out)
}

/// One of our solves, the second of two in a row: (seconds of the solve, r, iterations).
fn ours_once(
    args: &FcPeersArgs,
    spec: &str,
    problem: &FcProblem,
) -> Result<(f64, Vec<f64>, usize), String> {
    let solver = FcRegistry::builtin().build(spec).map_err(|e| e.to_string())?;
    let options = SolveOptions {
        tol: Some(TOL),
        time_limit: Some(args.time_limit),
        ..SolveOptions::default()
    };
    // Two solves, the second kept: the same as each peer process's two driver calls. A
    // single solve is timed with cold caches whenever it is the first after a peer process
    // (measured: `auto` 45 to 53 µs on the one-contact files in that position, against 8 to 15 µs
    // repeated; `fc_speed --cold` reproduces it).
    solver.solve(problem, &options, None).map_err(|e| e.to_string())?;
    let sol = solver.solve(problem, &options, None).map_err(|e| e.to_string())?;
    Ok((sol.solve_seconds, sol.r, sol.iterations))
}

/// One peer process (two driver calls, the second kept): (seconds, r, iterations).
fn peer_once(
    args: &FcPeersArgs,
    solver: &str,
    path: &Path,
) -> Result<(f64, Vec<f64>, usize), String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("peers").join("siconos_fc.py");
    let out = Command::new(&args.siconos_python)
        .arg(&script)
        .args(["--repeats", "2", "--tol", &TOL.to_string(), "--solvers", solver])
        .arg(path)
        .output()
        .map_err(|e| format!("{}: {e}", args.siconos_python))?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        return Err(err.lines().last().unwrap_or("peer failed").to_string());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text.lines().find(|l| !l.trim().is_empty()).ok_or("no output")?;
    let v: serde_json::Value = serde_json::from_str(line).map_err(|e| format!("peer: {e}"))?;
    let t = v["times_s"]
        .as_array()
        .and_then(|a| a.last())
        .and_then(serde_json::Value::as_f64)
        .ok_or("times_s missing")?;
    let r = v["r"]
        .as_array()
        .ok_or("r missing")?
        .iter()
        .map(|x| x.as_f64().unwrap_or(f64::NAN))
        .collect();
    let it = v["iterations"].as_u64().unwrap_or(0) as usize;
    Ok((t, r, it))
}

/// One of our solvers against Siconos' fastest on the files both solve.
#[derive(Debug, Clone)]
pub struct Verdict {
    /// Our solver's label.
    pub label: String,
    /// Files it solves.
    pub solved: usize,
    /// Files both it and some Siconos solver solve.
    pub common: usize,
    /// Geometric mean of (our median) / (Siconos' fastest successful median) over them.
    pub geo_mean_ratio: f64,
}

/// Per our solver: solved count and the geometric-mean ratio; plus Siconos' best count.
pub fn verdicts(entries: &[FcEntry]) -> (Vec<Verdict>, usize, String) {
    let files = file_names(entries);
    let mut peer_counts: Vec<(String, usize)> = Vec::new();
    for e in entries.iter().filter(|e| !e.ours) {
        match peer_counts.iter_mut().find(|(l, _)| *l == e.label) {
            Some((_, c)) => *c += usize::from(e.solved()),
            None => peer_counts.push((e.label.clone(), usize::from(e.solved()))),
        }
    }
    let (peer_best, peer_best_count) = peer_counts
        .iter()
        .max_by_key(|(_, c)| *c)
        .map_or(("none".to_string(), 0), |(l, c)| (l.clone(), *c));
    let mut out = Vec::new();
    for s in OURS {
        let label = format!("signorini {s}");
        let mut solved = 0;
        let mut logs = Vec::new();
        for f in &files {
            let Some(ours) = entries.iter().find(|e| &e.file == f && e.label == label) else {
                continue;
            };
            if !ours.solved() {
                continue;
            }
            solved += 1;
            if let Some(peer) = fastest_peer(entries, f) {
                logs.push((median(&ours.times) / median(&peer.times)).ln());
            }
        }
        let common = logs.len();
        let geo_mean_ratio =
            if common == 0 { f64::NAN } else { (logs.iter().sum::<f64>() / common as f64).exp() };
        out.push(Verdict { label, solved, common, geo_mean_ratio });
    }
    (out, peer_best_count, peer_best)
}

fn file_names(entries: &[FcEntry]) -> Vec<String> {
    let mut files: Vec<String> = entries.iter().map(|e| e.file.clone()).collect();
    files.dedup();
    files
}

/// Siconos' fastest solver that solved `file`.
fn fastest_peer<'a>(entries: &'a [FcEntry], file: &str) -> Option<&'a FcEntry> {
    entries
        .iter()
        .filter(|e| !e.ours && e.file == file && e.solved())
        .min_by(|a, b| median(&a.times).total_cmp(&median(&b.times)))
}

fn cell(e: &FcEntry) -> String {
    match &e.failure {
        Some(f) => format!("error: {}", f.replace('|', "/")),
        None if e.solved() => {
            format!("{:.3} ({:.1e}, {} it)", median(&e.times) * 1e3, e.error, e.iterations)
        }
        None => format!("✗ {:.3} ({:.1e}, {} it)", median(&e.times) * 1e3, e.error, e.iterations),
    }
}

/// The markdown table: one row per file, a column per solver, then the verdicts.
pub fn table(entries: &[FcEntry], repeats: usize) -> String {
    let mut labels: Vec<String> = Vec::new();
    for e in entries {
        if !labels.contains(&e.label) {
            labels.push(e.label.clone());
        }
    }
    let mut md = format!(
        "Frictional contact, 3D files of verification/data/siconos-fc: tolerance {TOL:.0e} on \
         fc3d_compute_error recomputed here from every r; median of {repeats} alternating runs, \
         solve only, in ms (error, iterations); ✗ = not solved.\n\n| file | contacts | {} |\n|---|---|{}\n",
        labels.join(" | "),
        "---|".repeat(labels.len())
    );
    for f in file_names(entries) {
        let here: Vec<&FcEntry> = entries.iter().filter(|e| e.file == f).collect();
        let contacts = here.first().map_or(0, |e| e.contacts);
        let cells: Vec<String> = labels
            .iter()
            .map(|l| here.iter().find(|e| &e.label == l).map_or(String::new(), |e| cell(e)))
            .collect();
        md.push_str(&format!("| {f} | {contacts} | {} |\n", cells.join(" | ")));
    }
    md.push_str("\nSolved (of the 3D files): ");
    let counts: Vec<String> = labels
        .iter()
        .map(|l| {
            let c = entries.iter().filter(|e| &e.label == l && e.solved()).count();
            format!("{l} {c}")
        })
        .collect();
    md.push_str(&counts.join(", "));
    let (verdicts, peer_count, peer_best) = verdicts(entries);
    md.push_str(&format!(
        "\n\nSiconos' best: {peer_best}, {peer_count} solved. Ours against Siconos' fastest \
         successful solver per file (geometric mean of the ratio of medians over the files \
         both solve; target <= 0.5 with at least {peer_count} solved):\n\n\
         | ours | solved | files in the mean | geometric mean ours/Siconos |\n|---|---|---|---|\n"
    ));
    for v in verdicts {
        md.push_str(&format!(
            "| {} | {} | {} | {:.3} |\n",
            v.label, v.solved, v.common, v.geo_mean_ratio
        ));
    }
    md
}

/// results.json of the frictional-contact half.
pub fn json(entries: &[FcEntry], repeats: usize) -> serde_json::Value {
    let results: Vec<serde_json::Value> = entries
        .iter()
        .map(|e| {
            serde_json::json!({
                "file": e.file, "contacts": e.contacts, "solver": e.label, "ours": e.ours,
                "times_s": e.times, "median_s": median(&e.times),
                "error": if e.error.is_finite() { Some(e.error) } else { None },
                "iterations": e.iterations, "solved": e.solved(), "failure": e.failure,
            })
        })
        .collect();
    serde_json::json!({
        "format": "signorini-bench-peers-fc/1", "tol": TOL, "repeats": repeats,
        "results": results,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(file: &str, label: &str, ours: bool, t: f64, error: f64) -> FcEntry {
        FcEntry {
            file: file.into(),
            contacts: 1,
            label: label.into(),
            ours,
            times: vec![t, t, t],
            error,
            iterations: 1,
            failure: None,
        }
    }

    #[test]
    fn the_verdict_compares_with_the_fastest_successful_peer_only() {
        let e = vec![
            entry("a", "signorini auto", true, 1.0, 1e-9),
            entry("a", "siconos fc3d_nsgs", false, 0.5, 1e-9),
            // Faster but unsolved: not the reference.
            entry("a", "siconos fc3d_admm", false, 0.1, 1e-3),
            entry("b", "signorini auto", true, 1.0, 1e-9),
            entry("b", "siconos fc3d_nsgs", false, 8.0, 1e-9),
        ];
        let (v, peer_count, peer_best) = verdicts(&e);
        let auto = v.iter().find(|v| v.label == "signorini auto").expect("auto");
        assert_eq!((auto.solved, auto.common), (2, 2));
        // sqrt(2 * 1/8) = 0.5
        assert!((auto.geo_mean_ratio - 0.5).abs() < 1e-12);
        assert_eq!((peer_count, peer_best.as_str()), (2, "siconos fc3d_nsgs"));
        assert!(table(&e, 3).contains("| a | 1 |"));
    }
}
