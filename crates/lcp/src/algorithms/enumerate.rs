//! Enumeration of complementary index sets (`enum`): every solution of a small LCP, or a
//! proof that there is none (Cottle, Pang, Stone 1992, *The Linear Complementarity Problem*,
//! §1.1: each solution has a complementary basis; Murty 1988, *Linear Complementarity, Linear
//! and Nonlinear Programming*, §1.3).
//!
//! # The method
//!
//! For each $\alpha \subseteq \{1..n\}$ (all $2^n$, $n \le 20$) with complement $\beta$, the
//! solutions with $z_\beta = 0$, $w_\alpha = 0$ form the polyhedron
//! $$P_\alpha = \{z_\alpha \ge 0 : M_{\alpha\alpha} z_\alpha + q_\alpha = 0,\;
//! M_{\beta\alpha} z_\alpha + q_\beta \ge 0\}.$$
//! Every solution lies in some $P_\alpha$ (take $\alpha = \{i : z_i > 0\}$), so the LCP has no
//! solution iff every $P_\alpha$ is empty.
//!
//! **Scale.** M and q are first equilibrated, $M' = EMD$, $q' = Eq$ with diagonal $E, D > 0$
//! (Ruiz's iteration, powers of two, so exact): LCP$(M', q')$ has the solutions $z' = D^{-1}z$
//! of LCP$(M, q)$, and every test below is relative to the scale of $M'$, not to
//! $\max|M_{ij}|$ (a fixed threshold on M itself rejected the right index set of
//! diag(1, 1e-12) and proved a false `no_solution`: issue 14 §1).
//!
//! - **Regular $M'_{\alpha\alpha}$** (faer's complete-pivoting LU, sequential, of the
//!   row/column-equilibrated subsystem; regular when the ratio of the last to the first pivot
//!   exceeds [`REGULAR_PIVOT_RATIO`] = 1e-8 and the solution's normwise backward error is at
//!   most [`BACKWARD_RTOL`] = 1e-12): $P_\alpha$ is the single point
//!   $z'_\alpha = -M'^{-1}_{\alpha\alpha} q'_\alpha$ or empty. The point is accepted when
//!   every sign holds within `feas_tol` (relative, default 1e-10) and $z = Dz'$ passes the merit
//!   check; the set is declared empty only when some sign fails by more than the estimated
//!   forward error, max($10\,|\alpha|\,\varepsilon_{mach}$, backward error) / (pivot ratio).
//!   In between, or when the signs hold but the merit fails, the point is *within round-off of
//!   feasible*: the LP below may still find a point, but an LP certificate of emptiness is not
//!   trusted against it and the set stays undecided.
//! - **Singular or ill-conditioned $M'_{\alpha\alpha}$**: $P_\alpha$ may be a whole polyhedron,
//!   which a linear solve does not settle. It is decided as an LP feasibility problem, first by
//!   a dense phase-1 simplex of this module (Bland's rule, so no cycling; pivot tolerance
//!   1e-11 and reduced-cost tolerance 1e-12 relative to $\max|M'_{ij}|$), then, if its answer
//!   does not verify, by Clarabel with a zero objective. Neither answer is trusted as such: a
//!   returned point counts only if the resulting z passes the merit check at `tol`; an empty
//!   $P_\alpha$ counts only if this module re-verifies a Farkas certificate $(y, v)$ (the
//!   simplex's final duals, or Clarabel's dual): $v \ge 0$,
//!   $M_{\alpha\alpha}^\top y - M_{\beta\alpha}^\top v \ge 0$,
//!   $-q_\alpha^\top y + q_\beta^\top v < 0$ (then any $z_\alpha \in P_\alpha$ would give
//!   $0 \le z_\alpha^\top(M_{\alpha\alpha}^\top y - M_{\beta\alpha}^\top v) =
//!   -q_\alpha^\top y - v^\top(M_{\beta\alpha} z_\alpha) \le
//!   -q_\alpha^\top y + q_\beta^\top v < 0$), with round-off tolerance
//!   [`CERTIFICATE_RTOL`] = 1e-9 relative to $\max|M'_{ij}|$ and $\|q'\|_\infty$ after scaling
//!   $\|(y, v)\|_\infty = 1$. A set that no test settles is *undecided*; with any undecided
//!   set and no solution found the run ends `numerical_failure`, never `no_solution`.
//!
//! # Output
//!
//! `Outcome.all_solutions` lists one representative per index set whose $P_\alpha$ is
//! nonempty (for a solution set such as lcp_CPS_1's $z_1 + z_2 = 1$ this is a sample of it, not
//! all of it), with duplicates (the same z from several degenerate index sets) merged when they
//! agree to 1e-9 relative. z is the first solution found. With no solution and every set
//! decided: `no_solution` with `Certificate::Enumeration { index_sets: 2^n }`. n > 20 is
//! refused with `SolveError::Unsupported`. Iterations count index sets examined. With no
//! solution and some set undecided the note names the first such set and why.

use clarabel::algebra::CscMatrix;
use clarabel::solver::{
    DefaultSettingsBuilder, DefaultSolver, IPSolver, SolverStatus, SupportedConeT,
};
use faer::Mat;

use crate::linalg::dense_lu::{equilibrate, SeqFullLu};
use crate::memory::{self, MemoryError, DEFAULT_MEMORY_BUDGET};
use crate::merit::evaluate;
use crate::solver::{LcpSolver, Outcome, SolveContext, SolveError};
use crate::status::{Certificate, Status};
use crate::Lcp;

/// Largest n `enum` accepts (2^20 index sets).
pub const MAX_N: usize = 20;
/// A principal submatrix counts as regular when |last pivot| / |first pivot| of complete
/// pivoting on its row/column-equilibrated form exceeds this.
pub const REGULAR_PIVOT_RATIO: f64 = 1e-8;
/// A subsystem solution counts as accurate when its normwise backward error
/// ||M'_aa x + q'_a|| / (||M'_aa|| ||x|| + ||q'_a||) is at most this.
pub const BACKWARD_RTOL: f64 = 1e-12;
/// Ruiz sweeps of the row/column equilibration (each halves the log-spread of the norms).
const EQUILIBRATION_SWEEPS: usize = 40;
/// Round-off tolerance of the Farkas certificates of empty index sets.
pub const CERTIFICATE_RTOL: f64 = 1e-9;

crate::solver_params! {
    /// Parameters of `enum`.
    pub struct EnumParams for "enum" {
        /// relative tolerance of the sign tests on z_alpha and w_beta (a round-off tolerance)
        feas_tol: f64 = 1e-10, valid if |v| v > 0.0 && v < 1e-2 => "in (0, 1e-2)";
        /// stop at the first solution
        first_only: bool = false;
    }
}

crate::lcp_solver! {
    /// The enumeration solver.
    pub struct Enumerate(EnumParams) {
        summary: "enumeration of complementary index sets: all solutions or a proof of none; n <= 20",
        tol: 1e-9,
        max_iter: |_params, n| if n <= MAX_N { 1usize << n } else { usize::MAX },
        run: Enumerate::solve_loop,
    }
}

impl Enumerate {
    fn solve_loop(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        let n = lcp.n();
        if n > MAX_N {
            return Err(SolveError::Unsupported {
                solver: self.name(),
                reason: format!(
                    "n = {n}: enumeration examines 2^n index sets and is limited to n <= {MAX_N}"
                ),
            });
        }
        enumerate(lcp, ctx, &self.params)
    }
}

/// What one index set holds.
#[derive(Debug, Clone, PartialEq)]
pub enum IndexSetVerdict {
    /// A solution z (length n) with z_beta = 0, w_alpha = 0.
    Solution(Vec<f64>),
    /// Proved empty.
    Empty,
    /// Neither a verified point nor a verified certificate.
    Undecided,
}

/// M and q equilibrated, in the dense form the per-set tests use: M' = E M D, q' = E q with
/// E, D diagonal powers of two (exact), an LCP with the same solutions as LCP(M, q) under
/// z = D z' (w' = E w keeps the signs and the complementarity of w). Every sign test, LP and
/// certificate below runs on M', q'; solutions are mapped back and checked on the problem.
struct Data {
    n: usize,
    m: Mat<f64>,
    q: Vec<f64>,
    /// D: z = D z'.
    col_scale: Vec<f64>,
    m_max: f64,
    q_max: f64,
}

/// Decides the index set `alpha` (sorted) of `lcp`; `tol` is the merit tolerance, `feas_tol`
/// the relative sign tolerance. A dense copy of M is made under the default memory budget.
pub fn decide_index_set(
    lcp: &Lcp,
    alpha: &[usize],
    tol: f64,
    feas_tol: f64,
) -> Result<IndexSetVerdict, MemoryError> {
    let data = Data::of(lcp, DEFAULT_MEMORY_BUDGET)?;
    Ok(decide(lcp, &data, alpha, tol, feas_tol).verdict)
}

impl Data {
    fn of(lcp: &Lcp, budget: u64) -> Result<Self, MemoryError> {
        let n = lcp.n();
        let m = memory::to_dense(lcp, budget, || format!("enum: dense M (n = {n})"))?;
        let (r, c) = equilibrate(m.as_ref(), EQUILIBRATION_SWEEPS);
        let scaled = Mat::from_fn(n, n, |i, j| r[i] * m[(i, j)] * c[j]);
        let q: Vec<f64> = lcp.q().iter().zip(&r).map(|(qi, ri)| qi * ri).collect();
        let finite = q.iter().all(|v| v.is_finite())
            && (0..n).all(|j| (0..n).all(|i| scaled[(i, j)].is_finite()));
        let (m, q, col_scale) =
            if finite { (scaled, q, c) } else { (m, lcp.q().to_vec(), vec![1.0; n]) };
        let m_max = (0..n)
            .flat_map(|j| (0..n).map(move |i| (i, j)))
            .fold(0.0f64, |a, (i, j)| a.max(m[(i, j)].abs()));
        let q_max = q.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        Ok(Self { n, m, q, col_scale, m_max, q_max })
    }

    /// z = D z' with z_alpha = max(x, 0) and z_beta = 0.
    fn point(&self, alpha: &[usize], x: &[f64]) -> Vec<f64> {
        let mut z = vec![0.0; self.n];
        for (r, &i) in alpha.iter().enumerate() {
            z[i] = x[r].max(0.0) * self.col_scale[i];
        }
        z
    }
}

fn enumerate(
    lcp: &Lcp,
    ctx: &mut SolveContext<'_>,
    params: &EnumParams,
) -> Result<Outcome, SolveError> {
    let n = lcp.n();
    let data = Data::of(lcp, ctx.memory_budget)?;
    let total: usize = 1usize << n;
    let limit = ctx.max_iter.min(total);
    let mut solutions: Vec<Vec<f64>> = Vec::new();
    let mut undecided = 0usize;
    let mut first_undecided: Option<(Vec<usize>, &'static str)> = None;
    let mut alpha = Vec::with_capacity(n);
    let mut examined = 0usize;
    let mut stopped = None;
    for mask in 0..limit {
        if mask % 256 == 0 && ctx.time_exceeded() {
            stopped = Some(Status::TimeLimit);
            break;
        }
        alpha.clear();
        alpha.extend((0..n).filter(|&i| mask & (1 << i) != 0));
        examined += 1;
        let decided = decide(lcp, &data, &alpha, ctx.tol, params.feas_tol);
        match decided.verdict {
            IndexSetVerdict::Solution(z) => {
                if !solutions.iter().any(|s| same_point(s, &z)) {
                    solutions.push(z);
                }
                if params.first_only {
                    break;
                }
            }
            IndexSetVerdict::Empty => {}
            IndexSetVerdict::Undecided => {
                undecided += 1;
                first_undecided.get_or_insert_with(|| (alpha.clone(), decided.why));
            }
        }
        ctx.record(lcp, examined, solutions.len() as f64, solutions.first().map_or(&[][..], |z| z));
    }
    if let Some(z) = solutions.first() {
        let mut o = Outcome::new(z.clone(), Status::Solved, examined);
        o.all_solutions = Some(solutions);
        return Ok(o);
    }
    let zero = vec![0.0; n];
    let status = match stopped {
        Some(s) => s,
        None if examined < total => Status::MaxIterations,
        None if undecided > 0 => Status::NumericalFailure,
        None => {
            let mut o = Outcome::new(zero, Status::NoSolution, examined);
            o.certificate = Some(Certificate::Enumeration { index_sets: total as u64 });
            o.all_solutions = Some(Vec::new());
            return Ok(o);
        }
    };
    let mut o = Outcome::new(zero, status, examined);
    if let Some((set, why)) = first_undecided {
        o.note = Some(format!(
            "enum: no solution found but {undecided} index set(s) undecided, so no_solution is \
             not claimed; first: alpha = {set:?} ({why})"
        ));
    }
    Ok(o)
}

/// Two solutions agree to 1e-9 relative in the max norm.
fn same_point(a: &[f64], b: &[f64]) -> bool {
    let scale = a.iter().chain(b).fold(1.0f64, |m, v| m.max(v.abs()));
    a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-9 * scale)
}

/// A verdict and, for an undecided set, why.
struct Decided {
    verdict: IndexSetVerdict,
    why: &'static str,
}

impl From<IndexSetVerdict> for Decided {
    fn from(verdict: IndexSetVerdict) -> Self {
        Self { verdict, why: "neither a verified point nor a verified certificate" }
    }
}

/// The solution of the principal subsystem M'_aa x = -q'_a.
struct Subsystem {
    x: Vec<f64>,
    /// |last| / |first| pivot of complete pivoting on the equilibrated M'_aa.
    pivot_ratio: f64,
    /// ||M'_aa x + q'_a||_inf / (||M'_aa||_inf ||x||_inf + ||q'_a||_inf).
    backward_error: f64,
}

impl Subsystem {
    /// Row/column-equilibrated M'_aa factorised by faer's complete-pivoting LU (sequential).
    fn solve(data: &Data, alpha: &[usize]) -> Self {
        let k = alpha.len();
        let a = Mat::from_fn(k, k, |r, c| data.m[(alpha[r], alpha[c])]);
        let (rs, cs) = equilibrate(a.as_ref(), EQUILIBRATION_SWEEPS);
        let lu = SeqFullLu::factor(Mat::from_fn(k, k, |r, c| rs[r] * a[(r, c)] * cs[c]));
        let pivot_ratio = lu.pivot_ratio();
        let mut y = Mat::from_fn(k, 1, |r, _| -rs[r] * data.q[alpha[r]]);
        if pivot_ratio > 0.0 {
            lu.solve_in_place(y.as_mut());
        }
        let x: Vec<f64> = (0..k).map(|r| cs[r] * y[(r, 0)]).collect();
        let mut res = 0.0f64;
        let mut a_norm = 0.0f64;
        for r in 0..k {
            let row = (0..k).map(|c| a[(r, c)] * x[c]).sum::<f64>();
            res = res.max((row + data.q[alpha[r]]).abs());
            a_norm = a_norm.max((0..k).map(|c| a[(r, c)].abs()).sum::<f64>());
        }
        let x_norm = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let b_norm = alpha.iter().fold(0.0f64, |m, &i| m.max(data.q[i].abs()));
        let denom = a_norm * x_norm + b_norm;
        let backward_error = if res == 0.0 {
            0.0
        } else if denom > 0.0 {
            res / denom
        } else {
            f64::INFINITY
        };
        Self {
            x,
            pivot_ratio,
            backward_error: if backward_error.is_nan() { f64::INFINITY } else { backward_error },
        }
    }

    /// Nonsingular to working accuracy and solved to round-off.
    fn regular(&self) -> bool {
        self.pivot_ratio > REGULAR_PIVOT_RATIO
            && self.backward_error <= BACKWARD_RTOL
            && self.x.iter().all(|v| v.is_finite())
    }
}

fn decide(lcp: &Lcp, data: &Data, alpha: &[usize], tol: f64, feas_tol: f64) -> Decided {
    let n = data.n;
    let k = alpha.len();
    let in_alpha = {
        let mut v = vec![false; n];
        alpha.iter().for_each(|&i| v[i] = true);
        v
    };
    let beta: Vec<usize> = (0..n).filter(|&i| !in_alpha[i]).collect();
    if k == 0 {
        // z = 0, w = q.
        let tw = feas_tol * data.q_max;
        return if data.q.iter().all(|&v| v >= -tw) {
            IndexSetVerdict::Solution(vec![0.0; n]).into()
        } else {
            IndexSetVerdict::Empty.into()
        };
    }
    let sub = Subsystem::solve(data, alpha);
    let mut near_feasible = false;
    if sub.regular() {
        let x = &sub.x;
        // w' = q' + M'_{.a} x.
        let mx: Vec<f64> =
            (0..n).map(|i| alpha.iter().zip(x).map(|(&j, xj)| data.m[(i, j)] * xj).sum()).collect();
        let znorm = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let mznorm = mx.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        let wscale = data.q_max.max(mznorm);
        let tz = feas_tol * znorm;
        let tw = feas_tol * wscale;
        let violation = x
            .iter()
            .map(|&xi| (-xi - tz) / znorm.max(f64::MIN_POSITIVE))
            .chain(
                beta.iter().map(|&i| (-(data.q[i] + mx[i]) - tw) / wscale.max(f64::MIN_POSITIVE)),
            )
            .fold(f64::NEG_INFINITY, f64::max);
        // Relative forward error bound of the computed point (backward error times the
        // condition estimate of the equilibrated subsystem).
        let err = (10.0 * k as f64 * f64::EPSILON).max(sub.backward_error) / sub.pivot_ratio;
        if violation <= 0.0 {
            let z = data.point(alpha, x);
            if evaluate(lcp, &z).1.residual <= tol {
                return IndexSetVerdict::Solution(z).into();
            }
            near_feasible = true;
        } else if violation > err {
            return IndexSetVerdict::Empty.into();
        } else {
            near_feasible = true;
        }
    }
    let verdict = lp_decide(lcp, data, alpha, &beta, tol);
    if near_feasible && !matches!(verdict, IndexSetVerdict::Solution(_)) {
        // A point within round-off of P_alpha: an LP certificate of emptiness would rest on
        // the same round-off, so the set stays open.
        return Decided {
            verdict: IndexSetVerdict::Undecided,
            why: "its basic solution is within round-off of feasible but fails the merit check",
        };
    }
    verdict.into()
}

fn lp_decide(lcp: &Lcp, data: &Data, alpha: &[usize], beta: &[usize], tol: f64) -> IndexSetVerdict {
    let phase1 = simplex_phase1(data, alpha, beta);
    if let Some(x) = &phase1.point {
        if let Some(z) = point_if_solution(lcp, data, alpha, x, tol) {
            return IndexSetVerdict::Solution(z);
        }
    }
    if let Some((y, v)) = &phase1.certificate {
        if certificate_holds(data, alpha, beta, y, v) {
            return IndexSetVerdict::Empty;
        }
    }
    clarabel_decide(lcp, data, alpha, beta, tol)
}

/// z = D z' with z'_alpha = max(x, 0), z'_beta = 0, when it passes the merit check at `tol`.
fn point_if_solution(
    lcp: &Lcp,
    data: &Data,
    alpha: &[usize],
    x: &[f64],
    tol: f64,
) -> Option<Vec<f64>> {
    if x.len() != alpha.len() || !x.iter().all(|v| v.is_finite()) {
        return None;
    }
    let z = data.point(alpha, x);
    (evaluate(lcp, &z).1.residual <= tol).then_some(z)
}

/// What the phase-1 simplex found: a basic point of P_alpha (x = z_alpha) when the
/// infeasibility it minimises reached zero, else the Farkas pair (y, v) read from its final
/// duals. Either is checked by the caller.
struct Phase1 {
    point: Option<Vec<f64>>,
    certificate: Option<(Vec<f64>, Vec<f64>)>,
}

/// Dense phase-1 simplex with Bland's rule (no cycling) on
/// [M_aa 0; M_ba -I] (x, s) = (-q_a, -q_b), (x, s) >= 0, with one artificial per row and
/// minimum sum of artificials. At the optimum the duals pi satisfy pi'A <= 0 and pi'b = value,
/// so a positive value gives y = -pi_a, v = pi_b with v >= 0, M_aa'y - M_ba'v >= 0 and
/// -q_a'y + q_b'v = -value < 0 (signs undone for rows flipped to make b >= 0).
fn simplex_phase1(data: &Data, alpha: &[usize], beta: &[usize]) -> Phase1 {
    let n = data.n;
    let k = alpha.len();
    let nx = n; // k columns for x, then n - k for the slacks s
    let cols = nx + n;
    let rhs = cols;
    let rows: Vec<usize> = alpha.iter().chain(beta).copied().collect();
    let mut t = vec![vec![0.0; cols + 1]; n];
    let mut sign = vec![1.0; n];
    for (r, &i) in rows.iter().enumerate() {
        for (c, &j) in alpha.iter().enumerate() {
            t[r][c] = data.m[(i, j)];
        }
        if r >= k {
            t[r][r] = -1.0; // the slack of row r sits in column k + (r - k) = r
        }
        t[r][rhs] = -data.q[i];
        if t[r][rhs] < 0.0 {
            sign[r] = -1.0;
            for v in t[r].iter_mut() {
                *v = -*v;
            }
        }
        t[r][nx + r] = 1.0;
    }
    let scale = data.m_max.max(1.0);
    let bscale = data.q_max.max(f64::MIN_POSITIVE);
    let mut basis: Vec<usize> = (nx..cols).collect();
    // Reduced costs of the phase-1 objective (sum of artificials); d[rhs] is unused.
    let mut d = vec![0.0; cols + 1];
    for (c, dc) in d.iter_mut().enumerate() {
        let cost = if (nx..cols).contains(&c) { 1.0 } else { 0.0 };
        *dc = cost - t.iter().map(|row| row[c]).sum::<f64>();
    }
    let dtol = 1e-12 * scale;
    let ptol = 1e-11 * scale;
    let mut failed = false;
    for _ in 0..50 * (cols + n) {
        let Some(e) = (0..cols).find(|&c| d[c] < -dtol) else { break };
        let mut leave: Option<(usize, f64)> = None;
        for r in 0..n {
            if t[r][e] > ptol {
                let ratio = t[r][rhs] / t[r][e];
                leave = match leave {
                    None => Some((r, ratio)),
                    Some((lr, lv)) => {
                        let tie = (ratio - lv).abs() <= 1e-12 * lv.abs().max(1.0);
                        if (ratio < lv && !tie) || (tie && basis[r] < basis[lr]) {
                            Some((r, ratio))
                        } else {
                            Some((lr, lv))
                        }
                    }
                };
            }
        }
        let Some((p, _)) = leave else {
            failed = true; // an unbounded phase 1 cannot happen in exact arithmetic
            break;
        };
        let piv = t[p][e];
        for v in t[p].iter_mut() {
            *v /= piv;
        }
        let prow = t[p].clone();
        for (r, row) in t.iter_mut().enumerate() {
            let f = row[e];
            if r != p && f != 0.0 {
                for (a, b) in row.iter_mut().zip(&prow) {
                    *a -= f * b;
                }
            }
        }
        let f = d[e];
        for (a, b) in d.iter_mut().zip(&prow) {
            *a -= f * b;
        }
        basis[p] = e;
    }
    if failed || (0..cols).any(|c| d[c] < -dtol) {
        return Phase1 { point: None, certificate: None };
    }
    let value: f64 = basis.iter().zip(&t).filter(|(&b, _)| b >= nx).map(|(_, row)| row[rhs]).sum();
    let mut x = vec![0.0; k];
    for (r, &b) in basis.iter().enumerate() {
        if b < k {
            x[b] = t[r][rhs];
        }
    }
    let point = (value <= 1e-9 * bscale).then_some(x);
    // pi_r = cost - reduced cost of artificial r, with the row flip undone.
    let p: Vec<f64> = (0..n).map(|r| (1.0 - d[nx + r]) * sign[r]).collect();
    let y: Vec<f64> = p[..k].iter().map(|v| -v).collect();
    let v: Vec<f64> = p[k..].iter().map(|v| v.max(0.0)).collect();
    let certificate = (value > 0.0).then_some((y, v));
    Phase1 { point, certificate }
}

/// Decides P_alpha by an LP feasibility problem with zero objective (Clarabel), re-verifying
/// its answer; the second opinion after the simplex.
fn clarabel_decide(
    lcp: &Lcp,
    data: &Data,
    alpha: &[usize],
    beta: &[usize],
    tol: f64,
) -> IndexSetVerdict {
    let n = data.n;
    let k = alpha.len();
    // Rows: [M_aa; -I; -M_ba] x + s = [-q_a; 0; q_b], s in {0}^k x R_+^n.
    let mut colptr = Vec::with_capacity(k + 1);
    let mut rowval = Vec::new();
    let mut nzval = Vec::new();
    colptr.push(0);
    for (pos, &j) in alpha.iter().enumerate() {
        for (r, &i) in alpha.iter().enumerate() {
            let v = data.m[(i, j)];
            if v != 0.0 {
                rowval.push(r);
                nzval.push(v);
            }
        }
        rowval.push(k + pos);
        nzval.push(-1.0);
        for (t, &i) in beta.iter().enumerate() {
            let v = data.m[(i, j)];
            if v != 0.0 {
                rowval.push(2 * k + t);
                nzval.push(-v);
            }
        }
        colptr.push(rowval.len());
    }
    let rows = k + n;
    let a = CscMatrix::new(rows, k, colptr, rowval, nzval);
    let p = CscMatrix::<f64>::zeros((k, k));
    let c = vec![0.0; k];
    let mut b: Vec<f64> = alpha.iter().map(|&i| -data.q[i]).collect();
    b.extend(std::iter::repeat_n(0.0, k));
    b.extend(beta.iter().map(|&i| data.q[i]));
    let cones = [SupportedConeT::ZeroConeT(k), SupportedConeT::NonnegativeConeT(n)];
    let settings = match DefaultSettingsBuilder::default()
        .verbose(false)
        .max_iter(200)
        .tol_feas(1e-11)
        .tol_gap_abs(1e-11)
        .tol_gap_rel(1e-11)
        .tol_infeas_abs(1e-11)
        .tol_infeas_rel(1e-11)
        .build()
    {
        Ok(s) => s,
        Err(_) => return IndexSetVerdict::Undecided,
    };
    let mut solver = match DefaultSolver::new(&p, &c, &a, &b, &cones, settings) {
        Ok(s) => s,
        Err(_) => return IndexSetVerdict::Undecided,
    };
    solver.solve();
    let sol = &solver.solution;
    let x = &sol.x;
    if !matches!(sol.status, SolverStatus::PrimalInfeasible) {
        if let Some(z) = point_if_solution(lcp, data, alpha, x, tol) {
            return IndexSetVerdict::Solution(z);
        }
    }
    if sol.z.len() == rows && farkas_for_set(data, alpha, beta, &sol.z) {
        return IndexSetVerdict::Empty;
    }
    IndexSetVerdict::Undecided
}

/// Checks the certificate (y, v) taken from a Clarabel dual d = (y, u, v): v >= 0,
/// g = M_aa' y - M_ba' v >= 0 and -q_a'y + q_b'v < 0, to [`CERTIFICATE_RTOL`] after scaling
/// ||(y, v)||_inf = 1. An interior-point dual carries small positive multipliers on inactive
/// constraints, so the check is repeated with the entries below 1e-8, 1e-6 and 1e-4 (relative)
/// set to zero; any variant that passes is a valid certificate by itself.
fn farkas_for_set(data: &Data, alpha: &[usize], beta: &[usize], dual: &[f64]) -> bool {
    let k = alpha.len();
    let y = &dual[..k];
    let v = &dual[2 * k..];
    let scale = y.iter().chain(v).fold(0.0f64, |m, x| m.max(x.abs()));
    if !(scale.is_finite() && scale > 0.0) {
        return false;
    }
    [0.0, 1e-8, 1e-6, 1e-4].iter().any(|&cut| {
        let clean = |x: f64| if (x / scale).abs() <= cut { 0.0 } else { x / scale };
        let y: Vec<f64> = y.iter().map(|&x| clean(x)).collect();
        // Round-off negatives of v are zeros (v enters only with its sign).
        let v: Vec<f64> = v.iter().map(|&x| clean(x).max(0.0)).collect();
        certificate_holds(data, alpha, beta, &y, &v)
    })
}

fn certificate_holds(data: &Data, alpha: &[usize], beta: &[usize], y: &[f64], v: &[f64]) -> bool {
    let gtol = CERTIFICATE_RTOL * data.m_max.max(f64::MIN_POSITIVE);
    for &j in alpha {
        let g: f64 = alpha.iter().zip(y).map(|(&i, yi)| data.m[(i, j)] * yi).sum::<f64>()
            - beta.iter().zip(v).map(|(&i, vi)| data.m[(i, j)] * vi).sum::<f64>();
        if g.is_nan() || g < -gtol {
            return false;
        }
    }
    let gap: f64 = -alpha.iter().zip(y).map(|(&i, yi)| data.q[i] * yi).sum::<f64>()
        + beta.iter().zip(v).map(|(&i, vi)| data.q[i] * vi).sum::<f64>();
    gap < -CERTIFICATE_RTOL * data.q_max
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate;
    use crate::solver::SolveOptions;
    use crate::{LcpSolver, Registry, SolverParams};

    fn solve(lcp: &Lcp) -> crate::Solution {
        Enumerate::default().solve(lcp, &SolveOptions::default(), None).expect("setup")
    }

    /// lcp_Pang_isolated_sol_perturbed.dat (Siconos test set, data/siconos-lcp/): the dense
    /// stream is column-major, so its three printed lines (0 1 -1 / -1 0 0 / -1 0 0) are the
    /// columns of M; q = (-1e-4, -1, 1).
    fn pang_perturbed() -> Lcp {
        let cols = [[0.0, 1.0, -1.0], [-1.0, 0.0, 0.0], [-1.0, 0.0, 0.0]];
        let m = Mat::from_fn(3, 3, |i, j| cols[j][i]);
        Lcp::from_dense(m, vec![-1e-4, -1.0, 1.0]).expect("valid")
    }

    #[test]
    fn pang_isolated_sol_perturbed_has_no_solution() {
        let sol = solve(&pang_perturbed());
        assert_eq!(sol.status, Status::NoSolution, "note: {:?}", sol.note);
        assert_eq!(sol.certificate, Some(Certificate::Enumeration { index_sets: 8 }));
        assert_eq!(sol.all_solutions.as_deref(), Some(&[][..]));
    }

    #[test]
    fn singular_index_sets_are_decided_by_the_lp() {
        // Pang perturbed, alpha = {1, 2} (zero-based): M_aa = 0, P_alpha needs
        // -1 = q_1 = 0 -> empty, proved by a certificate.
        let lcp = pang_perturbed();
        assert_eq!(decide_index_set(&lcp, &[1, 2], 1e-9, 1e-10), Ok(IndexSetVerdict::Empty));
        // CPS_1, alpha = {0, 1}: M_aa = [[1, 1], [1, 1]] singular, P_alpha = {z1 + z2 = 1}.
        let cps1 = Lcp::from_dense_rows(&[vec![1.0, 1.0], vec![1.0, 1.0]], vec![-1.0, -1.0])
            .expect("valid");
        match decide_index_set(&cps1, &[0, 1], 1e-9, 1e-10).expect("fits") {
            IndexSetVerdict::Solution(z) => {
                assert!((z[0] + z[1] - 1.0).abs() < 1e-9);
                assert!(z[0] >= 0.0 && z[1] >= 0.0);
            }
            other => panic!("expected a point of z1 + z2 = 1, got {other:?}"),
        }
    }

    /// Regression: on this degenerate set (found by the integer proptest) Clarabel stops with
    /// `InsufficientProgress`; the phase-1 simplex must prove it empty.
    #[test]
    fn degenerate_empty_set_where_the_interior_point_method_stalls() {
        let rows = vec![
            vec![-1.0, -1.0, 1.0, -1.0, 1.0, -1.0],
            vec![-1.0, 1.0, 1.0, 1.0, 1.0, -1.0],
            vec![1.0, -1.0, -1.0, 0.0, 0.0, 0.0],
            vec![0.0, 1.0, 1.0, -1.0, -1.0, 1.0],
            vec![-1.0, -1.0, -1.0, -1.0, 1.0, -1.0],
            vec![0.0, -1.0, 1.0, -1.0, -1.0, 1.0],
        ];
        let lcp =
            Lcp::from_dense_rows(&rows, vec![-1.0, 0.0, 1.0, -1.0, -1.0, -1.0]).expect("valid");
        assert_eq!(decide_index_set(&lcp, &[1, 4, 5], 1e-9, 1e-10), Ok(IndexSetVerdict::Empty));
        let sol = solve(&lcp);
        assert!(matches!(sol.status, Status::Solved | Status::NoSolution), "{:?}", sol.note);
    }

    /// Regression: inconsistent equalities M_aa z_a = -q_a with singular M_aa (Clarabel's
    /// interior dual failed the certificate check by 1.5e-9).
    #[test]
    fn inconsistent_singular_equalities_are_empty() {
        let rows = vec![
            vec![1.0, -1.0, 0.0, 0.0],
            vec![0.0, 0.0, 1.0, 1.0],
            vec![-1.0, 0.0, 0.0, -1.0],
            vec![-1.0, 0.0, 0.0, 1.0],
        ];
        let lcp = Lcp::from_dense_rows(&rows, vec![0.0, 0.0, -1.0, -1.0]).expect("valid");
        assert_eq!(decide_index_set(&lcp, &[2, 3], 1e-9, 1e-10), Ok(IndexSetVerdict::Empty));
        assert_eq!(solve(&lcp).status, Status::NoSolution);
    }

    #[test]
    fn seed_a2_no_solution_in_one_dimension() {
        let lcp = Lcp::from_dense_rows(&[vec![-1.0]], vec![-1.0]).expect("valid");
        assert_eq!(solve(&lcp).status, Status::NoSolution);
    }

    #[test]
    fn two_solutions_of_minus_one() {
        // M = [-1], q = [1]: z = 0 and z = 1.
        let lcp = Lcp::from_dense_rows(&[vec![-1.0]], vec![1.0]).expect("valid");
        let sol = solve(&lcp);
        assert_eq!(sol.status, Status::Solved);
        let all = sol.all_solutions.expect("listed");
        assert_eq!(all.len(), 2);
        assert!(all.iter().any(|z| z[0].abs() < 1e-12));
        assert!(all.iter().any(|z| (z[0] - 1.0).abs() < 1e-12));
    }

    #[test]
    fn three_isolated_solutions_of_the_symmetric_example() {
        // M = [[1, 2], [2, 1]], q = -e: (1, 0), (0, 1), (1/3, 1/3).
        let lcp = Lcp::from_dense_rows(&[vec![1.0, 2.0], vec![2.0, 1.0]], vec![-1.0, -1.0])
            .expect("valid");
        let all = solve(&lcp).all_solutions.expect("listed");
        assert_eq!(all.len(), 3);
        let third = 1.0 / 3.0;
        assert!(all.iter().any(|z| (z[0] - third).abs() < 1e-12 && (z[1] - third).abs() < 1e-12));
    }

    #[test]
    fn cps_3_has_three_isolated_solutions() {
        // lcp_CPS_3.dat (Siconos test set): column-major stream, printed lines are columns:
        // (0 0 10 30), (0 0 20 15), (10 30 0 0), (20 15 0 0); q = -e.
        let cols = [
            [0.0, 0.0, 10.0, 30.0],
            [0.0, 0.0, 20.0, 15.0],
            [10.0, 30.0, 0.0, 0.0],
            [20.0, 15.0, 0.0, 0.0],
        ];
        let m = Mat::from_fn(4, 4, |i, j| cols[j][i]);
        let lcp = Lcp::from_dense(m, vec![-1.0; 4]).expect("valid");
        let sol = solve(&lcp);
        assert_eq!(sol.status, Status::Solved);
        let all = sol.all_solutions.expect("listed");
        assert_eq!(all.len(), 3, "{all:?}");
        for z in &all {
            assert!(evaluate(&lcp, z).1.residual <= 1e-12);
        }
    }

    #[test]
    fn cps_1_solution_set_is_sampled() {
        let lcp = Lcp::from_dense_rows(&[vec![1.0, 1.0], vec![1.0, 1.0]], vec![-1.0, -1.0])
            .expect("valid");
        let sol = solve(&lcp);
        assert_eq!(sol.status, Status::Solved);
        let all = sol.all_solutions.expect("listed");
        assert!(all.len() >= 2);
        for z in &all {
            assert!((z[0] + z[1] - 1.0).abs() < 1e-9 && z[0] >= 0.0 && z[1] >= 0.0);
        }
    }

    #[test]
    fn infeasible_generator_has_no_solution() {
        for seed in 0..5 {
            let (lcp, _) = generate::random_copositive_plus_infeasible(5, seed);
            let sol = solve(&lcp);
            assert_eq!(sol.status, Status::NoSolution, "seed {seed}: {:?}", sol.note);
        }
    }

    #[test]
    fn spd_has_exactly_one_solution() {
        let lcp = generate::random_spd(6, 11);
        let sol = solve(&lcp);
        assert_eq!(sol.status, Status::Solved);
        assert_eq!(sol.all_solutions.map(|a| a.len()), Some(1));
    }

    #[test]
    fn too_large_is_unsupported() {
        let lcp = generate::random_spd(21, 0);
        let err = Enumerate::default().solve(&lcp, &SolveOptions::default(), None);
        match err {
            Err(SolveError::Unsupported { reason, .. }) => assert!(reason.contains("n = 21")),
            other => panic!("expected Unsupported, got {other:?}"),
        }
    }

    #[test]
    fn limit_without_solution_is_max_iterations() {
        let (lcp, _) = generate::random_copositive_plus_infeasible(4, 1);
        let s = Registry::builtin().build("enum:max_iter=3").expect("spec");
        let sol = s.solve(&lcp, &SolveOptions::default(), None).expect("setup");
        assert_eq!(sol.status, Status::MaxIterations);
        assert_eq!(sol.iterations, 3);
    }

    /// Issue 14 §1: a fixed pivot-ratio threshold on M itself rejected the only index set of
    /// these positive definite (so uniquely solvable) problems and the LP on the unscaled data
    /// "proved" them empty: enum claimed `no_solution`. Equilibration fixes the scale.
    #[test]
    fn issue_14_enum_solves_badly_scaled_positive_definite_problems() {
        let cases: [(Vec<Vec<f64>>, Vec<f64>); 3] = [
            (vec![vec![1.0, 0.0], vec![0.0, 1e-12]], vec![-1.0, -1.0]),
            (vec![vec![1e12, 1.0], vec![1.0, 1e-9]], vec![-1.0, -1e-3]),
            (
                vec![vec![1e-14, 0.0, 0.0], vec![0.0, 1.0, 0.5], vec![0.0, 0.5, 1e10]],
                vec![-1.0, 2.0, -1.0],
            ),
        ];
        for (rows, q) in cases {
            let lcp = Lcp::from_dense_rows(&rows, q).expect("valid");
            let sol = solve(&lcp);
            assert_eq!(sol.status, Status::Solved, "{rows:?}: {:?}", sol.note);
            assert_eq!(sol.all_solutions.map(|a| a.len()), Some(1), "{rows:?}");
        }
    }

    /// A point within round-off of feasible is never overruled by an LP certificate: with the
    /// merit tolerance far below what the data allow, enum reports `numerical_failure` with
    /// the reason instead of `no_solution` (or `solved`, where the computed z happens to be
    /// exact).
    #[test]
    fn a_round_off_point_is_not_overruled_by_an_lp_certificate() {
        // z = (2/7, 1/7) is not representable: its residual is round-off, not zero.
        let lcp = Lcp::from_dense_rows(&[vec![3.0, 1.0], vec![1.0, 5.0]], vec![-1.0, -1.0])
            .expect("valid");
        let s = Registry::builtin().build("enum:tol=1e-300").expect("spec");
        let sol = s.solve(&lcp, &SolveOptions::default(), None).expect("setup");
        assert_ne!(sol.status, Status::NoSolution, "{:?}", sol.note);
        if sol.status != Status::Solved {
            assert_eq!(sol.status, Status::NumericalFailure, "{:?}", sol.note);
            assert!(sol.note.as_deref().is_some_and(|n| n.contains("round-off")), "{:?}", sol.note);
        }
    }

    #[test]
    fn params_and_name() {
        let p = EnumParams::from_pairs(&[("first_only".into(), "true".into())]).expect("ok");
        assert_eq!(Enumerate::new(p).name(), "enum:first_only=true");
        assert_eq!(Enumerate::default().name(), "enum");
        assert!(EnumParams::from_pairs(&[("tol".into(), "0".into())]).is_err());
    }
}
