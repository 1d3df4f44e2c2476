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
use signorini_lcp::registry::canonical_name;
use signorini_lcp::{ParamDoc, SolveError, SolverParams, SpecError, Status};

use super::Rows;
use crate::cone::project;
use crate::local::{self, LocalSettings, M3, V3};
use crate::merit::error;
use crate::registry::FcRegistry;
use crate::solver::{FcContext, FcOutcome, FcSolver};
use crate::FcProblem;

/// The local solver of each contact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LocalSolver {
    /// Local Alart–Curnier semismooth Newton, projection as fallback.
    AlartCurnier,
    /// Local projection on the cone with step 1/|W_ii|, iterated.
    Projection,
}

impl LocalSolver {
    fn as_str(self) -> &'static str {
        match self {
            Self::AlartCurnier => "ac",
            Self::Projection => "proj",
        }
    }
}

/// Parameters of `nsgs`.
#[derive(Debug, Clone, PartialEq)]
pub struct NsgsParams {
    /// Local solver (`ac` or `proj`; default `ac`).
    pub local: LocalSolver,
    /// Relaxation omega in (0, 2) (default 1).
    pub omega: f64,
    /// Visit the contacts in a shuffled order each sweep (default false).
    pub shuffle: bool,
    /// Seed of the shuffle (default 0).
    pub seed: u64,
    /// Evaluate the full merit every this many sweeps (default 1).
    pub check_every: usize,
    /// Local iterations per contact and sweep (default 20 for `ac`; `proj` uses 10 times it).
    pub local_max_iter: usize,
    /// Relative tolerance of the local solver (default 1e-14).
    pub local_tol: f64,
}

impl Default for NsgsParams {
    fn default() -> Self {
        Self {
            local: LocalSolver::AlartCurnier,
            omega: 1.0,
            shuffle: false,
            seed: 0,
            check_every: 1,
            local_max_iter: 20,
            local_tol: 1e-14,
        }
    }
}

impl SolverParams for NsgsParams {
    const SOLVER: &'static str = "nsgs";
    const KEYS: &'static [ParamDoc] = &[
        ParamDoc {
            key: "local",
            default: "ac",
            doc: "local solver: ac (Alart-Curnier Newton, projection fallback) or proj",
        },
        ParamDoc { key: "omega", default: "1", doc: "relaxation in (0, 2)" },
        ParamDoc { key: "shuffle", default: "false", doc: "shuffle the contact order every sweep" },
        ParamDoc { key: "seed", default: "0", doc: "seed of the shuffle (ChaCha8)" },
        ParamDoc {
            key: "check_every",
            default: "1",
            doc: "sweeps between evaluations of the full merit",
        },
        ParamDoc {
            key: "local_max_iter",
            default: "20",
            doc: "local iterations per contact and sweep (proj: 10x)",
        },
        ParamDoc {
            key: "local_tol",
            default: "1e-14",
            doc: "relative tolerance of the local solver",
        },
    ];

    fn set(&mut self, key: &str, value: &str) -> Result<(), SpecError> {
        match key {
            "local" => {
                self.local = match value.trim() {
                    "ac" | "alart-curnier" => LocalSolver::AlartCurnier,
                    "proj" | "projection" => LocalSolver::Projection,
                    _ => return Err(Self::bad(key, value, "expected ac or proj")),
                }
            }
            "omega" => self.omega = Self::parse_positive(key, value)?,
            "shuffle" => self.shuffle = Self::parse_bool(key, value)?,
            "seed" => {
                self.seed = value
                    .trim()
                    .parse()
                    .map_err(|_| Self::bad(key, value, "expected an integer >= 0"))?
            }
            "check_every" => self.check_every = Self::parse_count(key, value)?,
            "local_max_iter" => self.local_max_iter = Self::parse_count(key, value)?,
            "local_tol" => self.local_tol = Self::parse_positive(key, value)?,
            _ => return Err(Self::bad(key, value, "unknown key")),
        }
        Ok(())
    }

    fn validate(&self) -> Result<(), SpecError> {
        if !(self.omega > 0.0 && self.omega < 2.0) {
            return Err(Self::bad("omega", &self.omega.to_string(), "must lie in (0, 2)"));
        }
        Ok(())
    }
}

/// The `nsgs` solver.
#[derive(Debug, Clone, Default)]
pub struct Nsgs {
    /// Its parameters.
    pub params: NsgsParams,
}

/// Registers `nsgs`.
pub fn register(r: &mut FcRegistry) {
    r.register_params::<NsgsParams>(
        "nonsmooth Gauss-Seidel over contacts, local Alart-Curnier Newton or projection (Jean 1999; Siconos fc3d_nsgs)",
        |pairs| Ok(Box::new(Nsgs { params: NsgsParams::from_pairs(pairs)? })),
    );
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
    let q = problem.q();
    let mut change = 0.0f64;
    let mut size = 0.0f64;
    for &i in order {
        let wii = &blocks[i];
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
        for k in 0..d {
            change = change.max((new[k] - start[k]).abs());
            size = size.max(new[k].abs());
        }
        r[d * i..d * (i + 1)].copy_from_slice(&new[..d]);
    }
    if size > 0.0 {
        change / size
    } else {
        change
    }
}

impl FcSolver for Nsgs {
    fn name(&self) -> String {
        let p = &self.params;
        let def = NsgsParams::default();
        let mut pairs = Vec::new();
        if p.local != def.local {
            pairs.push(("local", p.local.as_str().to_string()));
        }
        if p.omega != def.omega {
            pairs.push(("omega", p.omega.to_string()));
        }
        if p.shuffle {
            pairs.push(("shuffle", "true".into()));
            pairs.push(("seed", p.seed.to_string()));
        }
        if p.check_every != def.check_every {
            pairs.push(("check_every", p.check_every.to_string()));
        }
        if p.local_max_iter != def.local_max_iter {
            pairs.push(("local_max_iter", p.local_max_iter.to_string()));
        }
        if p.local_tol != def.local_tol {
            pairs.push(("local_tol", p.local_tol.to_string()));
        }
        canonical_name(NsgsParams::SOLVER, &pairs)
    }

    fn default_max_iter(&self, _: &FcProblem) -> usize {
        1000
    }

    fn run(&self, problem: &FcProblem, ctx: &mut FcContext<'_>) -> Result<FcOutcome, SolveError> {
        let p = &self.params;
        let d = problem.dimension();
        let nc = problem.n_contacts();
        let rows = Rows::new(problem);
        let blocks: Vec<M3> = (0..nc).map(|i| problem.diagonal_block(i)).collect();
        let mut r = ctx.initial_r(problem.n());
        for (b, &mu) in r.chunks_exact_mut(d).zip(problem.mu()) {
            project(b, mu);
        }
        let mut order: Vec<usize> = (0..nc).collect();
        let mut rng = ChaCha8Rng::seed_from_u64(p.seed);
        for sweep in 1..=ctx.max_iter {
            if ctx.time_exceeded() {
                return Ok(FcOutcome::new(r, Status::TimeLimit, sweep - 1));
            }
            if p.shuffle {
                order.shuffle(&mut rng);
            }
            let measure = sweep_once(p, problem, &rows, &blocks, &order, &mut r);
            if r.iter().any(|v| !v.is_finite()) {
                let mut o = FcOutcome::new(r, Status::NumericalFailure, sweep);
                o.note = Some(format!("a reaction became non-finite in sweep {sweep}"));
                return Ok(o);
            }
            ctx.record(problem, sweep, measure, &r);
            if (sweep.is_multiple_of(p.check_every) || sweep == ctx.max_iter)
                && error(problem, &r) <= ctx.tol
            {
                return Ok(FcOutcome::new(r, Status::Solved, sweep));
            }
        }
        Ok(FcOutcome::new(r, Status::MaxIterations, ctx.max_iter))
    }
}
