//! `newton-ac`: global semismooth Newton on the Alart–Curnier function of all contacts at
//! once (Alart, Curnier 1991, CMAME 92; Christensen, Klarbring, Pang, Strömberg 1998,
//! "Formulation and comparison of algorithms for frictional contact problems", IJNME 42;
//! Siconos `fc3d_nonsmooth_Newton_AlartCurnier`).
//!
//! Phi(r) stacks the per-contact Alart–Curnier functions of [`crate::local::alart_curnier`]
//! with rho_N, rho_T per contact from the diagonal of W_ii; an element of the generalised
//! Jacobian is J = A + B W with A, B block diagonal. Each step solves J dr = -Phi (faer dense
//! partial-pivoting LU for small or dense W; faer sparse LU for sparse W, the symbolic analysis
//! done once per solve: the pattern, the union of W's rows per contact plus the diagonal
//! blocks, does not depend on the regime) and backtracks on ½|Phi|² (Armijo, sigma = 1e-4,
//! halving; `memory > 1` makes it non-monotone, Grippo, Lampariello, Lucidi 1986, which
//! diverged on three of the Siconos files when measured with memory 10). The exact merit is
//! evaluated every step and decides convergence. A singular J is retried once with a tiny
//! diagonal shift; when the line search fails the shortest step is taken anyway, and five such
//! failures in a row end the run as `stalled` — or, with `fallback_sweeps = k > 0`, up to k
//! sweeps of `nsgs` are run from the current r instead, in chunks of 10 that stop once the error
//! is within tolerance (a hybrid in the spirit of Siconos' NSN hybrid strategies). With `gradient_fallback = true` a failed Newton line search is first followed
//! by an Armijo step along -J'Phi, the gradient of ½|Phi|², from the Cauchy step length
//! |g|²/|J g|² (the gradient globalisation of semismooth Newton methods, De Luca, Facchinei,
//! Kanzow 1996, "A semismooth equation approach to the solution of nonlinear complementarity
//! problems", Math. Prog. 75).

use faer::sparse::Triplet;
use std::borrow::Cow;

use super::FcStep;
use signorini_lcp::steps::{run_steps, Policy, Start, Step, Steps};
use signorini_lcp::{SolveError, Status};

use super::nsgs::{sweep_once, NsgsParams};
use super::{LinearSystem, Rows};
use crate::cone::project;
use crate::local::{alart_curnier, rho_from_block, AcPieces, M3, V3};
use crate::merit::evaluate;
use crate::solver::{projected, FcContext, FcOutcome};
use crate::FcProblem;

/// How the Newton systems are factorised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Linear {
    /// Sparse LU when J is at most 10 % full and n > 24, dense LU otherwise.
    Auto,
    /// Always dense LU.
    Dense,
    /// Always sparse LU.
    Sparse,
}

signorini_lcp::param_enum!(Linear { Auto => "auto", Dense => "dense", Sparse => "sparse" });

signorini_lcp::solver_params! {
/// Parameters of `newton-ac`.
    pub struct NewtonAcParams for "newton-ac" {
        /// auto (sparse LU when J = A + B W is at most 10 % full and n > 24), dense or sparse (faer LU, one symbolic analysis)
        linear: Linear = Linear::Auto;
        /// factor on rho_N = 1/W_NN, rho_T = 1/mean(W_TT) of each contact
        rho_scale: f64 = 1.0, valid if |v| v > 0.0 => "> 0";
        /// halvings of the step in the Armijo line search
        max_backtracks: usize = 30, valid if |v| v >= 1 => ">= 1";
        /// memory of the non-monotone line search (1 = plain Armijo)
        memory: usize = 1, valid if |v| v >= 1 => ">= 1";
        /// nsgs sweeps run when the line search fails (0: take the shortest step)
        fallback_sweeps: usize = 0;
        /// when the Newton line search fails, first try an Armijo step along -J'Phi
        gradient_fallback: bool = false;
    }
}

crate::fc_solver! {
    /// The `newton-ac` solver.
    pub struct NewtonAc(NewtonAcParams) {
        summary: "global semismooth Newton on the Alart-Curnier function, Armijo line search (Alart, Curnier 1991; Siconos fc3d_nonsmooth_Newton_AlartCurnier)",
        max_iter: 200,
        run: NewtonAc::solve_loop,
    }
}

/// Phi and the per-contact pieces at r.
fn evaluate_phi(
    problem: &FcProblem,
    r: &[f64],
    u: &[f64],
    rho: &[V3],
) -> (Vec<f64>, Vec<AcPieces>) {
    let d = problem.dimension();
    let mut phi = vec![0.0; r.len()];
    let mut pieces = Vec::with_capacity(problem.n_contacts());
    for (i, &mu) in problem.mu().iter().enumerate() {
        let (mut ri, mut ui) = ([0.0; 3], [0.0; 3]);
        ri[..d].copy_from_slice(&r[d * i..d * (i + 1)]);
        ui[..d].copy_from_slice(&u[d * i..d * (i + 1)]);
        let p = alart_curnier(d, &ri, &ui, mu, &rho[i]);
        phi[d * i..d * (i + 1)].copy_from_slice(&p.phi[..d]);
        pieces.push(p);
    }
    (phi, pieces)
}

/// ½|Phi|² at r (the line search's merit), without the Jacobian pieces.
fn half_sq_phi(problem: &FcProblem, r: &[f64], u: &[f64], rho: &[V3]) -> f64 {
    let d = problem.dimension();
    let mut sum = 0.0;
    for (i, &mu) in problem.mu().iter().enumerate() {
        let (mut ri, mut ui) = ([0.0; 3], [0.0; 3]);
        ri[..d].copy_from_slice(&r[d * i..d * (i + 1)]);
        ui[..d].copy_from_slice(&u[d * i..d * (i + 1)]);
        let p = alart_curnier(d, &ri, &ui, mu, &rho[i]);
        sum += p.phi[..d].iter().map(|v| v * v).sum::<f64>();
    }
    0.5 * sum
}

/// J = A + B W as triplets on the fixed pattern (explicit zeros kept), built once; each
/// Newton step rewrites only the values ([`JacobianPattern::fill`]).
struct JacobianPattern {
    /// The triplets, row-major by contact block, pattern fixed.
    triplets: Vec<Triplet<usize, usize, f64>>,
    /// First triplet of each row of J.
    row_start: Vec<usize>,
    /// Each row of W as (position in its contact's pattern, value).
    w_pos: Vec<Vec<(usize, f64)>>,
    /// Position of column d i + l in contact i's pattern.
    block_pos: Vec<[usize; 3]>,
}

impl JacobianPattern {
    /// The pattern of J per contact: the columns of W's rows of the contact plus its block.
    fn new(problem: &FcProblem, rows: &Rows<'_>) -> Self {
        let d = problem.dimension();
        let mut triplets = Vec::new();
        let mut row_start = Vec::with_capacity(problem.n() + 1);
        let mut w_pos = Vec::with_capacity(problem.n());
        let mut block_pos = Vec::with_capacity(problem.n_contacts());
        for i in 0..problem.n_contacts() {
            let mut cols: Vec<usize> = (d * i..d * (i + 1)).collect();
            for k in 0..d {
                rows.for_each(d * i + k, |j, _| cols.push(j));
            }
            cols.sort_unstable();
            cols.dedup();
            let position = |j: usize| cols.binary_search(&j).unwrap_or(0);
            let mut own = [0; 3];
            for (l, slot) in own.iter_mut().enumerate().take(d) {
                *slot = position(d * i + l);
            }
            block_pos.push(own);
            for k in 0..d {
                let mut row = Vec::new();
                rows.for_each(d * i + k, |j, x| row.push((position(j), x)));
                w_pos.push(row);
                row_start.push(triplets.len());
                triplets.extend(cols.iter().map(|&j| Triplet::new(d * i + k, j, 0.0)));
            }
        }
        row_start.push(triplets.len());
        Self { triplets, row_start, w_pos, block_pos }
    }

    /// Writes the values of J = A + B W + `shift` I for the pieces of every contact.
    fn fill(&mut self, d: usize, pieces: &[AcPieces], shift: f64) {
        for (i, piece) in pieces.iter().enumerate() {
            for k in 0..d {
                let row = d * i + k;
                let values = &mut self.triplets[self.row_start[row]..self.row_start[row + 1]];
                values.iter_mut().for_each(|t| t.val = 0.0);
                for m in 0..d {
                    let b = piece.b[k][m];
                    if b != 0.0 {
                        for &(pos, v) in &self.w_pos[d * i + m] {
                            values[pos].val += b * v;
                        }
                    }
                }
                for l in 0..d {
                    values[self.block_pos[i][l]].val +=
                        piece.a[k][l] + if l == k { shift } else { 0.0 };
                }
            }
        }
    }
}

/// g = J'Phi = A'Phi + W'(B'Phi), the gradient of ½|Phi|² where Phi is differentiable.
fn gradient(problem: &FcProblem, pieces: &[AcPieces], phi: &[f64]) -> Vec<f64> {
    let d = problem.dimension();
    let n = phi.len();
    let (mut g, mut bt_phi) = (vec![0.0; n], vec![0.0; n]);
    for (i, p) in pieces.iter().enumerate() {
        for l in 0..d {
            for k in 0..d {
                g[d * i + l] += p.a[k][l] * phi[d * i + k];
                bt_phi[d * i + l] += p.b[k][l] * phi[d * i + k];
            }
        }
    }
    let mut w_t = vec![0.0; n];
    problem.data().mul_vec_transpose(&bt_phi, &mut w_t);
    g.iter_mut().zip(&w_t).for_each(|(a, b)| *a += b);
    g
}

/// J x = A x + B (W x).
fn jacobian_times(problem: &FcProblem, pieces: &[AcPieces], x: &[f64]) -> Vec<f64> {
    let d = problem.dimension();
    let mut wx = vec![0.0; x.len()];
    problem.mul_vec(x, &mut wx);
    let mut out = vec![0.0; x.len()];
    for (i, p) in pieces.iter().enumerate() {
        for k in 0..d {
            out[d * i + k] =
                (0..d).map(|l| p.a[k][l] * x[d * i + l] + p.b[k][l] * wx[d * i + l]).sum::<f64>();
        }
    }
    out
}

impl NewtonAc {
    /// The fallback of `gradient_fallback`: an Armijo step on ½|Phi|² along -g, g = J'Phi,
    /// from the minimiser |g|²/|J g|² of the linearised model (Cauchy step; the globalisation
    /// of semismooth Newton methods by a gradient step, De Luca, Facchinei, Kanzow 1996).
    /// Returns the new r when it decreases ½|Phi|² enough.
    fn gradient_step(
        &self,
        problem: &FcProblem,
        r: &[f64],
        rho: &[V3],
        phi: &[f64],
        pieces: &[AcPieces],
    ) -> Option<Vec<f64>> {
        let g = gradient(problem, pieces, phi);
        let gg: f64 = g.iter().map(|v| v * v).sum();
        let jg = jacobian_times(problem, pieces, &g);
        let jgjg: f64 = jg.iter().map(|v| v * v).sum();
        if !(gg > 0.0 && jgjg > 0.0 && gg.is_finite() && jgjg.is_finite()) {
            return None;
        }
        let f0 = 0.5 * phi.iter().map(|v| v * v).sum::<f64>();
        let mut step = gg / jgjg;
        for _ in 0..self.params.max_backtracks {
            let trial: Vec<f64> = r.iter().zip(&g).map(|(a, b)| a - step * b).collect();
            if half_sq_phi(problem, &trial, &problem.velocity(&trial), rho) <= f0 - 1e-4 * step * gg
            {
                return Some(trial);
            }
            step *= 0.5;
        }
        None
    }

    fn solve_loop(
        &self,
        problem: &FcProblem,
        ctx: &mut FcContext<'_>,
    ) -> Result<FcOutcome, SolveError> {
        let p = &self.params;
        let d = problem.dimension();
        let n = problem.n();
        let nc = problem.n_contacts();
        run_steps(problem, ctx, |_, ctx| {
            let rows = super::rows(problem);
            let jacobian = JacobianPattern::new(problem, &rows);
            let rho: Vec<V3> = (0..nc)
                .map(|i| {
                    let mut r = rho_from_block(d, &problem.diagonal_block(i));
                    r.iter_mut().for_each(|x| *x *= p.rho_scale);
                    r
                })
                .collect();
            let sparse = match p.linear {
                Linear::Dense => false,
                Linear::Sparse => true,
                Linear::Auto => super::prefer_sparse(n, jacobian.triplets.len()),
            };
            let mut r = ctx.initial_r(n);
            for (b, &mu) in r.chunks_exact_mut(d).zip(problem.mu()) {
                project(b, mu);
            }
            Ok(Start::Run(NewtonAcState {
                solver: self,
                problem,
                rows,
                jacobian,
                rho,
                system: LinearSystem::new(sparse),
                r,
                scale: (0..n).map(|i| problem.get(i, i).abs()).fold(0.0f64, f64::max).max(1.0),
                history: Vec::new(),
                failures: 0,
                fallbacks: 0,
                gradient_steps: 0,
                blocks: super::diagonal_blocks(problem),
                order: (0..nc).collect(),
            }))
        })
    }
}

fn half_sq(x: &[f64]) -> f64 {
    0.5 * x.iter().map(|v| v * v).sum::<f64>()
}

/// The running state of `newton-ac`: r, the Jacobian's pattern and linear solver, the merit
/// values of the non-monotone line search, and the counts of failed searches and fallbacks.
struct NewtonAcState<'a> {
    solver: &'a NewtonAc,
    problem: &'a FcProblem,
    rows: Rows<'a>,
    jacobian: JacobianPattern,
    rho: Vec<V3>,
    system: LinearSystem,
    r: Vec<f64>,
    scale: f64,
    history: Vec<f64>,
    failures: usize,
    fallbacks: usize,
    gradient_steps: usize,
    blocks: Vec<M3>,
    order: Vec<usize>,
}

impl<'c> Steps<FcContext<'c>> for NewtonAcState<'_> {
    /// Newton iterates are tested from the start (a warm start at a solution takes no step).
    fn policy(&self) -> Policy {
        Policy { check_start: true, ..Policy::named("step") }
    }

    /// Newton iterates may leave the cones by round-off; the driver judges the projected r,
    /// so the loop tests (and returns) that.
    fn z(&self) -> Cow<'_, [f64]> {
        Cow::Owned(projected(self.problem, &self.r))
    }

    /// One Newton step on the Alart–Curnier function with the non-monotone Armijo search, and
    /// its fallbacks (a gradient step, nsgs sweeps, or the shortest step).
    fn step(&mut self, problem: &FcProblem, ctx: &mut FcContext<'c>, step_no: usize) -> FcStep {
        let p = &self.solver.params;
        let n = problem.n();
        let it = step_no - 1;
        let r = &mut self.r;
        let u = problem.velocity(r);
        let (phi, pieces) = evaluate_phi(problem, r, &u, &self.rho);
        let f0 = half_sq(&phi);
        let mut dr: Vec<f64> = phi.iter().map(|v| -v).collect();
        let d = problem.dimension();
        self.jacobian.fill(d, &pieces, 0.0);
        if let Err(first) = self.system.solve(n, &self.jacobian.triplets, &mut dr) {
            dr = phi.iter().map(|v| -v).collect();
            self.jacobian.fill(d, &pieces, 1e-10 * self.scale);
            if let Err(e) = self.system.solve(n, &self.jacobian.triplets, &mut dr) {
                let mut o = FcOutcome::new(r.clone(), Status::NumericalFailure, it);
                o.note = Some(format!("step {it}: {first}; shifted: {e}"));
                return Ok(Step::Done(o));
            }
        }
        // Armijo test against the largest of the last `memory` values (memory 1: plain).
        self.history.push(f0);
        if self.history.len() > p.memory {
            self.history.remove(0);
        }
        let reference = self.history.iter().copied().fold(f0, f64::max);
        let mut step = 1.0;
        let mut accepted = false;
        let mut last = r.clone();
        for _ in 0..p.max_backtracks {
            let trial: Vec<f64> = r.iter().zip(&dr).map(|(a, b)| a + step * b).collect();
            let ut = problem.velocity(&trial);
            if half_sq_phi(problem, &trial, &ut, &self.rho) <= reference - 2e-4 * step * f0 {
                *r = trial;
                accepted = true;
                break;
            }
            last = trial;
            step *= 0.5;
        }
        if !accepted && p.gradient_fallback {
            if let Some(next) = self.solver.gradient_step(problem, r, &self.rho, &phi, &pieces) {
                *r = next;
                accepted = true;
                self.gradient_steps += 1;
            }
        }
        let measure = f0.sqrt();
        if accepted {
            self.failures = 0;
        } else if p.fallback_sweeps > 0 {
            let nsgs_params = NsgsParams::default();
            // In chunks of 10, stopping once the error is within tolerance (Rover1040: one
            // failed line search used to run all 50 sweeps, to 4e-13).
            let mut done = 0;
            while done < p.fallback_sweeps {
                let chunk = (p.fallback_sweeps - done).min(10);
                for _ in 0..chunk {
                    sweep_once(&nsgs_params, problem, &self.rows, &self.blocks, &self.order, r);
                }
                done += chunk;
                if evaluate(problem, &projected(problem, r)).1 <= ctx.tol {
                    break;
                }
            }
            self.fallbacks += 1;
        } else {
            // Take the shortest step anyway; several failures in a row end the run.
            self.failures += 1;
            *r = last;
            if self.failures >= 5 {
                return Ok(Step::End {
                    status: Status::Stalled,
                    note: Some(format!(
                        "step {step_no}: the line search found no decrease five times in a row"
                    )),
                });
            }
        }
        Ok(Step::checked(measure))
    }

    /// A solved run says how many fallbacks it took.
    fn finish(self, mut outcome: FcOutcome) -> FcOutcome {
        if outcome.status == Status::Solved && outcome.note.is_none() {
            let mut said = Vec::new();
            if self.fallbacks > 0 {
                said.push(format!("{} nsgs fallbacks", self.fallbacks));
            }
            if self.gradient_steps > 0 {
                said.push(format!("{} gradient steps", self.gradient_steps));
            }
            if !said.is_empty() {
                outcome.note = Some(said.join(", "));
            }
        }
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two coupled 3D contacts (mu 0.3 and 0.8) with a symmetric positive definite W.
    fn two_contacts() -> FcProblem {
        let w = vec![
            vec![2.0, 0.3, -0.1, 0.5, 0.0, 0.2],
            vec![0.3, 1.5, 0.2, 0.0, 0.1, 0.0],
            vec![-0.1, 0.2, 1.8, 0.0, 0.0, 0.3],
            vec![0.5, 0.0, 0.0, 2.5, 0.1, 0.0],
            vec![0.0, 0.1, 0.0, 0.1, 1.2, -0.2],
            vec![0.2, 0.0, 0.3, 0.0, -0.2, 1.4],
        ];
        let q = vec![-1.0, 0.9, -0.4, -2.0, 0.01, 0.02];
        FcProblem::from_dense_rows(3, &w, q, vec![0.3, 0.8]).expect("valid")
    }

    /// The assembled J = A + B W (on its sparse pattern) matches central finite differences of
    /// the global Phi on two coupled 3D contacts, one sliding and one sticking.
    #[test]
    fn assembled_jacobian_matches_finite_differences() {
        let p = two_contacts();
        let rows = super::super::rows(&p);
        let mut pattern = JacobianPattern::new(&p, &rows);
        let rho: Vec<V3> = (0..2).map(|i| rho_from_block(3, &p.diagonal_block(i))).collect();
        let r = vec![1.0, 0.8, -0.5, 0.8, 0.01, 0.02];
        let u = p.velocity(&r);
        let (_, pieces) = evaluate_phi(&p, &r, &u, &rho);
        let mut jac = [[0.0; 6]; 6];
        pattern.fill(3, &pieces, 0.0);
        for t in &pattern.triplets {
            jac[t.row][t.col] += t.val;
        }
        let h = 1e-7;
        for c in 0..6 {
            let (mut rp, mut rm) = (r.clone(), r.clone());
            rp[c] += h;
            rm[c] -= h;
            let fp = evaluate_phi(&p, &rp, &p.velocity(&rp), &rho).0;
            let fm = evaluate_phi(&p, &rm, &p.velocity(&rm), &rho).0;
            for row in 0..6 {
                let fd = (fp[row] - fm[row]) / (2.0 * h);
                assert!((fd - jac[row][c]).abs() < 1e-6, "J[{row}][{c}] = {} vs {fd}", jac[row][c]);
            }
        }
    }

    /// g = J'Phi is the gradient of ½|Phi|² (central differences) at a point where Phi is
    /// differentiable, and J g matches the directional derivative along g.
    #[test]
    fn the_fallback_gradient_is_that_of_half_the_squared_residual() {
        let p = two_contacts();
        let rho: Vec<V3> = (0..2).map(|i| rho_from_block(3, &p.diagonal_block(i))).collect();
        let r = vec![1.0, 0.8, -0.5, 0.8, 0.01, 0.02];
        let half_sq = |x: &[f64]| {
            let phi = evaluate_phi(&p, x, &p.velocity(x), &rho).0;
            0.5 * phi.iter().map(|v| v * v).sum::<f64>()
        };
        let (phi, pieces) = evaluate_phi(&p, &r, &p.velocity(&r), &rho);
        let g = gradient(&p, &pieces, &phi);
        let h = 1e-7;
        for c in 0..6 {
            let (mut rp, mut rm) = (r.clone(), r.clone());
            rp[c] += h;
            rm[c] -= h;
            let fd = (half_sq(&rp) - half_sq(&rm)) / (2.0 * h);
            assert!((fd - g[c]).abs() < 1e-6, "g[{c}] = {} vs {fd}", g[c]);
        }
        let jg = jacobian_times(&p, &pieces, &g);
        let (rp, rm): (Vec<f64>, Vec<f64>) =
            r.iter().zip(&g).map(|(a, b)| (a + h * b, a - h * b)).unzip();
        let fp = evaluate_phi(&p, &rp, &p.velocity(&rp), &rho).0;
        let fm = evaluate_phi(&p, &rm, &p.velocity(&rm), &rho).0;
        for k in 0..6 {
            let fd = (fp[k] - fm[k]) / (2.0 * h);
            assert!((fd - jg[k]).abs() < 1e-6, "(J g)[{k}] = {} vs {fd}", jg[k]);
        }
    }
}
