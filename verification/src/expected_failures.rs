//! The expected-failure table, keyed by (case id, solver name) — never by position (the
//! counter-example is Siconos' test lists, where an expected failure is an array index).
//!
//! Strict: a listed pair that passes becomes a failure ("listed as an expected failure but
//! passes"), so the table cannot rot. A solver that is not registered is never excused.

use std::collections::BTreeMap;

use crate::check::{Check, CheckStatus};

/// One known failure with its reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpectedFailure {
    /// Case id.
    pub case: &'static str,
    /// Solver name as the case names it, or [`ANY`] for a case-level check.
    pub solver: &'static str,
    /// Why it fails (the mathematics, or an issue number).
    pub reason: &'static str,
}

/// The solver key of case-level checks (those that ran no single solver).
pub const ANY: &str = "any";

/// The project's table. Add a row only with a reason that says why the failure is correct
/// behaviour or names the issue that tracks it.
///
/// (The last row, ipm on lcp/random/psd_singular_n100_r30_s7, was removed when issue 3 fixed
/// ipm's step length and its monotonicity test; ipm now solves that case.)
pub const TABLE: &[ExpectedFailure] = &[
    ExpectedFailure {
        case: "lcp/contact/box_stack_mass_ratios",
        solver: "pgs",
        reason: "measured: max_iterations at the default 10000 sweeps, residual 5.7e-3; PGS \
                 converges on SPD W but its rate tends to 1 as the mass ratio grows (1000 here; \
                 study contact/pgs/mass_ratio), REFERENCE.md B",
    },
    ExpectedFailure {
        case: "lcp/fclib/local_problem_test",
        solver: "ipm",
        reason: "measured: stalled at residual 6.4e-11 after 54 iterations (default tol 1e-10). \
                 W_NN of the FCLIB sample is singular, and ipm's central pairs z_i w_i = mu \
                 (complementarity 1.5e-20) leave both z_i and w_i near 1e-10, above what the \
                 driver's row-by-row test accepts at their own scale (issue 14); it is solved \
                 at tol 1e-8 in 27 iterations. A polish step (active-set identification and a \
                 solve on it) would close it; open",
    },
    ExpectedFailure {
        case: "lcp/fclib/local_problem_test",
        solver: "qp",
        reason: "measured: numerical_failure at residual 1.2e-2 after 13 iterations on the \
                 PSD W_NN of the FCLIB sample (n = 48); a defect of qp, open (issue 6 report)",
    },
    ExpectedFailure {
        case: "lcp/random/block_psd_singular_n1e4",
        solver: "ipm",
        reason: "measured: stalled at residual 1.1e-8 on 1000 singular PSD blocks (n = 10^4; \
                 it solves the single n = 100 block case); a defect of ipm, open (issue 6 report)",
    },
    ExpectedFailure {
        case: "lcp/random/block_psd_singular_n1e4",
        solver: "qp",
        reason: "measured: numerical_failure at residual 1.09e-10, just above 1e-10, n = 10^4; \
                 a defect of qp, open (issue 6 report)",
    },
    ExpectedFailure {
        case: "lcp/random/block_psd_singular_n1e4",
        solver: "pgs",
        reason: "measured: max_iterations at the default 10000 sweeps, residual 5.8e-7; on \
                 singular PSD M projected Gauss–Seidel converges linearly with a \
                 problem-dependent constant (Luo and Tseng 1992), too slowly here for the \
                 default limit",
    },
];

/// Applies the project's tables: [`TABLE`] and the frictional-contact (file, solver) table
/// [`crate::friction_siconos::TABLE`].
pub fn apply_project_tables(checks: &mut [Check]) {
    apply(checks, TABLE);
    apply(checks, crate::friction_siconos::TABLE);
}

/// Applies `table` to `checks`: a failing listed pair becomes `expected_failure` (reason added to
/// `observed`); a passing listed pair becomes `fail`. Missing solvers stay `fail`.
pub fn apply(checks: &mut [Check], table: &[ExpectedFailure]) {
    let map: BTreeMap<(&str, &str), &str> =
        table.iter().map(|e| ((e.case, e.solver), e.reason)).collect();
    for c in checks.iter_mut() {
        // Case-level checks (no solver, e.g. `lcp.solved_by_any`) are keyed by solver `any`.
        let solver = c.solver.as_deref().unwrap_or(ANY);
        let Some(reason) = map.get(&(c.case.as_str(), solver)) else { continue };
        match c.status {
            CheckStatus::Fail if c.observed != crate::lcp::NOT_REGISTERED => {
                c.status = CheckStatus::ExpectedFailure;
                c.observed = format!("{} [expected failure: {reason}]", c.observed);
            }
            CheckStatus::Pass => {
                c.status = CheckStatus::Fail;
                c.observed = format!(
                    "{} [listed as an expected failure ({reason}) but passes: remove the row]",
                    c.observed
                );
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(solver: &str, pass: bool, observed: &str) -> Check {
        Check::new("lcp/x", Some(solver), "k", pass, "e".into(), observed.into(), None, "s")
    }

    #[test]
    fn table_is_keyed_by_name_and_strict() {
        let table = [ExpectedFailure { case: "lcp/x", solver: "pgs", reason: "not P" }];
        let mut cs = vec![
            check("pgs", false, "stalled"),
            check("lemke", false, "stalled"),
            check("pgs", true, "solved"),
            check("pgs", false, crate::lcp::NOT_REGISTERED),
        ];
        apply(&mut cs, &table);
        assert_eq!(cs[0].status, CheckStatus::ExpectedFailure);
        assert!(cs[0].observed.contains("not P"));
        assert_eq!(cs[1].status, CheckStatus::Fail);
        assert_eq!(cs[2].status, CheckStatus::Fail);
        assert_eq!(cs[3].status, CheckStatus::Fail);
    }

    /// The row removed in issue 3 stays fixed: every check of that case passes for ipm (the
    /// case is outside the quick set, so the snapshots do not cover it).
    #[test]
    fn ipm_passes_the_formerly_listed_psd_singular_case() {
        let case = "lcp/random/psd_singular_n100_r30_s7";
        let sel = crate::Selection { quick: false, filter: Some(case.into()) };
        let checks = crate::run(&crate::Context::builtin(), &sel);
        let ipm: Vec<&Check> = checks
            .iter()
            .filter(|c| c.case == case && c.solver.as_deref() == Some("ipm"))
            .collect();
        assert!(!ipm.is_empty(), "no ipm check for {case}");
        for c in ipm {
            assert_eq!(c.status, CheckStatus::Pass, "{}: {}", c.id, c.observed);
        }
    }

    #[test]
    fn project_table_names_existing_cases() {
        let ids: Vec<String> = crate::all_cases().iter().map(|c| c.id().to_string()).collect();
        for e in TABLE {
            assert!(ids.iter().any(|i| i == e.case), "no case {}", e.case);
        }
    }
}
