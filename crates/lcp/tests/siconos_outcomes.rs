//! Every registered solver on every file of the Siconos LCP regression set
//! (verification/data/siconos-lcp), with the outcome recorded per (file, solver) name (issue 3).
//!
//! A row says `Solves` (status `solved`; the merit of the returned z is then recomputed here,
//! both through `merit::evaluate` and by hand from the dense rows), `Ends(status, why)` (a run
//! that ends with that non-solved status), or `Refuses(why)` (the solver declines the problem
//! at set-up with `SolveError::Unsupported`). Every `why` is a fact about the file that this
//! test checks (matrix class through `diagnostics::diagnose`, a principal minor, or `enum`'s
//! proof), so a reason cannot be a guess. The table must list exactly the registry's names
//! times the folder's files: a new solver or a new file without rows fails the test.
//! A `BUG` reason would mark a wrong status (none is known: every failure below is outside
//! the solver's class or on a problem without a solution).

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::Duration;

use signorini_lcp::diagnostics::{diagnose, Diagnostics, DiagonalSign};
use signorini_lcp::merit::evaluate;
use signorini_lcp::{formats, Lcp, Registry, SolveError, SolveOptions, Status};

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../verification/data/siconos-lcp");

/// Wall-clock limit of each run (the files have n <= 40; every run takes milliseconds).
const TIME_LIMIT: Duration = Duration::from_secs(10);

/// Why a run does not end `solved`; each variant is checked against the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Why {
    /// Some M_ii = 0: splitting methods (PGS and its variants) divide by m_ii.
    ZeroDiagonal,
    /// M is not symmetric: apgd and qp minimise ½z'Mz + q'z, which needs M = M'.
    NotSymmetric,
    /// n > 20: enumeration of 2^n index sets is limited to n <= 20.
    TooLarge,
    /// The symmetric part of M is indefinite: ipm needs a monotone (PSD) M.
    NotMonotone,
    /// M is not a P-matrix: Murty's least-index method and block principal pivoting are
    /// guaranteed (finite, no singular pivot) only for P-matrices.
    NotPMatrix,
    /// M is not copositive-plus (some e_i has e_i'M e_i = 0 but (M + M')e_i != 0): Lemke's
    /// ray termination proves nothing outside that class.
    NotCopositivePlus,
    /// M is not even P0 (a 2x2 principal minor is negative): stationary points of the
    /// Fischer-Burmeister merit need not be solutions (Facchinei, Soares 1997), and the Newton
    /// methods reach the iteration limit.
    NotP0,
    /// The LCP has no solution (proved by `enum` here).
    NoSolutionExists,
}

impl Why {
    fn reason(self) -> &'static str {
        match self {
            Why::ZeroDiagonal => {
                "outside class: M has a zero diagonal entry (splitting divides by m_ii)"
            }
            Why::NotSymmetric => "outside class: M is not symmetric (QP form needs M = M')",
            Why::TooLarge => "outside class: n > 20 (enumeration limit)",
            Why::NotMonotone => "outside class: (M + M')/2 is indefinite (ipm needs monotone M)",
            Why::NotPMatrix => "outside class: M is not a P-matrix",
            Why::NotCopositivePlus => {
                "outside class: M is not copositive-plus (Lemke's ray proves nothing)"
            }
            Why::NotP0 => {
                "outside class: M is not P0 (FB merit has non-solution stationary points)"
            }
            Why::NoSolutionExists => "no complementary solution exists (enum proves it)",
        }
    }

    /// Panics unless the fact holds for `lcp`.
    fn check(self, file: &str, lcp: &Lcp, d: &Diagnostics) {
        let rows = lcp.dense_rows();
        let n = lcp.n();
        let scale = rows.iter().flatten().fold(0.0f64, |m, v| m.max(v.abs()));
        let tiny = 1e-14 * scale;
        let ok = match self {
            Why::ZeroDiagonal => d.diagonal != DiagonalSign::Positive,
            Why::NotSymmetric => !d.symmetric,
            Why::TooLarge => n > 20,
            Why::NotMonotone => !d.definiteness.is_psd(),
            Why::NotPMatrix => d.p_matrix == Some(false),
            Why::NotCopositivePlus => (0..n).any(|i| {
                rows[i][i].abs() <= tiny && (0..n).any(|j| (rows[i][j] + rows[j][i]).abs() > tiny)
            }),
            Why::NotP0 => (0..n).any(|i| {
                rows[i][i] < -tiny
                    || (0..i)
                        .any(|j| rows[i][i] * rows[j][j] - rows[i][j] * rows[j][i] < -tiny * scale)
            }),
            Why::NoSolutionExists => {
                let solver = Registry::builtin().build("enum").expect("enum is registered");
                let sol = solver.solve(lcp, &SolveOptions::default(), None).expect("set up");
                sol.status == Status::NoSolution
            }
        };
        assert!(ok, "{file}: the table's reason does not hold: {}", self.reason());
    }
}

/// The recorded outcome of one (file, solver) pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    /// Ends `solved`, with the merit within the solver's tolerance.
    Solves,
    /// Ends with this non-solved status, for this reason.
    Ends(Status, Why),
    /// Declines the problem at set-up (`SolveError::Unsupported`), for this reason.
    Refuses(Why),
}

use Expect::{Ends, Refuses, Solves};
use Why::*;

/// (file, solver, outcome) for every Siconos file and every registered solver, with the
/// solver's defaults. Recorded from runs on this branch and checked by the test below.
const TABLE: &[(&str, &str, Expect)] = &[
    ("lcp_CPS_1", "lemke", Solves),
    ("lcp_CPS_1", "murty", Solves),
    ("lcp_CPS_1", "bpp", Ends(Status::NumericalFailure, NotPMatrix)),
    ("lcp_CPS_1", "enum", Solves),
    ("lcp_CPS_1", "pgs", Solves),
    ("lcp_CPS_1", "psor", Solves),
    ("lcp_CPS_1", "sgs", Solves),
    ("lcp_CPS_1", "bpgs", Solves),
    ("lcp_CPS_1", "pgs-colored", Solves),
    ("lcp_CPS_1", "apgd", Solves),
    ("lcp_CPS_1", "gpcg", Solves),
    ("lcp_CPS_1", "newton-fb", Solves),
    ("lcp_CPS_1", "newton-min", Solves),
    ("lcp_CPS_1", "ipm", Solves),
    ("lcp_CPS_1", "qp", Solves),
    ("lcp_CPS_1", "auto", Solves),
    ("lcp_CPS_2", "lemke", Solves),
    ("lcp_CPS_2", "murty", Ends(Status::NumericalFailure, NotPMatrix)),
    ("lcp_CPS_2", "bpp", Ends(Status::NumericalFailure, NotPMatrix)),
    ("lcp_CPS_2", "enum", Solves),
    ("lcp_CPS_2", "pgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_CPS_2", "psor", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_CPS_2", "sgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_CPS_2", "bpgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_CPS_2", "pgs-colored", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_CPS_2", "apgd", Refuses(NotSymmetric)),
    ("lcp_CPS_2", "gpcg", Refuses(NotSymmetric)),
    ("lcp_CPS_2", "newton-fb", Solves),
    ("lcp_CPS_2", "newton-min", Solves),
    ("lcp_CPS_2", "ipm", Ends(Status::NumericalFailure, NotMonotone)),
    ("lcp_CPS_2", "qp", Refuses(NotSymmetric)),
    ("lcp_CPS_2", "auto", Solves),
    ("lcp_CPS_3", "lemke", Ends(Status::RayTermination, NotCopositivePlus)),
    ("lcp_CPS_3", "murty", Ends(Status::NumericalFailure, NotPMatrix)),
    ("lcp_CPS_3", "bpp", Solves),
    ("lcp_CPS_3", "enum", Solves),
    ("lcp_CPS_3", "pgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_CPS_3", "psor", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_CPS_3", "sgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_CPS_3", "bpgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_CPS_3", "pgs-colored", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_CPS_3", "apgd", Refuses(NotSymmetric)),
    ("lcp_CPS_3", "gpcg", Refuses(NotSymmetric)),
    ("lcp_CPS_3", "newton-fb", Solves),
    ("lcp_CPS_3", "newton-min", Solves),
    ("lcp_CPS_3", "ipm", Ends(Status::NumericalFailure, NotMonotone)),
    ("lcp_CPS_3", "qp", Refuses(NotSymmetric)),
    ("lcp_CPS_3", "auto", Solves),
    ("lcp_CPS_4", "lemke", Solves),
    ("lcp_CPS_4", "murty", Ends(Status::NumericalFailure, NotPMatrix)),
    ("lcp_CPS_4", "bpp", Ends(Status::NumericalFailure, NotPMatrix)),
    ("lcp_CPS_4", "enum", Solves),
    ("lcp_CPS_4", "pgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_CPS_4", "psor", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_CPS_4", "sgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_CPS_4", "bpgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_CPS_4", "pgs-colored", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_CPS_4", "apgd", Refuses(NotSymmetric)),
    ("lcp_CPS_4", "gpcg", Refuses(NotSymmetric)),
    ("lcp_CPS_4", "newton-fb", Solves),
    ("lcp_CPS_4", "newton-min", Solves),
    ("lcp_CPS_4", "ipm", Solves),
    ("lcp_CPS_4", "qp", Refuses(NotSymmetric)),
    ("lcp_CPS_4", "auto", Solves),
    ("lcp_CPS_4bis", "lemke", Solves),
    ("lcp_CPS_4bis", "murty", Ends(Status::NumericalFailure, NotPMatrix)),
    ("lcp_CPS_4bis", "bpp", Ends(Status::NumericalFailure, NotPMatrix)),
    ("lcp_CPS_4bis", "enum", Solves),
    ("lcp_CPS_4bis", "pgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_CPS_4bis", "psor", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_CPS_4bis", "sgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_CPS_4bis", "bpgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_CPS_4bis", "pgs-colored", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_CPS_4bis", "apgd", Refuses(NotSymmetric)),
    ("lcp_CPS_4bis", "gpcg", Refuses(NotSymmetric)),
    ("lcp_CPS_4bis", "newton-fb", Solves),
    ("lcp_CPS_4bis", "newton-min", Solves),
    ("lcp_CPS_4bis", "ipm", Solves),
    ("lcp_CPS_4bis", "qp", Refuses(NotSymmetric)),
    ("lcp_CPS_4bis", "auto", Solves),
    ("lcp_CPS_5", "lemke", Solves),
    ("lcp_CPS_5", "murty", Solves),
    ("lcp_CPS_5", "bpp", Solves),
    ("lcp_CPS_5", "enum", Solves),
    ("lcp_CPS_5", "pgs", Solves),
    ("lcp_CPS_5", "psor", Solves),
    ("lcp_CPS_5", "sgs", Solves),
    ("lcp_CPS_5", "bpgs", Solves),
    ("lcp_CPS_5", "pgs-colored", Solves),
    ("lcp_CPS_5", "apgd", Solves),
    ("lcp_CPS_5", "gpcg", Solves),
    ("lcp_CPS_5", "newton-fb", Solves),
    ("lcp_CPS_5", "newton-min", Solves),
    ("lcp_CPS_5", "ipm", Solves),
    ("lcp_CPS_5", "qp", Solves),
    ("lcp_CPS_5", "auto", Solves),
    ("lcp_Pang_isolated_sol", "lemke", Solves),
    ("lcp_Pang_isolated_sol", "murty", Ends(Status::NumericalFailure, NotPMatrix)),
    ("lcp_Pang_isolated_sol", "bpp", Ends(Status::NumericalFailure, NotPMatrix)),
    ("lcp_Pang_isolated_sol", "enum", Solves),
    ("lcp_Pang_isolated_sol", "pgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_Pang_isolated_sol", "psor", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_Pang_isolated_sol", "sgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_Pang_isolated_sol", "bpgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_Pang_isolated_sol", "pgs-colored", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_Pang_isolated_sol", "apgd", Refuses(NotSymmetric)),
    ("lcp_Pang_isolated_sol", "gpcg", Refuses(NotSymmetric)),
    ("lcp_Pang_isolated_sol", "newton-fb", Solves),
    ("lcp_Pang_isolated_sol", "newton-min", Solves),
    ("lcp_Pang_isolated_sol", "ipm", Ends(Status::NumericalFailure, NotMonotone)),
    ("lcp_Pang_isolated_sol", "qp", Refuses(NotSymmetric)),
    ("lcp_Pang_isolated_sol", "auto", Solves),
    ("lcp_Pang_isolated_sol_perturbed", "lemke", Ends(Status::RayTermination, NoSolutionExists)),
    ("lcp_Pang_isolated_sol_perturbed", "murty", Ends(Status::NumericalFailure, NotPMatrix)),
    ("lcp_Pang_isolated_sol_perturbed", "bpp", Ends(Status::NumericalFailure, NotPMatrix)),
    ("lcp_Pang_isolated_sol_perturbed", "enum", Ends(Status::NoSolution, NoSolutionExists)),
    ("lcp_Pang_isolated_sol_perturbed", "pgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_Pang_isolated_sol_perturbed", "psor", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_Pang_isolated_sol_perturbed", "sgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_Pang_isolated_sol_perturbed", "bpgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    (
        "lcp_Pang_isolated_sol_perturbed",
        "pgs-colored",
        Ends(Status::NumericalFailure, ZeroDiagonal),
    ),
    ("lcp_Pang_isolated_sol_perturbed", "apgd", Refuses(NotSymmetric)),
    ("lcp_Pang_isolated_sol_perturbed", "gpcg", Refuses(NotSymmetric)),
    ("lcp_Pang_isolated_sol_perturbed", "newton-fb", Ends(Status::MaxIterations, NoSolutionExists)),
    (
        "lcp_Pang_isolated_sol_perturbed",
        "newton-min",
        Ends(Status::MaxIterations, NoSolutionExists),
    ),
    ("lcp_Pang_isolated_sol_perturbed", "ipm", Ends(Status::NumericalFailure, NotMonotone)),
    ("lcp_Pang_isolated_sol_perturbed", "qp", Refuses(NotSymmetric)),
    ("lcp_Pang_isolated_sol_perturbed", "auto", Ends(Status::NoSolution, NoSolutionExists)),
    ("lcp_deudeu", "lemke", Solves),
    ("lcp_deudeu", "murty", Solves),
    ("lcp_deudeu", "bpp", Solves),
    ("lcp_deudeu", "enum", Solves),
    ("lcp_deudeu", "pgs", Solves),
    ("lcp_deudeu", "psor", Solves),
    ("lcp_deudeu", "sgs", Solves),
    ("lcp_deudeu", "bpgs", Solves),
    ("lcp_deudeu", "pgs-colored", Solves),
    ("lcp_deudeu", "apgd", Solves),
    ("lcp_deudeu", "gpcg", Solves),
    ("lcp_deudeu", "newton-fb", Solves),
    ("lcp_deudeu", "newton-min", Solves),
    ("lcp_deudeu", "ipm", Solves),
    ("lcp_deudeu", "qp", Solves),
    ("lcp_deudeu", "auto", Solves),
    ("lcp_deudeu_block", "lemke", Solves),
    ("lcp_deudeu_block", "murty", Solves),
    ("lcp_deudeu_block", "bpp", Solves),
    ("lcp_deudeu_block", "enum", Solves),
    ("lcp_deudeu_block", "pgs", Solves),
    ("lcp_deudeu_block", "psor", Solves),
    ("lcp_deudeu_block", "sgs", Solves),
    ("lcp_deudeu_block", "bpgs", Solves),
    ("lcp_deudeu_block", "pgs-colored", Solves),
    ("lcp_deudeu_block", "apgd", Solves),
    ("lcp_deudeu_block", "gpcg", Solves),
    ("lcp_deudeu_block", "newton-fb", Solves),
    ("lcp_deudeu_block", "newton-min", Solves),
    ("lcp_deudeu_block", "ipm", Solves),
    ("lcp_deudeu_block", "qp", Solves),
    ("lcp_deudeu_block", "auto", Solves),
    ("lcp_enum_fails", "lemke", Solves),
    ("lcp_enum_fails", "murty", Solves),
    ("lcp_enum_fails", "bpp", Solves),
    ("lcp_enum_fails", "enum", Solves),
    ("lcp_enum_fails", "pgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_enum_fails", "psor", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_enum_fails", "sgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_enum_fails", "bpgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_enum_fails", "pgs-colored", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_enum_fails", "apgd", Refuses(NotSymmetric)),
    ("lcp_enum_fails", "gpcg", Refuses(NotSymmetric)),
    ("lcp_enum_fails", "newton-fb", Solves),
    ("lcp_enum_fails", "newton-min", Solves),
    ("lcp_enum_fails", "ipm", Solves),
    ("lcp_enum_fails", "qp", Refuses(NotSymmetric)),
    ("lcp_enum_fails", "auto", Solves),
    ("lcp_exp_murty", "lemke", Solves),
    ("lcp_exp_murty", "murty", Solves),
    ("lcp_exp_murty", "bpp", Solves),
    ("lcp_exp_murty", "enum", Solves),
    ("lcp_exp_murty", "pgs", Solves),
    ("lcp_exp_murty", "psor", Solves),
    ("lcp_exp_murty", "sgs", Solves),
    ("lcp_exp_murty", "bpgs", Solves),
    ("lcp_exp_murty", "pgs-colored", Solves),
    ("lcp_exp_murty", "apgd", Refuses(NotSymmetric)),
    ("lcp_exp_murty", "gpcg", Refuses(NotSymmetric)),
    ("lcp_exp_murty", "newton-fb", Solves),
    ("lcp_exp_murty", "newton-min", Solves),
    ("lcp_exp_murty", "ipm", Solves),
    ("lcp_exp_murty", "qp", Refuses(NotSymmetric)),
    ("lcp_exp_murty", "auto", Solves),
    ("lcp_exp_murty2", "lemke", Solves),
    ("lcp_exp_murty2", "murty", Solves),
    ("lcp_exp_murty2", "bpp", Solves),
    ("lcp_exp_murty2", "enum", Solves),
    ("lcp_exp_murty2", "pgs", Solves),
    ("lcp_exp_murty2", "psor", Solves),
    ("lcp_exp_murty2", "sgs", Solves),
    ("lcp_exp_murty2", "bpgs", Solves),
    ("lcp_exp_murty2", "pgs-colored", Solves),
    ("lcp_exp_murty2", "apgd", Refuses(NotSymmetric)),
    ("lcp_exp_murty2", "gpcg", Refuses(NotSymmetric)),
    ("lcp_exp_murty2", "newton-fb", Solves),
    ("lcp_exp_murty2", "newton-min", Solves),
    ("lcp_exp_murty2", "ipm", Solves),
    ("lcp_exp_murty2", "qp", Refuses(NotSymmetric)),
    ("lcp_exp_murty2", "auto", Solves),
    ("lcp_inf_sol_perturbed", "lemke", Solves),
    ("lcp_inf_sol_perturbed", "murty", Ends(Status::NumericalFailure, NotPMatrix)),
    ("lcp_inf_sol_perturbed", "bpp", Ends(Status::NumericalFailure, NotPMatrix)),
    ("lcp_inf_sol_perturbed", "enum", Solves),
    ("lcp_inf_sol_perturbed", "pgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_inf_sol_perturbed", "psor", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_inf_sol_perturbed", "sgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_inf_sol_perturbed", "bpgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_inf_sol_perturbed", "pgs-colored", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_inf_sol_perturbed", "apgd", Refuses(NotSymmetric)),
    ("lcp_inf_sol_perturbed", "gpcg", Refuses(NotSymmetric)),
    ("lcp_inf_sol_perturbed", "newton-fb", Solves),
    ("lcp_inf_sol_perturbed", "newton-min", Solves),
    ("lcp_inf_sol_perturbed", "ipm", Solves),
    ("lcp_inf_sol_perturbed", "qp", Refuses(NotSymmetric)),
    ("lcp_inf_sol_perturbed", "auto", Solves),
    ("lcp_mmc", "lemke", Solves),
    ("lcp_mmc", "murty", Solves),
    ("lcp_mmc", "bpp", Solves),
    ("lcp_mmc", "enum", Refuses(TooLarge)),
    ("lcp_mmc", "pgs", Solves),
    ("lcp_mmc", "psor", Solves),
    ("lcp_mmc", "sgs", Solves),
    ("lcp_mmc", "bpgs", Solves),
    ("lcp_mmc", "pgs-colored", Solves),
    ("lcp_mmc", "apgd", Solves),
    ("lcp_mmc", "gpcg", Solves),
    ("lcp_mmc", "newton-fb", Solves),
    ("lcp_mmc", "newton-min", Solves),
    ("lcp_mmc", "ipm", Solves),
    ("lcp_mmc", "qp", Solves),
    ("lcp_mmc", "auto", Solves),
    ("lcp_ortiz", "lemke", Solves),
    ("lcp_ortiz", "murty", Solves),
    ("lcp_ortiz", "bpp", Solves),
    ("lcp_ortiz", "enum", Solves),
    ("lcp_ortiz", "pgs", Solves),
    ("lcp_ortiz", "psor", Solves),
    ("lcp_ortiz", "sgs", Solves),
    ("lcp_ortiz", "bpgs", Solves),
    ("lcp_ortiz", "pgs-colored", Solves),
    ("lcp_ortiz", "apgd", Refuses(NotSymmetric)),
    ("lcp_ortiz", "gpcg", Refuses(NotSymmetric)),
    ("lcp_ortiz", "newton-fb", Solves),
    ("lcp_ortiz", "newton-min", Solves),
    ("lcp_ortiz", "ipm", Solves),
    ("lcp_ortiz", "qp", Refuses(NotSymmetric)),
    ("lcp_ortiz", "auto", Solves),
    ("lcp_ortiz_block", "lemke", Solves),
    ("lcp_ortiz_block", "murty", Solves),
    ("lcp_ortiz_block", "bpp", Solves),
    ("lcp_ortiz_block", "enum", Solves),
    ("lcp_ortiz_block", "pgs", Solves),
    ("lcp_ortiz_block", "psor", Solves),
    ("lcp_ortiz_block", "sgs", Solves),
    ("lcp_ortiz_block", "bpgs", Solves),
    ("lcp_ortiz_block", "pgs-colored", Solves),
    ("lcp_ortiz_block", "apgd", Refuses(NotSymmetric)),
    ("lcp_ortiz_block", "gpcg", Refuses(NotSymmetric)),
    ("lcp_ortiz_block", "newton-fb", Solves),
    ("lcp_ortiz_block", "newton-min", Solves),
    ("lcp_ortiz_block", "ipm", Solves),
    ("lcp_ortiz_block", "qp", Refuses(NotSymmetric)),
    ("lcp_ortiz_block", "auto", Solves),
    ("lcp_tobenna", "lemke", Solves),
    ("lcp_tobenna", "murty", Ends(Status::NumericalFailure, NotPMatrix)),
    ("lcp_tobenna", "bpp", Ends(Status::NumericalFailure, NotPMatrix)),
    ("lcp_tobenna", "enum", Refuses(TooLarge)),
    ("lcp_tobenna", "pgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_tobenna", "psor", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_tobenna", "sgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_tobenna", "bpgs", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_tobenna", "pgs-colored", Ends(Status::NumericalFailure, ZeroDiagonal)),
    ("lcp_tobenna", "apgd", Refuses(NotSymmetric)),
    ("lcp_tobenna", "gpcg", Refuses(NotSymmetric)),
    ("lcp_tobenna", "newton-fb", Ends(Status::MaxIterations, NotP0)),
    ("lcp_tobenna", "newton-min", Ends(Status::MaxIterations, NotP0)),
    ("lcp_tobenna", "ipm", Ends(Status::NumericalFailure, NotMonotone)),
    ("lcp_tobenna", "qp", Refuses(NotSymmetric)),
    ("lcp_tobenna", "auto", Solves),
    ("lcp_trivial", "lemke", Solves),
    ("lcp_trivial", "murty", Solves),
    ("lcp_trivial", "bpp", Solves),
    ("lcp_trivial", "enum", Solves),
    ("lcp_trivial", "pgs", Solves),
    ("lcp_trivial", "psor", Solves),
    ("lcp_trivial", "sgs", Solves),
    ("lcp_trivial", "bpgs", Solves),
    ("lcp_trivial", "pgs-colored", Solves),
    ("lcp_trivial", "apgd", Solves),
    ("lcp_trivial", "gpcg", Solves),
    ("lcp_trivial", "newton-fb", Solves),
    ("lcp_trivial", "newton-min", Solves),
    ("lcp_trivial", "ipm", Solves),
    ("lcp_trivial", "qp", Solves),
    ("lcp_trivial", "auto", Solves),
    ("lcp_trivial_block", "lemke", Solves),
    ("lcp_trivial_block", "murty", Solves),
    ("lcp_trivial_block", "bpp", Solves),
    ("lcp_trivial_block", "enum", Solves),
    ("lcp_trivial_block", "pgs", Solves),
    ("lcp_trivial_block", "psor", Solves),
    ("lcp_trivial_block", "sgs", Solves),
    ("lcp_trivial_block", "bpgs", Solves),
    ("lcp_trivial_block", "pgs-colored", Solves),
    ("lcp_trivial_block", "apgd", Solves),
    ("lcp_trivial_block", "gpcg", Solves),
    ("lcp_trivial_block", "newton-fb", Solves),
    ("lcp_trivial_block", "newton-min", Solves),
    ("lcp_trivial_block", "ipm", Solves),
    ("lcp_trivial_block", "qp", Solves),
    ("lcp_trivial_block", "auto", Solves),
];

fn files() -> Vec<String> {
    let dir = PathBuf::from(DATA);
    assert!(dir.is_dir(), "Siconos data folder missing: {}", dir.display());
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("readable")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".dat").map(str::to_string))
        .collect();
    names.sort();
    names
}

fn read(name: &str) -> Lcp {
    let path = PathBuf::from(DATA).join(format!("{name}.dat"));
    match formats::read_problem(&path, None) {
        Ok(lcp) => lcp,
        Err(e) => panic!("{name}: {e}"),
    }
}

/// ||min(z, Mz + q)|| / ||q|| recomputed from the dense rows, independently of `merit.rs`.
fn residual_by_hand(lcp: &Lcp, z: &[f64]) -> f64 {
    let rows = lcp.dense_rows();
    let sq: f64 = rows
        .iter()
        .zip(lcp.q())
        .zip(z)
        .map(|((row, qi), zi)| {
            let wi = row.iter().zip(z).map(|(a, b)| a * b).sum::<f64>() + qi;
            zi.min(wi).powi(2)
        })
        .sum();
    let qn = lcp.q().iter().map(|v| v * v).sum::<f64>().sqrt();
    if qn <= f64::EPSILON {
        sq.sqrt()
    } else {
        sq.sqrt() / qn
    }
}

#[test]
fn table_covers_exactly_the_registry_times_the_files() {
    let registry = Registry::builtin();
    let mut want = BTreeSet::new();
    for f in files() {
        for s in registry.names() {
            want.insert((f.clone(), s.to_string()));
        }
    }
    let mut have = BTreeSet::new();
    for (f, s, _) in TABLE {
        assert!(have.insert((f.to_string(), s.to_string())), "duplicate row ({f}, {s})");
    }
    let missing: Vec<_> = want.difference(&have).collect();
    let extra: Vec<_> = have.difference(&want).collect();
    assert!(missing.is_empty(), "pairs without a row: {missing:?}");
    assert!(extra.is_empty(), "rows for no file or no registered solver: {extra:?}");
}

#[test]
fn every_solver_on_every_siconos_file_ends_as_recorded() {
    let registry = Registry::builtin();
    let options = SolveOptions { time_limit: Some(TIME_LIMIT), ..SolveOptions::default() };
    let mut failures = Vec::new();
    for &(file, name, expect) in TABLE {
        let lcp = read(file);
        let d = diagnose(&lcp);
        let solver = registry.build(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = solver.solve(&lcp, &options, None);
        let line = match (&got, expect) {
            (Ok(sol), Solves) if sol.status == Status::Solved => {
                let (_, merit) = evaluate(&lcp, &sol.z);
                let by_hand = residual_by_hand(&lcp, &sol.z);
                assert!(
                    merit.residual <= sol.tol && by_hand <= sol.tol * (1.0 + 1e-6) + 1e-15,
                    "{file} / {name}: solved but merit {:.3e} (by hand {by_hand:.3e}) > tol {:.1e}",
                    merit.residual,
                    sol.tol
                );
                format!("solved            residual {:.1e}", merit.residual)
            }
            (Ok(sol), Ends(status, why)) if sol.status == status => {
                why.check(file, &lcp, &d);
                format!("{:17} {}", status.as_str(), why.reason())
            }
            (Err(SolveError::Unsupported { .. }), Refuses(why)) => {
                why.check(file, &lcp, &d);
                format!("refused           {}", why.reason())
            }
            (Ok(sol), _) => {
                failures.push(format!(
                    "{file} / {name}: expected {expect:?}, got {} (residual {:.2e}, {} \
                     iterations, note {:?})",
                    sol.status,
                    sol.residual(),
                    sol.iterations,
                    sol.note
                ));
                continue;
            }
            (Err(e), _) => {
                failures.push(format!("{file} / {name}: expected {expect:?}, got error {e}"));
                continue;
            }
        };
        println!("{file:32} {name:12} {line}");
    }
    assert!(
        failures.is_empty(),
        "{} pairs differ from the table:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn solved_counts_per_solver() {
    // A summary printed for the reports; also checks that every solver solves at least one file.
    let registry = Registry::builtin();
    for name in registry.names() {
        let solved = TABLE.iter().filter(|(_, s, e)| *s == name && *e == Solves).count();
        let total = TABLE.iter().filter(|(_, s, _)| *s == name).count();
        println!("{name:12} solves {solved:2} of {total}");
        assert!(solved > 0, "{name} solves no Siconos file");
    }
}
