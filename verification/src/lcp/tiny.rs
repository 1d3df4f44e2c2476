//! Tiny LCPs with known solution sets (`lcp/tiny/...`): an infeasible skew problem, two and
//! three isolated solutions, and a degenerate P-matrix case with a ratio-test tie
//! (docs/REFERENCE.md §B; derivations in each case's comment).

use super::{Expect, LcpCase, SolutionSet};

const TINY: &str = "signorini reference list (docs/REFERENCE.md §B, tiny cases)";

/// The four tiny cases.
pub fn cases() -> Vec<LcpCase> {
    vec![skew_infeasible(), two_solutions_1d(), three_isolated(), degenerate_p_tie()]
}

/// M = [[0, 1], [-1, 0]], q = (-1, -1): w2 = -z1 - 1 < 0 for every z >= 0. M is skew, hence PSD
/// and copositive-plus, so Lemke's ray is a certificate: y = (0, 1) has M'y = (-1, 0) <= 0 and
/// q'y = -1 < 0.
fn skew_infeasible() -> LcpCase {
    LcpCase::dense("lcp/tiny/skew_infeasible", TINY, &[&[0.0, 1.0], &[-1.0, 0.0]], &[-1.0, -1.0])
        .quick()
        .expect(&["lemke"], &[Expect::Infeasible])
        .expect(&["enum"], &[Expect::NoSolution])
}

/// M = [-1], q = [1]: w = 1 - z, so z = 0 (w = 1) and z = 1 (w = 0) are the only solutions.
fn two_solutions_1d() -> LcpCase {
    let set = vec![vec![0.0], vec![1.0]];
    LcpCase::dense("lcp/tiny/two_solutions_1d", TINY, &[&[-1.0]], &[1.0])
        .quick()
        .expect(&["enum"], &[Expect::AllSolutions(set.clone())])
        .expect(&["lemke", "newton-fb", "newton-min"], &[Expect::InSet(SolutionSet::Finite(set))])
}

/// M = [[1, 2], [2, 1]], q = -e: z = (1, 0) (w = (0, 1)), z = (0, 1) (w = (1, 0)) and
/// z = (1/3, 1/3) (w = 0); z = 0 has w = q < 0. M >= 0 with positive diagonal is strictly
/// copositive, so Lemke reaches one of the three.
fn three_isolated() -> LcpCase {
    let set = vec![vec![1.0, 0.0], vec![0.0, 1.0], vec![1.0 / 3.0, 1.0 / 3.0]];
    LcpCase::dense("lcp/tiny/three_isolated", TINY, &[&[1.0, 2.0], &[2.0, 1.0]], &[-1.0, -1.0])
        .quick()
        .expect(&["enum"], &[Expect::AllSolutions(set.clone())])
        .expect(&["lemke", "newton-fb", "newton-min"], &[Expect::InSet(SolutionSet::Finite(set))])
}

/// M = [[2, 1], [0, 2]] (principal minors 2, 2, 4: a P-matrix), q = (-1, -2). The unique
/// solution z = (0, 1) has w = (0 + 1 - 1, 2 - 2) = (0, 0): degenerate (z1 = w1 = 0), and
/// Lemke's first ratio test ties between rows 1 and 2 (q/d = -1/1 vs -2/2 with d = e).
/// The rows are H-matrix rows with positive diagonal, so projected Gauss–Seidel converges too.
fn degenerate_p_tie() -> LcpCase {
    LcpCase::dense("lcp/tiny/degenerate_p_tie", TINY, &[&[2.0, 1.0], &[0.0, 2.0]], &[-1.0, -2.0])
        .quick()
        .expect(
            &["lemke", "murty", "bpp", "enum", "newton-fb", "newton-min", "pgs"],
            &[Expect::Point(vec![0.0, 1.0])],
        )
}
