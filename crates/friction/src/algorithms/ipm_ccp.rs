//! `ipm-ccp`: the convex cone relaxation min ½ r'Sr + (q + s)'r, r_i in K_mu_i (S = (W + W')/2),
//! as a second-order cone program solved by clarabel's interior-point method (Goulart, Chen
//! 2024), with De Saxcé's shift s_i = mu_i |u_T,i| e_N updated between solves (Acary, Cadoux,
//! Lemaréchal, Malick 2011: the fixed point of the shifted relaxation solves Coulomb's law;
//! Anitescu, Tasora 2010 for the relaxation itself).
//!
//! Cones, in clarabel's rows of s = b - A r: one nonnegative cone on every r_N (so a contact
//! with mu = 0 keeps r_N >= 0), then one second-order cone (mu_i r_N, r_T) per contact. With
//! `shift_iter = 0` the answer is the relaxation's (exact when no contact slides); otherwise up
//! to `shift_iter` solves, each with the shift of the previous r, stopping once the Coulomb
//! error is within tolerance. Each solve scales q + s to unit max norm (the problem is
//! positively homogeneous in (q, r)), so clarabel's absolute tolerances do not depend on the
//! scale of q. The status always reports the true Coulomb error (the driver recomputes it). No
//! warm start: clarabel 0.11 has none. S is the symmetric part of W: for a non-symmetric W the
//! relaxation is of another problem and the shifted fixed point is not Coulomb's.

use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettingsBuilder, DefaultSolver, IPSolver, SolverStatus, SupportedConeT,
};
use signorini_lcp::{SolveError, Status};

use crate::merit::evaluate;
use crate::solver::{FcContext, FcOutcome, FcSolver};
use crate::FcProblem;

signorini_lcp::solver_params! {
    /// Parameters of `ipm-ccp` (the clarabel iteration limit per solve is the common key
    /// `max_iter`).
    pub struct IpmCcpParams for "ipm-ccp" {
        /// solves with De Saxce's shift from the previous r (0: the convex relaxation)
        shift_iter: usize = 20, valid if |v| v <= 10_000 => "in 0..=10000";
    }
}

crate::fc_solver! {
    /// The `ipm-ccp` solver.
    pub struct IpmCcp(IpmCcpParams) {
        summary: "convex cone relaxation as an SOCP through clarabel, with De Saxce's shift updated between solves (Anitescu, Tasora 2010; Acary et al. 2011)",
        max_iter: 200,
        run: IpmCcp::solve_loop,
    }
}

/// Upper triangle of S = (W + W') / 2 in compressed columns.
fn symmetric_part_upper(problem: &FcProblem) -> CscMatrix<f64> {
    let n = problem.n();
    let rows = super::rows(problem);
    let mut cols: Vec<Vec<(usize, f64)>> = vec![Vec::new(); n];
    for i in 0..n {
        rows.for_each(i, |j, v| {
            let (r, c) = if i <= j { (i, j) } else { (j, i) };
            cols[c].push((r, if i == j { v } else { 0.5 * v }));
        });
    }
    let (mut colptr, mut rowval, mut nzval) = (vec![0usize], Vec::new(), Vec::new());
    for col in &mut cols {
        col.sort_by_key(|e| e.0);
        for &(r, v) in col.iter() {
            match rowval.last() {
                Some(&last) if last == r && nzval.len() > *colptr.last().unwrap_or(&0) => {
                    if let Some(x) = nzval.last_mut() {
                        *x += v;
                    }
                }
                _ => {
                    rowval.push(r);
                    nzval.push(v);
                }
            }
        }
        colptr.push(rowval.len());
    }
    CscMatrix::new(n, n, colptr, rowval, nzval)
}

/// A = -[E_N; diag(mu_i, 1, .., 1)] (rows: the r_N, then each contact's cone block), b = 0.
fn constraint_matrix(problem: &FcProblem) -> CscMatrix<f64> {
    let (d, nc, n) = (problem.dimension(), problem.n_contacts(), problem.n());
    let (mut colptr, mut rowval, mut nzval) = (vec![0usize], Vec::new(), Vec::new());
    for j in 0..n {
        let (c, k) = (j / d, j % d);
        if k == 0 {
            rowval.push(c);
            nzval.push(-1.0);
            rowval.push(nc + j);
            nzval.push(-problem.mu()[c]);
        } else {
            rowval.push(nc + j);
            nzval.push(-1.0);
        }
        colptr.push(rowval.len());
    }
    CscMatrix::new(nc + n, n, colptr, rowval, nzval)
}

impl IpmCcp {
    fn solve_loop(
        &self,
        problem: &FcProblem,
        ctx: &mut FcContext<'_>,
    ) -> Result<FcOutcome, SolveError> {
        let (d, nc, n) = (problem.dimension(), problem.n_contacts(), problem.n());
        let p = symmetric_part_upper(problem);
        let a = constraint_matrix(problem);
        let b = vec![0.0; nc + n];
        let mut cones = vec![SupportedConeT::NonnegativeConeT(nc)];
        cones.extend((0..nc).map(|_| SupportedConeT::SecondOrderConeT(d)));
        let tol = (0.01 * ctx.tol).min(1e-10);
        let mut r = vec![0.0; n];
        let mut shift = vec![0.0; n];
        let mut iterations = 0usize;
        let mut status = Status::MaxIterations;
        for outer in 0..=self.params.shift_iter {
            let time_limit = match ctx.remaining_time() {
                Some(left) if left.is_zero() => {
                    status = Status::TimeLimit;
                    break;
                }
                Some(left) => left.as_secs_f64(),
                None => f64::INFINITY,
            };
            let settings = DefaultSettingsBuilder::default()
                .verbose(false)
                .max_iter(u32::try_from(ctx.max_iter).unwrap_or(u32::MAX))
                .time_limit(time_limit)
                .tol_gap_abs(tol)
                .tol_gap_rel(tol)
                .tol_feas(tol)
                .build()
                .map_err(|e| SolveError::InvalidOption(format!("clarabel settings: {e}")))?;
            // The problem is positively homogeneous in (q, r): solve with c scaled to unit max
            // norm, so clarabel's absolute tolerances mean the same at every scale of q.
            let c: Vec<f64> = problem.q().iter().zip(&shift).map(|(q, s)| q + s).collect();
            let sigma = c.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            if sigma == 0.0 || !sigma.is_finite() {
                r = vec![0.0; n];
                let err = evaluate(problem, &r).1;
                status = if err <= ctx.tol { Status::Solved } else { Status::NumericalFailure };
                break;
            }
            let c: Vec<f64> = c.iter().map(|v| v / sigma).collect();
            let mut solver = DefaultSolver::new(&p, &c, &a, &b, &cones, settings).map_err(|e| {
                SolveError::Unsupported { solver: self.name(), reason: format!("clarabel: {e}") }
            })?;
            solver.solve();
            let sol = &solver.solution;
            iterations = iterations.saturating_add(sol.iterations as usize);
            match sol.status {
                SolverStatus::Solved | SolverStatus::AlmostSolved => {}
                SolverStatus::MaxTime => {
                    status = Status::TimeLimit;
                    break;
                }
                SolverStatus::MaxIterations => {
                    status = Status::MaxIterations;
                    break;
                }
                other => {
                    let mut o = FcOutcome::new(r, Status::NumericalFailure, iterations);
                    o.note = Some(format!("clarabel ended {other:?} at outer solve {outer}"));
                    return Ok(o);
                }
            }
            if sol.x.iter().all(|v| v.is_finite()) {
                r = sol.x.iter().map(|v| v * sigma).collect();
            }
            let (u, err) = evaluate(problem, &crate::solver::projected(problem, &r));
            ctx.record(problem, outer, err, &r);
            if err <= ctx.tol {
                status = Status::Solved;
                break;
            }
            for (cblock, (s, ub)) in shift.chunks_exact_mut(d).zip(u.chunks_exact(d)).enumerate() {
                let ut = ub[1..].iter().map(|v| v * v).sum::<f64>().sqrt();
                s[0] = problem.mu()[cblock] * ut;
            }
        }
        Ok(FcOutcome::new(r, status, iterations))
    }
}
