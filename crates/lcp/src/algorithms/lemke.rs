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
//! Two ways of holding the basis inverse $B^{-1}$ of the equation $Iw - Mz - dz_0 = q$, chosen
//! by the `basis` key (`dense`, `sparse`, `auto`), follow the same path: the same ratio test,
//! the same lexicographic rule, the same pivots (a unit test compares them).
//!
//! **Dense** (`basis=dense`): $B^{-1}$ is kept explicitly, in product form on the columns that
//! are not unit vectors: column $j$ of $B^{-1}$ is the unit vector of $w_j$'s row whenever
//! $w_j$ is basic, so only the $k$ columns with $w_j$ nonbasic are stored (contiguous,
//! column-major). A pivot is one rank-one update of those $k$ columns, fused with the
//! computation of the next entering column, $O(nk)$ work with no refactorisation. The tableau
//! is M column-major plus up to n stored columns of $B^{-1}$, 2 n^2 entries at worst. That is
//! checked against the memory budget ([`crate::memory`]) before anything is allocated, so a
//! large M is refused with [`SolveError::Memory`] instead of an allocation abort (when q >= 0
//! the answer z = 0 needs no tableau and is returned first).
//!
//! **Sparse** (`basis=sparse`): B itself is factorised (faer's sparse LU with its fill-reducing
//! ordering) and each pivot appends one eta column (the product form of the inverse); every
//! entering column is one FTRAN, every row of $B^{-1}$ the lexicographic test needs one BTRAN.
//! B is factorised afresh every `refactor` pivots (default 30), after a pivot on an entry
//! below 1e-6 of its column's largest, before a ray is declared and before a pivot on such an
//! entry is taken; each fresh factorisation recomputes $x_B = B^{-1} q$, and one that finds
//! $x_B$ below $-10^{-8} \max(1, \max|x_B|)$ ends the run `numerical_failure` (the path left
//! the feasible bases). The LU runs sequentially ([`crate::linalg::sparse_lu`]). Memory is that of M,
//! the factors and the eta file, never n^2; each factorisation is counted in
//! `factorizations`. `basis=auto` (the default) takes it for a sparse M with
//! 2000 <= n <= 20 000, or below 2000 when the dense tableau would not fit the budget
//! ([`uses_sparse_basis`]); docs/performance.md has the measurements behind the bounds.
//!
//! Rows of $[x_B \mid B^{-1}]$ are lexicographically positive throughout, so degenerate
//! problems cannot cycle (ties in the ratio test are broken on the rows of $B^{-1}[q \mid I]$,
//! the standard lexico-Lemke; a tie that includes $z_0$'s row is resolved by letting $z_0$
//! leave, which ends the run). Lexicographic entries tie when they differ by at most 1e-12
//! times the largest entry of the rows compared, so round-off in an exactly-zero column of
//! $B^{-1}$ is not read as a sign (the cause of cycling on Siconos' `lcp_tobenna`, see
//! `tests/issue_lemke_tobenna.rs`). In the ratio test itself, ratios tie when they differ by
//! at most 1e-12 max|x_B| / max|c| (never by a width divided by a tiny pivot entry, which let a
//! far larger ratio tie and broke feasibility: `tests/issue_lemke_tiny_pivot_tie.rs`). Pivot
//! entries below `pivot_tol` times the largest entry of the column are treated as zero. A
//! basic value that round-off left below zero counts as zero in the ratio test, and with the
//! sparse basis also in the step of the pivot on its row (`step_length`; dividing it by a small
//! pivot entry once gave a step of -62 and an infeasible basis on a frictional packing).
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

mod sparse;

use crate::memory::{self, MemoryError};
use crate::params::ParamValue;
use sparse::SparseTableau;
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
/// Default number of pivots between fresh factorisations of the sparse basis.
pub const DEFAULT_REFACTOR: usize = 30;
/// `basis=auto` takes the sparse basis for a sparse M from this n on (below it the dense
/// tableau's O(n k) pivot is cheaper than a sparse FTRAN and BTRAN; docs/performance.md).
pub const SPARSE_BASIS_MIN_N: usize = 2000;
/// `basis=auto` takes the sparse basis up to this n only: Lemke takes at least one pivot per
/// nonzero of z, each a sparse FTRAN (and BTRANs on ties) through an LU whose fill grows with
/// n. Measured with 4-facet friction (docs/performance.md): the 2D hexagonal packing solved at
/// n = 15 988 in 11–14 s and at n = 39 676 in 98 s (13 399 pivots), but the 3D FCC pile at
/// n = 23 418 was not solved in 900 s (72 619 pivots). Above it the dense tableau is asked
/// for, and refused by the memory budget with the bytes (`basis=sparse` still forces the
/// sparse basis).
pub const SPARSE_BASIS_MAX_N: usize = 20_000;

/// How the basis inverse is held (`basis` key).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LemkeBasis {
    /// Dense stored columns of B^-1 (2 n^2 doubles at worst, checked against the budget).
    Dense,
    /// Sparse LU of B with an eta file, refactorised every `refactor` pivots.
    Sparse,
    /// Sparse for a sparse M with n <= [`SPARSE_BASIS_MAX_N`] and either n >=
    /// [`SPARSE_BASIS_MIN_N`] or a dense tableau over the memory budget; dense otherwise.
    Auto,
}
crate::param_enum!(LemkeBasis { Dense => "dense", Sparse => "sparse", Auto => "auto" });

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
        /// basis inverse: dense stored columns, sparse LU with etas, or auto (see the module docs)
        basis: LemkeBasis = LemkeBasis::Auto;
        /// pivots between fresh sparse factorisations of the basis (sparse basis only)
        refactor: usize = DEFAULT_REFACTOR, valid if |v| v >= 1 => ">= 1";
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
        solve_lemke(lcp, d, &self.params, ctx)
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
            let hint = if lcp.is_sparse() {
                "; lemke:basis=sparse holds B as a sparse LU instead"
            } else {
                ""
            };
            format!("lemke: dense tableau (M and up to n columns of B^-1, n = {n}{hint})")
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
        // The plain quotient (not `step_length`): on the FCC pile with 4-facet friction
        // (n = 6702) the dense tableau solves with it (5371 pivots) and ends in a ray at pivot
        // 5286 with the zero step, a path decided by round-off either way (docs/performance.md).
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

    /// Lexicographic minimum ratio test on the entering column c; None on a ray.
    fn ratio_test(&mut self, c: &[f64], pivot_tol: f64) -> Option<usize> {
        if let Some(decided) = ratio_rows(c, &self.x, pivot_tol, self.row_of_z0, &mut self.cand) {
            return decided;
        }
        let mut lex = std::mem::take(&mut self.lex);
        let row =
            inverse_row_ties(&self.cand, c, self.n, &mut lex, |k, j| self.binv(self.cand[k], j));
        self.lex = lex;
        row
    }

    /// z read off the basis (negative round-off clamped).
    fn z(&self) -> Vec<f64> {
        z_of(&self.row_of_z, &self.x)
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
}

/// The step θ = x_r / c_r of a pivot on row r of the sparse basis, with a basic value below
/// zero taken as zero where c_r > 0, as the ratio test takes it ([`tied_rows`]). Such an x_r is
/// the round-off of a degenerate row, and dividing it by a small pivot entry gave a negative
/// step that moved every row with c_i < 0 below zero: on the 2D hexagonal packing with 4-facet
/// friction at n = 39 676 a pivot with x_r = -2.6e-10 and c_r = 4.1e-12 (max |c| = 2) gave
/// θ = -62 and left the basis infeasible (min x_B = -585 at the next factorisation). The first
/// pivot (z_0 entering on the row of the most negative q_i, c_r < 0) divides as it is.
fn step_length(x_r: f64, c_r: f64) -> f64 {
    if c_r > 0.0 {
        x_r.max(0.0) / c_r
    } else {
        x_r / c_r
    }
}

/// The ratio test up to the lexicographic rule: `Some(None)` on a secondary ray, `Some(row)`
/// when one row has the minimum ratio or z0's row is among the tied ones (z0 leaves, ending
/// the run), `None` when the rows in `cand` (two or more) tie and the lexicographic rule
/// decides.
fn ratio_rows(
    c: &[f64],
    x: &[f64],
    pivot_tol: f64,
    row_of_z0: usize,
    cand: &mut Vec<usize>,
) -> Option<Option<usize>> {
    if !tied_rows(c, x, pivot_tol, cand) {
        return Some(None);
    }
    if cand.len() <= 1 {
        return Some(cand.first().copied());
    }
    if row_of_z0 != NONE && cand.contains(&row_of_z0) {
        return Some(Some(row_of_z0));
    }
    None
}

/// The rows tied at the minimum ratio x_i / c_i over c_i > pivot_tol * max|c|, into `cand`;
/// false on a secondary ray (no such row). Ratios tie when they differ by at most
/// TIE_TOL * max|x| / max|c|: the round-off of x_i (about TIE_TOL * max|x|) over the column's
/// scale. Dividing by c_i itself instead would let a row with a tiny pivot entry tie at a ratio
/// far above the minimum (x_i = 1.2e-10, c_i = 1.4e-10: ratio 0.84 against 0.035 in a
/// Stewart–Trinkle LCP) and the pivot on it would leave the basis infeasible.
fn tied_rows(c: &[f64], x: &[f64], pivot_tol: f64, cand: &mut Vec<usize>) -> bool {
    cand.clear();
    let cmax = c.iter().fold(0.0f64, |a, v| a.max(v.abs()));
    if cmax.is_nan() || cmax <= 0.0 {
        return false;
    }
    let thr = pivot_tol * cmax;
    let mut best = f64::INFINITY;
    let mut xmax: f64 = 0.0;
    for (&ci, &xi) in c.iter().zip(x) {
        xmax = xmax.max(xi.abs());
        if ci > thr {
            best = best.min(xi.max(0.0) / ci);
        }
    }
    if !best.is_finite() {
        return false;
    }
    let tie = TIE_TOL * xmax / cmax;
    for (i, (&ci, &xi)) in c.iter().zip(x).enumerate() {
        if ci > thr && xi.max(0.0) / ci - best <= tie {
            cand.push(i);
        }
    }
    true
}

/// The lexicographic minimum among the tied rows `cand` (at least two) of the rows of B^-1
/// divided by c_i, columns in index order; `entry(k, j)` is entry j of the row of B^-1 of
/// `cand[k]`.
///
/// Entries are compared on the scale of their whole rows, never on the column's own largest
/// entry: an exact zero computed as 1e-16 must tie with an exact zero, even when every entry of
/// that column is round-off (the column-relative test took the round-off for a sign and cycled
/// on Siconos' lcp_tobenna).
fn inverse_row_ties(
    cand: &[usize],
    c: &[f64],
    n: usize,
    lex: &mut Vec<(usize, f64)>,
    entry: impl Fn(usize, usize) -> f64,
) -> Option<usize> {
    lex.clear();
    for (k, &i) in cand.iter().enumerate() {
        let s = (0..n).fold(0.0f64, |a, j| a.max((entry(k, j) / c[i]).abs()));
        lex.push((k, s));
    }
    for j in 0..n {
        let (mut vmin, mut smin) = (f64::INFINITY, 0.0f64);
        for &(k, s) in lex.iter() {
            let v = entry(k, j) / c[cand[k]];
            if v < vmin {
                (vmin, smin) = (v, s);
            }
        }
        lex.retain(|&(k, s)| entry(k, j) / c[cand[k]] - vmin <= LEX_TOL * s.max(smin));
        if lex.len() == 1 {
            break;
        }
    }
    // Rows of B^-1 are independent, so one remains in exact arithmetic; else the largest pivot.
    lex.iter().map(|&(k, _)| cand[k]).fold(None, |acc: Option<usize>, i| match acc {
        Some(b) if c[b] >= c[i] => Some(b),
        _ => Some(i),
    })
}

/// z read off the basic values (negative round-off clamped).
fn z_of(row_of_z: &[usize], x: &[f64]) -> Vec<f64> {
    row_of_z
        .iter()
        .map(|&row| match row {
            NONE => 0.0,
            row => x[row].max(0.0),
        })
        .collect()
}

/// The z-part of the ray direction when `entering` has column c with no positive entry,
/// scaled to max 1 with negative round-off clamped.
fn ray_direction(basis: &[Var], entering: Var, c: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; basis.len()];
    for (row, var) in basis.iter().enumerate() {
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

/// The basis of a run: the dense stored-columns inverse or the sparse LU with etas.
enum Basis {
    Dense(Box<Tableau>),
    Sparse(Box<SparseTableau>),
}

impl Basis {
    fn var(&self, r: usize) -> Var {
        match self {
            Basis::Dense(t) => t.basis[r],
            Basis::Sparse(t) => t.basis[r],
        }
    }

    fn x(&self) -> &[f64] {
        match self {
            Basis::Dense(t) => &t.x,
            Basis::Sparse(t) => &t.x,
        }
    }

    fn z(&self) -> Vec<f64> {
        match self {
            Basis::Dense(t) => t.z(),
            Basis::Sparse(t) => z_of(&t.row_of_z, &t.x),
        }
    }

    fn ratio_test(&mut self, c: &[f64], pivot_tol: f64) -> Option<usize> {
        match self {
            Basis::Dense(t) => t.ratio_test(c, pivot_tol),
            Basis::Sparse(t) => t.ratio_test(c, pivot_tol),
        }
    }

    fn ray_direction(&self, entering: Var, c: &[f64]) -> Vec<f64> {
        match self {
            Basis::Dense(t) => ray_direction(&t.basis, entering, c),
            Basis::Sparse(t) => ray_direction(&t.basis, entering, c),
        }
    }

    fn pivot(
        &mut self,
        r: usize,
        entering: Var,
        c: &[f64],
        next: Option<Var>,
        c_next: &mut [f64],
    ) -> Result<(), String> {
        match self {
            Basis::Dense(t) => {
                t.pivot(r, entering, c, next, c_next);
                Ok(())
            }
            Basis::Sparse(t) => t.pivot(r, entering, c, next, c_next),
        }
    }

    /// A fresh factorisation and entering column before a decision that round-off could have
    /// made (a ray, a small pivot); false when there is nothing fresher (the dense inverse, or
    /// no pivot since the last factorisation).
    fn refresh(&mut self, entering: Var, c: &mut [f64]) -> Result<bool, String> {
        match self {
            Basis::Dense(_) => Ok(false),
            Basis::Sparse(t) => t.refresh(entering, c),
        }
    }

    fn refine(&mut self) {
        match self {
            Basis::Dense(t) => t.refine(),
            Basis::Sparse(t) => t.refine(),
        }
    }

    fn take_factorizations(&mut self) -> usize {
        match self {
            Basis::Dense(_) => 0,
            Basis::Sparse(t) => t.take_factorizations(),
        }
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

/// Which basis a run uses (see [`LemkeBasis::Auto`]).
pub fn uses_sparse_basis(lcp: &Lcp, choice: LemkeBasis, budget: u64) -> bool {
    match choice {
        LemkeBasis::Dense => false,
        LemkeBasis::Sparse => true,
        LemkeBasis::Auto => {
            let n = lcp.n();
            lcp.is_sparse()
                && n <= SPARSE_BASIS_MAX_N
                && (n >= SPARSE_BASIS_MIN_N || !memory::dense_fits(lcp, 2, budget))
        }
    }
}

fn solve_lemke(
    lcp: &Lcp,
    d: Vec<f64>,
    params: &LemkeParams,
    ctx: &mut SolveContext<'_>,
) -> Result<Outcome, SolveError> {
    let pivot_tol = params.pivot_tol;
    run_steps(lcp, ctx, |lcp, ctx| {
        let n = lcp.n();
        if lcp.q().iter().all(|&v| v >= 0.0) {
            let mut o = Outcome::new(vec![0.0; n], Status::Solved, 0);
            o.pivots = Some(0);
            return Ok(Start::Done(o));
        }
        let row = Some(first_row(lcp.q(), &d));
        let mut c = vec![0.0; n];
        let t = if uses_sparse_basis(lcp, params.basis, ctx.memory_budget) {
            let mut t = match SparseTableau::new(lcp, d, params.refactor) {
                Ok(t) => t,
                Err(e) => {
                    let mut o = Outcome::new(vec![0.0; n], Status::NumericalFailure, 0);
                    o.note = Some(e);
                    return Ok(Start::Done(o));
                }
            };
            ctx.factorizations += t.take_factorizations();
            t.column_of(Var::Z0, &mut c);
            Basis::Sparse(Box::new(t))
        } else {
            let t = Tableau::new(lcp, d, ctx.memory_budget)?;
            t.column_of(Var::Z0, &mut c);
            Basis::Dense(Box::new(t))
        };
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

/// The first pivot row: z0 enters at max_i(-q_i/d_i); a tie goes to the largest index,
/// the lexicographic minimum of the rows [q_i | e_i'] / d_i.
fn first_row(q: &[f64], d: &[f64]) -> usize {
    let mut best = f64::INFINITY;
    let mut qmax: f64 = 0.0;
    for (qi, di) in q.iter().zip(d) {
        best = best.min(qi / di);
        qmax = qmax.max((qi / di).abs());
    }
    let tie = TIE_TOL * qmax;
    (0..q.len()).rev().find(|&i| q[i] / d[i] <= best + tie).unwrap_or(0)
}

/// The running state of Lemke's method: the basis, the entering variable with its column
/// `c`, and the pivot row (`None` until the next ratio test).
struct LemkeState {
    t: Basis,
    c: Vec<f64>,
    c_next: Vec<f64>,
    entering: Var,
    row: Option<usize>,
    pivots: usize,
    pivot_tol: f64,
}

impl LemkeState {
    /// z_0 left the basis: the complementary basis solves the LCP. Iterative refinement of
    /// x_B is applied while it improves the merit (or until every row holds at its scale).
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

    /// The ratio test on the entering column; on a ray, or on a pivot entry below
    /// [`sparse::SMALL_PIVOT`] times the column's largest, the sparse basis is factorised
    /// afresh and the test repeated. Err ends the run (a failed factorisation).
    fn pivot_row(&mut self, ctx: &mut SolveContext<'_>) -> Result<Option<usize>, String> {
        let mut r = self.t.ratio_test(&self.c, self.pivot_tol);
        let small = |c: &[f64], r: usize| {
            let cmax = c.iter().fold(0.0f64, |a, v| a.max(v.abs()));
            c[r].abs() < sparse::SMALL_PIVOT * cmax
        };
        let doubtful = match r {
            None => true,
            Some(r) => small(&self.c, r),
        };
        if doubtful && self.t.refresh(self.entering, &mut self.c)? {
            ctx.factorizations += self.t.take_factorizations();
            r = self.t.ratio_test(&self.c, self.pivot_tol);
        }
        Ok(r)
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
        let failed = |e: String| Step::End { status: Status::NumericalFailure, note: Some(e) };
        let r = match self.row.take() {
            Some(r) => r,
            None => match self.pivot_row(ctx) {
                Err(e) => return Ok(failed(e)),
                Ok(Some(r)) => r,
                Ok(None) => {
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
        let leaving = self.t.var(r);
        let next = leaving.complement();
        let pivoted = self.t.pivot(r, self.entering, &self.c, next, &mut self.c_next);
        ctx.factorizations += self.t.take_factorizations();
        if let Err(e) = pivoted {
            return Ok(failed(e));
        }
        self.pivots += 1;
        let Some(next) = next else {
            return Ok(Step::Done(self.solved(lcp, ctx)));
        };
        std::mem::swap(&mut self.c, &mut self.c_next);
        self.entering = next;
        let x = self.t.x();
        let finite = self.c.iter().chain(x).all(|v| v.is_finite());
        let zmin = x.iter().fold(f64::INFINITY, |a, &v| a.min(v));
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
        let r = first_row(lcp.q(), &[1.0; 3]);
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
        let s = r.build("lemke:basis=sparse,refactor=5").expect("builds");
        assert_eq!(s.name(), "lemke:basis=sparse,refactor=5");
        assert!(matches!(r.build("lemke:refactor=0"), Err(SpecError::BadValue { .. })));
        assert!(matches!(r.build("lemke:basis=lu"), Err(SpecError::BadValue { .. })));
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

    /// A sparse nonsymmetric tridiagonal M (P-matrix: diagonally dominant) with mixed q.
    fn sparse_tridiagonal(n: usize) -> Lcp {
        let q = (0..n).map(|i| if i % 4 == 1 { 0.5 } else { -1.0 - (i % 5) as f64 }).collect();
        generate::tridiagonal(|i| 4.0 + (i % 3) as f64, -1.0, 1.5, q)
    }

    #[test]
    fn the_sparse_basis_follows_the_dense_path() {
        let mut problems = vec![
            ("spd", generate::random_spd(60, 3)),
            ("p", generate::random_p_matrix(40, 9)),
            ("murty", generate::murty_exponential(7)),
            (
                "identity",
                dense(&[&[1.0, 0.0, 0.0], &[0.0, 1.0, 0.0], &[0.0, 0.0, 1.0]], &[-1.0; 3]),
            ),
            ("tridiagonal", sparse_tridiagonal(300)),
        ];
        problems.push(("infeasible", dense(&[&[-1.0]], &[-1.0])));
        for (name, lcp) in &problems {
            let reference =
                solve(lcp, LemkeParams { basis: LemkeBasis::Dense, ..LemkeParams::default() });
            assert!(reference.factorizations == 0, "{name}: the dense tableau factorises nothing");
            for refactor in [1, 7, DEFAULT_REFACTOR, 1000] {
                let params =
                    LemkeParams { basis: LemkeBasis::Sparse, refactor, ..LemkeParams::default() };
                let sol = solve(lcp, params);
                let tag = format!("{name}, refactor {refactor}");
                assert_eq!(sol.status, reference.status, "{tag}: {:?}", sol.note);
                assert_eq!(sol.pivots, reference.pivots, "{tag}");
                assert!(sol.factorizations >= 1, "{tag}");
                let scale = 1.0 + reference.z.iter().fold(0.0f64, |a, v| a.max(v.abs()));
                for (a, b) in sol.z.iter().zip(&reference.z) {
                    assert!(
                        (a - b).abs() <= 1e-9 * scale,
                        "{tag}: {:?} vs {:?}",
                        sol.z,
                        reference.z
                    );
                }
                assert_eq!(sol.certificate.is_some(), reference.certificate.is_some(), "{tag}");
            }
        }
    }

    #[test]
    fn auto_basis_solves_a_sparse_problem_the_dense_tableau_would_refuse() {
        let lcp = sparse_tridiagonal(300);
        // 2 * 300^2 * 8 = 1.44 MB for the dense tableau; the budget allows a tenth of it.
        let tight = SolveOptions { memory_budget: Some(144_000), ..SolveOptions::default() };
        assert!(uses_sparse_basis(&lcp, LemkeBasis::Auto, 144_000));
        assert!(!uses_sparse_basis(&lcp, LemkeBasis::Auto, 1 << 30));
        let sol = Lemke::new(LemkeParams::default()).solve(&lcp, &tight, None).expect("fits");
        assert_eq!(sol.status, Status::Solved, "{:?}", sol.note);
        assert!(sol.residual() <= 1e-10);
        let dense_only = LemkeParams { basis: LemkeBasis::Dense, ..LemkeParams::default() };
        match Lemke::new(dense_only).solve(&lcp, &tight, None) {
            Err(SolveError::Memory(m)) => {
                assert_eq!(m.bytes, 1_440_000);
                assert!(m.what.contains("lemke:basis=sparse"), "{}", m.what);
            }
            other => panic!("expected SolveError::Memory, got {other:?}"),
        }
        // A dense M never takes the sparse basis by itself, and the bounds hold on n.
        assert!(!uses_sparse_basis(&generate::random_spd(30, 1), LemkeBasis::Auto, 1));
        let large = sparse_tridiagonal(SPARSE_BASIS_MAX_N + 1);
        assert!(!uses_sparse_basis(&large, LemkeBasis::Auto, 1));
        assert!(uses_sparse_basis(&large, LemkeBasis::Sparse, 1));
        assert!(uses_sparse_basis(
            &sparse_tridiagonal(SPARSE_BASIS_MIN_N),
            LemkeBasis::Auto,
            1 << 40
        ));
    }

    #[test]
    fn a_degenerate_row_below_zero_pivots_with_a_zero_step() {
        // Sparse basis. M = I, q = -e: z0 enters on row 2 and leaves rows 0 and 1 degenerate
        // (x = 0). Row 1 then carries a round-off x_1 = -1e-10, and the entering column has a
        // small positive entry there: the ratio test takes row 1 (ratio 0), and the step must
        // be 0, not x_1 / c_1 = -5e-5, which would push row 0 (c_0 < 0) to -5e-5.
        let lcp = dense(&[&[1.0, 0.0, 0.0], &[0.0, 1.0, 0.0], &[0.0, 0.0, 1.0]], &[-1.0; 3]);
        let mut t = SparseTableau::new(&lcp, vec![1.0; 3], 1000).expect("factorises");
        let mut c = vec![0.0; 3];
        let mut c_next = vec![0.0; 3];
        t.column_of(Var::Z0, &mut c);
        let r = first_row(lcp.q(), &[1.0; 3]);
        t.pivot(r, Var::Z0, &c, None, &mut c_next).expect("pivots");
        assert_eq!(t.x, [0.0, 0.0, 1.0]);
        t.x[1] = -1e-10;
        let c = [-1.0, 2e-6, 0.5];
        assert_eq!(t.ratio_test(&c, DEFAULT_PIVOT_TOL), Some(1));
        t.pivot(1, Var::Z(2), &c, None, &mut c_next).expect("pivots");
        assert!(t.x.iter().all(|&v| v >= 0.0), "x = {:?}", t.x);
        assert_eq!(t.x[1], 0.0, "the entering variable takes the zero step");
        assert_eq!(step_length(-1e-10, 2e-6), 0.0);
        assert_eq!(step_length(-2.0, -1.0), 2.0);
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
