//! The versioned JSON problem format `signorini-fc/1`:
//! `{"format": "signorini-fc/1", "name": .., "dimension": 2 | 3, "W": {"dense": [[..]]} |
//! {"coo": {"n", "row", "col", "val"}}, "q": [..], "mu": [..]}`. Dense rows are rows;
//! coordinate duplicates are summed; unknown keys are errors (the W layout is that of
//! `signorini-lcp/1`'s M).

use serde::{Deserialize, Serialize};
use signorini_lcp::formats::json::json_error;
use signorini_lcp::{FormatError, FormatErrorKind, Matrix, ProblemError};

use super::invalid;
use crate::{FcProblem, FcProblemError};

/// The value of the `format` key.
pub const TAG: &str = "signorini-fc/1";

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct FcFile {
    format: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    dimension: usize,
    #[serde(rename = "W")]
    w: MatrixFile,
    q: Vec<f64>,
    mu: Vec<f64>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
enum MatrixFile {
    Dense(Vec<Vec<f64>>),
    Coo(CooFile),
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct CooFile {
    n: usize,
    row: Vec<usize>,
    col: Vec<usize>,
    val: Vec<f64>,
}

/// Parses a `signorini-fc/1` document.
pub fn from_str(text: &str) -> Result<FcProblem, FormatError> {
    let file: FcFile = serde_json::from_str(text).map_err(|e| json_error(text, &e))?;
    if file.format != TAG {
        return Err(FormatError::new(FormatErrorKind::WrongTag {
            found: signorini_lcp::formats::one_line(&file.format),
            expected: TAG.into(),
        }));
    }
    let (d, q, mu) = (file.dimension, file.q, file.mu);
    let problem = match file.w {
        MatrixFile::Dense(rows) => {
            if rows.len() != q.len() {
                // Checked before the n x n allocation.
                let e = ProblemError::SizeMismatch { n: rows.len(), q_len: q.len() };
                return Err(invalid(FcProblemError::Data(e)));
            }
            FcProblem::from_dense_rows(d, &rows, q, mu)
        }
        MatrixFile::Coo(c) => {
            if c.n != q.len() {
                let e = ProblemError::SizeMismatch { n: c.n, q_len: q.len() };
                return Err(invalid(FcProblemError::Data(e)));
            }
            FcProblem::from_coo(d, c.n, &c.row, &c.col, &c.val, q, mu)
        }
    }
    .map_err(invalid)?;
    Ok(match file.name {
        Some(n) => problem.with_name(n),
        None => problem,
    })
}

/// Writes a `signorini-fc/1` document: a dense W as rows, a sparse W as coordinates in row
/// order; numbers in their shortest exact form.
pub fn to_string(problem: &FcProblem) -> String {
    let w = match problem.w() {
        Matrix::Dense(m) => MatrixFile::Dense(
            (0..m.nrows()).map(|i| (0..m.ncols()).map(|j| m[(i, j)]).collect()).collect(),
        ),
        Matrix::Sparse(s) => {
            let (mut row, mut col, mut val) = (Vec::new(), Vec::new(), Vec::new());
            for i in 0..s.nrows() {
                for (&j, &v) in s.col_idx_of_row_raw(i).iter().zip(s.val_of_row(i)) {
                    row.push(i);
                    col.push(j);
                    val.push(v);
                }
            }
            MatrixFile::Coo(CooFile { n: s.nrows(), row, col, val })
        }
    };
    let file = FcFile {
        format: TAG.into(),
        name: problem.name.clone(),
        dimension: problem.dimension(),
        w,
        q: problem.q().to_vec(),
        mu: problem.mu().to_vec(),
    };
    serde_json::to_string(&file).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_and_coo_round_trip() {
        let text = r#"{"format":"signorini-fc/1","dimension":2,"W":{"dense":[[2,1],[1,2]]},
                      "q":[-1,0.5],"mu":[0.3]}"#;
        let p = from_str(text).expect("valid");
        let back = from_str(&to_string(&p)).expect("round trip");
        assert_eq!(back.q(), p.q());
        assert!((back.get(0, 1) - 1.0).abs() < 1e-15);
        let coo = r#"{"format":"signorini-fc/1","dimension":2,"W":{"coo":{"n":2,"row":[0,1,0],
                     "col":[0,1,0],"val":[1,2,1]}},"q":[-1,0],"mu":[0.1]}"#;
        let p = from_str(coo).expect("valid");
        assert!(p.is_sparse() && (p.get(0, 0) - 2.0).abs() < 1e-15);
        let back = from_str(&to_string(&p)).expect("round trip");
        assert!((back.get(1, 1) - 2.0).abs() < 1e-15);
    }

    #[test]
    fn wrong_documents_are_errors() {
        let wrong_tag = r#"{"format":"signorini-lcp/1","dimension":2,"W":{"dense":[[1,0],[0,1]]},"q":[0,0],"mu":[0]}"#;
        assert!(matches!(
            from_str(wrong_tag).map_err(|e| e.kind),
            Err(FormatErrorKind::WrongTag { .. })
        ));
        let bad_mu = r#"{"format":"signorini-fc/1","dimension":2,"W":{"dense":[[1,0],[0,1]]},"q":[0,0],"mu":[0,1]}"#;
        assert!(from_str(bad_mu).is_err_and(|e| e.to_string().contains("mu has 2 entries")));
        assert!(from_str("{").is_err());
    }
}
