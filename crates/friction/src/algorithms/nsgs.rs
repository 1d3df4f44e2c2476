//! `nsgs`: nonsmooth Gauss–Seidel over contacts with an exact local solver per contact (Jean
//! 1999, "The non-smooth contact dynamics method", CMAME 177; Acary, Brémond, Huber 2018, "On
//! solving contact problems with Coulomb friction: formulations and numerical comparisons",
//! §4; Siconos `fc3d_nsgs`).
//!
//! One sweep visits every contact i (in order, or shuffled with a seed) and solves the local
//! problem u_i = W_ii r_i + q_i + sum_{j != i} W_ij r_j for r_i with the other reactions frozen:
//! by the local Alart–Curnier semismooth Newton (`local=ac`, falling back to the local
//! projection when Newton fails) or by the local projection iterated (`local=proj`). The
//! update is relaxed by omega and projected back onto the cone. The full merit is evaluated
//! every `check_every` sweeps and at the last one, and decides convergence.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::borrow::Cow;

use super::FcStep;
use signorini_lcp::steps::{run_steps, Policy, Start, Steps};
use signorini_lcp::SolveError;

use super::Rows;
use crate::cone::project;
use crate::local::{self, LocalSettings, M3, V3};
use crate::solver::{projected, FcContext, FcOutcome};
use crate::FcProblem;

/// The local solver of each contact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalSolver {
    /// Local Alart–Curnier semismooth Newton, projection as fallback.
    AlartCurnier,
    /// Local projection on the cone with step 1/|W_ii|, iterated.
    Projection,
}

signorini_lcp::param_enum!(LocalSolver { AlartCurnier => "ac" | "alart-curnier", Projection => "proj" | "projection" });

signorini_lcp::solver_params! {
    /// Parameters of `nsgs`.
    pub struct NsgsParams for "nsgs" {
        /// local solver: ac (Alart-Curnier Newton, projection fallback) or proj
        local: LocalSolver = LocalSolver::AlartCurnier;
        /// relaxation
        omega: f64 = 1.0, valid if |v| v > 0.0 && v < 2.0 => "in (0, 2)";
        /// shuffle the contact order every sweep
        shuffle: bool = false;
        /// seed of the shuffle (ChaCha8)
        seed: u64 = 0;
        /// sweeps between evaluations of the full merit
        check_every: usize = 1, valid if |v| v >= 1 => ">= 1";
        /// local iterations per contact and sweep (proj: 10x)
        local_max_iter: usize = 20, valid if |v| v >= 1 => ">= 1";
        /// relative tolerance of the local solver
        local_tol: f64 = 1e-14, valid if |v| v > 0.0 => "> 0";
    }
}

crate::fc_solver! {
    /// The `nsgs` solver.
    pub struct Nsgs(NsgsParams) {
        summary: "nonsmooth Gauss-Seidel over contacts, local Alart-Curnier Newton or projection (Jean 1999; Siconos fc3d_nsgs)",
        max_iter: 1000,
        run: Nsgs::solve_loop,
    }
}

/// Solves the local problem of one contact; returns the new block.
fn solve_local(p: &NsgsParams, d: usize, wii: &M3, q: &V3, mu: f64, start: &V3) -> V3 {
    let settings = LocalSettings { max_iter: p.local_max_iter, tol: p.local_tol };
    let proj_settings = LocalSettings { max_iter: 10 * p.local_max_iter, tol: p.local_tol };
    match p.local {
        LocalSolver::Projection => {
            let mut r = *start;
            local::projection(d, wii, q, mu, &mut r, proj_settings);
            r
        }
        LocalSolver::AlartCurnier => {
            let mut r = *start;
            if local::newton_ac(d, wii, q, mu, &mut r, settings) {
                project(&mut r[..d], mu);
                return r;
            }
            let mut fallback = *start;
            local::projection(d, wii, q, mu, &mut fallback, proj_settings);
            project(&mut r[..d], mu);
            let e_newton = local::local_error(d, wii, q, mu, &r);
            let e_proj = local::local_error(d, wii, q, mu, &fallback);
            if e_newton.is_finite() && e_newton <= e_proj {
                r
            } else {
                fallback
            }
        }
    }
}

/// The new block of contact `i` from the local problem with the other reactions of `r` frozen
/// (relaxed by omega and projected); returns (old block, new block). Shared by the sweeps of
/// `nsgs` and `nsgs-colored`.
pub(crate) fn local_update(
    p: &NsgsParams,
    problem: &FcProblem,
    rows: &Rows<'_>,
    wii: &M3,
    i: usize,
    r: &[f64],
) -> (V3, V3) {
    let d = problem.dimension();
    let q = problem.q();
    let mut start = [0.0; 3];
    start[..d].copy_from_slice(&r[d * i..d * (i + 1)]);
    let mut qloc = [0.0; 3];
    for k in 0..d {
        let row = d * i + k;
        let own: f64 = (0..d).map(|l| wii[k][l] * start[l]).sum();
        qloc[k] = q[row] + rows.dot(row, r) - own;
    }
    let mut new = solve_local(p, d, wii, &qloc, problem.mu()[i], &start);
    if p.omega != 1.0 {
        for k in 0..d {
            new[k] = p.omega * new[k] + (1.0 - p.omega) * start[k];
        }
        project(&mut new[..d], problem.mu()[i]);
    }
    (start, new)
}

/// One Gauss–Seidel sweep over the contacts in `order`; returns the relative change
/// max |delta r| / max |r|. Shared with `newton-ac`'s fallback.
pub(crate) fn sweep_once(
    p: &NsgsParams,
    problem: &FcProblem,
    rows: &Rows<'_>,
    blocks: &[M3],
    order: &[usize],
    r: &mut [f64],
) -> f64 {
    let d = problem.dimension();
    let mut change = SweepChange::default();
    for &i in order {
        let (start, new) = local_update(p, problem, rows, &blocks[i], i, r);
        change.write(d, i, &start, &new, r);
    }
    change.relative()
}

/// What a sweep changed: max |delta r| and max |r| over the blocks it wrote (maxima: exact
/// whatever the order of the writes). Shared by `nsgs` and `nsgs-colored`.
#[derive(Debug, Default)]
pub(crate) struct SweepChange {
    change: f64,
    size: f64,
}

impl SweepChange {
    /// Writes the new block of contact i into r and accounts for it.
    pub(crate) fn write(&mut self, d: usize, i: usize, start: &V3, new: &V3, r: &mut [f64]) {
        for k in 0..d {
            self.change = self.change.max((new[k] - start[k]).abs());
            self.size = self.size.max(new[k].abs());
        }
        r[d * i..d * (i + 1)].copy_from_slice(&new[..d]);
    }

    /// max |delta r| / max |r| (max |delta r| when r = 0).
    pub(crate) fn relative(&self) -> f64 {
        if self.size > 0.0 {
            self.change / self.size
        } else {
            self.change
        }
    }
}

impl Nsgs {
    fn solve_loop(
        &self,
        problem: &FcProblem,
        ctx: &mut FcContext<'_>,
    ) -> Result<FcOutcome, SolveError> {
        run_steps(problem, ctx, |_, ctx| {
            let nc = problem.n_contacts();
            Ok(Start::Run(NsgsState {
                params: &self.params,
                rows: super::rows(problem),
                blocks: super::diagonal_blocks(problem),
                r: projected(problem, &ctx.initial_r(problem.n())),
                order: (0..nc).collect(),
                rng: ChaCha8Rng::seed_from_u64(self.params.seed),
            }))
        })
    }
}

/// The running state of `nsgs`: r, the contact order (shuffled per sweep when asked) and the
/// diagonal blocks of W.
struct NsgsState<'a> {
    params: &'a NsgsParams,
    rows: Rows<'a>,
    blocks: Vec<M3>,
    r: Vec<f64>,
    order: Vec<usize>,
    rng: ChaCha8Rng,
}

impl<'c> Steps<FcContext<'c>> for NsgsState<'_> {
    fn policy(&self) -> Policy {
        Policy { check_last: true, ..Policy::named("sweep") }
    }

    fn z(&self) -> Cow<'_, [f64]> {
        Cow::Borrowed(&self.r)
    }

    /// One sweep over the contacts, each solved locally with the others fixed.
    fn step(&mut self, problem: &FcProblem, _: &mut FcContext<'c>, sweep: usize) -> FcStep {
        let p = self.params;
        if p.shuffle {
            self.order.shuffle(&mut self.rng);
        }
        let measure = sweep_once(p, problem, &self.rows, &self.blocks, &self.order, &mut self.r);
        super::taken(measure, &self.r, sweep, p.check_every)
    }
}
