//! MatrixMarket (NIST exchange format, Boisvert, Pozo, Remington 1996): M in one `.mtx` file,
//! q in a second one holding an n x 1 (or 1 x n) matrix, array or coordinate.
//!
//! File naming ([`matrix_market_paths`]): a directory `D` holds `D/M.mtx` and `D/q.mtx`; a file
//! `dir/M.mtx` pairs with `dir/q.mtx`; any other `dir/foo.mtx` pairs with `dir/foo_q.mtx`.
//!
//! Coordinate data are read by `sprs::io::read_matrix_market_from_bufread` after a guard pass
//! that checks every field: sprs sizes its buffers from the announced entry count, loops
//! forever on a file that ends inside the header and asserts (panics) on an index outside the
//! matrix, so none of that text reaches it unchecked. The guard also hands sprs a normalised
//! text (banner, size line, entries). `array` data, which sprs does not read, are parsed here.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use faer::Mat;

use super::{read_text_limited, write_text, FormatError, FormatErrorKind};
use crate::{Lcp, ProblemError};

/// The two files of a MatrixMarket problem: (M, q). See the module documentation.
pub fn matrix_market_paths(path: &Path) -> (PathBuf, PathBuf) {
    let is_mtx =
        path.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case("mtx"));
    if path.is_dir() || !is_mtx {
        return (path.join("M.mtx"), path.join("q.mtx"));
    }
    let parent = path.parent().map(Path::to_path_buf).unwrap_or_default();
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("M");
    let q = if stem == "M" { parent.join("q.mtx") } else { parent.join(format!("{stem}_q.mtx")) };
    (path.to_path_buf(), q)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    Coordinate,
    Array,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Symmetry {
    General,
    Symmetric,
    SkewSymmetric,
}

/// A parsed MatrixMarket matrix.
#[derive(Debug)]
enum Data {
    /// Coordinates (0-based), duplicates not yet summed; symmetric halves already mirrored.
    Coo { rows: usize, cols: usize, r: Vec<usize>, c: Vec<usize>, v: Vec<f64> },
    /// Column-major values of a general array.
    Array { rows: usize, cols: usize, vals: Vec<f64> },
}

impl Data {
    fn shape(&self) -> (usize, usize) {
        match self {
            Data::Coo { rows, cols, .. } | Data::Array { rows, cols, .. } => (*rows, *cols),
        }
    }
}

fn layout_err(msg: impl Into<String>, line: usize) -> FormatError {
    FormatError::at_line(FormatErrorKind::Layout(msg.into()), line)
}

fn parse_banner(line: &str) -> Result<(Layout, Symmetry), FormatError> {
    let words: Vec<String> = line.split_whitespace().map(str::to_ascii_lowercase).collect();
    if words.first().map(String::as_str) != Some("%%matrixmarket") {
        return Err(FormatError::at_line(
            FormatErrorKind::Layout("the first line must be a %%MatrixMarket banner".into()),
            1,
        ));
    }
    let get = |k: usize| words.get(k).map_or("", String::as_str);
    if get(1) != "matrix" || words.len() != 5 {
        return Err(layout_err(
            "banner must read `%%MatrixMarket matrix <coordinate|array> <real|integer> \
             <general|symmetric|skew-symmetric>`",
            1,
        ));
    }
    let layout = match get(2) {
        "coordinate" => Layout::Coordinate,
        "array" => Layout::Array,
        other => return Err(layout_err(format!("unknown layout `{other}`"), 1)),
    };
    match get(3) {
        "real" | "integer" | "double" => {}
        other => {
            return Err(FormatError::at_line(
                FormatErrorKind::Unsupported(format!(
                    "field `{other}`: an LCP needs real or integer entries"
                )),
                1,
            ))
        }
    }
    let symmetry = match get(4) {
        "general" => Symmetry::General,
        "symmetric" => Symmetry::Symmetric,
        "skew-symmetric" => Symmetry::SkewSymmetric,
        other => {
            return Err(FormatError::at_line(
                FormatErrorKind::Unsupported(format!("symmetry `{other}`")),
                1,
            ))
        }
    };
    if layout == Layout::Array && symmetry != Symmetry::General {
        return Err(FormatError::at_line(
            FormatErrorKind::Unsupported("array storage is read only as `general`".into()),
            1,
        ));
    }
    Ok((layout, symmetry))
}

fn parse_index(tok: &str, max: usize, what: &str, line: usize) -> Result<usize, FormatError> {
    match tok.parse::<usize>() {
        Ok(i) if (1..=max).contains(&i) => Ok(i - 1),
        Ok(_) => Err(FormatError::at(
            FormatErrorKind::Layout(format!("{what} index outside 1..={max}")),
            line,
            tok,
        )),
        Err(_) => Err(FormatError::at(
            FormatErrorKind::NotAnInteger { expected: format!("the {what} index") },
            line,
            tok,
        )),
    }
}

fn parse_value(tok: &str, what: impl Fn() -> String, line: usize) -> Result<f64, FormatError> {
    match tok.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err(FormatError::at(FormatErrorKind::NonFinite { what: what() }, line, tok)),
        Err(_) => Err(FormatError::at(FormatErrorKind::NotANumber { expected: what() }, line, tok)),
    }
}

/// Parses one MatrixMarket text (guard pass, then sprs for coordinate data).
fn parse(text: &str) -> Result<Data, FormatError> {
    if text.trim().is_empty() {
        return Err(FormatError::new(FormatErrorKind::Empty));
    }
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l));
    let banner = lines.next().map_or("", |(_, l)| l);
    let (layout, symmetry) = parse_banner(banner)?;
    // Data lines: neither comments nor blank.
    let mut body = lines.filter(|(_, l)| !l.trim_start().starts_with('%') && !l.trim().is_empty());
    let last_line = text.lines().count().max(1);
    let (size_line, size_text) = body.next().ok_or_else(|| {
        FormatError::at_line(
            FormatErrorKind::Truncated { expected: "the size line".into() },
            last_line,
        )
    })?;
    let sizes: Vec<&str> = size_text.split_whitespace().collect();
    let want = if layout == Layout::Coordinate { 3 } else { 2 };
    if sizes.len() != want {
        return Err(layout_err(
            format!(
                "the size line must hold {}",
                if want == 3 { "rows cols entries" } else { "rows cols" }
            ),
            size_line,
        ));
    }
    let mut dims = [0usize; 3];
    for (k, tok) in sizes.iter().enumerate() {
        dims[k] = tok.parse::<usize>().map_err(|_| {
            FormatError::at(
                FormatErrorKind::NotAnInteger { expected: "a size".into() },
                size_line,
                tok,
            )
        })?;
    }
    let (rows, cols) = (dims[0], dims[1]);
    let body: Vec<(usize, &str)> = body.collect();
    match layout {
        Layout::Array => {
            let tokens: Vec<(usize, &str)> =
                body.iter().flat_map(|&(l, s)| s.split_whitespace().map(move |t| (l, t))).collect();
            let count = rows.checked_mul(cols);
            if count.is_none_or(|c| c > tokens.len()) {
                return Err(FormatError::at_line(
                    FormatErrorKind::AbsurdSize {
                        what: "rows*cols".into(),
                        value: count.map_or_else(|| "overflow".into(), |c| c.to_string()),
                        available: tokens.len(),
                    },
                    size_line,
                ));
            }
            let count = count.unwrap_or(0);
            if let Some(&(l, t)) = tokens.get(count) {
                return Err(FormatError::at(
                    FormatErrorKind::Layout(format!("more than rows*cols = {count} values")),
                    l,
                    t,
                ));
            }
            let mut vals = Vec::with_capacity(count);
            for (k, &(l, t)) in tokens.iter().enumerate() {
                let (i, j) = (k % rows.max(1), k / rows.max(1));
                vals.push(parse_value(t, || format!("entry ({},{})", i + 1, j + 1), l)?);
            }
            Ok(Data::Array { rows, cols, vals })
        }
        Layout::Coordinate => {
            let entries = dims[2];
            if entries > body.len() {
                return Err(FormatError::at_line(
                    FormatErrorKind::AbsurdSize {
                        what: "entries".into(),
                        value: entries.to_string(),
                        available: body.len(),
                    },
                    size_line,
                ));
            }
            if let Some(&(l, s)) = body.get(entries) {
                return Err(FormatError::at(
                    FormatErrorKind::Layout(format!("more than the {entries} announced entries")),
                    l,
                    s.trim(),
                ));
            }
            let mut clean = String::with_capacity(text.len());
            clean.push_str(match symmetry {
                Symmetry::General => "%%MatrixMarket matrix coordinate real general\n",
                Symmetry::Symmetric => "%%MatrixMarket matrix coordinate real symmetric\n",
                Symmetry::SkewSymmetric => "%%MatrixMarket matrix coordinate real skew-symmetric\n",
            });
            clean.push_str(&format!("{rows} {cols} {entries}\n"));
            for &(l, s) in &body {
                let toks: Vec<&str> = s.split_whitespace().collect();
                if toks.len() != 3 {
                    return Err(layout_err("an entry line must hold `row col value`", l));
                }
                let i = parse_index(toks[0], rows, "row", l)?;
                let j = parse_index(toks[1], cols, "column", l)?;
                let v = parse_value(toks[2], || format!("entry ({},{})", i + 1, j + 1), l)?;
                if symmetry == Symmetry::SkewSymmetric && i == j {
                    return Err(layout_err("a skew-symmetric matrix has no diagonal entries", l));
                }
                if symmetry != Symmetry::General && (i >= cols || j >= rows) {
                    return Err(layout_err("a symmetric matrix must be square", l));
                }
                // `{:e}` of the checked value reads back exactly; integers become reals.
                clean.push_str(&format!("{} {} {:e}\n", i + 1, j + 1, v));
            }
            let tri = sprs::io::read_matrix_market_from_bufread::<f64, usize, _>(&mut Cursor::new(
                clean.as_bytes(),
            ))
            .map_err(|e| FormatError::new(FormatErrorKind::Layout(format!("sprs: {e}"))))?;
            Ok(Data::Coo {
                rows,
                cols,
                r: tri.row_inds().to_vec(),
                c: tri.col_inds().to_vec(),
                v: tri.data().to_vec(),
            })
        }
    }
}

fn count_tokens(text: &str) -> usize {
    text.split_whitespace().count()
}

/// Builds q from a parsed n x 1 (or 1 x n) matrix; `limit` bounds a coordinate length.
fn to_q(data: Data, limit: usize) -> Result<Vec<f64>, FormatError> {
    let (rows, cols) = data.shape();
    if rows != 1 && cols != 1 {
        return Err(FormatError::new(FormatErrorKind::Layout(format!(
            "q must be an n x 1 matrix, this one is {rows}x{cols}"
        ))));
    }
    let len = if cols == 1 { rows } else { cols };
    match data {
        Data::Array { vals, .. } => Ok(vals),
        Data::Coo { r, c, v, .. } => {
            if len > limit {
                return Err(FormatError::new(FormatErrorKind::AbsurdSize {
                    what: "the length of q".into(),
                    value: len.to_string(),
                    available: limit,
                }));
            }
            let mut q = vec![0.0; len];
            for ((i, j), x) in r.into_iter().zip(c).zip(v) {
                q[i.max(j)] += x;
            }
            Ok(q)
        }
    }
}

fn assemble(m: Data, q: Vec<f64>) -> Result<Lcp, FormatError> {
    let (rows, cols) = m.shape();
    if rows != cols {
        return Err(ProblemError::NotSquare { rows, cols }.into());
    }
    if rows != q.len() {
        // Checked before M is stored: the announced size is never allocated unmatched.
        return Err(ProblemError::SizeMismatch { n: rows, q_len: q.len() }.into());
    }
    match m {
        Data::Coo { rows: n, r, c, v, .. } => Ok(Lcp::from_coo(n, &r, &c, &v, q)?),
        Data::Array { rows: n, vals, .. } => {
            Ok(Lcp::from_dense(Mat::from_fn(n, n, |i, j| vals[i + j * n]), q)?)
        }
    }
}

/// Parses a problem from the texts of its two files (M, then q).
pub fn from_strs(m_text: &str, q_text: &str) -> Result<Lcp, FormatError> {
    let limit = count_tokens(m_text) + count_tokens(q_text);
    let m = parse(m_text)?;
    let q = to_q(parse(q_text)?, limit)?;
    assemble(m, q)
}

/// Reads a problem from its two files (see [`matrix_market_paths`]), each up to
/// [`super::DEFAULT_MAX_INPUT_BYTES`].
pub fn read(path: &Path) -> Result<Lcp, FormatError> {
    read_limited(path, super::DEFAULT_MAX_INPUT_BYTES)
}

/// [`read`] with a cap of `max_bytes` per file.
pub fn read_limited(path: &Path, max_bytes: u64) -> Result<Lcp, FormatError> {
    let (mp, qp) = matrix_market_paths(path);
    let m_text = read_text_limited(&mp, max_bytes)?;
    let q_text = read_text_limited(&qp, max_bytes)?;
    let limit = count_tokens(&m_text) + count_tokens(&q_text);
    let m = parse(&m_text).map_err(|e| e.in_file(&mp))?;
    let q = to_q(parse(&q_text).map_err(|e| e.in_file(&qp))?, limit).map_err(|e| e.in_file(&qp))?;
    assemble(m, q).map_err(|e| e.in_file(&mp))
}

/// M as MatrixMarket coordinate text, written by `sprs::io::write_matrix_market_to_bufwrite`
/// (stored entries of a sparse M, nonzeros of a dense M).
pub fn m_to_string(lcp: &Lcp) -> String {
    let n = lcp.n();
    let s = lcp.to_sparse();
    let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..n {
        for (&j, &x) in s.col_idx_of_row_raw(i).iter().zip(s.val_of_row(i)) {
            r.push(i);
            c.push(j);
            v.push(x);
        }
    }
    let tri = sprs::TriMat::from_triplets((n, n), r, c, v);
    let mut buf = Vec::new();
    match sprs::io::write_matrix_market_to_bufwrite(&mut buf, &tri) {
        Ok(()) => String::from_utf8_lossy(&buf).into_owned(),
        Err(_) => unreachable!("writing to a Vec<u8> cannot fail"),
    }
}

/// q as an n x 1 MatrixMarket array.
pub fn q_to_string(lcp: &Lcp) -> String {
    let mut out = String::from("%%MatrixMarket matrix array real general\n% q of the LCP\n");
    out.push_str(&format!("{} 1\n", lcp.n()));
    for v in lcp.q() {
        out.push_str(&format!("{v:e}\n"));
    }
    out
}

/// Writes M and q to the two files named by [`matrix_market_paths`]; a path without the
/// `.mtx` extension is a directory, created when missing.
pub fn write(path: &Path, lcp: &Lcp) -> Result<(), FormatError> {
    let is_mtx =
        path.extension().and_then(|e| e.to_str()).is_some_and(|e| e.eq_ignore_ascii_case("mtx"));
    if !is_mtx {
        std::fs::create_dir_all(path)
            .map_err(|e| FormatError::new(FormatErrorKind::Io(e.to_string())).in_file(path))?;
    }
    let (mp, qp) = matrix_market_paths(path);
    write_text(&mp, &m_to_string(lcp))?;
    write_text(&qp, &q_to_string(lcp))
}

/// Dense M written as a MatrixMarket array (column-major), for tools that want it.
pub fn m_to_array_string(lcp: &Lcp) -> String {
    let n = lcp.n();
    let mut out = String::from("%%MatrixMarket matrix array real general\n");
    out.push_str(&format!("{n} {n}\n"));
    for j in 0..n {
        for i in 0..n {
            out.push_str(&format!("{:e}\n", lcp.get(i, j)));
        }
    }
    out
}
