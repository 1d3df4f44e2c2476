//! Test-only LCP solvers (no solver is registered on this branch yet): projected Gauss–Seidel
//! for symmetric W and a dense Lemke with a lexicographic ratio test for the nonsymmetric
//! friction LCP. Both run through `signorini_lcp::run_solver`, so the returned residual is the
//! driver's, recomputed from z. When the registry has `lemke` / `pgs`, those are used instead.
#![allow(dead_code)]

use signorini_lcp::{
    run_solver, Lcp, LcpSolver, Outcome, Registry, Solution, SolveContext, SolveError,
    SolveOptions, Status,
};

/// Projected Gauss–Seidel, z_i <- max(0, z_i - w_i / M_ii) (Cottle, Pang, Stone 1992, §5.2).
pub struct TestPgs;

impl LcpSolver for TestPgs {
    fn name(&self) -> String {
        "test-pgs".into()
    }
    fn default_tol(&self) -> f64 {
        1e-12
    }
    fn default_max_iter(&self, _n: usize) -> usize {
        2_000_000
    }
    fn run(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        let m = lcp.dense_rows();
        let q = lcp.q();
        let n = q.len();
        let mut z = vec![0.0; n];
        let qn = q.iter().map(|v| v * v).sum::<f64>().sqrt().max(f64::EPSILON);
        for it in 0..ctx.max_iter {
            for i in 0..n {
                let wi: f64 = q[i] + (0..n).map(|j| m[i][j] * z[j]).sum::<f64>();
                if m[i][i] > 0.0 {
                    z[i] = (z[i] - wi / m[i][i]).max(0.0);
                }
            }
            if it % 16 == 0 {
                let r: f64 = (0..n)
                    .map(|i| {
                        let wi: f64 = q[i] + (0..n).map(|j| m[i][j] * z[j]).sum::<f64>();
                        let v = z[i].min(wi);
                        v * v
                    })
                    .sum::<f64>()
                    .sqrt();
                if r / qn <= ctx.tol * 1e-2 {
                    return Ok(Outcome::new(z, Status::Solved, it + 1));
                }
            }
        }
        Ok(Outcome::new(z, Status::MaxIterations, ctx.max_iter))
    }
}

/// Lemke's complementary pivoting with covering vector e and a lexicographic ratio test
/// (Cottle, Pang, Stone 1992, §4.4), dense tableau.
pub struct TestLemke;

impl LcpSolver for TestLemke {
    fn name(&self) -> String {
        "test-lemke".into()
    }
    fn default_tol(&self) -> f64 {
        1e-12
    }
    fn default_max_iter(&self, n: usize) -> usize {
        50 * (n + 1)
    }
    fn run(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        let m = lcp.dense_rows();
        let q = lcp.q().to_vec();
        let n = q.len();
        if q.iter().all(|&v| v >= 0.0) {
            return Ok(Outcome::new(vec![0.0; n], Status::Solved, 0));
        }
        // Columns: w (0..n), z (n..2n), z0 (2n); tableau rows: B^-1 [I, -M, -e], rhs B^-1 q.
        let cols = 2 * n + 1;
        let mut t = vec![vec![0.0; cols]; n];
        let mut rhs = q.clone();
        for i in 0..n {
            t[i][i] = 1.0;
            for j in 0..n {
                t[i][n + j] = -m[i][j];
            }
            t[i][2 * n] = -1.0;
        }
        let mut basis: Vec<usize> = (0..n).collect();
        let pivot = |t: &mut Vec<Vec<f64>>, rhs: &mut Vec<f64>, r: usize, c: usize| {
            let p = t[r][c];
            for v in t[r].iter_mut() {
                *v /= p;
            }
            rhs[r] /= p;
            for i in 0..t.len() {
                if i != r {
                    let f = t[i][c];
                    if f != 0.0 {
                        for j in 0..t[i].len() {
                            let tr = t[r][j];
                            t[i][j] -= f * tr;
                        }
                        rhs[i] -= f * rhs[r];
                    }
                }
            }
        };
        // First pivot: z0 enters, the most negative q leaves.
        let mut r = 0;
        for i in 0..n {
            if q[i] < q[r] {
                r = i;
            }
        }
        pivot(&mut t, &mut rhs, r, 2 * n);
        let mut leaving = basis[r];
        basis[r] = 2 * n;
        for it in 0..ctx.max_iter {
            let enter = if leaving < n { leaving + n } else { leaving - n };
            // x_B = rhs - d t with d = tableau column; rows with d > 0 limit t.
            let mut best: Option<usize> = None;
            for i in 0..n {
                let d = t[i][enter];
                if d <= 1e-12 {
                    continue;
                }
                best = match best {
                    None => Some(i),
                    Some(b) => {
                        let db = t[b][enter];
                        let key = |row: usize, d: f64, k: usize| {
                            if k == 0 {
                                rhs[row] / d
                            } else {
                                t[row][k - 1] / d
                            }
                        };
                        let mut choose = b;
                        for k in 0..=n {
                            let (x, y) = (key(i, d, k), key(b, db, k));
                            if x < y - 1e-14 * (1.0 + y.abs()) {
                                choose = i;
                                break;
                            }
                            if x > y + 1e-14 * (1.0 + y.abs()) {
                                break;
                            }
                        }
                        Some(choose)
                    }
                };
            }
            let Some(r) = best else {
                return Ok(Outcome::new(vec![0.0; n], Status::RayTermination, it));
            };
            pivot(&mut t, &mut rhs, r, enter);
            leaving = basis[r];
            basis[r] = enter;
            if leaving == 2 * n {
                let mut z = vec![0.0; n];
                for (i, &b) in basis.iter().enumerate() {
                    if (n..2 * n).contains(&b) {
                        z[b - n] = rhs[i].max(0.0);
                    }
                }
                return Ok(Outcome::new(z, Status::Solved, it + 1));
            }
        }
        Ok(Outcome::new(vec![0.0; n], Status::MaxIterations, ctx.max_iter))
    }
}

/// Solves with the registered solver `name` when the registry has it, else with `fallback`.
pub fn solve_with(lcp: &Lcp, name: &str, fallback: &dyn LcpSolver, tol: f64) -> Solution {
    let options = SolveOptions { tol: Some(tol), ..SolveOptions::default() };
    let registry = Registry::builtin();
    let solution = if registry.names().contains(&name) {
        let solver = registry.build(name).expect("registered solver builds");
        solver.solve(lcp, &options, None)
    } else {
        run_solver(fallback, lcp, &options, None)
    }
    .expect("solve runs");
    assert_eq!(solution.status, Status::Solved, "solver {} on {:?}", solution.solver, lcp.name);
    solution
}

/// Symmetric contact LCPs: `pgs` if registered, else the test PGS.
pub fn solve_symmetric(lcp: &Lcp) -> Solution {
    solve_with(lcp, "pgs", &TestPgs, 1e-12)
}

/// Nonsymmetric (friction) LCPs: `lemke` if registered, else the test Lemke.
pub fn solve_general(lcp: &Lcp) -> Solution {
    solve_with(lcp, "lemke", &TestLemke, 1e-10)
}

/// Relative closeness: |a - b| <= tol max(|b|, scale).
pub fn close(a: f64, b: f64, tol: f64, scale: f64) -> bool {
    (a - b).abs() <= tol * b.abs().max(scale)
}

/// Path of a scene file under verification/scenes/.
pub fn scene_path(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../verification/scenes").join(name)
}
