//! Time stepping with Coulomb friction on a polyhedral cone (Stewart & Trinkle 1996, "An
//! implicit time-stepping scheme for rigid body dynamics with inelastic collisions and Coulomb
//! friction"; Anitescu & Potra 1997, "Formulating dynamic multi-rigid-body contact problems
//! with friction as solvable linear complementarity problems").
//!
//! Per contact i: normal impulse λ_i, k tangential impulses β_i along the cone edges d_ij (rows
//! of D), and a sliding-speed multiplier γ_i. With v_free = v_k + h M^-1 f and
//! v_{k+1} = v_free + M^-1 (N' λ + D' β):
//!
//! - 0 <= λ ⊥ N v_{k+1} + φ / h >= 0 (next gap non-negative, inelastic);
//! - 0 <= β ⊥ D v_{k+1} + E γ >= 0 (β acts against the sliding direction);
//! - 0 <= γ ⊥ μ λ - E' β >= 0 (the impulse lies in the polyhedral cone),
//!
//! one LCP in z = (λ, β, γ) with the nonsymmetric copositive matrix
//! [[N M^-1 N', N M^-1 D', 0], [D M^-1 N', D M^-1 D', E], [μ, -E', 0]], solved by any
//! [`LcpSolver`] (Lemke's method processes it, Anitescu & Potra 1997). With k directions the
//! friction cone is the polygon inscribed in the circular one, so the effective coefficient lies
//! between μ cos(π/k) and μ (in 2-D with k = 2 it is exactly μ).

use faer::Mat;
use signorini_impact::LcpSolveRecord;
use signorini_lcp::{Lcp, LcpSolver, SolveOptions};

use crate::model::{ContactModel, MechanicalSystem, ModelError};
use crate::moreau_jean::{
    solve_step_lcp, MoreauJeanError, MoreauJeanRun, OnSolverFailure, StepStats,
};
use crate::step_matrices::StepMatrices;

/// Contacts with Coulomb friction on a polyhedral cone.
pub trait FrictionModel: ContactModel {
    /// Number k of cone edge directions per contact (the same for every contact).
    fn n_directions(&self) -> usize;
    /// Tangential Jacobian D: n_contacts * k rows (contact i owns rows i k .. (i + 1) k), n_dof
    /// columns; the directions of one contact span its tangent plane symmetrically.
    fn tangent_jacobian(&self, q: &[f64]) -> Mat<f64>;
    /// D as sparse rows (same order), for models that also provide
    /// [`ContactModel::jacobian_rows`] and [`crate::MechanicalSystem::mass_operator`]; the
    /// default `None` selects the dense path.
    fn tangent_rows(&self, q: &[f64]) -> Option<signorini_contact::Jacobian> {
        let _ = q;
        None
    }
    /// Friction coefficient μ of a contact.
    fn friction_coefficient(&self, contact_idx: usize) -> f64;
}

/// Settings of [`simulate_stewart_trinkle`].
#[derive(Debug, Clone)]
pub struct StewartTrinkleParams {
    /// Time step h.
    pub step: f64,
    /// Options for every LCP solve.
    pub options: SolveOptions,
    /// Policy for failed solves (default stop).
    pub on_failure: OnSolverFailure,
    /// Keep every k-th state in the samples (default 1; 0 keeps none).
    pub sample_every: usize,
}

impl StewartTrinkleParams {
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

/// Runs `n_steps` steps of the Stewart–Trinkle / Anitescu–Potra scheme (run, statistics and
/// errors as in [`crate::moreau_jean`]).
#[allow(clippy::too_many_arguments)]
pub fn simulate_stewart_trinkle(
    sys: &dyn MechanicalSystem,
    contacts: &dyn FrictionModel,
    solver: &dyn LcpSolver,
    t0: f64,
    q0: &[f64],
    v0: &[f64],
    n_steps: usize,
    params: &StewartTrinkleParams,
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
    let n_c = contacts.n_contacts();
    let k = contacts.n_directions();
    for i in 0..n_c {
        let mu = contacts.friction_coefficient(i);
        if !(mu.is_finite() && mu >= 0.0) {
            return Err(MoreauJeanError::Input(format!(
                "friction coefficient of contact {i} is {mu}"
            )));
        }
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
    let size = n_c * (k + 2);
    for step_idx in 0..n_steps {
        let t = t0 + step_idx as f64 * h;
        let rows = match (contacts.jacobian_rows(&q), contacts.tangent_rows(&q)) {
            (Some(mut nj), Some(dj)) => {
                nj.rows.extend(dj.rows);
                Some(nj)
            }
            _ => None,
        };
        let mats = StepMatrices::with_rows(sys, &q, t, n_c * (k + 1), rows, || {
            let nj = contacts.jacobian(&q);
            let dj = contacts.tangent_jacobian(&q);
            if nj.ncols() != dj.ncols() || nj.nrows() != n_c || dj.nrows() != n_c * k {
                // Sizes are reported by the caller's check on the stacked matrix.
                return Mat::zeros(0, 0);
            }
            Mat::from_fn(nj.nrows() + dj.nrows(), nj.ncols(), |r, j| {
                if r < n_c {
                    nj[(r, j)]
                } else {
                    dj[(r - n_c, j)]
                }
            })
        })?;
        let f = sys.forces(t, &q, &v);
        let gaps = contacts.gaps(&q);
        if f.len() != n || gaps.len() != n_c {
            return Err(ModelError::Dimension(format!(
                "n_dof {n}, forces {}, gaps {}, contacts {n_c} (k = {k})",
                f.len(),
                gaps.len()
            ))
            .into());
        }
        let minv_f = mats.solve_mass(&f);
        let mut v_new: Vec<f64> = (0..n).map(|i| v[i] + h * minv_f[i]).collect();
        let mut lcp_record: Option<LcpSolveRecord> = None;
        if n_c > 0 {
            // Stacked Jacobian [N; D], its Delassus matrix, then the E and mu blocks.
            let all: Vec<usize> = (0..n_c * (k + 1)).collect();
            let nd = mats.restrict(&all);
            let mut entries = nd.delassus_entries();
            let g0 = n_c * (k + 1);
            for i in 0..n_c {
                for j in 0..k {
                    let r = n_c + i * k + j;
                    entries.push((r, g0 + i, 1.0));
                    entries.push((g0 + i, r, -1.0));
                }
                entries.push((g0 + i, i, contacts.friction_coefficient(i)));
            }
            let mut qv = nd.apply(&v_new);
            qv.resize(size, 0.0);
            for (i, qi) in qv.iter_mut().enumerate().take(n_c) {
                *qi += gaps[i] / h;
            }
            let lcp = if mats.is_structured() {
                let (r, (c, x)): (Vec<usize>, (Vec<usize>, Vec<f64>)) =
                    entries.into_iter().map(|(r, c, x)| (r, (c, x))).unzip();
                Lcp::from_coo(size, &r, &c, &x, qv)
            } else {
                let mut mat = Mat::<f64>::zeros(size, size);
                for (r, c, x) in entries {
                    mat[(r, c)] += x;
                }
                Lcp::from_dense(mat, qv)
            }
            .map_err(|e| MoreauJeanError::Setup { t, message: e.to_string() })?;
            let sol = solve_step_lcp(
                solver,
                &lcp,
                &params.options,
                params.on_failure,
                (step_idx, t),
                &mut run.solver_failures,
            )?;
            let z: Vec<f64> = sol.z[..n_c * (k + 1)].iter().map(|z| z.max(0.0)).collect();
            for (vi, dv) in v_new.iter_mut().zip(nd.impulse_velocity(&z)) {
                *vi += dv;
            }
            lcp_record = Some(LcpSolveRecord::from_solution(&sol));
        }
        for i in 0..n {
            q[i] += h * v_new[i];
        }
        v = v_new;
        if q.iter().chain(&v).any(|x| !x.is_finite()) {
            return Err(MoreauJeanError::NonFinite { step_idx, t: t + h });
        }
        run.steps.push(StepStats { t, n_active: n_c, lcp: lcp_record });
        if params.sample_every > 0 && (step_idx + 1) % params.sample_every == 0 {
            run.samples.push((t + h, q.clone(), v.clone()));
        }
    }
    run.t = t0 + n_steps as f64 * h;
    run.q = q;
    run.v = v;
    Ok(run)
}
