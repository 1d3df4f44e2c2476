//! Compliant (penalty) contact of a point mass with a floor, in one coordinate: the model behind
//! REFERENCE.md A6, A7 and the penalty oscillator of C (Goldsmith 1960, *Impact*; Hunt &
//! Crossley 1975 for the Kelvin–Voigt restitution). The general compliant laws for bodies and
//! scenes belong to signorini-contact; this is the 1-D verification model.
//!
//! Gap d = x (height above the floor), contact force N(d, d'):
//! - linear: N = k max(-d, 0); static overlap m g / k, contact frequency w_c = sqrt(k / m);
//! - Kelvin–Voigt: N = -k d - c d' while d < 0 (not clamped at zero, so it may pull at the end
//!   of contact: this is the model whose restitution is exp(-zeta pi / sqrt(1 - zeta^2)) with
//!   zeta = c / (2 sqrt(k m))).

use faer::Mat;

use crate::system::{SecondOrderSystem, SystemError};

/// A penalty force law.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PenaltyLaw {
    /// N = k max(-d, 0).
    Linear {
        /// Stiffness k (N/m).
        stiffness: f64,
    },
    /// N = -k d - c d' while d < 0.
    KelvinVoigt {
        /// Stiffness k (N/m).
        stiffness: f64,
        /// Damping c (N s/m).
        damping: f64,
    },
}

impl PenaltyLaw {
    /// Stiffness k.
    pub fn stiffness(&self) -> f64 {
        match *self {
            PenaltyLaw::Linear { stiffness } | PenaltyLaw::KelvinVoigt { stiffness, .. } => {
                stiffness
            }
        }
    }

    /// Damping c (0 for the linear law).
    pub fn damping(&self) -> f64 {
        match *self {
            PenaltyLaw::Linear { .. } => 0.0,
            PenaltyLaw::KelvinVoigt { damping, .. } => damping,
        }
    }

    /// Force while in contact (d < 0), extended smoothly to all d.
    fn contact_force(&self, d: f64, d_rate: f64) -> f64 {
        -self.stiffness() * d - self.damping() * d_rate
    }
}

/// A point mass above a floor with a penalty contact law, gravity and a constant external
/// vertical force (an upward pull u > 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PenaltyPointMass {
    /// Mass m (kg).
    pub mass: f64,
    /// Gravitational acceleration g (m/s^2, pointing down; 0 for none).
    pub gravity: f64,
    /// Constant external vertical force (N, up positive).
    pub external_force: f64,
    /// The contact law.
    pub law: PenaltyLaw,
}

impl PenaltyPointMass {
    /// Contact angular frequency w_c = sqrt(k / m).
    pub fn contact_frequency(&self) -> f64 {
        (self.law.stiffness() / self.mass).sqrt()
    }

    /// Static overlap (m g - u) / k of the resting mass (0 when it is pulled off).
    pub fn static_overlap(&self) -> f64 {
        ((self.mass * self.gravity - self.external_force) / self.law.stiffness()).max(0.0)
    }

    /// Damping ratio zeta = c / (2 sqrt(k m)).
    pub fn damping_ratio(&self) -> f64 {
        self.law.damping() / (2.0 * (self.law.stiffness() * self.mass).sqrt())
    }

    /// The in-contact phase: the contact force applied for every d (the smooth extension),
    /// which an event-located integration uses until the gap reopens.
    pub fn contact_phase(&self) -> ContactPhase {
        ContactPhase(*self)
    }

    fn free_acceleration(&self) -> f64 {
        self.external_force / self.mass - self.gravity
    }
}

impl SecondOrderSystem for PenaltyPointMass {
    fn dim(&self) -> usize {
        1
    }
    fn acceleration(
        &self,
        _t: f64,
        x: &[f64],
        v: &[f64],
        a: &mut [f64],
    ) -> Result<(), SystemError> {
        let n = if x[0] < 0.0 { self.law.contact_force(x[0], v[0]) } else { 0.0 };
        a[0] = self.free_acceleration() + n / self.mass;
        Ok(())
    }
    fn jacobians(&self, _t: f64, x: &[f64], _v: &[f64]) -> Option<(Mat<f64>, Mat<f64>)> {
        let on = if x[0] < 0.0 { 1.0 } else { 0.0 };
        let (k, c, m) = (self.law.stiffness(), self.law.damping(), self.mass);
        Some((Mat::from_fn(1, 1, |_, _| -on * k / m), Mat::from_fn(1, 1, |_, _| -on * c / m)))
    }
    fn depends_on_velocity(&self) -> bool {
        self.law.damping() != 0.0
    }
}

/// [`PenaltyPointMass`] with the contact force always on (see
/// [`PenaltyPointMass::contact_phase`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ContactPhase(pub PenaltyPointMass);

impl SecondOrderSystem for ContactPhase {
    fn dim(&self) -> usize {
        1
    }
    fn acceleration(
        &self,
        _t: f64,
        x: &[f64],
        v: &[f64],
        a: &mut [f64],
    ) -> Result<(), SystemError> {
        let p = &self.0;
        a[0] = p.free_acceleration() + p.law.contact_force(x[0], v[0]) / p.mass;
        Ok(())
    }
    fn jacobians(&self, _t: f64, _x: &[f64], _v: &[f64]) -> Option<(Mat<f64>, Mat<f64>)> {
        let p = &self.0;
        let (k, c, m) = (p.law.stiffness(), p.law.damping(), p.mass);
        Some((Mat::from_fn(1, 1, |_, _| -k / m), Mat::from_fn(1, 1, |_, _| -c / m)))
    }
    fn depends_on_velocity(&self) -> bool {
        self.0.law.damping() != 0.0
    }
}
