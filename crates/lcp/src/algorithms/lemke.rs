//! Lemke's complementary pivoting method (Lemke 1965, "Bimatrix equilibrium points and
//! mathematical programming", Management Science 11(7); Cottle, Pang, Stone 1992, *The Linear
//! Complementarity Problem*, §4.4) with the lexicographic minimum ratio test, a settable
//! covering vector and ray certificates.
//!
//! # The method
//!
//! Lemke augments the problem with an artificial variable $z_0$ and a covering vector $d > 0$:
//! $w = q + Mz + d z_0$. Starting from $z = 0$, $z_0 = \max_i(-q_i/d_i)$, it moves along an
//! almost-complementary path, each pivot bringing in the complement of the variable that left,
//! until $z_0$ leaves (a solution) or the entering column has no positive entry (a secondary ray).
//!
//! # Implementation
//!
//! The basis inverse $B^{-1}$ of the equation $Iw - Mz - dz_0 = q$ is kept explicitly, in
//! product form on the columns that are not unit vectors: column $j$ of $B^{-1}$ is the unit
//! vector of $w_j$'s row whenever $w_j$ is basic, so only the $k$ columns with $w_j$ nonbasic
//! are stored (contiguous, column-major). A pivot is one rank-one update of those $k$ columns,
//! fused with the computation of the next entering column, $O(nk)$ work with no refactorisation.
//! Rows of $[x_B \mid B^{-1}]$ are lexicographically positive throughout, so degenerate problems
//! cannot cycle (ties in the ratio test are broken on the rows of $B^{-1}[q \mid I]$, the
//! standard lexico-Lemke; a tie that includes $z_0$'s row is resolved by letting $z_0$ leave,
//! which ends the run). Lexicographic entries tie when they differ by at most 1e-12 times the
//! largest entry of the rows compared, so round-off in an exactly-zero column of $B^{-1}$ is not
//! read as a sign (the cause of cycling on Siconos' `lcp_tobenna`, see
//! `tests/issue_lemke_tobenna.rs`). In the ratio test itself, ratios tie when they differ by at
//! most 1e-12 max|x_B| / max|c| (never by a width divided by a tiny pivot entry, which let a far
//! larger ratio tie and broke feasibility: `tests/issue_lemke_tiny_pivot_tie.rs`). Pivot entries
//! below `pivot_tol` times the largest entry of the column are treated as zero.
//!
//! The tableau is dense: M column-major plus up to n stored columns of $B^{-1}$, 2 n^2 entries
//! at worst. That is checked against the memory budget ([`crate::memory`]) before anything is
//! allocated, so a large sparse M is refused with [`SolveError::Memory`] instead of an
//! allocation abort (when q >= 0 the answer z = 0 needs no tableau and is returned first).
//!
//! # Ray termination
//!
//! On a secondary ray the direction $(z_h, w_h, z_{0,h})$ of the unbounded edge is read off the
//! entering column. $y = z_h$ is offered as a Farkas vector: when it passes
//! [`verify_farkas`] the run ends `infeasible` with the certificate (on copositive-plus $M$ it
//! always does: Cottle, Pang, Stone 1992, Theorem 4.4.13), otherwise `ray_termination`.
//!
//! # Counting and warm starts
//!
//! Every pivot counts, including the one where $z_0$ enters and the one where it leaves, so
//! Murty's example (`generate::murty_exponential(n)`) reports $2^n$ pivots. A warm start is
//! ignored: Lemke's path is defined from $z = 0$, and restarting it elsewhere needs a different
//! covering vector and another termination theory.

use crate::memory::{self, MemoryError};
use crate::params::ParamValue;
use std::borrow::Cow;

use crate::solver::{Outcome, SolveContext, SolveError, FARKAS_TOL};
use crate::status::{verify_farkas, Certificate, Status};
use crate::steps::{run_steps, Policy, Start, Step, StepResult, Steps};
use crate::{Lcp, Matrix};

/// Default merit tolerance.
pub const DEFAULT_TOL: f64 = 1e-10;
/// Default relative pivot tolerance.
pub const DEFAULT_PIVOT_TOL: f64 = 1e-12;

/// Relative width of a tie in the ratio test (on the scale of the basic values).
const TIE_TOL: f64 = 1e-12;
/// Relative width of a tie between lexicographic entries, on the scale of the largest entry of
/// the rows compared (rows of B^-1 divided by the pivot column entry).
const LEX_TOL: f64 = 1e-12;
/// Refinement steps tried when the final merit misses the tolerance.
const REFINE_STEPS: usize = 3;
/// Marker of "not basic" / "not stored".
const NONE: usize = usize::MAX;

/// A covering vector: `e` (None) in spec strings; a vector set through the Rust API is
/// written `covering=custom` in the solver's name (which names it but does not parse back).
impl ParamValue for Option<Vec<f64>> {
    fn kind() -> String {
        "e".into()
    }
    fn parse_param(text: &str) -> Result<Self, String> {
        if text.trim() == "e" {
            Ok(None)
        } else {
            Err("expected `e`; set other covering vectors through LemkeParams::covering".into())
        }
    }
    fn render_param(&self) -> String {
        if self.is_some() {
            "custom".into()
        } else {
            "e".into()
        }
    }
}

/// The first entry of a covering vector that is not finite and > 0.
fn check_covering(d: &[f64]) -> Result<(), String> {
    match d.iter().enumerate().find(|(_, v)| !(v.is_finite() && **v > 0.0)) {
        Some((i, v)) => Err(format!("covering[{i}] = {v}: every entry must be finite and > 0")),
        None => Ok(()),
    }
}

crate::solver_params! {
    /// Parameters of [`Lemke`].
    pub struct LemkeParams for "lemke" {
        /// covering vector d > 0, length n (only `e` in spec strings; others through the Rust API)
        covering: Option<Vec<f64>> = None,
            valid if |v| v.as_deref().is_none_or(|d| check_covering(d).is_ok()) => "finite entries > 0";
        /// pivot entries below pivot_tol * max|column| count as zero
        pivot_tol: f64 = DEFAULT_PIVOT_TOL, valid if |v| v > 0.0 && v < 1.0 => "in (0, 1)";
    }
}

crate::lcp_solver! {
    /// Lemke's method with the lexicographic ratio test (see the module documentation).
    pub struct Lemke(LemkeParams) {
        summary: "Lemke's complementary pivoting, lexicographic ratio test; P, copositive-plus (PSD, skew) with ray certificates",
        tol: DEFAULT_TOL,
        max_iter: |_params, n| 10_000usize.max(n.saturating_mul(50)),
        run: Lemke::solve_loop,
    }
}

impl Lemke {
    fn solve_loop(&self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Result<Outcome, SolveError> {
        let n = lcp.n();
        let d = match &self.params.covering {
            Some(d) => {
                if d.len() != n {
                    return Err(SolveError::InvalidOption(format!(
                        "covering vector has {} entries, the problem has n = {n}",
                        d.len()
                    )));
                }
                check_covering(d).map_err(SolveError::InvalidOption)?;
                d.clone()
            }
            None => vec![1.0; n],
        };
        solve_lemke(lcp, d, self.params.pivot_tol, ctx)
    }
}

/// A variable of the augmented system w = q + Mz + d z0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Var {
    W(usize),
    Z(usize),
    Z0,
}

impl Var {
    /// The complement of a leaving variable (None for z0: the run ends).
    fn complement(self) -> Option<Var> {
        match self {
            Var::W(i) => Some(Var::Z(i)),
            Var::Z(i) => Some(Var::W(i)),
            Var::Z0 => None,
        }
    }
}

/// The basis of Iw - Mz - d z0 = q, its inverse in the stored-columns form and the basic values.
struct Tableau {
    n: usize,
    /// M, column-major.
    m: Vec<f64>,
    d: Vec<f64>,
    q: Vec<f64>,
    /// Row -> basic variable.
    basis: Vec<Var>,
    row_of_w: Vec<usize>,
    row_of_z: Vec<usize>,
    row_of_z0: usize,
    /// Stored columns of B^-1 (those j with w_j nonbasic), n each, contiguous.
    slots: Vec<f64>,
    nslots: usize,
    /// Slot -> equation index j (the column of B^-1 it holds).
    slot_eq: Vec<usize>,
    /// Equation index -> slot, NONE when w_j is basic (column = unit vector of w_j's row).
    eq_slot: Vec<usize>,
    /// Basic values x_B = B^-1 q.
    x: Vec<f64>,
    /// Work: c - e_r of the current pivot.
    u: Vec<f64>,
    /// Work: tied rows of the ratio test.
    cand: Vec<usize>,
    /// Work: nonzero positions of u.
    nz: Vec<usize>,
    /// Work: rows still tied in the lexicographic test, with the largest |entry| of each row.
    lex: Vec<(usize, f64)>,
}

impl Tableau {
    /// The starting basis (every w basic), after checking the worst-case dense working set
    /// against `budget`: M column-major and up to n stored columns of B^-1, 2 n^2 entries.
    fn new(lcp: &Lcp, d: Vec<f64>, budget: u64) -> Result<Self, MemoryError> {
        let n = lcp.n();
        memory::check_dense(n, n, 2, budget, || {
            format!("lemke: dense tableau (M and up to n columns of B^-1, n = {n})")
        })?;
        let mut m = vec![0.0; n * n];
        match lcp.matrix() {
            Matrix::Dense(dense) => {
                for (j, col) in m.chunks_exact_mut(n).enumerate() {
                    col.iter_mut().zip(dense.col(j).iter()).for_each(|(a, &b)| *a = b);
                }
            }
            Matrix::Sparse(s) => {
                for i in 0..n {
                    for (&j, &v) in s.col_idx_of_row_raw(i).iter().zip(s.val_of_row(i)) {
                        m[j * n + i] += v;
                    }
                }
            }
        }
        Ok(Self {
            n,
            m,
            d,
            q: lcp.q().to_vec(),
            basis: (0..n).map(Var::W).collect(),
            row_of_w: (0..n).collect(),
            row_of_z: vec![NONE; n],
            row_of_z0: NONE,
            slots: Vec::new(),
            nslots: 0,
            slot_eq: Vec::with_capacity(n),
            eq_slot: vec![NONE; n],
            x: lcp.q().to_vec(),
            u: vec![0.0; n],
            cand: Vec::with_capacity(n),
            nz: Vec::with_capacity(n),
            lex: Vec::with_capacity(n),
        })
    }

    fn mcol(&self, j: usize) -> &[f64] {
        &self.m[j * self.n..(j + 1) * self.n]
    }

    fn slot(&self, s: usize) -> &[f64] {
        &self.slots[s * self.n..(s + 1) * self.n]
    }

    /// Entry (i, j) of B^-1.
    fn binv(&self, i: usize, j: usize) -> f64 {
        match self.eq_slot[j] {
            NONE => f64::from(u8::from(self.row_of_w[j] == i)),
            s => self.slots[s * self.n + i],
        }
    }

    /// out = B^-1 a for a dense a.
    fn apply_inverse(&self, a: &[f64], out: &mut [f64]) {
        out.iter_mut().for_each(|v| *v = 0.0);
        for (j, &aj) in a.iter().enumerate() {
            if self.row_of_w[j] != NONE {
                out[self.row_of_w[j]] += aj;
            }
        }
        for s in 0..self.nslots {
            let g = a[self.slot_eq[s]];
            if g != 0.0 {
                axpy(out, g, self.slot(s));
            }
        }
    }

    /// out = B^-1 a(var), a(var) the column of var in Iw - Mz - d z0 = q.
    fn column_of(&self, var: Var, out: &mut [f64]) {
        match var {
            Var::W(j) => {
                debug_assert!(self.eq_slot[j] != NONE, "entering w_j is nonbasic, so stored");
                out.copy_from_slice(self.slot(self.eq_slot[j]));
            }
            Var::Z(j) => {
                let a: Vec<f64> = self.mcol(j).iter().map(|v| -v).collect();
                self.apply_inverse(&a, out);
            }
            Var::Z0 => {
                let a: Vec<f64> = self.d.iter().map(|v| -v).collect();
                self.apply_inverse(&a, out);
            }
        }
    }

    /// Pivots `entering` (column c = B^-1 a) into row r and writes the entering column of
    /// `next` for the new basis into `c_next` (fused with the update of B^-1).
    fn pivot(&mut self, r: usize, entering: Var, c: &[f64], next: Option<Var>, c_next: &mut [f64]) {
        let n = self.n;
        let cr = c[r];
        debug_assert!(cr != 0.0);
        let leaving = self.basis[r];
        self.u.copy_from_slice(c);
        self.u[r] -= 1.0;
        // w_j leaving: column j of B^-1 was e_r and becomes stored.
        if let Var::W(j) = leaving {
            let s = self.nslots;
            if self.slots.len() < (s + 1) * n {
                // Amortised doubling, capped at the n columns the budget check counted.
                if self.slots.capacity() < (s + 1) * n {
                    let target = (2 * self.slots.capacity()).min(n * n).max((s + 1) * n);
                    self.slots.reserve_exact(target - self.slots.len());
                }
                self.slots.resize((s + 1) * n, 0.0);
            }
            let col = &mut self.slots[s * n..(s + 1) * n];
            col.iter_mut().for_each(|v| *v = 0.0);
            col[r] = 1.0;
            self.slot_eq.push(j);
            self.eq_slot[j] = s;
            self.nslots += 1;
        }
        // w_j entering: its column becomes e_r, a unit vector; drop the slot.
        if let Var::W(j) = entering {
            self.drop_slot(j);
        }
        // Rank-one update B^-1 <- B^-1 - u (row r of B^-1) / c_r, fused with the next column.
        self.nz.clear();
        self.nz.extend((0..n).filter(|&i| self.u[i] != 0.0));
        let sparse_u = self.nz.len() * 4 < n;
        let next_z = match next {
            Some(Var::Z(i)) => Some(i),
            _ => None,
        };
        if next_z.is_some() {
            c_next.iter_mut().for_each(|v| *v = 0.0);
        }
        let (m, slot_eq, u, nz) = (&self.m, &self.slot_eq, &self.u, &self.nz);
        for (s, col) in self.slots.chunks_exact_mut(n).take(self.nslots).enumerate() {
            let f = col[r] / cr;
            match next_z {
                Some(i) => {
                    let g = -m[i * n + slot_eq[s]];
                    if f != 0.0 && sparse_u {
                        for &k in nz {
                            col[k] -= f * u[k];
                        }
                        axpy(c_next, g, col);
                    } else if f != 0.0 {
                        update_accumulate(col, f, u, c_next, g);
                    } else if g != 0.0 {
                        axpy(c_next, g, col);
                    }
                }
                None if f != 0.0 => {
                    if sparse_u {
                        for &k in nz {
                            col[k] -= f * u[k];
                        }
                    } else {
                        axpy(col, -f, u);
                    }
                }
                None => {}
            }
        }
        let theta = self.x[r] / cr;
        axpy(&mut self.x, -theta, &self.u);
        // Basis bookkeeping.
        match leaving {
            Var::W(j) => self.row_of_w[j] = NONE,
            Var::Z(j) => self.row_of_z[j] = NONE,
            Var::Z0 => self.row_of_z0 = NONE,
        }
        match entering {
            Var::W(j) => self.row_of_w[j] = r,
            Var::Z(j) => self.row_of_z[j] = r,
            Var::Z0 => self.row_of_z0 = r,
        }
        self.basis[r] = entering;
        match next {
            Some(Var::Z(i)) => {
                for j in 0..n {
                    let row = self.row_of_w[j];
                    if row != NONE {
                        c_next[row] -= self.m[i * n + j];
                    }
                }
            }
            Some(Var::W(i)) => {
                debug_assert!(self.eq_slot[i] != NONE);
                c_next.copy_from_slice(self.slot(self.eq_slot[i]));
            }
            _ => {}
        }
    }

    fn drop_slot(&mut self, j: usize) {
        let n = self.n;
        let s = self.eq_slot[j];
        debug_assert!(s != NONE);
        let last = self.nslots - 1;
        if s != last {
            self.slots.copy_within(last * n..(last + 1) * n, s * n);
            let moved = self.slot_eq[last];
            self.slot_eq[s] = moved;
            self.eq_slot[moved] = s;
        }
        self.slot_eq.pop();
        self.eq_slot[j] = NONE;
        self.nslots = last;
    }

    /// The first pivot row: z0 enters at max_i(-q_i/d_i); a tie goes to the largest index,
    /// the lexicographic minimum of the rows [q_i | e_i'] / d_i.
    fn first_row(&self) -> usize {
        let mut best = f64::INFINITY;
        let mut qmax: f64 = 0.0;
        for i in 0..self.n {
            best = best.min(self.q[i] / self.d[i]);
            qmax = qmax.max((self.q[i] / self.d[i]).abs());
        }
        let tie = TIE_TOL * qmax;
        (0..self.n).rev().find(|&i| self.q[i] / self.d[i] <= best + tie).unwrap_or(0)
    }

    /// Lexicographic minimum ratio test on the entering column c; None on a ray.
    fn ratio_test(&mut self, c: &[f64], pivot_tol: f64) -> Option<usize> {
        let cmax = c.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        if cmax.is_nan() || cmax <= 0.0 {
            return None;
        }
        let thr = pivot_tol * cmax;
        let mut best = f64::INFINITY;
        let mut xmax: f64 = 0.0;
        for (&ci, &xi) in c.iter().zip(&self.x) {
            xmax = xmax.max(xi.abs());
            if ci > thr {
                best = best.min(xi.max(0.0) / ci);
            }
        }
        if !best.is_finite() {
            return None;
        }
        // Ratios tie when they differ by at most TIE_TOL * xmax / cmax: the round-off of x_i
        // (about TIE_TOL * xmax) over the column's scale. Dividing by c_i itself instead would
        // let a row with a tiny pivot entry tie at a ratio far above the minimum (x_i = 1.2e-10,
        // c_i = 1.4e-10: ratio 0.84 against 0.035 in a Stewart–Trinkle LCP) and the pivot on it
        // would leave the basis infeasible.
        let tie = TIE_TOL * xmax / cmax;
        self.cand.clear();
        for (i, (&ci, &xi)) in c.iter().zip(&self.x).enumerate() {
            if ci > thr && xi.max(0.0) / ci - best <= tie {
                self.cand.push(i);
            }
        }
        if self.cand.len() <= 1 {
            return self.cand.first().copied();
        }
        if self.row_of_z0 != NONE && self.cand.contains(&self.row_of_z0) {
            return Some(self.row_of_z0);
        }
        // Lexicographic minimum of the rows of B^-1 divided by c_i (columns in index order).
        // Entries are compared on the scale of their whole rows, never on the column's own
        // largest entry: an exact zero computed as 1e-16 must tie with an exact zero, even when
        // every entry of that column is round-off (the column-relative test took the round-off
        // for a sign and cycled on Siconos' lcp_tobenna).
        let n = self.n;
        let mut lex = std::mem::take(&mut self.lex);
        lex.clear();
        for &i in &self.cand {
            let s = (0..n).fold(0.0f64, |a, j| a.max((self.binv(i, j) / c[i]).abs()));
            lex.push((i, s));
        }
        for j in 0..n {
            let (mut vmin, mut smin) = (f64::INFINITY, 0.0f64);
            for &(i, s) in &lex {
                let v = self.binv(i, j) / c[i];
                if v < vmin {
                    (vmin, smin) = (v, s);
                }
            }
            lex.retain(|&(i, s)| self.binv(i, j) / c[i] - vmin <= LEX_TOL * s.max(smin));
            if lex.len() == 1 {
                break;
            }
        }
        // Rows of B^-1 are independent, so one remains in exact arithmetic; else the largest pivot.
        let row = lex.iter().map(|&(i, _)| i).fold(None, |acc: Option<usize>, i| match acc {
            Some(b) if c[b] >= c[i] => Some(b),
            _ => Some(i),
        });
        self.lex = lex;
        row
    }

    /// z read off the basis (negative round-off clamped).
    fn z(&self) -> Vec<f64> {
        (0..self.n)
            .map(|k| match self.row_of_z[k] {
                NONE => 0.0,
                row => self.x[row].max(0.0),
            })
            .collect()
    }

    /// One step of iterative refinement of x_B = B^-1 q with the stored inverse.
    fn refine(&mut self) {
        let n = self.n;
        // r = q - B x_B, B x_B = sum over rows of x_r a(basis[r]).
        let mut res = self.q.clone();
        for row in 0..n {
            let xr = self.x[row];
            match self.basis[row] {
                Var::W(i) => res[i] -= xr,
                Var::Z(k) => axpy(&mut res, xr, &self.m[k * n..(k + 1) * n]),
                Var::Z0 => axpy(&mut res, xr, &self.d),
            }
        }
        let mut dx = vec![0.0; n];
        self.apply_inverse(&res, &mut dx);
        for (x, d) in self.x.iter_mut().zip(&dx) {
            *x += d;
        }
    }

    /// The z-part of the ray direction when `entering` has column c with no positive entry.
    fn ray_direction(&self, entering: Var, c: &[f64]) -> Vec<f64> {
        let mut y = vec![0.0; self.n];
        for (row, var) in self.basis.iter().enumerate() {
            if let Var::Z(k) = *var {
                y[k] = -c[row];
            }
        }
        if let Var::Z(j) = entering {
            y[j] = 1.0;
        }
        let ymax = y.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        if ymax > 0.0 {
            y.iter_mut().for_each(|v| *v = v.max(0.0) / ymax);
        }
        y
    }
}

/// y += a x.
#[inline]
fn axpy(y: &mut [f64], a: f64, x: &[f64]) {
    for (yi, &xi) in y.iter_mut().zip(x) {
        *yi += a * xi;
    }
}

/// col -= f u, then acc += g col, in one pass.
#[inline]
fn update_accumulate(col: &mut [f64], f: f64, u: &[f64], acc: &mut [f64], g: f64) {
    for ((ci, &ui), ai) in col.iter_mut().zip(u).zip(acc.iter_mut()) {
        let v = *ci - f * ui;
        *ci = v;
        *ai += g * v;
    }
}

fn solve_lemke(
    lcp: &Lcp,
    d: Vec<f64>,
    pivot_tol: f64,
    ctx: &mut SolveContext<'_>,
) -> Result<Outcome, SolveError> {
    run_steps(lcp, ctx, |lcp, ctx| {
        let n = lcp.n();
        if lcp.q().iter().all(|&v| v >= 0.0) {
            let mut o = Outcome::new(vec![0.0; n], Status::Solved, 0);
            o.pivots = Some(0);
            return Ok(Start::Done(o));
        }
        let t = Tableau::new(lcp, d, ctx.memory_budget)?;
        let mut c = vec![0.0; n];
        t.column_of(Var::Z0, &mut c);
        let row = Some(t.first_row());
        Ok(Start::Run(LemkeState {
            t,
            c,
            c_next: vec![0.0; n],
            entering: Var::Z0,
            row,
            pivots: 0,
            pivot_tol,
        }))
    })
}

/// The running state of Lemke's method: the tableau, the entering variable with its column
/// `c`, and the pivot row (`None` until the next ratio test).
struct LemkeState {
    t: Tableau,
    c: Vec<f64>,
    c_next: Vec<f64>,
    entering: Var,
    row: Option<usize>,
    pivots: usize,
    pivot_tol: f64,
}

impl LemkeState {
    /// z_0 left the basis: the complementary basis solves the LCP. Iterative refinement of
    /// B^-1 is applied while it improves the merit (or until every row holds at its scale).
    fn solved(&mut self, lcp: &Lcp, ctx: &mut SolveContext<'_>) -> Outcome {
        let t = &mut self.t;
        let mut z = t.z();
        let (w, merit) = ctx.evaluate(lcp, &z);
        let mut best = merit.residual;
        let mut done = ctx.converged(lcp, &z, &w, best);
        for _ in 0..REFINE_STEPS {
            if done {
                break;
            }
            t.refine();
            let zr = t.z();
            let (wr, merit) = ctx.evaluate(lcp, &zr);
            ctx.matvecs += 1; // the residual product inside `refine`
                              // Refine while the norm improves, or while it stays within tolerance and the rows
                              // do not yet hold each at its own scale.
            if merit.residual < best || (merit.residual <= ctx.tol && !done) {
                done = ctx.converged(lcp, &zr, &wr, merit.residual);
                best = best.min(merit.residual);
                z = zr;
            } else {
                break;
            }
        }
        Outcome::new(z, Status::Solved, self.pivots)
    }
}

impl<'c> Steps<SolveContext<'c>> for LemkeState {
    fn policy(&self) -> Policy {
        Policy { divergence_hint: " (the tableau lost its accuracy)", ..Policy::named("pivot") }
    }

    fn z(&self) -> Cow<'_, [f64]> {
        Cow::Owned(self.t.z())
    }

    /// One pivot: the ratio test picks the leaving row (a secondary ray ends the run), the
    /// entering variable takes its place, and the complement of the leaving one enters next.
    fn step(&mut self, lcp: &Lcp, ctx: &mut SolveContext<'c>, _: usize) -> StepResult {
        let r = match self.row.take() {
            Some(r) => r,
            None => match self.t.ratio_test(&self.c, self.pivot_tol) {
                Some(r) => r,
                None => {
                    let y = self.t.ray_direction(self.entering, &self.c);
                    let mut o = Outcome::new(self.t.z(), Status::RayTermination, self.pivots);
                    if verify_farkas(lcp, &y, FARKAS_TOL).is_ok() {
                        o.status = Status::Infeasible;
                        o.certificate = Some(Certificate::Farkas { y });
                    }
                    return Ok(Step::Done(o));
                }
            },
        };
        let leaving = self.t.basis[r];
        let next = leaving.complement();
        self.t.pivot(r, self.entering, &self.c, next, &mut self.c_next);
        self.pivots += 1;
        let Some(next) = next else {
            return Ok(Step::Done(self.solved(lcp, ctx)));
        };
        std::mem::swap(&mut self.c, &mut self.c_next);
        self.entering = next;
        let finite = self.c.iter().chain(&self.t.x).all(|v| v.is_finite());
        let zmin = self.t.x.iter().fold(f64::INFINITY, |a, &v| a.min(v));
        Ok(Step::unchecked(if finite { zmin } else { f64::NAN }))
    }

    fn pivots(&self) -> Option<usize> {
        Some(self.pivots)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate;
    use crate::solver::SolveOptions;
    use crate::{LcpSolver, Registry, SolverParams, SpecError};

    fn solve(lcp: &Lcp, params: LemkeParams) -> crate::Solution {
        Lemke::new(params).solve(lcp, &SolveOptions::default(), None).expect("set up")
    }

    fn dense(rows: &[&[f64]], q: &[f64]) -> Lcp {
        let rows: Vec<Vec<f64>> = rows.iter().map(|r| r.to_vec()).collect();
        Lcp::from_dense_rows(&rows, q.to_vec()).expect("valid")
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * (1.0 + b.abs())
    }

    #[test]
    fn lexicographic_rule_breaks_a_tie_on_rows_of_the_inverse() {
        // M = I, q = -e: the first step ties every row (largest index wins); then z_3 enters
        // with ratios (0, 0, 1), and rows 1 and 2 of B^-1, (1, 0, -1) and (0, 1, -1), decide
        // for row 2 (index 1).
        let lcp = dense(&[&[1.0, 0.0, 0.0], &[0.0, 1.0, 0.0], &[0.0, 0.0, 1.0]], &[-1.0; 3]);
        let mut t = Tableau::new(&lcp, vec![1.0; 3], u64::MAX).expect("fits");
        let (mut c, mut fused, mut direct) = (vec![0.0; 3], vec![0.0; 3], vec![0.0; 3]);
        t.column_of(Var::Z0, &mut c);
        let r = t.first_row();
        assert_eq!(r, 2);
        t.pivot(r, Var::Z0, &c, Some(Var::Z(2)), &mut fused);
        t.column_of(Var::Z(2), &mut direct);
        for (a, b) in fused.iter().zip(&direct) {
            assert!(close(*a, *b), "fused {fused:?} vs direct {direct:?}");
        }
        assert_eq!(t.ratio_test(&fused, DEFAULT_PIVOT_TOL), Some(1));
        let sol = solve(&lcp, LemkeParams::default());
        assert_eq!(sol.status, Status::Solved);
        assert!(sol.z.iter().all(|v| close(*v, 1.0)), "z = {:?}", sol.z);
    }

    #[test]
    fn seed_a1_two_variables() {
        let lcp = dense(&[&[2.0, 1.0], &[1.0, 2.0]], &[-1.0, 0.0]);
        let sol = solve(&lcp, LemkeParams::default());
        assert_eq!(sol.status, Status::Solved);
        assert!(close(sol.z[0], 0.5) && close(sol.z[1], 0.0), "z = {:?}", sol.z);
        assert!(close(sol.w[1], 0.5));
    }

    #[test]
    fn seed_a2_infeasible_with_certificate() {
        let lcp = dense(&[&[-1.0]], &[-1.0]);
        let sol = solve(&lcp, LemkeParams::default());
        assert_eq!(sol.status, Status::Infeasible, "note {:?}", sol.note);
        assert!(matches!(sol.certificate, Some(Certificate::Farkas { .. })));
    }

    #[test]
    fn seed_a4_coupled_contacts() {
        let lcp = dense(&[&[2.0, 1.0], &[1.0, 2.0]], &[-3.0, -3.0]);
        let sol = solve(&lcp, LemkeParams::default());
        assert_eq!(sol.status, Status::Solved);
        assert!(close(sol.z[0], 1.0) && close(sol.z[1], 1.0), "z = {:?}", sol.z);
    }

    #[test]
    fn nonnegative_q_needs_no_pivot() {
        let lcp = dense(&[&[1.0, 0.0], &[0.0, 1.0]], &[1.0, 0.0]);
        let sol = solve(&lcp, LemkeParams::default());
        assert_eq!(sol.status, Status::Solved);
        assert_eq!(sol.pivots, Some(0));
    }

    #[test]
    fn murty_exponential_takes_two_to_the_n_pivots() {
        for n in 1..=12 {
            let lcp = generate::murty_exponential(n);
            let sol = solve(&lcp, LemkeParams::default());
            assert_eq!(sol.status, Status::Solved, "n = {n}");
            assert_eq!(sol.pivots, Some(1usize << n), "n = {n}");
            let top = 2f64.powi(n as i32);
            assert!(close(sol.z[0], top), "n = {n}: z0 = {}", sol.z[0]);
            assert!(sol.z[1..].iter().all(|v| v.abs() <= 1e-12 * top), "n = {n}");
        }
    }

    #[test]
    fn pivot_limit_gives_max_iterations() {
        let lcp = generate::murty_exponential(8);
        let s = Registry::builtin().build("lemke:max_iter=10").expect("spec");
        let sol = s.solve(&lcp, &SolveOptions::default(), None).expect("runs");
        assert_eq!(sol.status, Status::MaxIterations);
        assert_eq!(sol.pivots, Some(10));
    }

    #[test]
    fn custom_covering_vector_solves_and_is_checked() {
        let lcp = generate::random_spd(12, 3);
        let d: Vec<f64> = (0..12).map(|i| 1.0 + i as f64).collect();
        let sol = solve(&lcp, LemkeParams { covering: Some(d), ..LemkeParams::default() });
        assert_eq!(sol.status, Status::Solved);
        assert!(sol.residual() <= 1e-10);
        let bad = LemkeParams { covering: Some(vec![1.0; 3]), ..LemkeParams::default() };
        let err = Lemke::new(bad).solve(&lcp, &SolveOptions::default(), None).unwrap_err();
        assert!(matches!(err, SolveError::InvalidOption(_)));
        let mut neg = vec![1.0; 12];
        neg[4] = 0.0;
        let bad = LemkeParams { covering: Some(neg), ..LemkeParams::default() };
        let err = Lemke::new(bad).solve(&lcp, &SolveOptions::default(), None).unwrap_err();
        assert!(matches!(err, SolveError::Parameter(_)), "{err}");
        assert!(err.to_string().contains("covering"), "{err}");
    }

    #[test]
    fn spec_strings_parse_and_reject() {
        let mut r = Registry::empty();
        r.add(Lemke::entry());
        assert_eq!(r.build("lemke").expect("builds").name(), "lemke");
        let s = r.build("lemke:covering=e,max_iter=50").expect("builds");
        assert_eq!(s.name(), "lemke:max_iter=50");
        assert!(matches!(r.build("lemke:covering=2"), Err(SpecError::BadValue { .. })));
        assert!(matches!(r.build("lemke:omega=1"), Err(SpecError::UnknownKey { .. })));
        assert!(matches!(r.build("lemke:pivot_tol=2"), Err(SpecError::BadValue { .. })));
        let mut p = LemkeParams::default();
        assert!(matches!(p.set("omega", "1"), Err(SpecError::UnknownKey { .. })));
    }

    #[test]
    fn random_spd_is_solved() {
        for (n, seed) in [(5, 1), (30, 2), (120, 3)] {
            let lcp = generate::random_spd(n, seed);
            let sol = solve(&lcp, LemkeParams::default());
            assert_eq!(sol.status, Status::Solved, "n = {n}: {:?}", sol.note);
            assert!(sol.residual() <= 1e-10, "n = {n}: {}", sol.residual());
        }
    }

    #[test]
    fn sparse_storage_gives_the_same_answer() {
        let lcp = generate::random_p_matrix(15, 9);
        let rows = lcp.dense_rows();
        let (mut ri, mut ci, mut vi) = (Vec::new(), Vec::new(), Vec::new());
        for (i, row) in rows.iter().enumerate() {
            for (j, &v) in row.iter().enumerate() {
                ri.push(i);
                ci.push(j);
                vi.push(v);
            }
        }
        let sparse = Lcp::from_coo(15, &ri, &ci, &vi, lcp.q().to_vec()).expect("valid");
        let a = solve(&lcp, LemkeParams::default());
        let b = solve(&sparse, LemkeParams::default());
        assert_eq!(b.status, Status::Solved);
        for (x, y) in a.z.iter().zip(&b.z) {
            assert!(close(*x, *y));
        }
    }
}
