//! The position-level time-stepping LCP (Stewart & Trinkle 1996, "An implicit time-stepping
//! scheme for rigid body dynamics with inelastic collisions and Coulomb friction", here without
//! friction; Tedrake, *Underactuated Robotics*, ch. "Multi-Body Dynamics", § "Time-stepping
//! LCP"): semi-implicit Euler with the gap required to be non-negative at the next step.
//!
//! One step: v_free = v_k + h M^-1 f(t_k, q_k, v_k); impulses λ with
//! v_{k+1} = v_free + M^-1 J' λ, q_{k+1} = q_k + h v_{k+1}, and the linearised next gap
//! φ_k + h J v_{k+1} >= 0 ⊥ λ >= 0, i.e. the LCP W λ + (J v_free + φ_k / h) >= 0 ⊥ λ >= 0 with
//! W = J M^-1 J'. Collisions are perfectly inelastic by construction. Every contact enters the
//! LCP (complementarity switches the open ones off); filtering far contacts is left to the
//! contact crate's broad phase. The run, statistics and errors are those of
//! [`crate::moreau_jean`].

use signorini_impact::LcpSolveRecord;
use signorini_lcp::{LcpSolver, SolveOptions};

use crate::model::{ContactModel, MechanicalSystem, ModelError};
use crate::moreau_jean::{
    apply_contact_impulse, MoreauJeanError, MoreauJeanRun, OnSolverFailure, StepStats,
};
use crate::step_matrices::StepMatrices;

/// Settings of [`simulate_position_lcp`].
#[derive(Debug, Clone)]
pub struct PositionLcpParams {
    /// Time step h.
    pub step: f64,
    /// Options for every LCP solve.
    pub options: SolveOptions,
    /// Policy for failed solves (default stop).
    pub on_failure: OnSolverFailure,
    /// Keep every k-th state in the samples (default 1; 0 keeps none).
    pub sample_every: usize,
}

impl PositionLcpParams {
    /// Defaults with step h.
    pub fn with_step(step: f64) -> Self {
        Self {
            step,
            options: SolveOptions::default(),
            on_failure: OnSolverFailure::Stop,
            sample_every: 1,
        }
    }
}

/// Runs `n_steps` steps of the position-level LCP scheme.
#[allow(clippy::too_many_arguments)]
pub fn simulate_position_lcp(
    sys: &dyn MechanicalSystem,
    contacts: &dyn ContactModel,
    solver: &dyn LcpSolver,
    t0: f64,
    q0: &[f64],
    v0: &[f64],
    n_steps: usize,
    params: &PositionLcpParams,
) -> Result<MoreauJeanRun, MoreauJeanError> {
    let h = params.step;
    if !(h.is_finite() && h > 0.0) {
        return Err(MoreauJeanError::Input(format!("step = {h}: must be a finite number > 0")));
    }
    let n = sys.n_dof();
    if q0.len() != n || v0.len() != n {
        return Err(MoreauJeanError::Input(format!(
            "q0 has {}, v0 has {} entries, the model has {n} coordinates",
            q0.len(),
            v0.len()
        )));
    }
    let (mut q, mut v) = (q0.to_vec(), v0.to_vec());
    let mut run = MoreauJeanRun {
        t: t0,
        q: Vec::new(),
        v: Vec::new(),
        samples: if params.sample_every > 0 {
            vec![(t0, q.clone(), v.clone())]
        } else {
            Vec::new()
        },
        steps: Vec::with_capacity(n_steps),
        solver_failures: Vec::new(),
    };
    for k in 0..n_steps {
        let t = t0 + k as f64 * h;
        let mats = StepMatrices::at(sys, contacts, &q, t)?;
        let f = sys.forces(t, &q, &v);
        let gaps = contacts.gaps(&q);
        let n_c = contacts.n_contacts();
        if f.len() != n || gaps.len() != n_c {
            return Err(ModelError::Dimension(format!(
                "n_dof {n}, forces {}, gaps {}, contacts {n_c}",
                f.len(),
                gaps.len()
            ))
            .into());
        }
        let minv_f = mats.solve_mass(&f);
        let mut v_new: Vec<f64> = (0..n).map(|i| v[i] + h * minv_f[i]).collect();
        let mut lcp_record: Option<LcpSolveRecord> = None;
        if n_c > 0 {
            let all: Vec<usize> = (0..n_c).collect();
            let ja = mats.restrict(&all);
            let b: Vec<f64> =
                ja.apply(&v_new).iter().zip(&gaps).map(|(jv, g)| jv + g / h).collect();
            lcp_record = Some(apply_contact_impulse(
                &ja,
                b,
                solver,
                (&params.options, params.on_failure),
                (k, t),
                &mut run.solver_failures,
                &mut v_new,
            )?);
        }
        for i in 0..n {
            q[i] += h * v_new[i];
        }
        v = v_new;
        if q.iter().chain(&v).any(|x| !x.is_finite()) {
            return Err(MoreauJeanError::NonFinite { step_idx: k, t: t + h });
        }
        run.steps.push(StepStats { t, n_active: n_c, lcp: lcp_record });
        if params.sample_every > 0 && (k + 1) % params.sample_every == 0 {
            run.samples.push((t + h, q.clone(), v.clone()));
        }
    }
    run.t = t0 + n_steps as f64 * h;
    run.q = q;
    run.v = v;
    Ok(run)
}
