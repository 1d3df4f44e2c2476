//! The schemes a [`crate::Simulation`] runs, parsed from their names (no catch-all: an unknown
//! name is an error listing the valid ones), and a scene's impact keys (`material.impact_law`,
//! `material.impact`) as typed settings.

use std::fmt;
use std::str::FromStr;

use signorini_contact::Material;
use signorini_impact::{ImpactLaw, ImpactMode, UnknownName};

use crate::impact_support::SchemeKind;
use crate::smooth::{
    ExplicitEuler, ImplicitEuler, ImplicitMidpoint, Integrator, NewtonParams, Rk4, StormerVerlet,
    SymplecticEuler,
};

/// The smooth integrator of a penalty scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PenaltyIntegrator {
    /// Explicit (forward) Euler.
    ExplicitEuler,
    /// Symplectic Euler.
    SymplecticEuler,
    /// Störmer–Verlet.
    Verlet,
    /// Classical Runge–Kutta of order 4.
    Rk4,
    /// Implicit Euler (Newton on the velocity unknown).
    ImplicitEuler,
    /// Implicit midpoint (Newton on the velocity unknown).
    ImplicitMidpoint,
}

impl PenaltyIntegrator {
    /// Every integrator, in the order the names are listed.
    pub const ALL: [PenaltyIntegrator; 6] = [
        PenaltyIntegrator::ExplicitEuler,
        PenaltyIntegrator::SymplecticEuler,
        PenaltyIntegrator::Verlet,
        PenaltyIntegrator::Rk4,
        PenaltyIntegrator::ImplicitEuler,
        PenaltyIntegrator::ImplicitMidpoint,
    ];

    /// The integrator's name (`rk4`, `verlet`, ...).
    pub fn name(self) -> &'static str {
        match self {
            PenaltyIntegrator::ExplicitEuler => "explicit-euler",
            PenaltyIntegrator::SymplecticEuler => "symplectic-euler",
            PenaltyIntegrator::Verlet => "verlet",
            PenaltyIntegrator::Rk4 => "rk4",
            PenaltyIntegrator::ImplicitEuler => "implicit-euler",
            PenaltyIntegrator::ImplicitMidpoint => "implicit-midpoint",
        }
    }

    /// The integrator, with default Newton settings for the implicit ones.
    pub fn integrator(self) -> Box<dyn Integrator> {
        let newton = NewtonParams::default();
        match self {
            PenaltyIntegrator::ExplicitEuler => Box::new(ExplicitEuler),
            PenaltyIntegrator::SymplecticEuler => Box::new(SymplecticEuler),
            PenaltyIntegrator::Verlet => Box::new(StormerVerlet { newton }),
            PenaltyIntegrator::Rk4 => Box::new(Rk4),
            PenaltyIntegrator::ImplicitEuler => Box::new(ImplicitEuler { newton }),
            PenaltyIntegrator::ImplicitMidpoint => Box::new(ImplicitMidpoint { newton }),
        }
    }
}

/// A scheme `signorini simulate --scheme` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// `moreau-jean`: Moreau–Jean with Newton's law at velocity level.
    MoreauJean,
    /// `stewart-trinkle`: Stewart–Trinkle / Anitescu–Potra with Coulomb friction.
    StewartTrinkle,
    /// `position-lcp`: the position-level time-stepping LCP.
    PositionLcp,
    /// `event-driven`: located impacts, RK4 flight.
    EventDriven,
    /// `penalty:<integrator>`: the Kelvin–Voigt compliant law under a smooth integrator.
    Penalty(PenaltyIntegrator),
}

impl Scheme {
    /// Every scheme, in the order the names are listed.
    pub fn all() -> Vec<Scheme> {
        let mut v = vec![
            Scheme::MoreauJean,
            Scheme::StewartTrinkle,
            Scheme::PositionLcp,
            Scheme::EventDriven,
        ];
        v.extend(PenaltyIntegrator::ALL.map(Scheme::Penalty));
        v
    }

    /// Every valid name, comma-separated.
    pub fn names() -> String {
        Scheme::all().iter().map(Scheme::to_string).collect::<Vec<_>>().join(", ")
    }

    /// The scheme's family, as far as impact laws are concerned.
    pub fn kind(self) -> SchemeKind {
        match self {
            Scheme::MoreauJean => SchemeKind::MoreauJean,
            Scheme::StewartTrinkle => SchemeKind::StewartTrinkle,
            Scheme::PositionLcp => SchemeKind::PositionLcp,
            Scheme::EventDriven => SchemeKind::EventDriven,
            Scheme::Penalty(_) => SchemeKind::Penalty,
        }
    }

    /// The step h used when none is given: 1e-3 for the time steppers, 1e-2 for the
    /// event-driven flight integrator, 1e-5 for penalty schemes (the contact frequency
    /// sqrt(k/m) needs many steps per contact).
    pub fn default_step(self) -> f64 {
        match self {
            Scheme::MoreauJean | Scheme::StewartTrinkle | Scheme::PositionLcp => 1e-3,
            Scheme::EventDriven => 1e-2,
            Scheme::Penalty(_) => 1e-5,
        }
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scheme::Penalty(i) => write!(f, "penalty:{}", i.name()),
            other => f.write_str(other.kind().as_str()),
        }
    }
}

/// A scheme name that is not one of [`Scheme::names`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scheme `{given}`; valid: {}", Scheme::names())]
pub struct UnknownScheme {
    /// The name given.
    pub given: String,
}

impl FromStr for Scheme {
    type Err = UnknownScheme;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let name = s.trim();
        Scheme::all()
            .into_iter()
            .find(|scheme| scheme.to_string() == name)
            .ok_or_else(|| UnknownScheme { given: name.to_owned() })
    }
}

/// The impact law and mode a scene asks for (`[material] impact_law`, `impact`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImpactSettings {
    /// `material.impact_law` (default newton).
    pub law: ImpactLaw,
    /// `material.impact` (default simultaneous).
    pub mode: ImpactMode,
    /// Whether the scene named `material.impact_law` itself (not the default).
    pub law_given: bool,
}

/// A scene's impact key holds a value that is not a valid name.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("key `material.{key}`: \"{value}\": {source}")]
pub struct SceneKeyError {
    /// `impact_law` or `impact`.
    pub key: &'static str,
    /// The value as written.
    pub value: String,
    /// Why it is refused (the valid names).
    pub source: UnknownName,
}

impl ImpactSettings {
    /// Parses `material.impact_law` (newton | poisson | inelastic) and `material.impact`
    /// (simultaneous | sequential). Which scheme takes which is checked by
    /// [`crate::check_impact_support`] once the scheme is known.
    pub fn from_material(material: &Material) -> Result<Self, SceneKeyError> {
        let law = match &material.impact_law {
            None => ImpactLaw::Newton,
            Some(v) => ImpactLaw::from_name(v).map_err(|source| SceneKeyError {
                key: "impact_law",
                value: v.clone(),
                source,
            })?,
        };
        let mode = match &material.impact {
            None => ImpactMode::Simultaneous,
            Some(v) => ImpactMode::from_name(v).map_err(|source| SceneKeyError {
                key: "impact",
                value: v.clone(),
                source,
            })?,
        };
        Ok(Self { law, mode, law_given: material.impact_law.is_some() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_round_trips_and_an_unknown_one_lists_the_valid_names() {
        for scheme in Scheme::all() {
            assert_eq!(scheme.to_string().parse::<Scheme>(), Ok(scheme));
        }
        assert_eq!(" penalty:rk4 ".parse::<Scheme>(), Ok(Scheme::Penalty(PenaltyIntegrator::Rk4)));
        for bad in ["leapfrog", "penalty:leapfrog", "penalty:", "penalty", "", "Moreau-Jean"] {
            let err = bad.parse::<Scheme>().unwrap_err();
            let text = err.to_string();
            assert!(text.contains("moreau-jean") && text.contains("penalty:implicit-midpoint"));
        }
    }

    #[test]
    fn impact_keys_default_and_refuse_unknown_values_naming_the_key() {
        let mut m = Material::default();
        let s = ImpactSettings::from_material(&m).unwrap();
        assert_eq!(
            (s.law, s.mode, s.law_given),
            (ImpactLaw::Newton, ImpactMode::Simultaneous, false)
        );
        m.impact_law = Some("newtn".into());
        let e = ImpactSettings::from_material(&m).unwrap_err().to_string();
        assert!(e.contains("material.impact_law") && e.contains("newtn"), "{e}");
        m.impact_law = Some("inelastic".into());
        m.impact = Some("both".into());
        let e = ImpactSettings::from_material(&m).unwrap_err().to_string();
        assert!(e.contains("material.impact") && e.contains("both"), "{e}");
    }
}
