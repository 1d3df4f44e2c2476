//! Reference LCP cases (`lcp/...`): seed examples, tiny cases with known solution sets, the
//! classical worst cases of pivoting methods, seeded random classes and the Siconos set.
//!
//! Every solver check solves once through the registry, then recomputes w = Mz + q and the
//! residual from the returned z with its own loop ([`independent_merit`]), and re-checks any
//! certificate: nothing a solver reports about itself is trusted.

use std::collections::BTreeMap;
use std::sync::{Arc, LazyLock};

use signorini_lcp::{verify_farkas, Certificate, Lcp, Matrix, Solution, SolveOptions, Status};

use crate::case::{Case, Context};
use crate::check::{fmt_observed, fmt_sci, fmt_vec, fmt_vec_rounded, Check};

pub mod classic;
pub mod contact;
#[cfg(feature = "fclib")]
pub mod fclib;
pub mod random;
pub mod seed;
pub mod siconos;
pub mod tiny;

/// The observed text of a check whose solver is not in the registry.
pub const NOT_REGISTERED: &str = "solver not registered";

/// Solver names by the matrix class their theory covers (DESIGN.md §3). Cases name solvers
/// through these lists, so a solver that does not exist yet shows up as failing checks rather
/// than as silently skipped ones.
pub mod solvers {
    /// Symmetric positive definite M: every algorithm applies.
    pub const SPD: &[&str] = &[
        "lemke",
        "murty",
        "bpp",
        "enum",
        "pgs",
        "apgd",
        "gpcg",
        "newton-fb",
        "newton-min",
        "ipm",
        "qp",
    ];
    /// Nonsymmetric P-matrices: pivoting methods and the Newton methods.
    pub const P: &[&str] = &["lemke", "murty", "bpp", "enum", "newton-fb", "newton-min"];
    /// Symmetric positive semidefinite, singular: solution sets, not points.
    pub const PSD: &[&str] = &["lemke", "pgs", "apgd", "gpcg", "ipm", "qp"];
    /// Problems without a solution: the methods that can certify it.
    pub const CERTIFYING: &[&str] = &["lemke", "enum"];
    /// Candidates for "solved by at least one solver" on external data.
    pub const ANY: &[&str] =
        &["lemke", "enum", "bpp", "murty", "newton-fb", "newton-min", "ipm", "qp", "pgs", "apgd"];
}

/// Default residual tolerance of the LCP cases (the merit of DESIGN.md §3).
pub const RESIDUAL_TOL: f64 = 1e-10;
/// Relative round-off tolerance of the Farkas re-check (`verify_farkas`).
pub const FARKAS_REL_TOL: f64 = 1e-9;
/// Default relative tolerance on z: `|z - z*|_inf <= ZTOL * max(1, |z*|_inf)`.
pub const ZTOL: f64 = 1e-8;

/// A set of solutions against which a returned z is tested for membership.
#[derive(Debug, Clone)]
pub enum SolutionSet {
    /// Finitely many isolated solutions.
    Finite(Vec<Vec<f64>>),
    /// A continuum, given by a distance function (0 on the set).
    Described {
        /// The set in words, e.g. `z1 + z2 = 1, z >= 0`.
        description: &'static str,
        /// Distance of z from the set (exact formula, documented at the case).
        distance: fn(&[f64]) -> f64,
    },
}

impl SolutionSet {
    fn describe(&self) -> String {
        match self {
            SolutionSet::Finite(s) => {
                let parts: Vec<String> = s.iter().map(|z| fmt_vec(z)).collect();
                format!("{{{}}}", parts.join(", "))
            }
            SolutionSet::Described { description, .. } => format!("{{{description}}}"),
        }
    }

    fn distance(&self, z: &[f64]) -> f64 {
        match self {
            SolutionSet::Finite(s) => {
                s.iter().map(|p| max_abs_diff(p, z)).fold(f64::INFINITY, f64::min)
            }
            SolutionSet::Described { distance, .. } => distance(z),
        }
    }

    fn scale(&self) -> f64 {
        match self {
            SolutionSet::Finite(s) => s.iter().map(|p| inf_norm(p)).fold(1.0, f64::max),
            SolutionSet::Described { .. } => 1.0,
        }
    }
}

/// The exact expected answer of one solver on one case.
#[derive(Debug, Clone)]
pub enum Expect {
    /// `solved` with residual <= tol and z = z* within the case's relative z tolerance.
    Point(Vec<f64>),
    /// [`Expect::Point`] with z* computed when the check first needs it (a large generated
    /// case produces its data only when it runs, not when the case list is built).
    PointLazy(LazyPoint),
    /// `solved` with residual <= tol (z not unique or not known in closed form).
    Solved,
    /// `solved` with residual <= tol and z in the set.
    InSet(SolutionSet),
    /// `infeasible` with a Farkas vector that [`verify_farkas`] accepts again here.
    Infeasible,
    /// `no_solution` with an enumeration certificate over all 2^n index sets.
    NoSolution,
    /// The list of all solutions (`enum`) equals this set.
    AllSolutions(Vec<Vec<f64>>),
    /// Exactly this many pivots.
    Pivots(usize),
}

impl Expect {
    /// The check kind this expectation produces.
    pub fn kind(&self) -> &'static str {
        match self {
            Expect::Point(_) | Expect::PointLazy(_) => "lcp.point",
            Expect::Solved => "lcp.solved",
            Expect::InSet(_) => "lcp.solution_set",
            Expect::Infeasible => "lcp.infeasible",
            Expect::NoSolution => "lcp.no_solution",
            Expect::AllSolutions(_) => "lcp.all_solutions",
            Expect::Pivots(_) => "lcp.pivots",
        }
    }
}

/// An expected z computed at most once, on first use.
#[derive(Clone)]
pub struct LazyPoint(Arc<LazyLock<Vec<f64>, ComputePoint>>);

/// The computation behind a [`LazyPoint`].
type ComputePoint = Box<dyn FnOnce() -> Vec<f64> + Send>;

impl LazyPoint {
    /// z* from `compute`, run on first use.
    pub fn new(compute: impl FnOnce() -> Vec<f64> + Send + 'static) -> Self {
        Self(Arc::new(LazyLock::new(Box::new(compute))))
    }

    /// z*.
    pub fn get(&self) -> &[f64] {
        &self.0
    }
}

impl std::fmt::Debug for LazyPoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LazyPoint")
    }
}

/// Builds the problem of a case (fixed data, a seeded generator or a file reader).
pub type Build = Box<dyn Fn() -> Result<Lcp, String> + Send + Sync>;

/// One LCP reference case.
pub struct LcpCase {
    /// Case id, `lcp/<group>/<name>`.
    pub id: String,
    /// Provenance of data and expected answer.
    pub source: String,
    /// In the quick set.
    pub quick: bool,
    /// Seeds of generated data.
    pub seeds: Vec<u64>,
    /// The data.
    pub build: Build,
    /// Residual tolerance passed to every solver and used by every check.
    pub tol: f64,
    /// Relative tolerance on z.
    pub ztol: f64,
    /// Per-solver expectations, in order.
    pub expectations: Vec<(String, Vec<Expect>)>,
    /// Solvers of which at least one must solve the case (residual <= tol).
    pub solved_by_any: Option<Vec<String>>,
}

impl std::fmt::Debug for LcpCase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LcpCase").field("id", &self.id).finish()
    }
}

impl LcpCase {
    /// A case with the default tolerances and no expectations yet.
    pub fn new(id: &str, source: &str, build: Build) -> Self {
        Self {
            id: id.into(),
            source: source.into(),
            quick: false,
            seeds: Vec::new(),
            build,
            tol: RESIDUAL_TOL,
            ztol: ZTOL,
            expectations: Vec::new(),
            solved_by_any: None,
        }
    }

    /// A case over fixed dense data given by rows.
    pub fn dense(id: &str, source: &str, rows: &[&[f64]], q: &[f64]) -> Self {
        let rows: Vec<Vec<f64>> = rows.iter().map(|r| r.to_vec()).collect();
        let q = q.to_vec();
        Self::new(
            id,
            source,
            Box::new(move || Lcp::from_dense_rows(&rows, q.clone()).map_err(|e| e.to_string())),
        )
    }

    /// Marks the case as part of the quick set.
    pub fn quick(mut self) -> Self {
        self.quick = true;
        self
    }

    /// Records the seeds of generated data.
    pub fn seeds(mut self, seeds: &[u64]) -> Self {
        self.seeds = seeds.to_vec();
        self
    }

    /// Adds `expect` for every solver in `solvers`.
    pub fn expect(mut self, solvers: &[&str], expect: &[Expect]) -> Self {
        for s in solvers {
            match self.expectations.iter_mut().find(|(n, _)| n == s) {
                Some((_, list)) => list.extend(expect.iter().cloned()),
                None => self.expectations.push((s.to_string(), expect.to_vec())),
            }
        }
        self
    }

    /// Requires that at least one of `solvers` solves the case.
    pub fn solved_by_any(mut self, solvers: &[&str]) -> Self {
        self.solved_by_any = Some(solvers.iter().map(|s| s.to_string()).collect());
        self
    }

    /// Runs every solver the case names once and returns the results by solver name.
    pub fn solve_all(&self, ctx: &Context, lcp: &Lcp) -> BTreeMap<String, Run> {
        let mut names: Vec<&str> = self.expectations.iter().map(|(s, _)| s.as_str()).collect();
        if let Some(any) = &self.solved_by_any {
            names.extend(any.iter().map(String::as_str));
        }
        let mut runs = BTreeMap::new();
        for name in names {
            if !runs.contains_key(name) {
                runs.insert(name.to_string(), run_one(ctx, lcp, name, self.tol));
            }
        }
        runs
    }

    fn check(&self, solver: Option<&str>, kind: &str, pass: bool, e: String, o: String) -> Check {
        Check::new(&self.id, solver, kind, pass, e, o, Some(self.tol), &self.source)
    }

    fn evaluate(&self, lcp: &Lcp, solver: &str, run: &Run, expect: &Expect) -> Check {
        let kind = expect.kind();
        let expected = self.describe(lcp, expect);
        let sol = match run {
            Run::Missing => {
                return self.check(Some(solver), kind, false, expected, NOT_REGISTERED.into())
            }
            Run::SetupError(e) => {
                return self.check(Some(solver), kind, false, expected, format!("setup error: {e}"))
            }
            Run::Done(sol) => sol,
        };
        let (res, _) = independent_merit(lcp, &sol.z);
        let solved = sol.status == Status::Solved && res <= self.tol;
        let head = format!("{}, residual {}", sol.status, fmt_observed(res));
        let (pass, observed) = match expect {
            Expect::Point(_) | Expect::PointLazy(_) => {
                let zs = match expect {
                    Expect::PointLazy(p) => p.get(),
                    Expect::Point(z) => z.as_slice(),
                    _ => &[],
                };
                let err = max_abs_diff(zs, &sol.z);
                let ok = solved && err <= self.ztol * inf_norm(zs).max(1.0);
                (ok, format!("{head}, z = {}, |z - z*|_inf {}", zvec(sol), fmt_observed(err)))
            }
            Expect::Solved => (solved, format!("{head}, z = {}", zvec(sol))),
            Expect::InSet(set) => {
                let d = set.distance(&sol.z);
                let ok = solved && d <= self.ztol * set.scale();
                (ok, format!("{head}, z = {}, distance to set {}", zvec(sol), fmt_observed(d)))
            }
            Expect::Infeasible => match &sol.certificate {
                Some(Certificate::Farkas { y }) => match verify_farkas(lcp, y, FARKAS_REL_TOL) {
                    Ok(()) => (
                        sol.status == Status::Infeasible,
                        format!("{}, Farkas y = {} re-checked", sol.status, fmt_vec_rounded(y)),
                    ),
                    Err(e) => (false, format!("{}, Farkas vector rejected: {e}", sol.status)),
                },
                _ => (false, format!("{head}, no Farkas certificate")),
            },
            Expect::NoSolution => match &sol.certificate {
                Some(Certificate::Enumeration { index_sets }) => {
                    let all = 1u64.checked_shl(lcp.n() as u32);
                    (
                        sol.status == Status::NoSolution && Some(*index_sets) == all,
                        format!("{}, enumeration of {index_sets} index sets", sol.status),
                    )
                }
                _ => (false, format!("{head}, no enumeration certificate")),
            },
            Expect::AllSolutions(expected_set) => {
                self.compare_sets(lcp, expected_set, sol.all_solutions.as_deref())
            }
            Expect::Pivots(k) => {
                let p = sol.pivots.map_or("none".to_string(), |p| p.to_string());
                (sol.pivots == Some(*k), format!("{head}, pivots {p}"))
            }
        };
        let tolerance = match expect {
            Expect::Pivots(_) | Expect::NoSolution => None,
            Expect::Infeasible => Some(FARKAS_REL_TOL),
            _ => Some(self.tol),
        };
        Check::new(&self.id, Some(solver), kind, pass, expected, observed, tolerance, &self.source)
    }

    fn compare_sets(
        &self,
        lcp: &Lcp,
        want: &[Vec<f64>],
        got: Option<&[Vec<f64>]>,
    ) -> (bool, String) {
        let Some(got) = got else { return (false, "no list of solutions returned".into()) };
        let mut distinct: Vec<&Vec<f64>> = Vec::new();
        let mut worst: f64 = 0.0;
        for z in got {
            worst = worst.max(independent_merit(lcp, z).0);
            let scale = inf_norm(z).max(1.0);
            if !distinct.iter().any(|d| max_abs_diff(d, z) <= self.ztol * scale) {
                distinct.push(z);
            }
        }
        let near = |a: &[f64], b: &[f64]| max_abs_diff(a, b) <= self.ztol * inf_norm(a).max(1.0);
        let all_found = want.iter().all(|w| distinct.iter().any(|d| near(w, d)));
        let none_extra = distinct.iter().all(|d| want.iter().any(|w| near(w, d)));
        let list: Vec<String> = distinct.iter().map(|z| fmt_vec_rounded(z)).collect();
        (
            all_found && none_extra && worst <= self.tol,
            format!(
                "{} distinct solutions {{{}}}, worst residual {}",
                distinct.len(),
                list.join(", "),
                fmt_observed(worst)
            ),
        )
    }

    fn describe(&self, lcp: &Lcp, expect: &Expect) -> String {
        let tol = fmt_sci(self.tol);
        match expect {
            Expect::Point(z) => format!("solved, z = {}, residual <= {tol}", fmt_vec(z)),
            Expect::PointLazy(z) => format!("solved, z = {}, residual <= {tol}", fmt_vec(z.get())),
            Expect::Solved => format!("solved, residual <= {tol}"),
            Expect::InSet(set) => format!("solved, z in {}, residual <= {tol}", set.describe()),
            Expect::Infeasible => "infeasible, Farkas y >= 0, M'y <= 0, q'y < 0".into(),
            Expect::NoSolution => {
                format!("no_solution, enumeration of 2^{} index sets", lcp.n())
            }
            Expect::AllSolutions(s) => {
                let parts: Vec<String> = s.iter().map(|z| fmt_vec(z)).collect();
                format!("exactly {} solutions {{{}}}", s.len(), parts.join(", "))
            }
            Expect::Pivots(k) => format!("{k} pivots"),
        }
    }

    fn any_check(&self, lcp: &Lcp, names: &[String], runs: &BTreeMap<String, Run>) -> Check {
        let mut best: Option<(f64, &str)> = None;
        let mut missing = Vec::new();
        let mut tried = Vec::new();
        for name in names {
            match runs.get(name) {
                Some(Run::Done(sol)) => {
                    let (res, _) = independent_merit(lcp, &sol.z);
                    tried.push(name.as_str());
                    if sol.status == Status::Solved
                        && res <= self.tol
                        && best.is_none_or(|(b, _)| res < b)
                    {
                        best = Some((res, name));
                    }
                }
                Some(Run::SetupError(_)) => tried.push(name.as_str()),
                _ => missing.push(name.as_str()),
            }
        }
        let mut observed = match best {
            Some((res, name)) => format!("solved by {name}, residual {}", fmt_observed(res)),
            None if tried.is_empty() => NOT_REGISTERED.to_string(),
            None => format!("not solved by any of {}", tried.join(", ")),
        };
        if !missing.is_empty() && !tried.is_empty() {
            observed.push_str(&format!("; not registered: {}", missing.join(", ")));
        }
        self.check(
            None,
            "lcp.solved_by_any",
            best.is_some(),
            format!("solved with residual <= {} by one of {}", fmt_sci(self.tol), names.join(", ")),
            observed,
        )
    }

    /// Rounded summaries of every solver run of the case, for snapshots.
    pub fn summaries(&self, ctx: &Context) -> Vec<RunSummary> {
        let lcp = match (self.build)() {
            Ok(l) => l,
            Err(e) => return vec![RunSummary::error("data", &e)],
        };
        self.solve_all(ctx, &lcp)
            .into_iter()
            .map(|(name, run)| match run {
                Run::Missing => RunSummary::error(&name, NOT_REGISTERED),
                Run::SetupError(e) => RunSummary::error(&name, &format!("setup error: {e}")),
                Run::Done(sol) => RunSummary::of(&lcp, &name, &sol),
            })
            .collect()
    }
}

impl Case for LcpCase {
    fn id(&self) -> &str {
        &self.id
    }
    fn kind(&self) -> &str {
        "lcp"
    }
    fn source(&self) -> &str {
        &self.source
    }
    fn quick(&self) -> bool {
        self.quick
    }
    fn seeds(&self) -> Vec<u64> {
        self.seeds.clone()
    }
    fn run(&self, ctx: &Context) -> Vec<Check> {
        let lcp = match (self.build)() {
            Ok(l) => l,
            Err(e) => return vec![self.data_error(&e)],
        };
        let runs = self.solve_all(ctx, &lcp);
        self.checks_of(&lcp, &runs)
    }
}

impl LcpCase {
    /// The checks of the case's expectations (and of `solved_by_any`) over runs already made by
    /// [`LcpCase::solve_all`].
    pub fn checks_of(&self, lcp: &Lcp, runs: &BTreeMap<String, Run>) -> Vec<Check> {
        let mut checks = Vec::new();
        for (solver, expects) in &self.expectations {
            let run = runs.get(solver).unwrap_or(&Run::Missing);
            for e in expects {
                checks.push(self.evaluate(lcp, solver, run, e));
            }
        }
        if let Some(names) = &self.solved_by_any {
            checks.push(self.any_check(lcp, names, runs));
        }
        checks
    }

    /// The check of a data load failure.
    pub fn data_error(&self, error: &str) -> Check {
        self.check(
            None,
            "lcp.data",
            false,
            "the problem data load".into(),
            format!("cannot load: {error}"),
        )
    }
}

/// The result of running one named solver on a case.
#[derive(Debug, Clone)]
pub enum Run {
    /// No solver of that name is registered.
    Missing,
    /// The solver refused the problem or the options.
    SetupError(String),
    /// The solver ran.
    Done(Box<Solution>),
}

fn run_one(ctx: &Context, lcp: &Lcp, name: &str, tol: f64) -> Run {
    let Some(solver) = ctx.solver(name) else { return Run::Missing };
    let options = SolveOptions { tol: Some(tol), ..SolveOptions::default() };
    match solver.solve(lcp, &options, None) {
        Ok(sol) => Run::Done(Box::new(sol)),
        Err(e) => Run::SetupError(e.to_string()),
    }
}

/// A rounded, timing-free summary of one solver run (what the snapshots hold).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RunSummary {
    /// Solver name.
    pub solver: String,
    /// Status, or the reason there is none.
    pub status: String,
    /// Recomputed residual to two significant digits; `< 1e-14` below round-off level.
    pub residual: Option<String>,
    /// Iterations of the solver's loop.
    pub iterations: Option<usize>,
    /// Pivots (pivoting methods).
    pub pivots: Option<usize>,
    /// z to 8 decimals (at most 12 entries).
    pub z: Option<Vec<String>>,
}

impl RunSummary {
    fn error(solver: &str, why: &str) -> Self {
        Self {
            solver: solver.into(),
            status: why.into(),
            residual: None,
            iterations: None,
            pivots: None,
            z: None,
        }
    }

    fn of(lcp: &Lcp, solver: &str, sol: &Solution) -> Self {
        let (res, _) = independent_merit(lcp, &sol.z);
        let residual = if res < 1e-14 { "< 1e-14".to_string() } else { fmt_sci(res) };
        let z = sol
            .z
            .iter()
            .take(12)
            .map(|&x| {
                let s = format!("{x:.8}");
                if s.trim_start_matches('-').chars().all(|c| c == '0' || c == '.') {
                    "0.00000000".to_string()
                } else {
                    s
                }
            })
            .collect();
        Self {
            solver: solver.into(),
            status: sol.status.to_string(),
            residual: Some(residual),
            iterations: Some(sol.iterations),
            pivots: sol.pivots,
            z: Some(z),
        }
    }
}

/// Recomputes w = Mz + q entry by entry from the matrix (not through the solver or the driver)
/// and returns `(residual, w)` with the merit of DESIGN.md §3: `||min(z, w)||_2 / ||q||_2`,
/// no division when `||q||_2 <= eps`; infinite for a z of the wrong length or non-finite values.
pub fn independent_merit(lcp: &Lcp, z: &[f64]) -> (f64, Vec<f64>) {
    let n = lcp.n();
    if z.len() != n {
        return (f64::INFINITY, Vec::new());
    }
    let q = lcp.q();
    let mut w = vec![0.0; n];
    let mut sq = 0.0;
    for i in 0..n {
        let mut acc = q[i];
        match lcp.matrix() {
            Matrix::Dense(d) => {
                for (j, zj) in z.iter().enumerate() {
                    acc += d[(i, j)] * zj;
                }
            }
            // Stored entries of row i only (sparse data are never densified: n = 10^5 cases).
            Matrix::Sparse(s) => {
                for (j, v) in s.col_idx_of_row_raw(i).iter().zip(s.val_of_row(i)) {
                    acc += v * z[*j];
                }
            }
        }
        w[i] = acc;
        let m = z[i].min(acc);
        sq += m * m;
    }
    let qn = q.iter().map(|v| v * v).sum::<f64>().sqrt();
    let r = sq.sqrt();
    let r = if qn <= f64::EPSILON { r } else { r / qn };
    let finite = z.iter().chain(&w).all(|v| v.is_finite());
    (if finite { r } else { f64::INFINITY }, w)
}

fn max_abs_diff(a: &[f64], b: &[f64]) -> f64 {
    if a.len() != b.len() {
        return f64::INFINITY;
    }
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max)
}

fn inf_norm(a: &[f64]) -> f64 {
    a.iter().map(|x| x.abs()).fold(0.0, f64::max)
}

fn zvec(sol: &Solution) -> String {
    fmt_vec_rounded(&sol.z)
}

/// Every LCP case, in report order.
pub fn cases() -> Vec<Box<dyn Case>> {
    let mut v: Vec<Box<dyn Case>> = Vec::new();
    for c in seed::cases().into_iter().chain(tiny::cases()).chain(classic::cases()) {
        v.push(Box::new(c));
    }
    for c in random::cases().into_iter().chain(siconos::cases()).chain(contact::cases()) {
        v.push(Box::new(c));
    }
    v.push(Box::new(contact::granular_packing()));
    v.push(Box::new(contact::hex_packing()));
    #[cfg(feature = "fclib")]
    v.push(Box::new(fclib::case()));
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn independent_merit_matches_the_library_merit() {
        let lcp = Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![-3.0, -3.0])
            .expect("valid");
        for z in [[1.0, 1.0], [1.5, 1.5], [0.0, 0.0], [-1.0, 2.0]] {
            let (r, w) = independent_merit(&lcp, &z);
            let (w2, m) = signorini_lcp::evaluate(&lcp, &z);
            assert!((r - m.residual).abs() <= 1e-15 * (1.0 + r));
            assert!(w.iter().zip(&w2).all(|(a, b)| (a - b).abs() <= 1e-15));
        }
        assert!(independent_merit(&lcp, &[1.0]).0.is_infinite());
    }

    #[test]
    fn case_ids_are_unique_and_named_by_family() {
        let cs = cases();
        let mut ids: Vec<&str> = cs.iter().map(|c| c.id()).collect();
        assert!(ids.iter().all(|i| i.starts_with("lcp/")));
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n);
    }

    #[test]
    fn every_case_builds_its_data() {
        for c in seed::cases().iter().chain(&tiny::cases()).chain(&classic::cases()) {
            assert!((c.build)().is_ok(), "{}", c.id);
        }
    }
}
