//! Solutions as JSON (the object `signorini solve --json` prints) and warm starts read from a
//! JSON array or from such an object.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::json::json_error;
use super::{read_text, write_text, FormatError, FormatErrorKind};
use crate::merit::evaluate;
use crate::{Certificate, Lcp, Solution, Status};

/// The flat JSON form of a solve. Every merit figure is recomputed from `z` by
/// [`SolutionRecord::new`]. Non-finite numbers are written as `null` (JSON has no NaN).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SolutionRecord {
    /// How the run ended (snake_case).
    pub status: Status,
    /// The solver's canonical name.
    pub solver: String,
    /// Problem size.
    pub n: usize,
    /// The returned z.
    pub z: Vec<f64>,
    /// w = Mz + q, recomputed from z.
    pub w: Vec<f64>,
    /// ||min(z, w)||_2 / ||q||_2 recomputed from z.
    pub residual: f64,
    /// max_i |z_i w_i|.
    pub complementarity: f64,
    /// max(0, -min z).
    pub z_violation: f64,
    /// max(0, -min w).
    pub w_violation: f64,
    /// The tolerance the status was judged against.
    pub tol: f64,
    /// Iterations of the solver's main loop.
    pub iterations: usize,
    /// Pivots (pivoting methods), `null` otherwise.
    pub pivots: Option<usize>,
    /// Matrix-vector products with M.
    pub matvecs: usize,
    /// Matrix factorisations.
    pub factorizations: usize,
    /// Wall time of the solve alone, seconds.
    pub solve_seconds: f64,
    /// `null`, `{"kind": "farkas", "y": [..]}` or `{"kind": "enumeration", "index_sets": k}`.
    pub certificate: Option<Certificate>,
    /// Why the driver changed the status the solver claimed, if it did.
    pub note: Option<String>,
}

impl SolutionRecord {
    /// The record of `solution` for `lcp`, with w and the merit recomputed from z.
    pub fn new(lcp: &Lcp, solution: &Solution) -> Self {
        let (w, merit) = evaluate(lcp, &solution.z);
        Self {
            status: solution.status,
            solver: solution.solver.clone(),
            n: lcp.n(),
            z: solution.z.clone(),
            w,
            residual: merit.residual,
            complementarity: merit.complementarity,
            z_violation: merit.z_violation,
            w_violation: merit.w_violation,
            tol: solution.tol,
            iterations: solution.iterations,
            pivots: solution.pivots,
            matvecs: solution.matvecs,
            factorizations: solution.factorizations,
            solve_seconds: solution.solve_seconds,
            certificate: solution.certificate.clone(),
            note: solution.note.clone(),
        }
    }
}

/// The solution record as one line of JSON.
pub fn solution_to_json(lcp: &Lcp, solution: &Solution) -> String {
    let record = SolutionRecord::new(lcp, solution);
    serde_json::to_string(&record).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"))
}

/// Writes the solution record to a file.
pub fn write_solution(path: &Path, lcp: &Lcp, solution: &Solution) -> Result<(), FormatError> {
    write_text(path, &(solution_to_json(lcp, solution) + "\n"))
}

/// Parses a warm start: a JSON array of numbers, or an object whose `z` is one (the output of
/// an earlier `solve --json`). Entries must be finite.
pub fn warm_start_from_str(text: &str) -> Result<Vec<f64>, FormatError> {
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| json_error(text, &e))?;
    let array = match &value {
        serde_json::Value::Array(a) => a,
        serde_json::Value::Object(o) => match o.get("z") {
            Some(serde_json::Value::Array(a)) => a,
            _ => {
                return Err(FormatError::new(FormatErrorKind::Layout(
                    "a warm-start object needs a `z` array".into(),
                )))
            }
        },
        _ => {
            return Err(FormatError::new(FormatErrorKind::Layout(
                "a warm start is a JSON array of numbers or an object with `z`".into(),
            )))
        }
    };
    array
        .iter()
        .enumerate()
        .map(|(i, v)| match v.as_f64() {
            Some(x) if x.is_finite() => Ok(x),
            _ => Err(FormatError::new(FormatErrorKind::NotANumber {
                expected: format!("z[{i}] = {v}"),
            })),
        })
        .collect()
}

/// Reads a warm start from a file (see [`warm_start_from_str`]).
pub fn read_warm_start(path: &Path) -> Result<Vec<f64>, FormatError> {
    warm_start_from_str(&read_text(path)?).map_err(|e| e.in_file(path))
}
