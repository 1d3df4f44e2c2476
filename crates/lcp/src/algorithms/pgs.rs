//! Projected Gauss–Seidel (`pgs`), projected successive over-relaxation (`psor`) and the
//! symmetric forward + backward sweep (`sgs`) for LCP(M, q) with positive diagonal
//! (Cottle, Pang, Stone 1992, *The Linear Complementarity Problem*, §5.2, Algorithm 5.2.1 with
//! relaxation ω; Mangasarian 1977, "Solution of symmetric linear complementarity problems by
//! iterative methods", JOTA 22).
//!
//! One sweep updates, for i = 1..n in turn (the symmetric sweep then runs i = n..1),
//! $z_i \leftarrow \max(0,\; z_i - \omega\, w_i / m_{ii})$ with $w_i = q_i + \sum_j m_{ij} z_j$
//! computed from the newest z. It converges for symmetric positive semidefinite M with
//! solutions (0 < ω < 2) and for strictly diagonally dominant M (ω = 1), and may diverge
//! otherwise; divergence ends the run as `numerical_failure`.
//!
//! The sweep reads sparse M through its compressed rows in place; dense M is copied once into a
//! row-major buffer. The cheap in-loop measure (recorded every sweep) is the relative change
//! max_i |Δz_i| / max_i |z_i|; the exact merit (one more product with M, counted) is computed
//! every `check_every` sweeps, when the change has fallen to round-off, and at the last sweep,
//! and decides convergence.

use faer::sparse::SparseRowMat;

use crate::merit::evaluate;
use crate::registry::{canonical_name, ParamDoc, Registry, SolverParams, SpecError};
use crate::solver::{LcpSolver, Outcome, SolveContext, SolveError};
use crate::status::Status;
use crate::{Lcp, Matrix};

/// Rows of M as the sweeps read them: the CSR of a sparse M in place, or a row-major copy of
/// a dense M made once.
#[derive(Debug)]
pub(crate) enum Rows<'a> {
    /// Compressed rows, borrowed.
    Sparse(&'a SparseRowMat<usize, f64>),
    /// Row-major copy of a dense M.
    Dense {
        /// Size.
        n: usize,
        /// Entry (i, j) at i n + j.
        data: Vec<f64>,
    },
}

impl<'a> Rows<'a> {
    /// Rows of the problem's M.
    pub(crate) fn new(lcp: &'a Lcp) -> Self {
        match lcp.matrix() {
            Matrix::Sparse(s) => Rows::Sparse(s),
            Matrix::Dense(d) => {
                let n = d.nrows();
                let mut data = vec![0.0; n * n];
                for j in 0..n {
                    for (i, &v) in d.col(j).iter().enumerate() {
                        data[i * n + j] = v;
                    }
                }
                Rows::Dense { n, data }
            }
        }
    }

    /// Sum_j m_ij z_j.
    #[inline]
    pub(crate) fn dot(&self, i: usize, z: &[f64]) -> f64 {
        match self {
            Rows::Sparse(s) => {
                let cols = s.col_idx_of_row_raw(i);
                let vals = s.val_of_row(i);
                let mut acc = 0.0;
                for (&j, &v) in cols.iter().zip(vals) {
                    acc += v * z[j];
                }
                acc
            }
            Rows::Dense { n, data } => {
                let row = &data[i * n..(i + 1) * n];
                row.iter().zip(z).map(|(a, b)| a * b).sum()
            }
        }
    }

    /// Calls `f(j, m_ij)` for every stored entry of row i.
    pub(crate) fn for_each(&self, i: usize, mut f: impl FnMut(usize, f64)) {
        match self {
            Rows::Sparse(s) => {
                for (&j, &v) in s.col_idx_of_row_raw(i).iter().zip(s.val_of_row(i)) {
                    f(j, v);
                }
            }
            Rows::Dense { n, data } => {
                for (j, &v) in data[i * n..(i + 1) * n].iter().enumerate() {
                    f(j, v);
                }
            }
        }
    }
}

/// The diagonal of M, or the first row whose diagonal entry is not positive (PGS divides by
/// m_ii and converges only when every m_ii > 0).
pub(crate) fn positive_diagonal(rows: &Rows<'_>, n: usize) -> Result<Vec<f64>, String> {
    let mut diag = vec![0.0; n];
    for (i, d) in diag.iter_mut().enumerate() {
        rows.for_each(i, |j, v| {
            if j == i {
                *d += v;
            }
        });
        if d.is_nan() || *d <= 0.0 {
            return Err(format!(
                "row {i}: diagonal entry M[{i}][{i}] = {d} is not positive; splitting methods \
                 divide by it (need m_ii > 0)"
            ));
        }
    }
    Ok(diag)
}

/// The starting point: the warm start projected onto z >= 0, or zero.
pub(crate) fn starting_point(ctx: &SolveContext<'_>, n: usize) -> Vec<f64> {
    match ctx.warm_start {
        Some(z0) => z0.iter().map(|&v| v.max(0.0)).collect(),
        None => vec![0.0; n],
    }
}

/// What one sweep did: max |Δz_i|, max |z_i| after it, and whether every z_i stayed finite.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SweepInfo {
    /// max_i |Δz_i|.
    pub max_change: f64,
    /// max_i |z_i| after the sweep.
    pub max_abs: f64,
    /// Every z_i finite.
    pub finite: bool,
}

impl SweepInfo {
    /// No change yet.
    pub(crate) const ZERO: SweepInfo = SweepInfo { max_change: 0.0, max_abs: 0.0, finite: true };

    /// Both sweeps' figures together (max, max, and): exact and order independent.
    #[inline]
    pub(crate) fn merge(self, o: SweepInfo) -> SweepInfo {
        SweepInfo {
            max_change: self.max_change.max(o.max_change),
            max_abs: self.max_abs.max(o.max_abs),
            finite: self.finite && o.finite,
        }
    }

    /// Folds in one updated coordinate.
    #[inline]
    pub(crate) fn push(&mut self, old: f64, new: f64) {
        self.max_change = self.max_change.max((new - old).abs());
        self.max_abs = self.max_abs.max(new.abs());
        self.finite &= new.is_finite();
    }
}

/// max(0, t) that keeps NaN (so divergence is seen, not projected away).
#[inline]
pub(crate) fn project(t: f64) -> f64 {
    if t < 0.0 {
        0.0
    } else {
        t
    }
}

/// One relaxed projected update of coordinate i; returns the new z_i.
#[inline]
fn update(rows: &Rows<'_>, q: &[f64], diag: &[f64], omega: f64, z: &mut [f64], i: usize) -> f64 {
    let w = q[i] + rows.dot(i, z);
    let new = project(z[i] - omega * w / diag[i]);
    z[i] = new;
    new
}

/// Forward sweep i = 0..n.
pub(crate) fn sweep_forward(
    rows: &Rows<'_>,
    q: &[f64],
    diag: &[f64],
    omega: f64,
    z: &mut [f64],
) -> SweepInfo {
    let mut info = SweepInfo::ZERO;
    for i in 0..z.len() {
        let old = z[i];
        let new = update(rows, q, diag, omega, z, i);
        info.push(old, new);
    }
    info
}

/// Backward sweep i = n-1..0.
pub(crate) fn sweep_backward(
    rows: &Rows<'_>,
    q: &[f64],
    diag: &[f64],
    omega: f64,
    z: &mut [f64],
) -> SweepInfo {
    let mut info = SweepInfo::ZERO;
    for i in (0..z.len()).rev() {
        let old = z[i];
        let new = update(rows, q, diag, omega, z, i);
        info.push(old, new);
    }
    info
}

/// How the shared loop runs a splitting method.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LoopSettings {
    /// Exact merit every this many sweeps.
    pub check_every: usize,
    /// Products with M one sweep costs (1 for a forward sweep, 2 for a symmetric one).
    pub matvecs_per_sweep: usize,
}

/// Maps a z in a solver's own ordering back to the problem's ordering.
pub(crate) type Unpermute<'a> = &'a (dyn Fn(&[f64]) -> Vec<f64> + Sync);

/// The loop every splitting method shares: sweep, record the cheap measure, check the exact
/// merit every `check_every` sweeps, stop on success, round-off stagnation, divergence, time
/// or iteration limit. `sweep` works on `z` in its own ordering; `to_original` maps such a z to
/// the problem's ordering (`None`: the same ordering).
pub(crate) fn iterate(
    lcp: &Lcp,
    ctx: &mut SolveContext<'_>,
    mut z: Vec<f64>,
    settings: LoopSettings,
    mut sweep: impl FnMut(&mut [f64]) -> SweepInfo,
    to_original: Option<Unpermute<'_>>,
) -> Outcome {
    let max_iter = ctx.max_iter;
    let original = |z: &[f64]| match to_original {
        Some(f) => f(z),
        None => z.to_vec(),
    };
    for it in 1..=max_iter {
        let info = sweep(&mut z);
        ctx.matvecs += settings.matvecs_per_sweep;
        if !info.finite {
            let mut o = Outcome::new(original(&z), Status::NumericalFailure, it);
            o.note = Some(format!(
                "sweep {it}: z became non-finite (the iteration diverges; M is not suited to \
                 splitting methods, e.g. neither symmetric PSD nor diagonally dominant)"
            ));
            return o;
        }
        let measure = if info.max_abs > 0.0 { info.max_change / info.max_abs } else { 0.0 };
        if ctx.records_history() {
            if to_original.is_some() && ctx.wants_exact(it) {
                let zo = original(&z);
                ctx.record(lcp, it, measure, &zo);
            } else {
                ctx.record(lcp, it, measure, &z);
            }
        }
        let at_roundoff = info.max_change <= f64::EPSILON * info.max_abs;
        if it % settings.check_every == 0 || at_roundoff || it == max_iter {
            ctx.matvecs += 1;
            let zo = original(&z);
            let (w, merit) = evaluate(lcp, &zo);
            let residual = merit.residual;
            if ctx.converged(lcp, &zo, &w, residual) {
                return Outcome::new(zo, Status::Solved, it);
            }
            if at_roundoff {
                let mut o = Outcome::new(zo, Status::Stalled, it);
                o.note = Some(format!(
                    "sweep {it}: z no longer changes (relative change {measure:.1e}) but the \
                     residual {residual:.3e} exceeds tol {:.1e}",
                    ctx.tol
                ));
                return o;
            }
        }
        if ctx.time_exceeded() {
            return Outcome::new(original(&z), Status::TimeLimit, it);
        }
    }
    Outcome::new(original(&z), Status::MaxIterations, max_iter)
}

/// Sweep direction of the plain splitting methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// i = 1..n.
    Forward,
    /// i = 1..n then i = n..1.
    Symmetric,
}

/// Runs a plain (forward or symmetric) relaxed sweep method.
fn run_sweeps(
    lcp: &Lcp,
    ctx: &mut SolveContext<'_>,
    omega: f64,
    check_every: usize,
    direction: Direction,
) -> Outcome {
    let n = lcp.n();
    let rows = Rows::new(lcp);
    let diag = match positive_diagonal(&rows, n) {
        Ok(d) => d,
        Err(msg) => {
            let mut o = Outcome::new(vec![0.0; n], Status::NumericalFailure, 0);
            o.note = Some(msg);
            return o;
        }
    };
    let z = starting_point(ctx, n);
    let q = lcp.q();
    let matvecs_per_sweep = match direction {
        Direction::Forward => 1,
        Direction::Symmetric => 2,
    };
    let settings = LoopSettings { check_every, matvecs_per_sweep };
    let sweep = |z: &mut [f64]| match direction {
        Direction::Forward => sweep_forward(&rows, q, &diag, omega, z),
        Direction::Symmetric => sweep_forward(&rows, q, &diag, omega, z)
            .merge(sweep_backward(&rows, q, &diag, omega, z)),
    };
    iterate(lcp, ctx, z, settings, sweep, None)
}

/// Formats a float so that it parses back to the same value, preferring the shorter form.
pub(crate) fn fmt_f64(v: f64) -> String {
    let plain = format!("{v}");
    let sci = format!("{v:e}");
    if sci.len() < plain.len() {
        sci
    } else {
        plain
    }
}

/// Default merit tolerance of the splitting methods.
pub const DEFAULT_TOL: f64 = 1e-8;
/// Default sweep limit of the splitting methods.
pub const DEFAULT_MAX_ITER: usize = 10_000;
/// Default number of sweeps between exact merit checks.
pub const DEFAULT_CHECK_EVERY: usize = 10;

/// Parses a relaxation factor in the open interval (0, 2).
pub(crate) fn parse_omega<P: SolverParams>(key: &str, value: &str) -> Result<f64, SpecError> {
    let v = P::parse_f64(key, value)?;
    if v > 0.0 && v < 2.0 {
        Ok(v)
    } else {
        Err(P::bad(key, value, "expected a relaxation factor in (0, 2)"))
    }
}

macro_rules! sweep_method {
    (
        $(#[$pdoc:meta])* params $params:ident;
        $(#[$sdoc:meta])* solver $solver:ident;
        name $name:literal; omega $omega:expr; direction $dir:expr;
    ) => {
        $(#[$pdoc])*
        #[derive(Debug, Clone, PartialEq)]
        pub struct $params {
            /// Merit tolerance (default 1e-8).
            pub tol: f64,
            /// Sweep limit (default 10000).
            pub max_iter: usize,
            /// Relaxation factor ω in (0, 2) (default given in the type's documentation).
            pub omega: f64,
            /// Sweeps between exact merit checks (default 10).
            pub check_every: usize,
        }

        impl Default for $params {
            fn default() -> Self {
                Self {
                    tol: DEFAULT_TOL,
                    max_iter: DEFAULT_MAX_ITER,
                    omega: $omega,
                    check_every: DEFAULT_CHECK_EVERY,
                }
            }
        }

        impl SolverParams for $params {
            const SOLVER: &'static str = $name;
            const KEYS: &'static [ParamDoc] = &[
                ParamDoc { key: "tol", default: "1e-8", doc: "merit tolerance" },
                ParamDoc { key: "max_iter", default: "10000", doc: "sweep limit" },
                ParamDoc {
                    key: "omega",
                    default: stringify!($omega),
                    doc: "relaxation factor in (0, 2)",
                },
                ParamDoc {
                    key: "check_every",
                    default: "10",
                    doc: "sweeps between exact merit checks",
                },
            ];

            fn set(&mut self, key: &str, value: &str) -> Result<(), SpecError> {
                match key {
                    "tol" => self.tol = Self::parse_positive(key, value)?,
                    "max_iter" => self.max_iter = Self::parse_count(key, value)?,
                    "omega" => self.omega = parse_omega::<Self>(key, value)?,
                    "check_every" => self.check_every = Self::parse_count(key, value)?,
                    _ => return Err(Self::bad(key, value, "unknown key")),
                }
                Ok(())
            }
        }

        $(#[$sdoc])*
        #[derive(Debug, Clone, Default)]
        pub struct $solver {
            /// Parameters.
            pub params: $params,
        }

        impl $solver {
            /// Solver with the given parameters.
            pub fn new(params: $params) -> Self {
                Self { params }
            }
        }

        impl LcpSolver for $solver {
            fn name(&self) -> String {
                let d = $params::default();
                let p = &self.params;
                let mut pairs = Vec::new();
                if p.tol != d.tol {
                    pairs.push(("tol", fmt_f64(p.tol)));
                }
                if p.max_iter != d.max_iter {
                    pairs.push(("max_iter", p.max_iter.to_string()));
                }
                if p.omega != d.omega {
                    pairs.push(("omega", fmt_f64(p.omega)));
                }
                if p.check_every != d.check_every {
                    pairs.push(("check_every", p.check_every.to_string()));
                }
                canonical_name($name, &pairs)
            }
            fn default_tol(&self) -> f64 {
                self.params.tol
            }
            fn default_max_iter(&self, _n: usize) -> usize {
                self.params.max_iter
            }
            fn run(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
                let p = &self.params;
                crate::memory::check_dense_work(lcp, 1, ctx.memory_budget, "pgs: row-major copy of M")?;
                Ok(run_sweeps(lcp, ctx, p.omega, p.check_every, $dir))
            }
        }
    };
}

sweep_method! {
    /// Parameters of `pgs` (projected Gauss–Seidel; ω defaults to 1).
    params PgsParams;
    /// Projected Gauss–Seidel: forward sweeps i = 1..n (Cottle, Pang, Stone 1992, §5.2).
    solver Pgs;
    name "pgs"; omega 1.0; direction Direction::Forward;
}

sweep_method! {
    /// Parameters of `psor` (projected SOR; ω defaults to 1.3, a common choice for contact
    /// problems; `psor:omega=1` is `pgs` bit for bit).
    params PsorParams;
    /// Projected successive over-relaxation: forward sweeps with relaxation ω in (0, 2).
    solver Psor;
    name "psor"; omega 1.3; direction Direction::Forward;
}

sweep_method! {
    /// Parameters of `sgs` (symmetric projected Gauss–Seidel; ω defaults to 1). One iteration
    /// is a forward and a backward sweep and counts two products with M.
    params SgsParams;
    /// Symmetric projected Gauss–Seidel (projected SSOR for ω ≠ 1): a forward sweep i = 1..n
    /// then a backward sweep i = n..1 per iteration.
    solver Sgs;
    name "sgs"; omega 1.0; direction Direction::Symmetric;
}

fn build<P: SolverParams, S: LcpSolver + 'static>(
    pairs: &[(String, String)],
    make: fn(P) -> S,
) -> Result<Box<dyn LcpSolver>, SpecError> {
    Ok(Box::new(make(P::from_pairs(pairs)?)))
}

/// Registers `pgs`, `psor` and `sgs`.
pub fn register(r: &mut Registry) {
    r.register_params::<PgsParams>(
        "projected Gauss-Seidel (symmetric PSD / diagonally dominant M, positive diagonal)",
        |p| build(p, Pgs::new),
    );
    r.register_params::<PsorParams>("projected successive over-relaxation, omega in (0, 2)", |p| {
        build(p, Psor::new)
    });
    r.register_params::<SgsParams>(
        "symmetric projected Gauss-Seidel (forward + backward sweep per iteration)",
        |p| build(p, Sgs::new),
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate;
    use crate::solver::SolveOptions;

    fn seed_a4() -> Lcp {
        Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![-3.0, -3.0]).expect("valid")
    }

    #[test]
    fn pgs_solves_seed_a4_coupled_contacts() {
        let sol = Pgs::default().solve(&seed_a4(), &SolveOptions::default(), None).expect("runs");
        assert_eq!(sol.status, Status::Solved);
        assert!((sol.z[0] - 1.0).abs() < 1e-7 && (sol.z[1] - 1.0).abs() < 1e-7);
    }

    #[test]
    fn every_sweep_method_solves_a_delassus_problem_to_its_known_solution() {
        let (lcp, z_star) = generate::delassus_like_with_solution(40, 2, 10.0, 1);
        let scale = z_star.iter().fold(0.0f64, |a, b| a.max(b.abs()));
        for solver in [
            Box::new(Pgs::default()) as Box<dyn LcpSolver>,
            Box::new(Psor::default()),
            Box::new(Sgs::default()),
        ] {
            let opts = SolveOptions { max_iter: Some(200_000), ..Default::default() };
            let sol = solver.solve(&lcp, &opts, None).expect("runs");
            assert_eq!(sol.status, Status::Solved, "{}: {:?}", solver.name(), sol.note);
            let err = sol.z.iter().zip(&z_star).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
            assert!(err < 1e-4 * scale, "{}: |z - z*| = {err}", solver.name());
        }
    }

    #[test]
    fn zero_diagonal_is_a_numerical_failure_naming_the_row() {
        let lcp = Lcp::from_dense_rows(&[vec![1.0, 0.0], vec![0.0, 0.0]], vec![-1.0, 1.0])
            .expect("valid");
        let sol = Pgs::default().solve(&lcp, &SolveOptions::default(), None).expect("runs");
        assert_eq!(sol.status, Status::NumericalFailure);
        assert!(sol.note.as_deref().is_some_and(|n| n.contains("row 1")), "{:?}", sol.note);
        let neg = Lcp::from_coo(1, &[0], &[0], &[-2.0], vec![-1.0]).expect("valid");
        let sol = Sgs::default().solve(&neg, &SolveOptions::default(), None).expect("runs");
        assert_eq!(sol.status, Status::NumericalFailure);
    }

    #[test]
    fn divergence_is_reported_not_projected_away() {
        // Symmetric indefinite with positive diagonal: PGS grows without bound.
        let lcp = Lcp::from_dense_rows(&[vec![1.0, -3.0], vec![-3.0, 1.0]], vec![-1.0, -1.0])
            .expect("valid");
        let opts = SolveOptions { max_iter: Some(5000), ..Default::default() };
        let sol = Pgs::default().solve(&lcp, &opts, None).expect("runs");
        assert_ne!(sol.status, Status::Solved);
    }

    #[test]
    fn limits_are_reported() {
        let lcp = generate::box_stack(30, 1000.0);
        let opts = SolveOptions { max_iter: Some(7), ..Default::default() };
        let sol = Pgs::default().solve(&lcp, &opts, None).expect("runs");
        assert_eq!(sol.status, Status::MaxIterations);
        assert_eq!(sol.iterations, 7);
        // 7 sweeps and the exact check at the last one.
        assert_eq!(sol.matvecs, 8);
        let opts = SolveOptions {
            time_limit: Some(std::time::Duration::ZERO),
            max_iter: Some(1_000_000),
            ..Default::default()
        };
        let sol = Pgs::default().solve(&lcp, &opts, None).expect("runs");
        assert_eq!(sol.status, Status::TimeLimit);
    }

    #[test]
    fn unreachable_tolerance_stalls() {
        // Round-off leaves some min(z_i, w_i) of about 1e-16 |W||z|, which no sweep removes.
        let lcp = generate::box_stack(8, 10.0);
        let opts =
            SolveOptions { tol: Some(1e-300), max_iter: Some(1_000_000), ..Default::default() };
        let sol = Pgs::default().solve(&lcp, &opts, None).expect("runs");
        assert_eq!(sol.status, Status::Stalled, "{:?}", sol.note);
    }

    #[test]
    fn warm_start_is_projected_and_a_solution_is_kept() {
        let lcp = seed_a4();
        let sol =
            Pgs::default().solve(&lcp, &SolveOptions::default(), Some(&[1.0, 1.0])).expect("runs");
        assert_eq!(sol.status, Status::Solved);
        assert_eq!(sol.iterations, 1);
        let sol =
            Pgs::default().solve(&lcp, &SolveOptions::default(), Some(&[-5.0, 3.0])).expect("runs");
        assert_eq!(sol.status, Status::Solved);
    }

    #[test]
    fn sparse_and_dense_storage_give_the_same_iterates() {
        let dense = generate::random_spd(12, 9);
        let sparse = Lcp::new(Matrix::Sparse(dense.to_sparse()), dense.q().to_vec()).expect("ok");
        let a = Pgs::default().solve(&dense, &SolveOptions::default(), None).expect("runs");
        let b = Pgs::default().solve(&sparse, &SolveOptions::default(), None).expect("runs");
        assert_eq!(a.iterations, b.iterations);
        for (x, y) in a.z.iter().zip(&b.z) {
            assert!((x - y).abs() <= 1e-12 * (1.0 + x.abs()));
        }
    }

    #[test]
    fn history_records_every_sweep_and_the_exact_merit_on_request() {
        let lcp = generate::box_stack(6, 10.0);
        let opts = SolveOptions { history_every: Some(5), ..Default::default() };
        let sol = Pgs::default().solve(&lcp, &opts, None).expect("runs");
        let h = sol.history.expect("history requested");
        assert_eq!(h.len(), sol.iterations);
        for (k, e) in h.iter().enumerate() {
            assert_eq!(e.iteration, k + 1);
            assert_eq!(e.residual.is_some(), (k + 1) % 5 == 0);
            assert!(e.measure.is_finite() && e.measure >= 0.0);
        }
        // The relative change falls as the sweeps converge.
        assert!(h[h.len() - 1].measure < h[0].measure);
    }

    #[test]
    fn specs_parse_validate_and_round_trip() {
        let r = {
            let mut r = Registry::empty();
            register(&mut r);
            r
        };
        assert_eq!(r.build("psor:omega=1.5").expect("ok").name(), "psor:omega=1.5");
        assert_eq!(r.build("pgs").expect("ok").name(), "pgs");
        assert_eq!(r.build("sgs:check_every=3").expect("ok").name(), "sgs:check_every=3");
        assert!(r.build("psor:omega=2").is_err());
        assert!(r.build("pgs:omega=0").is_err());
        assert!(r.build("pgs:check_every=0").is_err());
        assert!(r.build("pgs:tol=-1").is_err());
        let spec = r.build("pgs:tol=1e-10").expect("ok").name();
        assert_eq!(r.build(&spec).expect("ok").name(), spec);
    }
}
