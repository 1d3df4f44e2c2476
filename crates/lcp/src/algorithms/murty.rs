//! Murty's least-index principal pivoting method for P-matrices (Murty 1974, "Note on a
//! Bard-type scheme for solving the complementarity problem", Opsearch 11; Cottle, Pang, Stone
//! 1992, §4.2).
//!
//! # The method
//!
//! A complementary basis is an index set $\alpha$ with $z_\alpha$ basic and $w_{\bar\alpha}$
//! basic: $M_{\alpha\alpha} z_\alpha = -q_\alpha$, $w_{\bar\alpha} = q_{\bar\alpha} +
//! M_{\bar\alpha\alpha} z_\alpha$. Starting from $\alpha = \emptyset$ ($z = 0$), each iteration
//! solves that system (a dense LU of the principal submatrix), picks the least index whose basic
//! variable is negative and exchanges it with its complement (one pivot). On a P-matrix no basis
//! repeats, so the method ends within $2^n$ pivots; Fathi's example (`generate::fathi(n)`) needs
//! $2^n - 1$ of them under the natural index order. The order can be reversed
//! (`order=reversed`, the greatest index), which is the favourable order on Fathi's example.
//!
//! On matrices that are not P the method may cycle or meet a singular principal submatrix: the
//! pivot limit (default $2^{\min(n, 30)}$) ends it with `max_iterations`, a singular or
//! non-finite solve with `numerical_failure`. A warm start is ignored (the method is defined
//! from $z = 0$; any start basis would do in theory, but the worst-case count is then no longer
//! the documented one).
//!
//! The dense working set (M, a principal submatrix and its LU: 3 n^2 entries at worst) is
//! checked against the memory budget before anything is allocated ([`crate::memory`]), so a
//! large sparse M is refused with [`SolveError::Memory`]. The LU runs with `Par::Seq`: the
//! result is bit-identical whatever the size of the rayon pool.

use std::borrow::Cow;

use faer::Mat;

use crate::linalg::dense_lu::SeqPartialLu;
use crate::memory;
use crate::solver::{Outcome, SolveContext, SolveError};
use crate::status::Status;
use crate::steps::{run_steps, Policy, Start, Step, StepResult, Steps};
use crate::Lcp;

/// Default merit tolerance.
pub const DEFAULT_TOL: f64 = 1e-10;

/// Relative size below which a negative basic value counts as zero (round-off).
const NEG_TOL: f64 = 1e-12;

/// Which index is exchanged when several basic variables are negative.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum IndexOrder {
    /// The least index (Murty's rule).
    #[default]
    Natural,
    /// The greatest index (Murty's rule on the reversed numbering).
    Reversed,
}

crate::param_enum!(IndexOrder { Natural => "natural", Reversed => "reversed" });

crate::solver_params! {
    /// Parameters of [`Murty`].
    pub struct MurtyParams for "murty" {
        /// natural (least index) or reversed (greatest index)
        order: IndexOrder = IndexOrder::Natural;
    }
}

crate::lcp_solver! {
    /// Murty's least-index principal pivoting (see the module documentation).
    pub struct Murty(MurtyParams) {
        summary: "Murty's least-index principal pivoting; P-matrices",
        tol: DEFAULT_TOL,
        max_iter: |_params, n| 1usize << n.min(30),
        run: Murty::solve_loop,
    }
}

impl Murty {
    fn solve_loop(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        let n = lcp.n();
        memory::check_dense(n, n, 3, ctx.memory_budget, || {
            format!("murty: dense M and the LU of a principal submatrix (n = {n})")
        })?;
        let m = memory::to_dense(lcp, ctx.memory_budget, || format!("murty: dense M (n = {n})"))?;
        solve_murty(lcp, &m, self.params.order, ctx)
    }
}

/// Basic values of the complementary basis `in_alpha` (z_i for i in alpha, w_i otherwise) and
/// the corresponding z; None when the principal system is singular or the result not finite.
fn basic_values(m: &Mat<f64>, q: &[f64], in_alpha: &[bool]) -> Option<(Vec<f64>, Vec<f64>)> {
    let n = q.len();
    let alpha: Vec<usize> = (0..n).filter(|&i| in_alpha[i]).collect();
    let k = alpha.len();
    let mut z = vec![0.0; n];
    if k > 0 {
        let sub = Mat::from_fn(k, k, |a, b| m[(alpha[a], alpha[b])]);
        let mut rhs = Mat::from_fn(k, 1, |a, _| -q[alpha[a]]);
        SeqPartialLu::factor(sub).solve_in_place(rhs.as_mut());
        for (a, &i) in alpha.iter().enumerate() {
            z[i] = rhs[(a, 0)];
        }
    }
    let mut basic = vec![0.0; n];
    for i in 0..n {
        basic[i] = if in_alpha[i] {
            z[i]
        } else {
            q[i] + alpha.iter().map(|&j| m[(i, j)] * z[j]).sum::<f64>()
        };
    }
    basic.iter().all(|v| v.is_finite()).then_some((basic, z))
}

/// The running state of Murty's method: the complementary basis (α: the indices whose z is
/// basic), the iterate and the index that enters or leaves next.
struct MurtyState<'m> {
    m: &'m Mat<f64>,
    order: IndexOrder,
    qscale: f64,
    in_alpha: Vec<bool>,
    z: Vec<f64>,
    pick: Option<usize>,
    pivots: usize,
}

/// What solving for the basic variables of the current basis gave.
enum Basis {
    /// The basis is complementary feasible: z solves the LCP (with the most negative basic
    /// value, within round-off of 0).
    Solved(f64),
    /// A basic value is negative (the most negative one); `pick` is the index to move.
    Infeasible(f64),
    /// The principal submatrix is singular.
    Singular,
}

impl MurtyState<'_> {
    /// Solves for the basic variables of the basis α, sets z and the next index.
    fn evaluate(&mut self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Basis {
        let n = lcp.n();
        let Some((basic, zc)) = basic_values(self.m, lcp.q(), &self.in_alpha) else {
            return Basis::Singular;
        };
        if self.in_alpha.iter().any(|&b| b) {
            ctx.factorizations += 1;
        }
        self.z = zc.iter().map(|v| v.max(0.0)).collect();
        let scale = basic.iter().fold(self.qscale, |a, v| a.max(v.abs()));
        let negative = |i: &usize| basic[*i] < -NEG_TOL * scale;
        self.pick = match self.order {
            IndexOrder::Natural => (0..n).find(negative),
            IndexOrder::Reversed => (0..n).rev().find(negative),
        };
        let most_negative = basic.iter().fold(0.0f64, |a, &v| a.min(v));
        match self.pick {
            Some(_) => Basis::Infeasible(most_negative),
            None => Basis::Solved(most_negative),
        }
    }

    /// The run's end with its own status (a complementary basis, a singular one).
    fn done(&self, status: Status) -> Step {
        Step::Done(Outcome::new(self.z.clone(), status, self.pivots))
    }
}

impl<'c> Steps<SolveContext<'c>> for MurtyState<'_> {
    fn policy(&self) -> Policy {
        Policy::named("pivot")
    }

    fn z(&self) -> Cow<'_, [f64]> {
        Cow::Borrowed(&self.z)
    }

    /// One principal pivot: the picked index changes sides, and the new basis is solved.
    fn step(&mut self, lcp: &Lcp, ctx: &mut SolveContext<'c>, it: usize) -> StepResult {
        let Some(i) = self.pick else { return Ok(self.done(Status::Solved)) };
        self.in_alpha[i] = !self.in_alpha[i];
        self.pivots += 1;
        Ok(match self.evaluate(lcp, ctx) {
            Basis::Singular => self.done(Status::NumericalFailure),
            Basis::Solved(most_negative) => {
                ctx.record(lcp, it, most_negative, &self.z);
                self.done(Status::Solved)
            }
            Basis::Infeasible(most_negative) => Step::unchecked(most_negative),
        })
    }

    fn pivots(&self) -> Option<usize> {
        Some(self.pivots)
    }
}

fn solve_murty(
    lcp: &Lcp,
    m: &Mat<f64>,
    order: IndexOrder,
    ctx: &mut SolveContext<'_>,
) -> Result<Outcome, SolveError> {
    run_steps(lcp, ctx, |lcp, ctx| {
        let q = lcp.q();
        let mut state = MurtyState {
            m,
            order,
            qscale: q.iter().fold(0.0f64, |a, v| a.max(v.abs())),
            in_alpha: vec![false; lcp.n()],
            z: vec![0.0; lcp.n()],
            pick: None,
            pivots: 0,
        };
        let at_start = |z: Vec<f64>, status| {
            let mut o = Outcome::new(z, status, 0);
            o.pivots = Some(0);
            Start::Done(o)
        };
        Ok(match state.evaluate(lcp, ctx) {
            Basis::Singular => at_start(state.z, Status::NumericalFailure),
            Basis::Solved(most_negative) => {
                ctx.record(lcp, 0, most_negative, &state.z);
                at_start(state.z, Status::Solved)
            }
            Basis::Infeasible(most_negative) => {
                ctx.record(lcp, 0, most_negative, &state.z);
                Start::Run(state)
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate;
    use crate::solver::SolveOptions;
    use crate::{LcpSolver, Registry, SpecError};

    fn solve(lcp: &Lcp, params: MurtyParams) -> crate::Solution {
        Murty::new(params).solve(lcp, &SolveOptions::default(), None).expect("set up")
    }

    #[test]
    fn fathi_takes_two_to_the_n_minus_one_pivots_in_natural_order() {
        for n in 1..=10 {
            let lcp = generate::fathi(n);
            let sol = solve(&lcp, MurtyParams::default());
            assert_eq!(sol.status, Status::Solved, "n = {n}");
            assert_eq!(sol.pivots, Some((1usize << n) - 1), "n = {n}");
        }
    }

    #[test]
    fn fathi_reversed_order_is_fast() {
        for n in 2..=10 {
            let lcp = generate::fathi(n);
            let params = MurtyParams { order: IndexOrder::Reversed };
            let sol = solve(&lcp, params);
            assert_eq!(sol.status, Status::Solved, "n = {n}");
            assert!(sol.pivots.unwrap_or(usize::MAX) <= n, "n = {n}: {:?}", sol.pivots);
        }
    }

    #[test]
    fn seed_a4_and_spd() {
        let lcp = Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![-3.0, -3.0])
            .expect("valid");
        let sol = solve(&lcp, MurtyParams::default());
        assert_eq!(sol.status, Status::Solved);
        assert!((sol.z[0] - 1.0).abs() < 1e-12 && (sol.z[1] - 1.0).abs() < 1e-12);
        let lcp = generate::random_spd(25, 4);
        let sol = solve(&lcp, MurtyParams::default());
        assert_eq!(sol.status, Status::Solved);
        assert!(sol.residual() <= 1e-10);
    }

    #[test]
    fn non_p_matrix_hits_the_limit_or_fails_honestly() {
        // M = -1, q = -1 has no solution: the principal system flips forever.
        let lcp = Lcp::from_dense_rows(&[vec![-1.0]], vec![-1.0]).expect("valid");
        let s = Registry::builtin().build("murty:max_iter=20").expect("spec");
        let sol = s.solve(&lcp, &SolveOptions::default(), None).expect("runs");
        assert_eq!(sol.status, Status::MaxIterations);
        // A zero principal submatrix is singular.
        let lcp = Lcp::from_dense_rows(&[vec![0.0, 1.0], vec![-1.0, 0.0]], vec![-1.0, -1.0])
            .expect("valid");
        let sol = solve(&lcp, MurtyParams::default());
        assert!(matches!(sol.status, Status::NumericalFailure | Status::MaxIterations));
    }

    /// Issue 14 §2: murty's z differed between rayon pools of 1 and 2 threads (608 of 3 000
    /// entries, by 1.5e-16): faer's `partial_piv_lu` took the global parallelism, and its
    /// blocked update sums in an order that depends on the thread count. One principal solve
    /// of size 1000 (large enough for faer's parallel path) must be bit-identical.
    #[test]
    fn issue_14_murty_principal_solve_is_bit_identical_across_thread_counts() {
        let n = 1000;
        let lcp = generate::random_spd(n, 5);
        let m = lcp.to_dense();
        let in_alpha = vec![true; n];
        let run = |threads: usize| -> Vec<u64> {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
            let (basic, _) =
                pool.install(|| basic_values(&m, lcp.q(), &in_alpha)).expect("regular");
            basic.iter().map(|v| v.to_bits()).collect()
        };
        let (one, two) = (run(1), run(2));
        let differing = one.iter().zip(&two).filter(|(a, b)| a != b).count();
        assert_eq!(differing, 0, "{differing} of {n} entries differ");
    }

    #[test]
    fn spec_strings_parse_and_reject() {
        let mut r = Registry::empty();
        r.add(Murty::entry());
        assert_eq!(r.build("murty:order=reversed").expect("builds").name(), "murty:order=reversed");
        assert!(matches!(r.build("murty:order=up"), Err(SpecError::BadValue { .. })));
    }
}
