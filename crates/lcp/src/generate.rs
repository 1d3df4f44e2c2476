//! Seeded generators of test problems by matrix class, and the classical worst cases of
//! pivoting methods (Murty 1978; Fathi 1979). Used by the tests, the proptests and the benches.

use faer::Mat;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::Lcp;

fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

fn uniform_mat(r: &mut ChaCha8Rng, rows: usize, cols: usize) -> Mat<f64> {
    Mat::from_fn(rows, cols, |_, _| r.gen_range(-1.0..1.0))
}

fn build(m: Mat<f64>, q: Vec<f64>, name: String) -> Lcp {
    match Lcp::from_dense(m, q) {
        Ok(l) => l.with_name(name).with_source("signorini::generate (seeded)"),
        Err(e) => unreachable!("generated data is finite and square: {e}"),
    }
}

/// Dense symmetric positive definite M = A'A/n + 0.1 I (A uniform in [-1, 1]), q uniform in [-1, 1].
pub fn random_spd(n: usize, seed: u64) -> Lcp {
    let mut r = rng(seed);
    let a = uniform_mat(&mut r, n, n);
    let mut m = a.transpose() * &a;
    let scale = 1.0 / n.max(1) as f64;
    for j in 0..n {
        for i in 0..n {
            m[(i, j)] *= scale;
        }
        m[(j, j)] += 0.1;
    }
    let q = (0..n).map(|_| r.gen_range(-1.0..1.0)).collect();
    build(m, q, format!("random_spd_n{n}_s{seed}"))
}

/// Nonsymmetric strictly row diagonally dominant M with positive diagonal (a P-matrix),
/// q uniform in [-1, 1].
pub fn random_p_matrix(n: usize, seed: u64) -> Lcp {
    let mut r = rng(seed);
    let mut m = uniform_mat(&mut r, n, n);
    for i in 0..n {
        let off: f64 = (0..n).filter(|&j| j != i).map(|j| m[(i, j)].abs()).sum();
        m[(i, i)] = off + r.gen_range(0.1..1.0);
    }
    let q = (0..n).map(|_| r.gen_range(-1.0..1.0)).collect();
    build(m, q, format!("random_p_n{n}_s{seed}"))
}

/// Symmetric positive semidefinite singular M = BB' with B n x rank, and q = w* - Mz* for a
/// complementary pair (z*, w*) >= 0, so a solution exists (not unique in general).
pub fn random_psd_singular(n: usize, rank: usize, seed: u64) -> Lcp {
    let mut r = rng(seed);
    let rank = rank.min(n.saturating_sub(1)).max(usize::from(n > 1));
    let b = uniform_mat(&mut r, n, rank);
    let m = &b * b.transpose();
    let mut z = vec![0.0; n];
    let mut w = vec![0.0; n];
    for i in 0..n {
        if r.gen_bool(0.5) {
            z[i] = r.gen_range(0.0..1.0);
        } else {
            w[i] = r.gen_range(0.0..1.0);
        }
    }
    let mut q = w;
    for (i, qi) in q.iter_mut().enumerate() {
        *qi -= (0..n).map(|j| m[(i, j)] * z[j]).sum::<f64>();
    }
    build(m, q, format!("random_psd_singular_n{n}_r{rank}_s{seed}"))
}

/// Copositive-plus (positive semidefinite, nonsymmetric) M with an infeasible LCP: M = P + S with
/// P = BB' PSD and P y = 0, S = u y' - y u' skew with u = y + d, d >= 0, d'y = 0, so that
/// M'y = -d ||y||^2 <= 0; q'y < 0. Returns the problem and the Farkas vector y used to build it.
pub fn random_copositive_plus_infeasible(n: usize, seed: u64) -> (Lcp, Vec<f64>) {
    let mut r = rng(seed);
    let n = n.max(2);
    // y >= 0 on a random nonempty support; d >= 0 off it.
    let mut y = vec![0.0; n];
    let mut d = vec![0.0; n];
    let k0 = r.gen_range(0..n);
    for i in 0..n {
        if i == k0 || (i != (k0 + 1) % n && r.gen_bool(0.3)) {
            y[i] = r.gen_range(0.5..1.5);
        } else {
            d[i] = r.gen_range(0.0..1.0);
        }
    }
    let yy: f64 = y.iter().map(|v| v * v).sum();
    // B with columns orthogonal to y.
    let mut b = uniform_mat(&mut r, n, n / 2 + 1);
    for c in 0..b.ncols() {
        let dot: f64 = (0..n).map(|i| b[(i, c)] * y[i]).sum();
        for i in 0..n {
            b[(i, c)] -= dot / yy * y[i];
        }
    }
    let mut m = &b * b.transpose();
    for i in 0..n {
        for j in 0..n {
            let ui = y[i] + d[i];
            let uj = y[j] + d[j];
            m[(i, j)] += ui * y[j] - y[i] * uj;
        }
    }
    let mut q: Vec<f64> = (0..n).map(|_| r.gen_range(-1.0..1.0)).collect();
    let qy: f64 = q.iter().zip(&y).map(|(a, b)| a * b).sum();
    // Shift q along y so that q'y = -(0.5 + |qy|) * ... < 0.
    let target = -0.5 - r.gen_range(0.0..1.0);
    for (qi, yi) in q.iter_mut().zip(&y) {
        *qi += (target - qy) / yy * yi;
    }
    (build(m, q, format!("random_copositive_plus_infeasible_n{n}_s{seed}")), y)
}

/// Murty's exponential example (Murty 1978; Murty 1988, ch. 6): M lower triangular, 1 on the
/// diagonal and 2 below, q_i = -(2^(n+1) - 2^(n-i+1)) (1-based i). Lemke with e takes 2^n
/// pivots; the solution is z = (2^n, 0, ..., 0).
pub fn murty_exponential(n: usize) -> Lcp {
    let m = murty_matrix(n);
    let p = |k: usize| 2f64.powi(k as i32);
    let q = (1..=n).map(|i| -(p(n + 1) - p(n - i + 1))).collect();
    build(m, q, format!("murty_exponential_n{n}")).with_source("Murty 1978; Murty 1988, ch. 6")
}

/// Murty's lower-triangular matrix: 1 on the diagonal, 2 below.
pub fn murty_matrix(n: usize) -> Mat<f64> {
    Mat::from_fn(n, n, |i, j| match i.cmp(&j) {
        std::cmp::Ordering::Equal => 1.0,
        std::cmp::Ordering::Greater => 2.0,
        std::cmp::Ordering::Less => 0.0,
    })
}

/// Fathi's example (Fathi 1979): M = L'L with L Murty's matrix (symmetric positive definite),
/// q = -e; exponential for least-index principal pivoting.
pub fn fathi(n: usize) -> Lcp {
    let l = murty_matrix(n);
    let m = l.transpose() * &l;
    build(m, vec![-1.0; n], format!("fathi_n{n}")).with_source("Fathi 1979")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify_farkas;

    #[test]
    fn infeasible_generator_certificate_verifies() {
        for seed in 0..20 {
            let (lcp, y) = random_copositive_plus_infeasible(7, seed);
            assert!(verify_farkas(&lcp, &y, 1e-9).is_ok(), "seed {seed}");
        }
    }

    #[test]
    fn psd_generator_is_symmetric() {
        let lcp = random_psd_singular(6, 3, 1);
        for i in 0..6 {
            for j in 0..6 {
                assert!((lcp.get(i, j) - lcp.get(j, i)).abs() < 1e-14);
            }
        }
    }

    #[test]
    fn murty_q_matches_reference() {
        // n = 6: q = -(128 - 2^(7-i)) = (-64, -96, -112, -120, -124, -126); Siconos' file holds
        // the transposed ordering (-126, ..., -64).
        let lcp = murty_exponential(6);
        assert_eq!(lcp.q(), &[-64.0, -96.0, -112.0, -120.0, -124.0, -126.0]);
    }
}
