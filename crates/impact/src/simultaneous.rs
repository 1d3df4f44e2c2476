//! The simultaneous multi-contact impact LCP, solved by any [`LcpSolver`] (Pfeiffer & Glocker
//! 1996, *Multibody Dynamics with Unilateral Contacts*, §7.2; Glocker 2001, *Set-Valued Force
//! Laws*, ch. 8 for the Poisson form).
//!
//! Pass rule: each pass poses the law on the contacts whose current normal velocity is closing
//! or touching (u_i <= tol); contacts that separate are left out, which keeps every pass
//! dissipative for 0 <= e <= 1 (see the crate docs). When a pass pushes a left-out contact into
//! approach, a follow-up pass treats it; the run ends when no contact approaches.

use faer::Mat;
use signorini_lcp::{Lcp, LcpSolver, SolveOptions, Status};

use crate::law::ImpactLaw;
use crate::problem::{ImpactError, ImpactOutcome, ImpactProblem, LcpSolveRecord};

/// Settings of [`solve_simultaneous`].
#[derive(Debug, Clone)]
pub struct SimultaneousParams {
    /// Options handed to the LCP solver (default: the solver's own defaults).
    pub options: SolveOptions,
    /// A contact approaches when u_i < -velocity_tol * max|u-| (default 1e-9).
    pub velocity_tol: f64,
    /// Limit on passes (default 1000). With e near 1 and strongly coupled contacts the
    /// follow-up impacts can ping-pong: on 2000 random SPD W (n <= 5, e in [0, 1]) 2% needed
    /// more than 64 passes and none more than 1000.
    pub max_passes: usize,
}

impl Default for SimultaneousParams {
    fn default() -> Self {
        Self { options: SolveOptions::default(), velocity_tol: 1e-9, max_passes: 1000 }
    }
}

/// Resolves an impact with one LCP per pass (normally one pass).
pub fn solve_simultaneous(
    problem: &ImpactProblem,
    law: ImpactLaw,
    solver: &dyn LcpSolver,
    params: &SimultaneousParams,
) -> Result<ImpactOutcome, ImpactError> {
    let n = problem.n_contacts();
    let tol = params.velocity_tol * problem.velocity_scale();
    let w = problem.delassus();
    let mut impulse = vec![0.0; n];
    let mut u = problem.pre_velocity().to_vec();
    let mut records = Vec::new();
    let mut passes = 0;
    while u.iter().any(|&ui| ui < -tol) {
        if passes == params.max_passes {
            return Err(ImpactError::TooManyPasses { max_passes: params.max_passes });
        }
        passes += 1;
        let set: Vec<usize> = (0..n).filter(|&i| u[i] <= tol).collect();
        let w_set = Mat::from_fn(set.len(), set.len(), |a, b| w[(set[a], set[b])]);
        let u_set: Vec<f64> = set.iter().map(|&i| u[i]).collect();
        let e_set: Vec<f64> = set.iter().map(|&i| problem.restitution()[i]).collect();
        let p_set = match law {
            ImpactLaw::Newton => {
                let q = u_set.iter().zip(&e_set).map(|(ui, ei)| (1.0 + ei) * ui).collect();
                solve_phase(solver, &w_set, q, params, "newton", &mut records)?
            }
            ImpactLaw::Inelastic => {
                solve_phase(solver, &w_set, u_set.clone(), params, "newton", &mut records)?
            }
            ImpactLaw::Poisson => poisson(solver, &w_set, &u_set, &e_set, params, &mut records)?,
        };
        for (a, &i) in set.iter().enumerate() {
            impulse[i] += p_set[a];
            for (k, uk) in u.iter_mut().enumerate() {
                *uk += w[(k, i)] * p_set[a];
            }
        }
    }
    let post_velocity = problem.velocity_after(&impulse);
    let energy_change = problem.energy_change(&impulse);
    Ok(ImpactOutcome {
        impulse,
        post_velocity,
        energy_change,
        passes,
        order: Vec::new(),
        lcp_solves: records,
    })
}

/// Compression (inelastic) then expansion: dP >= 0 _|_ u_c + W (E P_c + dP) >= 0.
fn poisson(
    solver: &dyn LcpSolver,
    w: &Mat<f64>,
    u: &[f64],
    e: &[f64],
    params: &SimultaneousParams,
    records: &mut Vec<LcpSolveRecord>,
) -> Result<Vec<f64>, ImpactError> {
    let m = u.len();
    let p_c = solve_phase(solver, w, u.to_vec(), params, "compression", records)?;
    let p_r: Vec<f64> = p_c.iter().zip(e).map(|(p, ei)| ei * p).collect();
    let q: Vec<f64> =
        (0..m).map(|i| u[i] + (0..m).map(|j| w[(i, j)] * (p_c[j] + p_r[j])).sum::<f64>()).collect();
    let dp = solve_phase(solver, w, q, params, "expansion", records)?;
    Ok((0..m).map(|i| p_c[i] + p_r[i] + dp[i]).collect())
}

fn solve_phase(
    solver: &dyn LcpSolver,
    w: &Mat<f64>,
    q: Vec<f64>,
    params: &SimultaneousParams,
    phase: &'static str,
    records: &mut Vec<LcpSolveRecord>,
) -> Result<Vec<f64>, ImpactError> {
    let n = q.len();
    let lcp = Lcp::from_dense(w.clone(), q).map_err(|e| ImpactError::Setup(e.to_string()))?;
    let sol =
        solver.solve(&lcp, &params.options, None).map_err(|e| ImpactError::Setup(e.to_string()))?;
    records.push(LcpSolveRecord::from_solution(&sol));
    if sol.status != Status::Solved {
        return Err(ImpactError::SolverFailed {
            solver: sol.solver,
            status: sol.status,
            residual: sol.merit.residual,
            phase,
            n,
        });
    }
    // The driver accepted z within tolerance; round-off below zero is not an impulse.
    Ok(sol.z.iter().map(|z| z.max(0.0)).collect())
}
