//! The one gate for dense allocations sized from user input: before a solver or a diagnostic
//! builds an n x n array, the bytes it needs are computed in checked integer arithmetic and
//! compared with a budget, so that an oversized request (a pivoting method on a sparse M with
//! n = 200 000 asks for 320 GB per dense copy) is a typed [`MemoryError`] naming the bytes,
//! never an allocation abort (issue 14 §2).
//!
//! The budget is [`DEFAULT_MEMORY_BUDGET`] = 2 GiB unless the caller sets
//! [`crate::SolveOptions::memory_budget`] (`signorini solve --memory-limit`). It bounds each
//! checked request (the worst case of one solver's dense working set), not the process.

use faer::Mat;

use crate::{Lcp, Matrix};

/// Default budget of one dense request: 2 GiB.
pub const DEFAULT_MEMORY_BUDGET: u64 = 2 << 30;

/// Bytes of one dense entry (f64).
const ENTRY_BYTES: u128 = std::mem::size_of::<f64>() as u128;

/// A dense request above the budget.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{what} would need {bytes} bytes ({}) of memory, more than the memory budget of {budget} \
     bytes ({}): use a sparse-capable solver (pgs, apgd, bpp, newton-fb, ipm, qp) or raise the \
     budget (SolveOptions::memory_budget)",
    fmt_bytes(*bytes),
    fmt_bytes(u128::from(*budget))
)]
pub struct MemoryError {
    /// What would be allocated, e.g. `lemke: dense tableau of M (n = 200000)`.
    pub what: String,
    /// Bytes it would need (saturated at `u128::MAX`).
    pub bytes: u128,
    /// The budget in bytes.
    pub budget: u64,
}

/// `1.5 GiB`, `640.0 MiB`, `12 B`.
pub fn fmt_bytes(bytes: u128) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut x = bytes as f64;
    let mut unit = 0;
    while x >= 1024.0 && unit + 1 < UNITS.len() {
        x /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{x:.1} {}", UNITS[unit])
    }
}

/// Bytes of `copies` dense `rows x cols` f64 arrays, saturating at `u128::MAX` (which no
/// budget admits).
pub fn dense_bytes(rows: usize, cols: usize, copies: usize) -> u128 {
    (rows as u128)
        .checked_mul(cols as u128)
        .and_then(|e| e.checked_mul(copies as u128))
        .and_then(|e| e.checked_mul(ENTRY_BYTES))
        .unwrap_or(u128::MAX)
}

/// Refuses `bytes` above `budget`; `what` is only formatted on refusal.
pub fn check_bytes(
    bytes: u128,
    budget: u64,
    what: impl FnOnce() -> String,
) -> Result<(), MemoryError> {
    if bytes > u128::from(budget) {
        return Err(MemoryError { what: what(), bytes, budget });
    }
    Ok(())
}

/// Checks `copies` dense `rows x cols` arrays against the budget.
pub fn check_dense(
    rows: usize,
    cols: usize,
    copies: usize,
    budget: u64,
    what: impl FnOnce() -> String,
) -> Result<(), MemoryError> {
    check_bytes(dense_bytes(rows, cols, copies), budget, what)
}

/// M of `lcp` as a dense matrix, after the budget check (a dense M is copied).
pub fn to_dense(
    lcp: &Lcp,
    budget: u64,
    what: impl FnOnce() -> String,
) -> Result<Mat<f64>, MemoryError> {
    let n = lcp.n();
    check_dense(n, n, 1, budget, what)?;
    Ok(match lcp.matrix() {
        Matrix::Dense(d) => d.clone(),
        Matrix::Sparse(s) => s.to_dense(),
    })
}

/// For a dense M, checks `copies` more dense n x n arrays (a solver's working copies of M or
/// of a matrix built from it); a sparse M needs none of them. `what` names the solver and the
/// arrays, e.g. `pgs: row-major copy of M`.
pub fn check_dense_work(
    lcp: &Lcp,
    copies: usize,
    budget: u64,
    what: &str,
) -> Result<(), MemoryError> {
    let n = lcp.n();
    if lcp.gram().is_some() {
        return Ok(());
    }
    match lcp.matrix() {
        Matrix::Dense(_) => check_dense(n, n, copies, budget, || format!("{what} (n = {n})")),
        Matrix::Sparse(_) => Ok(()),
    }
}

/// For a Gram-form M = G G' + D ([`Lcp::from_gram`]), checks the bytes of its sparse assembly
/// (nnz counted from G's pattern without forming M) against the budget before a solver that
/// reads entries makes [`Lcp::matrix`] assemble it; nothing to check otherwise or once
/// assembled is not needed (`solver` names who asks).
pub fn check_assembly(lcp: &Lcp, budget: u64, solver: &str) -> Result<(), MemoryError> {
    match lcp.gram() {
        Some(g) => check_bytes(g.assembled_bytes(), budget, || {
            format!("{solver}: sparse assembly of M = G G' + D (n = {})", lcp.n())
        }),
        None => Ok(()),
    }
}

/// True when a dense copy of M would fit `budget` `copies` times: the test `auto` uses to keep
/// densifying solvers away from large sparse problems.
pub fn dense_fits(lcp: &Lcp, copies: usize, budget: u64) -> bool {
    dense_bytes(lcp.n(), lcp.n(), copies) <= u128::from(budget)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_saturate_instead_of_overflowing() {
        assert_eq!(dense_bytes(2, 3, 1), 48);
        assert_eq!(dense_bytes(usize::MAX, usize::MAX, usize::MAX), u128::MAX);
        assert_eq!(dense_bytes(200_000, 200_000, 1), 320_000_000_000);
    }

    #[test]
    fn refusal_names_what_and_the_bytes() {
        let e = check_dense(200_000, 200_000, 1, DEFAULT_MEMORY_BUDGET, || "M".into())
            .expect_err("over budget");
        assert_eq!(e.bytes, 320_000_000_000);
        let text = e.to_string();
        assert!(text.contains("320000000000 bytes (298.0 GiB)"), "{text}");
        assert!(text.contains("2147483648 bytes (2.0 GiB)"), "{text}");
        assert!(check_dense(100, 100, 1, DEFAULT_MEMORY_BUDGET, || unreachable!()).is_ok());
    }

    #[test]
    fn fmt_bytes_units() {
        assert_eq!(fmt_bytes(12), "12 B");
        assert_eq!(fmt_bytes(3 << 29), "1.5 GiB");
    }
}
