//! The classical worst cases of pivoting methods (`lcp/murty/...`, `lcp/fathi/...`): Murty's
//! exponential example for Lemke (Murty 1978, "Computational complexity of complementary pivot
//! methods"; Murty 1988, "Linear complementarity, linear and nonlinear programming", ch. 6) and
//! Fathi's example for principal pivoting (Fathi 1979, "Computational complexity of LCPs
//! associated with positive definite symmetric matrices").

use signorini_lcp::generate::{fathi, murty_exponential};

use super::{solvers, Expect, LcpCase};

/// Murty n = 10, Fathi n = 8.
pub fn cases() -> Vec<LcpCase> {
    vec![murty_exponential_n10(), fathi_n8()]
}

/// M lower triangular (1 on the diagonal, 2 below), q_i = -(2^(n+1) - 2^(n-i+1)): z = (2^n, 0,
/// ..., 0) since w_1 = 2^n - 2^n = 0 and w_i = 2·2^n - 2^(n+1) + 2^(n-i+1) > 0 for i > 1. Lemke with
/// covering vector e takes exactly 2^n pivots, counting the pivots where z0 enters and leaves.
fn murty_exponential_n10() -> LcpCase {
    let n = 10;
    let mut z = vec![0.0; n];
    z[0] = 1024.0;
    LcpCase::new(
        "lcp/murty/exponential_n10",
        "Murty 1978; Murty 1988, ch. 6 (signorini_lcp::generate::murty_exponential)",
        Box::new(move || Ok(murty_exponential(n))),
    )
    .quick()
    .expect(solvers::P, &[Expect::Point(z)])
    .expect(&["lemke"], &[Expect::Pivots(1 << n)])
}

/// M = L'L with L Murty's matrix (SPD), q = -e. Column n of L is e_n, so M e_n = L' e_n =
/// (2, ..., 2, 1) and z = e_n gives w = (1, ..., 1, 0) >= 0 with z'w = 0; unique since M is SPD.
/// Murty's least-index principal pivoting under the natural (unfavourable) index order takes
/// 2^n - 1 pivots (Fathi 1979, Theorem; the `murty` solver's default order).
fn fathi_n8() -> LcpCase {
    let n = 8;
    let mut z = vec![0.0; n];
    z[n - 1] = 1.0;
    LcpCase::new(
        "lcp/fathi/n8",
        "Fathi 1979 (signorini_lcp::generate::fathi); solution derived in verification/src/lcp/classic.rs",
        Box::new(move || Ok(fathi(n))),
    )
    .quick()
    .expect(solvers::SPD, &[Expect::Point(z)])
    .expect(&["murty"], &[Expect::Pivots((1 << n) - 1)])
}
