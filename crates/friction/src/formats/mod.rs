//! Frictional-contact problem files: the Siconos `.dat` layout (`frictionContact_printInFile`,
//! W dense, sparse-block or CSparse), the versioned JSON `signorini-fc/1`, and FCLIB local and
//! global problems (`.hdf5`, through signorini-lcp's reader, with mu kept; a global problem is
//! reduced to its local form; Acary, Brémond, Koziara, Pérignon 2014, INRIA RT-0444).
//!
//! Errors are signorini-lcp's [`FormatError`]: file, line, token and what is wrong; no input
//! makes a reader panic.

pub mod dat;
pub mod json;

use std::path::Path;

use signorini_lcp::formats::{fclib, read_text, write_text};
use signorini_lcp::{FormatError, FormatErrorKind};

use crate::{FcProblem, FcProblemError};

/// A frictional-contact problem file format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FcFormat {
    /// `signorini-fc/1` JSON (`.json`).
    Json,
    /// Siconos `.dat` (`frictionContact_printInFile`).
    SiconosDat,
    /// FCLIB local problem (`.hdf5`, `.h5`), read-only.
    Fclib,
}

impl FcFormat {
    /// The format a path names by its extension.
    pub fn from_path(path: &Path) -> Option<Self> {
        match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
            "json" => Some(Self::Json),
            "dat" => Some(Self::SiconosDat),
            "hdf5" | "h5" => Some(Self::Fclib),
            _ => None,
        }
    }

    /// Parses `json`, `dat` / `siconos`, `hdf5` / `fclib`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "json" => Some(Self::Json),
            "dat" | "siconos" => Some(Self::SiconosDat),
            "hdf5" | "h5" | "fclib" => Some(Self::Fclib),
            _ => None,
        }
    }
}

/// A problem-validation error as a file error.
pub(crate) fn invalid(e: FcProblemError) -> FormatError {
    FormatError::new(FormatErrorKind::Layout(e.to_string()))
}

/// Reads a frictional-contact problem; `format` overrides the choice by extension. The name
/// defaults to the file stem.
pub fn read_fc_problem(path: &Path, format: Option<FcFormat>) -> Result<FcProblem, FormatError> {
    let format = format
        .or_else(|| FcFormat::from_path(path))
        .ok_or_else(|| FormatError::new(FormatErrorKind::UnknownFormat).in_file(path))?;
    let problem = match format {
        FcFormat::Json => json::from_str(&read_text(path)?).map_err(|e| e.in_file(path))?,
        FcFormat::SiconosDat => dat::from_str(&read_text(path)?).map_err(|e| e.in_file(path))?,
        FcFormat::Fclib => read_fclib(path).map_err(|e| e.in_file(path))?,
    };
    Ok(match (&problem.name, path.file_stem().and_then(|s| s.to_str())) {
        (None, Some(stem)) => problem.with_name(stem),
        _ => problem,
    })
}

/// Writes a problem as `signorini-fc/1` JSON.
pub fn write_fc_json(path: &Path, problem: &FcProblem) -> Result<(), FormatError> {
    write_text(path, &json::to_string(problem))
}

/// Writes a problem as an FCLIB local problem (`.hdf5`, FCLIB's `fclib_write_local` layout;
/// [`fclib::write_local`]): W's nonzero entries in compressed columns, q and mu. Needs the cargo
/// feature `fclib`.
pub fn write_fclib(path: &Path, problem: &FcProblem) -> Result<(), FormatError> {
    let rows = signorini_lcp::linalg::sweeps::Rows::of(problem.w());
    let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..problem.n() {
        rows.for_each(i, |j, x| {
            r.push(i);
            c.push(j);
            v.push(x);
        });
    }
    let local = fclib::LocalProblem {
        spacedim: problem.dimension(),
        n: problem.n(),
        rows: r,
        cols: c,
        vals: v,
        q: problem.q().to_vec(),
        mu: problem.mu().to_vec(),
    };
    fclib::write_local(path, &local).map_err(|e| FormatError::new(e.into()).in_file(path))
}

/// Reads an FCLIB problem: local (`/fclib_local`), or global (`/fclib_global`) reduced to its
/// local form ([`read_fclib_global`]).
pub fn read_fclib(path: &Path) -> Result<FcProblem, FormatError> {
    match fclib::read_local(path) {
        Err(fclib::FclibError::Missing { path: missing })
            if missing.starts_with("/fclib_local") =>
        {
            read_fclib_global(path)
        }
        other => local_problem(other.map_err(|e| FormatError::new(e.into()))?),
    }
}

/// The largest velocity or reaction count the dense global-to-local reduction takes.
pub const MAX_DENSE_GLOBAL: usize = 4000;

/// Reads an FCLIB global problem (M v = H r + f, u = H' v + w) and reduces it to the local
/// problem W = H' M^-1 H, q = H' M^-1 f + w (FCLIB's definition). The reduction is dense (faer
/// partial-pivoting LU of M): sizes above [`MAX_DENSE_GLOBAL`] are refused.
pub fn read_fclib_global(path: &Path) -> Result<FcProblem, FormatError> {
    use faer::linalg::solvers::Solve;
    let g = fclib::read_global(path).map_err(|e| FormatError::new(e.into()))?;
    let (nv, nr) = (g.m.nrows, g.h.ncols);
    if nv > MAX_DENSE_GLOBAL || nr > MAX_DENSE_GLOBAL {
        return Err(FormatError::new(FormatErrorKind::Unsupported(format!(
            "global problem with {nv} velocities and {nr} reactions: the dense reduction to W \
             takes at most {MAX_DENSE_GLOBAL}"
        ))));
    }
    let mut m = faer::Mat::<f64>::zeros(nv, nv);
    for ((&i, &j), &v) in g.m.rows.iter().zip(&g.m.cols).zip(&g.m.vals) {
        m[(i, j)] += v;
    }
    // [H f]: one solve with M for both.
    let mut rhs = faer::Mat::<f64>::zeros(nv, nr + 1);
    for ((&i, &j), &v) in g.h.rows.iter().zip(&g.h.cols).zip(&g.h.vals) {
        rhs[(i, j)] += v;
    }
    for (i, &fi) in g.f.iter().enumerate() {
        rhs[(i, nr)] = fi;
    }
    let h = rhs.clone();
    let sol = m.partial_piv_lu().solve(&rhs);
    if (0..nr + 1).any(|j| sol.col(j).iter().any(|v| !v.is_finite())) {
        return Err(FormatError::new(FormatErrorKind::Layout(
            "the mass matrix M of the global problem is singular".into(),
        )));
    }
    // W = H' (M^-1 H), q = H' (M^-1 f) + w.
    let ht = h.get(.., ..nr).transpose().to_owned();
    let wq = &ht * &sol;
    let w = wq.get(.., ..nr).to_owned();
    let q: Vec<f64> = (0..nr).map(|i| wq[(i, nr)] + g.w[i]).collect();
    FcProblem::new(g.spacedim, signorini_lcp::Matrix::Dense(w), q, g.mu).map_err(invalid)
}

/// Reads an FCLIB local problem with its friction coefficients (cargo feature `fclib`).
pub fn read_fclib_local(path: &Path) -> Result<FcProblem, FormatError> {
    local_problem(fclib::read_local(path).map_err(|e| FormatError::new(e.into()))?)
}

fn local_problem(local: fclib::LocalProblem) -> Result<FcProblem, FormatError> {
    FcProblem::from_coo(
        local.spacedim,
        local.n,
        &local.rows,
        &local.cols,
        &local.vals,
        local.q,
        local.mu,
    )
    .map_err(invalid)
}

/// Parses a warm start: a JSON array of numbers, or an object whose `r` is one (the output of
/// an earlier `signorini fc --json`). Entries must be finite.
pub fn fc_warm_start_from_str(text: &str) -> Result<Vec<f64>, FormatError> {
    let value: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| signorini_lcp::formats::json::json_error(text, &e))?;
    let array = match &value {
        serde_json::Value::Array(a) => a,
        serde_json::Value::Object(o) => match o.get("r") {
            Some(serde_json::Value::Array(a)) => a,
            _ => {
                return Err(FormatError::new(FormatErrorKind::Layout(
                    "a warm-start object needs an `r` array".into(),
                )))
            }
        },
        _ => {
            return Err(FormatError::new(FormatErrorKind::Layout(
                "a warm start is a JSON array of numbers or an object with `r`".into(),
            )))
        }
    };
    array
        .iter()
        .enumerate()
        .map(|(i, v)| match v.as_f64() {
            Some(x) if x.is_finite() => Ok(x),
            _ => Err(FormatError::new(FormatErrorKind::NotANumber {
                expected: format!("r[{i}] = {v}"),
            })),
        })
        .collect()
}

/// Reads a warm start from a file (see [`fc_warm_start_from_str`]).
pub fn read_fc_warm_start(path: &Path) -> Result<Vec<f64>, FormatError> {
    fc_warm_start_from_str(&read_text(path)?).map_err(|e| e.in_file(path))
}
