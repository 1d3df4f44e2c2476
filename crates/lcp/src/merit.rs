//! The one merit function every solver is judged by (the measure Siconos numerics reports).
//!
//! w = Mz + q is recomputed from z; `residual = ||min(z, w)||_2 / ||q||_2`, without the division
//! when ||q||_2 <= f64::EPSILON (Acary, Brémond, Huber 2018, "On solving contact problems with
//! Coulomb friction", use the same normalised natural-map residual).
//!
//! The merit is a norm, so one large |q_i| can hide an unsolved row (M = I, q = (1e12, -1):
//! z = 0 has residual 1e-12). The driver's `solved` decision therefore also asks
//! [`worst_row`] whether every row holds at its own scale, with t the row tolerance:
//!
//! - w_i >= -t S_i, where S_i = max(|q_i| + (|M| |z|)_i, (|M| e)_i ‖z‖_∞) is the scale of
//!   w_i = (M z)_i + q_i: its own data, or what an error of t ‖z‖_∞ in z moves it by through
//!   row i of M;
//! - z_i >= -t ‖z‖_∞ (the driver projects z onto z >= 0 first, so this holds);
//! - complementarity: z_i <= t ‖z‖_∞ or w_i <= t S_i.
//!
//! ‖z‖_∞ and the e above are read in the units each z_j enters w: with c_j = max_i |M_ij|
//! and C = diag(c) / max c, ‖z‖_∞ stands for ‖C z‖_∞, "z_i <= t ‖z‖_∞" for
//! (C z)_i <= t ‖C z‖_∞ and (|M| e)_i ‖z‖_∞ for (|M| C^-1 e)_i ‖C z‖_∞. With equal column
//! scales this is the plain max norm; it makes the test invariant under a change of units of
//! any z_j (column scaling), so that a z_j that is tiny in its own units but multiplied by a
//! huge column is not taken for zero (found by fuzzing: M = [[1.1e110, 101],
//! [1.8e115, -3.9e-4]], which has no solution, had an answer that passed the unscaled test).
//! An empty column takes the largest scale.
//!
//! The floor is also sign-aware: it stands for what an error of t ‖Cz‖_∞ in every (Cz)_j,
//! keeping z >= 0, can move w_i by, so the floor that excuses a negative w_i is what such a
//! perturbation can lift it by (an entry M_ij > 0 through a rise of z_j, an entry M_ij < 0
//! only through a fall of z_j, at most z_j), and the floor that excuses a positive w_i beside
//! a positive z_i is what it can lower it by ([`Lcp::perturbation_reach`]). Found by fuzzing:
//! M = diag(8.6e87, -1.01e61), q = (-1, -1e-17) has no solution, but with z = (1/8.6e87, 0)
//! the unsigned floor of row 2 was 1 and excused w_2 = -1e-17, which no z_2 >= 0 can lift.
//! The lift of a negative w_i is not added as a bound but carried out: w_i passes when it
//! holds at z (w_i >= -t S_i) or at the lifted point z' (z_j risen where M_ij > 0, fallen
//! where M_ij < 0, within the budget), w'_i >= -t S'_i with S'_i = |q_i| + (|M| z')_i, both
//! summed at z' ([`Lcp::lifted_rows`]). Found by fuzzing: M = [[0, -3.9e-13], [33, 3e-96]],
//! q = (-8.5e-85, -85.3) has no solution, but at z_2 ~ 1e-10 the sum w_1 = -3.9e-13 z_2
//! loses q_1 in rounding, and a bound equal to 3.9e-13 z_2 excused it; at z' (z_2 = 0)
//! w'_1 = q_1 = -S'_1 fails.
//!
//! t is floored at [`ROUNDOFF_ROWS`] eps. The floor (|M| e)_i ‖z‖_∞ lets a degenerate row
//! (exact z_i = w_i = 0, a contact touching without load) carry the noise of a z that is
//! accurate to t in the max norm, and comes from row i's own entries: a row that z does not
//! reach through M (M = I, or a zero row) is judged on its data q_i alone, so neither a large
//! q_j nor a large z_j elsewhere can hide it. What the test cannot see: a row whose data is
//! below t (|M| e)_i ‖z‖_∞, e.g. M = I, q = (-1e12, -1) answered by z = (1e12, 0), which is
//! within 1e-12 of the solution in the max norm. There is no absolute floor: a problem scaled
//! by 10^-150 is judged as the same problem at scale 1. Norms are computed with scaling, so
//! entries near 1e±150 neither overflow nor underflow.

use serde::{Deserialize, Serialize};

use crate::Lcp;

/// Solver-independent quality figures of a candidate z, recomputed from z alone.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Merit {
    /// ||min(z, w)||_2 / ||q||_2 (no division when ||q||_2 <= eps).
    pub residual: f64,
    /// ||min(z, w)||_2 without normalisation.
    pub residual_abs: f64,
    /// max_i |z_i w_i|.
    pub complementarity: f64,
    /// max(0, -min_i z_i).
    pub z_violation: f64,
    /// max(0, -min_i w_i).
    pub w_violation: f64,
}

impl Merit {
    /// Merit of z for `lcp` given an already computed w = Mz + q.
    pub fn from_zw(lcp: &Lcp, z: &[f64], w: &[f64]) -> Self {
        let mut sq = 0.0;
        let mut complementarity: f64 = 0.0;
        let mut z_violation: f64 = 0.0;
        let mut w_violation: f64 = 0.0;
        for (&zi, &wi) in z.iter().zip(w) {
            let m = zi.min(wi);
            sq += m * m;
            complementarity = complementarity.max((zi * wi).abs());
            z_violation = z_violation.max(-zi);
            w_violation = w_violation.max(-wi);
        }
        let residual_abs = if sq.is_finite() && sq > 1e-280 && sq < 1e280 {
            sq.sqrt()
        } else {
            norm2(&z.iter().zip(w).map(|(a, b)| a.min(*b)).collect::<Vec<_>>())
        };
        let qnorm = norm2(lcp.q());
        let residual = if qnorm <= f64::EPSILON { residual_abs } else { residual_abs / qnorm };
        let all_finite = z.iter().chain(w).all(|v| v.is_finite());
        let residual = if all_finite { residual } else { f64::INFINITY };
        Self { residual, residual_abs, complementarity, z_violation, w_violation }
    }
}

/// Recomputes w = Mz + q and the merit of z.
pub fn evaluate(lcp: &Lcp, z: &[f64]) -> (Vec<f64>, Merit) {
    let w = lcp.w_of(z);
    let merit = Merit::from_zw(lcp, z, &w);
    (w, merit)
}

/// [`evaluate`] without counting the product in [`Lcp::products`]: the driver's own
/// recomputation of w from the returned z, and the history it records.
pub(crate) fn evaluate_uncounted(lcp: &Lcp, z: &[f64]) -> (Vec<f64>, Merit) {
    let mut w = vec![0.0; lcp.n()];
    lcp.mul_vec_uncounted(z, &mut w);
    for (wi, qi) in w.iter_mut().zip(lcp.q()) {
        *wi += qi;
    }
    let merit = Merit::from_zw(lcp, z, &w);
    (w, merit)
}

/// Euclidean norm, scaled by the largest entry so that entries near 1e±150 neither overflow nor
/// underflow.
pub fn norm2(x: &[f64]) -> f64 {
    let big = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    if big == 0.0 || !big.is_finite() {
        return if x.iter().any(|v| v.is_nan()) { f64::NAN } else { big };
    }
    big * x.iter().map(|v| (v / big) * (v / big)).sum::<f64>().sqrt()
}

/// Multiple of eps times a row's scale below which its violation is round-off (64 = 2^6, the usual "small multiple of n eps" of a backward-stable solve
/// of a few dozen terms).
pub const ROUNDOFF_ROWS: f64 = 64.0;

/// Violations at or below this size (2^-1022 / eps, about 1e-292) count as 0: near the
/// subnormal range a float carries no relative precision, so no row can be judged finer.
pub const UNDERFLOW: f64 = f64::MIN_POSITIVE / f64::EPSILON;

/// The outcome of the componentwise test for the worst row (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowCheck {
    /// Row index.
    pub row: usize,
    /// |min(z_i, w_i)|.
    pub violation: f64,
    /// The scale S_i of w_i (see the module docs).
    pub scale: f64,
    /// What |min(z_i, w_i)| may be for this row's test to pass at its ratio.
    pub allowed: f64,
    /// The largest of the three tests' ratios (see the module docs; 0 when all hold exactly,
    /// infinite for non-finite entries): the row holds iff this is <= 1.
    pub ratio: f64,
}

impl RowCheck {
    /// True when the row holds.
    pub fn holds(&self) -> bool {
        self.ratio <= 1.0
    }
}

/// The row with the largest violation relative to what it may violate at row tolerance
/// `row_tol`, given w = M z + q; `None` for n = 0. A non-finite z or w gives an infinite ratio
/// at its first such row.
pub fn worst_row(lcp: &Lcp, z: &[f64], w: &[f64], row_tol: f64) -> Option<RowCheck> {
    let n = lcp.n();
    if n == 0 || z.len() != n || w.len() != n {
        return None;
    }
    let t = row_tol.max(ROUNDOFF_ROWS * f64::EPSILON);
    let mut mz = vec![0.0; n];
    // z is judged column by column at the scale it enters w: y_j = c_j z_j, c_j = max_i |M_ij|
    // (an empty column takes the largest c, or 1 for M = 0).
    let (mut c, kept) = lcp.abs_mul_vec_and_column_abs_max(z, &mut mz);
    let c_max = c.iter().fold(0.0f64, |m, v| m.max(*v));
    let fallback = if c_max > 0.0 && c_max.is_finite() { c_max } else { 1.0 };
    c.iter_mut().for_each(|v| {
        if !(*v > 0.0 && v.is_finite()) {
            *v = fallback
        }
    });
    let y: Vec<f64> = z.iter().zip(&c).map(|(zj, cj)| (cj / fallback) * zj).collect();
    let y_max = y.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    // What an error of t y_max in every y_j, keeping z >= 0, can move w_i by: up (to lift a
    // negative w_i) and down (to bring a positive w_i to 0 where z_i > 0).
    // With it, the same lift carried out: row i at the point within the budget where w_i is
    // largest (one scan of the entries for both).
    let (mut reach_up, mut reach_down) = (vec![0.0; n], vec![0.0; n]);
    let (mut w_up, mut s_up) = (vec![0.0; n], vec![0.0; n]);
    lcp.reach_and_lifted_rows(
        &kept,
        &c,
        z,
        t * y_max * fallback,
        (&mut reach_up, &mut reach_down),
        (&mut w_up, &mut s_up),
    );
    // x / a with 0 / 0 = 0, x / 0 = inf, non-finite = inf; below UNDERFLOW, 0.
    let over = |x: f64, a: f64| -> f64 {
        if !(x.is_finite() && a.is_finite()) {
            f64::INFINITY
        } else if x <= UNDERFLOW {
            0.0
        } else {
            x / a
        }
    };
    let mut worst: Option<RowCheck> = None;
    for i in 0..n {
        let data = lcp.q()[i].abs() + mz[i];
        let w_scale = data.max(reach_up[i].max(reach_down[i]) / t);
        let down_allowed = (t * data).max(reach_down[i]);
        let w_allowed = (t * data).max(reach_up[i]).max(down_allowed);
        let z_allowed = t * y_max;
        // A negative w_i holds at its own scale here, or at the lifted point at that point's
        // scale (evaluated there, not bounded: a q_i lost in the rounding of (M z)_i counts).
        let negative_w = over(-w[i], t * data).min(over(-w_up[i], t * s_up[i]));
        let negative_z = over(-y[i], z_allowed);
        let both_positive = over(y[i], z_allowed).min(over(w[i], down_allowed));
        let ratio = negative_w.max(negative_z).max(both_positive);
        let violation = z[i].min(w[i]).abs();
        let allowed = if ratio > 0.0 && ratio.is_finite() { violation / ratio } else { w_allowed };
        if worst.is_none_or(|b| ratio > b.ratio) {
            worst = Some(RowCheck { row: i, violation, scale: w_scale, allowed, ratio });
        }
    }
    worst
}

/// ||min(z, w)||_2, the numerator of the merit (without its scaling).
pub fn min_map_norm(z: &[f64], w: &[f64]) -> f64 {
    z.iter().zip(w).map(|(&a, &b)| a.min(b).powi(2)).sum::<f64>().sqrt()
}

/// The merit's normalisation: ||q||_2, or 1 when ||q||_2 <= eps.
pub fn merit_scale(lcp: &Lcp) -> f64 {
    let s = norm2(lcp.q());
    if s <= f64::EPSILON {
        1.0
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_a1_merit_is_zero_at_solution_and_positive_at_zero() {
        // M = [[2, 1], [1, 2]], q = (-1, 0): z = (1/2, 0), w = (0, 1/2).
        let lcp = Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![-1.0, 0.0])
            .expect("valid");
        let (w, m) = evaluate(&lcp, &[0.5, 0.0]);
        assert!((w[1] - 0.5).abs() < 1e-15);
        assert!(m.residual < 1e-15);
        let (_, m0) = evaluate(&lcp, &[0.0, 0.0]);
        assert!((m0.residual - 1.0).abs() < 1e-15);
        assert!((m0.w_violation - 1.0).abs() < 1e-15);
    }

    #[test]
    fn issue_14_one_large_q_does_not_hide_an_unsolved_row() {
        // M = I, q = (1e12, -1): z = 0 has the reported residual 1e-12, but row 2 has
        // min(z_2, w_2) = -1 at scale 1.
        let lcp = Lcp::from_dense_rows(&[vec![1.0, 0.0], vec![0.0, 1.0]], vec![1e12, -1.0])
            .expect("valid");
        let (w, m) = evaluate(&lcp, &[0.0, 0.0]);
        assert!(m.residual < 1e-11);
        let row = worst_row(&lcp, &[0.0, 0.0], &w, 1e-8).expect("n > 0");
        assert_eq!(row.row, 1);
        assert!(!row.holds());
        assert!((row.violation / row.scale - 1.0).abs() < 1e-15);
        let (w, _) = evaluate(&lcp, &[0.0, 1.0]);
        assert_eq!(worst_row(&lcp, &[0.0, 1.0], &w, 1e-8).expect("n > 0").ratio, 0.0);
    }

    #[test]
    fn issue_14_rows_are_judged_the_same_at_scale_1e150_and_1e_150() {
        for s in [1e150, 1e-150, 1.0] {
            let lcp = Lcp::from_dense_rows(&[vec![2.0 * s, s], vec![s, 2.0 * s]], vec![-s, 0.0])
                .expect("valid");
            let (w, m) = evaluate(&lcp, &[0.5, 0.0]);
            assert!(m.residual < 1e-15, "scale {s}: {}", m.residual);
            assert!(worst_row(&lcp, &[0.5, 0.0], &w, 1e-8).expect("n>0").holds());
            // z = 0 leaves row 1 unsolved. The reported (Siconos) residual divides by |q|_2
            // only above eps, so at 1e-150 it reads 1e-150; the row check reads 1 at every
            // scale, and that is what the driver's `solved` decision uses.
            let (w, m) = evaluate(&lcp, &[0.0, 0.0]);
            let expected = if s < 1.0 { s } else { 1.0 };
            assert!((m.residual - expected).abs() < 1e-12 * expected, "scale {s}: {}", m.residual);
            let row = worst_row(&lcp, &[0.0, 0.0], &w, 1e-8).expect("n>0");
            assert!(!row.holds(), "scale {s}");
            assert!((row.violation / row.scale - 1.0).abs() < 1e-12, "scale {s}");
        }
    }

    #[test]
    fn issue_14_fuzz_tiny_z_through_a_huge_entry_is_not_zero() {
        // Found by the `solvers` fuzz target (verification/tests/data/
        // fuzz_solvers_enum_vs_auto.bin): this problem has no solution (enum proves it; the
        // four sign patterns fail by hand), yet z = (z1, 1e-100) with 1.8e115 z1 = 3.9e-3
        // passed the unscaled test: z1 <= t ‖z‖_∞ counted as zero in row 1 while row 2 used
        // it as 3.9e-3. In column units z1 is the largest entry, so row 1 must have w_1 ~ 0.
        let lcp = Lcp::from_dense_rows(
            &[vec![1.1e110, 101.0], vec![1.8e115, -3.9e-4]],
            vec![-3.9e-64, -3.9e-3],
        )
        .expect("valid");
        let z = [3.9e-3 / 1.8e115, 1e-100];
        let (w, _) = evaluate(&lcp, &z);
        let t = 1e-8;
        assert!(z[0] <= t * z[1] && w[1].abs() <= t * 1.8e115 * z[1], "unscaled, it passes");
        let row = worst_row(&lcp, &z, &w, t).expect("n > 0");
        assert!(!row.holds());
        assert_eq!(row.row, 0);
    }

    #[test]
    fn issue_14_fuzz_the_floor_cannot_lift_a_row_z_cannot_lift() {
        // Found by the `solvers` fuzz target (verification/tests/data/
        // fuzz_solvers_diag_negative.bin): M = diag(8.6e87, -1.01e61), q = (-1, -1e-17) has
        // no solution (row 2: w_2 = -1.01e61 z_2 - 1e-17 < 0 for every z_2 >= 0), yet
        // z = (1/8.6e87, 0) passed: row 2's floor, (|M| C^-1 e)_2 |Cz|_inf = 1, allowed
        // w_2 = -1e-17. Only a rise of z_2 could lift w_2 and M_22 < 0 turns it down, so the
        // floor that may excuse a negative w_i is what z >= 0 can actually lift it by.
        let lcp =
            Lcp::from_dense_rows(&[vec![8.6e87, 0.0], vec![0.0, -1.01e61]], vec![-1.0, -1e-17])
                .expect("valid");
        let z = [1.0 / 8.6e87, 0.0];
        let (w, _) = evaluate(&lcp, &z);
        let row = worst_row(&lcp, &z, &w, 1e-8).expect("n > 0");
        assert!(!row.holds());
        assert_eq!(row.row, 1);
        // With M_22 > 0 a rise of z_2 lifts w_2, and the same z is within the floor.
        let lcp =
            Lcp::from_dense_rows(&[vec![8.6e87, 0.0], vec![0.0, 1.01e61]], vec![-1.0, -1e-17])
                .expect("valid");
        let (w, _) = evaluate(&lcp, &z);
        assert!(worst_row(&lcp, &z, &w, 1e-8).expect("n > 0").holds());
    }

    #[test]
    fn issue_14_fuzz_a_q_lost_in_rounding_is_not_excused_by_the_lift() {
        // Found by the `solvers` fuzz target (verification/tests/data/
        // fuzz_solvers_lifted_row.bin): M = [[0, -3.9e-13], [33, 3e-96]],
        // q = (-8.5e-85, -85.3) has no solution (w_1 = -3.9e-13 z_2 - 8.5e-85 < 0 for every
        // z_2 >= 0), yet newton-fb's z passed: in floating point w_1 = -3.9e-13 z_2 (q_1 is
        // below its rounding), and the lift bound, a fall of z_2 times 3.9e-13, equalled it.
        // At the lifted point itself (z_2 = 0) w'_1 = q_1 = -S'_1.
        let q = vec![-8.53359375e-85, -85.3359375];
        let lcp =
            Lcp::from_dense_rows(&[vec![0.0, -3.90625e-13], vec![33.0, 3e-96]], q).expect("valid");
        for z2 in [1e-10, 1e-14, 1e-20] {
            let z = [85.3359375 / 33.0, z2];
            let (w, _) = evaluate(&lcp, &z);
            assert_eq!(w[0], -3.90625e-13 * z2, "q_1 is lost in the rounding of w_1");
            let row = worst_row(&lcp, &z, &w, 1e-8).expect("n > 0");
            assert!(!row.holds(), "z_2 = {z2}: {row:?}");
            assert_eq!(row.row, 0);
        }
        // Where the lift is real (q_1 = 0 and z_2 in the budget) the same z holds.
        let lcp = Lcp::from_dense_rows(
            &[vec![0.0, -3.90625e-13], vec![33.0, 3e-96]],
            vec![0.0, -85.3359375],
        )
        .expect("valid");
        let z = [85.3359375 / 33.0, 1e-10];
        let (w, _) = evaluate(&lcp, &z);
        assert!(worst_row(&lcp, &z, &w, 1e-8).expect("n > 0").holds());
    }

    #[test]
    fn issue_14_row_test_is_invariant_under_column_scaling() {
        // The same problem in other units of z_2 (column 2 times s, z_2 over s) is judged the
        // same: a near-solution with a z_2 of round-off size keeps its ratio.
        let base = [vec![2.0, 1.0], vec![1.0, 2.0]];
        let z = [0.5, 1e-12];
        for s in [1.0, 1e-100, 1e100] {
            let rows: Vec<Vec<f64>> = base.iter().map(|r| vec![r[0], r[1] * s]).collect();
            let lcp = Lcp::from_dense_rows(&rows, vec![-1.0, 0.0]).expect("valid");
            let zs = [z[0], z[1] / s];
            let (w, _) = evaluate(&lcp, &zs);
            let row = worst_row(&lcp, &zs, &w, 1e-8).expect("n > 0");
            assert!(row.holds(), "scale {s}: {row:?}");
            let bad = [z[0], 1e-3 / s];
            let (w, _) = evaluate(&lcp, &bad);
            assert!(!worst_row(&lcp, &bad, &w, 1e-8).expect("n > 0").holds(), "scale {s}");
        }
    }

    #[test]
    fn norm2_neither_overflows_nor_underflows() {
        assert!((norm2(&[3e200, 4e200]) - 5e200).abs() < 1e186);
        assert!((norm2(&[3e-200, 4e-200]) - 5e-200).abs() < 1e-214);
        assert_eq!(norm2(&[0.0, 0.0]), 0.0);
    }

    #[test]
    fn zero_q_is_not_divided() {
        let lcp = Lcp::from_dense_rows(&[vec![1.0]], vec![0.0]).expect("valid");
        let (_, m) = evaluate(&lcp, &[-2.0]);
        assert!((m.residual - 2.0).abs() < 1e-15);
    }
}
