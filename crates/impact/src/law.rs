//! Impact laws and impact modes by name (`newton`, `poisson`, `inelastic`; `simultaneous`,
//! `sequential`), as scene files and the CLI spell them.

use serde::{Deserialize, Serialize};

/// A name that is not one of the accepted spellings.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("unknown {kind} `{name}`; valid: {valid}")]
pub struct UnknownName {
    /// What was being named (`impact law`, `impact mode`).
    pub kind: &'static str,
    /// The name given.
    pub name: String,
    /// Comma-separated valid names.
    pub valid: &'static str,
}

/// How a velocity jump relates post- to pre-impact normal velocities.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImpactLaw {
    /// Newton restitution: u+ = -e u- at every contact that receives an impulse.
    Newton,
    /// Poisson restitution: restitution impulse = e times the compression impulse.
    Poisson,
    /// Perfectly inelastic: u+ = 0 at every contact that receives an impulse (e ignored).
    Inelastic,
}

impl ImpactLaw {
    /// The scene-file spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ImpactLaw::Newton => "newton",
            ImpactLaw::Poisson => "poisson",
            ImpactLaw::Inelastic => "inelastic",
        }
    }

    /// Parses `newton`, `poisson` or `inelastic`.
    pub fn from_name(name: &str) -> Result<Self, UnknownName> {
        match name.trim() {
            "newton" => Ok(ImpactLaw::Newton),
            "poisson" => Ok(ImpactLaw::Poisson),
            "inelastic" => Ok(ImpactLaw::Inelastic),
            other => Err(UnknownName {
                kind: "impact law",
                name: other.into(),
                valid: "newton, poisson, inelastic",
            }),
        }
    }
}

/// Whether simultaneous contacts are resolved together (one LCP) or one pair at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ImpactMode {
    /// One multi-contact impact LCP ([`crate::solve_simultaneous`]).
    Simultaneous,
    /// Pairwise impacts in the order of [`crate::solve_sequential`].
    Sequential,
}

impl ImpactMode {
    /// The scene-file spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ImpactMode::Simultaneous => "simultaneous",
            ImpactMode::Sequential => "sequential",
        }
    }

    /// Parses `simultaneous` or `sequential`.
    pub fn from_name(name: &str) -> Result<Self, UnknownName> {
        match name.trim() {
            "simultaneous" => Ok(ImpactMode::Simultaneous),
            "sequential" => Ok(ImpactMode::Sequential),
            other => Err(UnknownName {
                kind: "impact mode",
                name: other.into(),
                valid: "simultaneous, sequential",
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_is_an_error() {
        for law in [ImpactLaw::Newton, ImpactLaw::Poisson, ImpactLaw::Inelastic] {
            assert_eq!(ImpactLaw::from_name(law.as_str()), Ok(law));
        }
        for mode in [ImpactMode::Simultaneous, ImpactMode::Sequential] {
            assert_eq!(ImpactMode::from_name(mode.as_str()), Ok(mode));
        }
        let err = ImpactLaw::from_name("plastic").unwrap_err();
        assert!(err.to_string().contains("plastic"));
        assert!(ImpactMode::from_name("both").is_err());
    }
}
