//! One verification check and its outcome: the unit every case produces, every report lists and
//! every snapshot is built from.

use serde::{Deserialize, Serialize};

/// How a check ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CheckStatus {
    /// The observed answer matches the expected one within tolerance.
    Pass,
    /// It does not (or the solver is missing, or the problem could not be set up).
    Fail,
    /// It does not, and the (case, solver) pair is listed in the expected-failure table with a
    /// reason.
    ExpectedFailure,
}

impl CheckStatus {
    /// The snake_case name used in JSON and reports.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckStatus::Pass => "pass",
            CheckStatus::Fail => "fail",
            CheckStatus::ExpectedFailure => "expected_failure",
        }
    }
}

impl std::fmt::Display for CheckStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // `pad`, not `write_str`: table columns (`{:<16}`) rely on width and alignment.
        f.pad(self.as_str())
    }
}

/// One check: what was expected, what was observed (recomputed independently of the solver),
/// and where the expectation comes from. Contains no timings, so the same inputs and thread count
/// give the same checks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Check {
    /// Case id and, for solver checks, `@solver`: e.g. `lcp/seed/a1_two_variable@lemke`.
    pub id: String,
    /// The case id alone (key of the expected-failure table).
    pub case: String,
    /// The solver name, for checks that ran one solver.
    pub solver: Option<String>,
    /// What is checked, e.g. `lcp.point`, `lcp.infeasible`, `lcp.solution_set`.
    pub kind: String,
    /// Pass, fail or expected failure.
    pub status: CheckStatus,
    /// The expected answer, in words and numbers.
    pub expected: String,
    /// The observed answer (figures recomputed from the returned z).
    pub observed: String,
    /// The tolerance the comparison used, where there is one.
    pub tolerance: Option<f64>,
    /// Provenance of the expected answer (paper, book, seed example, external file).
    pub source: String,
}

impl Check {
    /// A check of `kind` for `case` (and `solver`), with its status decided by `pass`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        case: &str,
        solver: Option<&str>,
        kind: &str,
        pass: bool,
        expected: String,
        observed: String,
        tolerance: Option<f64>,
        source: &str,
    ) -> Self {
        let id = match solver {
            Some(s) => format!("{case}@{s}"),
            None => case.to_string(),
        };
        Self {
            id,
            case: case.to_string(),
            solver: solver.map(str::to_string),
            kind: kind.to_string(),
            status: if pass { CheckStatus::Pass } else { CheckStatus::Fail },
            expected,
            observed,
            tolerance,
            source: source.to_string(),
        }
    }
}

/// Counts of check statuses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Summary {
    /// Checks that passed.
    pub pass: usize,
    /// Checks that failed.
    pub fail: usize,
    /// Checks that failed as the expected-failure table says.
    pub expected_failure: usize,
}

impl Summary {
    /// Counts the statuses of `checks`.
    pub fn of(checks: &[Check]) -> Self {
        let mut s = Self::default();
        for c in checks {
            match c.status {
                CheckStatus::Pass => s.pass += 1,
                CheckStatus::Fail => s.fail += 1,
                CheckStatus::ExpectedFailure => s.expected_failure += 1,
            }
        }
        s
    }

    /// True when no check failed unexpectedly.
    pub fn ok(&self) -> bool {
        self.fail == 0
    }
}

/// Formats a float for expected/observed texts: shortest round-trip form for exact data.
pub fn fmt_num(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else {
        format!("{x}")
    }
}

/// Formats a vector with [`fmt_num`], eliding the middle of long vectors.
pub fn fmt_vec(v: &[f64]) -> String {
    fmt_vec_with(v, fmt_num)
}

/// Formats a vector rounded to 10 significant digits (for observed, computed values).
pub fn fmt_vec_rounded(v: &[f64]) -> String {
    fmt_vec_with(v, |x| {
        if x.abs() < 1e-12 {
            "0".into()
        } else {
            format!("{:.10}", x).trim_end_matches('0').trim_end_matches('.').to_string()
        }
    })
}

fn fmt_vec_with(v: &[f64], f: impl Fn(f64) -> String) -> String {
    const SHOW: usize = 6;
    if v.len() <= 2 * SHOW {
        let parts: Vec<String> = v.iter().map(|&x| f(x)).collect();
        format!("({})", parts.join(", "))
    } else {
        let head: Vec<String> = v[..SHOW / 2].iter().map(|&x| f(x)).collect();
        let tail: Vec<String> = v[v.len() - SHOW / 2..].iter().map(|&x| f(x)).collect();
        format!("({}, ... [{} more], {})", head.join(", "), v.len() - SHOW, tail.join(", "))
    }
}

/// Formats a residual or error figure to two significant digits (snapshots, tolerances).
pub fn fmt_sci(x: f64) -> String {
    format!("{x:.1e}")
}

/// Formats an observed residual or error to three significant digits, so a figure just above a
/// tolerance does not print as the tolerance itself.
pub fn fmt_observed(x: f64) -> String {
    format!("{x:.2e}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_counts_each_status() {
        let mut a = Check::new("c", None, "k", true, "e".into(), "o".into(), None, "s");
        let b = Check::new("c", Some("x"), "k", false, "e".into(), "o".into(), None, "s");
        assert_eq!(b.id, "c@x");
        let s = Summary::of(&[a.clone(), b.clone()]);
        assert_eq!((s.pass, s.fail, s.expected_failure), (1, 1, 0));
        assert!(!s.ok());
        a.status = CheckStatus::ExpectedFailure;
        assert!(Summary::of(&[a]).ok());
    }

    /// Issue 12: the `verify` table printed `{:<16}` of a status whose `Display` ignored the
    /// width, so the status column was ragged.
    #[test]
    fn issue_12_status_honours_the_column_width() {
        assert_eq!(format!("[{:<16}]", CheckStatus::Pass), "[pass            ]");
        assert_eq!(format!("[{:>6}]", CheckStatus::Fail), "[  fail]");
        assert_eq!(format!("[{:<9}]", signorini_lcp::Status::Solved), "[solved   ]");
    }

    #[test]
    fn long_vectors_are_elided() {
        let v: Vec<f64> = (0..20).map(f64::from).collect();
        assert_eq!(fmt_vec(&v), "(0, 1, 2, ... [14 more], 17, 18, 19)");
        assert_eq!(fmt_vec_rounded(&[0.5, 1e-15, 1.0 / 3.0]), "(0.5, 0, 0.3333333333)");
    }
}
