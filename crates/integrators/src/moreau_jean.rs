//! Moreau–Jean time stepping: the theta-method on velocities with the Newton impact law at
//! velocity level (Moreau 1988, "Unilateral contact and dry friction in finite freedom
//! dynamics"; Jean 1999, "The non-smooth contact dynamics method"; Acary & Brogliato 2008,
//! *Numerical Methods for Nonsmooth Dynamical Systems*, §10.1).
//!
//! One step from (t_k, q_k, v_k) with step h:
//! 1. free velocity v_free = v_k + h M^-1 f, with M = M(q_k) and the forces evaluated once at
//!    (t_k + theta h, q_k, v_k) (explicit in q and v: exact for constant and time-dependent
//!    forces; the implicit treatment of stiff linear K, C of Acary & Brogliato is not here);
//! 2. active contacts: g_i(q_k) + gamma h (J v_k)_i <= activation_tol (default 1e-12, so that
//!    a resting contact whose gap rounds to +1e-20 stays active);
//! 3. the velocity LCP over the active set, U = J v_{k+1} = J v_free + W Λ,
//!    w = W Λ + (J v_free + e ∘ J v_k) >= 0 ⊥ Λ >= 0 (Newton's law U + e U_k >= 0), with
//!    W = J M^-1 J', solved by any [`LcpSolver`];
//! 4. v_{k+1} = v_free + M^-1 J' Λ, q_{k+1} = q_k + h ((1 - theta) v_k + theta v_{k+1}).

use signorini_impact::LcpSolveRecord;
use signorini_lcp::{Lcp, LcpSolver, Solution, SolveOptions, Status};

use crate::model::{ContactModel, MechanicalSystem, ModelError};
use crate::step_matrices::{ActiveRows, StepMatrices};

/// What to do when the LCP solver fails inside a step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnSolverFailure {
    /// Stop with [`MoreauJeanError::SolverFailed`] (default).
    #[default]
    Stop,
    /// Record the failure in [`MoreauJeanRun::solver_failures`] and go on with the returned
    /// impulse (clamped at zero).
    Continue,
}

/// Solves one step's LCP. A solve that cannot start is a [`MoreauJeanError::Setup`]; one that
/// ends other than `solved` stops the run ([`OnSolverFailure::Stop`]) or is recorded in
/// `failures` and its answer returned ([`OnSolverFailure::Continue`]). Shared by the
/// time-stepping schemes.
pub(crate) fn solve_step_lcp(
    solver: &dyn LcpSolver,
    lcp: &Lcp,
    options: &SolveOptions,
    policy: OnSolverFailure,
    (step_idx, t): (usize, f64),
    failures: &mut Vec<SolverFailure>,
) -> Result<Solution, MoreauJeanError> {
    let sol = solver
        .solve(lcp, options, None)
        .map_err(|e| MoreauJeanError::Setup { t, message: e.to_string() })?;
    if sol.status != Status::Solved {
        match policy {
            OnSolverFailure::Stop => {
                return Err(MoreauJeanError::SolverFailed {
                    step_idx,
                    t,
                    solver: sol.solver,
                    status: sol.status,
                    residual: sol.merit.residual,
                })
            }
            OnSolverFailure::Continue => failures.push(SolverFailure {
                step_idx,
                t,
                status: sol.status,
                residual: sol.merit.residual,
            }),
        }
    }
    Ok(sol)
}

/// One impulse solve on active contact rows: the LCP (J_a M^-1 J_a^T, b) solved through
/// [`solve_step_lcp`], its impulse (clamped at zero) added to `v`. Shared by Moreau–Jean and
/// the position-level LCP scheme.
pub(crate) fn apply_contact_impulse(
    ja: &ActiveRows<'_>,
    b: Vec<f64>,
    solver: &dyn LcpSolver,
    (options, policy): (&SolveOptions, OnSolverFailure),
    (step_idx, t): (usize, f64),
    failures: &mut Vec<SolverFailure>,
    v: &mut [f64],
) -> Result<LcpSolveRecord, MoreauJeanError> {
    let lcp =
        ja.delassus_lcp(b).map_err(|e| MoreauJeanError::Setup { t, message: e.to_string() })?;
    let sol = solve_step_lcp(solver, &lcp, options, policy, (step_idx, t), failures)?;
    let z: Vec<f64> = sol.z.iter().map(|z| z.max(0.0)).collect();
    for (vi, dv) in v.iter_mut().zip(ja.impulse_velocity(&z)) {
        *vi += dv;
    }
    Ok(LcpSolveRecord::from_solution(&sol))
}

/// Settings of [`simulate_moreau_jean`].
#[derive(Debug, Clone)]
pub struct MoreauJeanParams {
    /// Time step h.
    pub step: f64,
    /// theta in [0, 1] (default 1/2).
    pub theta: f64,
    /// Activation look-ahead gamma in [0, 1] (default 1/2).
    pub gamma: f64,
    /// A contact is active when g + gamma h J v <= activation_tol (length unit of the model;
    /// default 1e-12). Zero lets round-off in a resting contact's gap (1e-20 above zero after
    /// an LCP solve) switch it off for a step, so a resting box drops onto one corner.
    pub activation_tol: f64,
    /// Options for every LCP solve.
    pub options: SolveOptions,
    /// Policy for failed solves (default stop).
    pub on_failure: OnSolverFailure,
    /// Keep every k-th state in [`MoreauJeanRun::samples`] (default 1; 0 keeps none).
    pub sample_every: usize,
}

impl MoreauJeanParams {
    /// theta = gamma = 1/2 with step h.
    pub fn with_step(step: f64) -> Self {
        Self {
            step,
            theta: 0.5,
            gamma: 0.5,
            activation_tol: 1e-12,
            options: SolveOptions::default(),
            on_failure: OnSolverFailure::Stop,
            sample_every: 1,
        }
    }

    /// Checks ranges.
    pub fn validate(&self) -> Result<(), MoreauJeanError> {
        if !(self.step.is_finite() && self.step > 0.0) {
            return Err(MoreauJeanError::Input(format!(
                "step = {}: must be a finite number > 0",
                self.step
            )));
        }
        if !(self.activation_tol.is_finite() && self.activation_tol >= 0.0) {
            return Err(MoreauJeanError::Input(format!(
                "activation_tol = {}: must be a finite number >= 0",
                self.activation_tol
            )));
        }
        for (name, x) in [("theta", self.theta), ("gamma", self.gamma)] {
            if !(0.0..=1.0).contains(&x) {
                return Err(MoreauJeanError::Input(format!("{name} = {x}: must lie in [0, 1]")));
            }
        }
        Ok(())
    }
}

/// Why a run stopped.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MoreauJeanError {
    /// Bad settings or initial state.
    #[error("invalid input: {0}")]
    Input(String),
    /// The model failed.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The LCP could not be set up.
    #[error("LCP set-up failed at t = {t}: {message}")]
    Setup {
        /// Step start time.
        t: f64,
        /// What failed.
        message: String,
    },
    /// The solver failed (policy Stop).
    #[error("{solver} ended with {status} (residual {residual:.3e}) at step {step_idx}, t = {t}")]
    SolverFailed {
        /// Step index.
        step_idx: usize,
        /// Step start time.
        t: f64,
        /// Solver name.
        solver: String,
        /// Status.
        status: Status,
        /// Merit residual.
        residual: f64,
    },
    /// The state became non-finite.
    #[error("non-finite state at step {step_idx}, t = {t}")]
    NonFinite {
        /// Step index.
        step_idx: usize,
        /// Time.
        t: f64,
    },
}

/// Statistics of one step.
#[derive(Debug, Clone, PartialEq)]
pub struct StepStats {
    /// Step start time.
    pub t: f64,
    /// Number of active contacts.
    pub n_active: usize,
    /// The LCP solve (None when no contact was active).
    pub lcp: Option<LcpSolveRecord>,
}

/// A failed solve that the run went past (policy Continue).
#[derive(Debug, Clone, PartialEq)]
pub struct SolverFailure {
    /// Step index.
    pub step_idx: usize,
    /// Step start time.
    pub t: f64,
    /// Status.
    pub status: Status,
    /// Merit residual.
    pub residual: f64,
}

/// The outcome of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct MoreauJeanRun {
    /// Final time.
    pub t: f64,
    /// Final coordinates.
    pub q: Vec<f64>,
    /// Final velocities.
    pub v: Vec<f64>,
    /// (t, q, v) every `sample_every` steps (with the initial state).
    pub samples: Vec<(f64, Vec<f64>, Vec<f64>)>,
    /// Per-step statistics.
    pub steps: Vec<StepStats>,
    /// Failed solves the run went past.
    pub solver_failures: Vec<SolverFailure>,
}

/// Runs n_steps = ceil((t_end - t0) / h) Moreau–Jean steps (the last one ends at or after
/// t_end by less than h; the step is never shortened, so the scheme is the fixed-step one).
#[allow(clippy::too_many_arguments)]
pub fn simulate_moreau_jean(
    sys: &dyn MechanicalSystem,
    contacts: &dyn ContactModel,
    solver: &dyn LcpSolver,
    t0: f64,
    q0: &[f64],
    v0: &[f64],
    n_steps: usize,
    params: &MoreauJeanParams,
) -> Result<MoreauJeanRun, MoreauJeanError> {
    params.validate()?;
    let n = sys.n_dof();
    if q0.len() != n || v0.len() != n {
        return Err(MoreauJeanError::Input(format!(
            "q0 has {}, v0 has {} entries, the model has {n} coordinates",
            q0.len(),
            v0.len()
        )));
    }
    let (h, theta, gamma) = (params.step, params.theta, params.gamma);
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
        let f = sys.forces(t + theta * h, &q, &v);
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
        let v_free: Vec<f64> = (0..n).map(|i| v[i] + h * minv_f[i]).collect();
        let u_k = mats.jv(&v);
        let active: Vec<usize> =
            (0..n_c).filter(|&c| gaps[c] + gamma * h * u_k[c] <= params.activation_tol).collect();
        let mut v_new = v_free.clone();
        let mut lcp_record = None;
        if !active.is_empty() {
            let ja = mats.restrict(&active);
            let ja_v_free = ja.apply(&v_free);
            let b: Vec<f64> = active
                .iter()
                .zip(&ja_v_free)
                .map(|(&c, &jv)| jv + contacts.restitution(c) * u_k[c])
                .collect();
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
            q[i] += h * ((1.0 - theta) * v[i] + theta * v_new[i]);
        }
        v = v_new;
        if q.iter().chain(&v).any(|x| !x.is_finite()) {
            return Err(MoreauJeanError::NonFinite { step_idx: k, t: t + h });
        }
        run.steps.push(StepStats { t, n_active: active.len(), lcp: lcp_record });
        if params.sample_every > 0 && (k + 1) % params.sample_every == 0 {
            run.samples.push((t + h, q.clone(), v.clone()));
        }
    }
    run.t = t0 + n_steps as f64 * h;
    run.q = q;
    run.v = v;
    Ok(run)
}
