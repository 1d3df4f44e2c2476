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

/// The dependencies between the workspace's library crates point one way only (the graph of
/// docs/ARCHITECTURE.md): no crate lists a signorini crate above it, in any dependency table.
#[test]
fn crates_depend_only_downward() {
    let allowed: [(&str, &[&str]); 6] = [
        ("crates/lcp", &[]),
        ("crates/friction", &["signorini-lcp"]),
        ("crates/contact", &["signorini-lcp"]),
        ("crates/impact", &["signorini-lcp", "signorini-contact"]),
        (
            "crates/integrators",
            &["signorini-lcp", "signorini-friction", "signorini-contact", "signorini-impact"],
        ),
        (
            "crates/cli",
            &[
                "signorini-lcp",
                "signorini-friction",
                "signorini-contact",
                "signorini-impact",
                "signorini-integrators",
            ],
        ),
    ];
    for (member, ok) in allowed {
        let text =
            std::fs::read_to_string(root().join(member).join("Cargo.toml")).unwrap_or_default();
        let cargo: toml::Value = toml::from_str(&text).expect("member Cargo.toml parses");
        for table in ["dependencies", "dev-dependencies", "build-dependencies"] {
            let Some(deps) = cargo.get(table).and_then(toml::Value::as_table) else { continue };
            for name in deps.keys().filter(|n| n.starts_with("signorini-")) {
                assert!(
                    ok.contains(&name.as_str()),
                    "{member} [{table}] depends on {name}, above it"
                );
            }
        }
    }
}

/// The contact crate returns data for any solver: its library code never builds one.
#[test]
fn assembly_never_picks_a_solver() {
    let mut files = Vec::new();
    rust_files(&root().join("crates/contact/src"), &mut files);
    assert!(files.len() > 5, "found only {} files", files.len());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let code = code.split("#[cfg(test)]").next().unwrap_or("");
        for needle in ["Registry::", "solver_from_spec", "run_solver("] {
            assert!(!code.contains(needle), "{} uses {needle}", f.display());
        }
    }
}

/// The node of crates/lcp/src a `crate::` path (or a re-exported name) points at.
fn lcp_node(first: &str, second: Option<&str>) -> Option<String> {
    let reexports: [(&str, &[&str]); 9] = [
        ("problem", &["Lcp", "Matrix", "ProblemError"]),
        ("merit", &["evaluate", "worst_row", "Merit", "RowCheck"]),
        ("status", &["verify_farkas", "Certificate", "FarkasError", "Status"]),
        ("memory", &["MemoryError", "DEFAULT_MEMORY_BUDGET"]),
        (
            "params",
            &["ParamDoc", "ParamValue", "SolverParams", "SpecError", "solver_params", "param_enum"],
        ),
        ("registry", &["solver_from_spec", "Registry"]),
        (
            "solver",
            &[
                "run_solver",
                "Entry",
                "HistoryEntry",
                "LcpSolver",
                "Outcome",
                "Preset",
                "Solution",
                "SolveContext",
                "SolveError",
                "SolveOptions",
                "lcp_solver",
            ],
        ),
        ("formats", &["read_problem", "write_problem", "Format", "FormatError", "FormatErrorKind"]),
        ("generate", &[]),
    ];
    if let Some((module, _)) = reexports.iter().find(|(_, names)| names.contains(&first)) {
        return Some(module.to_string());
    }
    match (first, second) {
        ("algorithms" | "linalg", Some(sub))
            if sub.chars().next().is_some_and(|c| c.is_lowercase()) =>
        {
            Some(format!("{first}/{sub}"))
        }
        (m, _) if m.chars().next().is_some_and(|c| c.is_lowercase()) => Some(m.to_string()),
        _ => None,
    }
}

/// Edges from one file of crates/lcp/src (tests and doc comments left out).
fn lcp_edges(node: &str, text: &str) -> Vec<String> {
    let code = match text.find("#[cfg(test)]") {
        Some(at) => &text[..at],
        None => text,
    };
    let mut out = Vec::new();
    for line in code.lines().map(str::trim).filter(|l| !l.starts_with("//")) {
        // `use crate::{a, b::c}` and paths `crate::a::b`; `super::x` inside a folder module.
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            let before = &rest[..at];
            rest = &rest[at + "crate::".len()..];
            if before.ends_with('$') {
                continue; // `$crate::` in a macro body names the caller's crate
            }
            let group = rest.starts_with('{');
            let body: &str =
                if group { &rest[1..rest.find('}').unwrap_or(rest.len())] } else { rest };
            let items: Vec<&str> = if group { body.split(',').collect() } else { vec![body] };
            for item in items {
                let mut parts = item
                    .trim()
                    .split("::")
                    .map(|p| p.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_')));
                let first = parts.next().unwrap_or("");
                let second = parts.next();
                if let Some(n) = lcp_node(first, second) {
                    out.push(n);
                }
            }
        }
        if let Some(at) = line.find("super::") {
            let dir = node.split('/').next().unwrap_or("");
            let name: String =
                line[at + 7..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
            if node.contains('/') && !name.is_empty() && name != "super" {
                out.push(format!("{dir}/{name}"));
            }
        }
    }
    out.retain(|n| n != node);
    out
}

/// No import circle inside crates/lcp: the module graph (one node per file; `formats/` one
/// node; `lib.rs`, which only declares and re-exports, left out) has no cycle.
#[test]
fn lcp_modules_import_no_circle() {
    let src = root().join("crates/lcp/src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut graph: std::collections::BTreeMap<String, Vec<String>> = Default::default();
    for f in &files {
        let rel = f.strip_prefix(&src).unwrap_or(f).with_extension("");
        let mut node = rel.display().to_string();
        if node == "lib" {
            continue;
        }
        if node.starts_with("formats") {
            node = "formats".into();
        }
        node = node.trim_end_matches("/mod").to_string();
        let text = std::fs::read_to_string(f).unwrap_or_default();
        let mut edges = lcp_edges(&node, &text);
        edges.iter_mut().for_each(|e| {
            if e.starts_with("formats") {
                *e = "formats".into();
            }
        });
        edges.retain(|e| *e != node);
        graph.entry(node).or_default().extend(edges);
    }
    // An item of a folder module (`algorithms::entries`) is the folder's mod.rs.
    let nodes: Vec<String> = graph.keys().cloned().collect();
    for edges in graph.values_mut() {
        for e in edges.iter_mut() {
            if !nodes.contains(e) {
                *e = e.split('/').next().unwrap_or("").to_string();
            }
        }
    }
    assert!(graph.len() > 20, "nodes: {:?}", graph.keys());
    assert!(graph["registry"].contains(&"algorithms".to_string()), "{:?}", graph["registry"]);
    // Depth-first search for a back edge.
    fn visit(
        n: &str,
        g: &std::collections::BTreeMap<String, Vec<String>>,
        state: &mut std::collections::BTreeMap<String, u8>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        match state.get(n) {
            Some(2) => return None,
            Some(1) => {
                let start = path.iter().position(|p| p == n).unwrap_or(0);
                let mut cycle = path[start..].to_vec();
                cycle.push(n.to_string());
                return Some(cycle);
            }
            _ => {}
        }
        state.insert(n.to_string(), 1);
        path.push(n.to_string());
        for m in g.get(n).into_iter().flatten() {
            if let Some(c) = visit(m, g, state, path) {
                return Some(c);
            }
        }
        path.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = Default::default();
    for n in graph.keys() {
        let cycle = visit(n, &graph, &mut state, &mut Vec::new());
        assert!(
            cycle.is_none(),
            "import circle in crates/lcp/src: {}",
            cycle.unwrap_or_default().join(" -> ")
        );
    }
}

#[test]
fn the_circle_check_sees_paths_groups_and_super() {
    let e = lcp_edges("algorithms/ipm", "use crate::linalg::jacobian_system::{A, B};\nuse crate::{Lcp, Matrix};\nuse super::newton_fb::X;\n$crate::params::x");
    assert_eq!(e, ["linalg/jacobian_system", "problem", "problem", "algorithms/newton_fb"]);
}

/// The text of one `### ` section of docs/ARCHITECTURE.md.
fn architecture_section<'a>(text: &'a str, heading: &str) -> &'a str {
    let start = text.find(heading).unwrap_or(text.len());
    let rest = &text[start..];
    let end = rest[heading.len()..].find("\n### ").map_or(rest.len(), |e| e + heading.len());
    &rest[..end]
}

/// Every source file over 200 lines is named in the code map (a test file may be covered by
/// its own folder, named with a trailing `/`).
#[test]
fn architecture_md_names_every_large_source_file() {
    let text = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap_or_default();
    let named: Vec<&str> = backticked(&text);
    let mut files = Vec::new();
    for d in ["crates", "verification", "xtask", "benches", "fuzz"] {
        rust_files(&root().join(d), &mut files);
    }
    let missing: Vec<String> = files
        .iter()
        .filter(|p| std::fs::read_to_string(p).unwrap_or_default().lines().count() > 200)
        .map(|p| p.strip_prefix(root()).unwrap_or(p).display().to_string().replace("/../", "/"))
        .map(|p| p.trim_start_matches("../").to_string())
        .filter(|p| {
            let parent = format!("{}/", p.rsplit_once('/').map_or("", |(d, _)| d));
            let in_tests = p.contains("/tests/") || p.starts_with("benches/benches/");
            !(named.contains(&p.as_str()) || (in_tests && named.contains(&parent.as_str())))
        })
        .collect();
    assert!(
        missing.is_empty(),
        "source files over 200 lines missing from docs/ARCHITECTURE.md: {missing:?}"
    );
}

/// The xtask section lists exactly the commands `xtask/src/main.rs` dispatches.
#[test]
fn architecture_md_lists_the_xtask_commands() {
    let main = std::fs::read_to_string(root().join("xtask/src/main.rs")).unwrap_or_default();
    let dispatched: Vec<String> = main
        .match_indices("Command::")
        .map(|(at, _)| {
            main[at + 9..]
                .chars()
                .take_while(|c| c.is_alphanumeric())
                .collect::<String>()
                .to_lowercase()
        })
        .filter(|c| !c.is_empty())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert!(dispatched.len() >= 5, "{dispatched:?}");
    let text = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap_or_default();
    let section = architecture_section(&text, "### `xtask`");
    let named = backticked(section);
    for c in &dispatched {
        assert!(named.contains(&c.as_str()), "xtask command `{c}` is not in the xtask section");
    }
    for t in named.iter().filter_map(|t| t.strip_prefix("xtask/src/")?.strip_suffix(".rs")) {
        let helper = ["main", "example", "progress"].contains(&t);
        assert!(
            helper || dispatched.iter().any(|c| c == t),
            "xtask/src/{t}.rs is listed as a command"
        );
    }
}

/// Every "Architecture Invariant" names, in backticks, a test function that exists.
#[test]
fn every_invariant_names_a_test_that_exists() {
    let text = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).unwrap_or_default();
    let mut sources = String::new();
    let mut files = Vec::new();
    for d in ["crates", "verification", "xtask"] {
        rust_files(&root().join(d), &mut files);
    }
    for f in files {
        sources.push_str(&std::fs::read_to_string(f).unwrap_or_default());
    }
    let invariants: Vec<&str> = text
        .split("**Architecture Invariant:**")
        .skip(1)
        .map(|p| p.split("\n\n").next().unwrap_or(""))
        .collect();
    assert!(invariants.len() >= 10, "{} invariants", invariants.len());
    for inv in invariants {
        let tests: Vec<&str> = backticked(inv)
            .into_iter()
            .filter(|t| t.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
            .filter(|t| sources.contains(&format!("fn {t}(")))
            .collect();
        let head: String = inv.chars().take(80).collect();
        assert!(!tests.is_empty(), "invariant names no existing test: {head}");
    }
}

/// No iterative solver writes its own loop: the algorithms of signorini-lcp and
/// signorini-friction are `Steps` states run by `signorini_lcp::steps::run_steps`, which owns
/// the iteration limit. A loop bounded by the context's limit (`..=ctx.max_iter`,
/// `0..ctx.max_iter`) in an algorithm file is a second loop.
#[test]
fn no_iterative_solver_writes_its_own_loop() {
    let mut files = Vec::new();
    for d in
        ["crates/lcp/src/algorithms", "crates/friction/src/algorithms", "crates/lcp/src/linalg"]
    {
        rust_files(&root().join(d), &mut files);
    }
    assert!(files.len() >= 20, "{} algorithm files", files.len());
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        for pattern in ["..=ctx.max_iter", "0..ctx.max_iter", "..ctx.max_iter {"] {
            assert!(
                !text.contains(pattern),
                "{} loops to ctx.max_iter itself ({pattern}); write a `Steps` state instead",
                f.display()
            );
        }
    }
}
