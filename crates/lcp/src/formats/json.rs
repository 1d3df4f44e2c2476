//! The versioned JSON problem format `signorini-lcp/1` (DESIGN.md §3):
//! `{"format": "signorini-lcp/1", "name": .., "source": .., "M": {"dense": [[..]]} |
//! {"coo": {"n", "row", "col", "val"}}, "q": [..]}`. Dense rows are rows; coordinate
//! duplicates are summed; unknown keys are errors.

use serde::{Deserialize, Serialize};

use super::{FormatError, FormatErrorKind};
use crate::{Lcp, Matrix, ProblemError};

/// The value of the `format` key.
pub const TAG: &str = "signorini-lcp/1";

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LcpFile {
    format: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    source: Option<String>,
    #[serde(rename = "M")]
    m: MatrixFile,
    q: Vec<f64>,
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

/// Maps a serde_json error to a [`FormatError`] with its line.
pub fn json_error(text: &str, e: &serde_json::Error) -> FormatError {
    if text.trim().is_empty() {
        return FormatError::new(FormatErrorKind::Empty);
    }
    let mut message = e.to_string();
    if let Some(i) = message.rfind(" at line ") {
        message.truncate(i);
    }
    let kind = FormatErrorKind::Json { message: super::one_line(&message), column: e.column() };
    if e.line() > 0 {
        FormatError::at_line(kind, e.line())
    } else {
        FormatError::new(kind)
    }
}

/// Parses a `signorini-lcp/1` document.
pub fn from_str(text: &str) -> Result<Lcp, FormatError> {
    let file: LcpFile = serde_json::from_str(text).map_err(|e| json_error(text, &e))?;
    if file.format != TAG {
        return Err(FormatError::new(FormatErrorKind::WrongTag {
            found: super::one_line(&file.format),
            expected: TAG.into(),
        }));
    }
    let q = file.q;
    let lcp = match file.m {
        MatrixFile::Dense(rows) => {
            if rows.len() != q.len() {
                // Checked before the n x n allocation.
                return Err(ProblemError::SizeMismatch { n: rows.len(), q_len: q.len() }.into());
            }
            Lcp::from_dense_rows(&rows, q)?
        }
        MatrixFile::Coo(c) => {
            if c.n != q.len() {
                // An announced n is never allocated before it is matched against q.
                return Err(ProblemError::SizeMismatch { n: c.n, q_len: q.len() }.into());
            }
            Lcp::from_coo(c.n, &c.row, &c.col, &c.val, q)?
        }
    };
    let lcp = match file.name {
        Some(n) => lcp.with_name(n),
        None => lcp,
    };
    Ok(match file.source {
        Some(s) => lcp.with_source(s),
        None => lcp,
    })
}

fn json_str(s: &str) -> String {
    serde_json::Value::String(s.into()).to_string()
}

fn json_nums<T: Serialize>(v: &[T]) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "[]".into())
}

/// Writes a `signorini-lcp/1` document: a dense M as rows (one per line), a sparse M as
/// coordinates in row order. Numbers are written in their shortest exact form.
pub fn to_string(lcp: &Lcp) -> String {
    let mut out = String::from("{\n");
    out.push_str(&format!("  \"format\": {},\n", json_str(TAG)));
    if let Some(n) = &lcp.name {
        out.push_str(&format!("  \"name\": {},\n", json_str(n)));
    }
    if let Some(s) = &lcp.source {
        out.push_str(&format!("  \"source\": {},\n", json_str(s)));
    }
    match lcp.matrix() {
        Matrix::Dense(_) => {
            let rows: Vec<String> =
                lcp.dense_rows().iter().map(|r| format!("    {}", json_nums(r))).collect();
            if rows.is_empty() {
                out.push_str("  \"M\": { \"dense\": [] },\n");
            } else {
                out.push_str(&format!("  \"M\": {{ \"dense\": [\n{}\n  ] }},\n", rows.join(",\n")));
            }
        }
        Matrix::Sparse(s) => {
            let (mut row, mut col, mut val) = (Vec::new(), Vec::new(), Vec::new());
            for i in 0..s.nrows() {
                for (&j, &v) in s.col_idx_of_row_raw(i).iter().zip(s.val_of_row(i)) {
                    row.push(i);
                    col.push(j);
                    val.push(v);
                }
            }
            out.push_str(&format!(
                "  \"M\": {{ \"coo\": {{\n    \"n\": {},\n    \"row\": {},\n    \"col\": {},\n    \"val\": {}\n  }} }},\n",
                lcp.n(),
                json_nums(&row),
                json_nums(&col),
                json_nums(&val)
            ));
        }
    }
    out.push_str(&format!("  \"q\": {}\n}}\n", json_nums(lcp.q())));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_example_reads_dense_rows_as_rows() {
        let text =
            r#"{ "format": "signorini-lcp/1", "M": { "dense": [[2, 1], [0, 2]] }, "q": [-3, -3] }"#;
        let lcp = from_str(text).expect("valid");
        assert_eq!(lcp.n(), 2);
        assert!((lcp.get(0, 1) - 1.0).abs() < 1e-15);
        assert!(lcp.get(1, 0).abs() < 1e-15);
    }

    #[test]
    fn coo_duplicates_are_summed() {
        let text = r#"{ "format": "signorini-lcp/1",
            "M": { "coo": { "n": 2, "row": [0, 1, 0], "col": [0, 1, 0], "val": [1, 2, 1.5] } },
            "q": [-1, -1] }"#;
        let lcp = from_str(text).expect("valid");
        assert!((lcp.get(0, 0) - 2.5).abs() < 1e-15);
        assert!(lcp.is_sparse());
    }

    #[test]
    fn unknown_key_is_an_error() {
        let text =
            r#"{ "format": "signorini-lcp/1", "M": { "dense": [[1]] }, "q": [1], "extra": 0 }"#;
        let e = from_str(text).expect_err("unknown key");
        assert!(matches!(e.kind, FormatErrorKind::Json { .. }), "{e}");
        assert!(e.to_string().contains("extra"), "{e}");
    }
}
