//! `auto`: picks an algorithm by the matrix class of M (Cottle, Pang, Stone 1992, *The Linear
//! Complementarity Problem*, ch. 3–4: which classes each method processes) and falls back to
//! the next candidate when one fails.
//!
//! # The rule
//!
//! A sparse (or Gram-form) M with n > [`LARGE_SPARSE_N`] that is symmetric first goes to the
//! probe [`GPCG_PROBE`], before any classification (the function `probe`: a stationary point of
//! ½z'Mz + q'z on z >= 0 solves the LCP for any symmetric M, and the driver checks it); when
//! the probe is not decisive, the rule below follows without it. Otherwise, and after that,
//! M is classified by [`diagnose_with`] under [`DiagnoseLimits::cheap`] (eigenvalues only up to
//! n = 200, shifted Cholesky factorisations above, which prove definite or, for the singular
//! Delassus matrix of more contacts than degrees of freedom, semidefinite; principal minors up
//! to n = 8). Candidates, in order, each used only from the crate's algorithms
//! ([`crate::algorithms::entries`]) with their defaults unless the table gives options:
//!
//! | class | candidates |
//! |---|---|
//! | symmetric positive definite, sparse, n > 5000 | `bpp`, `pgs`, `apgd`, `lemke` |
//! | symmetric positive semidefinite, sparse, n > 5000 | ([`GPCG_PROBE`]), [`IPM_CHOLESKY`], [`APGD_JACOBI`], [`PROX_NEWTON_MIN`], `qp`, `bpp` |
//! | symmetric positive semidefinite, sparse, 1000 <= n <= 5000 ([`SPARSE_IPM_MIN_N`]) | [`IPM_CHOLESKY`], `lemke`, `qp`, `bpp` |
//! | P-matrix certified (PD, diagonally dominant, minors) | `bpp`, `lemke`, `newton-fb` |
//! | symmetric positive semidefinite | `lemke`, `qp`, `ipm`, `bpp` |
//! | copositive-plus by a sufficient test | `lemke`, `ipm` |
//! | anything else | `lemke`, `newton-fb`, `bpp` |
//!
//! and for n <= [`ENUM_FALLBACK_MAX_N`] = 16 `enum` is appended last, so that a tiny problem
//! always ends with a solution or a proof. A large sparse M is never densified: when two
//! dense copies of M would exceed the memory budget ([`crate::memory`]), the solvers that
//! densify ([`DENSE_ONLY`]: `murty`, `enum`, and `lemke` above
//! [`crate::algorithms::lemke::SPARSE_BASIS_MAX_N`], below which it holds a sparse M's basis as
//! a sparse LU) are dropped from the list (every rule keeps a sparse-capable candidate); for a
//! sparse M with n > [`LARGE_SPARSE_N`] that fits, they move behind the sparse-capable
//! candidates. A candidate *succeeds* when its result is decisive:
//! `solved` (merit within tol), `infeasible` with a verified Farkas vector, or `no_solution`
//! with an enumeration certificate; otherwise (and on a setup error such as `enum` refusing
//! n > 20) the next candidate runs. The solution's `solver` field names what was tried:
//! `auto(lemke)` when the first candidate succeeded, `auto(bpp>lemke)` when `bpp` failed and
//! `lemke` produced the result; the note says which rule applied and how each try ended.
//! Iterations, pivots, matrix-vector products, factorisations and time are summed over the
//! tries; the time limit applies to all tries together. Each try starts from the caller's
//! warm start (or cold), unless an earlier try returned a z whose residual is below that of
//! every earlier start: then from the best such z (the note says so: `bpp (started from
//! gpcg:max_products=300's z): solved`). A failed try close to a solution is thus not thrown
//! away; every result is still checked by the driver.
//!
//! A Gram-form M = G G' + D ([`Lcp::from_gram`]) with n > [`LARGE_SPARSE_N`] is not
//! diagnosed (that would assemble it): it is symmetric positive semidefinite by construction,
//! and the candidates are the probe, [`IPM_CHOLESKY`] (whose Newton matrix is then
//! factorised in the p unknowns of G's columns, never assembling M:
//! [`crate::linalg::gram_newton`]), [`APGD_JACOBI`], `pgs`, then `bpp` on the assembled M
//! (memory-checked by the driver). A smaller one is assembled and classified as above. [`LcpSolver::name`] returns the spec
//! `auto` (parseable); the run-dependent `auto(...)` text goes into `Solution::solver` only.

use std::time::Duration;

use crate::algorithms::lemke;
use crate::diagnostics::{diagnose_with, Definiteness, DiagnoseLimits, Diagnostics};
use crate::memory::{self, DEFAULT_MEMORY_BUDGET};
use crate::params::SolverParams;
use crate::solver::{
    run_solver, Entry, LcpSolver, Outcome, Solution, SolveContext, SolveError, SolveOptions,
};
use crate::status::Status;
use crate::{Lcp, Matrix};

/// Default merit tolerance of `auto` (passed to every candidate).
pub const DEFAULT_TOL: f64 = 1e-10;
/// Largest n for which `enum` is the last candidate.
pub const ENUM_FALLBACK_MAX_N: usize = 16;
/// Above this n a sparse symmetric positive definite M also gets iterative candidates.
pub const LARGE_SPARSE_N: usize = 5000;

crate::solver_params! {
    /// Parameters of `auto`: none of its own (`tol`, `max_iter` and `time_limit` are the
    /// common keys, passed to every candidate).
    pub struct AutoParams for "auto" {}
}

/// The `auto` solver.
#[derive(Debug, Clone, Default)]
pub struct Auto {
    /// Its parameters.
    pub params: AutoParams,
}

impl Auto {
    /// A solver with the given parameters.
    pub fn new(params: AutoParams) -> Self {
        Self { params }
    }
}

impl Auto {
    /// This solver's registry entry.
    pub fn entry() -> Entry {
        Entry::with_params::<AutoParams, Auto>(
            "picks an algorithm by matrix class (diagnostics) and falls back on failure",
            Auto::new,
        )
    }
}

/// The first candidate for a large sparse symmetric positive semidefinite M: `gpcg` with a
/// budget of 300 products with M. On the 3D box stacks and the cubic sphere lattice it
/// solves to 1e-8 with 47 to 149 products (0.04x to 0.07x the time of `qp`, 2 % to 4 % of
/// the time of Jacobi `apgd`); on the 2D packings and the FCC pile it needs 15 000 to 22 000
/// products or does not converge, and the probe costs about 5 % of the `apgd` solve that
/// follows (docs/performance.md, "Gradient projection with CG").
pub const GPCG_PROBE: &str = "gpcg:max_products=300";

/// The second candidate for a large sparse symmetric positive semidefinite M: `ipm` with its
/// Newton matrix factorised by a sparse Cholesky, refused (in the time of the symbolic
/// analysis) when the factor would hold more than 100 times the entries of the matrix. Fill
/// measured with the AMD ordering (docs/performance.md, "Interior point with a sparse
/// Cholesky"): 6 on the 2D packings at 10^4 and 14.5 at 10^5, 22 to 27 on the 3D lattices
/// and piles at 10^4, 68 to 95 at 10^5, where one factorisation took 1.6 to 6.1 s and `ipm`
/// on the FCC pile then stalled after 442 s against 226 to 307 s for Jacobi `apgd`.
///
/// The limit was 30 until 2026-12-06: since `ipm`'s Δw on active rows and the nested
/// dissection ordering, `ipm` solves the FCC pile at n = 101 110 (fill 79.2 times the
/// triangle, 40.7 M entries of L) in 53.3 s with 37 factorisations, where `auto` with the
/// limit 30 went on to Jacobi `apgd` and took 111.5 s (docs/performance.md, growth table).
pub const IPM_CHOLESKY: &str = "ipm:max_fill=100";

/// From this n on (to [`LARGE_SPARSE_N`]) a sparse symmetric positive semidefinite M goes to
/// [`IPM_CHOLESKY`] before `lemke`: on the singular packings at n of about 1000 `ipm` took 4 to
/// 16 ms where `lemke`'s dense tableau, first before, took 103 to 214 ms (700 to 830 pivots;
/// docs/performance.md, growth table).
pub const SPARSE_IPM_MIN_N: usize = 1000;

/// The third candidate for a large sparse symmetric positive semidefinite M: `apgd` with
/// Jacobi scaling, 15 to 45 % fewer iterations than unscaled `apgd` on the packings and box
/// stacks measured (docs/performance.md).
pub const APGD_JACOBI: &str = "apgd:scaling=jacobi";

/// The fourth candidate for a large sparse symmetric positive semidefinite M (the singular
/// Delassus matrix of a packing), after `apgd`: proximal Newton-min after 200 projected
/// Gauss–Seidel sweeps, whose principal systems are definite for every free set. Measured on
/// the packings (docs/performance.md, "Singular W: which solver, and the rule of auto"):
/// `apgd` solved every one (0.056x to 8.7x the time of `qp`); proximal Newton-min is about 2x
/// faster than `apgd` on the 2D hexagonal packing up to n = 10^4 but does not converge in 200
/// steps at 10^5 nor on the 3D FCC pile at 10^4 (its free set changes at every step).
pub const PROX_NEWTON_MIN: &str = "newton-min:prox=1e-4,presweeps=200";

/// Solvers that build a dense copy of M whatever its storage (`lemke` does too above
/// [`lemke::SPARSE_BASIS_MAX_N`]; see [`densifies`]).
pub const DENSE_ONLY: [&str; 2] = ["murty", "enum"];

/// True when the candidate `name` would densify this sparse M: a [`DENSE_ONLY`] solver, or
/// `lemke` with n above the largest for which its default basis is the sparse LU.
pub fn densifies(name: &str, lcp: &Lcp) -> bool {
    DENSE_ONLY.contains(&name) || (name == "lemke" && lcp.n() > lemke::SPARSE_BASIS_MAX_N)
}

/// True when a sparse M must not go to a solver that densifies it at all: two dense copies of
/// M (lemke's dense tableau) would exceed `memory_budget`.
pub fn keeps_sparse(lcp: &Lcp, memory_budget: u64) -> bool {
    lcp.is_sparse() && !memory::dense_fits(lcp, 2, memory_budget)
}

/// The rule that applied and the candidate names, in order (before the registry filter).
/// A sparse M that [`keeps_sparse`] gets no candidate that [`densifies`] it; another sparse M
/// with n > [`LARGE_SPARSE_N`] gets those last.
pub fn candidates(
    lcp: &Lcp,
    d: &Diagnostics,
    memory_budget: u64,
) -> (&'static str, Vec<&'static str>) {
    let n = lcp.n();
    let spd = d.symmetric && d.definiteness == Definiteness::PositiveDefinite;
    let psd = d.symmetric && d.definiteness == Definiteness::PositiveSemidefinite;
    let sparse = matches!(lcp.matrix(), Matrix::Sparse(_));
    let (rule, mut names): (&'static str, Vec<&'static str>) =
        if spd && sparse && n > LARGE_SPARSE_N {
            ("symmetric positive definite, large sparse", vec!["bpp", "pgs", "apgd", "lemke"])
        } else if psd && sparse && n > LARGE_SPARSE_N {
            (
                "symmetric positive semidefinite, large sparse",
                vec![GPCG_PROBE, IPM_CHOLESKY, APGD_JACOBI, PROX_NEWTON_MIN, "qp", "bpp"],
            )
        } else if psd && sparse && n >= SPARSE_IPM_MIN_N {
            ("symmetric positive semidefinite, sparse", vec![IPM_CHOLESKY, "lemke", "qp", "bpp"])
        } else if d.p_matrix == Some(true) {
            ("P-matrix", vec!["bpp", "lemke", "newton-fb"])
        } else if d.symmetric && d.definiteness.is_psd() {
            ("symmetric positive semidefinite", vec!["lemke", "qp", "ipm", "bpp"])
        } else if d.copositive_plus_sufficient {
            ("copositive-plus", vec!["lemke", "ipm"])
        } else {
            ("general", vec!["lemke", "newton-fb", "bpp"])
        };
    if n <= ENUM_FALLBACK_MAX_N {
        names.push("enum");
    }
    if keeps_sparse(lcp, memory_budget) {
        names.retain(|name| !densifies(name, lcp));
    } else if sparse && n > LARGE_SPARSE_N {
        // Densifying a large sparse M is the last resort, after every sparse-capable solver
        // (`lemke` up to SPARSE_BASIS_MAX_N pivots on a sparse LU of its basis and keeps its
        // place: on the polyhedral-friction LCPs of the `general` rule it is the one method
        // that solves them, docs/performance.md).
        let (dense, rest): (Vec<_>, Vec<_>) =
            names.into_iter().partition(|name| densifies(name, lcp));
        names = rest.into_iter().chain(dense).collect();
    }
    (rule, names)
}

/// The rule for a large Gram-form M (see the module docs).
const GRAM_RULE: &str =
    "Gram form G G' + D (symmetric positive semidefinite), large: matrix-free first";
/// Its candidates.
const GRAM_CANDIDATES: [&str; 4] = [IPM_CHOLESKY, APGD_JACOBI, "pgs", "bpp"];

/// A candidate solver with its registry name.
type Candidate = (String, Box<dyn LcpSolver>);

/// The candidates that exist in the built-in registry, built with their defaults; `bpp` when
/// none of them does.
fn plan(lcp: &Lcp, memory_budget: u64) -> (&'static str, Vec<Candidate>) {
    let (rule, names) = if lcp.gram().is_some() && lcp.n() > LARGE_SPARSE_N {
        (GRAM_RULE, GRAM_CANDIDATES.to_vec())
    } else {
        let d = diagnose_with(lcp, &DiagnoseLimits::cheap());
        candidates(lcp, &d, memory_budget)
    };
    let algorithms = crate::algorithms::entries();
    let mut built: Vec<Candidate> = names
        .iter()
        .filter_map(|&spec| {
            // A candidate is a name with the algorithm's own options (no common keys).
            let (name, pairs) = crate::params::parse_spec(spec).ok()?;
            let entry = algorithms.iter().find(|e| e.name == name)?;
            (entry.builder)(&pairs).ok().map(|s| (spec.to_string(), s))
        })
        .collect();
    if built.is_empty() {
        built.push(("bpp".into(), Box::new(crate::algorithms::bpp::Bpp::default())));
    }
    (rule, built)
}

fn decisive(status: Status) -> bool {
    matches!(status, Status::Solved | Status::Infeasible | Status::NoSolution)
}

impl LcpSolver for Auto {
    fn name(&self) -> String {
        self.params.spec()
    }

    fn default_tol(&self) -> f64 {
        DEFAULT_TOL
    }

    /// 0 means "each candidate's own default" (a context never carries 0 otherwise: the
    /// driver rejects `max_iter = 0`).
    fn default_max_iter(&self, _n: usize) -> usize {
        0
    }

    /// Each candidate goes through the driver, which checks the assembly of a Gram-form M for
    /// the candidates that read entries.
    fn matrix_free(&self) -> bool {
        true
    }

    /// Runs the candidates in the caller's context (counters and history accumulate); each
    /// claimed result is checked here before it counts as decisive.
    /// In a driver's context (`run_solver(&Auto, …)`): the same tries as [`Auto::solve`], each
    /// through the driver, with the context's tolerance, limits, warm start and memory
    /// budget; the counters of every try go into the context.
    fn run(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        let options = SolveOptions {
            tol: Some(ctx.tol),
            // 0 (this solver's default limit) leaves each candidate its own.
            max_iter: (ctx.max_iter > 0).then_some(ctx.max_iter),
            time_limit: ctx.time_left(),
            memory_budget: Some(ctx.memory_budget),
            ..SolveOptions::default()
        };
        let tries = self.tries(lcp, &options, ctx.warm_start)?;
        ctx.matvecs += tries.matvecs;
        ctx.factorizations += tries.factorizations;
        let sol = tries.last;
        Ok(Outcome {
            z: sol.z,
            status: sol.status,
            iterations: tries.iterations,
            pivots: tries.pivots,
            certificate: sol.certificate,
            all_solutions: sol.all_solutions,
            note: Some(tries.story),
        })
    }

    fn solve(
        &self,
        lcp: &Lcp,
        options: &SolveOptions,
        warm_start: Option<&[f64]>,
    ) -> Result<Solution, SolveError> {
        options.validate()?;
        if lcp.n() == 0 {
            let mut sol =
                run_solver(&crate::algorithms::bpp::Bpp::default(), lcp, options, warm_start)?;
            sol.solver = "auto(trivial)".into();
            return Ok(sol);
        }
        let options =
            SolveOptions { tol: Some(options.tol.unwrap_or(DEFAULT_TOL)), ..options.clone() };
        let tries = self.tries(lcp, &options, warm_start)?;
        let mut sol = tries.last;
        sol.solver = format!("auto({})", tries.tried.join(">"));
        sol.iterations = tries.iterations;
        sol.matvecs = tries.matvecs;
        sol.factorizations = tries.factorizations;
        sol.pivots = tries.pivots;
        sol.solve_seconds = tries.spent.as_secs_f64();
        sol.note = Some(tries.story);
        Ok(sol)
    }
}

/// What the candidates of one `auto` run did: the last result, and the sums over the tries.
struct Tries {
    last: Solution,
    tried: Vec<String>,
    /// The rule and how each try ended (with the last one's own note).
    story: String,
    spent: Duration,
    iterations: usize,
    matvecs: usize,
    factorizations: usize,
    pivots: Option<usize>,
}

/// The probe that runs before the classification, when there is one: [`GPCG_PROBE`] for a
/// sparse or Gram-form M with n > [`LARGE_SPARSE_N`] that is symmetric (to 1e-12 relative).
/// `gpcg` needs no class: a stationary point of ½z'Mz + q'z on z >= 0 solves the LCP for any
/// symmetric M, and the driver checks the result; on a non-convex M it stops at a direction
/// of negative curvature or at its product budget. When it solves, the classification (two
/// sparse Cholesky factorisations above n = 200) is skipped.
fn probe(lcp: &Lcp) -> Option<Candidate> {
    let large_sparse = lcp.n() > LARGE_SPARSE_N
        && (lcp.gram().is_some() || matches!(lcp.matrix(), Matrix::Sparse(_)));
    if !large_sparse
        || (lcp.gram().is_none() && crate::linalg::symmetry::asymmetry(lcp, 1e-12).is_some())
    {
        return None;
    }
    let (name, pairs) = crate::params::parse_spec(GPCG_PROBE).ok()?;
    let entry = crate::algorithms::entries().into_iter().find(|e| e.name == name)?;
    (entry.builder)(&pairs).ok().map(|s| (GPCG_PROBE.to_string(), s))
}

/// The rule named when the probe solved before any classification.
const PROBE_RULE: &str = "large sparse symmetric: gpcg probe before the classification";

/// The running account of one `auto` run's tries.
struct Account<'o> {
    options: &'o SolveOptions,
    /// The start of the next try: the caller's warm start, or the z of an earlier try whose
    /// residual is below that of every earlier start (`from` names that try).
    warm: Option<Vec<f64>>,
    warm_residual: f64,
    from: Option<String>,
    acc: Option<Solution>,
    tried: Vec<String>,
    story: Vec<String>,
    spent: Duration,
    iterations: usize,
    matvecs: usize,
    factorizations: usize,
    pivots: Option<usize>,
    first_error: Option<SolveError>,
}

impl<'o> Account<'o> {
    fn new(lcp: &Lcp, options: &'o SolveOptions, warm_start: Option<&[f64]>) -> Self {
        let zeros;
        let start = match warm_start {
            Some(z) => z,
            None => {
                zeros = vec![0.0; lcp.n()];
                &zeros
            }
        };
        // A warm start of the wrong length is the driver's error to report, at the first try.
        let warm_residual = if start.len() == lcp.n() {
            crate::merit::evaluate_uncounted(lcp, start).1.residual
        } else {
            f64::INFINITY
        };
        Self {
            options,
            warm: warm_start.map(<[f64]>::to_vec),
            warm_residual: if warm_residual.is_nan() { f64::INFINITY } else { warm_residual },
            from: None,
            acc: None,
            tried: Vec::new(),
            story: Vec::new(),
            spent: Duration::ZERO,
            iterations: 0,
            matvecs: 0,
            factorizations: 0,
            pivots: None,
            first_error: None,
        }
    }

    /// Runs one candidate through the driver [`run_solver`] (which checks its result) with
    /// the time left; true when the run is over (a decisive result, or the time limit passed
    /// with a result in hand).
    fn attempt(&mut self, lcp: &Lcp, name: &str, solver: &dyn LcpSolver) -> bool {
        // Once the limit has passed, stop after the first result; before any result, the
        // next candidate runs with zero time left and reports `time_limit` itself (a limit
        // that rounds to zero nanoseconds left no result at all and was an error).
        let time_limit = match self.options.time_limit {
            Some(t) if self.spent >= t && self.acc.is_some() => return true,
            Some(t) => Some(t.saturating_sub(self.spent)),
            None => None,
        };
        let opts = SolveOptions { time_limit, ..self.options.clone() };
        let sol = match run_solver(solver, lcp, &opts, self.warm.as_deref()) {
            Ok(s) => s,
            Err(e) => {
                self.story.push(format!("{name}: {e}"));
                self.first_error.get_or_insert(e);
                return false;
            }
        };
        self.tried.push(name.to_string());
        let start = match &self.from {
            Some(from) => format!(" (started from {from}'s z)"),
            None => String::new(),
        };
        self.story.push(format!("{name}{start}: {}", sol.status));
        if sol.residual() < self.warm_residual {
            self.warm_residual = sol.residual();
            self.warm = Some(sol.z.clone());
            self.from = Some(name.to_string());
        }
        self.spent += Duration::from_secs_f64(sol.solve_seconds);
        self.iterations += sol.iterations;
        self.matvecs += sol.matvecs;
        self.factorizations += sol.factorizations;
        if let Some(p) = sol.pivots {
            self.pivots = Some(self.pivots.unwrap_or(0) + p);
        }
        let done = decisive(sol.status);
        self.acc = Some(sol);
        done
    }
}

impl Auto {
    /// Runs the probe ([`probe`]) and then the candidates of the rule in order, each through
    /// the driver, until one is decisive; the time limit applies to all tries together, and
    /// the classification counts towards it.
    fn tries(
        &self,
        lcp: &Lcp,
        options: &SolveOptions,
        warm_start: Option<&[f64]>,
    ) -> Result<Tries, SolveError> {
        let mut account = Account::new(lcp, options, warm_start);
        let probed = probe(lcp);
        let mut rule = None;
        if let Some((name, solver)) = &probed {
            if account.attempt(lcp, name, solver.as_ref()) {
                rule = Some(PROBE_RULE);
            }
        }
        if rule.is_none() {
            let clock = std::time::Instant::now();
            let (r, plan) = plan(lcp, options.memory_budget.unwrap_or(DEFAULT_MEMORY_BUDGET));
            account.spent += clock.elapsed();
            rule = Some(r);
            for (name, solver) in &plan {
                if probed.as_ref().is_some_and(|(p, _)| p == name) {
                    continue;
                }
                if account.attempt(lcp, name, solver.as_ref()) {
                    break;
                }
            }
        }
        let rule = rule.unwrap_or_default();
        let Account { acc, tried, story, spent, iterations, matvecs, factorizations, .. } = account;
        let Some(mut last) = acc else {
            return Err(account.first_error.unwrap_or(SolveError::Unsupported {
                solver: self.name(),
                reason: "no candidate solver could take this problem".into(),
            }));
        };
        let mut note = format!("auto: rule `{rule}`; tried {}", story.join(", "));
        if let Some(inner) = last.note.take() {
            note.push_str(&format!("; last: {inner}"));
        }
        let pivots = account.pivots;
        Ok(Tries { last, tried, story: note, spent, iterations, matvecs, factorizations, pivots })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate;
    use crate::{LcpSolver, SolverParams};

    fn solve(lcp: &Lcp) -> Solution {
        Auto::default().solve(lcp, &SolveOptions::default(), None).expect("setup")
    }

    /// The driver's own path (`run_solver(&Auto, …)`, the in-context `run`) makes the same
    /// tries as `solve`, each through the driver: the same answer and the same counters.
    #[test]
    fn in_context_run_composes_through_the_driver() {
        let lcp = Lcp::from_dense_rows(&[vec![-1.0]], vec![-1.0]).expect("valid");
        let direct = solve(&lcp);
        let driven =
            run_solver(&Auto::default(), &lcp, &SolveOptions::default(), None).expect("setup");
        assert_eq!(driven.status, direct.status);
        assert_eq!(driven.certificate.is_some(), direct.certificate.is_some());
        assert_eq!(driven.iterations, direct.iterations);
        assert_eq!(driven.pivots, direct.pivots);
        assert!(driven.note.as_deref().is_some_and(|n| n.contains("tried")), "{:?}", driven.note);
        let lcp = generate::random_spd(12, 4);
        let direct = solve(&lcp);
        let driven =
            run_solver(&Auto::default(), &lcp, &SolveOptions::default(), None).expect("setup");
        assert_eq!(driven.status, Status::Solved);
        assert_eq!(driven.z, direct.z);
        assert_eq!(driven.factorizations, direct.factorizations);
        assert!(driven.factorizations > 0);
    }

    #[test]
    fn p_matrix_goes_to_bpp() {
        let sol = solve(&generate::random_spd(10, 2));
        assert_eq!(sol.status, Status::Solved);
        assert_eq!(sol.solver, "auto(bpp)");
        assert!(sol.residual() <= 1e-10);
        let d = diagnose_with(&generate::murty_exponential(6), &DiagnoseLimits::cheap());
        assert_eq!(
            candidates(&generate::murty_exponential(6), &d, DEFAULT_MEMORY_BUDGET).1[0],
            "bpp"
        );
    }

    #[test]
    fn mid_sized_sparse_singular_psd_goes_to_ipm_before_lemke() {
        let lcp = banded_singular_psd(SPARSE_IPM_MIN_N * 2);
        let d = diagnose_with(&lcp, &DiagnoseLimits::cheap());
        let (rule, names) = candidates(&lcp, &d, DEFAULT_MEMORY_BUDGET);
        assert_eq!(rule, "symmetric positive semidefinite, sparse");
        assert_eq!(names, [IPM_CHOLESKY, "lemke", "qp", "bpp"]);
        let sol = solve(&lcp);
        assert_eq!(sol.status, Status::Solved, "{:?}", sol.note);
        assert_eq!(sol.solver, format!("auto({IPM_CHOLESKY})"));
        // Below SPARSE_IPM_MIN_N the small-PSD rule keeps lemke first.
        let small = banded_singular_psd(SPARSE_IPM_MIN_N / 2);
        let d = diagnose_with(&small, &DiagnoseLimits::cheap());
        assert_eq!(candidates(&small, &d, DEFAULT_MEMORY_BUDGET).1[0], "lemke");
    }

    #[test]
    fn large_sparse_general_m_keeps_lemke_first_while_its_basis_is_sparse() {
        // Tridiagonal, nonsymmetric, not diagonally dominant: the `general` rule. At n = 6000
        // (> LARGE_SPARSE_N, and the dense tableau fits the budget) lemke pivots on a sparse
        // LU and keeps its place; a solver that densifies moves last, or out over the budget.
        let n = LARGE_SPARSE_N + 1000;
        let lcp = generate::tridiagonal(|_| 1.0, -2.0, -1.5, vec![-1.0; n]);
        let d = diagnose_with(&lcp, &DiagnoseLimits::cheap());
        let (rule, names) = candidates(&lcp, &d, DEFAULT_MEMORY_BUDGET);
        assert_eq!(rule, "general");
        assert_eq!(names, ["lemke", "newton-fb", "bpp"]);
        assert!(!densifies("lemke", &lcp));
        assert!(densifies("murty", &lcp));
    }

    #[test]
    fn failure_falls_through_to_a_proof() {
        // Seed A2: M = -1, q = -1 has no solution; bpp cannot prove it, enum can.
        let lcp = Lcp::from_dense_rows(&[vec![-1.0]], vec![-1.0]).expect("valid");
        let sol = solve(&lcp);
        assert!(
            matches!(sol.status, Status::Infeasible | Status::NoSolution),
            "{:?} {:?}",
            sol.status,
            sol.note
        );
        assert!(sol.solver.starts_with("auto("));
        assert!(sol.note.as_deref().is_some_and(|n| n.contains("rule `general`")));
    }

    #[test]
    fn singular_psd_is_solved() {
        // lcp_CPS_1: bpp hits a singular M_FF; another candidate (lemke, or enum) solves it.
        let lcp = Lcp::from_dense_rows(&[vec![1.0, 1.0], vec![1.0, 1.0]], vec![-1.0, -1.0])
            .expect("valid");
        let sol = solve(&lcp);
        assert_eq!(sol.status, Status::Solved, "{:?}", sol.note);
        assert!((sol.z[0] + sol.z[1] - 1.0).abs() < 1e-9);
    }

    /// M = J J' with J of size 6000 x 3000 (two neighbouring entries per row, so M is banded):
    /// sparse, symmetric and singular, as the Delassus matrix of more contacts than degrees
    /// of freedom. q = w* - M z* for a strictly complementary (z*, w*).
    fn banded_singular_psd(n: usize) -> Lcp {
        let m = n / 2;
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 11) as f64 / (1u64 << 53) as f64
        };
        let jac: Vec<[(usize, f64); 2]> = (0..n)
            .map(|i| {
                let c = (i / 2).min(m - 2);
                [(c, 0.5 + next()), (c + 1, -0.5 - next())]
            })
            .collect();
        let mut by_col: Vec<Vec<(usize, f64)>> = vec![Vec::new(); m];
        for (i, row) in jac.iter().enumerate() {
            for &(c, v) in row {
                by_col[c].push((i, v));
            }
        }
        let mut entries = std::collections::BTreeMap::new();
        for col in &by_col {
            for &(i, a) in col {
                for &(j, b) in col {
                    *entries.entry((i, j)).or_insert(0.0) += a * b;
                }
            }
        }
        let (mut ri, mut ci, mut vals) = (Vec::new(), Vec::new(), Vec::new());
        for (&(i, j), &v) in &entries {
            ri.push(i);
            ci.push(j);
            vals.push(v);
        }
        let z: Vec<f64> = (0..n).map(|i| if i % 3 == 0 { 0.5 + next() } else { 0.0 }).collect();
        let q: Vec<f64> = (0..n)
            .map(|i| {
                let mz: f64 = entries.range((i, 0)..(i + 1, 0)).map(|(&(_, j), v)| v * z[j]).sum();
                let w = if z[i] > 0.0 { 0.0 } else { 0.1 + next() };
                w - mz
            })
            .collect();
        Lcp::from_coo(n, &ri, &ci, &vals, q).expect("valid")
    }

    /// A large sparse singular PSD M is proved semidefinite by the shifted Cholesky test and
    /// goes to `gpcg` with its product budget, then the Cholesky `ipm` with its fill limit,
    /// then `apgd` with Jacobi scaling, then proximal Newton-min. The probe solves this one within its budget; each fallback solves it too,
    /// and the probe with a budget too small ends `max_iterations`, saying why.
    #[test]
    fn large_sparse_singular_psd_goes_to_gpcg_ipm_apgd_then_proximal_newton_min() {
        let lcp = banded_singular_psd(6000);
        let d = diagnose_with(&lcp, &DiagnoseLimits::cheap());
        assert!(d.symmetric);
        assert_eq!(d.definiteness, Definiteness::PositiveSemidefinite);
        let (rule, names) = candidates(&lcp, &d, DEFAULT_MEMORY_BUDGET);
        assert_eq!(rule, "symmetric positive semidefinite, large sparse");
        assert_eq!(names[..4], [GPCG_PROBE, IPM_CHOLESKY, APGD_JACOBI, PROX_NEWTON_MIN]);
        let sol = solve(&lcp);
        assert_eq!(sol.status, Status::Solved, "{:?}", sol.note);
        assert_eq!(sol.solver, format!("auto({GPCG_PROBE})"), "{:?}", sol.note);
        assert!(sol.residual() <= DEFAULT_TOL);
        assert!(sol.matvecs <= 300 + 500 + 61, "{}", sol.matvecs);
        let note = sol.note.as_deref().unwrap_or_default();
        assert!(note.contains(PROBE_RULE), "{note}");
        let options = SolveOptions { tol: Some(DEFAULT_TOL), ..SolveOptions::default() };
        for spec in [IPM_CHOLESKY, APGD_JACOBI, PROX_NEWTON_MIN] {
            let solver = crate::Registry::builtin().build(spec).expect("spec");
            let sol = solver.solve(&lcp, &options, None).expect("setup");
            assert_eq!(sol.status, Status::Solved, "{spec}: {:?}", sol.note);
        }
        let starved = crate::Registry::builtin().build("gpcg:max_products=2").expect("spec");
        let sol = starved.solve(&lcp, &options, None).expect("setup");
        assert_eq!(sol.status, Status::MaxIterations, "{:?}", sol.note);
        assert!(
            sol.note.as_deref().is_some_and(|n| n.contains("product budget")),
            "{:?}",
            sol.note
        );
    }

    /// The probe runs before the classification only for a large sparse symmetric M; on a
    /// symmetric M with no solution (M = -I, q = -1: w = -z - 1 < 0) it ends at a direction of
    /// negative curvature and the classified rule follows, without the probe a second time.
    #[test]
    fn the_gpcg_probe_runs_first_only_on_large_sparse_symmetric_m() {
        let n = LARGE_SPARSE_N + 1;
        let idx: Vec<usize> = (0..n).collect();
        let diag =
            |v: f64, q: f64| Lcp::from_coo(n, &idx, &idx, &vec![v; n], vec![q; n]).expect("valid");
        assert!(probe(&diag(1.0, -1.0)).is_some());
        let small = Lcp::from_coo(3, &[0, 1, 2], &[0, 1, 2], &[1.0; 3], vec![-1.0; 3]);
        assert!(probe(&small.expect("valid")).is_none());
        let mut rows = idx.clone();
        let mut cols = idx.clone();
        let mut vals = vec![2.0; n];
        rows.push(0);
        cols.push(1);
        vals.push(1.0);
        let asymmetric = Lcp::from_coo(n, &rows, &cols, &vals, vec![-1.0; n]).expect("valid");
        assert!(probe(&asymmetric).is_none());
        let sol = solve(&asymmetric);
        assert_eq!(sol.status, Status::Solved, "{:?}", sol.note);
        assert!(!sol.solver.contains("gpcg"), "{}", sol.solver);

        let options = SolveOptions {
            tol: Some(DEFAULT_TOL),
            memory_budget: Some(1 << 20),
            ..SolveOptions::default()
        };
        let sol = Auto::default().solve(&diag(-1.0, -1.0), &options, None).expect("runs");
        assert_ne!(sol.status, Status::Solved, "{:?}", sol.note);
        let note = sol.note.as_deref().unwrap_or_default();
        assert!(sol.solver.starts_with(&format!("auto({GPCG_PROBE}>")), "{}", sol.solver);
        assert_eq!(sol.solver.matches("gpcg").count(), 1, "{}", sol.solver);
        assert!(note.contains("rule `general`"), "{note}");
        assert!(note.contains(&format!("{GPCG_PROBE}: numerical_failure")), "{note}");
    }

    /// A try that fails but gets closer hands its z to the next one: on a tridiagonal SPD M
    /// (n = 6000, condition number about 4000) the probe runs out of its 300 products with a
    /// smaller residual than z = 0, and `bpp` starts from its z.
    #[test]
    fn the_next_try_starts_from_the_best_earlier_z() {
        let n = LARGE_SPARSE_N + 1000;
        let q: Vec<f64> = (0..n).map(|i| if i % 7 == 3 { 0.5 } else { -1.0 }).collect();
        let lcp = generate::tridiagonal(|_| 2.001, -1.0, -1.0, q);
        let sol = solve(&lcp);
        assert_eq!(sol.status, Status::Solved, "{:?}", sol.note);
        let note = sol.note.as_deref().unwrap_or_default();
        assert!(note.contains(&format!("{GPCG_PROBE}: max_iterations")), "{note}");
        assert!(note.contains(&format!("(started from {GPCG_PROBE}'s z)")), "{note}");
    }

    #[test]
    fn run_in_a_context_also_falls_back() {
        let lcp = Lcp::from_dense_rows(&[vec![1.0, 1.0], vec![1.0, 1.0]], vec![-1.0, -1.0])
            .expect("valid");
        let mut ctx = SolveContext::new(1e-9, 0);
        let o = Auto::default().run(&lcp, &mut ctx).expect("runs");
        assert_eq!(o.status, Status::Solved);
        assert!(crate::evaluate(&lcp, &o.z).1.residual <= 1e-9);
    }

    #[test]
    fn name_is_a_spec() {
        assert_eq!(Auto::default().name(), "auto");
        let s = crate::Registry::builtin().build("auto:tol=1e-8").expect("spec");
        assert_eq!(s.name(), "auto:tol=1e-8");
        assert!(AutoParams::from_pairs(&[("omega".into(), "1".into())]).is_err());
    }
}
