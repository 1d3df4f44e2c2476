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
/// P = BB' PSD with B zero on the rows of supp(y) (so P y = 0 exactly), S = u y' - y u' skew with u = y + d, d >= 0, d'y = 0, so that
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
    // B vanishes on the rows of supp(y), so B'y = 0 and P y = 0 hold exactly in floating
    // point (a projection orthogonal to y leaves round-off such as P_kk = 1e-34, which makes
    // the data solvable with a huge z).
    let mut b = uniform_mat(&mut r, n, n / 2 + 1);
    for (i, &yi) in y.iter().enumerate() {
        if yi > 0.0 {
            for c in 0..b.ncols() {
                b[(i, c)] = 0.0;
            }
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

/// Sparse tridiagonal M with diagonal `diag(i)`, `upper` at (i, i + 1) and `lower` at
/// (i + 1, i), and the given q (n = q.len()); stored sparse. The tests' banded matrices: SPD
/// Laplacians, nonsymmetric P-matrices and matrices of no class, by the choice of the bands.
pub fn tridiagonal(diag: impl Fn(usize) -> f64, upper: f64, lower: f64, q: Vec<f64>) -> Lcp {
    let n = q.len();
    let (mut r, mut c, mut v) = (Vec::new(), Vec::new(), Vec::new());
    for i in 0..n {
        r.push(i);
        c.push(i);
        v.push(diag(i));
        if i + 1 < n {
            r.extend([i, i + 1]);
            c.extend([i + 1, i]);
            v.extend([upper, lower]);
        }
    }
    match Lcp::from_coo(n, &r, &c, &v, q) {
        Ok(l) => l.with_source("signorini::generate"),
        Err(e) => unreachable!("a tridiagonal pattern is valid (bands must be finite): {e}"),
    }
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

/// Relative regularisation added to every diagonal entry of [`delassus_like`]'s W
/// (W_ii <- (1 + DELASSUS_REGULARISATION) W_ii), a constraint-force-mixing term as in ODE and
/// Bullet: J M^-1 J' is only semidefinite when contacts are redundant, and this makes it definite
/// (unique solution) while moving the solution by a relative amount of about this size.
pub const DELASSUS_REGULARISATION: f64 = 1e-6;

/// Degrees of freedom per body in [`delassus_like`]: planar rigid body (x, y, theta).
const DOF_PER_BODY: usize = 3;

/// Sparse (CSR) Delassus-like LCP W N + b with a known solution; see
/// [`delassus_like_with_solution`], which also returns that solution.
pub fn delassus_like(n_bodies: usize, contacts_per_body: usize, mass_ratio: f64, seed: u64) -> Lcp {
    delassus_like_with_solution(n_bodies, contacts_per_body, mass_ratio, seed).0
}

/// Sparse Delassus-like LCP with its solution z*: W = J M^-1 J' (+ the diagonal regularisation
/// [`DELASSUS_REGULARISATION`]) for `n_bodies` planar rigid bodies on a line, each with
/// `contacts_per_body` normal contact rows.
///
/// Body b has mass m_b = mass_ratio^u_b with u_b uniform in [0, 1] (log-uniform masses spanning
/// 1..mass_ratio; a `mass_ratio` below 1, NaN or infinite is treated as 1) and inertia
/// m_b r_b^2 with radius r_b uniform in [0.5, 1]. Contact c of body b touches a neighbour
/// b + k with k uniform in {1, 2, 3}; where that neighbour does not exist it touches the fixed
/// ground. Its row of J has a random unit normal n and random lever arms r (|r| <= radius):
/// (-n, -(r_a x n)) on body b and (n, r_b x n) on the neighbour. Contacts couple exactly when
/// they share a body, so W is sparse with about (4 contacts_per_body)^2 / 2 entries per body.
///
/// q = w* - W z* for a strictly complementary pair: each contact is loaded (z*_c uniform in
/// [0.1, 1], w*_c = 0) or separating (z*_c = 0, w*_c = W_cc times a uniform number in
/// [0.1, 1]) with probability 1/2, so z* is the unique solution (W is positive definite).
///
/// Cost O(n_bodies contacts_per_body^2) time and memory, no dense step: 10^5 unknowns build in
/// well under a second in release.
pub fn delassus_like_with_solution(
    n_bodies: usize,
    contacts_per_body: usize,
    mass_ratio: f64,
    seed: u64,
) -> (Lcp, Vec<f64>) {
    let mut r = rng(seed);
    let ratio = if mass_ratio.is_finite() && mass_ratio > 1.0 { mass_ratio } else { 1.0 };
    let n_dof = DOF_PER_BODY * n_bodies;
    // Inverse mass, per degree of freedom (block diagonal, diagonal blocks).
    let mut inv_mass = vec![0.0; n_dof];
    let mut radius = vec![0.0; n_bodies];
    for b in 0..n_bodies {
        let m = ratio.powf(r.gen_range(0.0..=1.0));
        let rad = r.gen_range(0.5..=1.0);
        radius[b] = rad;
        inv_mass[DOF_PER_BODY * b] = 1.0 / m;
        inv_mass[DOF_PER_BODY * b + 1] = 1.0 / m;
        inv_mass[DOF_PER_BODY * b + 2] = 1.0 / (m * rad * rad);
    }
    let n = n_bodies * contacts_per_body;
    // J as per-contact pairs (body, 3 entries); ground has no degrees of freedom.
    let mut jac: Vec<Vec<(usize, [f64; DOF_PER_BODY])>> = Vec::with_capacity(n);
    let mut incident: Vec<Vec<(usize, usize)>> = vec![Vec::new(); n_bodies];
    for b in 0..n_bodies {
        for _ in 0..contacts_per_body {
            let c = jac.len();
            let nb = b + r.gen_range(1..=3usize);
            let angle: f64 = r.gen_range(0.0..std::f64::consts::TAU);
            let (nx, ny) = (angle.cos(), angle.sin());
            let arm = |rad: f64, rr: &mut ChaCha8Rng| {
                let a: f64 = rr.gen_range(0.0..std::f64::consts::TAU);
                let l = rad * rr.gen_range(0.0..=1.0);
                (l * a.cos(), l * a.sin())
            };
            let (ax, ay) = arm(radius[b], &mut r);
            let mut entries = vec![(b, [-nx, -ny, -(ax * ny - ay * nx)])];
            if nb < n_bodies {
                let (bx, by) = arm(radius[nb], &mut r);
                entries.push((nb, [nx, ny, bx * ny - by * nx]));
            }
            for (slot, (body, _)) in entries.iter().enumerate() {
                incident[*body].push((c, slot));
            }
            jac.push(entries);
        }
    }
    // W = sum over bodies of J_b M_b^-1 J_b'.
    let mut rows = Vec::new();
    let mut cols = Vec::new();
    let mut vals = Vec::new();
    for (b, list) in incident.iter().enumerate() {
        let minv = &inv_mass[DOF_PER_BODY * b..DOF_PER_BODY * (b + 1)];
        for &(c, sc) in list {
            let jc = &jac[c][sc].1;
            for &(d, sd) in list {
                let jd = &jac[d][sd].1;
                let v: f64 = (0..DOF_PER_BODY).map(|k| jc[k] * minv[k] * jd[k]).sum();
                rows.push(c);
                cols.push(d);
                vals.push(v);
            }
        }
    }
    let mut diag = vec![0.0; n];
    for ((&i, &j), &v) in rows.iter().zip(&cols).zip(&vals) {
        if i == j {
            diag[i] += v;
        }
    }
    for (i, &d) in diag.iter().enumerate() {
        rows.push(i);
        cols.push(i);
        vals.push(DELASSUS_REGULARISATION * d);
    }
    let mut z_star = vec![0.0; n];
    let mut w_star = vec![0.0; n];
    for i in 0..n {
        if r.gen_bool(0.5) {
            z_star[i] = r.gen_range(0.1..=1.0);
        } else {
            w_star[i] = diag[i] * (1.0 + DELASSUS_REGULARISATION) * r.gen_range(0.1..=1.0);
        }
    }
    let q = vec![0.0; n];
    let lcp = match Lcp::from_coo(n, &rows, &cols, &vals, q) {
        Ok(l) => l,
        Err(e) => unreachable!("generated coordinates are in range and finite: {e}"),
    };
    let mut wz = vec![0.0; n];
    lcp.mul_vec(&z_star, &mut wz);
    let q: Vec<f64> = w_star.iter().zip(&wz).map(|(w, m)| w - m).collect();
    let m = lcp.matrix().clone();
    let lcp = match Lcp::new(m, q) {
        Ok(l) => l,
        Err(e) => unreachable!("q = w* - W z* is finite: {e}"),
    };
    let name = format!("delassus_like_b{n_bodies}_c{contacts_per_body}_r{ratio}_s{seed}");
    (lcp.with_name(name).with_source("signorini::generate::delassus_like (seeded)"), z_star)
}

/// Gravity used by [`box_stack`], m/s^2.
pub const GRAVITY: f64 = 9.81;

/// How the masses of a [`box_stack_with`] stack vary with height.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MassProfile {
    /// Light (1 kg) and heavy (`mass_ratio` kg) boxes alternate, the bottom box light: every
    /// light box sits between heavy neighbours (or the ground and a heavy box), which couples its
    /// two contacts with correlation mass_ratio / (1 + mass_ratio), the hard case for projected
    /// Gauss–Seidel (its rate tends to 1 as the ratio grows).
    Alternating,
    /// Box i (0 = bottom) weighs mass_ratio^(i / (n - 1)) kg: a geometric progression from 1 kg
    /// at the bottom to `mass_ratio` kg at the top (heavy on light).
    Geometric,
}

/// Mass of box i (0 = bottom) of a stack of `n_boxes` with the given profile. A ratio below 1,
/// NaN or infinite is treated as 1.
pub fn box_stack_mass(i: usize, n_boxes: usize, mass_ratio: f64, profile: MassProfile) -> f64 {
    let ratio = if mass_ratio.is_finite() && mass_ratio > 1.0 { mass_ratio } else { 1.0 };
    match profile {
        MassProfile::Alternating => {
            if i.is_multiple_of(2) {
                1.0
            } else {
                ratio
            }
        }
        MassProfile::Geometric if n_boxes <= 1 => 1.0,
        MassProfile::Geometric => ratio.powf(i as f64 / (n_boxes - 1) as f64),
    }
}

/// [`box_stack_with`] with alternating light and heavy boxes ([`MassProfile::Alternating`]),
/// the profile of the PGS-rate-versus-mass-ratio study.
pub fn box_stack(n_boxes: usize, mass_ratio: f64) -> Lcp {
    box_stack_with(n_boxes, mass_ratio, MassProfile::Alternating)
}

/// Acceleration-level LCP of a vertical stack of `n_boxes` boxes resting on the ground under
/// gravity (one vertical degree of freedom per box, masses from [`box_stack_mass`]).
///
/// Contact 0 is ground–box 0, contact k >= 1 is box k-1 – box k; the row of J for contact k is
/// +1 on box k and -1 on box k-1. So W = J M^-1 J' is tridiagonal and positive definite
/// (W_kk = 1/m_k + 1/m_(k-1), W_00 = 1/m_0, W_(k,k+1) = -1/m_k), and b = J M^-1 f with f_i = -m_i g
/// is (-g, 0, ..., 0). The solution is N_k = g sum_(i >= k) m_i (each contact carries the weight
/// above it) with zero normal acceleration: see [`box_stack_reactions`].
pub fn box_stack_with(n_boxes: usize, mass_ratio: f64, profile: MassProfile) -> Lcp {
    let n = n_boxes;
    let inv_m: Vec<f64> = (0..n).map(|i| 1.0 / box_stack_mass(i, n, mass_ratio, profile)).collect();
    let mut rows = Vec::with_capacity(3 * n);
    let mut cols = Vec::with_capacity(3 * n);
    let mut vals = Vec::with_capacity(3 * n);
    for k in 0..n {
        let below = if k > 0 { inv_m[k - 1] } else { 0.0 };
        rows.push(k);
        cols.push(k);
        vals.push(inv_m[k] + below);
        if k + 1 < n {
            rows.extend([k, k + 1]);
            cols.extend([k + 1, k]);
            vals.extend([-inv_m[k], -inv_m[k]]);
        }
    }
    let mut q = vec![0.0; n];
    if n > 0 {
        q[0] = -GRAVITY;
    }
    match Lcp::from_coo(n, &rows, &cols, &vals, q) {
        Ok(l) => l
            .with_name(format!("box_stack_{profile:?}_n{n}_r{mass_ratio}").to_lowercase())
            .with_source("signorini::generate::box_stack_with"),
        Err(e) => unreachable!("box stack coordinates are valid: {e}"),
    }
}

/// The exact reactions of [`box_stack_with`]: N_k = g sum_(i >= k) m_i.
pub fn box_stack_reactions(n_boxes: usize, mass_ratio: f64, profile: MassProfile) -> Vec<f64> {
    let mut n_k = vec![0.0; n_boxes];
    let mut above = 0.0;
    for k in (0..n_boxes).rev() {
        above += box_stack_mass(k, n_boxes, mass_ratio, profile);
        n_k[k] = GRAVITY * above;
    }
    n_k
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

    #[test]
    fn delassus_like_is_sparse_symmetric_and_solved_by_its_z_star() {
        let (lcp, z) = delassus_like_with_solution(50, 3, 100.0, 7);
        assert!(lcp.is_sparse());
        assert_eq!(lcp.n(), 150);
        assert!(lcp.nnz() < 150 * 60, "nnz {}", lcp.nnz());
        let scale = lcp.diag().iter().fold(0.0f64, |a, &b| a.max(b));
        for i in 0..lcp.n() {
            assert!(lcp.get(i, i) > 0.0);
            for j in 0..lcp.n() {
                assert!((lcp.get(i, j) - lcp.get(j, i)).abs() <= 1e-14 * scale);
            }
        }
        let (_, merit) = crate::evaluate(&lcp, &z);
        assert!(merit.residual < 1e-13, "residual {}", merit.residual);
        assert!(z.iter().any(|&v| v > 0.0) && z.iter().any(|&v| v.abs() < f64::MIN_POSITIVE));
    }

    #[test]
    fn delassus_like_is_positive_definite() {
        let lcp = delassus_like(20, 4, 10.0, 3);
        let m = lcp.to_dense();
        assert!(m.llt(faer::Side::Lower).is_ok());
    }

    #[test]
    fn box_stack_reactions_carry_the_weight_above() {
        let n = 6;
        for profile in [MassProfile::Alternating, MassProfile::Geometric] {
            let lcp = box_stack_with(n, 1000.0, profile);
            let z = box_stack_reactions(n, 1000.0, profile);
            let (w, merit) = crate::evaluate(&lcp, &z);
            // Round-off of W z with |z| ~ g * 3000 against ||q|| = g.
            assert!(merit.residual < 1e-10, "{profile:?}: {}", merit.residual);
            let wmax = w.iter().fold(0.0f64, |a, b| a.max(b.abs()));
            assert!(wmax < 1e-12 * GRAVITY * 1000.0);
            let masses: Vec<f64> = (0..n).map(|i| box_stack_mass(i, n, 1000.0, profile)).collect();
            let (lo, hi) =
                masses.iter().fold((f64::MAX, 0.0f64), |(a, b), &m| (a.min(m), b.max(m)));
            assert!((hi / lo - 1000.0).abs() < 1e-9, "{profile:?}");
            // The bottom contact carries the whole stack.
            let total: f64 = masses.iter().sum();
            assert!((z[0] - GRAVITY * total).abs() < 1e-12 * z[0]);
        }
    }
}
