//! signorini's Python module (`import signorini`): the LCP solvers of signorini-lcp, the
//! problem files the CLI reads, the contact assembly of signorini-contact, the frictional
//! contact solvers of signorini-friction and the scene simulations of signorini-integrators,
//! with numpy arrays and scipy.sparse matrices in and out.
//!
//! Every entry point converts its arguments while it holds the GIL, releases the GIL for the
//! work (`Python::detach`), and runs that work under `guarded`, so that a panic becomes a
//! Python `RuntimeError` instead of crossing the boundary. Bad arguments raise `ValueError`
//! with the one-line message the command-line tool prints for the same mistake.
//!
//! The module is built by maturin (`pip install ./crates/python`); `pyproject.toml` sets
//! pyo3's `extension-module` feature there, so a plain `cargo build` links against libpython.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

mod arrays;
mod contact;
mod fc;
mod lcp;
mod simulate;

/// A `ValueError` whose message is `message` on one line.
pub(crate) fn value_error(message: impl AsRef<str>) -> PyErr {
    PyValueError::new_err(one_line(message.as_ref()))
}

/// `message` with line breaks replaced by spaces (the CLI's one-line rule).
pub(crate) fn one_line(message: &str) -> String {
    message.replace(['\n', '\r'], " ")
}

/// Runs `work` with the GIL released and turns a panic inside it into `RuntimeError`.
pub(crate) fn guarded<T, F>(py: Python<'_>, work: F) -> PyResult<T>
where
    T: Send,
    F: FnOnce() -> Result<T, String> + Send,
{
    let result = py.detach(|| catch_unwind(AssertUnwindSafe(work)));
    match result {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(message)) => Err(value_error(message)),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(PyRuntimeError::new_err(format!(
                "internal error (a bug in signorini, please report it): {}",
                one_line(&what)
            )))
        }
    }
}

/// `time_limit` in seconds as a duration: a finite number > 0.
pub(crate) fn time_limit(seconds: Option<f64>) -> PyResult<Option<std::time::Duration>> {
    match seconds {
        None => Ok(None),
        Some(s) => match std::time::Duration::try_from_secs_f64(s) {
            Ok(d) if s > 0.0 => Ok(Some(d)),
            _ => Err(value_error(format!(
                "time_limit = {s}: must be a finite number of seconds > 0"
            ))),
        },
    }
}

/// `max_iter` as a count: at least 1.
pub(crate) fn max_iter(value: Option<i64>) -> PyResult<Option<usize>> {
    match value {
        None => Ok(None),
        Some(v) if v >= 1 => usize::try_from(v)
            .map(Some)
            .map_err(|_| value_error(format!("max_iter = {v}: too large"))),
        Some(v) => Err(value_error(format!("max_iter = {v}: must be at least 1"))),
    }
}

/// A non-negative count named `name`.
pub(crate) fn count(name: &str, value: Option<i64>) -> PyResult<Option<usize>> {
    value
        .map(|v| {
            usize::try_from(v)
                .map_err(|_| value_error(format!("{name} = {v}: must be a non-negative integer")))
        })
        .transpose()
}

/// `gib` GiB in bytes, when it is a number of GiB > 0 that fits a u64 (the CLI's rule).
pub(crate) fn gib_to_bytes(name: &str, gib: f64) -> PyResult<u64> {
    let bytes = gib * (1u64 << 30) as f64;
    if bytes.is_finite() && bytes >= 1.0 && bytes < u64::MAX as f64 {
        Ok(bytes as u64)
    } else {
        Err(value_error(format!("{name} = {gib}: must be a number of GiB > 0 (at most 1.6e10)")))
    }
}

/// Panics inside [`guarded`] with `message`: the test suite's check that a panic becomes
/// `RuntimeError` (not part of the documented API).
#[pyfunction]
fn _panic(py: Python<'_>, message: String) -> PyResult<()> {
    guarded(py, move || -> Result<(), String> { panic!("{message}") })
}

/// signorini: solvers for unilateral contact mechanics (Rust, via PyO3).
///
/// Every LCP solution carries one solver-independent merit recomputed from the returned z:
/// residual = ||min(z, w)||_2 / ||q||_2 with w = M z + q. Negative answers carry a checked
/// certificate. Functions: solve, read, write, solvers, contact, fc_solve, fc_read, simulate.
#[pymodule]
#[pyo3(name = "signorini")]
fn signorini_module(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<lcp::Solution>()?;
    m.add_class::<fc::FcSolution>()?;
    m.add_function(wrap_pyfunction!(lcp::solve, m)?)?;
    m.add_function(wrap_pyfunction!(lcp::read, m)?)?;
    m.add_function(wrap_pyfunction!(lcp::write, m)?)?;
    m.add_function(wrap_pyfunction!(lcp::solvers, m)?)?;
    m.add_function(wrap_pyfunction!(contact::contact, m)?)?;
    m.add_function(wrap_pyfunction!(fc::fc_solve, m)?)?;
    m.add_function(wrap_pyfunction!(fc::fc_read, m)?)?;
    m.add_function(wrap_pyfunction!(simulate::simulate, m)?)?;
    m.add_function(wrap_pyfunction!(_panic, m)?)?;
    Ok(())
}
