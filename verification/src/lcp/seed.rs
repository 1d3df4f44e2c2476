//! The seed examples A1–A4 of the design card (`lcp/seed/...`), with the data and answers
//! stated there; each derivation is in the case's comment.

use super::{solvers, Expect, LcpCase};

const SEED: &str = "signorini design card, seed examples (docs/REFERENCE.md §A)";

/// A1, A2, A3, A4.
pub fn cases() -> Vec<LcpCase> {
    vec![a1_two_variable(), a2_no_solution_1d(), a3_spd_unique(), a4_coupled_contacts()]
}

/// A1: M = [[2, 1], [1, 2]], q = (-1, 0). z = 0 gives w = q with w1 = -1 < 0; z = (1/2, 0) gives
/// w = (2/2 - 1, 1/2) = (0, 1/2) >= 0 with z1 w1 = 0. M is SPD, so the solution is unique and
/// every solver applies.
fn a1_two_variable() -> LcpCase {
    LcpCase::dense(
        "lcp/seed/a1_two_variable",
        &format!("{SEED}, A1 (M and q chosen here to reproduce z = (1/2, 0), w = (0, 1/2))"),
        &[&[2.0, 1.0], &[1.0, 2.0]],
        &[-1.0, 0.0],
    )
    .quick()
    .expect(solvers::SPD, &[Expect::Point(vec![0.5, 0.0])])
}

/// A2: M = -1, q = -1: w = -z - 1 < 0 for every z >= 0. Farkas: y = 1 has y >= 0, M'y = -1 <= 0,
/// q'y = -1 < 0. Lemke must return the certificate; enumeration proves it over both index sets.
fn a2_no_solution_1d() -> LcpCase {
    LcpCase::dense("lcp/seed/a2_no_solution_1d", &format!("{SEED}, A2"), &[&[-1.0]], &[-1.0])
        .quick()
        .expect(&["lemke"], &[Expect::Infeasible])
        .expect(&["enum"], &[Expect::NoSolution])
}

/// A3: M = [[4, 1, 0], [1, 3, 1], [0, 1, 2]] (leading minors 4, 11, 18: SPD), q = (-1, 2, -1).
/// With z2 = 0: 4 z1 = 1, 2 z3 = 1, so z = (1/4, 0, 1/2), w = (0, 1/4 + 1/2 + 2, 0) = (0, 11/4, 0).
/// Unique because (z - z')'M(z - z') <= 0 for two solutions forces z = z'; it is the minimiser of
/// ½z'Mz + q'z over z >= 0, which the `qp` check confirms.
fn a3_spd_unique() -> LcpCase {
    LcpCase::dense(
        "lcp/seed/a3_spd_unique",
        &format!("{SEED}, A3 (data chosen here; derivation in verification/src/lcp/seed.rs)"),
        &[&[4.0, 1.0, 0.0], &[1.0, 3.0, 1.0], &[0.0, 1.0, 2.0]],
        &[-1.0, 2.0, -1.0],
    )
    .quick()
    .expect(solvers::SPD, &[Expect::Point(vec![0.25, 0.0, 0.5])])
}

/// A4: acceleration-level contact with W = [[2, 1], [1, 2]], b = (-3, -3) m/s^2: N = (1, 1) N
/// gives a = W N + b = (0, 0). The decoupled guess N = (1.5, 1.5) gives a = (1.5, 1.5) with
/// N'a > 0 (see crates/lcp/tests/driver.rs, where the driver rejects it).
fn a4_coupled_contacts() -> LcpCase {
    LcpCase::dense(
        "lcp/seed/a4_coupled_contacts",
        &format!("{SEED}, A4"),
        &[&[2.0, 1.0], &[1.0, 2.0]],
        &[-3.0, -3.0],
    )
    .quick()
    .expect(solvers::SPD, &[Expect::Point(vec![1.0, 1.0])])
}
