//! Sequential pairwise impact resolution (the "propagation" treatment of Newton's cradle;
//! Brogliato 2016, *Nonsmooth Mechanics*, 3rd ed., §6.2 on multiple impacts).
//!
//! **Ordering rule.** Each pairwise impact acts on the contact with the most negative current
//! normal velocity (ties: lowest contact index) with the single-contact impulse
//! P = -(1 + e_i) u_i / W_ii (Newton and Poisson coincide for one contact; inelastic uses e = 0),
//! then every velocity is updated by u += W[:, i] P. It stops when no contact approaches
//! (u_i >= -tol * max|u-|). Each pairwise impact changes the energy by
//! -(1 - e_i^2) u_i^2 / (2 W_ii) <= 0 for e_i <= 1.

use crate::law::ImpactLaw;
use crate::problem::{ImpactError, ImpactOutcome, ImpactProblem};

/// Settings of [`solve_sequential`].
#[derive(Debug, Clone)]
pub struct SequentialParams {
    /// A contact approaches when u_i < -velocity_tol * max|u-| (default 1e-9).
    pub velocity_tol: f64,
    /// Limit on pairwise impacts (default 10 000).
    pub max_impacts: usize,
}

impl Default for SequentialParams {
    fn default() -> Self {
        Self { velocity_tol: 1e-9, max_impacts: 10_000 }
    }
}

/// Resolves an impact one contact at a time in the order stated in the module docs.
pub fn solve_sequential(
    problem: &ImpactProblem,
    law: ImpactLaw,
    params: &SequentialParams,
) -> Result<ImpactOutcome, ImpactError> {
    let n = problem.n_contacts();
    let w = problem.delassus();
    let tol = params.velocity_tol * problem.velocity_scale();
    let mut u = problem.pre_velocity().to_vec();
    let mut impulse = vec![0.0; n];
    let mut order = Vec::new();
    loop {
        let mut pick: Option<usize> = None;
        for (i, &ui) in u.iter().enumerate() {
            if ui < -tol && pick.is_none_or(|k| ui < u[k]) {
                pick = Some(i);
            }
        }
        let Some(i) = pick else { break };
        if order.len() == params.max_impacts {
            return Err(ImpactError::SequentialDidNotTerminate { max_impacts: params.max_impacts });
        }
        let wii = w[(i, i)];
        if wii.is_nan() || wii <= 0.0 {
            return Err(ImpactError::NonPositiveDiagonal { contact_idx: i, value: wii });
        }
        let e = match law {
            ImpactLaw::Newton | ImpactLaw::Poisson => problem.restitution()[i],
            ImpactLaw::Inelastic => 0.0,
        };
        let p = -(1.0 + e) * u[i] / wii;
        impulse[i] += p;
        for (k, uk) in u.iter_mut().enumerate() {
            *uk += w[(k, i)] * p;
        }
        order.push(i);
    }
    let post_velocity = problem.velocity_after(&impulse);
    let energy_change = problem.energy_change(&impulse);
    Ok(ImpactOutcome {
        impulse,
        post_velocity,
        energy_change,
        passes: order.len(),
        order,
        lcp_solves: Vec::new(),
    })
}
