//! One contact at a time: the Alart–Curnier function with an element of its generalised
//! Jacobian, the local semismooth Newton solver and the local projection solver used by
//! `nsgs` (Alart, Curnier 1991, "A mixed formulation for frictional contact problems prone to
//! Newton like solution methods", CMAME 92; Christensen, Klarbring, Pang, Strömberg 1998;
//! Siconos `fc3d_AlartCurnier_functions` / `fc3d_onecontact_nonsmooth_Newton_solvers`,
//! the "STD" variant).
//!
//! With u = W r + q, per contact (d = 2 or 3, normal first, rho_N, rho_T > 0):
//!
//! Phi_N = r_N - max(0, r_N - rho_N u_N),
//! Phi_T = r_T - P_{D(mu max(0, r_N - rho_N u_N))}(r_T - rho_T u_T),
//!
//! where D(s) is the disk (2D: interval) of radius s. Phi = 0 iff (r, u) satisfies Coulomb's
//! law. The Jacobian element is dPhi/dr = A + B W (A = dPhi/dr at fixed u, B = dPhi/du).

use crate::cone::project;
use crate::merit::contact_error_squared;

/// A 3-vector (2D problems use the first two entries).
pub type V3 = [f64; 3];
/// A 3x3 matrix, row-major (2D problems use the top-left 2x2).
pub type M3 = [[f64; 3]; 3];

/// Phi and the two parts A = dPhi/dr, B = dPhi/du of one contact block (entries beyond d are 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AcPieces {
    /// Phi(r, u).
    pub phi: V3,
    /// dPhi/dr at fixed u.
    pub a: M3,
    /// dPhi/du at fixed r.
    pub b: M3,
}

/// The Alart–Curnier function of one contact and an element of its generalised Jacobian.
pub fn alart_curnier(d: usize, r: &V3, u: &V3, mu: f64, rho: &V3) -> AcPieces {
    let mut phi = [0.0; 3];
    let mut a = [[0.0; 3]; 3];
    let mut b = [[0.0; 3]; 3];
    let t = r[0] - rho[0] * u[0];
    if t > 0.0 {
        phi[0] = rho[0] * u[0];
        b[0][0] = rho[0];
    } else {
        phi[0] = r[0];
        a[0][0] = 1.0;
    }
    let radius = mu * t.max(0.0);
    let mut v = [0.0; 3];
    for k in 1..d {
        v[k] = r[k] - rho[k] * u[k];
    }
    let nv = v[1..d].iter().map(|x| x * x).sum::<f64>().sqrt();
    if nv <= radius {
        // Sticking: the projection is the identity.
        for k in 1..d {
            phi[k] = rho[k] * u[k];
            b[k][k] = rho[k];
        }
    } else {
        // Sliding (or free): nv > radius >= 0, so nv > 0.
        let mut vh = [0.0; 3];
        for k in 1..d {
            vh[k] = v[k] / nv;
        }
        let ratio = radius / nv;
        for k in 1..d {
            phi[k] = r[k] - radius * vh[k];
            for l in 1..d {
                let p = f64::from(u8::from(k == l)) - vh[k] * vh[l];
                a[k][l] = f64::from(u8::from(k == l)) - ratio * p;
                b[k][l] = ratio * p * rho[l];
            }
            if t > 0.0 {
                a[k][0] = -mu * vh[k];
                b[k][0] = mu * rho[0] * vh[k];
            }
        }
    }
    AcPieces { phi, a, b }
}

/// J = A + B W_ii for a local problem.
pub fn local_jacobian(d: usize, pieces: &AcPieces, wii: &M3) -> M3 {
    let mut j = pieces.a;
    for (row, jrow) in j.iter_mut().enumerate().take(d) {
        for (col, jv) in jrow.iter_mut().enumerate().take(d) {
            *jv += (0..d).map(|k| pieces.b[row][k] * wii[k][col]).sum::<f64>();
        }
    }
    j
}

/// Solves the d x d system J x = rhs by Gaussian elimination with partial pivoting; `None`
/// when a pivot is (numerically) zero.
pub fn solve_small(d: usize, j: &M3, rhs: &V3) -> Option<V3> {
    let mut m = *j;
    let mut x = *rhs;
    let scale = m.iter().take(d).flat_map(|r| r.iter().take(d)).fold(0.0f64, |s, v| s.max(v.abs()));
    if !(scale > 0.0 && scale.is_finite()) {
        return None;
    }
    for c in 0..d {
        let p = (c..d).max_by(|&a, &b| m[a][c].abs().total_cmp(&m[b][c].abs()))?;
        if m[p][c].abs() <= 1e-14 * scale {
            return None;
        }
        m.swap(c, p);
        x.swap(c, p);
        let pivot_row = m[c];
        for rr in c + 1..d {
            let f = m[rr][c] / pivot_row[c];
            for (cc, v) in m[rr].iter_mut().enumerate().take(d).skip(c) {
                *v -= f * pivot_row[cc];
            }
            x[rr] -= f * x[c];
        }
    }
    for c in (0..d).rev() {
        let s: f64 = (c + 1..d).map(|k| m[c][k] * x[k]).sum();
        x[c] = (x[c] - s) / m[c][c];
    }
    x.iter().all(|v| v.is_finite()).then_some(x)
}

/// u = W_ii r + q_loc for one block.
pub fn local_velocity(d: usize, wii: &M3, r: &V3, q: &V3) -> V3 {
    let mut u = [0.0; 3];
    for k in 0..d {
        u[k] = q[k] + (0..d).map(|l| wii[k][l] * r[l]).sum::<f64>();
    }
    u
}

/// The unnormalised De Saxcé error of a local problem at r.
pub fn local_error(d: usize, wii: &M3, q: &V3, mu: f64, r: &V3) -> f64 {
    let u = local_velocity(d, wii, r, q);
    contact_error_squared(&r[..d], &u[..d], mu).sqrt()
}

/// True when the local error at r is at most `tol` times the size of the terms it is made of,
/// max(|q_loc|, |W_ii r|, |r|): the floor that round-off leaves in u = W_ii r + q_loc and in
/// r - P_K(r - u - mu |u_T| e_N). A target relative to |q_loc| alone is out of reach when r is
/// large or W_ii r nearly cancels q_loc (a contact whose neighbours carry its load); the local
/// Newton then spent its iterations and fell back to 200 projection steps, two thirds of an
/// `nsgs` solve of Siconos' Rover files (callgrind).
pub fn local_converged(d: usize, wii: &M3, q: &V3, mu: f64, r: &V3, tol: f64) -> bool {
    converged_at(d, q, mu, r, &local_velocity(d, wii, r, q), tol)
}

/// [`local_converged`] with u = W_ii r + q_loc already computed.
fn converged_at(d: usize, q: &V3, mu: f64, r: &V3, u: &V3, tol: f64) -> bool {
    let norm = |x: &[f64]| x.iter().map(|v| v * v).sum::<f64>().sqrt();
    let wr = [u[0] - q[0], u[1] - q[1], u[2] - q[2]];
    let scale = norm(&q[..d]).max(norm(&wr[..d])).max(norm(&r[..d])).max(1e-300);
    contact_error_squared(&r[..d], &u[..d], mu).sqrt() <= tol * scale
}

/// The step parameters rho_N, rho_T from the diagonal of W_ii (1 / diagonal entry, the
/// tangential ones averaged; 1 when the diagonal is not positive).
pub fn rho_from_block(d: usize, wii: &M3) -> V3 {
    let inv = |x: f64| if x > 0.0 && x.is_finite() { 1.0 / x } else { 1.0 };
    let mut rho = [0.0; 3];
    rho[0] = inv(wii[0][0]);
    let mean_t = (1..d).map(|k| wii[k][k]).sum::<f64>() / (d - 1) as f64;
    for r in rho.iter_mut().take(d).skip(1) {
        *r = inv(mean_t);
    }
    rho
}

/// Settings of the local solvers.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LocalSettings {
    /// Newton (or projection) iterations per contact and sweep.
    pub max_iter: usize,
    /// Stop when the local error is below `tol * max(|q_loc|, |W_ii r|, |r|)` ([`local_converged`]).
    pub tol: f64,
}

/// Local Alart–Curnier semismooth Newton with a backtracking line search on ½|Phi|^2. Returns
/// true when the local error reached the tolerance; r is left at the last iterate.
pub fn newton_ac(d: usize, wii: &M3, q: &V3, mu: f64, r: &mut V3, settings: LocalSettings) -> bool {
    let rho = rho_from_block(d, wii);
    let done = |x: &V3| local_converged(d, wii, q, mu, x, settings.tol);
    let merit = |x: &V3| {
        let u = local_velocity(d, wii, x, q);
        let p = alart_curnier(d, x, &u, mu, &rho).phi;
        p.iter().map(|v| v * v).sum::<f64>()
    };
    for _ in 0..settings.max_iter {
        let u = local_velocity(d, wii, r, q);
        if converged_at(d, q, mu, r, &u, settings.tol) {
            return true;
        }
        let pieces = alart_curnier(d, r, &u, mu, &rho);
        let jac = local_jacobian(d, &pieces, wii);
        let rhs = [-pieces.phi[0], -pieces.phi[1], -pieces.phi[2]];
        let Some(dr) = solve_small(d, &jac, &rhs) else { return false };
        let f0 = pieces.phi.iter().map(|v| v * v).sum::<f64>();
        let mut step = 1.0;
        let mut accepted = false;
        for _ in 0..30 {
            let mut trial = *r;
            for k in 0..d {
                trial[k] += step * dr[k];
            }
            if merit(&trial) <= (1.0 - 1e-4 * step) * f0 {
                *r = trial;
                accepted = true;
                break;
            }
            step *= 0.5;
        }
        if !accepted {
            return done(r);
        }
    }
    done(r)
}

/// Local fixed-point projection r <- P_K(r - rho (u + mu |u_T| e_N)) with rho = 1/|W_ii|_F
/// (Siconos' `ProjectionOnCone` local solver, iterated). Returns true when the local error
/// reached the tolerance.
pub fn projection(
    d: usize,
    wii: &M3,
    q: &V3,
    mu: f64,
    r: &mut V3,
    settings: LocalSettings,
) -> bool {
    let norm = wii.iter().take(d).flat_map(|row| row.iter().take(d)).map(|v| v * v).sum::<f64>();
    let rho = if norm > 0.0 && norm.is_finite() { 1.0 / norm.sqrt() } else { 1.0 };
    for _ in 0..settings.max_iter {
        let u = local_velocity(d, wii, r, q);
        let ut = u[1..d].iter().map(|v| v * v).sum::<f64>().sqrt();
        r[0] -= rho * (u[0] + mu * ut);
        for k in 1..d {
            r[k] -= rho * u[k];
        }
        project(&mut r[..d], mu);
        if local_converged(d, wii, q, mu, r, settings.tol) {
            return true;
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Jacobian element matches central finite differences away from the kinks.
    #[test]
    fn jacobian_matches_finite_differences_in_each_regime() {
        let wii = [[2.0, 0.3, -0.1], [0.3, 1.5, 0.2], [-0.1, 0.2, 1.8]];
        let rho = [0.7, 0.4, 0.4];
        // (r, q, mu): sliding, sticking, separated.
        for (r, q, mu) in [
            ([1.0, 0.8, -0.5], [-1.0, 0.5, 0.2], 0.3),
            ([1.0, 0.01, 0.02], [-1.0, 0.0, 0.0], 0.8),
            ([0.2, 0.1, 0.0], [3.0, 0.0, 0.0], 0.5),
        ] {
            let u = local_velocity(3, &wii, &r, &q);
            let pieces = alart_curnier(3, &r, &u, mu, &rho);
            let jac = local_jacobian(3, &pieces, &wii);
            let h = 1e-7;
            for c in 0..3 {
                let (mut rp, mut rm) = (r, r);
                rp[c] += h;
                rm[c] -= h;
                let fp = alart_curnier(3, &rp, &local_velocity(3, &wii, &rp, &q), mu, &rho).phi;
                let fm = alart_curnier(3, &rm, &local_velocity(3, &wii, &rm, &q), mu, &rho).phi;
                for row in 0..3 {
                    let fd = (fp[row] - fm[row]) / (2.0 * h);
                    assert!(
                        (fd - jac[row][c]).abs() < 1e-6,
                        "r {r:?}: J[{row}][{c}] = {} vs {fd}",
                        jac[row][c]
                    );
                }
            }
        }
    }

    /// The same check in 2D (scalar tangential part; the kink of |v| is away from these r).
    #[test]
    fn jacobian_matches_finite_differences_in_2d() {
        let wii = [[2.0, 0.4, 0.0], [0.4, 1.5, 0.0], [0.0; 3]];
        let rho = [0.5, 0.6, 0.0];
        for (r, q, mu) in [
            ([1.0, 0.8, 0.0], [-1.0, 0.5, 0.0], 0.3),
            ([1.0, -0.8, 0.0], [-1.0, -0.5, 0.0], 0.3),
            ([1.0, 0.01, 0.0], [-1.0, 0.0, 0.0], 0.8),
            ([0.2, 0.1, 0.0], [3.0, 0.0, 0.0], 0.5),
        ] {
            let u = local_velocity(2, &wii, &r, &q);
            let jac = local_jacobian(2, &alart_curnier(2, &r, &u, mu, &rho), &wii);
            let h = 1e-7;
            for c in 0..2 {
                let (mut rp, mut rm) = (r, r);
                rp[c] += h;
                rm[c] -= h;
                let fp = alart_curnier(2, &rp, &local_velocity(2, &wii, &rp, &q), mu, &rho).phi;
                let fm = alart_curnier(2, &rm, &local_velocity(2, &wii, &rm, &q), mu, &rho).phi;
                for row in 0..2 {
                    let fd = (fp[row] - fm[row]) / (2.0 * h);
                    assert!((fd - jac[row][c]).abs() < 1e-6, "2D r {r:?}: J[{row}][{c}]");
                }
            }
        }
    }

    #[test]
    fn both_local_solvers_solve_a_sliding_contact() {
        let wii = [[2.0, 0.3, -0.1], [0.3, 1.5, 0.2], [-0.1, 0.2, 1.8]];
        let q = [-1.0, 0.9, -0.4];
        let s = LocalSettings { max_iter: 50, tol: 1e-13 };
        let mut r = [0.0; 3];
        assert!(newton_ac(3, &wii, &q, 0.3, &mut r, s));
        assert!(local_error(3, &wii, &q, 0.3, &r) < 1e-12);
        let mut r2 = [0.0; 3];
        let s = LocalSettings { max_iter: 2000, tol: 1e-13 };
        assert!(projection(3, &wii, &q, 0.3, &mut r2, s));
        assert!(r.iter().zip(&r2).all(|(a, b)| (a - b).abs() < 1e-10), "{r:?} vs {r2:?}");
    }
}
