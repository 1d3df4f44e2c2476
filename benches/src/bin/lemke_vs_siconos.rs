//! Dense Lemke against Siconos numerics' `lcp_lexicolemke` on the same problems, in one run.
//!
//! Generates seeded random SPD problems (`generate::random_spd`), writes them as
//! `signorini-lcp/1` JSON, times our `lemke` (solve only, median of `--repeats` runs), runs
//! `benches/peers/siconos_lcp.py` on the same files and prints a Markdown table of medians,
//! ratios (ours / Siconos), pivots and residuals recomputed from each z.
//!
//! `cargo run --release -p signorini-benches --bin lemke_vs_siconos -- [--sizes 300,600,1000]
//! [--repeats 5] [--python /usr/bin/python3] [--out DIR]`

use std::path::{Path, PathBuf};
use std::process::Command;

use signorini_benches::median;
use signorini_lcp::{generate, Lcp, Registry, SolveOptions};

struct Args {
    sizes: Vec<usize>,
    repeats: usize,
    python: String,
    out: PathBuf,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        sizes: vec![300, 600, 1000],
        repeats: 5,
        python: "/usr/bin/python3".into(),
        out: PathBuf::from("target/peers/lemke_vs_siconos"),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--sizes" => {
                a.sizes = value
                    .split(',')
                    .map(|s| s.trim().parse::<usize>().map_err(|e| format!("--sizes {s}: {e}")))
                    .collect::<Result<_, _>>()?
            }
            "--repeats" => {
                a.repeats = value.parse().map_err(|e| format!("--repeats {value}: {e}"))?;
                if a.repeats == 0 {
                    return Err("--repeats must be at least 1".into());
                }
            }
            "--python" => a.python = value,
            "--out" => a.out = PathBuf::from(value),
            _ => return Err(format!("unknown flag {flag}")),
        }
    }
    Ok(a)
}

fn seed_of(n: usize) -> u64 {
    20_261_201 + n as u64
}

fn write_json(lcp: &Lcp, path: &Path) -> Result<(), String> {
    let doc = serde_json::json!({
        "format": "signorini-lcp/1",
        "name": lcp.name.clone().unwrap_or_default(),
        "source": "signorini::generate::random_spd",
        "M": { "dense": lcp.dense_rows() },
        "q": lcp.q(),
    });
    let text = serde_json::to_string(&doc).map_err(|e| e.to_string())?;
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

struct Ours {
    median_s: f64,
    min_s: f64,
    pivots: usize,
    residual: f64,
    status: String,
}

fn run_ours(lcp: &Lcp, repeats: usize) -> Result<Ours, String> {
    let solver = Registry::builtin().build("lemke").map_err(|e| e.to_string())?;
    let options = SolveOptions::default();
    let mut times = Vec::with_capacity(repeats);
    let mut last = None;
    for _ in 0..repeats {
        let sol = solver.solve(lcp, &options, None).map_err(|e| e.to_string())?;
        times.push(sol.solve_seconds);
        last = Some(sol);
    }
    let sol = last.ok_or("no run")?;
    let min_s = times.iter().copied().fold(f64::INFINITY, f64::min);
    Ok(Ours {
        median_s: median(&times),
        min_s,
        pivots: sol.pivots.unwrap_or(0),
        residual: sol.residual(),
        status: sol.status.to_string(),
    })
}

fn main() {
    if let Err(e) = real_main() {
        eprintln!("lemke_vs_siconos: {e}");
        std::process::exit(2);
    }
}

fn run_peer(args: &Args, file: &Path) -> Result<serde_json::Value, String> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("peers/siconos_lcp.py");
    let output = Command::new(&args.python)
        .arg(&script)
        .arg("--repeats")
        .arg(args.repeats.to_string())
        .arg("--solvers")
        .arg("lexicolemke")
        .arg(file)
        .output()
        .map_err(|e| format!("{}: {e}", args.python))?;
    if !output.status.success() {
        return Err(format!(
            "siconos peer failed ({}): {}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().find(|l| !l.trim().is_empty()).ok_or("peer printed nothing")?;
    serde_json::from_str(line).map_err(|e| format!("peer output `{line}`: {e}"))
}

fn real_main() -> Result<(), String> {
    let args = parse_args()?;
    std::fs::create_dir_all(&args.out).map_err(|e| format!("{}: {e}", args.out.display()))?;
    let mut rows = Vec::new();
    // Ours and the peer alternate per size so that both see the same machine load.
    for &n in &args.sizes {
        let lcp = generate::random_spd(n, seed_of(n));
        let path = args.out.join(format!("random_spd_n{n}_s{}.json", seed_of(n)));
        write_json(&lcp, &path)?;
        eprintln!(
            "n = {n}: signorini lemke, then Siconos lcp_lexicolemke ({} runs each)",
            args.repeats
        );
        let ours = run_ours(&lcp, args.repeats)?;
        let peer = run_peer(&args, &path)?;
        rows.push((n, ours, peer));
    }
    println!(
        "| n | seed | signorini lemke median (min) [ms] | Siconos lcp_lexicolemke median (min) [ms] | ratio of medians (ours/Siconos) | our pivots | Siconos iterations | our residual | Siconos residual | our status | Siconos info |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for (n, o, p) in &rows {
        let ps = p["median_s"].as_f64().ok_or("peer median_s missing")?;
        let pmin = p["min_s"].as_f64().ok_or("peer min_s missing")?;
        println!(
            "| {n} | {} | {:.2} ({:.2}) | {:.2} ({:.2}) | {:.3} | {} | {} | {:.2e} | {:.2e} | {} | {} |",
            seed_of(*n),
            o.median_s * 1e3,
            o.min_s * 1e3,
            ps * 1e3,
            pmin * 1e3,
            o.median_s / ps,
            o.pivots,
            p["iterations"],
            o.residual,
            p["residual"].as_f64().unwrap_or(f64::NAN),
            o.status,
            p["info"],
        );
    }
    Ok(())
}
