//! Seeded random classes (`lcp/random/...`) from `signorini_lcp::generate`: SPD, nonsymmetric
//! P (diagonally dominant), PSD singular, and copositive-plus infeasible with a known Farkas
//! vector. The same seed gives the same data on every machine (ChaCha8).

use signorini_lcp::generate::{
    random_copositive_plus_infeasible, random_p_matrix, random_psd_singular, random_spd,
};

use super::{solvers, Expect, LcpCase};

const GEN: &str = "seeded generator signorini_lcp::generate";

fn without_enum(list: &[&'static str]) -> Vec<&'static str> {
    list.iter().copied().filter(|s| *s != "enum").collect()
}

/// Small instances in the quick set (n = 10, where `enum` still applies), larger ones outside.
pub fn cases() -> Vec<LcpCase> {
    vec![
        LcpCase::new(
            "lcp/random/spd_n10_s1",
            &format!("{GEN}::random_spd(10, 1); unique solution (SPD)"),
            Box::new(|| Ok(random_spd(10, 1))),
        )
        .quick()
        .seeds(&[1])
        .expect(solvers::SPD, &[Expect::Solved]),
        LcpCase::new(
            "lcp/random/p_n10_s3",
            &format!("{GEN}::random_p_matrix(10, 3); unique solution (P-matrix)"),
            Box::new(|| Ok(random_p_matrix(10, 3))),
        )
        .quick()
        .seeds(&[3])
        .expect(solvers::P, &[Expect::Solved]),
        LcpCase::new(
            "lcp/random/psd_singular_n10_r4_s5",
            &format!("{GEN}::random_psd_singular(10, 4, 5); solvable by construction"),
            Box::new(|| Ok(random_psd_singular(10, 4, 5))),
        )
        .quick()
        .seeds(&[5])
        .expect(solvers::PSD, &[Expect::Solved])
        .expect(&["enum"], &[Expect::Solved]),
        LcpCase::new(
            "lcp/random/copositive_plus_infeasible_n8_s6",
            &format!("{GEN}::random_copositive_plus_infeasible(8, 6); infeasible by construction"),
            Box::new(|| Ok(random_copositive_plus_infeasible(8, 6).0)),
        )
        .quick()
        .seeds(&[6])
        .expect(&["lemke"], &[Expect::Infeasible])
        .expect(&["enum"], &[Expect::NoSolution]),
        LcpCase::new(
            "lcp/random/spd_n200_s2",
            &format!("{GEN}::random_spd(200, 2); unique solution (SPD)"),
            Box::new(|| Ok(random_spd(200, 2))),
        )
        .seeds(&[2])
        .expect(&without_enum(solvers::SPD), &[Expect::Solved]),
        LcpCase::new(
            "lcp/random/p_n100_s4",
            &format!("{GEN}::random_p_matrix(100, 4); unique solution (P-matrix)"),
            Box::new(|| Ok(random_p_matrix(100, 4))),
        )
        .seeds(&[4])
        .expect(&without_enum(solvers::P), &[Expect::Solved]),
        LcpCase::new(
            "lcp/random/psd_singular_n100_r30_s7",
            &format!("{GEN}::random_psd_singular(100, 30, 7); solvable by construction"),
            Box::new(|| Ok(random_psd_singular(100, 30, 7))),
        )
        .seeds(&[7])
        .expect(solvers::PSD, &[Expect::Solved]),
        LcpCase::new(
            "lcp/random/copositive_plus_infeasible_n50_s8",
            &format!("{GEN}::random_copositive_plus_infeasible(50, 8); infeasible by construction"),
            Box::new(|| Ok(random_copositive_plus_infeasible(50, 8).0)),
        )
        .seeds(&[8])
        .expect(&["lemke"], &[Expect::Infeasible]),
    ]
}
