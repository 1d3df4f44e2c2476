//! The expected answers of the LCP cases are checked against an independent brute-force
//! enumeration written here (dense Gaussian elimination on every complementary index set), so a
//! wrong z, solution set or "no solution" in a case definition fails this test even before the
//! real `enum` solver of signorini-lcp exists. The stand-in is registered under `enum` in a
//! test-local registry only.

use signorini_lcp::{
    Certificate, Lcp, LcpSolver, Outcome, Registry, SolveContext, SolveError, Status,
};
use signorini_verification::lcp::NOT_REGISTERED;
use signorini_verification::{run, CheckStatus, Context, Selection};

/// Solves the principal system M_aa z_a = -q_a by Gaussian elimination with partial pivoting;
/// `None` when it is singular to working precision.
fn solve_principal(lcp: &Lcp, active: &[usize]) -> Option<Vec<f64>> {
    let k = active.len();
    let mut a: Vec<Vec<f64>> = active
        .iter()
        .map(|&i| {
            let mut row: Vec<f64> = active.iter().map(|&j| lcp.get(i, j)).collect();
            row.push(-lcp.q()[i]);
            row
        })
        .collect();
    let scale = a.iter().flatten().fold(1.0f64, |m, v| m.max(v.abs()));
    for c in 0..k {
        let p = (c..k).max_by(|&x, &y| a[x][c].abs().total_cmp(&a[y][c].abs()))?;
        if a[p][c].abs() <= 1e-12 * scale {
            return None;
        }
        a.swap(c, p);
        let pivot_row = a[c].clone();
        for row in a.iter_mut().skip(c + 1) {
            let f = row[c] / pivot_row[c];
            for (x, p) in row.iter_mut().zip(&pivot_row).skip(c) {
                *x -= f * p;
            }
        }
    }
    let mut x = vec![0.0; k];
    for c in (0..k).rev() {
        let s: f64 = (c + 1..k).map(|j| a[c][j] * x[j]).sum();
        x[c] = (a[c][k] - s) / a[c][c];
    }
    Some(x)
}

struct BruteForce;

impl LcpSolver for BruteForce {
    fn name(&self) -> String {
        "enum".into()
    }
    fn default_tol(&self) -> f64 {
        1e-10
    }
    fn default_max_iter(&self, n: usize) -> usize {
        1 << n
    }
    fn run(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        let n = lcp.n();
        if n > 16 {
            return Err(SolveError::Unsupported { solver: self.name(), reason: "n > 16".into() });
        }
        let mut found: Vec<Vec<f64>> = Vec::new();
        for mask in 0u64..(1 << n) {
            let active: Vec<usize> = (0..n).filter(|i| mask >> i & 1 == 1).collect();
            let Some(za) = solve_principal(lcp, &active) else { continue };
            let mut z = vec![0.0; n];
            for (&i, &v) in active.iter().zip(&za) {
                z[i] = v.max(0.0);
            }
            if signorini_lcp::evaluate(lcp, &z).1.residual <= ctx.tol {
                found.push(z);
            }
        }
        let mut out = match found.first() {
            Some(z) => Outcome::new(z.clone(), Status::Solved, 1 << n),
            None => {
                let mut o = Outcome::new(vec![0.0; n], Status::NoSolution, 1 << n);
                o.certificate = Some(Certificate::Enumeration { index_sets: 1 << n });
                o
            }
        };
        out.all_solutions = Some(found);
        Ok(out)
    }
}

fn context() -> Context {
    let mut r = Registry::empty();
    r.register("enum", "test-local brute force", Vec::new(), |_| Ok(Box::new(BruteForce)));
    Context::new(r)
}

#[test]
fn every_enum_check_of_the_quick_set_passes_against_brute_force() {
    let checks = run(&context(), &Selection { quick: true, filter: None });
    let enum_checks: Vec<_> =
        checks.iter().filter(|c| c.solver.as_deref() == Some("enum")).collect();
    assert!(enum_checks.len() >= 12, "only {} enum checks", enum_checks.len());
    for c in &enum_checks {
        assert_eq!(c.status, CheckStatus::Pass, "{} {}: {}", c.id, c.kind, c.observed);
    }
}

#[test]
fn unregistered_solvers_fail_and_never_pass_silently() {
    let checks = run(&context(), &Selection { quick: true, filter: Some("a1_two".into()) });
    let lemke: Vec<_> = checks.iter().filter(|c| c.solver.as_deref() == Some("lemke")).collect();
    assert_eq!(lemke.len(), 1);
    assert_eq!(lemke[0].status, CheckStatus::Fail);
    assert_eq!(lemke[0].observed, NOT_REGISTERED);
}

#[test]
fn checks_are_deterministic() {
    let sel = Selection { quick: true, filter: None };
    assert_eq!(run(&context(), &sel), run(&context(), &sel));
}
