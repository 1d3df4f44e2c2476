//! The Siconos numerics LCP text layout (`.dat`, as written by `NM_write_in_file` /
//! `SBM_write_in_file` in siconos/numerics, Acary et al., INRIA): dense (storage 0,
//! **column-major** value stream), sparse-block matrices (storage 1, SBM) and, read-only,
//! CSparse dumps (storage 2, `cs_print` of CSparse 3, T. A. Davis).
//!
//! ```text
//! n  storageType  size0 size1  <payload>  q[0] .. q[n-1]  <free text, ignored>
//! dense payload: size0 size1, then size0*size1 values, M(i,j) = values[i + j*size0]
//! SBM payload:   nbblocks  blocknumber0 blocknumber1
//!                blocksize0[blocknumber0] (cumulative)  blocksize1[blocknumber1] (cumulative)
//!                filled1 filled2 (= blocknumber0 + 1, nbblocks)
//!                index1_data[filled1]  index2_data[filled2]
//!                per stored block, in block-row order: its number, its values column-major
//! ```
//! Tokens are whitespace separated; line breaks carry no meaning.

use std::collections::BTreeMap;

use faer::Mat;

use super::{fmt_f64, FormatError, FormatErrorKind, Tokens};
use crate::{Lcp, Matrix, ProblemError};

/// Parses a Siconos `.dat` LCP (dense, sparse-block or CSparse).
pub fn from_str(text: &str) -> Result<Lcp, FormatError> {
    let mut t = Tokens::new(text);
    if t.is_empty() {
        return Err(FormatError::new(FormatErrorKind::Empty));
    }
    let n_line = t.line();
    let n = t.usize("n (the problem size)")?;
    // q alone needs n more tokens: an absurd n fails here, before anything is allocated.
    t.ensure("n", Some(n))?;
    let header = read_header(&mut t)?;
    if header.size0 != n {
        return Err(FormatError::at_line(
            ProblemError::SizeMismatch { n: header.size0, q_len: n }.into(),
            n_line,
        ));
    }
    let m = read_payload(&mut t, &header)?;
    let mut q = Vec::with_capacity(n);
    for i in 0..n {
        q.push(t.f64(|| format!("q[{i}]"))?);
    }
    Ok(Lcp::new(m, q)?)
}

/// The storage type and size of a `NumericsMatrix`, checked square.
struct Header<'a> {
    storage: Option<usize>,
    storage_line: usize,
    storage_tok: &'a str,
    size0: usize,
}

fn read_header<'a>(t: &mut Tokens<'a>) -> Result<Header<'a>, FormatError> {
    let (storage_line, storage_tok) = t.next_token("the storage type")?;
    let storage = storage_tok.parse::<usize>().ok();
    let size_line = t.line();
    let size0 = t.usize("size0 (rows of M)")?;
    let size1 = t.usize("size1 (columns of M)")?;
    if size0 != size1 {
        return Err(FormatError::at_line(
            ProblemError::NotSquare { rows: size0, cols: size1 }.into(),
            size_line,
        ));
    }
    Ok(Header { storage, storage_line, storage_tok, size0 })
}

fn read_payload(t: &mut Tokens<'_>, h: &Header<'_>) -> Result<Matrix, FormatError> {
    match h.storage {
        Some(0) => read_dense(t, h.size0),
        Some(1) => read_sbm(t, h.size0),
        Some(2) => read_csparse(t, h.size0),
        _ => Err(FormatError::at(
            FormatErrorKind::Layout(
                "storage type must be 0 (dense), 1 (sparse-block) or 2 (CSparse)".into(),
            ),
            h.storage_line,
            h.storage_tok,
        )),
    }
}

/// Reads a Siconos `NumericsMatrix` as `NM_write_in_file` prints it: the storage type, size0,
/// size1 and the payload, for a square matrix of the `expected` size: storage 0 (dense,
/// column-major), 1 (sparse-block, SBM) or 2 (sparse: an origin code, then a CSparse
/// `cs_print` dump in compressed-column or triplet form). Shared with the frictional-contact
/// reader of signorini-friction.
pub fn read_numerics_matrix(t: &mut Tokens<'_>, expected: usize) -> Result<Matrix, FormatError> {
    let line = t.line();
    let header = read_header(t)?;
    if header.size0 != expected {
        return Err(FormatError::at_line(
            FormatErrorKind::Layout(format!(
                "the matrix is {0}x{0}, the header announces {expected}x{expected}",
                header.size0
            )),
            line,
        ));
    }
    read_payload(t, &header)
}

/// An integer printed by CSparse with `%g` (e.g. `12`, `1.2e+06` for large indices).
fn cs_index(t: &mut Tokens<'_>, what: &str, bound: usize) -> Result<usize, FormatError> {
    let (line, tok) = t.next_token(what)?;
    let tok_trimmed = tok.trim_end_matches(',');
    match tok_trimmed.parse::<f64>() {
        Ok(v) if v >= 0.0 && v.fract() == 0.0 && v < bound as f64 => Ok(v as usize),
        _ => Err(FormatError::at(
            FormatErrorKind::Layout(format!("{what} must be an integer in 0..{bound}")),
            line,
            tok,
        )),
    }
}

/// Consumes the next token and checks it is `word`.
fn expect_word(t: &mut Tokens<'_>, word: &str) -> Result<(), FormatError> {
    let (line, tok) = t.next_token(&format!("`{word}`"))?;
    if tok == word {
        Ok(())
    } else {
        Err(FormatError::at(FormatErrorKind::Layout(format!("expected `{word}`")), line, tok))
    }
}

/// Storage 2: the sparse origin code, then a CSparse 3 `cs_print` dump (`CSparse Version ...`
/// line, `m-by-n, nzmax: .. nnz: .., 1-norm: ..` then per column `col j : locations a to b`
/// and `i : x` lines; or `triplet: m-by-n, nzmax: .. nnz: ..` then `i j : x` lines).
/// CSparse prints values with `%g`: six significant digits are all the file holds.
fn read_csparse(t: &mut Tokens<'_>, n: usize) -> Result<Matrix, FormatError> {
    let _origin = t.usize("the sparse origin code")?;
    let (line, tok) = t.next_token("the CSparse banner")?;
    if tok != "CSparse" {
        return Err(FormatError::at(
            FormatErrorKind::Layout("expected a CSparse `cs_print` banner".into()),
            line,
            tok,
        ));
    }
    while t.line() == line && t.remaining() > 0 {
        t.next_token("the CSparse banner")?;
    }
    let (line, first) = t.next_token("the CSparse size line")?;
    let triplet = first == "triplet:";
    let dims = if triplet { t.next_token("the CSparse size")?.1 } else { first };
    let want = format!("{n}-by-{n}");
    if dims.trim_end_matches(',') != want {
        return Err(FormatError::at(
            FormatErrorKind::Layout(format!("CSparse size {dims}, expected {want}")),
            line,
            dims,
        ));
    }
    expect_word(t, "nzmax:")?;
    let _nzmax = t.next_token("nzmax")?;
    expect_word(t, "nnz:")?;
    let nnz = cs_index(t, "nnz", usize::MAX)?;
    // Each entry takes at least three tokens (`i : x`).
    t.ensure("nnz (three tokens per entry)", nnz.checked_mul(3))?;
    let (mut rows, mut cols, mut vals) =
        (Vec::with_capacity(nnz), Vec::with_capacity(nnz), Vec::with_capacity(nnz));
    if triplet {
        for k in 0..nnz {
            let i = cs_index(t, &format!("row of entry {k}"), n)?;
            let j = cs_index(t, &format!("column of entry {k}"), n)?;
            expect_word(t, ":")?;
            rows.push(i);
            cols.push(j);
            vals.push(t.f64(|| format!("M({i},{j})"))?);
        }
    } else {
        expect_word(t, "1-norm:")?;
        let _norm = t.next_token("the 1-norm")?;
        let mut next = 0usize;
        for j in 0..n {
            expect_word(t, "col")?;
            let jj = cs_index(t, "the column number", n)?;
            if jj != j {
                return Err(FormatError::at_line(
                    FormatErrorKind::Layout(format!("column {jj} where column {j} was expected")),
                    t.line(),
                ));
            }
            expect_word(t, ":")?;
            expect_word(t, "locations")?;
            let (line, a_tok) = t.next_token("the first location")?;
            let a = a_tok.parse::<i64>().ok();
            expect_word(t, "to")?;
            let (_, b_tok) = t.next_token("the last location")?;
            let b = b_tok.parse::<i64>().ok();
            let count = match (a, b) {
                (Some(a), Some(b)) if a == next as i64 && b + 1 >= a && b < nnz as i64 + 1 => {
                    (b + 1 - a) as usize
                }
                _ => {
                    return Err(FormatError::at(
                        FormatErrorKind::Layout(format!(
                            "column {j}: locations {a_tok} to {b_tok} do not continue at {next}                              within nnz = {nnz}"
                        )),
                        line,
                        a_tok,
                    ))
                }
            };
            for _ in 0..count {
                let i = cs_index(t, &format!("a row index of column {j}"), n)?;
                expect_word(t, ":")?;
                rows.push(i);
                cols.push(j);
                vals.push(t.f64(|| format!("M({i},{j})"))?);
            }
            next += count;
        }
        if next != nnz {
            return Err(FormatError::at_line(
                FormatErrorKind::Layout(format!("the columns hold {next} entries, nnz = {nnz}")),
                t.line(),
            ));
        }
    }
    let lcp = Lcp::from_coo(n, &rows, &cols, &vals, vec![0.0; n])?;
    Ok(lcp.matrix().clone())
}

fn read_dense(t: &mut Tokens<'_>, n: usize) -> Result<Matrix, FormatError> {
    let line = t.line();
    let r = t.usize("size0 (repeated before the dense values)")?;
    let c = t.usize("size1 (repeated before the dense values)")?;
    if r != n || c != n {
        return Err(FormatError::at_line(
            FormatErrorKind::Layout(format!(
                "the dense block announces {r}x{c}, the header {n}x{n}"
            )),
            line,
        ));
    }
    // n*n values and n entries of q must all be present.
    let needed = n.checked_mul(n).and_then(|nn| nn.checked_add(n));
    t.ensure("size0*size1 + n", needed)?;
    let mut m = Mat::<f64>::zeros(n, n);
    // Column-major: M(i,j) = values[i + j*size0]; each printed line is a column.
    for j in 0..n {
        for i in 0..n {
            m[(i, j)] = t.f64(|| format!("M({i},{j})"))?;
        }
    }
    Ok(Matrix::Dense(m))
}

/// Reads `count` cumulative block boundaries, strictly increasing, the last equal to `total`.
fn read_cumulative(
    t: &mut Tokens<'_>,
    count: usize,
    total: usize,
    name: &str,
) -> Result<Vec<usize>, FormatError> {
    t.ensure(name, Some(count))?;
    let mut out = Vec::with_capacity(count);
    let mut prev = 0;
    for k in 0..count {
        let line = t.line();
        let v = t.usize(&format!("{name}[{k}]"))?;
        if v <= prev {
            return Err(FormatError::at_line(
                FormatErrorKind::Layout(format!(
                    "{name}[{k}] = {v}: cumulative block sizes must increase (previous {prev})"
                )),
                line,
            ));
        }
        prev = v;
        out.push(v);
    }
    if prev != total {
        return Err(FormatError::at_line(
            FormatErrorKind::Layout(format!(
                "{name} ends at {prev}, the matrix has {total} (cumulative sizes expected)"
            )),
            t.line(),
        ));
    }
    Ok(out)
}

fn read_sbm(t: &mut Tokens<'_>, n: usize) -> Result<Matrix, FormatError> {
    let nb_line = t.line();
    let nbblocks = t.usize("nbblocks")?;
    let blocknumber0 = t.usize("blocknumber0 (block rows)")?;
    let blocknumber1 = t.usize("blocknumber1 (block columns)")?;
    // Each stored block needs at least its number and one value.
    if nbblocks > t.remaining() / 2 {
        return Err(FormatError::at_line(
            FormatErrorKind::AbsurdSize {
                what: "nbblocks".into(),
                value: nbblocks.to_string(),
                available: t.remaining(),
            },
            nb_line,
        ));
    }
    let bs0 = read_cumulative(t, blocknumber0, n, "blocksize0")?;
    let bs1 = read_cumulative(t, blocknumber1, n, "blocksize1")?;
    let filled_line = t.line();
    let filled1 = t.usize("filled1")?;
    let filled2 = t.usize("filled2")?;
    if filled1 != blocknumber0 + 1 || filled2 != nbblocks {
        return Err(FormatError::at_line(
            FormatErrorKind::Layout(format!(
                "filled1 filled2 = {filled1} {filled2}, expected blocknumber0 + 1 = {} and \
                 nbblocks = {nbblocks} (declared at line {nb_line})",
                blocknumber0 + 1
            )),
            filled_line,
        ));
    }
    t.ensure("filled1", Some(filled1))?;
    let mut index1 = Vec::with_capacity(filled1);
    for k in 0..filled1 {
        let line = t.line();
        let v = t.usize(&format!("index1_data[{k}]"))?;
        let prev = index1.last().copied().unwrap_or(0);
        if (k == 0 && v != 0) || v < prev || v > nbblocks {
            return Err(FormatError::at_line(
                FormatErrorKind::Layout(format!(
                    "index1_data[{k}] = {v}: the block-row pointer must start at 0, not \
                     decrease, and stay <= nbblocks = {nbblocks}"
                )),
                line,
            ));
        }
        index1.push(v);
    }
    if index1.last().copied().unwrap_or(0) != nbblocks {
        return Err(FormatError::at_line(
            FormatErrorKind::Layout(format!(
                "index1_data ends at {}, expected nbblocks = {nbblocks}",
                index1.last().copied().unwrap_or(0)
            )),
            t.line(),
        ));
    }
    t.ensure("filled2", Some(filled2))?;
    let mut index2 = Vec::with_capacity(filled2);
    for k in 0..filled2 {
        let line = t.line();
        let v = t.usize(&format!("index2_data[{k}]"))?;
        if v >= blocknumber1 {
            return Err(FormatError::at_line(
                FormatErrorKind::Layout(format!(
                    "index2_data[{k}] = {v}: block column out of range (blocknumber1 = \
                     {blocknumber1})"
                )),
                line,
            ));
        }
        index2.push(v);
    }
    let (mut rows, mut cols, mut vals) = (Vec::new(), Vec::new(), Vec::new());
    for bi in 0..blocknumber0 {
        let r0 = if bi == 0 { 0 } else { bs0[bi - 1] };
        let nr = bs0[bi] - r0;
        for (k, &bj) in index2.iter().enumerate().take(index1[bi + 1]).skip(index1[bi]) {
            let c0 = if bj == 0 { 0 } else { bs1[bj - 1] };
            let nc = bs1[bj] - c0;
            let (line, tok) = t.next_token(&format!("the number of block {k}"))?;
            if tok.parse::<usize>().ok() != Some(k) {
                return Err(FormatError::at(
                    FormatErrorKind::Layout(format!("expected block number {k}")),
                    line,
                    tok,
                ));
            }
            t.ensure(&format!("block {k} size"), nr.checked_mul(nc))?;
            for jj in 0..nc {
                for ii in 0..nr {
                    let (i, j) = (r0 + ii, c0 + jj);
                    let v = t.f64(|| format!("M({i},{j}) in block {k}"))?;
                    if v == 0.0 {
                        // Zeros inside a dense block are padding, not structure.
                        continue;
                    }
                    rows.push(i);
                    cols.push(j);
                    vals.push(v);
                }
            }
        }
    }
    let lcp = Lcp::from_coo(n, &rows, &cols, &vals, vec![0.0; n])?;
    Ok(lcp.matrix().clone())
}

/// Writes the dense layout (storage 0): one printed line per column of M.
pub fn to_string_dense(lcp: &Lcp) -> String {
    let n = lcp.n();
    let mut out = format!("{n}\n0\n{n}\n{n}\n{n}\t{n}\n");
    for j in 0..n {
        let col: Vec<String> = (0..n).map(|i| fmt_f64(lcp.get(i, j))).collect();
        out.push_str(&col.join(" "));
        out.push('\n');
    }
    push_q(&mut out, lcp);
    out
}

/// Writes the sparse-block layout (storage 1) with square blocks of `block_size` (the last
/// block row / column is smaller when `block_size` does not divide n; 0 is taken as 1).
/// Blocks without a stored nonzero are omitted.
pub fn to_string_sbm(lcp: &Lcp, block_size: usize) -> String {
    let n = lcp.n();
    let bs = block_size.max(1);
    let nblk = n.div_ceil(bs);
    let bounds: Vec<usize> = (1..=nblk).map(|k| (k * bs).min(n)).collect();
    let sparse = lcp.to_sparse();
    // blocks[bi]: block column -> column-major values.
    let mut blocks: Vec<BTreeMap<usize, Vec<f64>>> = vec![BTreeMap::new(); nblk];
    for i in 0..n {
        let (bi, ii) = (i / bs, i % bs);
        let nr = bounds[bi] - bi * bs;
        for (&j, &v) in sparse.col_idx_of_row_raw(i).iter().zip(sparse.val_of_row(i)) {
            let (bj, jj) = (j / bs, j % bs);
            let nc = bounds[bj] - bj * bs;
            let block = blocks[bi].entry(bj).or_insert_with(|| vec![0.0; nr * nc]);
            block[ii + jj * nr] += v;
        }
    }
    let nbblocks: usize = blocks.iter().map(BTreeMap::len).sum();
    let join = |v: &[usize]| v.iter().map(usize::to_string).collect::<Vec<_>>().join("\t");
    let mut out = format!("{n}\n1\n{n}\n{n}\n{nbblocks}\n{nblk}\n{nblk}\n");
    out.push_str(&format!("{}\n{}\n", join(&bounds), join(&bounds)));
    out.push_str(&format!("{}\n{nbblocks}\n", nblk + 1));
    let mut index1 = vec![0];
    let mut index2 = Vec::new();
    for row in &blocks {
        index2.extend(row.keys().copied());
        index1.push(index2.len());
    }
    out.push_str(&format!("{}\n{}\n", join(&index1), join(&index2)));
    let mut k = 0;
    for row in &blocks {
        for vals in row.values() {
            out.push_str(&format!("{k}\n"));
            for v in vals {
                out.push_str(&fmt_f64(*v));
                out.push('\n');
            }
            k += 1;
        }
    }
    push_q(&mut out, lcp);
    out
}

/// Writes dense storage for a dense M and sparse-block storage (1x1 blocks) for a sparse M.
pub fn to_string(lcp: &Lcp) -> String {
    match lcp.matrix() {
        Matrix::Dense(_) => to_string_dense(lcp),
        Matrix::Sparse(_) => to_string_sbm(lcp, 1),
    }
}

fn push_q(out: &mut String, lcp: &Lcp) {
    let q: Vec<String> = lcp.q().iter().map(|v| fmt_f64(*v)).collect();
    out.push_str(&q.join(" "));
    out.push('\n');
    if let Some(name) = &lcp.name {
        // Free text after q is ignored by readers (ours and Siconos').
        out.push_str(&format!("\n{name}\n"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_stream_is_column_major() {
        // Printed lines are columns: M = [[1, 3], [2, 4]].
        let lcp = from_str("2 0 2 2 2 2\n1 2\n3 4\n-1 -1\n").expect("valid");
        assert!((lcp.get(1, 0) - 2.0).abs() < 1e-15);
        assert!((lcp.get(0, 1) - 3.0).abs() < 1e-15);
    }

    #[test]
    fn csparse_storage_in_column_and_triplet_form() {
        // M = [[2, 0], [1, 3]] as a cs_print dump of a compressed-column matrix.
        let csc = "2 2 2 2 2\nCSparse Version 3.1.9, May 4, 2016.  Copyright (c) T. A. Davis\n\
                   2-by-2, nzmax: 3 nnz: 3, 1-norm: 3\n    col 0 : locations 0 to 1\n\
                   0 : 2\n      1 : 1\n    col 1 : locations 2 to 2\n      1 : 3\n-1 -1\n";
        let lcp = from_str(csc).expect("valid");
        assert!((lcp.get(1, 0) - 1.0).abs() < 1e-15 && (lcp.get(1, 1) - 3.0).abs() < 1e-15);
        let trip = "2 2 2 2 1\nCSparse Version 3.1.9\ntriplet: 2-by-2, nzmax: 3 nnz: 3\n\
                    0 0 : 2\n    1 0 : 1\n    1 1 : 3\n-1 -1\n";
        let lcp = from_str(trip).expect("valid");
        assert!((lcp.get(1, 0) - 1.0).abs() < 1e-15 && lcp.get(0, 1).abs() < 1e-15);
        // Locations that skip an entry, and a row index outside the matrix.
        let gap = csc.replace("locations 2 to 2", "locations 3 to 3");
        assert!(from_str(&gap).is_err());
        let out = csc.replace("1 : 3", "2 : 3");
        assert!(from_str(&out).is_err());
    }

    #[test]
    fn readme_sbm_example() {
        let lcp = from_str("2 1 2 2 1 1 1 2 2 2 1 0 1 0 0 2 1 1 2 -5 -6").expect("valid");
        assert!(lcp.is_sparse());
        assert!((lcp.get(0, 0) - 2.0).abs() < 1e-15);
        assert!((lcp.get(1, 0) - 1.0).abs() < 1e-15);
        assert!((lcp.q()[1] + 6.0).abs() < 1e-15);
    }
}
