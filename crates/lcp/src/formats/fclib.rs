//! FCLIB local frictional-contact problems (`.hdf5`, `.h5`) and their frictionless normal part
//! as an LCP (Acary, Brémond, Koziara, Pérignon 2014, "FCLIB: a collection of discrete 3D
//! Frictional Contact problems", INRIA RT-0444).
//!
//! A local problem holds the Delassus operator W (n = d·nc, d = `spacedim` in {2, 3}, nc
//! contacts), the free velocity q and one friction coefficient per contact, with the unknowns of
//! each contact ordered normal first, then the tangential ones. HDF5 layout read here:
//!
//! - `/fclib_local/spacedim` (integer),
//! - `/fclib_local/W/{m, n, nz, nzmax}` (integers), `/fclib_local/W/{p, i}` (integer arrays,
//!   i32 in the files FCLIB writes; any integer width is accepted) and `/fclib_local/W/x`
//!   (float array). `nz >= 0`: triplet (p = column, i = row, `nz` entries); `nz = -1`: compressed
//!   column (p = column pointers, i = row indices); `nz = -2`: compressed row (p = row
//!   pointers, i = column indices). This follows CSparse's `cs` struct, which FCLIB stores.
//! - `/fclib_local/vectors/q` (n floats), `/fclib_local/vectors/mu` (nc floats).
//!
//! Optional groups (`V`, `R`, `info`, `solution`, `guesses`) are not read. The frictionless
//! problem keeps the normal rows and columns: `W_NN = W[0::d, 0::d]`, `q_N = q[0::d]`, an LCP in
//! the normal impulses (w = W_NN z + q_N the normal velocities). For the sample problems W_NN is
//! symmetric positive semidefinite and often singular, so z need not be unique: check w and
//! the residual, not z.
//!
//! The conversion ([`LocalProblem::from_parts`], [`LocalProblem::normal_lcp`]) is plain Rust and
//! always compiled; reading HDF5 ([`read_local`]) needs the cargo feature `fclib`, which pulls
//! in the pure-Rust HDF5 reader `rust-hdf5` (no C library). Every size and index is checked
//! before it is used: no file makes the reader panic or allocate more than the file holds.

use std::path::Path;

use crate::{Lcp, ProblemError};

/// What is wrong with an FCLIB file. Dataset paths are absolute within the file.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum FclibError {
    /// This build of signorini-lcp has no HDF5 reader.
    #[error(
        "reading FCLIB (.hdf5) files needs signorini-lcp built with the cargo feature `fclib`"
    )]
    FeatureDisabled,
    /// The file is not HDF5, is truncated, or its structure cannot be decoded.
    #[error("not a readable HDF5 file: {0}")]
    Hdf5(String),
    /// A required dataset (or its group) is absent.
    #[error("dataset `{path}` is missing (is this an FCLIB local problem?)")]
    Missing {
        /// The dataset path, e.g. `/fclib_local/W/p`.
        path: String,
    },
    /// A dataset has the wrong element type (e.g. floats where integers are required).
    #[error("dataset `{path}`: expected {expected}: {message}")]
    WrongType {
        /// The dataset path.
        path: String,
        /// The type expected.
        expected: &'static str,
        /// The reader's message.
        message: String,
    },
    /// Sizes that contradict each other or the layout.
    #[error("{what}: {message}")]
    BadSize {
        /// The quantity, e.g. `W/p` or `spacedim`.
        what: String,
        /// What is wrong.
        message: String,
    },
    /// An index array points outside the matrix or its own arrays.
    #[error("{what}[{position}] = {value} is out of range (must lie in 0..{bound})")]
    IndexOutOfRange {
        /// The array, e.g. `W/i`.
        what: String,
        /// Position in the array.
        position: usize,
        /// The value found.
        value: i64,
        /// Exclusive upper bound.
        bound: usize,
    },
    /// NaN or infinity in W, q or mu.
    #[error("{what}[{position}] = {value} is not finite")]
    NonFinite {
        /// The array.
        what: String,
        /// Position in the array.
        position: usize,
        /// The value.
        value: f64,
    },
    /// The normal part does not form a valid LCP.
    #[error("{0}")]
    Problem(#[from] ProblemError),
    /// Content this reader does not take (e.g. the equality constraints G of a global problem).
    #[error("{0}")]
    Unsupported(String),
}

/// How W is stored (CSparse convention, the `nz` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Storage {
    /// `nz >= 0` entries in triplet form: `p` column indices, `i` row indices.
    Triplet(usize),
    /// `nz = -1`: compressed columns (`p` has n + 1 pointers, `i` row indices).
    CompressedColumn,
    /// `nz = -2`: compressed rows (`p` has m + 1 pointers, `i` column indices).
    CompressedRow,
}

impl Storage {
    /// The storage a CSparse `nz` field names.
    pub fn from_nz(nz: i64) -> Result<Self, FclibError> {
        match nz {
            -1 => Ok(Storage::CompressedColumn),
            -2 => Ok(Storage::CompressedRow),
            k if k >= 0 => Ok(Storage::Triplet(usize::try_from(k).map_err(|_| {
                FclibError::BadSize { what: "W/nz".into(), message: format!("{k} is too large") }
            })?)),
            k => Err(FclibError::BadSize {
                what: "W/nz".into(),
                message: format!("{k}: expected >= 0 (triplet), -1 (CSC) or -2 (CSR)"),
            }),
        }
    }
}

/// The raw arrays of an FCLIB local problem, as stored (before any check).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawLocal {
    /// `spacedim`.
    pub spacedim: i64,
    /// `W/m` (rows).
    pub m: i64,
    /// `W/n` (columns).
    pub n: i64,
    /// `W/nz` (storage).
    pub nz: i64,
    /// `W/p`.
    pub p: Vec<i64>,
    /// `W/i`.
    pub i: Vec<i64>,
    /// `W/x`.
    pub x: Vec<f64>,
    /// `vectors/q`.
    pub q: Vec<f64>,
    /// `vectors/mu`.
    pub mu: Vec<f64>,
}

/// A checked FCLIB local problem: W in coordinates, q, mu.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalProblem {
    /// Space dimension d (2 or 3): unknowns per contact.
    pub spacedim: usize,
    /// Size of W (n = d · contacts).
    pub n: usize,
    /// Rows of the stored entries of W.
    pub rows: Vec<usize>,
    /// Columns of the stored entries of W.
    pub cols: Vec<usize>,
    /// Values of the stored entries of W (duplicates add up).
    pub vals: Vec<f64>,
    /// Free velocity q (n entries).
    pub q: Vec<f64>,
    /// Friction coefficient per contact.
    pub mu: Vec<f64>,
}

fn index(what: &str, position: usize, value: i64, bound: usize) -> Result<usize, FclibError> {
    match usize::try_from(value) {
        Ok(v) if v < bound => Ok(v),
        _ => Err(FclibError::IndexOutOfRange { what: what.into(), position, value, bound }),
    }
}

fn size(what: &str, value: i64) -> Result<usize, FclibError> {
    usize::try_from(value).map_err(|_| FclibError::BadSize {
        what: what.into(),
        message: format!("{value} is negative"),
    })
}

fn finite(what: &str, values: &[f64]) -> Result<(), FclibError> {
    match values.iter().position(|v| !v.is_finite()) {
        Some(position) => {
            Err(FclibError::NonFinite { what: what.into(), position, value: values[position] })
        }
        None => Ok(()),
    }
}

/// Checks that `p` is a pointer array of `outer + 1` non-decreasing entries from 0 to `len`.
fn pointers(p: &[i64], outer: usize, len: usize, what: &str) -> Result<Vec<usize>, FclibError> {
    pointers_of("W/p", p, outer, len, what)
}

/// [`pointers`] for the array named `array` (e.g. `M/p`).
fn pointers_of(
    array: &str,
    p: &[i64],
    outer: usize,
    len: usize,
    what: &str,
) -> Result<Vec<usize>, FclibError> {
    if p.len() != outer + 1 {
        return Err(FclibError::BadSize {
            what: array.into(),
            message: format!("{} pointers for {outer} {what}s, expected {}", p.len(), outer + 1),
        });
    }
    let mut out = Vec::with_capacity(p.len());
    let mut last = 0usize;
    for (k, &v) in p.iter().enumerate() {
        let v = index(array, k, v, len + 1)?;
        if v < last || (k == 0 && v != 0) {
            return Err(FclibError::BadSize {
                what: array.into(),
                message: format!("pointer {k} = {v} breaks 0 = p[0] <= p[1] <= ... <= nnz"),
            });
        }
        last = v;
        out.push(v);
    }
    Ok(out)
}

impl LocalProblem {
    /// Checks the raw arrays: d in {2, 3}, W square n x n with n = d · len(mu), q of length n,
    /// pointer and index arrays consistent and in range, every number finite.
    pub fn from_parts(raw: RawLocal) -> Result<Self, FclibError> {
        let d = size("spacedim", raw.spacedim)?;
        if d != 2 && d != 3 {
            return Err(FclibError::BadSize {
                what: "spacedim".into(),
                message: format!("{d}: expected 2 or 3"),
            });
        }
        let (m, n) = (size("W/m", raw.m)?, size("W/n", raw.n)?);
        if m != n {
            return Err(FclibError::BadSize {
                what: "W".into(),
                message: format!("{m}x{n}: a Delassus operator is square"),
            });
        }
        if raw.q.len() != n {
            return Err(FclibError::BadSize {
                what: "vectors/q".into(),
                message: format!("{} entries, W is {n}x{n}", raw.q.len()),
            });
        }
        if raw.mu.len().checked_mul(d) != Some(n) {
            return Err(FclibError::BadSize {
                what: "vectors/mu".into(),
                message: format!("{} contacts x spacedim {d} != {n} unknowns of W", raw.mu.len()),
            });
        }
        finite("W/x", &raw.x)?;
        finite("vectors/q", &raw.q)?;
        finite("vectors/mu", &raw.mu)?;
        let storage = Storage::from_nz(raw.nz)?;
        let (mut rows, mut cols) = (Vec::new(), Vec::new());
        let nnz = match storage {
            Storage::Triplet(k) => {
                if raw.p.len() < k || raw.i.len() < k || raw.x.len() < k {
                    return Err(FclibError::BadSize {
                        what: "W".into(),
                        message: format!(
                            "nz = {k} triplets but p, i, x hold {}, {}, {}",
                            raw.p.len(),
                            raw.i.len(),
                            raw.x.len()
                        ),
                    });
                }
                for e in 0..k {
                    cols.push(index("W/p", e, raw.p[e], n)?);
                    rows.push(index("W/i", e, raw.i[e], n)?);
                }
                k
            }
            Storage::CompressedColumn | Storage::CompressedRow => {
                let nnz = raw.i.len().min(raw.x.len());
                let ptr = pointers(&raw.p, n, nnz, "column or row")?;
                let nnz = ptr[n];
                for outer in 0..n {
                    for e in ptr[outer]..ptr[outer + 1] {
                        let inner = index("W/i", e, raw.i[e], n)?;
                        if storage == Storage::CompressedColumn {
                            rows.push(inner);
                            cols.push(outer);
                        } else {
                            rows.push(outer);
                            cols.push(inner);
                        }
                    }
                }
                nnz
            }
        };
        let mut vals = raw.x;
        vals.truncate(nnz);
        Ok(Self { spacedim: d, n, rows, cols, vals, q: raw.q, mu: raw.mu })
    }

    /// Number of contacts.
    pub fn contacts(&self) -> usize {
        self.mu.len()
    }

    /// The frictionless normal problem LCP(W_NN, q_N): rows and columns 0, d, 2d, ... of W and
    /// the same entries of q (sparse M).
    pub fn normal_lcp(&self) -> Result<Lcp, FclibError> {
        let d = self.spacedim;
        let nc = self.contacts();
        let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
        for ((&i, &j), &x) in self.rows.iter().zip(&self.cols).zip(&self.vals) {
            if i % d == 0 && j % d == 0 {
                r.push(i / d);
                c.push(j / d);
                v.push(x);
            }
        }
        let q: Vec<f64> = self.q.iter().step_by(d).copied().collect();
        debug_assert_eq!(q.len(), nc);
        Ok(Lcp::from_coo(nc, &r, &c, &v, q)?)
    }
}

/// A CSparse matrix as FCLIB stores it (`m`, `n`, `nz`, `p`, `i`, `x`), before any check.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RawCs {
    /// Rows.
    pub m: i64,
    /// Columns.
    pub n: i64,
    /// Storage (CSparse `nz`).
    pub nz: i64,
    /// Pointers or column indices.
    pub p: Vec<i64>,
    /// Row (or column) indices.
    pub i: Vec<i64>,
    /// Values.
    pub x: Vec<f64>,
}

/// A checked matrix in coordinates.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CooMatrix {
    /// Rows.
    pub nrows: usize,
    /// Columns.
    pub ncols: usize,
    /// Row of each entry.
    pub rows: Vec<usize>,
    /// Column of each entry.
    pub cols: Vec<usize>,
    /// Values (duplicates add up).
    pub vals: Vec<f64>,
}

impl CooMatrix {
    /// Checks a CSparse matrix named `name` (e.g. `M`, `H`) of any shape: sizes, pointers,
    /// indices, finite values.
    pub fn from_cs(name: &str, raw: &RawCs) -> Result<Self, FclibError> {
        let (nrows, ncols) =
            (size(&format!("{name}/m"), raw.m)?, size(&format!("{name}/n"), raw.n)?);
        finite(&format!("{name}/x"), &raw.x)?;
        let (pw, iw) = (format!("{name}/p"), format!("{name}/i"));
        let (mut rows, mut cols) = (Vec::new(), Vec::new());
        let nnz = match Storage::from_nz(raw.nz)? {
            Storage::Triplet(k) => {
                if raw.p.len() < k || raw.i.len() < k || raw.x.len() < k {
                    return Err(FclibError::BadSize {
                        what: name.into(),
                        message: format!("nz = {k} triplets but p, i, x are shorter"),
                    });
                }
                for e in 0..k {
                    cols.push(index(&pw, e, raw.p[e], ncols)?);
                    rows.push(index(&iw, e, raw.i[e], nrows)?);
                }
                k
            }
            st => {
                let by_column = st == Storage::CompressedColumn;
                let (outer_n, inner_n) = if by_column { (ncols, nrows) } else { (nrows, ncols) };
                let nnz = raw.i.len().min(raw.x.len());
                let ptr = pointers_of(&pw, &raw.p, outer_n, nnz, "column or row")?;
                for outer in 0..outer_n {
                    for e in ptr[outer]..ptr[outer + 1] {
                        let inner = index(&iw, e, raw.i[e], inner_n)?;
                        if by_column {
                            rows.push(inner);
                            cols.push(outer);
                        } else {
                            rows.push(outer);
                            cols.push(inner);
                        }
                    }
                }
                ptr[outer_n]
            }
        };
        let mut vals = raw.x.clone();
        vals.truncate(nnz);
        Ok(Self { nrows, ncols, rows, cols, vals })
    }
}

/// A checked FCLIB global problem: M v = H r + f, u = H' v + w, r_i in K_{mu_i}
/// (`/fclib_global`; the equality constraints G, b are not supported).
#[derive(Debug, Clone, PartialEq)]
pub struct GlobalProblem {
    /// Space dimension d (2 or 3).
    pub spacedim: usize,
    /// The mass matrix M (n_v x n_v).
    pub m: CooMatrix,
    /// H (n_v x d n_c).
    pub h: CooMatrix,
    /// f (n_v entries).
    pub f: Vec<f64>,
    /// w (d n_c entries).
    pub w: Vec<f64>,
    /// Friction coefficient per contact.
    pub mu: Vec<f64>,
}

/// Reads an FCLIB global problem (cargo feature `fclib`).
#[cfg(feature = "fclib")]
pub fn read_global(path: &Path) -> Result<GlobalProblem, FclibError> {
    guarded(|| read_global_unguarded(path))
}

#[cfg(feature = "fclib")]
fn read_global_unguarded(path: &Path) -> Result<GlobalProblem, FclibError> {
    use rust_hdf5::H5File;

    let file = H5File::open(path).map_err(|e| FclibError::Hdf5(e.to_string()))?;
    let dataset = |name: &str| {
        file.dataset(name).map_err(|e| match e {
            rust_hdf5::Hdf5Error::NotFound(_) => FclibError::Missing { path: format!("/{name}") },
            other => FclibError::Hdf5(format!("/{name}: {other}")),
        })
    };
    let ints = |name: &str| -> Result<Vec<i64>, FclibError> {
        dataset(name)?.read_numeric_as::<i64>().map_err(|e| FclibError::WrongType {
            path: format!("/{name}"),
            expected: "integers",
            message: e.to_string(),
        })
    };
    let floats = |name: &str| -> Result<Vec<f64>, FclibError> {
        dataset(name)?.read_numeric_as::<f64>().map_err(|e| FclibError::WrongType {
            path: format!("/{name}"),
            expected: "floating-point numbers",
            message: e.to_string(),
        })
    };
    let scalar = |name: &str| -> Result<i64, FclibError> {
        let v = ints(name)?;
        match v.as_slice() {
            [x] => Ok(*x),
            _ => Err(FclibError::BadSize {
                what: format!("/{name}"),
                message: format!("{} values, expected one", v.len()),
            }),
        }
    };
    let cs = |g: &str| -> Result<RawCs, FclibError> {
        Ok(RawCs {
            m: scalar(&format!("fclib_global/{g}/m"))?,
            n: scalar(&format!("fclib_global/{g}/n"))?,
            nz: scalar(&format!("fclib_global/{g}/nz"))?,
            p: ints(&format!("fclib_global/{g}/p"))?,
            i: ints(&format!("fclib_global/{g}/i"))?,
            x: floats(&format!("fclib_global/{g}/x"))?,
        })
    };
    if file.dataset("fclib_global/G/m").is_ok() {
        return Err(FclibError::Unsupported(
            "global problems with equality constraints (G, b) are not supported".into(),
        ));
    }
    let d = size("spacedim", scalar("fclib_global/spacedim")?)?;
    if d != 2 && d != 3 {
        return Err(FclibError::BadSize {
            what: "spacedim".into(),
            message: format!("{d}: expected 2 or 3"),
        });
    }
    let m = CooMatrix::from_cs("M", &cs("M")?)?;
    let h = CooMatrix::from_cs("H", &cs("H")?)?;
    let f = floats("fclib_global/vectors/f")?;
    let w = floats("fclib_global/vectors/w")?;
    let mu = floats("fclib_global/vectors/mu")?;
    finite("vectors/f", &f)?;
    finite("vectors/w", &w)?;
    finite("vectors/mu", &mu)?;
    let bad = |what: &str, message: String| FclibError::BadSize { what: what.into(), message };
    if m.nrows != m.ncols {
        return Err(bad("M", format!("{}x{}: a mass matrix is square", m.nrows, m.ncols)));
    }
    if h.nrows != m.nrows || f.len() != m.nrows {
        return Err(bad(
            "H, f",
            format!("H has {} rows, f {} entries, M is {}", h.nrows, f.len(), m.nrows),
        ));
    }
    if w.len() != h.ncols || mu.len().checked_mul(d) != Some(h.ncols) {
        return Err(bad(
            "w, mu",
            format!(
                "H has {} columns, w {} entries, mu {} contacts of dimension {d}",
                h.ncols,
                w.len(),
                mu.len()
            ),
        ));
    }
    Ok(GlobalProblem { spacedim: d, m, h, f, w, mu })
}

/// Without the `fclib` feature: always [`FclibError::FeatureDisabled`].
#[cfg(not(feature = "fclib"))]
pub fn read_global(path: &Path) -> Result<GlobalProblem, FclibError> {
    let _ = path;
    Err(FclibError::FeatureDisabled)
}

thread_local! {
    static DECODING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// True while this thread runs the HDF5 decoder under the reader's panic guard: a hook that would
/// end the process (the CLI's, libFuzzer's) lets such a panic unwind instead, so that it
/// becomes [`FclibError::Hdf5`].
pub fn decoder_panic_is_guarded() -> bool {
    DECODING.with(|d| d.get())
}

/// Runs the third-party HDF5 decoder and turns a panic inside it into a typed error. The
/// `fclib_hdf5` fuzz target found one: rust-hdf5 0.7.9 overflows an integer multiplication
/// (`format/messages/datatype.rs:717`) on a crafted datatype message; its errors are not
/// ours to fix, but a bad file must never take the process down.
#[cfg(feature = "fclib")]
fn guarded<T>(read: impl FnOnce() -> Result<T, FclibError>) -> Result<T, FclibError> {
    let before = DECODING.with(|d| d.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(read));
    DECODING.with(|d| d.set(before));
    result.unwrap_or_else(|payload| {
        let why = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown cause".into());
        Err(FclibError::Hdf5(format!("the HDF5 decoder failed on this file ({why})")))
    })
}

/// Reads an FCLIB local problem from an HDF5 file (cargo feature `fclib`).
#[cfg(feature = "fclib")]
pub fn read_local(path: &Path) -> Result<LocalProblem, FclibError> {
    guarded(|| read_local_unguarded(path))
}

#[cfg(feature = "fclib")]
fn read_local_unguarded(path: &Path) -> Result<LocalProblem, FclibError> {
    use rust_hdf5::H5File;

    let file = H5File::open(path).map_err(|e| FclibError::Hdf5(e.to_string()))?;
    let dataset = |name: &str| {
        file.dataset(name).map_err(|e| match e {
            rust_hdf5::Hdf5Error::NotFound(_) => FclibError::Missing { path: format!("/{name}") },
            other => FclibError::Hdf5(format!("/{name}: {other}")),
        })
    };
    let ints = |name: &str| -> Result<Vec<i64>, FclibError> {
        dataset(name)?.read_numeric_as::<i64>().map_err(|e| FclibError::WrongType {
            path: format!("/{name}"),
            expected: "integers",
            message: e.to_string(),
        })
    };
    let floats = |name: &str| -> Result<Vec<f64>, FclibError> {
        dataset(name)?.read_numeric_as::<f64>().map_err(|e| FclibError::WrongType {
            path: format!("/{name}"),
            expected: "floating-point numbers",
            message: e.to_string(),
        })
    };
    let scalar = |name: &str| -> Result<i64, FclibError> {
        let v = ints(name)?;
        match v.as_slice() {
            [x] => Ok(*x),
            _ => Err(FclibError::BadSize {
                what: format!("/{name}"),
                message: format!("{} values, expected one", v.len()),
            }),
        }
    };
    let raw = RawLocal {
        spacedim: scalar("fclib_local/spacedim")?,
        m: scalar("fclib_local/W/m")?,
        n: scalar("fclib_local/W/n")?,
        nz: scalar("fclib_local/W/nz")?,
        p: ints("fclib_local/W/p")?,
        i: ints("fclib_local/W/i")?,
        x: floats("fclib_local/W/x")?,
        q: floats("fclib_local/vectors/q")?,
        mu: floats("fclib_local/vectors/mu")?,
    };
    LocalProblem::from_parts(raw)
}

/// Writes an FCLIB local problem (cargo feature `fclib`) in the layout FCLIB's
/// `fclib_write_local` gives: `/fclib_local/spacedim` (one i32), `/fclib_local/W/{m, n, nz,
/// nzmax}` (one i32 each), W in compressed columns (`nz = -1`: `p` the n + 1 column pointers,
/// `i` the row indices, i32; `x` the values, f64; duplicates summed, explicit zeros dropped,
/// rows sorted in each column), `/fclib_local/vectors/{q, mu}` (f64). Sizes above i32 are
/// refused. The file is written under a temporary name and renamed once complete.
#[cfg(feature = "fclib")]
pub fn write_local(path: &Path, problem: &LocalProblem) -> Result<(), FclibError> {
    let columns = compressed_columns(problem)?;
    crate::formats::atomic::write_atomic_with(path, |tmp| {
        write_local_to(tmp, problem, &columns).map_err(|e| e.to_string())
    })
    .map_err(|e| FclibError::Hdf5(e.reason()))
}

/// Without the cargo feature `fclib` there is no HDF5 writer.
#[cfg(not(feature = "fclib"))]
pub fn write_local(_path: &Path, _problem: &LocalProblem) -> Result<(), FclibError> {
    Err(FclibError::FeatureDisabled)
}

/// W of a local problem in compressed columns, i32: (column pointers, row indices, values).
#[cfg(feature = "fclib")]
type Columns = (Vec<i32>, Vec<i32>, Vec<f64>);

#[cfg(feature = "fclib")]
fn compressed_columns(problem: &LocalProblem) -> Result<Columns, FclibError> {
    let n = problem.n;
    let too_big = |what: &str, v: usize| FclibError::BadSize {
        what: what.into(),
        message: format!("{v} does not fit FCLIB's 32-bit integers"),
    };
    i32::try_from(n).map_err(|_| too_big("W size", n))?;
    let spacedim_ok = matches!(problem.spacedim, 2 | 3) && n.is_multiple_of(problem.spacedim);
    if !spacedim_ok || problem.q.len() != n || problem.mu.len() * problem.spacedim != n {
        return Err(FclibError::BadSize {
            what: "local problem".into(),
            message: format!(
                "spacedim {}, W {n}x{n}, {} q entries, {} mu entries do not agree",
                problem.spacedim,
                problem.q.len(),
                problem.mu.len()
            ),
        });
    }
    let mut entries: Vec<(usize, usize, f64)> = Vec::with_capacity(problem.vals.len());
    for ((&r, &c), &v) in problem.rows.iter().zip(&problem.cols).zip(&problem.vals) {
        if r >= n || c >= n {
            return Err(FclibError::IndexOutOfRange {
                what: "W entry".into(),
                position: entries.len(),
                value: i64::try_from(r.max(c)).unwrap_or(i64::MAX),
                bound: n,
            });
        }
        entries.push((c, r, v));
    }
    entries.sort_unstable_by_key(|&(c, r, _)| (c, r));
    let mut p = vec![0i32; n + 1];
    let (mut rows, mut vals): (Vec<i32>, Vec<f64>) = (Vec::new(), Vec::new());
    let mut k = 0;
    while k < entries.len() {
        let (c, r, mut v) = entries[k];
        k += 1;
        while k < entries.len() && entries[k].0 == c && entries[k].1 == r {
            v += entries[k].2;
            k += 1;
        }
        if v != 0.0 {
            // r < n <= i32::MAX (checked above).
            rows.push(i32::try_from(r).map_err(|_| too_big("row index", r))?);
            vals.push(v);
            p[c + 1] += 1;
        }
    }
    let nnz = i32::try_from(vals.len()).map_err(|_| too_big("nonzeros of W", vals.len()))?;
    for c in 0..n {
        p[c + 1] += p[c];
    }
    debug_assert_eq!(p[n], nnz);
    Ok((p, rows, vals))
}

#[cfg(feature = "fclib")]
fn write_local_to(
    path: &Path,
    problem: &LocalProblem,
    (p, i, x): &Columns,
) -> Result<(), rust_hdf5::Hdf5Error> {
    use rust_hdf5::H5File;

    let file = H5File::create(path)?;
    let local = file.create_group("fclib_local")?;
    let int =
        |group: &rust_hdf5::H5Group, name: &str, v: i32| -> Result<(), rust_hdf5::Hdf5Error> {
            group.new_dataset::<i32>().shape([1]).create(name)?.write_raw(&[v])
        };
    // Sizes were checked to fit i32 by `compressed_columns`.
    let n = i32::try_from(problem.n).unwrap_or(i32::MAX);
    let nnz = i32::try_from(x.len()).unwrap_or(i32::MAX);
    int(&local, "spacedim", i32::try_from(problem.spacedim).unwrap_or(0))?;
    let w = local.create_group("W")?;
    int(&w, "m", n)?;
    int(&w, "n", n)?;
    int(&w, "nz", -1)?;
    int(&w, "nzmax", nnz)?;
    w.new_dataset::<i32>().shape([p.len()]).create("p")?.write_raw(p)?;
    w.new_dataset::<i32>().shape([i.len()]).create("i")?.write_raw(i)?;
    w.new_dataset::<f64>().shape([x.len()]).create("x")?.write_raw(x)?;
    let vectors = local.create_group("vectors")?;
    vectors.new_dataset::<f64>().shape([problem.q.len()]).create("q")?.write_raw(&problem.q)?;
    vectors.new_dataset::<f64>().shape([problem.mu.len()]).create("mu")?.write_raw(&problem.mu)?;
    file.close()
}

/// The `/solution` group of an FCLIB local problem.
#[derive(Debug, Clone, PartialEq)]
pub struct LocalSolution {
    /// Reactions.
    pub r: Vec<f64>,
    /// Relative velocities.
    pub u: Vec<f64>,
}

/// The reactions r and velocities u of the `/solution` group (or `/fclib_local/solution`), when the file has
/// one (cargo feature `fclib`); `Ok(None)` when it has none.
#[cfg(feature = "fclib")]
pub fn read_local_solution(path: &Path) -> Result<Option<LocalSolution>, FclibError> {
    guarded(|| read_local_solution_unguarded(path))
}

#[cfg(feature = "fclib")]
fn read_local_solution_unguarded(path: &Path) -> Result<Option<LocalSolution>, FclibError> {
    use rust_hdf5::H5File;

    let file = H5File::open(path).map_err(|e| FclibError::Hdf5(e.to_string()))?;
    let floats = |name: &str| -> Result<Option<Vec<f64>>, FclibError> {
        match file.dataset(name) {
            Err(rust_hdf5::Hdf5Error::NotFound(_)) => Ok(None),
            Err(e) => Err(FclibError::Hdf5(format!("/{name}: {e}"))),
            Ok(d) => d.read_numeric_as::<f64>().map(Some).map_err(|e| FclibError::WrongType {
                path: format!("/{name}"),
                expected: "floating-point numbers",
                message: e.to_string(),
            }),
        }
    };
    // FCLIB writes the group at the root (`/solution`); some writers nest it.
    let mut pair = (floats("solution/r")?, floats("solution/u")?);
    if pair.0.is_none() {
        pair = (floats("fclib_local/solution/r")?, floats("fclib_local/solution/u")?);
    }
    match pair {
        (Some(r), Some(u)) => {
            finite("solution/r", &r)?;
            finite("solution/u", &u)?;
            Ok(Some(LocalSolution { r, u }))
        }
        _ => Ok(None),
    }
}

/// Without the `fclib` feature: always [`FclibError::FeatureDisabled`].
#[cfg(not(feature = "fclib"))]
pub fn read_local_solution(path: &Path) -> Result<Option<LocalSolution>, FclibError> {
    let _ = path;
    Err(FclibError::FeatureDisabled)
}

/// Without the `fclib` feature: always [`FclibError::FeatureDisabled`].
#[cfg(not(feature = "fclib"))]
pub fn read_local(path: &Path) -> Result<LocalProblem, FclibError> {
    let _ = path;
    Err(FclibError::FeatureDisabled)
}

/// Reads the frictionless normal LCP of an FCLIB local problem; the name is the file stem and
/// the source says it is the normal part of an FCLIB problem.
pub fn read(path: &Path) -> Result<Lcp, FclibError> {
    let local = read_local(path)?;
    let lcp = local.normal_lcp()?;
    Ok(lcp.with_source(format!(
        "FCLIB local problem {} (normal part W_NN, q_N of {} contacts, spacedim {})",
        path.display(),
        local.contacts(),
        local.spacedim
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two 3-D contacts, W = diag(2, 1, 1, 4, 1, 1) + 1 in (0, 3) and (3, 0), as CSC.
    fn raw_csc() -> RawLocal {
        RawLocal {
            spacedim: 3,
            m: 6,
            n: 6,
            nz: -1,
            p: vec![0, 2, 3, 4, 6, 7, 8],
            i: vec![0, 3, 1, 2, 0, 3, 4, 5],
            x: vec![2.0, 1.0, 1.0, 1.0, 1.0, 4.0, 1.0, 1.0],
            q: vec![-1.0, 0.5, 0.5, -2.0, 0.5, 0.5],
            mu: vec![0.5, 0.5],
        }
    }

    #[test]
    fn normal_part_of_csc_csr_and_triplets_agree() {
        let csc = LocalProblem::from_parts(raw_csc()).expect("valid").normal_lcp().expect("lcp");
        assert_eq!(csc.n(), 2);
        let want = [[2.0, 1.0], [1.0, 4.0]];
        for (i, row) in want.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                assert!((csc.get(i, j) - v).abs() < 1e-15);
            }
        }
        assert_eq!(csc.q(), &[-1.0, -2.0]);
        // The same matrix as CSR (it is symmetric, so the arrays coincide) and as triplets.
        let csr = RawLocal { nz: -2, ..raw_csc() };
        let lcp = LocalProblem::from_parts(csr).expect("valid").normal_lcp().expect("lcp");
        assert!((lcp.get(1, 0) - 1.0).abs() < 1e-15);
        let cols = vec![0, 0, 1, 2, 3, 3, 4, 5];
        let trip = RawLocal { nz: 8, p: cols, ..raw_csc() };
        let lcp = LocalProblem::from_parts(trip).expect("valid").normal_lcp().expect("lcp");
        assert!((lcp.get(1, 1) - 4.0).abs() < 1e-15 && (lcp.get(0, 1) - 1.0).abs() < 1e-15);
    }

    #[test]
    fn inconsistent_arrays_are_typed_errors() {
        let bad = |r: RawLocal| LocalProblem::from_parts(r).err();
        assert!(matches!(
            bad(RawLocal { spacedim: 4, ..raw_csc() }),
            Some(FclibError::BadSize { .. })
        ));
        assert!(matches!(bad(RawLocal { m: 5, ..raw_csc() }), Some(FclibError::BadSize { .. })));
        assert!(matches!(
            bad(RawLocal { mu: vec![0.5], ..raw_csc() }),
            Some(FclibError::BadSize { .. })
        ));
        let mut r = raw_csc();
        r.i[3] = 6;
        assert!(matches!(bad(r), Some(FclibError::IndexOutOfRange { position: 3, .. })));
        let mut r = raw_csc();
        r.p[2] = 9;
        assert!(matches!(bad(r), Some(FclibError::IndexOutOfRange { .. })));
        let mut r = raw_csc();
        r.p.swap(1, 2);
        assert!(matches!(bad(r), Some(FclibError::BadSize { .. })));
        let mut r = raw_csc();
        r.p.pop();
        assert!(matches!(bad(r), Some(FclibError::BadSize { .. })));
        let mut r = raw_csc();
        r.x[0] = f64::NAN;
        assert!(matches!(bad(r), Some(FclibError::NonFinite { .. })));
        assert!(matches!(bad(RawLocal { nz: -3, ..raw_csc() }), Some(FclibError::BadSize { .. })));
        assert!(matches!(bad(RawLocal { nz: 100, ..raw_csc() }), Some(FclibError::BadSize { .. })));
        assert!(matches!(
            bad(RawLocal { m: -1, n: -1, ..raw_csc() }),
            Some(FclibError::BadSize { .. })
        ));
    }

    /// A 3 x 2 H as CSC, as triplets, and with a row index out of range.
    #[test]
    fn rectangular_cs_matrices_of_global_problems() {
        let raw = RawCs {
            m: 3,
            n: 2,
            nz: -1,
            p: vec![0, 2, 3],
            i: vec![0, 2, 1],
            x: vec![1.0, 2.0, 3.0],
        };
        let h = CooMatrix::from_cs("H", &raw).expect("valid");
        assert_eq!((h.nrows, h.ncols), (3, 2));
        assert_eq!((h.rows.clone(), h.cols.clone()), (vec![0, 2, 1], vec![0, 0, 1]));
        let trip = RawCs { nz: 3, p: vec![0, 0, 1], ..raw.clone() };
        assert_eq!(CooMatrix::from_cs("H", &trip).expect("valid").cols, vec![0, 0, 1]);
        let bad = RawCs { i: vec![0, 3, 1], ..raw.clone() };
        let e = CooMatrix::from_cs("H", &bad).err();
        assert!(
            matches!(e, Some(FclibError::IndexOutOfRange { ref what, position: 1, .. }) if what == "H/i")
        );
        let short = RawCs { p: vec![0, 2], ..raw };
        let e = CooMatrix::from_cs("H", &short).err();
        assert!(matches!(e, Some(FclibError::BadSize { ref what, .. }) if what == "H/p"));
    }

    #[cfg(feature = "fclib")]
    mod hdf5 {
        use super::super::*;

        fn sample() -> std::path::PathBuf {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../verification/data/fclib/local_problem_test.hdf5")
        }

        #[test]
        fn reads_the_fclib_sample() {
            let local = read_local(&sample()).expect("the FCLIB sample reads");
            assert_eq!((local.spacedim, local.n, local.contacts()), (3, 144, 48));
            assert!(local.mu.iter().all(|m| (m - 0.7).abs() < 1e-15));
            assert_eq!(local.vals.len(), 4896);
            let lcp = local.normal_lcp().expect("normal part");
            assert_eq!(lcp.n(), 48);
            // W_NN is symmetric (a Delassus operator) with a positive diagonal.
            for i in 0..48 {
                assert!(lcp.get(i, i) > 0.0);
                for j in 0..48 {
                    let (a, b) = (lcp.get(i, j), lcp.get(j, i));
                    assert!((a - b).abs() <= 1e-9 * (1.0 + a.abs()), "({i}, {j}): {a} vs {b}");
                }
            }
        }

        #[test]
        fn truncated_and_foreign_bytes_are_errors() {
            let dir = std::env::temp_dir().join(format!("signorini-fclib-{}", std::process::id()));
            std::fs::create_dir_all(&dir).expect("temp dir");
            let bytes = std::fs::read(sample()).expect("sample");
            for (name, data) in [
                ("truncated.hdf5", bytes[..bytes.len() / 2].to_vec()),
                ("header_only.hdf5", bytes[..64].to_vec()),
                ("empty.hdf5", Vec::new()),
                ("text.hdf5", b"%SiconosNumerics\n2\n1 0\n0 1\n-1 -1\n".to_vec()),
            ] {
                let path = dir.join(name);
                std::fs::write(&path, &data).expect("write");
                let e = read_local(&path);
                assert!(e.is_err(), "{name} read as a problem");
            }
            let e = read_local(&dir.join("absent.hdf5"));
            assert!(matches!(e, Err(FclibError::Hdf5(_))));
            std::fs::remove_dir_all(&dir).ok();
        }

        #[test]
        fn corrupted_metadata_never_panics() {
            // Random bytes written over the first 4 KiB (superblock, object headers, B-trees)
            // and random truncations: every outcome must be Ok or a typed error (a panic fails
            // the test). Deterministic xorshift stream.
            let dir =
                std::env::temp_dir().join(format!("signorini-fclib-fuzz-{}", std::process::id()));
            std::fs::create_dir_all(&dir).expect("temp dir");
            let bytes = std::fs::read(sample()).expect("sample");
            let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
            let mut next = move || {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state
            };
            let path = dir.join("corrupt.hdf5");
            let mut errors = 0;
            for trial in 0..96 {
                let mut b = bytes.clone();
                if trial % 3 == 0 {
                    b.truncate((next() as usize) % bytes.len());
                } else {
                    for _ in 0..1 + next() % 8 {
                        let i = (next() as usize) % 4096;
                        b[i] = next() as u8;
                    }
                }
                std::fs::write(&path, &b).expect("write");
                if let Ok(local) = read_local(&path) {
                    // Whatever still reads is a consistent problem.
                    assert!(local.normal_lcp().is_ok_and(|l| l.n() == local.contacts()));
                } else {
                    errors += 1;
                }
            }
            assert!(errors > 0, "no corruption was detected in 96 trials");
            std::fs::remove_dir_all(&dir).ok();
        }
    }
}
