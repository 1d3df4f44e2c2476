//! Conversions between Python objects and the crates' data: a numpy 2-D array, anything
//! numpy can turn into one, or any scipy.sparse matrix in; numpy vectors, numpy matrices and
//! scipy.sparse CSR matrices out. Sparse input is read through its `tocoo()` arrays and never
//! densified.

use faer::Mat;
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArrayMethods};
use pyo3::prelude::*;
use signorini_lcp::{Lcp, Matrix, ProblemError};

use crate::value_error;

/// A matrix as it came from Python, copied out of the Python objects so that the work can run
/// without the GIL.
pub(crate) enum MatrixInput {
    /// Row-major entries of a dense matrix.
    Dense {
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
        /// rows * cols entries, row-major.
        data: Vec<f64>,
    },
    /// Coordinates of a sparse matrix (duplicates are summed when it is built).
    Coo {
        /// Rows (= columns; checked when read).
        n: usize,
        /// Row indices.
        row: Vec<usize>,
        /// Column indices.
        col: Vec<usize>,
        /// Values.
        val: Vec<f64>,
    },
}

impl MatrixInput {
    /// The validated LCP(M, q) (the lcp crate's checks and messages).
    pub(crate) fn into_lcp(self, q: Vec<f64>) -> Result<Lcp, String> {
        match self {
            MatrixInput::Dense { rows, cols, data } => {
                let m = Mat::from_fn(rows, cols, |i, j| data[i * cols + j]);
                drop(data);
                Lcp::new(Matrix::Dense(m), q).map_err(|e| e.to_string())
            }
            MatrixInput::Coo { n, row, col, val } => {
                Lcp::from_coo(n, &row, &col, &val, q).map_err(|e| e.to_string())
            }
        }
    }
}

/// A shape as Python writes it: `(4,)`, `(2, 3)`.
fn shape(dims: &[usize]) -> String {
    match dims {
        [one] => format!("({one},)"),
        _ => format!("({})", dims.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")),
    }
}

/// `numpy.ascontiguousarray(obj, dtype)`.
fn contiguous<'py>(obj: &Bound<'py, PyAny>, dtype: &str) -> PyResult<Bound<'py, PyAny>> {
    let np = obj.py().import("numpy")?;
    np.getattr("ascontiguousarray")?.call1((obj, dtype))
}

/// True for a scipy.sparse matrix or array (anything with `tocoo` and `nnz`), without
/// importing scipy.
pub(crate) fn is_sparse(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(obj.hasattr("tocoo")? && obj.hasattr("nnz")?)
}

/// A 1-D float64 vector named `name` (numpy array or sequence).
pub(crate) fn vector(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<f64>> {
    let arr = contiguous(obj, "float64")?;
    let ro: PyReadonlyArrayDyn<'_, f64> = arr.extract()?;
    if ro.ndim() != 1 {
        return Err(value_error(format!(
            "{name} must be a 1-D array; got an array of shape {}",
            shape(ro.shape())
        )));
    }
    Ok(ro.as_slice().map_err(|e| value_error(format!("{name}: {e}")))?.to_vec())
}

/// Non-negative indices of a 1-D integer array of any dtype (cast to int64 by numpy).
fn indices(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    let arr = contiguous(obj, "int64")?;
    let ro: PyReadonlyArrayDyn<'_, i64> = arr.extract()?;
    let slice = ro.as_slice().map_err(|e| value_error(format!("{name}: {e}")))?;
    slice
        .iter()
        .enumerate()
        .map(|(k, &i)| {
            usize::try_from(i).map_err(|_| {
                value_error(format!("{name}: coordinate entry {k} has the negative index {i}"))
            })
        })
        .collect()
}

/// The matrix `name` (M, W): a scipy.sparse matrix (read through `tocoo()`, kept sparse) or
/// anything numpy reads as a 2-D float array.
pub(crate) fn matrix(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<MatrixInput> {
    if is_sparse(obj)? {
        let shape: (usize, usize) = obj.getattr("shape")?.extract()?;
        if shape.0 != shape.1 {
            return Err(value_error(
                ProblemError::NotSquare { rows: shape.0, cols: shape.1 }.to_string(),
            ));
        }
        let coo = obj.call_method0("tocoo")?;
        let row = indices(name, &coo.getattr("row")?)?;
        let col = indices(name, &coo.getattr("col")?)?;
        let val = vector(name, &coo.getattr("data")?)?;
        return Ok(MatrixInput::Coo { n: shape.0, row, col, val });
    }
    let arr = contiguous(obj, "float64")?;
    let ro: PyReadonlyArrayDyn<'_, f64> = arr.extract()?;
    if ro.ndim() != 2 {
        return Err(value_error(format!(
            "{name} must be a 2-D array or a scipy.sparse matrix; got an array of shape {}",
            shape(ro.shape())
        )));
    }
    let (rows, cols) = (ro.shape()[0], ro.shape()[1]);
    let data = ro.as_slice().map_err(|e| value_error(format!("{name}: {e}")))?.to_vec();
    Ok(MatrixInput::Dense { rows, cols, data })
}

/// A numpy float64 vector that takes ownership of `v` (no copy).
pub(crate) fn to_numpy(py: Python<'_>, v: Vec<f64>) -> Bound<'_, PyAny> {
    PyArray1::from_vec(py, v).into_any()
}

/// A numpy int64 vector.
fn to_numpy_index(py: Python<'_>, v: Vec<i64>) -> Bound<'_, PyAny> {
    PyArray1::from_vec(py, v).into_any()
}

/// A problem's M as Python sees it: a numpy 2-D array for a dense M, a
/// `scipy.sparse.csr_matrix` (int64 indices) for a sparse one.
pub(crate) fn matrix_to_py<'py>(py: Python<'py>, m: &Matrix) -> PyResult<Bound<'py, PyAny>> {
    match m {
        Matrix::Dense(d) => {
            let (rows, cols) = (d.nrows(), d.ncols());
            let mut data = Vec::with_capacity(rows * cols);
            for i in 0..rows {
                for j in 0..cols {
                    data.push(d[(i, j)]);
                }
            }
            PyArray1::from_vec(py, data).reshape([rows, cols]).map(Bound::into_any)
        }
        Matrix::Sparse(s) => {
            let (rows, cols) = (s.nrows(), s.ncols());
            let mut indptr = Vec::with_capacity(rows + 1);
            let mut indices = Vec::new();
            let mut data = Vec::new();
            indptr.push(0i64);
            for i in 0..rows {
                indices.extend(s.col_idx_of_row_raw(i).iter().map(|&j| j as i64));
                data.extend_from_slice(s.val_of_row(i));
                indptr.push(indices.len() as i64);
            }
            let sparse = py.import("scipy.sparse")?;
            let parts =
                (to_numpy(py, data), to_numpy_index(py, indices), to_numpy_index(py, indptr));
            sparse.getattr("csr_matrix")?.call1((parts, (rows, cols)))
        }
    }
}
