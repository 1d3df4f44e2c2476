//! The Siconos numerics LCP text layout (`.dat`, as written by `NM_write_in_file` /
//! `SBM_write_in_file` in siconos/numerics, Acary et al., INRIA): dense (storage 0,
//! **column-major** value stream) and sparse-block matrices (storage 1, SBM).
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

/// Parses a Siconos `.dat` LCP (dense or sparse-block).
pub fn from_str(text: &str) -> Result<Lcp, FormatError> {
    let mut t = Tokens::new(text);
    if t.is_empty() {
        return Err(FormatError::new(FormatErrorKind::Empty));
    }
    let n_line = t.line();
    let n = t.usize("n (the problem size)")?;
    // q alone needs n more tokens: an absurd n fails here, before anything is allocated.
    t.ensure("n", Some(n))?;
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
    if size0 != n {
        return Err(FormatError::at_line(
            ProblemError::SizeMismatch { n: size0, q_len: n }.into(),
            n_line,
        ));
    }
    let m = match storage {
        Some(0) => read_dense(&mut t, n)?,
        Some(1) => read_sbm(&mut t, n)?,
        _ => {
            return Err(FormatError::at(
                FormatErrorKind::Layout(
                    "storage type must be 0 (dense) or 1 (sparse-block)".into(),
                ),
                storage_line,
                storage_tok,
            ))
        }
    };
    let mut q = Vec::with_capacity(n);
    for i in 0..n {
        q.push(t.f64(|| format!("q[{i}]"))?);
    }
    Ok(Lcp::new(m, q)?)
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
    fn readme_sbm_example() {
        let lcp = from_str("2 1 2 2 1 1 1 2 2 2 1 0 1 0 0 2 1 1 2 -5 -6").expect("valid");
        assert!(lcp.is_sparse());
        assert!((lcp.get(0, 0) - 2.0).abs() < 1e-15);
        assert!((lcp.get(1, 0) - 1.0).abs() < 1e-15);
        assert!((lcp.q()[1] + 6.0).abs() < 1e-15);
    }
}
