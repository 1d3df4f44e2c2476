//! The Coulomb cone K_mu = {r : |r_T| <= mu r_N} in 2D and 3D and the exact Euclidean
//! projection onto it (Acary, Brogliato 2008, *Numerical Methods for Nonsmooth Dynamical
//! Systems*, §13.2; Siconos `projectionOnCone`).
//!
//! Every function takes one contact block of d = 2 or 3 entries, normal component first.

/// |x_T|: the Euclidean norm of the tangential part of one block (0 for fewer than 2 entries).
pub fn tangential_norm(x: &[f64]) -> f64 {
    match x {
        [_, t] => t.abs(),
        [_, t1, t2] => {
            // sqrt of the sum of squares, as Siconos computes it: libm's hypot took a quarter
            // of an nsgs solve (measured with perf on Confeti-ex03). hypot only where the
            // squares overflow or underflow.
            let s = (t1 * t1 + t2 * t2).sqrt();
            if s.is_finite() && s > 1e-150 {
                s
            } else {
                t1.hypot(*t2)
            }
        }
        [_, rest @ ..] => rest.iter().map(|v| v * v).sum::<f64>().sqrt(),
        [] => 0.0,
    }
}

/// Projects one block onto K_mu in place. Inside the cone it is left alone; inside the polar
/// cone (mu |r_T| <= -r_N) it becomes 0; otherwise it goes to the nearest generator,
/// r_N = (r_N + mu |r_T|) / (1 + mu^2), r_T = mu r_N r_T / |r_T|. mu = 0 gives (max(r_N, 0), 0).
pub fn project(r: &mut [f64], mu: f64) {
    let Some(&rn) = r.first() else { return };
    let nt = tangential_norm(r);
    // rn >= 0 too: with mu = 0 and r_T = 0, nt <= mu rn holds for a negative rn (0 <= -0).
    if rn >= 0.0 && nt <= mu * rn {
        return;
    }
    if mu * nt <= -rn {
        r.iter_mut().for_each(|v| *v = 0.0);
        return;
    }
    // Here |r_T| > 0: |r_T| = 0 would need 0 > mu r_N and 0 > -r_N at once.
    let new_rn = (rn + mu * nt) / (1.0 + mu * mu);
    let scale = mu * new_rn / nt;
    r[0] = new_rn;
    r[1..].iter_mut().for_each(|v| *v *= scale);
}

/// True when the block lies in K_mu up to `slack` (absolute).
pub fn contains(r: &[f64], mu: f64, slack: f64) -> bool {
    r.first().is_some_and(|&rn| rn >= -slack && tangential_norm(r) <= mu * rn + slack)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frictionless_cone_is_the_half_line_r_n_at_least_0() {
        // Regression: (-7.57, 0) with mu = 0 was left alone (0 <= 0 * -7.57 is 0 <= -0), so a
        // separating contact got a pulling impulse in Moreau–Jean with the exact cone.
        for (r, expected) in [
            ([-7.57, 0.0], [0.0, 0.0]),
            ([-1.0, 2.0], [0.0, 0.0]),
            ([3.0, 2.0], [3.0, 0.0]),
            ([3.0, 0.0], [3.0, 0.0]),
        ] {
            let mut p = r;
            project(&mut p, 0.0);
            assert_eq!(p, expected, "{r:?}");
        }
        let mut p3 = [-2.0, 0.0, 0.0];
        project(&mut p3, 0.0);
        assert_eq!(p3, [0.0, 0.0, 0.0]);
        assert!(!contains(&[-7.57, 0.0], 0.0, 1e-12));
        assert!(contains(&[7.57, 0.0], 0.0, 1e-12));
    }

    #[test]
    fn projection_of_the_three_regions_3d() {
        let mut inside = [2.0, 0.3, 0.4];
        project(&mut inside, 0.5);
        assert_eq!(inside, [2.0, 0.3, 0.4]);
        let mut polar = [-2.0, 0.3, 0.4];
        project(&mut polar, 0.5);
        assert_eq!(polar, [0.0, 0.0, 0.0]);
        // |r_T| = 5, mu = 1: r_N = (1 + 5) / 2 = 3, r_T = 3 (3, 4) / 5.
        let mut out = [1.0, 3.0, 4.0];
        project(&mut out, 1.0);
        for (a, b) in out.iter().zip([3.0, 1.8, 2.4]) {
            assert!((a - b).abs() < 1e-15, "{out:?}");
        }
        // The projection is idempotent and the residual is orthogonal to the result.
        let x = [0.3, -2.0, 0.7];
        let mut p = x;
        project(&mut p, 0.4);
        let mut pp = p;
        project(&mut pp, 0.4);
        assert!(p.iter().zip(&pp).all(|(a, b)| (a - b).abs() < 1e-15));
        let dot: f64 = p.iter().zip(&x).map(|(pi, xi)| pi * (xi - pi)).sum();
        assert!(dot.abs() < 1e-14);
        assert!(contains(&p, 0.4, 1e-14));
    }

    #[test]
    fn projection_2d_and_frictionless() {
        let mut r = [1.0, -3.0];
        project(&mut r, 1.0);
        assert!((r[0] - 2.0).abs() < 1e-15 && (r[1] + 2.0).abs() < 1e-15);
        let mut r = [-1.0, 0.5, 0.0];
        project(&mut r, 0.0);
        assert_eq!(r, [0.0, 0.0, 0.0]);
        let mut r = [1.0, 0.5, 0.5];
        project(&mut r, 0.0);
        assert_eq!(r, [1.0, 0.0, 0.0]);
    }

    #[test]
    fn the_tangential_norm_keeps_extreme_scales() {
        assert_eq!(tangential_norm(&[0.0, 3.0, 4.0]), 5.0);
        let big = tangential_norm(&[0.0, 3e200, 4e200]);
        assert!((big / 5e200 - 1.0).abs() < 1e-15);
        let tiny = tangential_norm(&[0.0, 3e-200, 4e-200]);
        assert!((tiny / 5e-200 - 1.0).abs() < 1e-15);
    }
}
