//! Solver studies: a TOML file names a problem set and a solver list; every (problem, solver)
//! pair is solved once and the study reports status, iterations, residual and time per pair,
//! success rates per solver and a Dolan–Moré performance profile.
//!
//! Performance profiles follow E. D. Dolan and J. J. Moré (2002), "Benchmarking optimization
//! software with performance profiles", Math. Program. 91, 201–213: for problem p and solver s
//! with time t_ps (infinite when s does not solve p), r_ps = t_ps / min_s t_ps and
//! rho_s(tau) = |{p : r_ps <= tau}| / |P|.
//!
//! A study can be split into shards (`shard = Some((k, n))` takes every n-th case from the k-th,
//! 1-based, in problem-major order) and the shard results merged with [`merge`]; the merged
//! result has the same rows, checks and success rates as a single run (timings aside).
//!
//! ```toml
//! name = "quick"
//! problems = ["lcp/seed", "verification/data/siconos-lcp/*.dat"]
//! problem_dirs = ["my-problems"]   # optional: every supported file in the directory
//! solvers = ["lemke", "pgs:omega=1.3"]
//! tol = 1e-8
//! time_limit = 10.0
//! ```

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use plotters::prelude::*;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use signorini_lcp::{read_problem, Lcp, LcpSolver, Registry, SolveOptions, Status};

use crate::check::{fmt_sci, Check};
use crate::report::Provenance;

/// Version tag of a study's `results.json`.
pub const FORMAT: &str = "signorini-study/1";

/// The study file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StudySpec {
    /// Name of the study (folder names, report title); default "study".
    #[serde(default = "default_name")]
    pub name: String,
    /// Problem patterns: a case-id prefix of the verification registry (starts with `lcp/`) or
    /// a file path whose last component may hold `*` / `?` wildcards, relative to the
    /// workspace root unless absolute. Any format [`read_problem`] reads.
    #[serde(default)]
    pub problems: Vec<String>,
    /// Directories of user problem files (relative to the workspace root unless absolute):
    /// every file of a supported format in each is a problem, in name order, after those of
    /// `problems` (see [`crate::problem_dir`]). A file that does not read stops the study with
    /// [`StudyError::Unreadable`] naming it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problem_dirs: Vec<String>,
    /// Solver specs built through [`Registry::build`], e.g. `pgs:omega=1.3`.
    pub solvers: Vec<String>,
    /// Merit tolerance passed to every solver.
    pub tol: f64,
    /// Wall-clock limit per solve, seconds.
    pub time_limit: f64,
    /// Iteration limit per solve; the solver's default when absent.
    #[serde(default)]
    pub max_iter: Option<usize>,
}

fn default_name() -> String {
    "study".into()
}

/// Why a study could not be set up, run or merged.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    /// The study file could not be read.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The study file is not valid TOML or misses a field.
    #[error("study file {path}: {message}")]
    Parse {
        /// The path.
        path: String,
        /// The parser's message.
        message: String,
    },
    /// A value of the study file is out of range.
    #[error("study `{study}`: {message}")]
    Invalid {
        /// Study name.
        study: String,
        /// What is wrong.
        message: String,
    },
    /// A problem pattern matched nothing.
    #[error("problem pattern `{0}` matches no file and no registry case")]
    NoMatch(String),
    /// A problem directory cannot be listed, is empty, or holds a file that does not read.
    #[error("problem_dirs: {0}")]
    Unreadable(#[from] crate::problem_dir::ProblemDirError),
    /// A shard argument is malformed.
    #[error("shard `{0}`: expected K/N with 1 <= K <= N")]
    Shard(String),
    /// Shard results do not belong together.
    #[error("merge: {0}")]
    Merge(String),
    /// An output file or folder could not be written (missing folder, file system).
    #[error(transparent)]
    Written(#[from] signorini_lcp::formats::OutputError),
    /// Output could not be written or read.
    #[error("{path}: {message}")]
    Output {
        /// The path.
        path: String,
        /// What failed.
        message: String,
    },
}

impl StudySpec {
    /// Reads and validates a study file.
    pub fn read(path: &Path) -> Result<Self, StudyError> {
        let text = std::fs::read_to_string(path)
            .map_err(|source| StudyError::Io { path: path.display().to_string(), source })?;
        Self::parse(&text, &path.display().to_string())
    }

    /// Parses and validates study text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Self, StudyError> {
        let spec: StudySpec = toml::from_str(text)
            .map_err(|e| StudyError::Parse { path: origin.into(), message: e.to_string() })?;
        spec.validate()?;
        Ok(spec)
    }

    /// Checks ranges: a positive finite tolerance and time limit, at least one problem and
    /// one solver.
    pub fn validate(&self) -> Result<(), StudyError> {
        let bad = |message: String| StudyError::Invalid { study: self.name.clone(), message };
        if !(self.tol.is_finite() && self.tol > 0.0) {
            return Err(bad(format!("tol = {} must be positive and finite", self.tol)));
        }
        if !(self.time_limit.is_finite() && self.time_limit > 0.0) {
            return Err(bad(format!("time_limit = {} must be positive seconds", self.time_limit)));
        }
        if self.problems.is_empty() && self.problem_dirs.is_empty() {
            return Err(bad("`problems` and `problem_dirs` are both empty".into()));
        }
        if self.solvers.is_empty() {
            return Err(bad("`solvers` is empty".into()));
        }
        Ok(())
    }
}

/// Parses `K/N` (1-based).
pub fn parse_shard(text: &str) -> Result<(usize, usize), StudyError> {
    let err = || StudyError::Shard(text.into());
    let (k, n) = text.split_once('/').ok_or_else(err)?;
    let k: usize = k.trim().parse().map_err(|_| err())?;
    let n: usize = n.trim().parse().map_err(|_| err())?;
    if k == 0 || n == 0 || k > n {
        return Err(err());
    }
    Ok((k, n))
}

/// Where a problem of a study comes from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProblemSource {
    /// A problem file.
    File(PathBuf),
    /// A case of the verification registry, by id.
    Registry(String),
}

/// One problem of a study.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProblemRef {
    /// Display id: the case id, or the file name.
    pub id: String,
    /// Where it comes from.
    pub source: ProblemSource,
}

impl ProblemRef {
    /// Loads the problem.
    pub fn load(&self) -> Result<Lcp, String> {
        match &self.source {
            ProblemSource::File(path) => read_problem(path, None).map_err(|e| e.to_string()),
            ProblemSource::Registry(id) => {
                let case = registry_cases()
                    .into_iter()
                    .find(|c| &c.id == id)
                    .ok_or_else(|| format!("no registry case `{id}`"))?;
                (case.build)()
            }
        }
    }
}

fn registry_cases() -> Vec<crate::lcp::LcpCase> {
    use crate::lcp::{classic, random, seed, siconos, tiny};
    let mut v = seed::cases();
    v.extend(tiny::cases());
    v.extend(classic::cases());
    v.extend(random::cases());
    v.extend(siconos::cases());
    v
}

/// `name` matches `pattern` with `*` (any run) and `?` (one character), anchored.
pub fn glob_match(pattern: &str, name: &str) -> bool {
    fn go(p: &[char], s: &[char]) -> bool {
        match p.split_first() {
            None => s.is_empty(),
            Some(('*', rest)) => (0..=s.len()).any(|k| go(rest, &s[k..])),
            Some(('?', rest)) => !s.is_empty() && go(rest, &s[1..]),
            Some((c, rest)) => s.first() == Some(c) && go(rest, &s[1..]),
        }
    }
    let p: Vec<char> = pattern.chars().collect();
    let s: Vec<char> = name.chars().collect();
    go(&p, &s)
}

/// Expands the problem patterns of `spec` (files relative to `root`), in pattern order, each
/// pattern's matches sorted by name, without repeats.
pub fn expand_problems(spec: &StudySpec, root: &Path) -> Result<Vec<ProblemRef>, StudyError> {
    let mut out: Vec<ProblemRef> = Vec::new();
    for pattern in &spec.problems {
        let mut found = Vec::new();
        if pattern.starts_with("lcp/") {
            for case in registry_cases() {
                let takes = if pattern.contains('*') {
                    glob_match(pattern, &case.id)
                } else {
                    case.id.starts_with(pattern.as_str())
                };
                if takes {
                    found.push(ProblemRef {
                        id: case.id.clone(),
                        source: ProblemSource::Registry(case.id.clone()),
                    });
                }
            }
        } else {
            let path = Path::new(pattern);
            let path = if path.is_absolute() { path.to_path_buf() } else { root.join(path) };
            let file_pattern = path.file_name().map(|f| f.to_string_lossy().to_string());
            match file_pattern {
                Some(fp) if fp.contains('*') || fp.contains('?') => {
                    let dir = path.parent().unwrap_or(root);
                    let entries = std::fs::read_dir(dir).map_err(|e| StudyError::Output {
                        path: dir.display().to_string(),
                        message: e.to_string(),
                    })?;
                    let mut files: Vec<PathBuf> = entries
                        .filter_map(|e| e.ok().map(|e| e.path()))
                        .filter(|p| p.is_file())
                        .filter(|p| {
                            p.file_name().is_some_and(|n| glob_match(&fp, &n.to_string_lossy()))
                        })
                        .collect();
                    files.sort();
                    for f in files {
                        let id = f.file_name().map_or_else(
                            || f.display().to_string(),
                            |n| n.to_string_lossy().to_string(),
                        );
                        found.push(ProblemRef { id, source: ProblemSource::File(f) });
                    }
                }
                _ if path.is_file() => {
                    let id = path.file_name().map_or_else(
                        || path.display().to_string(),
                        |n| n.to_string_lossy().to_string(),
                    );
                    found.push(ProblemRef { id, source: ProblemSource::File(path) });
                }
                _ => {}
            }
        }
        if found.is_empty() {
            return Err(StudyError::NoMatch(pattern.clone()));
        }
        for p in found {
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    for dir in &spec.problem_dirs {
        let path = Path::new(dir);
        let path = if path.is_absolute() { path.to_path_buf() } else { root.join(path) };
        // Every file is read once here, so an unreadable one stops the study before it runs.
        for (id, file, _) in crate::problem_dir::load(&path)? {
            let p = ProblemRef { id, source: ProblemSource::File(file) };
            if !out.contains(&p) {
                out.push(p);
            }
        }
    }
    Ok(out)
}

/// The file a study appends each finished case to, one JSON line each, so that a run killed
/// half-way (even by `kill -9`) loses at most the cases in flight: `--resume` reads it back and
/// runs only the rest. The first line names the study (its spec and problem list), so a journal
/// is never resumed by a different study.
#[derive(Debug)]
pub struct StudyJournal {
    path: PathBuf,
    file: std::sync::Mutex<std::fs::File>,
    finished: Vec<Row>,
}

/// The first line of a journal.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct JournalHeader {
    journal: String,
    spec: StudySpec,
    problems: Vec<ProblemRef>,
    shard: Option<(usize, usize)>,
}

/// Format tag of the journal's first line.
pub const JOURNAL_FORMAT: &str = "signorini-study-journal/1";

impl StudyJournal {
    /// The journal's file name inside a study's output folder.
    pub const FILE: &'static str = "cases.jsonl";

    /// Opens the journal `path` for a study. Without `resume` the file is started afresh; with
    /// `resume` its finished cases are read back (a torn last line, from a kill mid-write, is
    /// dropped) and the header must match this study, else the run is refused.
    pub fn open(
        path: &Path,
        spec: &StudySpec,
        problems: &[ProblemRef],
        shard: Option<(usize, usize)>,
        resume: bool,
    ) -> Result<Self, StudyError> {
        let io = |e: &dyn std::fmt::Display| StudyError::Output {
            path: path.display().to_string(),
            message: e.to_string(),
        };
        let header = JournalHeader {
            journal: JOURNAL_FORMAT.into(),
            spec: spec.clone(),
            problems: problems.to_vec(),
            shard,
        };
        let mut finished = Vec::new();
        let mut keep = 0usize;
        if resume {
            let text = std::fs::read_to_string(path)
                .map_err(|e| io(&format!("--resume: cannot read the journal: {e}")))?;
            let mut lines = text.split_inclusive('\n');
            let first = lines.next().unwrap_or_default();
            let found: JournalHeader = serde_json::from_str(first.trim_end())
                .map_err(|e| io(&format!("--resume: not a study journal: {e}")))?;
            if found != header {
                return Err(io(&"--resume: the journal belongs to another study (spec, problems or shard differ)"));
            }
            keep = first.len();
            let total = problems.len() * spec.solvers.len();
            let mut seen = vec![false; total];
            for line in lines {
                // A line without its newline, or one that does not parse, is the torn tail.
                let Some(body) = line.strip_suffix('\n') else { break };
                let Ok(row) = serde_json::from_str::<Row>(body) else { break };
                match seen.get_mut(row.index) {
                    Some(s) if !*s => *s = true,
                    _ => {
                        return Err(io(&format!(
                            "--resume: case {} appears twice or out of range",
                            row.index
                        )))
                    }
                }
                keep += line.len();
                finished.push(row);
            }
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .write(true)
            .truncate(!resume)
            .open(path)
            .map_err(|e| io(&e))?;
        if resume {
            // Drop a torn tail so the next line starts clean.
            file.set_len(keep as u64).map_err(|e| io(&e))?;
        } else {
            let line = serde_json::to_string(&header).map_err(|e| io(&e))?;
            std::io::Write::write_all(&mut file, format!("{line}\n").as_bytes())
                .map_err(|e| io(&e))?;
        }
        use std::io::Seek;
        file.seek(std::io::SeekFrom::End(0)).map_err(|e| io(&e))?;
        Ok(Self { path: path.to_path_buf(), file: std::sync::Mutex::new(file), finished })
    }

    /// The cases finished before this run (from `--resume`).
    pub fn finished(&self) -> &[Row] {
        &self.finished
    }

    /// Appends one finished case and flushes it to the file system.
    fn append(&self, row: &Row) -> Result<(), StudyError> {
        let io = |e: &dyn std::fmt::Display| StudyError::Output {
            path: self.path.display().to_string(),
            message: e.to_string(),
        };
        let line = serde_json::to_string(row).map_err(|e| io(&e))? + "\n";
        let mut file = self.file.lock().map_err(|_| io(&"journal lock poisoned"))?;
        std::io::Write::write_all(&mut *file, line.as_bytes()).map_err(|e| io(&e))?;
        file.sync_data().map_err(|e| io(&e))
    }
}

/// One (problem, solver) result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// Case index in problem-major order over the whole study (shards keep it).
    pub index: usize,
    /// Problem id.
    pub problem: String,
    /// Solver spec as written in the study.
    pub solver: String,
    /// Problem size, 0 when the problem could not be loaded.
    pub n: usize,
    /// Final status (checked by the driver), or `error` when nothing ran.
    pub status: String,
    /// Iterations of the solver's loop.
    pub iterations: usize,
    /// Merit residual recomputed from z (NaN when nothing ran; written as null).
    pub residual: Option<f64>,
    /// Wall time of the solve alone, seconds.
    pub seconds: f64,
    /// Error text when the problem or the solver could not be set up.
    pub error: Option<String>,
}

impl Row {
    /// True when the pair is solved within the study tolerance.
    pub fn solved(&self) -> bool {
        self.status == Status::Solved.as_str()
    }
}

/// A study run, or one shard of it: what `results.json` holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StudyResult {
    /// [`FORMAT`].
    pub format: String,
    /// The study file's content.
    pub spec: StudySpec,
    /// The expanded problem list.
    pub problems: Vec<ProblemRef>,
    /// `(k, n)` for a shard, `None` for a whole (or merged) study.
    pub shard: Option<(usize, usize)>,
    /// Shards merged into this result (empty for a direct run).
    #[serde(default)]
    pub merged_from: Vec<(usize, usize)>,
    /// Number of cases of the whole study (problems x solvers).
    pub total_cases: usize,
    /// Where and with what it ran (for a merge: the first shard's, with the date of the merge).
    pub provenance: Provenance,
    /// The rows of this run, by index.
    pub rows: Vec<Row>,
    /// Checks (no timings): one per row, `pass` when solved.
    pub checks: Vec<Check>,
}

/// The case indices a shard takes.
pub fn shard_indices(total: usize, shard: Option<(usize, usize)>) -> Vec<usize> {
    match shard {
        None => (0..total).collect(),
        Some((k, n)) => (k - 1..total).step_by(n).collect(),
    }
}

fn solve_one(
    registry: &Registry,
    spec: &StudySpec,
    problems: &[ProblemRef],
    loaded: &[Option<Result<Lcp, String>>],
    index: usize,
) -> Row {
    let ns = spec.solvers.len();
    let (p, s) = (&problems[index / ns], &spec.solvers[index % ns]);
    let mut row = Row {
        index,
        problem: p.id.clone(),
        solver: s.clone(),
        n: 0,
        status: "error".into(),
        iterations: 0,
        residual: None,
        seconds: 0.0,
        error: None,
    };
    let lcp = match &loaded[index / ns] {
        Some(Ok(l)) => l,
        Some(Err(e)) => {
            row.error = Some(e.clone());
            return row;
        }
        None => {
            row.error = Some("problem not loaded (internal: outside this shard)".into());
            return row;
        }
    };
    row.n = lcp.n();
    let solver: Box<dyn LcpSolver> = match registry.build(s) {
        Ok(x) => x,
        Err(e) => {
            row.error = Some(e.to_string());
            return row;
        }
    };
    let options = SolveOptions {
        tol: Some(spec.tol),
        max_iter: spec.max_iter,
        time_limit: Some(Duration::from_secs_f64(spec.time_limit)),
        ..SolveOptions::default()
    };
    match solver.solve(lcp, &options, None) {
        Ok(sol) => {
            row.status = sol.status.to_string();
            row.iterations = sol.iterations;
            row.residual = Some(sol.residual()).filter(|r| r.is_finite());
            row.seconds = sol.solve_seconds;
        }
        Err(e) => row.error = Some(e.to_string()),
    }
    row
}

fn check_of(spec: &StudySpec, row: &Row) -> Check {
    let observed = match (&row.error, row.residual) {
        (Some(e), _) => format!("error: {e}"),
        (None, Some(r)) => {
            format!("{}, residual {}, {} iterations", row.status, fmt_sci(r), row.iterations)
        }
        (None, None) => {
            format!("{}, residual not finite, {} iterations", row.status, row.iterations)
        }
    };
    Check::new(
        &format!("study/{}/{}", spec.name, row.problem),
        Some(&row.solver),
        "study.solved",
        row.solved(),
        format!("solved, residual <= {}", fmt_sci(spec.tol)),
        observed,
        Some(spec.tol),
        "solver study (not a reference answer)",
    )
}

/// Runs a study (or one shard) on `threads` worker threads; `progress` is called once per
/// finished case. Statuses and residuals do not depend on the thread count except through
/// solvers that parallelise internally, and not on scheduling.
pub fn run_study(
    spec: &StudySpec,
    problems: Vec<ProblemRef>,
    registry: &Registry,
    shard: Option<(usize, usize)>,
    threads: usize,
    provenance: Provenance,
    progress: &(dyn Fn() + Sync),
) -> Result<StudyResult, StudyError> {
    let load = |p: &ProblemRef| p.load();
    run_study_with_loader(
        spec, problems, registry, shard, threads, provenance, progress, &load, None,
    )
}

/// [`run_study`] with the problem loader given: each problem the shard needs is loaded exactly
/// once (in parallel), then every solver of the study runs on that one copy. With a `journal`,
/// each finished case is appended to it as it completes, and the cases it already holds (a
/// resumed run) are not run again.
#[allow(clippy::too_many_arguments)]
pub fn run_study_with_loader(
    spec: &StudySpec,
    problems: Vec<ProblemRef>,
    registry: &Registry,
    shard: Option<(usize, usize)>,
    threads: usize,
    provenance: Provenance,
    progress: &(dyn Fn() + Sync),
    load: &(dyn Fn(&ProblemRef) -> Result<Lcp, String> + Sync),
    journal: Option<&StudyJournal>,
) -> Result<StudyResult, StudyError> {
    spec.validate()?;
    let ns = spec.solvers.len();
    let total = problems.len() * ns;
    let finished: Vec<Row> = journal.map(|j| j.finished().to_vec()).unwrap_or_default();
    let mut done = vec![false; total];
    for r in &finished {
        if let Some(d) = done.get_mut(r.index) {
            *d = true;
        }
    }
    let indices: Vec<usize> =
        shard_indices(total, shard).into_iter().filter(|&i| !done[i]).collect();
    let mut needed = vec![false; problems.len()];
    for &i in &indices {
        needed[i / ns] = true;
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads.max(1))
        .build()
        .map_err(|e| StudyError::Output { path: "rayon pool".into(), message: e.to_string() })?;
    let loaded: Vec<Option<Result<Lcp, String>>> = pool.install(|| {
        problems.par_iter().zip(&needed).map(|(p, &need)| need.then(|| load(p))).collect()
    });
    let ran: Result<Vec<Row>, StudyError> = pool.install(|| {
        indices
            .par_iter()
            .map(|&i| {
                let r = solve_one(registry, spec, &problems, &loaded, i);
                if let Some(j) = journal {
                    j.append(&r)?;
                }
                progress();
                Ok(r)
            })
            .collect()
    });
    let mut rows = finished;
    rows.extend(ran?);
    rows.sort_by_key(|r| r.index);
    let checks = rows.iter().map(|r| check_of(spec, r)).collect();
    Ok(StudyResult {
        format: FORMAT.into(),
        spec: spec.clone(),
        problems,
        shard,
        merged_from: Vec::new(),
        total_cases: total,
        provenance,
        rows,
        checks,
    })
}

/// Reads the study file `file`, expands its problems (files relative to `root`, the workspace
/// root) and runs the whole study with the solvers of `registry` on the default thread count,
/// without a progress callback. The entry point for a crate outside the workspace: it passes a
/// registry holding its own solvers beside (or instead of) [`Registry::builtin`], and the
/// study file names them like any other (see `verification/examples/external-solver`).
pub fn run_study_file(
    file: &Path,
    root: &Path,
    registry: &Registry,
) -> Result<StudyResult, StudyError> {
    let spec = StudySpec::read(file)?;
    let problems = expand_problems(&spec, root)?;
    let threads = crate::case::default_threads();
    let command = format!("study {}", file.display());
    let provenance = Provenance::collect(root, threads, Vec::new(), &command);
    run_study(&spec, problems, registry, None, threads, provenance, &|| {})
}

/// [`run_study`] that journals every finished case into `dir/cases.jsonl` as it goes
/// ([`StudyJournal`]) and, with `resume`, skips the cases a killed run of the same study already
/// finished there. `dir` is created when its parent exists. Returns the result and how many of
/// its cases came from the journal.
#[allow(clippy::too_many_arguments)]
pub fn run_study_in(
    dir: &Path,
    resume: bool,
    spec: &StudySpec,
    problems: Vec<ProblemRef>,
    registry: &Registry,
    shard: Option<(usize, usize)>,
    threads: usize,
    provenance: Provenance,
    progress: &(dyn Fn() + Sync),
) -> Result<(StudyResult, usize), StudyError> {
    signorini_lcp::formats::create_output_dir(dir)?;
    let journal =
        StudyJournal::open(&dir.join(StudyJournal::FILE), spec, &problems, shard, resume)?;
    let load = |p: &ProblemRef| p.load();
    let result = run_study_with_loader(
        spec,
        problems,
        registry,
        shard,
        threads,
        provenance,
        progress,
        &load,
        Some(&journal),
    )?;
    Ok((result, journal.finished().len()))
}

/// Merges shard results of one study into a whole: same spec and problem list, every case
/// exactly once.
pub fn merge(parts: Vec<StudyResult>) -> Result<StudyResult, StudyError> {
    let mut it = parts.into_iter();
    let mut first = it.next().ok_or_else(|| StudyError::Merge("no results given".into()))?;
    let mut shards: Vec<(usize, usize)> = first.shard.into_iter().collect();
    shards.extend(first.merged_from.iter().copied());
    for part in it {
        if part.format != first.format {
            return Err(StudyError::Merge(format!("format {} vs {}", part.format, first.format)));
        }
        if part.spec != first.spec {
            return Err(StudyError::Merge(format!(
                "study files differ (`{}` and `{}`)",
                first.spec.name, part.spec.name
            )));
        }
        if part.problems != first.problems {
            return Err(StudyError::Merge("problem lists differ".into()));
        }
        shards.extend(part.shard);
        shards.extend(part.merged_from.iter().copied());
        first.rows.extend(part.rows);
        first.checks.extend(part.checks);
    }
    first.rows.sort_by_key(|r| r.index);
    let mut seen = vec![false; first.total_cases];
    for r in &first.rows {
        match seen.get_mut(r.index) {
            Some(s) if !*s => *s = true,
            Some(_) => return Err(StudyError::Merge(format!("case {} appears twice", r.index))),
            None => return Err(StudyError::Merge(format!("case index {} out of range", r.index))),
        }
    }
    if let Some(missing) = seen.iter().position(|s| !s) {
        let count = seen.iter().filter(|s| !**s).count();
        return Err(StudyError::Merge(format!(
            "{count} cases missing (first: index {missing}); merge every shard"
        )));
    }
    let spec = first.spec.clone();
    first.checks = first.rows.iter().map(|r| check_of(&spec, r)).collect();
    shards.sort_unstable();
    first.merged_from = shards;
    first.shard = None;
    first.provenance.date = crate::report::rfc3339(std::time::SystemTime::now());
    Ok(first)
}

/// Success rate per solver: (solver, solved, attempted), in study order.
pub fn success_rates(result: &StudyResult) -> Vec<(String, usize, usize)> {
    result
        .spec
        .solvers
        .iter()
        .map(|s| {
            let rows = result.rows.iter().filter(|r| &r.solver == s);
            let (solved, all) = rows.fold((0, 0), |(a, b), r| (a + usize::from(r.solved()), b + 1));
            (s.clone(), solved, all)
        })
        .collect()
}

/// Taus of the profile: `points` values log-spaced on [1, 100].
pub fn profile_taus(points: usize) -> Vec<f64> {
    let k = points.max(2);
    (0..k).map(|i| 10f64.powf(2.0 * i as f64 / (k - 1) as f64)).collect()
}

/// Dolan–Moré profile: for each solver, rho_s(tau) at each tau. Problems solved by nobody
/// count in |P| (every solver fails them). A time of 0 is raised to 1 ns.
pub fn performance_profile(result: &StudyResult, taus: &[f64]) -> Vec<(String, Vec<f64>)> {
    let mut by_problem: BTreeMap<&str, Vec<&Row>> = BTreeMap::new();
    for r in &result.rows {
        by_problem.entry(r.problem.as_str()).or_default().push(r);
    }
    let np = by_problem.len().max(1) as f64;
    let mut ratios: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for rows in by_problem.values() {
        let best = rows
            .iter()
            .filter(|r| r.solved())
            .map(|r| r.seconds.max(1e-9))
            .fold(f64::INFINITY, f64::min);
        for r in rows {
            let ratio = if r.solved() { r.seconds.max(1e-9) / best } else { f64::INFINITY };
            ratios.entry(r.solver.as_str()).or_default().push(ratio);
        }
    }
    result
        .spec
        .solvers
        .iter()
        .map(|s| {
            let rs = ratios.get(s.as_str()).cloned().unwrap_or_default();
            let rho =
                taus.iter().map(|&t| rs.iter().filter(|&&r| r <= t).count() as f64 / np).collect();
            (s.clone(), rho)
        })
        .collect()
}

const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
    RGBColor(23, 190, 207),
];

/// The performance profile as SVG (log tau axis, rho in [0, 1]; no system fonts).
pub fn profile_svg(result: &StudyResult) -> Result<String, StudyError> {
    let taus = profile_taus(61);
    let profile = performance_profile(result, &taus);
    let err = |e: &dyn std::fmt::Display| StudyError::Output {
        path: "profile.svg".into(),
        message: e.to_string(),
    };
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (720, 480)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| err(&e))?;
        let title = format!("performance profile: {}", result.spec.name);
        let mut chart = ChartBuilder::on(&root)
            .caption(title.as_str(), ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(56)
            .build_cartesian_2d((1.0f64..100.0).log_scale(), 0.0f64..1.05)
            .map_err(|e| err(&e))?;
        chart
            .configure_mesh()
            .x_desc("tau (time / best time)")
            .y_desc("rho(tau), fraction of problems")
            .draw()
            .map_err(|e| err(&e))?;
        for (k, (s, rho)) in profile.iter().enumerate() {
            let color = PALETTE[k % PALETTE.len()];
            // A step function: rho holds its value until the next tau.
            let mut pts = Vec::with_capacity(2 * taus.len());
            for (i, (&t, &r)) in taus.iter().zip(rho).enumerate() {
                if i > 0 {
                    pts.push((t, rho[i - 1]));
                }
                pts.push((t, r));
            }
            chart
                .draw_series(LineSeries::new(pts, color.stroke_width(2)))
                .map_err(|e| err(&e))?
                .label(s.as_str())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()
            .map_err(|e| err(&e))?;
        root.present().map_err(|e| err(&e))?;
    }
    Ok(out)
}

fn md_cell(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The Markdown report: provenance, success rates, profile at a few taus, the table.
pub fn markdown(result: &StudyResult) -> String {
    let p = &result.provenance;
    let part = match (result.shard, result.merged_from.is_empty()) {
        (Some((k, n)), _) => format!(" (shard {k}/{n}, partial: merge with `cargo xtask merge`)"),
        (None, false) => format!(" (merged from {} shards)", result.merged_from.len()),
        (None, true) => String::new(),
    };
    let mut md = format!(
        "# signorini solver study `{}`{part}\n\n\
         {} problems x {} solvers = {} cases; this result holds {}. tol = {}, time limit {} s.\n\n\
         | | |\n|---|---|\n| git commit | `{}`{} |\n| rustc | {} |\n| Cargo.lock | `{}` |\n\
         | CPU | {} |\n| threads | {} |\n| date (UTC) | {} |\n| command | `{}` |\n\n",
        result.spec.name,
        result.problems.len(),
        result.spec.solvers.len(),
        result.total_cases,
        result.rows.len(),
        fmt_sci(result.spec.tol),
        result.spec.time_limit,
        p.git_commit,
        if p.git_dirty == Some(true) { " (dirty)" } else { "" },
        p.rustc,
        p.cargo_lock,
        p.cpu,
        p.threads,
        p.date,
        p.selection,
    );
    md.push_str("## Success rates\n\n| solver | solved | cases | rate |\n|---|---|---|---|\n");
    for (s, solved, all) in success_rates(result) {
        let rate = if all == 0 { 0.0 } else { 100.0 * solved as f64 / all as f64 };
        md.push_str(&format!("| `{s}` | {solved} | {all} | {rate:.1} % |\n"));
    }
    let taus = [1.0, 2.0, 5.0, 10.0, 100.0];
    md.push_str("\n## Performance profile (Dolan–Moré)\n\n![profile](plots/profile.svg)\n\n");
    md.push_str("| solver |");
    for t in taus {
        md.push_str(&format!(" rho({t}) |"));
    }
    md.push_str("\n|---|");
    md.push_str(&"---|".repeat(taus.len()));
    md.push('\n');
    for (s, rho) in performance_profile(result, &taus) {
        md.push_str(&format!("| `{s}` |"));
        for r in rho {
            md.push_str(&format!(" {r:.2} |"));
        }
        md.push('\n');
    }
    md.push_str(
        "\n## Results\n\n| problem | n | solver | status | iterations | residual | time [ms] |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for r in &result.rows {
        let status = match &r.error {
            Some(e) => format!("error: {}", md_cell(e)),
            None => r.status.clone(),
        };
        let res = r.residual.map_or_else(|| "–".to_string(), fmt_sci);
        md.push_str(&format!(
            "| `{}` | {} | `{}` | {} | {} | {} | {:.3} |\n",
            r.problem,
            r.n,
            r.solver,
            status,
            r.iterations,
            res,
            r.seconds * 1e3
        ));
    }
    md
}

/// Writes `results.json`, `report.md` and `plots/profile.svg` into `dir`; returns the report
/// path. A shard's profile covers only its own rows.
pub fn write_study(dir: &Path, result: &StudyResult) -> Result<PathBuf, StudyError> {
    let io = |path: &Path, e: &dyn std::fmt::Display| StudyError::Output {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    use signorini_lcp::formats::{create_output_dir, write_atomic};
    let plots = dir.join("plots");
    create_output_dir(dir)?;
    create_output_dir(&plots)?;
    let json = serde_json::to_string_pretty(result).map_err(|e| io(dir, &e))?;
    let results = dir.join("results.json");
    write_atomic(&results, (json + "\n").as_bytes())?;
    if !result.rows.is_empty() {
        let svg = profile_svg(result)?;
        let path = plots.join("profile.svg");
        write_atomic(&path, svg.as_bytes())?;
    }
    let md = dir.join("report.md");
    write_atomic(&md, markdown(result).as_bytes())?;
    Ok(md)
}

/// Reads a `results.json` written by [`write_study`] (from the folder or the file).
pub fn read_result(path: &Path) -> Result<StudyResult, StudyError> {
    let file = if path.is_dir() { path.join("results.json") } else { path.to_path_buf() };
    let text = std::fs::read_to_string(&file)
        .map_err(|source| StudyError::Io { path: file.display().to_string(), source })?;
    let r: StudyResult = serde_json::from_str(&text).map_err(|e| StudyError::Parse {
        path: file.display().to_string(),
        message: e.to_string(),
    })?;
    if r.format != FORMAT {
        return Err(StudyError::Parse {
            path: file.display().to_string(),
            message: format!("format `{}`, expected `{FORMAT}`", r.format),
        });
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_are_anchored() {
        assert!(glob_match("lcp_*.dat", "lcp_CPS_1.dat"));
        assert!(!glob_match("lcp_*.dat", "xlcp_CPS_1.dat"));
        assert!(glob_match("a?c", "abc"));
        assert!(!glob_match("a?c", "ac"));
    }

    #[test]
    fn shards_partition_the_cases() {
        let total = 11;
        let mut all: Vec<usize> =
            (1..=3).flat_map(|k| shard_indices(total, Some((k, 3)))).collect();
        all.sort_unstable();
        assert_eq!(all, (0..total).collect::<Vec<_>>());
        assert!(parse_shard("0/2").is_err());
        assert!(parse_shard("3/2").is_err());
        assert_eq!(parse_shard("2/5").ok(), Some((2, 5)));
    }

    #[test]
    fn problem_dirs_expand_to_their_files_and_name_an_unreadable_one() {
        let dir = std::env::temp_dir().join(format!("signorini-study-dir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let json =
            r#"{"format": "signorini-lcp/1", "M": {"dense": [[2, 1], [1, 2]]}, "q": [-3, -3]}"#;
        std::fs::write(dir.join("b.json"), json).expect("write");
        std::fs::write(dir.join("a.json"), json).expect("write");
        std::fs::write(dir.join("notes.txt"), "skipped").expect("write");
        let text = format!(
            "problems = [\"lcp/seed/a1\"]\nproblem_dirs = [{:?}]\nsolvers = [\"lemke\"]\n\
             tol = 1e-8\ntime_limit = 1.0\n",
            dir.display().to_string()
        );
        let spec = StudySpec::parse(&text, "t").expect("valid study");
        let problems = expand_problems(&spec, Path::new("/")).expect("expands");
        let ids: Vec<&str> = problems.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["lcp/seed/a1_two_variable", "a.json", "b.json"]);
        let result = run_study(
            &spec,
            problems,
            &Registry::builtin(),
            None,
            1,
            Provenance::collect(Path::new("/"), 1, Vec::new(), "test"),
            &|| {},
        )
        .expect("runs");
        assert!(result.rows.iter().all(Row::solved), "{:?}", result.rows);
        std::fs::write(dir.join("c.json"), "{\"format\": ").expect("write");
        match expand_problems(&spec, Path::new("/")) {
            Err(e @ StudyError::Unreadable(_)) => assert!(e.to_string().contains("c.json"), "{e}"),
            other => panic!("expected Unreadable, got {other:?}"),
        }
        std::fs::remove_dir_all(&dir).ok();
    }

    /// Issue 12: every (problem, solver) pair loaded its problem again (and the registry
    /// generated the large Delassus cases on every load). Now each problem a shard needs is
    /// loaded once, whatever the number of solvers.
    #[test]
    fn issue_12_each_problem_is_loaded_once_per_study() {
        let text = "problems = [\"lcp/seed/a1\", \"lcp/seed/a3\", \"lcp/tiny\"]\n\
                    solvers = [\"lemke\", \"pgs\", \"newton-fb\"]\ntol = 1e-8\ntime_limit = 1.0\n";
        let spec = StudySpec::parse(text, "t").expect("valid study");
        let problems = expand_problems(&spec, Path::new(".")).expect("registry problems");
        assert!(problems.len() >= 3, "{problems:?}");
        let loads: Vec<std::sync::atomic::AtomicUsize> =
            problems.iter().map(|_| std::sync::atomic::AtomicUsize::new(0)).collect();
        let load = |p: &ProblemRef| {
            let k = problems.iter().position(|q| q == p).expect("a study problem");
            loads[k].fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            p.load()
        };
        let provenance = Provenance::collect(Path::new("."), 1, Vec::new(), "test");
        let r = run_study_with_loader(
            &spec,
            problems.clone(),
            &Registry::builtin(),
            None,
            2,
            provenance,
            &|| {},
            &load,
            None,
        )
        .expect("study runs");
        assert_eq!(r.rows.len(), problems.len() * 3);
        let counts: Vec<usize> =
            loads.iter().map(|c| c.load(std::sync::atomic::Ordering::SeqCst)).collect();
        assert!(counts.iter().all(|&c| c == 1), "loads per problem: {counts:?}");
        // A shard loads only the problems its cases need.
        loads.iter().for_each(|c| c.store(0, std::sync::atomic::Ordering::SeqCst));
        let provenance = Provenance::collect(Path::new("."), 1, Vec::new(), "test");
        run_study_with_loader(
            &spec,
            problems.clone(),
            &Registry::builtin(),
            Some((1, problems.len() * 3)),
            1,
            provenance,
            &|| {},
            &load,
            None,
        )
        .expect("shard runs");
        let counts: Vec<usize> =
            loads.iter().map(|c| c.load(std::sync::atomic::Ordering::SeqCst)).collect();
        assert_eq!(counts.iter().sum::<usize>(), 1, "one case, one load: {counts:?}");
    }

    /// A journal cut mid-line (a kill during the write) resumes from its complete lines.
    #[test]
    fn a_torn_journal_line_is_dropped_on_resume() {
        let d = std::env::temp_dir().join(format!("signorini-journal-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("temp dir");
        let text = "problems = [\"lcp/seed/a1\"]\nsolvers = [\"lemke\", \"pgs\", \"bpp\"]\n\
                    tol = 1e-8\ntime_limit = 1.0\n";
        let spec = StudySpec::parse(text, "t").expect("valid study");
        let problems = expand_problems(&spec, Path::new(".")).expect("registry problems");
        let path = d.join(StudyJournal::FILE);
        let prov = || Provenance::collect(Path::new("."), 1, Vec::new(), "test");
        let (full, _) = run_study_in(
            &d,
            false,
            &spec,
            problems.clone(),
            &Registry::builtin(),
            None,
            1,
            prov(),
            &|| {},
        )
        .expect("runs");
        let lines: Vec<String> =
            std::fs::read_to_string(&path).expect("journal").lines().map(str::to_owned).collect();
        assert_eq!(lines.len(), 1 + full.rows.len());
        // Keep the header and one case, then half of the next line.
        let torn = format!("{}\n{}\n{}", lines[0], lines[1], &lines[2][..lines[2].len() / 2]);
        std::fs::write(&path, torn).expect("torn journal");
        let (again, resumed) = run_study_in(
            &d,
            true,
            &spec,
            problems.clone(),
            &Registry::builtin(),
            None,
            1,
            prov(),
            &|| {},
        )
        .expect("resumes");
        assert_eq!(resumed, 1);
        assert_eq!(again.rows.len(), full.rows.len());
        assert!(again
            .rows
            .iter()
            .zip(&full.rows)
            .all(|(a, b)| a.index == b.index && a.status == b.status));
        let now = std::fs::read_to_string(&path).expect("journal");
        assert_eq!(now.lines().count(), 1 + full.rows.len(), "no torn text left behind: {now}");
        assert!(now.lines().skip(1).all(|l| serde_json::from_str::<Row>(l).is_ok()));
        let _ = std::fs::remove_dir_all(&d);
    }

    #[test]
    fn bad_study_files_are_errors() {
        let ok = "problems = [\"lcp/seed\"]\nsolvers = [\"lemke\"]\ntol = 1e-8\ntime_limit = 1.0\n";
        assert!(StudySpec::parse(ok, "t").is_ok());
        assert!(StudySpec::parse(&ok.replace("1e-8", "-1.0"), "t").is_err());
        assert!(StudySpec::parse(&ok.replace("tol", "tolerance"), "t").is_err());
    }
}
