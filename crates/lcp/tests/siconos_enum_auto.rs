//! `enum`, `auto` and `diagnose` on the Siconos LCP regression set (verification/data/siconos-lcp):
//! every file up to n = 20 is either solved by `enum` (each listed solution verified here) or
//! proved to have no solution; `auto` ends every file decisively.

use std::path::PathBuf;

use signorini_lcp::diagnostics::diagnose;
use signorini_lcp::{formats, Lcp, Registry, SolveOptions, Status};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../verification/data/siconos-lcp");

const FILES: [&str; 20] = [
    "lcp_CPS_1",
    "lcp_CPS_2",
    "lcp_CPS_3",
    "lcp_CPS_4",
    "lcp_CPS_4bis",
    "lcp_CPS_5",
    "lcp_Pang_isolated_sol",
    "lcp_Pang_isolated_sol_perturbed",
    "lcp_inf_sol_perturbed",
    "lcp_deudeu",
    "lcp_deudeu_block",
    "lcp_enum_fails",
    "lcp_exp_murty",
    "lcp_exp_murty2",
    "lcp_mmc",
    "lcp_ortiz",
    "lcp_ortiz_block",
    "lcp_tobenna",
    "lcp_trivial",
    "lcp_trivial_block",
];

fn read(name: &str) -> Lcp {
    let path = PathBuf::from(DATA).join(format!("{name}.dat"));
    match formats::read_problem(&path, None) {
        Ok(lcp) => lcp,
        Err(e) => panic!("{name}: {e}"),
    }
}

/// z >= 0, w = Mz + q >= 0, z_i w_i = 0 to `rtol` of the scale of q and Mz, recomputed here.
fn verifies(lcp: &Lcp, z: &[f64], rtol: f64) -> bool {
    let rows = lcp.dense_rows();
    let w: Vec<f64> = rows
        .iter()
        .zip(lcp.q())
        .map(|(r, qi)| r.iter().zip(z).map(|(a, b)| a * b).sum::<f64>() + qi)
        .collect();
    let scale = lcp.q().iter().chain(&w).chain(z).fold(1.0f64, |m, v| m.max(v.abs()));
    z.iter().zip(&w).all(|(&zi, &wi)| {
        zi >= -rtol * scale && wi >= -rtol * scale && (zi * wi).abs() <= rtol * scale * scale
    })
}

#[test]
fn enum_decides_every_small_file() {
    let solver = Registry::builtin().build("enum").expect("registered");
    for name in FILES {
        let lcp = read(name);
        if lcp.n() > 20 {
            continue;
        }
        let sol = solver.solve(&lcp, &SolveOptions::default(), None).expect("set up");
        let all = sol.all_solutions.clone().unwrap_or_default();
        println!("{name:34} n = {:2}  {:12} solutions: {}", lcp.n(), sol.status, all.len());
        match name {
            "lcp_Pang_isolated_sol_perturbed" => {
                assert_eq!(sol.status, Status::NoSolution, "{name}: {:?}", sol.note)
            }
            "lcp_CPS_3" => assert_eq!(all.len(), 3, "{name}: {all:?}"),
            "lcp_CPS_1" => {
                for z in &all {
                    assert!((z[0] + z[1] - 1.0).abs() <= 1e-9, "{name}: {z:?} not on z1 + z2 = 1");
                }
            }
            _ => assert_eq!(sol.status, Status::Solved, "{name}: {:?}", sol.note),
        }
        for z in &all {
            assert!(verifies(&lcp, z, 1e-8), "{name}: {z:?} does not verify");
        }
    }
}

#[test]
fn auto_ends_every_file_decisively() {
    let solver = Registry::builtin().build("auto").expect("registered");
    for name in FILES {
        let lcp = read(name);
        let sol = solver.solve(&lcp, &SolveOptions::default(), None).expect("set up");
        println!(
            "{name:34} n = {:2}  {:24} {:12} residual {:.1e} iterations {}",
            lcp.n(),
            sol.solver,
            sol.status,
            sol.residual(),
            sol.iterations
        );
        match name {
            "lcp_Pang_isolated_sol_perturbed" => assert!(
                matches!(sol.status, Status::Infeasible | Status::NoSolution),
                "{name}: {:?}",
                sol.note
            ),
            // lcp_tobenna (n = 40, hard for everything but Lemke) falls through to the solved
            // arm: lemke's lexicographic tie-break no longer cycles on it
            // (tests/issue_lemke_tobenna.rs).
            _ => {
                assert_eq!(sol.status, Status::Solved, "{name}: {:?}", sol.note);
                assert!(sol.residual() <= 1e-10);
                assert!(verifies(&lcp, &sol.z, 1e-8), "{name}");
            }
        }
    }
}

#[test]
fn diagnostics_of_named_files() {
    // lcp_exp_murty: Murty's triangular matrix, a P-matrix (all principal minors 1).
    let d = diagnose(&read("lcp_exp_murty"));
    assert_eq!(d.p_matrix, Some(true));
    // lcp_mmc: SPD.
    let d = diagnose(&read("lcp_mmc"));
    assert!(d.symmetric);
    assert_eq!(d.definiteness, signorini_lcp::diagnostics::Definiteness::PositiveDefinite);
    // lcp_CPS_1: PSD singular.
    let d = diagnose(&read("lcp_CPS_1"));
    assert_eq!(d.definiteness, signorini_lcp::diagnostics::Definiteness::PositiveSemidefinite);
    assert_eq!(d.p_matrix, Some(false));
}
