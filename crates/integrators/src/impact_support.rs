//! Which impact laws ([`ImpactLaw`]) and modes ([`ImpactMode`]) each scheme implements, as one
//! table with a typed refusal ([`UnsupportedImpact`]) that says why, so that no caller drops a
//! scene's `impact_law` or `impact` silently.
//!
//! | scheme | newton | inelastic | poisson | sequential |
//! |---|---|---|---|---|
//! | event-driven | yes | yes | yes | yes |
//! | Moreau–Jean | yes (velocity level) | yes (e = 0) | no | no |
//! | Stewart–Trinkle, position-level LCP | inelastic by construction | yes | no | no |
//! | penalty (smooth integrators) | the compliant law decides | no | no | no |

use signorini_impact::{ImpactLaw, ImpactMode};

/// The families of schemes, as far as impact laws are concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SchemeKind {
    /// [`crate::simulate_event_driven`]: the impact law at each located impact.
    EventDriven,
    /// [`crate::moreau_jean`]: Newton's law at velocity level in every step.
    MoreauJean,
    /// [`crate::stewart_trinkle`]: next-gap constraint with friction (inelastic).
    StewartTrinkle,
    /// [`crate::position_lcp`]: next-gap constraint (inelastic).
    PositionLcp,
    /// A compliant (penalty) contact law under a smooth integrator.
    Penalty,
}

impl SchemeKind {
    /// The scheme's name as `signorini simulate --scheme` spells it (penalty: the family).
    pub fn as_str(self) -> &'static str {
        match self {
            SchemeKind::EventDriven => "event-driven",
            SchemeKind::MoreauJean => "moreau-jean",
            SchemeKind::StewartTrinkle => "stewart-trinkle",
            SchemeKind::PositionLcp => "position-lcp",
            SchemeKind::Penalty => "penalty",
        }
    }

    /// True when the scheme's contact is perfectly inelastic whatever the restitution
    /// (Stewart–Trinkle, position-level LCP), so a restitution e > 0 has no effect.
    pub fn is_inelastic_by_construction(self) -> bool {
        matches!(self, SchemeKind::StewartTrinkle | SchemeKind::PositionLcp)
    }
}

/// A scheme was asked for an impact law or impact mode it does not implement.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("scheme {scheme} does not implement {key} = \"{value}\": {reason}")]
pub struct UnsupportedImpact {
    /// The scheme (`--scheme` spelling).
    pub scheme: &'static str,
    /// The scene key (`impact_law` or `impact`).
    pub key: &'static str,
    /// The value asked for.
    pub value: &'static str,
    /// Why the scheme cannot honour it, and what to use instead.
    pub reason: &'static str,
}

/// Checks that `scheme` implements `law` in `mode` (the table in the module docs).
pub fn check_impact_support(
    scheme: SchemeKind,
    law: ImpactLaw,
    mode: ImpactMode,
) -> Result<(), UnsupportedImpact> {
    let refuse =
        |key, value, reason| Err(UnsupportedImpact { scheme: scheme.as_str(), key, value, reason });
    match (scheme, law) {
        (SchemeKind::EventDriven, _) => return Ok(()),
        (SchemeKind::Penalty, ImpactLaw::Inelastic | ImpactLaw::Poisson) => {
            return refuse(
                "impact_law",
                law.as_str(),
                "a penalty model has no impact law: the compliant law (material.stiffness, \
                 material.damping) decides the rebound; use event-driven for an impact law",
            )
        }
        (_, ImpactLaw::Poisson) => {
            return refuse(
                "impact_law",
                law.as_str(),
                "a time-stepping scheme has one impulse per step (impact and smooth forces \
                 together) with no compression phase to apply Poisson's law to; use \
                 event-driven",
            )
        }
        _ => {}
    }
    if mode == ImpactMode::Sequential {
        return refuse(
            "impact",
            mode.as_str(),
            "a time-stepping or penalty scheme resolves all contacts of a step together; use \
             event-driven for sequential (pairwise) impacts",
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn event_driven_takes_every_law_and_mode_and_the_others_refuse_with_a_reason() {
        let laws = [ImpactLaw::Newton, ImpactLaw::Poisson, ImpactLaw::Inelastic];
        let modes = [ImpactMode::Simultaneous, ImpactMode::Sequential];
        for law in laws {
            for mode in modes {
                assert!(check_impact_support(SchemeKind::EventDriven, law, mode).is_ok());
            }
        }
        for scheme in [SchemeKind::MoreauJean, SchemeKind::StewartTrinkle, SchemeKind::PositionLcp]
        {
            for law in [ImpactLaw::Newton, ImpactLaw::Inelastic] {
                assert!(check_impact_support(scheme, law, ImpactMode::Simultaneous).is_ok());
            }
            let err = check_impact_support(scheme, ImpactLaw::Poisson, ImpactMode::Simultaneous)
                .unwrap_err();
            assert!(
                err.to_string().contains("poisson") && err.to_string().contains("event-driven")
            );
            let err = check_impact_support(scheme, ImpactLaw::Newton, ImpactMode::Sequential)
                .unwrap_err();
            assert_eq!(err.key, "impact");
        }
        assert!(check_impact_support(
            SchemeKind::Penalty,
            ImpactLaw::Newton,
            ImpactMode::Simultaneous
        )
        .is_ok());
        assert!(check_impact_support(
            SchemeKind::Penalty,
            ImpactLaw::Inelastic,
            ImpactMode::Simultaneous
        )
        .is_err());
    }
}
