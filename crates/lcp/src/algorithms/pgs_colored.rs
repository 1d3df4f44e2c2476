//! Graph-coloured parallel projected Gauss–Seidel (`pgs-colored`) on rayon: rows that do not
//! read each other's unknowns share a colour and are updated in parallel (multicolour SOR,
//! Adams & Ortega 1982, "A multi-color SOR method for parallel computation", ICPP; the
//! projected sweep of Cottle, Pang, Stone 1992, §5.2).
//!
//! Set-up (O(nnz)): the sparsity graph of M (i ~ j when m_ij ≠ 0 or m_ji ≠ 0, i ≠ j) is coloured
//! greedily in index order (each row takes the smallest colour none of its lower-indexed
//! neighbours has); the unknowns are renumbered colour by colour and M is copied once into that
//! order, the diagonal kept apart. A sweep visits the colours in order; within a colour every row
//! reads only unknowns of other colours, so the parallel update equals the sequential
//! Gauss–Seidel sweep in the renumbered order, and each z_i is computed by the same operations
//! whatever the thread count: results are bit-identical for any number of threads (the only
//! reductions are max and logical and, which are exact). The sweep order differs from `pgs`'s, so
//! iterates differ from `pgs` (not its convergence theory).

use rayon::prelude::*;

use crate::algorithms::pgs::{DEFAULT_CHECK_EVERY, DEFAULT_MAX_ITER, DEFAULT_TOL};
use crate::linalg::sweeps::{iterate, positive_diagonal, project, LoopSettings, Rows, SweepInfo};
use crate::solver::{Outcome, SolveContext, SolveError};
use crate::status::Status;
use crate::Lcp;

/// Largest `threads` accepted: 1024. Each pool thread reserves a stack (2 MiB by default),
/// so `threads=100000` asked for ~200 GB of address space to solve a 2x2 problem; a fixed cap
/// (not one derived from the machine) keeps the same spec valid everywhere, and is far above
/// any useful count (the colouring's parallel chunks hold 1024 rows).
pub const MAX_THREADS: usize = 1024;

crate::solver_params! {
    /// Parameters of `pgs-colored`.
    pub struct PgsColoredParams for "pgs-colored" {
        /// relaxation factor in (0, 2)
        omega: f64 = 1.0, valid if |v| v > 0.0 && v < 2.0 => "in (0, 2)";
        /// sweeps between exact merit checks
        check_every: usize = DEFAULT_CHECK_EVERY, valid if |v| v >= 1 => ">= 1";
        /// worker threads, 0..=1024 (0: the caller's rayon pool)
        threads: usize = 0, valid if |v| v <= MAX_THREADS => "in 0..=1024 (0: the caller's rayon pool)";
    }
}

crate::lcp_solver! {
    /// Graph-coloured parallel projected Gauss–Seidel.
    pub struct PgsColored(PgsColoredParams) {
        summary: "graph-coloured parallel projected Gauss-Seidel (rayon; deterministic)",
        tol: DEFAULT_TOL,
        max_iter: |_params, _n| DEFAULT_MAX_ITER,
        run: PgsColored::solve_loop,
    }
}

/// Greedy colouring of the symmetrised sparsity graph of M; returns colour per row and the
/// number of colours.
pub fn greedy_coloring(lcp: &Lcp) -> (Vec<usize>, usize) {
    let n = lcp.n();
    let rows = Rows::new(lcp);
    // Transpose pattern (columns -> rows) so that i ~ j also when only m_ji is stored.
    let mut count = vec![0usize; n + 1];
    for i in 0..n {
        rows.for_each(i, |j, v| {
            if j != i && v != 0.0 {
                count[j + 1] += 1;
            }
        });
    }
    for j in 0..n {
        count[j + 1] += count[j];
    }
    let mut fill = count.clone();
    let mut t_rows = vec![0usize; count[n]];
    for i in 0..n {
        rows.for_each(i, |j, v| {
            if j != i && v != 0.0 {
                t_rows[fill[j]] = i;
                fill[j] += 1;
            }
        });
    }
    let mut color = vec![usize::MAX; n];
    let mut mark = vec![usize::MAX; n + 1];
    let mut n_colors = 0;
    for i in 0..n {
        let mut forbid = |j: usize| {
            if color[j] != usize::MAX {
                mark[color[j]] = i;
            }
        };
        rows.for_each(i, |j, v| {
            if j != i && v != 0.0 {
                forbid(j);
            }
        });
        for &j in &t_rows[count[i]..count[i + 1]] {
            forbid(j);
        }
        let c = (0..=n).find(|&c| mark[c] != i).unwrap_or(n);
        color[i] = c;
        n_colors = n_colors.max(c + 1);
    }
    (color, n_colors)
}

/// M renumbered colour by colour, off-diagonal entries in CSR, the diagonal apart.
struct ColoredSystem {
    /// New index k -> original index.
    perm: Vec<usize>,
    /// Start of each colour in the new numbering (n_colors + 1 entries).
    color_start: Vec<usize>,
    row_ptr: Vec<usize>,
    col: Vec<usize>,
    val: Vec<f64>,
    diag: Vec<f64>,
    q: Vec<f64>,
}

impl ColoredSystem {
    fn new(lcp: &Lcp, diag_orig: &[f64]) -> Self {
        let n = lcp.n();
        let (color, n_colors) = greedy_coloring(lcp);
        let mut color_start = vec![0usize; n_colors + 1];
        for &c in &color {
            color_start[c + 1] += 1;
        }
        for c in 0..n_colors {
            color_start[c + 1] += color_start[c];
        }
        let mut fill = color_start.clone();
        let mut perm = vec![0usize; n];
        let mut inv = vec![0usize; n];
        for (i, &c) in color.iter().enumerate() {
            perm[fill[c]] = i;
            inv[i] = fill[c];
            fill[c] += 1;
        }
        let rows = Rows::new(lcp);
        let mut row_ptr = Vec::with_capacity(n + 1);
        let mut col = Vec::new();
        let mut val = Vec::new();
        row_ptr.push(0);
        for &i in &perm {
            rows.for_each(i, |j, v| {
                if j != i && v != 0.0 {
                    col.push(inv[j]);
                    val.push(v);
                }
            });
            row_ptr.push(col.len());
        }
        let diag = perm.iter().map(|&i| diag_orig[i]).collect();
        let q = perm.iter().map(|&i| lcp.q()[i]).collect();
        Self { perm, color_start, row_ptr, col, val, diag, q }
    }

    fn to_original(&self, z: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; z.len()];
        for (k, &i) in self.perm.iter().enumerate() {
            out[i] = z[k];
        }
        out
    }

    fn permuted(&self, z: &[f64]) -> Vec<f64> {
        self.perm.iter().map(|&i| z[i]).collect()
    }

    /// One forward sweep, colour by colour, rows of a colour in parallel.
    fn sweep(&self, omega: f64, z: &mut [f64]) -> SweepInfo {
        let mut info = SweepInfo::ZERO;
        for c in 0..self.color_start.len() - 1 {
            let (s, e) = (self.color_start[c], self.color_start[c + 1]);
            let (head, rest) = z.split_at_mut(s);
            let (mid, tail) = rest.split_at_mut(e - s);
            let (head, tail): (&[f64], &[f64]) = (head, tail);
            let part = mid
                .par_iter_mut()
                .enumerate()
                .with_min_len(1024)
                .fold(
                    || SweepInfo::ZERO,
                    |mut acc, (k, zk)| {
                        let i = s + k;
                        let mut w = self.q[i];
                        for p in self.row_ptr[i]..self.row_ptr[i + 1] {
                            let j = self.col[p];
                            debug_assert!(j < s || j >= e, "row {i} reads its own colour");
                            let zj = if j < s { head[j] } else { tail[j - e] };
                            w += self.val[p] * zj;
                        }
                        let old = *zk;
                        w += self.diag[i] * old;
                        let new = project(old - omega * w / self.diag[i]);
                        *zk = new;
                        acc.push(old, new);
                        acc
                    },
                )
                .reduce(|| SweepInfo::ZERO, SweepInfo::merge);
            info = info.merge(part);
        }
        info
    }
}

impl PgsColored {
    fn run_in_pool(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        let n = lcp.n();
        let diag = match positive_diagonal(&Rows::new(lcp), n) {
            Ok(d) => d,
            Err(msg) => {
                let mut o = Outcome::new(vec![0.0; n], Status::NumericalFailure, 0);
                o.note = Some(msg);
                return Ok(o);
            }
        };
        let sys = ColoredSystem::new(lcp, &diag);
        let z = sys.permuted(&ctx.start_projected(n));
        let omega = self.params.omega;
        let settings = LoopSettings { check_every: self.params.check_every, matvecs_per_sweep: 1 };
        let unpermute = |z: &[f64]| sys.to_original(z);
        iterate(lcp, ctx, z, settings, |z| sys.sweep(omega, z), Some(&unpermute))
    }
}

impl PgsColored {
    fn solve_loop(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        crate::memory::check_dense_work(
            lcp,
            1,
            ctx.memory_budget,
            "pgs-colored: row-major copy of M",
        )?;
        if self.params.threads == 0 {
            return self.run_in_pool(lcp, ctx);
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.params.threads)
            .build()
            .map_err(|e| {
                SolveError::InvalidOption(format!(
                    "threads = {}: could not start the thread pool: {e}",
                    self.params.threads
                ))
            })?;
        pool.install(|| self.run_in_pool(lcp, ctx))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate;
    use crate::solver::SolveOptions;
    use crate::{LcpSolver, Registry, SpecError};

    /// Issue 14 §2: `threads=100000` on a 2x2 problem tried to start 100 000 threads.
    #[test]
    fn issue_14_thread_count_is_capped_with_the_range_named() {
        for spec in ["pgs-colored:threads=100000", "pgs-colored:threads=1025"] {
            match Registry::builtin().build(spec) {
                Err(SpecError::BadValue { key, reason, .. }) => {
                    assert_eq!(key, "threads");
                    assert!(reason.contains("0..=1024"), "{reason}");
                }
                Err(other) => panic!("{spec}: expected BadValue, got {other:?}"),
                Ok(s) => panic!("{spec}: accepted as {}", s.name()),
            }
        }
        assert!(Registry::builtin().build("pgs-colored:threads=1024").is_ok());
        let lcp = Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![-3.0, -3.0])
            .expect("valid");
        let s = PgsColored::new(PgsColoredParams { threads: 100_000, ..Default::default() });
        let err = s.solve(&lcp, &SolveOptions::default(), None).expect_err("refused");
        assert!(err.to_string().contains("0..=1024"), "{err}");
    }

    fn solve_in_pool(lcp: &Lcp, threads: usize, opts: &SolveOptions) -> crate::Solution {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("pool");
        pool.install(|| PgsColored::default().solve(lcp, opts, None).expect("runs"))
    }

    #[test]
    fn coloring_is_proper() {
        let lcp = generate::delassus_like(200, 3, 10.0, 2);
        let (color, n_colors) = greedy_coloring(&lcp);
        assert!(n_colors > 1 && n_colors < 100, "{n_colors} colours");
        for i in 0..lcp.n() {
            for j in 0..lcp.n() {
                if i != j && lcp.get(i, j) != 0.0 {
                    assert_ne!(color[i], color[j], "rows {i} and {j}");
                }
            }
        }
    }

    #[test]
    fn results_are_bit_identical_across_runs_and_thread_counts() {
        // Large enough that the parallel chunks (1024 rows) split across threads.
        let lcp = generate::delassus_like(3000, 3, 100.0, 11);
        let opts = SolveOptions { max_iter: Some(40), ..Default::default() };
        let one = solve_in_pool(&lcp, 1, &opts);
        let one_again = solve_in_pool(&lcp, 1, &opts);
        let two = solve_in_pool(&lcp, 2, &opts);
        let four = solve_in_pool(&lcp, 4, &opts);
        for other in [&one_again, &two, &four] {
            assert_eq!(one.iterations, other.iterations);
            let same = one.z.iter().zip(&other.z).all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same, "iterates differ between thread counts");
        }
        let by_param = PgsColored::new(PgsColoredParams { threads: 2, ..Default::default() })
            .solve(&lcp, &opts, None)
            .expect("runs");
        assert!(one.z.iter().zip(&by_param.z).all(|(a, b)| a.to_bits() == b.to_bits()));
    }

    #[test]
    fn solves_a_delassus_problem_to_its_known_solution() {
        let (lcp, z_star) = generate::delassus_like_with_solution(60, 3, 10.0, 4);
        let opts = SolveOptions { max_iter: Some(200_000), ..Default::default() };
        let sol = PgsColored::default().solve(&lcp, &opts, None).expect("runs");
        assert_eq!(sol.status, Status::Solved, "{:?}", sol.note);
        let scale = z_star.iter().fold(0.0f64, |a, b| a.max(*b));
        let err = sol.z.iter().zip(&z_star).fold(0.0f64, |a, (x, y)| a.max((x - y).abs()));
        assert!(err < 1e-4 * scale, "|z - z*| = {err}");
    }

    #[test]
    fn dense_problems_and_bad_diagonals() {
        let lcp = generate::random_spd(10, 2);
        let sol = PgsColored::default().solve(&lcp, &SolveOptions::default(), None).expect("runs");
        assert_eq!(sol.status, Status::Solved);
        let zero = Lcp::from_dense_rows(&[vec![0.0]], vec![-1.0]).expect("valid");
        let sol = PgsColored::default().solve(&zero, &SolveOptions::default(), None).expect("runs");
        assert_eq!(sol.status, Status::NumericalFailure);
        assert!(sol.note.as_deref().is_some_and(|n| n.contains("row 0")));
    }
}
