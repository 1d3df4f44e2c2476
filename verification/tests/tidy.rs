//! Tidy: invariants of the repository checked as ordinary tests (rust-analyzer's practice).
//! Every `.rs` file under crates/, verification/, xtask/ and benches/ opens with a `//!` line
//! (after any `#![...]` attributes), and every path named in backticks in docs/ARCHITECTURE.md
//! exists.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if p.is_dir() {
            if name != "target" && !name.starts_with('.') {
                rust_files(&p, out);
            }
        } else if name.ends_with(".rs") {
            out.push(p);
        }
    }
}

/// The first line that is not blank and not an inner attribute.
fn first_doc_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).find(|l| !l.is_empty() && !l.starts_with("#!["))
}

#[test]
fn every_rust_file_starts_with_a_module_doc_line() {
    let mut files = Vec::new();
    for d in ["crates", "verification", "xtask", "benches", "fuzz"] {
        rust_files(&root().join(d), &mut files);
    }
    assert!(files.len() > 10, "found only {} files", files.len());
    let missing: Vec<String> = files
        .iter()
        .filter(|p| {
            let text = std::fs::read_to_string(p).unwrap_or_default();
            !first_doc_line(&text).is_some_and(|l| l.starts_with("//!"))
        })
        .map(|p| p.strip_prefix(root()).unwrap_or(p).display().to_string())
        .collect();
    assert!(missing.is_empty(), "files without a leading `//!` line: {missing:?}");
}

/// Backticked tokens that name repository paths: no spaces or placeholders, and either a
/// separator or a file extension.
fn path_like(token: &str) -> bool {
    let placeholder = token.contains(['<', '>', '*', ' ', ':', '=', '(', '$', '{']);
    let ext = [".rs", ".toml", ".md", ".dat", ".json", ".snap", ".cff"];
    !placeholder
        && !token.starts_with('-')
        && !token.starts_with("//")
        && !token.contains("...")
        && (token.contains('/') || ext.iter().any(|e| token.ends_with(e)))
}

fn backticked(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut parts = text.split('`');
    parts.next();
    while let Some(inside) = parts.next() {
        out.push(inside);
        parts.next();
    }
    out
}

#[test]
fn every_path_in_architecture_md_exists() {
    let doc = root().join("docs/ARCHITECTURE.md");
    let text = std::fs::read_to_string(&doc).unwrap_or_default();
    assert!(!text.is_empty(), "docs/ARCHITECTURE.md is missing or empty");
    let paths: Vec<&str> = backticked(&text).into_iter().filter(|t| path_like(t)).collect();
    assert!(paths.len() > 10, "only {} paths named", paths.len());
    let missing: Vec<&str> =
        paths.iter().copied().filter(|p| !root().join(p.trim_end_matches('/')).exists()).collect();
    assert!(missing.is_empty(), "docs/ARCHITECTURE.md names missing paths: {missing:?}");
}

#[test]
fn path_detection_skips_placeholders_and_code() {
    assert!(path_like("crates/lcp/src/solver.rs"));
    assert!(path_like("Cargo.toml"));
    assert!(!path_like("target/verify/<run-id>/"));
    assert!(!path_like("pgs:omega=1.3"));
    assert!(!path_like("cargo xtask verify"));
    assert_eq!(backticked("a `x` b `y/z` c"), vec!["x", "y/z"]);
}

/// Every file of the repository a clone carries (no `target/`, no `.git/`), text only.
fn repository_text_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if p.is_dir() {
            if name != "target" && name != ".git" {
                repository_text_files(&p, out);
            }
        } else if std::fs::read_to_string(&p).is_ok() {
            out.push(p);
        }
    }
}

/// The development checkout's data folder sits beside the repository, where a user's clone has
/// nothing: only the vendored data READMEs (which say where their copy came from) may name it.
#[test]
fn no_file_reads_data_from_outside_the_repository() {
    let needle = ["..", "/shared"].concat();
    let mut files = Vec::new();
    repository_text_files(&root(), &mut files);
    assert!(files.len() > 50, "found only {} files", files.len());
    let offenders: Vec<String> = files
        .iter()
        .map(|p| p.strip_prefix(root()).unwrap_or(p).to_path_buf())
        .filter(|rel| {
            let data_readme = rel.starts_with("verification/data")
                && rel.file_name().is_some_and(|n| n == "README.md");
            !data_readme
        })
        .filter(|rel| {
            std::fs::read_to_string(root().join(rel)).unwrap_or_default().contains(&needle)
        })
        .map(|rel| rel.display().to_string())
        .collect();
    assert!(
        offenders.is_empty(),
        "files that name {needle} (vendor the data instead): {offenders:?}"
    );
}

/// The vendored external data is complete and carries its licence.
#[test]
fn vendored_data_is_present_with_its_licence() {
    let data = root().join("verification/data");
    for f in [
        "README.md",
        "LICENSE-APACHE-2.0",
        "siconos-lcp/README.md",
        "siconos-fc/README.md",
        "fclib/README.md",
    ] {
        assert!(data.join(f).is_file(), "verification/data/{f} is missing");
    }
    let count = |dir: &str, ext: &str| {
        std::fs::read_dir(data.join(dir))
            .map(|d| d.flatten().filter(|e| e.file_name().to_string_lossy().ends_with(ext)).count())
            .unwrap_or(0)
    };
    assert_eq!(count("siconos-lcp", ".dat"), 20, "the 20 Siconos LCP files");
    assert_eq!(
        count("siconos-fc", ".dat") + count("siconos-fc", ".hdf5"),
        27,
        "the 27 Siconos FC files"
    );
    assert_eq!(count("fclib", ".hdf5"), 1, "the FCLIB sample");
}

/// Every `.rs` file of one workspace member (its src/, tests/, benches/, examples/, bin/).
fn member_sources(member: &Path) -> String {
    let mut files = Vec::new();
    rust_files(member, &mut files);
    files
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// True when `code` names the crate `ident` as a path (`ident::`) or in `use ident` /
/// `extern crate ident`, with identifier boundaries (so `approximate` is not `approx`).
fn mentions_crate(code: &str, ident: &str) -> bool {
    code.match_indices(ident).any(|(at, _)| {
        let before = &code[..at];
        let after = &code[at + ident.len()..];
        if before.chars().next_back().is_some_and(is_ident_char) {
            return false;
        }
        let path = after.starts_with("::");
        let ends = !after.chars().next().is_some_and(is_ident_char);
        let used = before.ends_with("use ") || before.ends_with("extern crate ");
        path || (ends && used)
    })
}

#[test]
fn crate_mentions_respect_identifier_boundaries() {
    assert!(mentions_crate("use approx::assert_relative_eq;", "approx"));
    assert!(mentions_crate("x = serde_json::to_string(&v)", "serde_json"));
    assert!(!mentions_crate("because approximate minimum degree", "approx"));
    assert!(!mentions_crate("my_serde::x", "serde"));
    assert!(!mentions_crate("use serde_json::Value;", "serde"));
}

/// Declared dependencies whose crate name never appears in the member's code (`name::` or
/// `use name`): what `cargo machete` finds, checked without installing it.
#[test]
fn every_declared_dependency_is_used() {
    let manifest: toml::Value =
        toml::from_str(&std::fs::read_to_string(root().join("Cargo.toml")).unwrap_or_default())
            .expect("workspace Cargo.toml parses");
    let members: Vec<String> = manifest["workspace"]["members"]
        .as_array()
        .expect("members")
        .iter()
        .filter_map(|m| m.as_str().map(str::to_owned))
        .collect();
    assert!(members.len() >= 8, "members: {members:?}");
    let mut unused = Vec::new();
    for member in &members {
        let dir = root().join(member);
        let text = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
        let cargo: toml::Value = toml::from_str(&text).expect("member Cargo.toml parses");
        let code = member_sources(&dir);
        for table in ["dependencies", "dev-dependencies", "build-dependencies"] {
            let Some(deps) = cargo.get(table).and_then(toml::Value::as_table) else { continue };
            for name in deps.keys() {
                if !mentions_crate(&code, &name.replace('-', "_")) {
                    unused.push(format!("{member}: [{table}] {name}"));
                }
            }
        }
    }
    assert!(unused.is_empty(), "declared but unused dependencies: {unused:#?}");
}
