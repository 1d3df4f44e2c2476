//! Side-by-side benchmark against the field's LCP solvers on the same problem files
//! (`cargo xtask bench --peers [--quick]` runs this binary in release).
//!
//! Problems (seeded, written as `signorini-lcp/1` JSON to `<out>/problems/`): dense SPD
//! (`generate::random_spd`) at n = 100, 300, 1000 for Lemke (ours vs Siconos
//! `lcp_lexicolemke` vs Drake `MobyLCPSolver` / `UnrevisedLemkeSolver`), and sparse SPD
//! Delassus-like problems (`generate::delassus_like`, 2 contacts per body) at 10^3 and 10^4
//! unknowns (our pgs / bpp / newton-min / newton-fb / ipm vs `qp` (clarabel, in process) vs Siconos
//! `lcp_pgs` / `lcp_newton_FB`). Every (problem, solver) pair runs `repeats` times, the solvers
//! alternating round by round; the median time of the solve alone is reported (peers time
//! their solve call in-process, excluding interpreter start-up and parsing, and the second
//! of two calls in each peer process is kept; every Drake call gets a fresh solver object,
//! because `UnrevisedLemkeSolver` warm-starts a repeated solve from its previous basis). The residual of
//! every answer is recomputed here with `signorini_lcp::evaluate` from the returned z, and a
//! pair counts as solved when it is within the common tolerance.
//!
//! The frictional-contact half (`signorini_benches::fc_peers`, `<out>/fc/`): our `auto`,
//! `newton-ac` and `nsgs` against Siconos' `fc3d_nsgs`, `fc3d_nonsmooth_Newton_AlartCurnier` and
//! `fc3d_admm` on the 3D files of `verification/data/siconos-fc`, tolerance 1e-8, at least 3
//! alternating rounds; skipped with a note when Siconos is absent.
//!
//! `peers [--quick] [--only lcp|fc] [--out DIR] [--siconos-python PY] [--drake-python PY]`

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use signorini_benches::{fc_peers, median};
use signorini_lcp::{evaluate, generate, write_problem, Format, Lcp, Registry, SolveOptions};
use signorini_verification::plot::{LogLogPlot, Marker, Series};

const TOL: f64 = 1e-8;

struct Args {
    quick: bool,
    only: Option<String>,
    out: PathBuf,
    siconos_python: String,
    drake_python: String,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        quick: false,
        only: None,
        out: PathBuf::from("target/bench/peers"),
        siconos_python: "/usr/bin/python3".into(),
        drake_python: std::env::var("SIGNORINI_DRAKE_PYTHON").unwrap_or_else(|_| "python3".into()),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--quick" => a.quick = true,
            "--only" => {
                let v = it.next().ok_or("--only needs lcp or fc")?;
                if v != "lcp" && v != "fc" {
                    return Err(format!("--only {v}: expected lcp or fc"));
                }
                a.only = Some(v);
            }
            "--out" => a.out = PathBuf::from(it.next().ok_or("--out needs a DIR")?),
            "--siconos-python" => a.siconos_python = it.next().ok_or("needs a PY")?,
            "--drake-python" => a.drake_python = it.next().ok_or("needs a PY")?,
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(a)
}

#[derive(Clone)]
struct Problem {
    family: &'static str,
    n: usize,
    path: PathBuf,
    lcp: Lcp,
}

/// One solver run once on one problem.
#[derive(Clone)]
enum Solver {
    Ours(&'static str),
    Python { peer: &'static str, script: &'static str, solver: &'static str },
}

impl Solver {
    fn label(&self) -> String {
        match self {
            Solver::Ours(s) if *s == "qp" => "clarabel (qp, in process)".into(),
            Solver::Ours(s) => format!("signorini {s}"),
            Solver::Python { peer, solver, .. } => format!("{peer} {solver}"),
        }
    }
    fn is_ours(&self) -> bool {
        matches!(self, Solver::Ours(s) if *s != "qp")
    }
}

/// Runs a solver once: (seconds of the solve, z).
fn run_once(args: &Args, s: &Solver, p: &Problem) -> Result<(f64, Vec<f64>), String> {
    match s {
        Solver::Ours(name) => {
            let solver = Registry::builtin().build(name).map_err(|e| e.to_string())?;
            let options = SolveOptions {
                tol: Some(TOL),
                time_limit: Some(Duration::from_secs(60)),
                ..SolveOptions::default()
            };
            let sol = solver.solve(&p.lcp, &options, None).map_err(|e| e.to_string())?;
            Ok((sol.solve_seconds, sol.z))
        }
        Solver::Python { peer, script, solver } => {
            let py = if *peer == "drake" { &args.drake_python } else { &args.siconos_python };
            let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("peers").join(script);
            let mut cmd = Command::new(py);
            cmd.arg(&script).arg("--repeats").arg("2").arg("--solvers").arg(solver);
            if *peer == "siconos" {
                cmd.arg("--tol").arg(TOL.to_string());
            }
            let out = cmd.arg(&p.path).output().map_err(|e| format!("{py}: {e}"))?;
            if !out.status.success() {
                return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
            }
            let text = String::from_utf8_lossy(&out.stdout);
            let line = text.lines().find(|l| !l.trim().is_empty()).ok_or("no output")?;
            let v: serde_json::Value =
                serde_json::from_str(line).map_err(|e| format!("peer output: {e}"))?;
            // The second of two calls in the process: the first one pays one-time set-up
            // (library loading, allocations) that an in-process Rust solve does not.
            let t = v["times_s"]
                .as_array()
                .and_then(|a| a.last())
                .and_then(|x| x.as_f64())
                .ok_or("times_s missing")?;
            let z = v["z"]
                .as_array()
                .ok_or("z missing")?
                .iter()
                .map(|x| x.as_f64().unwrap_or(f64::NAN))
                .collect();
            Ok((t, z))
        }
    }
}

fn available(py: &str, module: &str) -> bool {
    Command::new(py)
        .arg("-c")
        .arg(format!("import {module}"))
        .output()
        .is_ok_and(|o| o.status.success())
}

struct Entry {
    family: &'static str,
    n: usize,
    label: String,
    ours: bool,
    times: Vec<f64>,
    residual: f64,
    error: Option<String>,
}

fn main() {
    if let Err(e) = real_main() {
        eprintln!("peers: {e}");
        std::process::exit(2);
    }
}

fn real_main() -> Result<(), String> {
    let args = parse_args()?;
    if args.only.as_deref() != Some("fc") {
        lcp_main(&args)?;
    }
    if args.only.as_deref() != Some("lcp") {
        fc_main(&args)?;
    }
    Ok(())
}

/// The frictional-contact half: `<out>/fc/results.json` and `<out>/fc/table.md`.
fn fc_main(args: &Args) -> Result<(), String> {
    let repeats = if args.quick { 3 } else { 5 };
    let with_siconos = fc_peers::siconos_available(&args.siconos_python);
    if !with_siconos {
        eprintln!(
            "peers fc: Siconos skipped: `{} -c 'import siconos.numerics'` failed; install with `apt-get install python3-siconos` (or pass --siconos-python)",
            args.siconos_python
        );
    }
    let fc_args = fc_peers::FcPeersArgs {
        data: Path::new(env!("CARGO_MANIFEST_DIR")).join("../verification/data/siconos-fc"),
        out: args.out.clone(),
        siconos_python: args.siconos_python.clone(),
        repeats,
        time_limit: Duration::from_secs(60),
    };
    let entries = fc_peers::run(&fc_args, with_siconos)?;
    let dir = args.out.join("fc");
    let mut md = fc_peers::table(&entries, repeats);
    if !with_siconos {
        md.push_str("\nSiconos skipped (not importable): ours only.\n");
    }
    let json = fc_peers::json(&entries, repeats);
    let path = dir.join("results.json");
    std::fs::write(&path, serde_json::to_string_pretty(&json).map_err(|e| e.to_string())? + "\n")
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let path = dir.join("table.md");
    std::fs::write(&path, &md).map_err(|e| format!("{}: {e}", path.display()))?;
    print!("{md}");
    eprintln!("peers fc: wrote {}", dir.display());
    Ok(())
}

fn lcp_main(args: &Args) -> Result<(), String> {
    let dir = args.out.join("problems");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let repeats = if args.quick { 3 } else { 7 };
    let siconos = available(&args.siconos_python, "siconos.numerics");
    let drake = available(&args.drake_python, "pydrake.solvers");
    let siconos_scipy = siconos && available(&args.siconos_python, "scipy.sparse");
    let mut skipped = Vec::new();
    if !siconos {
        skipped.push(format!(
            "Siconos: `{} -c 'import siconos.numerics'` failed; install with `apt-get install python3-siconos` (or pass --siconos-python)",
            args.siconos_python
        ));
    }
    if !drake {
        skipped.push(format!(
            "Drake: `{} -c 'import pydrake.solvers'` failed; install with `pip install drake` (a venv is fine; pass --drake-python or set SIGNORINI_DRAKE_PYTHON)",
            args.drake_python
        ));
    }
    for s in &skipped {
        eprintln!("peers: skipped {s}");
    }
    let mut problems = Vec::new();
    for n in [100usize, 300, 1000] {
        let seed = 20_261_201 + n as u64;
        let lcp = generate::random_spd(n, seed);
        let path = dir.join(format!("dense_spd_n{n}_s{seed}.json"));
        write_problem(&path, &lcp, Some(Format::Json)).map_err(|e| e.to_string())?;
        problems.push(Problem { family: "dense lemke", n, path, lcp });
    }
    for bodies in [500usize, 5000] {
        let seed = 7_000 + bodies as u64;
        let lcp = generate::delassus_like(bodies, 2, 1e3, seed);
        let n = lcp.n();
        let path = dir.join(format!("delassus_n{n}_s{seed}.json"));
        write_problem(&path, &lcp, Some(Format::Json)).map_err(|e| e.to_string())?;
        problems.push(Problem { family: "sparse spd", n, path, lcp });
    }
    let mut entries: Vec<Entry> = Vec::new();
    for p in &problems {
        let mut solvers: Vec<Solver> = Vec::new();
        if p.family == "dense lemke" {
            solvers.push(Solver::Ours("lemke"));
            if siconos {
                solvers.push(Solver::Python {
                    peer: "siconos",
                    script: "siconos_lcp.py",
                    solver: "lexicolemke",
                });
            }
            if drake {
                solvers.push(Solver::Python {
                    peer: "drake",
                    script: "drake_lcp.py",
                    solver: "moby",
                });
                solvers.push(Solver::Python {
                    peer: "drake",
                    script: "drake_lcp.py",
                    solver: "unrevised_lemke",
                });
            }
        } else {
            for s in ["pgs", "bpp", "newton-min", "newton-fb", "ipm", "qp"] {
                solvers.push(Solver::Ours(s));
            }
            // Siconos 4.4's lcp_pgs takes a sparse M (through scipy); lcp_newton_FB needs a
            // dense M, affordable only up to a few thousand unknowns.
            if siconos && (p.n <= 2000 || siconos_scipy) {
                solvers.push(Solver::Python {
                    peer: "siconos",
                    script: "siconos_lcp.py",
                    solver: "pgs",
                });
            } else if siconos {
                eprintln!(
                    "peers: Siconos pgs skipped at n = {} (a sparse M needs scipy: apt-get install python3-scipy)",
                    p.n
                );
            }
            if siconos && p.n <= 2000 {
                solvers.push(Solver::Python {
                    peer: "siconos",
                    script: "siconos_lcp.py",
                    solver: "newton_FB",
                });
            } else if siconos {
                eprintln!(
                    "peers: Siconos newton_FB skipped at n = {} (Siconos 4.4 needs a dense M there)",
                    p.n
                );
            }
        }
        let mut times = vec![Vec::new(); solvers.len()];
        let mut last_z = vec![None; solvers.len()];
        let mut errors = vec![None; solvers.len()];
        for round in 0..repeats {
            for (k, s) in solvers.iter().enumerate() {
                if errors[k].is_some() {
                    continue;
                }
                eprintln!(
                    "peers: {} n = {} round {}/{repeats}: {}",
                    p.family,
                    p.n,
                    round + 1,
                    s.label()
                );
                match run_once(args, s, p) {
                    Ok((t, z)) => {
                        times[k].push(t);
                        last_z[k] = Some(z);
                    }
                    Err(e) => errors[k] = Some(e),
                }
            }
        }
        for (k, s) in solvers.iter().enumerate() {
            let residual = match &last_z[k] {
                Some(z) if z.len() == p.n => evaluate(&p.lcp, z).1.residual,
                _ => f64::NAN,
            };
            entries.push(Entry {
                family: p.family,
                n: p.n,
                label: s.label(),
                ours: s.is_ours(),
                times: times[k].clone(),
                residual,
                error: errors[k].clone(),
            });
        }
    }
    write_outputs(args, &entries, &skipped, repeats)
}

fn solved(e: &Entry) -> bool {
    e.error.is_none() && e.residual.is_finite() && e.residual <= TOL
}

fn slope(points: &[(f64, f64)]) -> Option<f64> {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| *x > 0.0 && *y > 0.0)
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    if pts.len() < 2 {
        return None;
    }
    let k = pts.len() as f64;
    let (mx, my) =
        (pts.iter().map(|p| p.0).sum::<f64>() / k, pts.iter().map(|p| p.1).sum::<f64>() / k);
    let sxx: f64 = pts.iter().map(|p| (p.0 - mx).powi(2)).sum();
    let sxy: f64 = pts.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

fn write_outputs(
    args: &Args,
    entries: &[Entry],
    skipped: &[String],
    repeats: usize,
) -> Result<(), String> {
    let json: Vec<serde_json::Value> = entries
        .iter()
        .map(|e| {
            serde_json::json!({
                "family": e.family, "n": e.n, "solver": e.label, "ours": e.ours,
                "times_s": e.times, "median_s": median(&e.times),
                "residual": if e.residual.is_finite() { Some(e.residual) } else { None },
                "solved": solved(e), "error": e.error,
            })
        })
        .collect();
    let doc = serde_json::json!({
        "format": "signorini-bench-peers/1", "tol": TOL, "repeats": repeats,
        "skipped": skipped, "results": json,
    });
    let path = args.out.join("results.json");
    std::fs::write(&path, serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())? + "\n")
        .map_err(|e| format!("{}: {e}", path.display()))?;
    // Table: per problem, our best solved entry against every peer.
    let mut md = format!(
        "Tolerance {TOL:.0e} on the merit recomputed from every z; median of {repeats} alternating runs, solve only.\n\n\
         | problem | n | ours (best) | ours [ms] | our residual | peer | peer [ms] | peer residual | ratio ours/peer |\n\
         |---|---|---|---|---|---|---|---|---|\n"
    );
    let mut keys: Vec<(&str, usize)> = entries.iter().map(|e| (e.family, e.n)).collect();
    keys.dedup();
    for (family, n) in keys {
        let here: Vec<&Entry> = entries.iter().filter(|e| e.family == family && e.n == n).collect();
        let best = here
            .iter()
            .filter(|e| e.ours && solved(e))
            .min_by(|a, b| median(&a.times).total_cmp(&median(&b.times)));
        let Some(best) = best else {
            md.push_str(&format!("| {family} | {n} | none of ours solved | | | | | | |\n"));
            continue;
        };
        let bt = median(&best.times);
        for peer in here.iter().filter(|e| !e.ours) {
            let pt = median(&peer.times);
            let (pt_s, ratio) = match &peer.error {
                Some(err) => (
                    format!("error: {}", err.lines().last().unwrap_or("").replace('|', "/")),
                    String::new(),
                ),
                None => (
                    format!("{:.3}", pt * 1e3),
                    format!(
                        "{:.3}{}",
                        bt / pt,
                        if solved(peer) { "" } else { " (peer not solved)" }
                    ),
                ),
            };
            md.push_str(&format!(
                "| {family} | {n} | {} | {:.3} | {:.1e} | {} | {pt_s} | {:.1e} | {ratio} |\n",
                best.label,
                bt * 1e3,
                best.residual,
                peer.label,
                peer.residual
            ));
        }
    }
    md.push_str("\nAll entries (median ms, residual, solved):\n\n| problem | n | solver | median [ms] | residual | solved |\n|---|---|---|---|---|---|\n");
    for e in entries {
        md.push_str(&format!(
            "| {} | {} | {} | {:.3} | {:.1e} | {} |\n",
            e.family,
            e.n,
            e.label,
            median(&e.times) * 1e3,
            e.residual,
            if solved(e) {
                "yes".to_string()
            } else {
                e.error.clone().map_or("no".into(), |x| {
                    format!("error: {}", x.lines().last().unwrap_or("").replace('|', "/"))
                })
            }
        ));
    }
    md.push_str("\nFitted growth exponent (least squares of log time on log n):\n\n| family | solver | exponent |\n|---|---|---|\n");
    let mut series = Vec::new();
    let mut labels: Vec<(&str, String)> =
        entries.iter().map(|e| (e.family, e.label.clone())).collect();
    labels.sort();
    labels.dedup();
    for (family, label) in labels {
        let pts: Vec<(f64, f64)> = entries
            .iter()
            .filter(|e| e.family == family && e.label == label && solved(e))
            .map(|e| (e.n as f64, median(&e.times)))
            .collect();
        if let Some(s) = slope(&pts) {
            md.push_str(&format!("| {family} | {label} | {s:.2} |\n"));
        }
        series.push(Series {
            label: format!("{family}: {label}"),
            points: pts,
            marker: Marker::LinePoints,
        });
    }
    if !skipped.is_empty() {
        md.push_str("\nSkipped peers:\n\n");
        for s in skipped {
            md.push_str(&format!("- {s}\n"));
        }
    }
    let path = args.out.join("table.md");
    std::fs::write(&path, &md).map_err(|e| format!("{}: {e}", path.display()))?;
    let plot = LogLogPlot {
        title: "solve time against problem size".into(),
        x_label: "unknowns n".into(),
        y_label: "median solve time [s]".into(),
        series,
    };
    plot.write(&args.out.join("time_vs_size.svg")).map_err(|e| e.to_string())?;
    print!("{md}");
    eprintln!("peers: wrote {}", args.out.display());
    Ok(())
}
