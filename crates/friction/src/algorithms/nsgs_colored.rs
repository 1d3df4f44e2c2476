//! `nsgs-colored`: nonsmooth Gauss–Seidel over contacts on rayon, contacts grouped by a graph
//! colouring so that contacts of one colour are updated in parallel (multicolour Gauss–Seidel,
//! Adams, Ortega 1982, "A multi-color SOR method for parallel computation", ICPP; the
//! contact-level sweep of Jean 1999 and Siconos `fc3d_nsgs`, as in `nsgs`).
//!
//! Set-up: contacts i and j are coupled when W has a nonzero entry in block (i, j) or (j, i);
//! the coupling graph is coloured greedily in contact order (each contact takes the smallest
//! colour none of its lower-indexed neighbours has). A sweep visits the colours in order; the
//! contacts of a colour read only reactions of other colours, so their local problems (the
//! same local solvers and relaxation as `nsgs`) are solved in parallel from the same r and
//! written back afterwards: the sweep equals a sequential Gauss–Seidel sweep in colour order,
//! and every block is computed by the same operations whatever the thread count. The only
//! reduction is a max, which is exact, so r is bit-identical for any number of threads. A
//! dense W couples every pair of contacts: one contact per colour, a sequential sweep.

use rayon::prelude::*;
use std::borrow::Cow;

use super::FcStep;
use signorini_lcp::steps::{run_steps, Policy, Start, Steps};
use signorini_lcp::{SolveError, Status};

use super::nsgs::{local_update, LocalSolver, NsgsParams, SweepChange};
use super::Rows;
use crate::local::{M3, V3};
use crate::solver::{projected, FcContext, FcOutcome};
use crate::FcProblem;

/// Largest `threads` accepted (as signorini-lcp's `pgs-colored`): each pool thread reserves a
/// stack, and a fixed cap keeps a spec valid on every machine.
pub const MAX_THREADS: usize = 1024;

signorini_lcp::solver_params! {
    /// Parameters of `nsgs-colored`.
    pub struct NsgsColoredParams for "nsgs-colored" {
        /// local solver: ac (Alart-Curnier Newton, projection fallback) or proj
        local: LocalSolver = LocalSolver::AlartCurnier;
        /// relaxation
        omega: f64 = 1.0, valid if |v| v > 0.0 && v < 2.0 => "in (0, 2)";
        /// sweeps between evaluations of the full merit
        check_every: usize = 1, valid if |v| v >= 1 => ">= 1";
        /// local iterations per contact and sweep (proj: 10x)
        local_max_iter: usize = 20, valid if |v| v >= 1 => ">= 1";
        /// relative tolerance of the local solver
        local_tol: f64 = 1e-14, valid if |v| v > 0.0 => "> 0";
        /// worker threads, 0..=1024 (0: the caller's rayon pool)
        threads: usize = 0, valid if |v| v <= MAX_THREADS => "in 0..=1024 (0: the caller's rayon pool)";
    }
}

crate::fc_solver! {
    /// The `nsgs-colored` solver.
    pub struct NsgsColored(NsgsColoredParams) {
        summary: "nonsmooth Gauss-Seidel over contacts, graph-coloured and parallel on rayon, bit-identical for any thread count (Jean 1999; Adams, Ortega 1982)",
        max_iter: 1000,
        run: NsgsColored::run_in_pool,
    }
}

/// Greedy colouring of the contact coupling graph; returns the contacts of each colour, in
/// contact order.
pub fn contact_colors(problem: &FcProblem) -> Vec<Vec<usize>> {
    let d = problem.dimension();
    let nc = problem.n_contacts();
    let rows = super::rows(problem);
    // Neighbours of each contact through its rows and, transposed, through the others' rows.
    let mut neighbours: Vec<Vec<usize>> = vec![Vec::new(); nc];
    for i in 0..nc {
        for k in 0..d {
            rows.for_each(d * i + k, |j, v| {
                let c = j / d;
                if c != i && v != 0.0 {
                    neighbours[i].push(c);
                    neighbours[c].push(i);
                }
            });
        }
    }
    let mut color = vec![usize::MAX; nc];
    let mut mark = vec![usize::MAX; nc + 1];
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in 0..nc {
        for &j in &neighbours[i] {
            if color[j] != usize::MAX {
                mark[color[j]] = i;
            }
        }
        let c = (0..=nc).find(|&c| mark[c] != i).unwrap_or(nc);
        color[i] = c;
        if c == groups.len() {
            groups.push(Vec::new());
        }
        groups[c].push(i);
    }
    groups
}

impl NsgsColored {
    /// The local-solver settings of `nsgs` that this solver shares.
    fn nsgs_params(&self) -> NsgsParams {
        let p = &self.params;
        NsgsParams {
            local: p.local,
            omega: p.omega,
            local_max_iter: p.local_max_iter,
            local_tol: p.local_tol,
            ..NsgsParams::default()
        }
    }

    fn run_in_pool(
        &self,
        problem: &FcProblem,
        ctx: &mut FcContext<'_>,
    ) -> Result<FcOutcome, SolveError> {
        if self.params.threads == 0 {
            return self.solve_loop(problem, ctx);
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.params.threads)
            .build()
            .map_err(|e| SolveError::InvalidOption(format!("threads: {e}")))?;
        pool.install(|| self.solve_loop(problem, ctx))
    }

    fn solve_loop(
        &self,
        problem: &FcProblem,
        ctx: &mut FcContext<'_>,
    ) -> Result<FcOutcome, SolveError> {
        run_steps(problem, ctx, |_, ctx| {
            Ok(Start::Run(ColoredState {
                params: self.nsgs_params(),
                check_every: self.params.check_every,
                rows: super::rows(problem),
                blocks: super::diagonal_blocks(problem),
                colors: contact_colors(problem),
                r: projected(problem, &ctx.initial_r(problem.n())),
            }))
        })
    }
}

/// The running state of `nsgs-colored`: r, the colouring and the diagonal blocks of W.
struct ColoredState<'a> {
    params: NsgsParams,
    check_every: usize,
    rows: Rows<'a>,
    blocks: Vec<M3>,
    colors: Vec<Vec<usize>>,
    r: Vec<f64>,
}

impl<'c> Steps<FcContext<'c>> for ColoredState<'_> {
    fn policy(&self) -> Policy {
        Policy { check_last: true, ..Policy::named("sweep") }
    }

    fn z(&self) -> Cow<'_, [f64]> {
        Cow::Borrowed(&self.r)
    }

    fn step(&mut self, problem: &FcProblem, _: &mut FcContext<'c>, sweep: usize) -> FcStep {
        let (rows, blocks, colors) = (&self.rows, &self.blocks, &self.colors);
        let measure = colored_sweep(&self.params, problem, rows, blocks, colors, &mut self.r);
        super::taken(measure, &self.r, sweep, self.check_every)
    }

    /// A solved run says how many colours the contacts took.
    fn finish(self, mut outcome: FcOutcome) -> FcOutcome {
        if outcome.status == Status::Solved && outcome.note.is_none() {
            let nc = self.blocks.len();
            outcome.note = Some(format!("{} colours for {nc} contacts", self.colors.len()));
        }
        outcome
    }
}

/// One sweep colour by colour, the contacts of a colour in parallel; returns the relative
/// change max |delta r| / max |r| (maxima: exact whatever the reduction order).
fn colored_sweep(
    p: &NsgsParams,
    problem: &FcProblem,
    rows: &Rows<'_>,
    blocks: &[M3],
    colors: &[Vec<usize>],
    r: &mut [f64],
) -> f64 {
    let d = problem.dimension();
    let mut change = SweepChange::default();
    let mut updates: Vec<(V3, V3)> = Vec::new();
    for group in colors {
        let frozen: &[f64] = r;
        group
            .par_iter()
            .with_min_len(16)
            .map(|&i| local_update(p, problem, rows, &blocks[i], i, frozen))
            .collect_into_vec(&mut updates);
        for (&i, (start, new)) in group.iter().zip(&updates) {
            change.write(d, i, start, new, r);
        }
    }
    change.relative()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::FcSolver;
    use signorini_lcp::SolveOptions;

    /// A chain of 3D contacts, each coupled to its neighbours only (a tridiagonal block W),
    /// with mixed sticking and sliding loads.
    fn chain(nc: usize) -> FcProblem {
        let n = 3 * nc;
        let (mut row, mut col, mut val) = (Vec::new(), Vec::new(), Vec::new());
        for i in 0..nc {
            for k in 0..3 {
                row.push(3 * i + k);
                col.push(3 * i + k);
                val.push(if k == 0 { 2.0 } else { 1.5 });
            }
            if i + 1 < nc {
                for (a, b, v) in [(0, 0, -0.4), (1, 1, -0.2), (2, 2, -0.2), (0, 1, 0.1)] {
                    row.push(3 * i + a);
                    col.push(3 * (i + 1) + b);
                    val.push(v);
                    row.push(3 * (i + 1) + b);
                    col.push(3 * i + a);
                    val.push(v);
                }
            }
        }
        let q: Vec<f64> = (0..n)
            .map(|k| match k % 3 {
                0 => -1.0 - 0.1 * ((k / 3) % 5) as f64,
                1 => 0.3 * (((k / 3) % 7) as f64 - 3.0),
                _ => 0.05 * ((k / 3) % 3) as f64,
            })
            .collect();
        let mu = (0..nc).map(|i| 0.3 + 0.1 * (i % 4) as f64).collect();
        FcProblem::from_coo(3, n, &row, &col, &val, q, mu).expect("valid")
    }

    #[test]
    fn coupled_contacts_never_share_a_colour() {
        let p = chain(50);
        let colors = contact_colors(&p);
        assert_eq!(colors.len(), 2, "a chain is two-colourable greedily");
        let mut color_of = vec![usize::MAX; 50];
        for (c, g) in colors.iter().enumerate() {
            for &i in g {
                color_of[i] = c;
            }
        }
        for i in 0..49 {
            assert_ne!(color_of[i], color_of[i + 1]);
        }
    }

    #[test]
    fn results_are_bit_identical_for_1_2_and_4_threads() {
        let p = chain(400);
        let options = SolveOptions { max_iter: Some(5), ..SolveOptions::default() };
        let solver = NsgsColored::default();
        let runs: Vec<Vec<u64>> = [1, 2, 4]
            .iter()
            .map(|&t| {
                let pool = rayon::ThreadPoolBuilder::new().num_threads(t).build().expect("pool");
                let sol = pool.install(|| solver.solve(&p, &options, None)).expect("runs");
                sol.r.iter().map(|v| v.to_bits()).collect()
            })
            .collect();
        assert_eq!(runs[0], runs[1]);
        assert_eq!(runs[0], runs[2]);
        // The `threads` key builds its own pool: the same bits again.
        let own = NsgsColored::new(NsgsColoredParams { threads: 3, ..Default::default() })
            .solve(&p, &options, None)
            .expect("runs");
        assert_eq!(runs[0], own.r.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    }

    #[test]
    fn it_solves_the_chain_to_the_default_tolerance() {
        let p = chain(100);
        let sol = NsgsColored::default().solve(&p, &SolveOptions::default(), None).expect("runs");
        assert_eq!(sol.status, Status::Solved, "error {:.2e}", sol.error);
    }
}
