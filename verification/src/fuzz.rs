//! Fuzz harnesses: one function per reader, each taking raw bytes and asserting the invariants
//! of the workspace — no panic on any input; a reader returns a valid value or a typed error
//! whose message is one line.
//!
//! The same functions run under libFuzzer (`fuzz/`, `cargo xtask fuzz`) and in the ordinary
//! test suite (`verification/tests/fuzz_smoke.rs`), which replays the seed corpus and a few
//! thousand seeded mutations of it in a few seconds, so CI exercises every harness without
//! cargo-fuzz installed.

use std::path::PathBuf;

use signorini_contact::Scene;
use signorini_lcp::formats::{self, json, mtx, siconos};
use signorini_lcp::Lcp;

/// A harness: raw bytes in, a panic on a broken invariant.
pub type Harness = fn(&[u8]);

/// Every harness by name (the cargo-fuzz target names, `cargo xtask fuzz` runs them all).
pub const HARNESSES: [(&str, Harness); 11] = [
    ("lcp_json", lcp_json),
    ("siconos_dat", siconos_dat),
    ("fc_dat", fc_dat),
    ("fc_json", fc_json),
    ("matrix_market", matrix_market),
    ("fclib_hdf5", fclib_hdf5),
    ("warm_start_json", warm_start_json),
    ("scene_toml", scene_toml),
    ("scene_json", scene_json),
    ("solution_json", solution_json),
    ("solvers", solvers),
];

/// An error message must be one line: what the CLI prints on stderr.
fn one_line(message: &str) {
    assert!(!message.is_empty(), "an error with no message");
    assert!(!message.contains('\n'), "multi-line error: {message:?}");
}

/// A problem a reader returned is valid by construction: sizes agree and entries are finite.
fn valid(lcp: &Lcp) {
    assert_eq!(lcp.q().len(), lcp.n());
    assert!(lcp.q().iter().all(|v| v.is_finite()));
    let mut w = vec![0.0; lcp.n()];
    lcp.mul_vec(&vec![1.0; lcp.n()], &mut w);
    assert!(w.iter().all(|v| !v.is_nan()), "non-finite entries reached a validated Lcp");
}

fn text(data: &[u8]) -> Option<&str> {
    std::str::from_utf8(data).ok()
}

/// `signorini-lcp/1` JSON problems.
pub fn lcp_json(data: &[u8]) {
    let Some(t) = text(data) else { return };
    match json::from_str(t) {
        Ok(lcp) => valid(&lcp),
        Err(e) => one_line(&e.to_string()),
    }
}

/// Siconos `.dat` problems (dense and sparse-block storage).
pub fn siconos_dat(data: &[u8]) {
    let Some(t) = text(data) else { return };
    match siconos::from_str(t) {
        Ok(lcp) => valid(&lcp),
        Err(e) => one_line(&e.to_string()),
    }
}

/// A frictional-contact problem that a reader accepted: sizes agree, data finite, mu >= 0.
fn valid_fc(p: &signorini_friction::FcProblem) {
    assert!(p.dimension() == 2 || p.dimension() == 3, "dimension {}", p.dimension());
    assert_eq!(p.n(), p.dimension() * p.n_contacts());
    assert_eq!(p.q().len(), p.n());
    assert_eq!(p.mu().len(), p.n_contacts());
    assert!(p.q().iter().all(|v| v.is_finite()));
    assert!(p.mu().iter().all(|m| m.is_finite() && *m >= 0.0), "mu {:?}", p.mu());
    let r = vec![1.0; p.n()];
    assert!(p.velocity(&r).iter().all(|v| !v.is_nan()), "non-finite W reached a problem");
}

/// Siconos frictional-contact `.dat` problems (dense, sparse-block and CSparse storage).
pub fn fc_dat(data: &[u8]) {
    let Some(t) = text(data) else { return };
    match signorini_friction::formats::dat::from_str(t) {
        Ok(p) => valid_fc(&p),
        Err(e) => one_line(&e.to_string()),
    }
}

/// `signorini-fc/1` JSON problems; an accepted one is written and read back unchanged.
pub fn fc_json(data: &[u8]) {
    let Some(t) = text(data) else { return };
    match signorini_friction::formats::json::from_str(t) {
        Ok(p) => {
            valid_fc(&p);
            let written = signorini_friction::formats::json::to_string(&p);
            match signorini_friction::formats::json::from_str(&written) {
                Ok(again) => assert_eq!((again.q(), again.mu()), (p.q(), p.mu())),
                Err(e) => panic!("a written problem does not read back: {e}"),
            }
        }
        Err(e) => one_line(&e.to_string()),
    }
}

/// MatrixMarket M and q: the input holds both files, split at the first NUL byte (or all of
/// it is M and q is empty).
pub fn matrix_market(data: &[u8]) {
    let (m, q) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], &data[i + 1..]),
        None => (data, &data[data.len()..]),
    };
    let (Some(m), Some(q)) = (text(m), text(q)) else { return };
    match mtx::from_strs(m, q) {
        Ok(lcp) => valid(&lcp),
        Err(e) => one_line(&e.to_string()),
    }
}

/// A scratch file for readers that take a path (HDF5), unique per thread.
fn scratch(name: &str, data: &[u8]) -> Option<PathBuf> {
    let dir = std::env::temp_dir().join("signorini-fuzz");
    std::fs::create_dir_all(&dir).ok()?;
    let path = dir.join(format!("{name}-{}-{:?}", std::process::id(), std::thread::current().id()));
    std::fs::write(&path, data).ok()?;
    Some(path)
}

/// FCLIB HDF5 files (the frictionless normal part as an LCP, through the `fclib` reader).
pub fn fclib_hdf5(data: &[u8]) {
    let Some(path) = scratch("fclib.hdf5", data) else { return };
    match formats::read_problem(&path, Some(formats::Format::Fclib)) {
        Ok(lcp) => valid(&lcp),
        Err(e) => one_line(&e.to_string()),
    }
    let _ = std::fs::remove_file(&path);
}

/// Warm starts: a JSON array, or a solution object with `z`.
pub fn warm_start_json(data: &[u8]) {
    let Some(t) = text(data) else { return };
    match formats::warm_start_from_str(t) {
        Ok(z) => assert!(z.iter().all(|v| v.is_finite())),
        Err(e) => one_line(&e.to_string()),
    }
}

/// The solution JSON `solve --json` writes, read back as a warm start, and its problem part
/// (a solution file is also what a user hands to `--warm-start`).
pub fn solution_json(data: &[u8]) {
    warm_start_json(data);
    let Some(t) = text(data) else { return };
    if let Ok(value) = serde_json::from_str::<serde_json::Value>(t) {
        let _ = formats::warm_start_from_str(&value.to_string());
    }
}

/// TOML scene files.
pub fn scene_toml(data: &[u8]) {
    let Some(t) = text(data) else { return };
    if let Err(e) = Scene::from_toml_str(t) {
        one_line(&e.to_string());
    }
}

/// JSON scene files.
pub fn scene_json(data: &[u8]) {
    let Some(t) = text(data) else { return };
    if let Err(e) = Scene::from_json_str(t) {
        one_line(&e.to_string());
    }
}

/// Wall-clock limit handed to every solver by [`solvers`].
pub const SOLVER_TIME_LIMIT: f64 = 0.25;

/// Decodes a small LCP from raw bytes: byte 0 gives n = 1 + b % 5, then M (rows) and q, each
/// entry three bytes: a little-endian i16 mantissa m and an i8 exponent e, value
/// (m / 256) 10^e (so 1e-127 .. 1e127: badly scaled problems are the common case). Missing
/// bytes read as 0.
pub fn decode_problem(data: &[u8]) -> Option<Lcp> {
    let (&first, rest) = data.split_first()?;
    let n = 1 + (first as usize) % 5;
    let value = |k: usize| -> f64 {
        let b = |j: usize| rest.get(3 * k + j).copied().unwrap_or(0);
        let m = i16::from_le_bytes([b(0), b(1)]);
        let e = b(2) as i8;
        (m as f64 / 256.0) * 10f64.powi(e as i32)
    };
    let rows: Vec<Vec<f64>> = (0..n).map(|i| (0..n).map(|j| value(i * n + j)).collect()).collect();
    let q: Vec<f64> = (0..n).map(|i| value(n * n + i)).collect();
    Lcp::from_dense_rows(&rows, q).ok()
}

/// The bytes [`decode_problem`] reads as (M, q), for entries of the form (m / 256) 10^e with
/// an integer m in i16 range (the seed corpus writes the issue's badly scaled cases with it).
pub fn encode_problem(rows: &[Vec<(i16, i8)>], q: &[(i16, i8)]) -> Vec<u8> {
    let n = q.len();
    let mut out = vec![(n.max(1) - 1) as u8];
    for &(m, e) in rows.iter().flatten().chain(q) {
        out.extend_from_slice(&m.to_le_bytes());
        out.push(e as u8);
    }
    out
}

/// Every registered solver on a small, often badly scaled problem decoded from the bytes,
/// through the driver, checked independently of the driver's own code: no panic; z >= 0 of
/// length n; `solved` only when every row holds (w recomputed here, row i within
/// tol sqrt(n) max(s_i, S_z) plus a round-off margin, the rule the driver documents);
/// `infeasible` only with y >= 0, y != 0, M'y <= 1e-9 |M|'y and q'y < 0; no solver proves
/// `infeasible` or `no_solution` when another one's answer was independently verified; the
/// time limit held to within a second.
pub fn solvers(data: &[u8]) {
    let Some(lcp) = decode_problem(data) else { return };
    let registry = signorini_lcp::Registry::builtin();
    let options = signorini_lcp::SolveOptions {
        time_limit: Some(std::time::Duration::from_secs_f64(SOLVER_TIME_LIMIT)),
        ..signorini_lcp::SolveOptions::default()
    };
    let mut verified_solution: Option<String> = None;
    let mut blind_spot = false;
    let mut proof_of_none: Option<String> = None;
    for entry in registry.entries() {
        let Ok(solver) = registry.build(&entry.name) else { continue };
        let Ok(sol) = solver.solve(&lcp, &options, None) else { continue };
        let who = format!("{} on {:?} / {:?}", entry.name, lcp.dense_rows(), lcp.q());
        assert_eq!(sol.z.len(), lcp.n(), "{who}");
        assert!(sol.z.iter().all(|v| *v >= 0.0), "{who}: negative z {:?}", sol.z);
        assert!(sol.solve_seconds <= SOLVER_TIME_LIMIT + 1.0, "{who}: {} s", sol.solve_seconds);
        match sol.status {
            signorini_lcp::Status::Solved => {
                assert!(rows_hold(&lcp, &sol.z, sol.tol), "{who}: solved with z = {:?}", sol.z);
                blind_spot |= in_blind_spot(&lcp, &sol.z, sol.tol);
                verified_solution = Some(who);
            }
            signorini_lcp::Status::Infeasible => {
                let Some(signorini_lcp::Certificate::Farkas { y }) = &sol.certificate else {
                    panic!("{who}: infeasible without a Farkas vector");
                };
                assert!(farkas_holds(&lcp, y), "{who}: Farkas vector {y:?} does not hold");
                proof_of_none = Some(who);
            }
            signorini_lcp::Status::NoSolution => proof_of_none = Some(who),
            _ => {}
        }
    }
    if let (Some(a), Some(b)) = (&verified_solution, &proof_of_none) {
        // `solved` is a statement at tolerance t, z read in the max norm (column units): where
        // a row's own data |q_i| is below what an error of t |Cz|_inf moves it by, the row test
        // cannot tell that row from 0 (the limit documented in signorini_lcp::merit), and an
        // exact proof of none can stand beside it.
        if !blind_spot {
            panic!("{a} solved it, {b} proved it has no solution");
        }
    }
}

/// Column scales in plain loops: c_j = max_i |M_ij| (an empty column takes the largest) and
/// that largest (1 for M = 0).
fn column_units(rows: &[Vec<f64>]) -> (Vec<f64>, f64) {
    let n = rows.len();
    let col: Vec<f64> =
        (0..n).map(|j| rows.iter().fold(0.0f64, |m, r| m.max(r[j].abs()))).collect();
    let big = col.iter().fold(0.0f64, |m, v| m.max(*v));
    let big = if big > 0.0 && big.is_finite() { big } else { 1.0 };
    (col.iter().map(|&c| if c > 0.0 { c } else { big }).collect(), big)
}

/// True when some row's nonzero data |q_i| is below t (|M| C^-1 e)_i |Cz|_inf, the reach of an
/// error of t |Cz|_inf (column units, t = tol sqrt(n)): the row test's documented blind spot. A
/// row with q_i = 0 does not count, so the contradiction check stays on for the usual
/// problems with unloaded rows.
fn in_blind_spot(lcp: &Lcp, z: &[f64], tol: f64) -> bool {
    let rows = lcp.dense_rows();
    let n = rows.len();
    let (col, big) = column_units(&rows);
    let y_max = (0..n).fold(0.0f64, |m, j| m.max((col[j] / big * z[j]).abs()));
    let t = tol * (n as f64).sqrt();
    (0..n).any(|i| {
        let reach: f64 = (0..n).map(|j| rows[i][j].abs() * big / col[j]).sum::<f64>() * t * y_max;
        let q = lcp.q()[i].abs();
        q > 0.0 && q < reach
    })
}

/// The `solved` rule recomputed in plain loops (see [`solvers`] and
/// `signorini_lcp::merit`): w_i >= -t S_i, and z_i <= t |z|_inf or w_i <= t S_i, with
/// S_i = |q_i| + (|M||z|)_i, a negative w_i excused also when it holds at the lifted point z'
/// (within the budget, z' >= 0) at that point's scale, a positive one beside z_i > 0 by what
/// z >= 0 within the budget can lower it by, t = max(tol sqrt(n), 64 eps), plus this
/// loop's own round-off and the underflow level below which a violation counts as 0; z and
/// e are read in column units (y_j = z_j max_i |M_ij| / max_ij |M_ij|, e_j over the same).
fn rows_hold(lcp: &Lcp, z: &[f64], tol: f64) -> bool {
    let rows = lcp.dense_rows();
    let n = rows.len();
    let q = lcp.q();
    // Column units: y = c z / max c.
    let (col, big) = column_units(&rows);
    let y: Vec<f64> = (0..n).map(|j| col[j] / big * z[j]).collect();
    let y_max = y.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    let t = (tol * (n as f64).sqrt()).max(64.0 * f64::EPSILON) * (1.0 + 1e-9);
    (0..n).all(|i| {
        let w: f64 = q[i] + (0..n).map(|j| rows[i][j] * z[j]).sum::<f64>();
        let abs: f64 = (0..n).map(|j| (rows[i][j] * z[j]).abs()).sum();
        // What an error of t y_max in every y_j, keeping z >= 0, can lift (up) or lower
        // (down) w_i by: z_j may rise by s_j = t y_max big / c_j and fall by min(z_j, s_j).
        // The lifted point z' (z_j risen where m_ij > 0, fallen where m_ij < 0, within the
        // budget) is evaluated: w' and its scale are summed there.
        let (mut down, mut w_up, mut s_up) = (0.0, q[i], q[i].abs());
        for j in 0..n {
            let m = rows[i][j];
            if m == 0.0 {
                continue;
            }
            let step = t * y_max * big / col[j];
            let full = m.abs() * step;
            let limited = m.abs() * z[j].min(step);
            let lifted = if m > 0.0 { z[j] + step } else { z[j] - z[j].min(step) };
            w_up += m * lifted;
            s_up += m.abs() * lifted;
            down += if m > 0.0 { limited } else { full };
        }
        let data = q[i].abs() + abs;
        // Plus this loop's round-off, and the documented underflow level 2^-1022 / eps.
        let tiny = f64::MIN_POSITIVE / f64::EPSILON;
        let slack = 4.0 * f64::EPSILON * data.max(down) + tiny;
        let w_ok =
            w >= -(t * data + slack) || w_up >= -(t * s_up + 4.0 * f64::EPSILON * s_up + tiny);
        let complementary = y[i] <= t * y_max + f64::MIN_POSITIVE / f64::EPSILON
            || w <= (t * data).max(down) + slack;
        z[i] >= 0.0 && w_ok && complementary
    })
}

/// A Farkas vector re-checked in plain loops: y >= 0, y != 0, (M'y)_j <= 1e-9 (|M|'y)_j,
/// q'y < 0.
fn farkas_holds(lcp: &Lcp, y: &[f64]) -> bool {
    let rows = lcp.dense_rows();
    let n = rows.len();
    if y.len() != n
        || y.iter().any(|v| !(v.is_finite() && *v >= 0.0))
        || y.iter().all(|v| *v == 0.0)
    {
        return false;
    }
    let qy: f64 = lcp.q().iter().zip(y).map(|(a, b)| a * b).sum();
    qy < 0.0
        && (0..n).all(|j| {
            let mty: f64 = (0..n).map(|i| rows[i][j] * y[i]).sum();
            let abs: f64 = (0..n).map(|i| (rows[i][j] * y[i]).abs()).sum();
            mty <= 1e-9 * abs + 4.0 * f64::EPSILON * abs
        })
}

/// The repository's files a harness starts from (its seed corpus).
pub fn seeds(harness: &str) -> Vec<Vec<u8>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = |dir: &str, ext: &str| -> Vec<Vec<u8>> {
        let mut paths: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        paths.retain(|p| p.extension().is_some_and(|e| e == ext));
        paths.sort();
        paths.iter().filter_map(|p| std::fs::read(p).ok()).collect()
    };
    let problems = || -> Vec<Lcp> {
        files("data/siconos-lcp", "dat")
            .iter()
            .filter_map(|b| std::str::from_utf8(b).ok().and_then(|t| siconos::from_str(t).ok()))
            .collect()
    };
    match harness {
        "lcp_json" => {
            let mut v: Vec<Vec<u8>> =
                problems().iter().map(|l| json::to_string(l).into_bytes()).collect();
            v.push(br#"{"format": "signorini-lcp/1", "M": {"coo": {"n": 2, "row": [0, 1, 1], "col": [0, 1, 1], "val": [2, 1, 1]}}, "q": [-1, -1]}"#.to_vec());
            v
        }
        "siconos_dat" => files("data/siconos-lcp", "dat"),
        // The small files of the Siconos frictional set (a long seed slows every execution).
        "fc_dat" => {
            files("data/siconos-fc", "dat").into_iter().filter(|b| b.len() <= 65_536).collect()
        }
        "fc_json" => files("data/siconos-fc", "dat")
            .iter()
            .filter(|b| b.len() <= 65_536)
            .filter_map(|b| std::str::from_utf8(b).ok())
            .filter_map(|t| signorini_friction::formats::dat::from_str(t).ok())
            .map(|p| signorini_friction::formats::json::to_string(&p).into_bytes())
            .collect(),
        "matrix_market" => problems()
            .iter()
            .map(|l| {
                [mtx::m_to_string(l).into_bytes(), vec![0], mtx::q_to_string(l).into_bytes()]
                    .concat()
            })
            .collect(),
        "fclib_hdf5" => files("data/fclib", "hdf5"),
        "warm_start_json" | "solution_json" => {
            let mut v = vec![b"[1, 2.5, 0]".to_vec(), br#"{"z": [0.5, 1e-300]}"#.to_vec()];
            let registry = signorini_lcp::Registry::builtin();
            if let Ok(lemke) = registry.build("lemke") {
                for lcp in problems().iter().take(4) {
                    if let Ok(sol) = lemke.solve(lcp, &signorini_lcp::SolveOptions::default(), None)
                    {
                        v.push(formats::solution_to_json(lcp, &sol).into_bytes());
                    }
                }
            }
            v
        }
        "solvers" => vec![
            // Seed A4 of REFERENCE.md: M = [[2, 1], [1, 2]], q = (-3, -3).
            encode_problem(
                &[vec![(512, 0), (256, 0)], vec![(256, 0), (512, 0)]],
                &[(-768, 0), (-768, 0)],
            ),
            // Issue 14: M = I, q = (1e12, -1); M = [1e-10], q = [-1]; M = [-1], q = [-1e-17].
            encode_problem(
                &[vec![(256, 0), (0, 0)], vec![(0, 0), (256, 0)]],
                &[(256, 12), (-256, 0)],
            ),
            encode_problem(&[vec![(256, -10)]], &[(-256, 0)]),
            encode_problem(&[vec![(-256, 0)]], &[(-256, -17)]),
            // A positive definite matrix scaled across 24 orders: diag(1, 1e-12).
            encode_problem(
                &[vec![(256, 0), (0, 0)], vec![(0, 0), (256, -12)]],
                &[(-256, 0), (-256, 0)],
            ),
            // Skew-symmetric infeasible and entries near 1e±100.
            encode_problem(
                &[vec![(0, 0), (256, 0)], vec![(-256, 0), (0, 0)]],
                &[(-256, 0), (256, 0)],
            ),
            encode_problem(
                &[vec![(512, 100), (256, 100)], vec![(256, 100), (512, 100)]],
                &[(-768, -100), (0, 0)],
            ),
        ],
        "scene_toml" => files("scenes", "toml"),
        "scene_json" => files("scenes", "toml")
            .iter()
            .filter_map(|b| {
                let t = std::str::from_utf8(b).ok()?;
                let value: toml::Value = toml::from_str(t).ok()?;
                serde_json::to_vec(&value).ok()
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A small deterministic generator (SplitMix64) for the smoke runs' mutations.
#[derive(Debug, Clone)]
pub struct Mutator(u64);

impl Mutator {
    /// A mutator from a seed.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    /// One to four edits of `input`: byte flips, interesting bytes and numbers, deletions,
    /// duplicated chunks, truncation.
    pub fn mutate(&mut self, input: &[u8]) -> Vec<u8> {
        const TOKENS: [&[u8]; 12] = [
            b"NaN",
            b"inf",
            b"-1",
            b"0",
            b"1e308",
            b"1e-320",
            b"99999999999999999999",
            b"\n",
            b"\r\n",
            b",",
            b"]",
            b"\xef\xbb\xbf",
        ];
        let mut out = input.to_vec();
        for _ in 0..=self.below(4) {
            let at = self.below(out.len() + 1);
            match self.below(6) {
                0 if !out.is_empty() => {
                    let i = at.min(out.len() - 1);
                    out[i] ^= 1 << self.below(8);
                }
                1 => {
                    let t = TOKENS[self.below(TOKENS.len())];
                    out.splice(at..at, t.iter().copied());
                }
                2 if !out.is_empty() => {
                    let end = (at + 1 + self.below(16)).min(out.len());
                    out.drain(at.min(end)..end);
                }
                3 if !out.is_empty() => {
                    let start = self.below(out.len());
                    let end = (start + 1 + self.below(64)).min(out.len());
                    let chunk = out[start..end].to_vec();
                    out.splice(at..at, chunk);
                }
                4 => out.truncate(at),
                _ => {
                    let b = (self.next() & 0xff) as u8;
                    out.insert(at, b);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_independent_checks_reject_what_the_issue_found() {
        let lcp = Lcp::from_dense_rows(&[vec![1.0, 0.0], vec![0.0, 1.0]], vec![1e12, -1.0])
            .expect("valid");
        assert!(!rows_hold(&lcp, &[0.0, 0.0], 1e-8), "z = 0 leaves row 2 unsolved");
        assert!(rows_hold(&lcp, &[0.0, 1.0], 1e-8));
        let tiny = Lcp::from_dense_rows(&[vec![1e-10]], vec![-1.0]).expect("valid");
        assert!(!farkas_holds(&tiny, &[1.02]), "M'y = 1e-10 > 0 is no certificate");
        let infeasible = Lcp::from_dense_rows(&[vec![-1.0]], vec![-1.0]).expect("valid");
        assert!(farkas_holds(&infeasible, &[2.0]));
    }

    #[test]
    fn problems_round_trip_through_the_byte_encoding() {
        let bytes = encode_problem(&[vec![(256, 12)]], &[(-384, -17)]);
        let lcp = decode_problem(&bytes).expect("n = 1");
        assert_eq!(lcp.n(), 1);
        assert!((lcp.dense_rows()[0][0] - 1e12).abs() <= 1e-3);
        assert!((lcp.q()[0] + 1.5e-17).abs() <= 1e-30);
    }
}
