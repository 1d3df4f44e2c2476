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
pub const HARNESSES: [(&str, Harness); 8] = [
    ("lcp_json", lcp_json),
    ("siconos_dat", siconos_dat),
    ("matrix_market", matrix_market),
    ("fclib_hdf5", fclib_hdf5),
    ("warm_start_json", warm_start_json),
    ("scene_toml", scene_toml),
    ("scene_json", scene_json),
    ("solution_json", solution_json),
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
