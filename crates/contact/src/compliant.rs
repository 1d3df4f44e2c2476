//! Compliant (penalty) normal contact laws, N as a function of the gap d and its rate d'.
//!
//! Penetration δ = max(−d, 0), penetration rate δ' = −d'. Sources: linear penalty and
//! Kelvin–Voigt as in Gilardi & Sharf 2002 (*Literature survey of contact dynamics modelling*);
//! Hunt & Crossley 1975 (*Coefficient of restitution interpreted as damping in vibroimpact*),
//! in the form N = δ^n (k + λ δ') of Marhefka & Orin 1999.

/// Linear penalty N = k max(−d, 0).
pub fn linear_penalty(stiffness: f64, gap: f64) -> f64 {
    stiffness * (-gap).max(0.0)
}

/// Kelvin–Voigt N = max(k δ + c δ', 0) while δ > 0, else 0 (spring and dashpot in parallel;
/// clipped at zero so the contact never pulls).
pub fn kelvin_voigt(stiffness: f64, damping: f64, gap: f64, gap_rate: f64) -> f64 {
    if gap >= 0.0 {
        return 0.0;
    }
    (stiffness * (-gap) + damping * (-gap_rate)).max(0.0)
}

/// Hunt–Crossley N = max(δ^n (k + λ δ'), 0) while δ > 0, else 0 (n = 3/2 for Hertzian spheres;
/// λ = 3/2 α k relates to restitution through α ≈ (1 − e)/v_impact).
pub fn hunt_crossley(stiffness: f64, exponent: f64, damping: f64, gap: f64, gap_rate: f64) -> f64 {
    if gap >= 0.0 {
        return 0.0;
    }
    let delta = -gap;
    (delta.powf(exponent) * (stiffness + damping * (-gap_rate))).max(0.0)
}

/// Static overlap of a weight W resting on a linear penalty contact: δ = W / k.
pub fn static_overlap(weight: f64, stiffness: f64) -> f64 {
    weight / stiffness
}

/// Contact angular frequency ω_c = sqrt(k / m) of a mass on a linear penalty contact.
pub fn contact_frequency(stiffness: f64, mass: f64) -> f64 {
    (stiffness / mass).sqrt()
}

/// Restitution of a Kelvin–Voigt contact with damping ratio ζ = c / (2 sqrt(k m)) < 1 (without
/// the sticking tail of the clipped force): e = exp(−ζ π / sqrt(1 − ζ²)).
pub fn kelvin_voigt_restitution(damping_ratio: f64) -> f64 {
    (-damping_ratio * std::f64::consts::PI / (1.0 - damping_ratio * damping_ratio).sqrt()).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol * b.abs().max(1e-300)
    }

    #[test]
    fn reference_a6_penalty_figures() {
        // 14.62 N at k = 1e5 N/m: d = -0.1462 mm.
        assert!(close(static_overlap(14.62, 1e5), 0.1462e-3, 1e-12));
        assert!(close(linear_penalty(1e5, -0.1462e-3), 14.62, 1e-12));
        // m = 2 kg at k = 2e5: 98.1 um, w_c = 316.2 rad/s; k x 100: 0.981 um, w_c x 10.
        let (m, g, k) = (2.0, 9.81, 2e5);
        assert!(close(static_overlap(m * g, k), 98.1e-6, 1e-12));
        assert!((contact_frequency(k, m) - 316.2).abs() < 0.05);
        assert!(close(static_overlap(m * g, 100.0 * k), 0.981e-6, 1e-12));
        assert!(close(contact_frequency(100.0 * k, m), 10.0 * contact_frequency(k, m), 1e-12));
    }

    #[test]
    fn laws_vanish_when_open_and_never_pull() {
        assert!(linear_penalty(1e5, 1e-3).abs() <= 0.0);
        assert!(kelvin_voigt(1e5, 10.0, 1e-3, -1.0).abs() <= 0.0);
        // Separating fast while slightly overlapped: the dashpot would pull; clipped to zero.
        assert!(kelvin_voigt(1e5, 1e3, -1e-6, 10.0).abs() <= 0.0);
        assert!(hunt_crossley(1e5, 1.5, 1e3, -1e-6, 1e3).abs() <= 0.0); // k + λ δ' = 1e5 - 1e6 < 0
                                                                        // Hunt–Crossley at rest: k delta^n.
        assert!(close(hunt_crossley(1e5, 1.5, 1e3, -1e-2, 0.0), 1e5 * 1e-3, 1e-12));
        assert!(close(kelvin_voigt(1e5, 1e3, -1e-3, -0.1), 100.0 + 100.0, 1e-12));
    }

    #[test]
    fn kelvin_voigt_restitution_limits() {
        assert!(close(kelvin_voigt_restitution(0.0), 1.0, 1e-15));
        let e = kelvin_voigt_restitution(0.1);
        assert!(close(e, (-0.1 * std::f64::consts::PI / (0.99f64).sqrt()).exp(), 1e-15));
        assert!(e < 1.0);
    }
}
