//! The Siconos LCP regression set (`lcp/siconos/<file>`): the 20 files of Siconos numerics
//! (INRIA, Apache-2.0; `numerics/src/LCP/test/data/`), read with
//! `signorini_lcp::formats::read_problem` from `verification/data/siconos-lcp/`.
//!
//! Siconos ships no solutions. Expected: every solvable file solved with residual <= 1e-10 by at
//! least one solver; `lcp_Pang_isolated_sol_perturbed` has no solution (proved by `enum`);
//! `lcp_CPS_1` and `lcp_CPS_5` have solution sets (membership, not a point); `lcp_CPS_3` has
//! three isolated solutions; `lcp_deudeu` and `lcp_trivial` have closed-form points.

use std::path::{Path, PathBuf};

use signorini_lcp::formats::read_problem;

use super::{solvers, Expect, LcpCase, SolutionSet};

/// The folder of the Siconos files, relative to this crate.
pub const DATA_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/data/siconos-lcp");

const SOURCE: &str = "Siconos numerics 4.5.0 LCP test set (Siconos, INRIA; Apache-2.0)";

/// Every file of the set, without the `.dat` extension.
pub const FILES: [&str; 20] = [
    "lcp_CPS_1",
    "lcp_CPS_2",
    "lcp_CPS_3",
    "lcp_CPS_4",
    "lcp_CPS_4bis",
    "lcp_CPS_5",
    "lcp_Pang_isolated_sol",
    "lcp_Pang_isolated_sol_perturbed",
    "lcp_deudeu",
    "lcp_deudeu_block",
    "lcp_enum_fails",
    "lcp_exp_murty",
    "lcp_exp_murty2",
    "lcp_inf_sol_perturbed",
    "lcp_mmc",
    "lcp_ortiz",
    "lcp_ortiz_block",
    "lcp_tobenna",
    "lcp_trivial",
    "lcp_trivial_block",
];

/// The path of one file of the set.
pub fn path(file: &str) -> PathBuf {
    Path::new(DATA_DIR).join(format!("{file}.dat"))
}

fn case(file: &'static str, note: &str) -> LcpCase {
    let source = if note.is_empty() {
        format!("{SOURCE}, {file}.dat")
    } else {
        format!("{SOURCE}, {file}.dat; {note}")
    };
    LcpCase::new(
        &format!("lcp/siconos/{file}"),
        &source,
        Box::new(move || read_problem(&path(file), None).map_err(|e| e.to_string())),
    )
    .quick()
}

/// CPS_1: M = [[1, 1], [1, 1]], q = (-1, -1): w1 = w2 = z1 + z2 - 1, so the solutions are the
/// segment z1 + z2 = 1, z >= 0 (Cottle, Pang, Stone, Remark 4.1.14). Distance: the violation of
/// the equation plus the negative parts.
fn cps_1_distance(z: &[f64]) -> f64 {
    match z {
        [a, b] => (a + b - 1.0).abs() + (-a).max(0.0) + (-b).max(0.0),
        _ => f64::INFINITY,
    }
}

/// CPS_5: M = [[1, -1], [-1, 1]], q = (1, -1): w2 = -w1 = z2 - z1 - 1, so w1 = 0 and the
/// solutions are the ray z2 = z1 + 1, z1 >= 0 (CPS Example 4.4.16).
fn cps_5_distance(z: &[f64]) -> f64 {
    match z {
        [a, b] => (b - a - 1.0).abs() + (-a).max(0.0),
        _ => f64::INFINITY,
    }
}

/// The cases of the set. Solution-set and point expectations name the solvers whose theory
/// covers the matrix (PSD for CPS_1 and CPS_5, SPD for deudeu and trivial).
pub fn cases() -> Vec<LcpCase> {
    let psd_and_enum: Vec<&str> = solvers::PSD.iter().copied().chain(["enum"]).collect();
    let mut out = Vec::new();
    for file in FILES {
        let c = match file {
            "lcp_CPS_1" => case(file, "solution set z1 + z2 = 1, z >= 0").expect(
                &psd_and_enum,
                &[Expect::InSet(SolutionSet::Described {
                    description: "z1 + z2 = 1, z >= 0",
                    distance: cps_1_distance,
                })],
            ),
            "lcp_CPS_5" => case(file, "solution ray z2 = z1 + 1, z1 >= 0").expect(
                &psd_and_enum,
                &[Expect::InSet(SolutionSet::Described {
                    description: "z2 = z1 + 1, z1 >= 0",
                    distance: cps_5_distance,
                })],
            ),
            // M = [[0, A], [A, 0]], A = [[10, 20], [30, 15]], q = -e (column-major file); z = (x, y)
            // with w_x = A y - e, w_y = A x - e. Supports ({1}, {1}): x1 = y1 = 1/10 (w = (0, 2)
            // each); ({2}, {2}): x2 = y2 = 1/15 (w = (1/3, 0)); full supports: A y = A x = e gives
            // x = y = (1/90, 2/45). Mixed pure/full or crossed pure supports leave a w_i < 0, and
            // x = 0 or y = 0 gives w = -e: exactly three solutions.
            "lcp_CPS_3" => case(file, "three isolated solutions (CPS Example 4.4.23)").expect(
                &["enum"],
                &[Expect::AllSolutions(vec![
                    vec![0.1, 0.0, 0.1, 0.0],
                    vec![0.0, 1.0 / 15.0, 0.0, 1.0 / 15.0],
                    vec![1.0 / 90.0, 2.0 / 45.0, 1.0 / 90.0, 2.0 / 45.0],
                ])],
            ),
            "lcp_Pang_isolated_sol_perturbed" => case(file, "no complementary solution exists")
                .expect(&["enum"], &[Expect::NoSolution]),
            // M = [[2, 1], [1, 2]], q = (-5, -6): 2 z1 + z2 = 5, z1 + 2 z2 = 6.
            "lcp_deudeu" | "lcp_deudeu_block" => case(file, "z = (4/3, 7/3)")
                .expect(solvers::SPD, &[Expect::Point(vec![4.0 / 3.0, 7.0 / 3.0])]),
            // M = diag(1, ..., 9), q = -e: z_i = 1/i.
            "lcp_trivial" | "lcp_trivial_block" => case(file, "z_i = 1/i").expect(
                solvers::SPD,
                &[Expect::Point((1..=9).map(|i| 1.0 / f64::from(i)).collect())],
            ),
            _ => case(file, ""),
        };
        let c = if file == "lcp_Pang_isolated_sol_perturbed" {
            c
        } else {
            c.solved_by_any(solvers::ANY)
        };
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_file_is_present_and_reads() {
        for file in FILES {
            let lcp = read_problem(&path(file), None);
            assert!(lcp.is_ok(), "{file}: {:?}", lcp.err());
        }
    }

    #[test]
    fn set_distances_vanish_on_the_sets_only() {
        assert!(cps_1_distance(&[0.25, 0.75]) < 1e-15);
        assert!(cps_1_distance(&[1.0, 1.0]) > 0.5);
        assert!(cps_5_distance(&[2.0, 3.0]) < 1e-15);
        assert!(cps_5_distance(&[-1.0, 0.0]) > 0.5);
    }
}
