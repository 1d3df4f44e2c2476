//! The acceleration-level contact LCP of closed contacts (DESIGN.md §1): with Delassus matrix
//! W = J M^-1 J' and free acceleration b = J M^-1 f + J'v, find N with a = W N + b >= 0,
//! N >= 0, N'a = 0 (Pfeiffer & Glocker 1996, §5.3). It decides which closed contacts stay
//! loaded (N > 0) and which separate (a > 0), and gives the constrained motion
//! v' = M^-1 (f + J' N) between events.

use std::cell::RefCell;

use faer::Mat;
use signorini_impact::LcpSolveRecord;
use signorini_lcp::{Lcp, LcpSolver, SolveOptions, Status};

use crate::model::{col, mass_solve, ContactModel, MechanicalSystem, ModelError};
use crate::system::{SecondOrderSystem, SystemError};

/// Why the acceleration LCP failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AccelerationError {
    /// The model failed.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The LCP could not be set up.
    #[error("acceleration LCP set-up failed at t = {t}: {message}")]
    Setup {
        /// Time.
        t: f64,
        /// What failed.
        message: String,
    },
    /// The solver did not solve it.
    #[error("{solver} ended with {status} on the acceleration LCP at t = {t}")]
    SolverFailed {
        /// Time.
        t: f64,
        /// Solver name.
        solver: String,
        /// Status.
        status: Status,
    },
}

/// Result of the acceleration LCP over a set of contacts.
#[derive(Debug, Clone, PartialEq)]
pub struct ContactForces {
    /// Normal reactions N of the contacts in the set (same order).
    pub normal_force: Vec<f64>,
    /// Normal accelerations a = W N + b.
    pub normal_acceleration: Vec<f64>,
    /// Generalised acceleration M^-1 (f + J' N).
    pub acceleration: Vec<f64>,
    /// The solve.
    pub record: LcpSolveRecord,
}

/// Solves the acceleration LCP over the contacts in `set` at (t, q, v).
#[allow(clippy::too_many_arguments)]
pub fn acceleration_lcp(
    sys: &dyn MechanicalSystem,
    contacts: &dyn ContactModel,
    set: &[usize],
    t: f64,
    q: &[f64],
    v: &[f64],
    solver: &dyn LcpSolver,
    options: &SolveOptions,
) -> Result<ContactForces, AccelerationError> {
    let n = sys.n_dof();
    let m = sys.mass_matrix(q);
    let f = sys.forces(t, q, v);
    let jac = contacts.jacobian(q);
    if f.len() != n || jac.ncols() != n || jac.nrows() != contacts.n_contacts() {
        return Err(ModelError::Dimension(format!(
            "n_dof {n}, forces {}, Jacobian {}x{}, contacts {}",
            f.len(),
            jac.nrows(),
            jac.ncols(),
            contacts.n_contacts()
        ))
        .into());
    }
    let js = Mat::from_fn(set.len(), n, |a, j| jac[(set[a], j)]);
    let minv_f = mass_solve(&m, &col(&f), t)?;
    let minv_jt = mass_solve(&m, &js.transpose().to_owned(), t)?;
    let w = &js * &minv_jt;
    let jdot_v = contacts.jacobian_rate_times_velocity(q, v);
    let jmf = &js * &minv_f;
    let b: Vec<f64> = (0..set.len()).map(|a| jmf[(a, 0)] + jdot_v[set[a]]).collect();
    let lcp = Lcp::from_dense(w.clone(), b.clone())
        .map_err(|e| AccelerationError::Setup { t, message: e.to_string() })?;
    let sol = solver
        .solve(&lcp, options, None)
        .map_err(|e| AccelerationError::Setup { t, message: e.to_string() })?;
    let record = LcpSolveRecord::from_solution(&sol);
    if sol.status != Status::Solved {
        return Err(AccelerationError::SolverFailed { t, solver: sol.solver, status: sol.status });
    }
    let normal_force: Vec<f64> = sol.z.iter().map(|z| z.max(0.0)).collect();
    let normal_acceleration: Vec<f64> = (0..set.len())
        .map(|a| b[a] + (0..set.len()).map(|c| w[(a, c)] * normal_force[c]).sum::<f64>())
        .collect();
    let acceleration = (0..n)
        .map(|i| {
            minv_f[(i, 0)] + (0..set.len()).map(|c| minv_jt[(i, c)] * normal_force[c]).sum::<f64>()
        })
        .collect();
    Ok(ContactForces { normal_force, normal_acceleration, acceleration, record })
}

/// The constrained motion with the contacts of `set` closed: v' = M^-1 (f + J' N), N from the
/// acceleration LCP at every evaluation (each solve is recorded).
pub struct ConstrainedMotion<'a> {
    /// The mechanical model.
    pub system: &'a dyn MechanicalSystem,
    /// Its contacts.
    pub contacts: &'a dyn ContactModel,
    /// Closed contacts.
    pub set: Vec<usize>,
    /// LCP solver.
    pub solver: &'a dyn LcpSolver,
    /// Its options.
    pub options: SolveOptions,
    /// Every solve made, with its time.
    pub records: RefCell<Vec<(f64, LcpSolveRecord)>>,
}

impl SecondOrderSystem for ConstrainedMotion<'_> {
    fn dim(&self) -> usize {
        self.system.n_dof()
    }
    fn acceleration(&self, t: f64, x: &[f64], v: &[f64], a: &mut [f64]) -> Result<(), SystemError> {
        let cf = acceleration_lcp(
            self.system,
            self.contacts,
            &self.set,
            t,
            x,
            v,
            self.solver,
            &self.options,
        )
        .map_err(|e| SystemError { t, message: e.to_string() })?;
        a.copy_from_slice(&cf.acceleration);
        self.records.borrow_mut().push((t, cf.record));
        Ok(())
    }
}
