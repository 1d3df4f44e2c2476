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
//!
//! On a Gram-form M = G G' + D ([`Lcp::from_gram`]) the sweeps run matrix-free
//! ([`GramSweeper`]): the same updates with w_i = G_i · (G' z) + D_i z_i + q_i, G' z kept
//! current, so the iterates equal those on the assembled M up to rounding.

use crate::linalg::sweeps::{
    checked_diagonal, iterate, positive_diagonal, sweep_backward, sweep_forward, GramSweeper,
    LoopSettings, Rows, SweepInfo,
};
use crate::solver::{Entry, Outcome, SolveContext, SolveError};
use crate::status::Status;
use crate::Lcp;

/// Sweep direction of the plain splitting methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    /// i = 1..n.
    Forward,
    /// i = 1..n then i = n..1.
    Symmetric,
}

/// What the sweeps read M through: its rows, or its Gram form matrix-free.
enum Sweeper<'a> {
    Rows(Rows<'a>),
    Gram(GramSweeper<'a>),
}

impl Sweeper<'_> {
    fn forward(&mut self, q: &[f64], diag: &[f64], omega: f64, z: &mut [f64]) -> SweepInfo {
        match self {
            Sweeper::Rows(rows) => sweep_forward(rows, q, diag, omega, z),
            Sweeper::Gram(g) => g.forward(q, diag, omega, z),
        }
    }

    fn backward(&mut self, q: &[f64], diag: &[f64], omega: f64, z: &mut [f64]) -> SweepInfo {
        match self {
            Sweeper::Rows(rows) => sweep_backward(rows, q, diag, omega, z),
            Sweeper::Gram(g) => g.backward(q, diag, omega, z),
        }
    }
}

/// Runs a plain (forward or symmetric) relaxed sweep method, on M's rows or, for a Gram-form
/// M, matrix-free.
fn run_sweeps(
    lcp: &Lcp,
    ctx: &mut SolveContext<'_>,
    omega: f64,
    check_every: usize,
    direction: Direction,
) -> Result<Outcome, SolveError> {
    let n = lcp.n();
    let z = ctx.start_projected(n);
    let mut sweeper = match lcp.gram() {
        Some(gram) => Sweeper::Gram(GramSweeper::new(gram, &z)),
        None => {
            crate::memory::check_dense_work(lcp, 1, ctx.memory_budget, "pgs: row-major copy of M")?;
            Sweeper::Rows(Rows::new(lcp))
        }
    };
    let diag = match &sweeper {
        Sweeper::Rows(rows) => positive_diagonal(rows, n),
        Sweeper::Gram(g) => checked_diagonal(g.diagonal().to_vec()),
    };
    let diag = match diag {
        Ok(d) => d,
        Err(msg) => {
            let mut o = Outcome::new(vec![0.0; n], Status::NumericalFailure, 0);
            o.note = Some(msg);
            return Ok(o);
        }
    };
    let q = lcp.q();
    let matvecs_per_sweep = match direction {
        Direction::Forward => 1,
        Direction::Symmetric => 2,
    };
    let settings = LoopSettings { check_every, matvecs_per_sweep };
    let sweep = |z: &mut [f64]| {
        let info = sweeper.forward(q, &diag, omega, z);
        match direction {
            Direction::Forward => info,
            Direction::Symmetric => info.merge(sweeper.backward(q, &diag, omega, z)),
        }
    };
    iterate(lcp, ctx, z, settings, sweep, None)
}

/// Default merit tolerance of the splitting methods.
pub const DEFAULT_TOL: f64 = 1e-8;
/// Default sweep limit of the splitting methods.
pub const DEFAULT_MAX_ITER: usize = 10_000;
/// Default number of sweeps between exact merit checks.
pub const DEFAULT_CHECK_EVERY: usize = 10;

macro_rules! sweep_method {
    (
        $(#[$pdoc:meta])* params $params:ident;
        $(#[$sdoc:meta])* solver $solver:ident;
        name $name:literal; summary $summary:literal; omega $omega:expr; direction $dir:expr;
    ) => {
        crate::solver_params! {
            $(#[$pdoc])*
            pub struct $params for $name {
                /// relaxation factor in (0, 2)
                omega: f64 = $omega, valid if |v| v > 0.0 && v < 2.0 => "in (0, 2)";
                /// sweeps between exact merit checks
                check_every: usize = DEFAULT_CHECK_EVERY, valid if |v| v >= 1 => ">= 1";
            }
        }

        crate::lcp_solver! {
            $(#[$sdoc])*
            pub struct $solver($params) {
                summary: $summary,
                tol: DEFAULT_TOL,
                max_iter: |_params, _n| DEFAULT_MAX_ITER,
                matrix_free: true,
                run: |s: &$solver, lcp: &Lcp, ctx: &mut SolveContext<'_>| {
                    run_sweeps(lcp, ctx, s.params.omega, s.params.check_every, $dir)
                },
            }
        }
    };
}

sweep_method! {
    /// Parameters of `pgs` (projected Gauss–Seidel; ω defaults to 1).
    params PgsParams;
    /// Projected Gauss–Seidel: forward sweeps i = 1..n (Cottle, Pang, Stone 1992, §5.2).
    solver Pgs;
    name "pgs";
    summary "projected Gauss-Seidel (symmetric PSD / diagonally dominant M, positive diagonal)";
    omega 1.0; direction Direction::Forward;
}

sweep_method! {
    /// Parameters of `psor` (projected SOR; ω defaults to 1.3, a common choice for contact
    /// problems; `psor:omega=1` is `pgs` bit for bit).
    params PsorParams;
    /// Projected successive over-relaxation: forward sweeps with relaxation ω in (0, 2).
    solver Psor;
    name "psor"; summary "projected successive over-relaxation, omega in (0, 2)";
    omega 1.3; direction Direction::Forward;
}

sweep_method! {
    /// Parameters of `sgs` (symmetric projected Gauss–Seidel; ω defaults to 1). One iteration
    /// is a forward and a backward sweep and counts two products with M.
    params SgsParams;
    /// Symmetric projected Gauss–Seidel (projected SSOR for ω ≠ 1): a forward sweep i = 1..n
    /// then a backward sweep i = n..1 per iteration.
    solver Sgs;
    name "sgs";
    summary "symmetric projected Gauss-Seidel (forward + backward sweep per iteration)";
    omega 1.0; direction Direction::Symmetric;
}

/// The entries of `pgs`, `psor` and `sgs`.
pub fn entries() -> Vec<Entry> {
    vec![Pgs::entry(), Psor::entry(), Sgs::entry()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate;
    use crate::solver::SolveOptions;
    use crate::{LcpSolver, Matrix};

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
        // The sweep loop itself sees the divergence (the driver alone would only say "not
        // solved" at the iteration limit): it stops early and says why.
        assert_eq!(sol.status, Status::NumericalFailure, "{:?}", sol.note);
        assert!(sol.iterations < 5000, "stopped at {}", sol.iterations);
        assert!(sol.note.as_deref().is_some_and(|n| n.contains("non-finite")), "{:?}", sol.note);
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
        let mut r = crate::Registry::empty();
        entries().into_iter().for_each(|e| r.add(e));
        assert_eq!(r.build("psor:omega=1.5").expect("ok").name(), "psor:omega=1.5");
        assert_eq!(r.build("pgs").expect("ok").name(), "pgs");
        assert_eq!(r.build("sgs:check_every=3").expect("ok").name(), "sgs:check_every=3");
        assert!(r.build("psor:omega=2").is_err());
        assert!(r.build("pgs:omega=0").is_err());
        assert!(r.build("pgs:check_every=0").is_err());
        assert!(r.build("pgs:tol=-1").is_err());
        let spec = r.build("pgs:tol=1e-10").expect("ok").name();
        assert_eq!(r.build(&spec).expect("ok").name(), spec);
        // A struct built in Rust with an out-of-range field is a typed error at solve time.
        let bad = Pgs::new(PgsParams { omega: 2.5, ..Default::default() });
        let lcp = Lcp::from_dense_rows(&[vec![1.0]], vec![-1.0]).expect("valid");
        assert!(matches!(
            bad.solve(&lcp, &SolveOptions::default(), None),
            Err(SolveError::Parameter(_))
        ));
    }
}
