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
//! - `granular_packing`: 27 spheres (radius 0.5, 1..4 kg) in a 3 x 3 x 3 simple cubic lattice
//!   on a floor inside four side walls, every neighbour touching (3-D; 99 contacts: 9 floor,
//!   18 vertical, 36 along x, 36 along z). Every normal passes through the sphere centres, so J
//!   acts on the 81 translational degrees of freedom only and W = J M^-1 J' has rank <= 81 < 99:
//!   singular. Along a horizontal row wall–s–s–s–wall the four contacts act on three x
//!   coordinates, and equal forces N_c = λ >= 0 on the four balance each sphere with b = 0 on
//!   those rows (no horizontal load): the horizontal reactions form a ray, not a point. What is
//!   unique, and checked per PSD solver besides the merit: the vertical chain floor–s–s–s of
//!   each column has three contacts on three y coordinates (W restricted to it is positive
//!   definite), so each floor contact carries g times its column's mass, and their sum the
//!   total weight g Σ m; and a resting packing has every body's acceleration zero, checked as
//!   the net generalised force f + J'N = M a = 0 (M is positive definite), computed here from
//!   the scene's J and f, not from the solver.
//!
//! The expected N is computed from the scene's masses and the contact list (which body is the
//! upper one), not from any solve; every SPD solver must return it.

use std::path::{Path, PathBuf};

use std::collections::BTreeMap;

use signorini_contact::{contact_problem, read_scene, BodyKind, ContactProblem, Level, Scene};
use signorini_lcp::Lcp;

use super::{solvers, Expect, LcpCase, Run};
use crate::case::{Case, Context};
use crate::check::{fmt_observed, fmt_sci, Check};

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

/// Relative tolerance of the granular packing's floor-load and force-balance checks (of the
/// total weight g Σ m; the merit tolerance is 1e-10 relative to ||b||).
pub const PACKING_TOL: f64 = 1e-8;

const PACKING_FILE: &str = "granular-packing.toml";

/// A resting packing with singular W: per-solver merit checks of the PSD solvers plus the
/// floor load (and, on a lattice of vertical columns, each column's) and the force balance of
/// each solver's reactions.
#[derive(Debug)]
pub struct GranularPacking {
    /// The per-solver merit expectations.
    pub inner: LcpCase,
    /// The scene.
    scene: fn() -> Result<Scene, String>,
    /// Check each floor contact against its vertical column's weight (cubic lattice).
    per_column: bool,
}

fn packing_scene() -> Result<Scene, String> {
    read_scene(scene_path(PACKING_FILE)).map_err(|e| e.to_string())
}

/// The walled hexagonal disk packing of `lcp/contact/hex_packing`.
fn hex_packing_scene() -> Result<Scene, String> {
    Ok(signorini_contact::packings::hex_disks_in_box(HEX_ROWS, HEX_PER_ROW, 10.0))
}

/// Rows and disks per row of `lcp/contact/hex_packing`.
const HEX_ROWS: usize = 6;
const HEX_PER_ROW: usize = 8;

fn assemble(scene: fn() -> Result<Scene, String>) -> Result<(Scene, ContactProblem), String> {
    let scene = scene()?;
    let problem =
        contact_problem(&scene, Level::Acceleration, None, None).map_err(|e| e.to_string())?;
    Ok((scene, problem))
}

fn packing_problem() -> Result<(Scene, ContactProblem), String> {
    assemble(packing_scene)
}

/// The packing case (quick: 99 contacts).
pub fn granular_packing() -> GranularPacking {
    let source = format!(
        "{SOURCE}{PACKING_FILE}; W singular (99 contacts, 81 translational dof): checked are \
         the merit, the floor load g m_column per column (total g Σ m) and f + J'N = 0"
    );
    let inner = LcpCase::new(
        "lcp/contact/granular_packing",
        &source,
        Box::new(|| packing_problem().map(|(_, p)| p.lcp)),
    )
    .quick()
    .expect(solvers::PSD, &[Expect::Solved])
    .expect(&["newton-min"], &[Expect::Solved]);
    GranularPacking { inner, scene: packing_scene, per_column: true }
}

/// The 2D hexagonal packing between walls (`packings::hex_disks_in_box(6, 8, 10)`, quick: 131
/// contacts on 96 degrees of freedom, W singular; the issue-16 packing family at a size the
/// suite can afford): the floor carries the total weight and every disk rests.
pub fn hex_packing() -> GranularPacking {
    let source = format!(
        "contact crate assembly (acceleration level) of \
         signorini_contact::packings::hex_disks_in_box({HEX_ROWS}, {HEX_PER_ROW}, 10): \
         {HEX_ROWS} rows of {HEX_PER_ROW} touching disks, masses 1 and 10 by row, between two \
         side walls; W singular (131 contacts, 96 dof): checked are the merit, the floor load \
         g Σ m and f + J'N = 0"
    );
    let inner = LcpCase::new(
        "lcp/contact/hex_packing",
        &source,
        Box::new(|| assemble(hex_packing_scene).map(|(_, p)| p.lcp)),
    )
    .quick()
    .expect(solvers::PSD, &[Expect::Solved])
    .expect(
        &["newton-min:prox=1e-4,presweeps=200", "apgd:scaling=jacobi", "auto"],
        &[Expect::Solved],
    );
    GranularPacking { inner, scene: hex_packing_scene, per_column: false }
}

impl GranularPacking {
    /// Floor load and force balance of one solver's reactions.
    fn statics_checks(
        &self,
        scene: &Scene,
        p: &ContactProblem,
        solver: &str,
        z: &[f64],
    ) -> Vec<Check> {
        let g = -scene.gravity[1];
        let floor = scene.bodies.iter().position(|b| b.name == "floor");
        let weight = g * scene
            .bodies
            .iter()
            .filter(|b| b.kind != BodyKind::Fixed)
            .map(|b| b.mass)
            .sum::<f64>();
        let check = |kind: &str, pass: bool, e: String, o: String| {
            Check::new(
                &self.inner.id,
                Some(solver),
                kind,
                pass,
                e,
                o,
                Some(PACKING_TOL),
                &self.inner.source,
            )
        };
        let mut out = Vec::new();
        // Floor contacts: each carries its column's weight (bodies above it at the same x, z).
        let mut total = 0.0;
        let mut worst_column: f64 = 0.0;
        for (c, zc) in p.contacts.iter().zip(z) {
            let other = match floor {
                Some(f) if c.body_a == f => c.body_b,
                Some(f) if c.body_b == f => c.body_a,
                _ => continue,
            };
            total += zc;
            if !self.per_column {
                continue;
            }
            let (x, zpos) = (scene.bodies[other].position[0], scene.bodies[other].position[2]);
            let column: f64 = scene
                .bodies
                .iter()
                .filter(|b| b.kind != BodyKind::Fixed)
                .filter(|b| {
                    (b.position[0] - x).abs() <= 1e-12 && (b.position[2] - zpos).abs() <= 1e-12
                })
                .map(|b| b.mass)
                .sum();
            worst_column = worst_column.max((zc - g * column).abs());
        }
        let err = (total - weight).abs() / weight;
        out.push(check(
            "contact.floor_load",
            err <= PACKING_TOL && worst_column / weight <= PACKING_TOL,
            format!(
                "floor reactions sum to g Σ m = {weight:.10}{}, relative to g Σ m <= {}",
                if self.per_column { " and each is g m_column" } else { "" },
                fmt_sci(PACKING_TOL)
            ),
            if self.per_column {
                format!(
                    "sum {total:.10} (relative error {}), worst column error {}",
                    fmt_observed(err),
                    fmt_observed(worst_column / weight)
                )
            } else {
                format!("sum {total:.10} (relative error {})", fmt_observed(err))
            },
        ));
        // Net generalised force f + J'N = M a: zero for a resting packing.
        let jt = p.jacobian.apply_transpose(z);
        let net = p.force.iter().zip(&jt).map(|(f, r)| (f + r).abs()).fold(0.0, f64::max);
        out.push(check(
            "contact.at_rest",
            net <= PACKING_TOL * weight,
            format!(
                "every body at rest: |f + J'N|_inf = |M a|_inf <= {} g Σ m",
                fmt_sci(PACKING_TOL)
            ),
            format!(
                "|f + J'N|_inf {} (relative {})",
                fmt_observed(net),
                fmt_observed(net / weight)
            ),
        ));
        out
    }
}

impl Case for GranularPacking {
    fn id(&self) -> &str {
        &self.inner.id
    }
    fn kind(&self) -> &str {
        "lcp"
    }
    fn source(&self) -> &str {
        &self.inner.source
    }
    fn quick(&self) -> bool {
        self.inner.quick
    }
    fn run(&self, ctx: &Context) -> Vec<Check> {
        let (scene, problem) = match assemble(self.scene) {
            Ok(sp) => sp,
            Err(e) => return vec![self.inner.data_error(&e)],
        };
        let lcp: &Lcp = &problem.lcp;
        let runs: BTreeMap<String, Run> = self.inner.solve_all(ctx, lcp);
        let mut checks = self.inner.checks_of(lcp, &runs);
        for (name, run) in &runs {
            if let Run::Done(sol) = run {
                checks.extend(self.statics_checks(&scene, &problem, name, &sol.z));
            }
        }
        checks
    }
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

    #[test]
    fn hex_packing_has_131_contacts_on_48_disks() {
        let (scene, p) = assemble(hex_packing_scene).expect("hex packing");
        assert_eq!(scene.bodies.iter().filter(|b| b.kind != BodyKind::Fixed).count(), 48);
        assert_eq!(p.n_contacts(), 131);
    }

    #[test]
    fn packing_has_99_contacts_on_27_spheres() {
        let (scene, p) = packing_problem().expect("granular packing");
        assert_eq!(scene.bodies.iter().filter(|b| b.kind != BodyKind::Fixed).count(), 27);
        assert_eq!(p.n_contacts(), 99);
    }
}
