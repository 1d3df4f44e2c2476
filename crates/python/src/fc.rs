//! `signorini.fc_solve` and `signorini.fc_read`: frictional contact with the exact Coulomb
//! cone (signorini-friction), as `signorini fc` solves it.

use std::path::PathBuf;

use faer::Mat;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use signorini_friction::formats::{read_fc_problem, FcFormat};
use signorini_friction::{FcProblem, FcRegistry};
use signorini_lcp::{Matrix, SolveOptions};

use crate::arrays::{self, matrix_to_py, to_numpy, MatrixInput};
use crate::lcp::solve_error;
use crate::{guarded, value_error};

/// The solver used when none is named (as in `signorini fc`).
const DEFAULT_FC_SOLVER: &str = "nsgs";

/// The result of `signorini.fc_solve`: r projected onto the cones, u and the error recomputed
/// from it.
///
/// `error` is Siconos' `fc3d_compute_error` of r, recomputed from r alone: with u = W r + q,
/// `sqrt(sum_c |r_c - P_K_c(r_c - (u_c + mu_c |u_T,c| e_N))|^2) / ||q||_2` (no division when
/// `||q||_2` is below machine epsilon), P_K_c the projection onto the Coulomb cone
/// `||r_T|| <= mu_c r_N` of contact c.
#[pyclass(frozen, get_all, module = "signorini", name = "FcSolution")]
pub(crate) struct FcSolution {
    /// How the run ended (`solved`, `max_iterations`, `time_limit`, `stalled`,
    /// `numerical_failure`).
    status: String,
    /// The solver's canonical spec string.
    solver: String,
    /// Reactions r (numpy float64), per contact normal component first, each block in its cone.
    r: Py<PyAny>,
    /// Relative velocities u = W r + q (numpy float64).
    u: Py<PyAny>,
    /// Siconos' error of r.
    error: f64,
    /// The tolerance the status was judged against.
    tol: f64,
    /// Iterations of the solver's loop.
    iterations: usize,
    /// Wall time of the solve alone, seconds.
    solve_seconds: f64,
    /// What the driver or solver had to say.
    note: Option<String>,
}

#[pymethods]
impl FcSolution {
    fn __repr__(&self) -> String {
        format!(
            "FcSolution(status='{}', solver='{}', error={:.3e}, iterations={})",
            self.status, self.solver, self.error, self.iterations
        )
    }
}

/// Solves the frictional-contact problem u = W r + q, r_c in the Coulomb cone K_mu_c, u_c
/// + g(u_c) in its dual (the Siconos / FCLIB local form): `dimension` (2 or 3) rows per contact,
/// normal first; `mu` holds one coefficient per contact. W is a numpy 2-D array or any
/// scipy.sparse matrix (kept sparse). `solver` is a spec string (`"nsgs"`, `"newton-ac"`,
/// `"admm"`, `"apgd-ccp"`, `"lcp:k=8"`; `signorini.solvers("fc")` lists them). The GIL is
/// released during the solve.
#[pyfunction]
#[pyo3(signature = (W, q, mu, dimension = 3, solver = DEFAULT_FC_SOLVER, tol = None, max_iter = None, time_limit = None, warm_start = None))]
#[allow(clippy::too_many_arguments, non_snake_case)]
pub(crate) fn fc_solve(
    py: Python<'_>,
    W: &Bound<'_, PyAny>,
    q: &Bound<'_, PyAny>,
    mu: &Bound<'_, PyAny>,
    dimension: i64,
    solver: &str,
    tol: Option<f64>,
    max_iter: Option<i64>,
    time_limit: Option<f64>,
    warm_start: Option<&Bound<'_, PyAny>>,
) -> PyResult<FcSolution> {
    let options = SolveOptions {
        tol,
        max_iter: crate::max_iter(max_iter)?,
        time_limit: crate::time_limit(time_limit)?,
        history_every: None,
        ..SolveOptions::default()
    };
    signorini_friction::solver::validate_options(&options)
        .map_err(|e| value_error(e.to_string()))?;
    let dimension = usize::try_from(dimension)
        .map_err(|_| value_error(format!("dimension = {dimension}: must be 2 or 3")))?;
    let w = arrays::matrix("W", W)?;
    let q = arrays::vector("q", q)?;
    let mu = arrays::vector("mu", mu)?;
    let warm = warm_start.map(|r| arrays::vector("warm_start", r)).transpose()?;
    let spec = solver.to_string();
    let s = guarded(py, move || {
        let solver =
            FcRegistry::builtin().build(&spec).map_err(|e| format!("solver {spec}: {e}"))?;
        let problem = match w {
            MatrixInput::Dense { rows, cols, data } => {
                let m = Mat::from_fn(rows, cols, |i, j| data[i * cols + j]);
                FcProblem::new(dimension, Matrix::Dense(m), q, mu)
            }
            MatrixInput::Coo { n, row, col, val } => {
                FcProblem::from_coo(dimension, n, &row, &col, &val, q, mu)
            }
        }
        .map_err(|e| e.to_string())?;
        solver.solve(&problem, &options, warm.as_deref()).map_err(solve_error)
    })?;
    Ok(FcSolution {
        status: s.status.as_str().to_string(),
        solver: s.solver,
        r: to_numpy(py, s.r).unbind(),
        u: to_numpy(py, s.u).unbind(),
        error: s.error,
        tol: s.tol,
        iterations: s.iterations,
        solve_seconds: s.solve_seconds,
        note: s.note,
    })
}

/// Reads a frictional-contact problem as `signorini fc` does (Siconos `.dat`,
/// `signorini-fc/1` `.json`, FCLIB `.hdf5`). Returns `(W, q, mu, dimension)`; W is a numpy 2-D
/// array or a `scipy.sparse.csr_matrix` as the file stores it.
#[pyfunction]
#[pyo3(signature = (path, format = None))]
pub(crate) fn fc_read<'py>(
    py: Python<'py>,
    path: PathBuf,
    format: Option<&str>,
) -> PyResult<Bound<'py, PyTuple>> {
    let format = format
        .map(|s| {
            FcFormat::from_name(s)
                .ok_or_else(|| value_error(format!("unknown format `{s}`; valid: dat, json, hdf5")))
        })
        .transpose()?;
    let p = guarded(py, move || read_fc_problem(&path, format).map_err(|e| e.to_string()))?;
    let w = matrix_to_py(py, p.w())?;
    let q = to_numpy(py, p.q().to_vec());
    let mu = to_numpy(py, p.mu().to_vec());
    let d = p.dimension().into_pyobject(py)?.into_any();
    PyTuple::new(py, [w, q, mu, d])
}
