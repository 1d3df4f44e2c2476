//! `signorini.solve`, `signorini.read`, `signorini.write` and `signorini.solvers`: the LCP
//! side of the module (signorini-lcp's registry, driver and readers), with the messages of
//! `signorini solve`, `signorini convert` and `signorini solvers`.

use std::path::PathBuf;

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use signorini_friction::FcRegistry;
use signorini_lcp::formats::{self, Format, FormatErrorKind};
use signorini_lcp::memory::fmt_bytes;
use signorini_lcp::{Certificate, LcpSolver, ParamDoc, Registry, SolveError, SolveOptions};

use crate::arrays::{self, to_numpy};
use crate::{gib_to_bytes, guarded, value_error};

/// The solver used when none is named (as in the CLI).
pub(crate) const DEFAULT_SOLVER: &str = "auto";

/// The result of `signorini.solve`: every figure recomputed from z by the driver.
///
/// `residual` is the merit `||min(z, w)||_2 / ||q||_2` with `w = M z + q` recomputed from the
/// returned z (the measure Siconos numerics reports; no division when `||q||_2` is below
/// machine epsilon), and `complementarity` is `max_i |z_i w_i|`.
#[pyclass(frozen, get_all, module = "signorini", name = "Solution")]
pub(crate) struct Solution {
    /// How the run ended: `solved`, `infeasible`, `no_solution`, `ray_termination`,
    /// `max_iterations`, `time_limit`, `stalled` or `numerical_failure`.
    status: String,
    /// The solver's canonical spec string (e.g. `pgs:omega=1.3`).
    solver: String,
    /// z (numpy float64), projected onto z >= 0.
    z: Py<PyAny>,
    /// w = M z + q recomputed from z (numpy float64).
    w: Py<PyAny>,
    /// `||min(z, w)||_2 / ||q||_2`.
    residual: f64,
    /// `||min(z, w)||_2` without normalisation.
    residual_abs: f64,
    /// `max_i |z_i w_i|`.
    complementarity: f64,
    /// `max(0, -min_i z_i)`.
    z_violation: f64,
    /// `max(0, -min_i w_i)`.
    w_violation: f64,
    /// The tolerance the status was judged against.
    tol: f64,
    /// Iterations of the solver's main loop.
    iterations: usize,
    /// Pivots (pivoting methods), else None.
    pivots: Option<usize>,
    /// Products with M.
    matvecs: usize,
    /// Matrix factorisations.
    factorizations: usize,
    /// Wall time of the solve alone, seconds.
    solve_seconds: f64,
    /// None, `{"kind": "farkas", "y": ndarray}` or `{"kind": "enumeration", "index_sets": int}`.
    certificate: Option<Py<PyAny>>,
    /// Why the driver changed the status the solver claimed, or what the solver had to say.
    note: Option<String>,
}

#[pymethods]
impl Solution {
    fn __repr__(&self) -> String {
        format!(
            "Solution(status='{}', solver='{}', residual={:.3e}, iterations={})",
            self.status, self.solver, self.residual, self.iterations
        )
    }
}

/// Builds the solver a spec names; `auto` falls back to the first registered solver when no
/// `auto` is registered (the CLI's rule). The message is the CLI's with `solver` for `--solver`.
pub(crate) fn build_solver(spec: &str) -> Result<Box<dyn LcpSolver>, String> {
    let registry = Registry::builtin();
    let names = registry.names();
    let chosen = if spec.trim() == DEFAULT_SOLVER && !names.contains(&DEFAULT_SOLVER) {
        match names.first() {
            Some(first) => first.to_string(),
            None => return Err("no solver is registered in this build".into()),
        }
    } else {
        spec.to_string()
    };
    registry.build(&chosen).map_err(|e| format!("solver {spec}: {e}"))
}

/// The one-line message of a solve that could not be set up (the CLI's, with the keyword
/// names of this module).
pub(crate) fn solve_error(e: SolveError) -> String {
    match e {
        SolveError::Memory(m) => format!(
            "{} would need {} bytes ({}) of memory, more than memory_limit {} GiB: use a \
             sparse-capable solver (auto, bpp, pgs, apgd, gpcg, newton-fb, ipm, qp) or raise \
             memory_limit",
            m.what,
            m.bytes,
            fmt_bytes(m.bytes),
            m.budget as f64 / (1u64 << 30) as f64
        ),
        e => e.to_string(),
    }
}

/// The certificate as a Python dict.
fn certificate<'py>(py: Python<'py>, c: Certificate) -> PyResult<Bound<'py, PyAny>> {
    let d = PyDict::new(py);
    match c {
        Certificate::Farkas { y } => {
            d.set_item("kind", "farkas")?;
            d.set_item("y", to_numpy(py, y))?;
        }
        Certificate::Enumeration { index_sets } => {
            d.set_item("kind", "enumeration")?;
            d.set_item("index_sets", index_sets)?;
        }
    }
    Ok(d.into_any())
}

/// Solves LCP(M, q): find z >= 0 with w = M z + q >= 0 and z'w = 0.
///
/// M is a numpy 2-D array (or anything numpy reads as one) or any scipy.sparse matrix, which
/// stays sparse; q is a vector of length n. `solver` is a spec string as on the command line
/// (`"lemke"`, `"pgs:omega=1.3"`; `signorini.solvers()` lists them). The GIL is released
/// during the solve. The status is judged by the driver on the merit recomputed from z:
/// `residual = ||min(z, w)||_2 / ||q||_2` at most `tol`, and every row within its own scale.
#[pyfunction]
#[pyo3(signature = (M, q, solver = DEFAULT_SOLVER, tol = None, max_iter = None, time_limit = None, warm_start = None, memory_limit = None))]
#[allow(clippy::too_many_arguments, non_snake_case)]
pub(crate) fn solve(
    py: Python<'_>,
    M: &Bound<'_, PyAny>,
    q: &Bound<'_, PyAny>,
    solver: &str,
    tol: Option<f64>,
    max_iter: Option<i64>,
    time_limit: Option<f64>,
    warm_start: Option<&Bound<'_, PyAny>>,
    memory_limit: Option<f64>,
) -> PyResult<Solution> {
    let options = SolveOptions {
        tol,
        max_iter: crate::max_iter(max_iter)?,
        time_limit: crate::time_limit(time_limit)?,
        history_every: None,
        memory_budget: memory_limit.map(|g| gib_to_bytes("memory_limit", g)).transpose()?,
    };
    options.validate().map_err(|e| value_error(e.to_string()))?;
    let m = arrays::matrix("M", M)?;
    let q = arrays::vector("q", q)?;
    let warm = warm_start.map(|w| arrays::vector("warm_start", w)).transpose()?;
    let spec = solver.to_string();
    let solution = guarded(py, move || {
        let solver = build_solver(&spec)?;
        let lcp = m.into_lcp(q)?;
        solver.solve(&lcp, &options, warm.as_deref()).map_err(solve_error)
    })?;
    let merit = solution.merit;
    let certificate = solution.certificate.map(|c| certificate(py, c)).transpose()?;
    Ok(Solution {
        status: solution.status.as_str().to_string(),
        solver: solution.solver,
        z: to_numpy(py, solution.z).unbind(),
        w: to_numpy(py, solution.w).unbind(),
        residual: merit.residual,
        residual_abs: merit.residual_abs,
        complementarity: merit.complementarity,
        z_violation: merit.z_violation,
        w_violation: merit.w_violation,
        tol: solution.tol,
        iterations: solution.iterations,
        pivots: solution.pivots,
        matvecs: solution.matvecs,
        factorizations: solution.factorizations,
        solve_seconds: solution.solve_seconds,
        certificate: certificate.map(Bound::unbind),
        note: solution.note,
    })
}

/// A format name (`json`, `dat`, `mtx`, `hdf5`), the CLI's message when unknown.
fn format(name: Option<&str>) -> PyResult<Option<Format>> {
    name.map(|s| s.parse::<Format>().map_err(value_error)).transpose()
}

/// Reads an LCP file as the CLI does: `.json` (signorini-lcp/1), `.dat` (Siconos, dense or
/// sparse-block), `.mtx` or a folder holding `M.mtx` + `q.mtx` (MatrixMarket), `.hdf5` / `.h5`
/// (FCLIB local problem: its normal part W_NN, q_N). Returns `(M, q)`: M is a numpy 2-D array
/// when the file stores it dense and a `scipy.sparse.csr_matrix` when it stores it sparse.
#[pyfunction]
#[pyo3(signature = (path, format = None, max_input_size = None))]
pub(crate) fn read<'py>(
    py: Python<'py>,
    path: PathBuf,
    format: Option<&str>,
    max_input_size: Option<f64>,
) -> PyResult<Bound<'py, PyTuple>> {
    let format = self::format(format)?;
    let limit = match max_input_size {
        Some(g) => gib_to_bytes("max_input_size", g)?,
        None => formats::DEFAULT_MAX_INPUT_BYTES,
    };
    let lcp = guarded(py, move || {
        formats::read_problem_limited(&path, format, limit).map_err(|e| match e.kind {
            FormatErrorKind::TooLarge { limit } => format!(
                "{}: larger than max_input_size {} GiB ({limit} bytes): raise max_input_size \
                 to read it",
                path.display(),
                limit as f64 / (1u64 << 30) as f64
            ),
            _ => e.to_string(),
        })
    })?;
    let m = arrays::matrix_to_py(py, lcp.matrix())?;
    let q = to_numpy(py, lcp.q().to_vec());
    PyTuple::new(py, [m, q])
}

/// Writes LCP(M, q) to `path` in the format its extension names (`.json`, `.dat`, `.mtx`, or
/// a folder for `M.mtx` + `q.mtx`), or `format`. A sparse M is written sparse. FCLIB is
/// read-only.
#[pyfunction]
#[pyo3(signature = (path, M, q, format = None))]
#[allow(non_snake_case)]
pub(crate) fn write(
    py: Python<'_>,
    path: PathBuf,
    M: &Bound<'_, PyAny>,
    q: &Bound<'_, PyAny>,
    format: Option<&str>,
) -> PyResult<()> {
    let format = self::format(format)?;
    let m = arrays::matrix("M", M)?;
    let q = arrays::vector("q", q)?;
    guarded(py, move || {
        let lcp = m.into_lcp(q)?;
        let to = formats::resolve_format(&path, format).map_err(|e| e.to_string())?;
        formats::check_output(&path, &[]).map_err(|e| e.to_string())?;
        formats::write_problem(&path, &lcp, Some(to)).map_err(|e| e.to_string())
    })
}

fn describe<'py>(
    py: Python<'py>,
    name: &str,
    problem: &str,
    summary: &str,
    keys: &[ParamDoc],
) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("name", name)?;
    d.set_item("problem", problem)?;
    d.set_item("summary", summary)?;
    let params = PyList::empty(py);
    for k in keys {
        let p = PyDict::new(py);
        p.set_item("key", k.key)?;
        p.set_item("default", &k.default)?;
        p.set_item("kind", &k.kind)?;
        p.set_item("range", k.range)?;
        p.set_item("doc", k.doc)?;
        params.append(p)?;
    }
    d.set_item("parameters", params)?;
    Ok(d)
}

/// Every registered solver, as `signorini solvers --json` (and `--fc`) lists them: dicts with
/// `name`, `problem` (`"lcp"` for `signorini.solve`, `"fc"` for `signorini.fc_solve`),
/// `summary` (the algorithm and the problem class it is for, e.g. the matrix class) and
/// `parameters` (`[{"key", "default", "doc"}]`). `problem` selects one kind.
#[pyfunction]
#[pyo3(signature = (problem = None))]
pub(crate) fn solvers<'py>(py: Python<'py>, problem: Option<&str>) -> PyResult<Bound<'py, PyList>> {
    let (lcp, fc) = match problem {
        None => (true, true),
        Some("lcp") => (true, false),
        Some("fc") => (false, true),
        Some(other) => {
            return Err(value_error(format!("problem = {other}: must be \"lcp\" or \"fc\"")))
        }
    };
    let out = PyList::empty(py);
    if lcp {
        for e in Registry::builtin().entries() {
            out.append(describe(py, &e.name, "lcp", &e.summary, &e.keys)?)?;
        }
    }
    if fc {
        for e in FcRegistry::builtin().entries() {
            out.append(describe(py, &e.name, "fc", &e.summary, &e.keys)?)?;
        }
    }
    Ok(out)
}
