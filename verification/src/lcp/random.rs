//! Seeded random classes (`lcp/random/...`) from `signorini_lcp::generate`: SPD, nonsymmetric
//! P (diagonally dominant), PSD singular, and copositive-plus infeasible with a known Farkas
//! vector. The same seed gives the same data on every machine (ChaCha8).
//!
//! Outside the quick set, two large sparse cases from `generate::delassus_like_with_solution`
//! (planar bodies, 2 contacts per body, masses spread over a ratio of 10, W = J M^-1 J' plus a
//! relative diagonal regularisation of 1e-6, so W is positive definite): n = 10^4 and n = 10^5.
//! The generator builds q = w* - W z* for a strictly complementary pair (z*, w*) chosen before
//! q, so z* is the unique solution; every listed solver must return it (`lcp.point`) and the
//! merit is recomputed here from z. Only solvers with a sparse path that is fast in the dev
//! profile run them (measured with `cargo run -p xtask -- verify --filter <id>`; figures in
//! the case sources).
//!
//! Also outside the quick set, a sparse PSD-singular case and a sparse P-matrix case at
//! n = 10^4: block diagonal of 1000 independent `random_psd_singular(10, 4, s)` blocks (seeds
//! 1000..1999), resp. `random_p_matrix(10, s)` blocks (seeds 3000..3999), assembled here in
//! CSR (the generators are dense). Each PSD block is solvable by construction, so the whole
//! problem is, with a solution set; the P case has a unique solution, not known in closed form.
//! Only the merit is checked (`lcp.solved`).

use signorini_lcp::generate::{
    delassus_like_with_solution, random_copositive_plus_infeasible, random_p_matrix,
    random_psd_singular, random_spd,
};

use std::sync::{Arc, OnceLock};

use super::{solvers, Expect, LazyPoint, LcpCase};

/// A sparse Delassus-like case with `bodies` x 2 contacts, mass ratio 10, its known solution
/// expected of every solver in `names`.
fn delassus(id: &str, bodies: usize, seed: u64, names: &[&str], timing: &str) -> LcpCase {
    let source = format!(
        "{GEN}::delassus_like_with_solution({bodies}, 2, 10.0, {seed}); sparse SPD, unique \
         solution z* fixed before q = w* - W z*; {timing}"
    );
    // Generated when the case runs (not when the case list is built): the build keeps z* for
    // the check, which recomputes it only if it runs first.
    let built: Arc<OnceLock<Vec<f64>>> = Arc::default();
    let kept = Arc::clone(&built);
    let z = LazyPoint::new(move || {
        built.get().cloned().unwrap_or_else(|| delassus_like_with_solution(bodies, 2, 10.0, seed).1)
    });
    let mut case = LcpCase::new(
        id,
        &source,
        Box::new(move || {
            let (lcp, z) = delassus_like_with_solution(bodies, 2, 10.0, seed);
            let _ = kept.set(z);
            Ok(lcp)
        }),
    )
    .seeds(&[seed])
    .expect(names, &[Expect::PointLazy(z)]);
    case.ztol = DELASSUS_ZTOL;
    case
}

/// Block-diagonal sparse LCP: `blocks` generated blocks `generate(size, first_seed + k)` on the
/// diagonal (a block-diagonal matrix of PSD blocks is PSD, of P-matrix blocks a P-matrix).
fn block_diagonal(
    blocks: usize,
    size: usize,
    first_seed: u64,
    generate: fn(usize, u64) -> signorini_lcp::Lcp,
) -> Result<signorini_lcp::Lcp, String> {
    let n = blocks * size;
    let (mut rows, mut cols, mut vals, mut q) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for k in 0..blocks {
        let block = generate(size, first_seed + k as u64);
        let off = k * size;
        for i in 0..size {
            for j in 0..size {
                rows.push(off + i);
                cols.push(off + j);
                vals.push(block.get(i, j));
            }
        }
        q.extend_from_slice(block.q());
    }
    signorini_lcp::Lcp::from_coo(n, &rows, &cols, &vals, q).map_err(|e| e.to_string())
}

/// Relative tolerance on z of the Delassus-like cases. W's smallest eigenvalues come from the
/// 1e-6 relative regularisation of redundant contacts, so a residual of 1e-10 (relative to
/// ||q||, about 10^2 here) allows a forward error far above the default 1e-8: measured, ipm at
/// n = 10^4 stops at residual 9.6e-12 with |z - z*|_inf = 7.2e-8, at n = 10^5 at 7.3e-12 with
/// 7.4e-7; newton-min, newton-fb and qp reach at most 4.6e-13, 8.1e-11 and 2.1e-13.
const DELASSUS_ZTOL: f64 = 1e-5;

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
        delassus(
            "lcp/random/delassus_like_n1e4_s11",
            5_000,
            11,
            &["newton-min", "ipm", "newton-fb", "qp"],
            "whole case 0.4 s in the dev profile (measured, `xtask verify --filter`)",
        ),
        delassus(
            "lcp/random/delassus_like_n1e5_s12",
            50_000,
            12,
            &["newton-min", "ipm", "newton-fb", "qp"],
            "whole case 2.5 s in the dev profile (measured, `xtask verify --filter`)",
        ),
        LcpCase::new(
            "lcp/random/block_psd_singular_n1e4",
            &format!(
                "block diagonal of 1000 {GEN}::random_psd_singular(10, 4, 1000 + k), k = 0..999, \
                 sparse; solvable by construction, solution set, merit only; ipm, qp and pgs \
                 fail (expected-failure table); whole case 3.7 s in the dev profile (measured, \
                 `xtask verify --filter`)"
            ),
            Box::new(|| block_diagonal(1000, 10, 1000, |n, s| random_psd_singular(n, 4, s))),
        )
        .seeds(&[1000])
        .expect(&["ipm", "qp", "pgs", "apgd"], &[Expect::Solved]),
        LcpCase::new(
            "lcp/random/block_p_n1e4",
            &format!(
                "block diagonal of 1000 {GEN}::random_p_matrix(10, 3000 + k), k = 0..999, \
                 sparse nonsymmetric P-matrix: unique solution, merit checked; whole case \
                 0.3 s in the dev profile (measured, `xtask verify --filter`; with bpp and \
                 murty added it ran over 60 s, so they are not run at this size)"
            ),
            Box::new(|| block_diagonal(1000, 10, 3000, random_p_matrix)),
        )
        .seeds(&[3000])
        .expect(&["newton-min", "newton-fb"], &[Expect::Solved]),
    ]
}
