//! Contact-like Delassus matrices assembled by the contact crate (`lcp/contact/...`; REFERENCE.md
//! B): the acceleration-level LCP W N + b of two stacked scenes of `verification/scenes/`, read
//! with `signorini_contact::read_scene` and assembled with `contact_problem`.
//!
//! - `box_stack_mass_ratios`: four boxes of 1, 10, 100, 1000 kg stacked on a floor (2-D, two
//!   vertex contacts per interface, widths shrinking upwards). Statics: the interface below box
//!   k carries g times the mass of boxes k..4, and by the symmetry of the vertices about the
//!   box centre each of its two corners carries half. W (8 x 8) is positive definite (the 8
//!   normal rows of J are independent: each interface's two corners fix the relative vertical
//!   and angular motion), so N is unique. The mass ratios make W badly scaled: projected
//!   Gauss–Seidel is checked like every SPD solver but fails (it stops at its default limit of
//!   10 000 sweeps with residual 5.7e-3, measured), and the check is an `expected_failure`
//!   through `expected_failures::TABLE`; `contact/pgs/mass_ratio` shows the growth of its sweep
//!   count with the mass ratio.
//! - `granular_column`: six spheres of 1..6 kg stacked on a floor (3-D, one contact each): the
//!   contact below sphere k carries g times the mass of spheres k..6. W (6 x 6) is positive
//!   definite (a chain).
//!
//! The expected N is computed from the scene's masses and the contact list (which body is the
//! upper one), not from any solve; every SPD solver must return it.

use std::path::{Path, PathBuf};

use signorini_contact::{contact_problem, read_scene, BodyKind, Level, Scene};

use super::{solvers, Expect, LcpCase};

/// The scene folder of the verification crate.
pub fn scene_path(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes").join(file)
}

const SOURCE: &str = "contact crate assembly (signorini_contact::contact_problem, acceleration \
                      level) of verification/scenes/";

/// The expected normal reactions: per contact, `share` times g times the mass of the upper
/// body of the contact and of every body above it (bodies listed bottom-up, fixed ones last).
fn statics(file: &str, share: f64) -> Result<(signorini_lcp::Lcp, Vec<f64>), String> {
    let scene: Scene = read_scene(scene_path(file)).map_err(|e| e.to_string())?;
    let problem =
        contact_problem(&scene, Level::Acceleration, None, None).map_err(|e| e.to_string())?;
    let g = -scene.gravity[1];
    let movable: Vec<f64> =
        scene.bodies.iter().take_while(|b| b.kind != BodyKind::Fixed).map(|b| b.mass).collect();
    let mut n = Vec::with_capacity(problem.n_contacts());
    for c in &problem.contacts {
        let (a, b) = (c.body_a, c.body_b);
        // The upper body of an interface between two movable bodies is the later one; against
        // the floor it is the movable one.
        let upper = match (a < movable.len(), b < movable.len()) {
            (true, true) => a.max(b),
            (true, false) => a,
            (false, true) => b,
            (false, false) => return Err(format!("contact between two fixed bodies {a}, {b}")),
        };
        n.push(share * g * movable[upper..].iter().sum::<f64>());
    }
    Ok((problem.lcp, n))
}

fn case(id: &str, file: &'static str, share: f64, note: &str, names: &[&str]) -> LcpCase {
    let source = format!("{SOURCE}{file}; {note}");
    match statics(file, share) {
        Ok((_, z)) => {
            LcpCase::new(id, &source, Box::new(move || statics(file, share).map(|(lcp, _)| lcp)))
                .quick()
                .expect(names, &[Expect::Point(z)])
                .solved_by_any(solvers::SPD)
        }
        // The data do not load: the case reports it as a failing `lcp.data` check.
        Err(e) => LcpCase::new(id, &source, Box::new(move || Err(e.clone()))).quick(),
    }
}

/// The two scenes.
pub fn cases() -> Vec<LcpCase> {
    vec![
        case(
            "lcp/contact/box_stack_mass_ratios",
            "box-stack-mass-ratios.toml",
            0.5,
            "N = g (m_k + ... + m_4) / 2 per corner, masses 1, 10, 100, 1000 kg",
            solvers::SPD,
        ),
        case(
            "lcp/contact/granular_column",
            "granular-column.toml",
            1.0,
            "N = g (m_k + ... + m_6) per contact, masses 1..6 kg",
            solvers::SPD,
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenes_assemble_with_the_expected_sizes() {
        let (lcp, n) = statics("box-stack-mass-ratios.toml", 0.5).expect("box stack");
        assert_eq!((lcp.n(), n.len()), (8, 8));
        let top = 0.5 * 9.81 * 1000.0;
        assert!(n.iter().any(|x| (x - top).abs() <= 1e-12 * top));
        let (lcp, n) = statics("granular-column.toml", 1.0).expect("granular column");
        assert_eq!((lcp.n(), n.len()), (6, 6));
        let bottom = 9.81 * 21.0;
        assert!(n.iter().any(|x| (x - bottom).abs() <= 1e-12 * bottom));
    }
}
