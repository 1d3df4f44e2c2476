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
