//! Row access to M and the projected sweeps the splitting methods share (`pgs`, `psor`,
//! `sgs`, `bpgs`, `pgs-colored`): [`Rows`] reads a sparse M through its compressed rows in
//! place and copies a dense M once into row-major order; [`sweep_forward`] and
//! [`sweep_backward`] are the relaxed projected Gauss–Seidel updates
//! $z_i \leftarrow \max(0,\; z_i - \omega\, w_i / m_{ii})$ (Cottle, Pang, Stone 1992, §5.2);
//! [`iterate`] runs them as steps of the one driver ([`run_steps`]: sweep, cheap measure,
//! exact merit every `check_every` sweeps, stop on success, round-off stagnation, divergence,
//! time or iteration limit). [`GramSweeper`] runs the same updates on a Gram-form
//! M = G G' + D without forming M: it keeps v = G' z, so that w_i = G_i · v + D_i z_i + q_i
//! costs one pass over row i of G and an update Δz_i one more (v += Δz_i G_i').

use faer::sparse::SparseRowMat;

use std::borrow::Cow;

use crate::solver::{Outcome, SolveContext, SolveError};
use crate::steps::{run_steps, Movement, Policy, Start, Step, StepResult, Steps};
use crate::{GramMatrix, Lcp, Matrix};

/// Rows of M as the sweeps read them: the CSR of a sparse M in place, or a row-major copy of
/// a dense M made once.
#[derive(Debug)]
pub enum Rows<'a> {
    /// Compressed rows, borrowed.
    Sparse(&'a SparseRowMat<usize, f64>),
    /// Row-major copy of a dense M.
    Dense {
        /// Size.
        n: usize,
        /// Entry (i, j) at i n + j.
        data: Vec<f64>,
    },
}

impl<'a> Rows<'a> {
    /// Rows of the problem's M.
    pub fn new(lcp: &'a Lcp) -> Self {
        Self::of(lcp.matrix())
    }

    /// Rows of any matrix (signorini-friction reads W through this too).
    pub fn of(m: &'a Matrix) -> Self {
        match m {
            Matrix::Sparse(s) => Rows::Sparse(s),
            Matrix::Dense(d) => {
                let n = d.nrows();
                let mut data = vec![0.0; n * n];
                for j in 0..n {
                    for (i, &v) in d.col(j).iter().enumerate() {
                        data[i * n + j] = v;
                    }
                }
                Rows::Dense { n, data }
            }
        }
    }

    /// Sum_j m_ij z_j.
    #[inline]
    pub fn dot(&self, i: usize, z: &[f64]) -> f64 {
        match self {
            Rows::Sparse(s) => {
                let cols = s.col_idx_of_row_raw(i);
                let vals = s.val_of_row(i);
                let mut acc = 0.0;
                for (&j, &v) in cols.iter().zip(vals) {
                    acc += v * z[j];
                }
                acc
            }
            Rows::Dense { n, data } => {
                let row = &data[i * n..(i + 1) * n];
                row.iter().zip(z).map(|(a, b)| a * b).sum()
            }
        }
    }

    /// Calls `f(j, m_ij)` for every stored entry of row i (the nonzero ones of a dense M).
    pub fn for_each(&self, i: usize, mut f: impl FnMut(usize, f64)) {
        match self {
            Rows::Sparse(s) => {
                for (&j, &v) in s.col_idx_of_row_raw(i).iter().zip(s.val_of_row(i)) {
                    f(j, v);
                }
            }
            Rows::Dense { n, data } => {
                for (j, &v) in data[i * n..(i + 1) * n].iter().enumerate() {
                    if v != 0.0 {
                        f(j, v);
                    }
                }
            }
        }
    }
}

/// The diagonal of M, or the first row whose diagonal entry is not positive (PGS divides by
/// m_ii and converges only when every m_ii > 0).
pub fn positive_diagonal(rows: &Rows<'_>, n: usize) -> Result<Vec<f64>, String> {
    let mut diag = vec![0.0; n];
    for (i, d) in diag.iter_mut().enumerate() {
        rows.for_each(i, |j, v| {
            if j == i {
                *d += v;
            }
        });
    }
    checked_diagonal(diag)
}

/// `diag` itself, or the first row whose entry is not positive (see [`positive_diagonal`]).
pub fn checked_diagonal(diag: Vec<f64>) -> Result<Vec<f64>, String> {
    for (i, d) in diag.iter().enumerate() {
        if d.is_nan() || *d <= 0.0 {
            return Err(format!(
                "row {i}: diagonal entry M[{i}][{i}] = {d} is not positive; splitting methods \
                 divide by it (need m_ii > 0)"
            ));
        }
    }
    Ok(diag)
}

/// What one sweep did: max |Δz_i|, max |z_i| after it, and whether every z_i stayed finite.
#[derive(Debug, Clone, Copy)]
pub struct SweepInfo {
    /// max_i |Δz_i|.
    pub max_change: f64,
    /// max_i |z_i| after the sweep.
    pub max_abs: f64,
    /// Every z_i finite.
    pub finite: bool,
}

impl SweepInfo {
    /// No change yet.
    pub const ZERO: SweepInfo = SweepInfo { max_change: 0.0, max_abs: 0.0, finite: true };

    /// Both sweeps' figures together (max, max, and): exact and order independent.
    #[inline]
    pub fn merge(self, o: SweepInfo) -> SweepInfo {
        SweepInfo {
            max_change: self.max_change.max(o.max_change),
            max_abs: self.max_abs.max(o.max_abs),
            finite: self.finite && o.finite,
        }
    }

    /// Folds in one updated coordinate.
    #[inline]
    pub fn push(&mut self, old: f64, new: f64) {
        self.max_change = self.max_change.max((new - old).abs());
        self.max_abs = self.max_abs.max(new.abs());
        self.finite &= new.is_finite();
    }
}

/// max(0, t) that keeps NaN (so divergence is seen, not projected away).
#[inline]
pub fn project(t: f64) -> f64 {
    if t < 0.0 {
        0.0
    } else {
        t
    }
}

/// One relaxed projected update of coordinate i; returns the new z_i.
#[inline]
fn update(rows: &Rows<'_>, q: &[f64], diag: &[f64], omega: f64, z: &mut [f64], i: usize) -> f64 {
    let w = q[i] + rows.dot(i, z);
    let new = project(z[i] - omega * w / diag[i]);
    z[i] = new;
    new
}

/// `update(z, i)` for every coordinate in the order `order` gives, with what the sweep did.
#[inline]
fn sweep_with(
    z: &mut [f64],
    order: impl Iterator<Item = usize>,
    mut update: impl FnMut(&mut [f64], usize) -> f64,
) -> SweepInfo {
    let mut info = SweepInfo::ZERO;
    for i in order {
        let old = z[i];
        let new = update(z, i);
        info.push(old, new);
    }
    info
}

/// One relaxed projected update of every coordinate, in the order `order` gives.
#[inline]
fn sweep_in(
    rows: &Rows<'_>,
    q: &[f64],
    diag: &[f64],
    omega: f64,
    z: &mut [f64],
    order: impl Iterator<Item = usize>,
) -> SweepInfo {
    sweep_with(z, order, |z, i| update(rows, q, diag, omega, z, i))
}

/// Forward sweep i = 0..n.
pub fn sweep_forward(
    rows: &Rows<'_>,
    q: &[f64],
    diag: &[f64],
    omega: f64,
    z: &mut [f64],
) -> SweepInfo {
    let n = z.len();
    sweep_in(rows, q, diag, omega, z, 0..n)
}

/// Backward sweep i = n-1..0.
pub fn sweep_backward(
    rows: &Rows<'_>,
    q: &[f64],
    diag: &[f64],
    omega: f64,
    z: &mut [f64],
) -> SweepInfo {
    let n = z.len();
    sweep_in(rows, q, diag, omega, z, (0..n).rev())
}

/// The projected sweeps on a Gram-form M = G G' + D, matrix-free: the state v = G' z is
/// built once from the starting z and updated with every change of a z_i, so a sweep reads
/// each row of G twice (the dot product, then the update) and never an entry of M. The
/// iterates are those of [`sweep_forward`] / [`sweep_backward`] on the assembled M up to
/// rounding (w_i is summed as q_i + G_i · v + D_i z_i instead of q_i + Σ_j m_ij z_j).
#[derive(Debug)]
pub struct GramSweeper<'a> {
    gram: &'a GramMatrix,
    v: Vec<f64>,
}

impl<'a> GramSweeper<'a> {
    /// The sweeper for M = `gram` starting at `z` (v = G' z).
    pub fn new(gram: &'a GramMatrix, z: &[f64]) -> Self {
        let mut v = vec![0.0; gram.factor().ncols()];
        gram.factor_transpose_mul(z, &mut v);
        Self { gram, v }
    }

    /// The diagonal of M = G G' + D.
    pub fn diagonal(&self) -> &[f64] {
        self.gram.diagonal()
    }

    /// One relaxed projected update of coordinate i; returns the new z_i.
    #[inline]
    fn update(&mut self, q: &[f64], diag: &[f64], omega: f64, z: &mut [f64], i: usize) -> f64 {
        let g = self.gram;
        let w = q[i] + (g.row_dot(i, &self.v) + g.compliance_at(i) * z[i]);
        let new = project(z[i] - omega * w / diag[i]);
        let dz = new - z[i];
        if dz != 0.0 {
            g.row_axpy(i, dz, &mut self.v);
        }
        z[i] = new;
        new
    }

    fn sweep_in(
        &mut self,
        q: &[f64],
        diag: &[f64],
        omega: f64,
        z: &mut [f64],
        order: impl Iterator<Item = usize>,
    ) -> SweepInfo {
        sweep_with(z, order, |z, i| self.update(q, diag, omega, z, i))
    }

    /// Forward sweep i = 0..n.
    pub fn forward(&mut self, q: &[f64], diag: &[f64], omega: f64, z: &mut [f64]) -> SweepInfo {
        let n = z.len();
        self.sweep_in(q, diag, omega, z, 0..n)
    }

    /// Backward sweep i = n-1..0.
    pub fn backward(&mut self, q: &[f64], diag: &[f64], omega: f64, z: &mut [f64]) -> SweepInfo {
        let n = z.len();
        self.sweep_in(q, diag, omega, z, (0..n).rev())
    }
}

/// How the shared loop runs a splitting method.
#[derive(Debug, Clone, Copy)]
pub struct LoopSettings {
    /// Exact merit every this many sweeps.
    pub check_every: usize,
    /// Products with M one sweep costs (1 for a forward sweep, 2 for a symmetric one).
    pub matvecs_per_sweep: usize,
}

/// Maps a z in a solver's own ordering back to the problem's ordering.
pub type Unpermute<'a> = &'a (dyn Fn(&[f64]) -> Vec<f64> + Sync);

/// What the splitting methods say when a sweep diverges.
const DIVERGENCE_HINT: &str = " (the iteration diverges; M is not suited to splitting methods, \
                               e.g. neither symmetric PSD nor diagonally dominant)";

/// A splitting method as [`Steps`]: one step is one sweep. The driver
/// ([`run_steps`]) tests the exact merit every `check_every` sweeps, after the last one and
/// as soon as a sweep leaves z unchanged to round-off (then the run is `stalled` unless z
/// passes), and stops on divergence, time or iteration limit.
struct Sweeping<'a, F> {
    z: Vec<f64>,
    settings: LoopSettings,
    sweep: F,
    to_original: Option<Unpermute<'a>>,
}

impl<'c, F: FnMut(&mut [f64]) -> SweepInfo> Steps<SolveContext<'c>> for Sweeping<'_, F> {
    fn policy(&self) -> Policy {
        Policy {
            check_last: true,
            stall_after: Some(1),
            divergence_hint: DIVERGENCE_HINT,
            ..Policy::named("sweep")
        }
    }

    fn z(&self) -> Cow<'_, [f64]> {
        match self.to_original {
            Some(f) => Cow::Owned(f(&self.z)),
            None => Cow::Borrowed(&self.z),
        }
    }

    fn step(&mut self, _lcp: &Lcp, ctx: &mut SolveContext<'c>, iteration: usize) -> StepResult {
        let info = (self.sweep)(&mut self.z);
        ctx.matvecs += self.settings.matvecs_per_sweep;
        let movement = Movement { change: info.max_change, size: info.max_abs };
        let measure = if info.finite { movement.relative() } else { f64::NAN };
        Ok(Step::Taken {
            measure: Some(measure),
            movement: Some(movement),
            check: iteration.is_multiple_of(self.settings.check_every),
        })
    }
}

/// The loop every splitting method shares, run by the driver [`run_steps`]: sweep, record
/// the cheap measure (the relative change of z), check the exact merit every `check_every`
/// sweeps, stop on success, round-off stagnation, divergence, time or iteration limit.
/// `sweep` works on `z` in its own ordering; `to_original` maps such a z to the problem's
/// ordering (`None`: the same ordering).
pub fn iterate(
    lcp: &Lcp,
    ctx: &mut SolveContext<'_>,
    z: Vec<f64>,
    settings: LoopSettings,
    sweep: impl FnMut(&mut [f64]) -> SweepInfo,
    to_original: Option<Unpermute<'_>>,
) -> Result<Outcome, SolveError> {
    let state = Sweeping { z, settings, sweep, to_original };
    run_steps(lcp, ctx, |_, _| Ok(Start::Run(state)))
}
