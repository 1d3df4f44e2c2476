//! Test-only LCP solver: exhaustive enumeration of complementary index sets (n <= 12), used
//! while no solver of signorini-lcp is registered; `solver()` prefers a registered `lemke`.

#![allow(dead_code)]

use signorini_lcp::{Lcp, LcpSolver, Outcome, Registry, SolveContext, SolveError, Status};

/// Tries every index set a (z_a solves M_aa z_a = -q_a, z_rest = 0) and returns the first
/// z >= 0 with w >= 0 (relative tolerance 1e-12).
pub struct Enumeration;

impl LcpSolver for Enumeration {
    fn name(&self) -> String {
        "test-enumeration".into()
    }
    fn default_tol(&self) -> f64 {
        1e-10
    }
    fn default_max_iter(&self, n: usize) -> usize {
        1 << n.min(20)
    }
    fn run(&self, lcp: &Lcp, _ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        let n = lcp.n();
        if n > 12 {
            return Err(SolveError::Unsupported {
                solver: self.name(),
                reason: format!("n = {n} > 12"),
            });
        }
        let q = lcp.q();
        let scale = q.iter().fold(1e-300_f64, |a, v| a.max(v.abs()));
        for mask in 0u32..(1 << n) {
            let set: Vec<usize> = (0..n).filter(|i| mask & (1 << i) != 0).collect();
            let k = set.len();
            let mut a: Vec<Vec<f64>> = set
                .iter()
                .map(|&i| {
                    let mut row: Vec<f64> = set.iter().map(|&j| lcp.get(i, j)).collect();
                    row.push(-q[i]);
                    row
                })
                .collect();
            if !gauss(&mut a, k) {
                continue;
            }
            let mut z = vec![0.0; n];
            for (r, &i) in set.iter().enumerate() {
                z[i] = a[r][k];
            }
            let w = lcp.w_of(&z);
            let ok =
                z.iter().all(|v| *v >= -1e-12 * scale) && w.iter().all(|v| *v >= -1e-12 * scale);
            if ok {
                return Ok(Outcome::new(
                    z.iter().map(|v| v.max(0.0)).collect(),
                    Status::Solved,
                    mask as usize,
                ));
            }
        }
        Ok(Outcome::new(vec![0.0; n], Status::Stalled, 1 << n))
    }
}

/// Gaussian elimination with partial pivoting on an augmented k x (k+1) system, in place;
/// the solution is left in the last column. False when singular.
fn gauss(a: &mut [Vec<f64>], k: usize) -> bool {
    for c in 0..k {
        let p = (c..k).max_by(|&x, &y| a[x][c].abs().total_cmp(&a[y][c].abs())).unwrap_or(c);
        if a[p][c].abs() < 1e-14 {
            return false;
        }
        a.swap(c, p);
        for r in 0..k {
            if r != c {
                let f = a[r][c] / a[c][c];
                let pivot_row = a[c].clone();
                for (x, v) in a[r].iter_mut().zip(&pivot_row).skip(c) {
                    *x -= f * v;
                }
            }
        }
    }
    for (r, row) in a.iter_mut().enumerate().take(k) {
        row[k] /= row[r];
    }
    true
}

/// A registered `lemke` when signorini-lcp has one, otherwise the test enumeration solver.
pub fn solver() -> Box<dyn LcpSolver> {
    match Registry::builtin().build("lemke") {
        Ok(s) => s,
        Err(_) => Box::new(Enumeration),
    }
}
