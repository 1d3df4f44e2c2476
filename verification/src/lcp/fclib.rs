//! The FCLIB sample problem (`lcp/fclib/local_problem_test`, cargo feature `fclib`): the
//! frictionless normal part of `verification/data/fclib/local_problem_test.hdf5`, a local problem of
//! 48 contacts in 3-D (a stack of boxes, mu = 0.7) from the FrictionalContactLibrary/fclib
//! test data (Acary, Brémond, Koziara, Pérignon 2014, "FCLIB: a collection of discrete 3D
//! Frictional Contact problems", INRIA RT-0444; Apache-2.0), read with
//! `signorini_lcp::formats::fclib`.
//!
//! LCP(W_NN, q_N) with `W_NN = W[0::3, 0::3]` (48 x 48) and `q_N = q[0::3]`. W_NN is a Delassus
//! operator's normal block, symmetric positive semidefinite and singular, so z is not unique
//! and the file's stored `/solution` is a placeholder: nothing gives a reference z.
//!
//! Expected answer, checked two independent ways:
//! 1. every solver whose theory covers symmetric PSD M returns `solved` with the merit
//!    ||min(z, w)|| / ||q|| <= 1e-10, recomputed here from z;
//! 2. the normal velocities w agree across those solvers. For symmetric PSD M the LCP is the
//!    optimality system of the convex QP min ½ z'Mz + q'z over z >= 0, and on the solution set
//!    of a convex quadratic Mz is constant (if z, z' both minimise, the objective is constant on
//!    the segment between them, so (z - z')'M(z - z') = 0, hence M(z - z') = 0 for PSD M): w =
//!    Mz + q is unique although z is not. The check compares every solver's w with that of the
//!    solver of smallest residual, relative to max(|w|_inf, |q|_inf).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use signorini_lcp::formats::read_problem;
use signorini_lcp::{Lcp, Status};

use super::{independent_merit, solvers, Expect, LcpCase, Run};
use crate::case::{Case, Context};
use crate::check::{fmt_observed, fmt_sci, Check};

/// The FCLIB sample file, in `verification/data/fclib/`.
pub fn path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("data/fclib/local_problem_test.hdf5")
}

const SOURCE: &str = "FCLIB test problem local_problem_test.hdf5 (FrictionalContactLibrary/fclib, \
                      Apache-2.0; Acary, Brémond, Koziara, Pérignon 2014, INRIA RT-0444), \
                      frictionless normal part W_NN, q_N";

/// Solvers whose theory covers symmetric PSD M, checked one by one. `qp` is among them but
/// does not reach 1e-10 here (measured: numerical_failure at residual 1.2e-2 after 13
/// iterations); its check is an `expected_failure` through `expected_failures::TABLE`.
/// `newton-fb` is outside the class (its convergence theory needs a P-matrix, and W_NN here is
/// only PSD): it is not checked alone and runs only through `solved_by_any` (measured:
/// max_iterations at 1.7e-10). Both statuses are in the snapshot
/// `snapshots__lcp__fclib__local_problem_test.snap`.
pub const SOLVERS: &[&str] = &["lemke", "pgs", "apgd", "ipm", "qp"];

/// Relative tolerance on the agreement of w across solvers (measured: 4.8e-10 between lemke and
/// newton-min, the largest of the six solvers that solve it).
pub const W_TOL: f64 = 1e-8;

/// The FCLIB case: per-solver merit checks plus the cross-solver check on w.
#[derive(Debug)]
pub struct FclibCase {
    /// The per-solver expectations.
    pub inner: LcpCase,
}

/// The case.
pub fn case() -> FclibCase {
    let inner = LcpCase::new(
        "lcp/fclib/local_problem_test",
        SOURCE,
        Box::new(|| read_problem(&path(), None).map_err(|e| e.to_string())),
    )
    .quick()
    .expect(SOLVERS, &[Expect::Solved])
    .solved_by_any(solvers::ANY);
    FclibCase { inner }
}

impl FclibCase {
    fn w_check(&self, lcp: &Lcp, runs: &BTreeMap<String, Run>) -> Check {
        let tol = self.inner.tol;
        let solved: Vec<(&str, f64, Vec<f64>)> = runs
            .iter()
            .filter_map(|(name, run)| match run {
                Run::Done(sol) if sol.status == Status::Solved => {
                    let (res, w) = independent_merit(lcp, &sol.z);
                    (res <= tol).then_some((name.as_str(), res, w))
                }
                _ => None,
            })
            .collect();
        let expected = format!(
            "w = W_NN z + q_N equal across the solving solvers (at least two), \
             |w - w_ref|_inf <= {} max(|w_ref|_inf, |q|_inf)",
            fmt_sci(W_TOL)
        );
        let best = solved.iter().min_by(|a, b| a.1.total_cmp(&b.1));
        let (pass, observed) = match best {
            Some((ref_name, _, w_ref)) if solved.len() >= 2 => {
                let scale =
                    lcp.q().iter().chain(w_ref).map(|v| v.abs()).fold(f64::MIN_POSITIVE, f64::max);
                let mut worst: (f64, &str) = (0.0, ref_name);
                for (name, _, w) in &solved {
                    let d =
                        w.iter().zip(w_ref).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max) / scale;
                    if d > worst.0 {
                        worst = (d, name);
                    }
                }
                (
                    worst.0 <= W_TOL,
                    format!(
                        "solved by {}; largest relative w difference {} ({} vs {ref_name})",
                        solved.iter().map(|s| s.0).collect::<Vec<_>>().join(", "),
                        fmt_observed(worst.0),
                        worst.1
                    ),
                )
            }
            _ => (false, format!("{} solvers solved; need two to compare w", solved.len())),
        };
        Check::new(
            &self.inner.id,
            None,
            "lcp.w_unique",
            pass,
            expected,
            observed,
            Some(W_TOL),
            &self.inner.source,
        )
    }
}

impl Case for FclibCase {
    fn id(&self) -> &str {
        &self.inner.id
    }
    fn kind(&self) -> &str {
        "lcp"
    }
    fn source(&self) -> &str {
        &self.inner.source
    }
    fn quick(&self) -> bool {
        self.inner.quick
    }
    fn run(&self, ctx: &Context) -> Vec<Check> {
        let lcp = match (self.inner.build)() {
            Ok(l) => l,
            Err(e) => return vec![self.inner.data_error(&e)],
        };
        let runs = self.inner.solve_all(ctx, &lcp);
        let mut checks = self.inner.checks_of(&lcp, &runs);
        checks.push(self.w_check(&lcp, &runs));
        checks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sample_reads_as_a_48_contact_normal_problem() {
        let lcp = (case().inner.build)().expect("the FCLIB sample reads");
        assert_eq!(lcp.n(), 48);
        assert!(lcp.is_sparse());
    }
}
