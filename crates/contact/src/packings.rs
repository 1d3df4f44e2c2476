//! Scene families of the size real simulations produce, for benchmarks and verification cases:
//! granular packings whose contacts outnumber the degrees of freedom (so W = J M^-1 J' is
//! singular, the normal case in granular media; Radjai & Dubois 2011, *Discrete-Element
//! Modeling of Granular Materials*, ch. 1), and stacks of boxes with large mass ratios (badly
//! conditioned W; Acary & Brogliato 2008, §13.3). Every family is deterministic for its
//! arguments (seeded where random), rests on a fixed floor under gravity, and is assembled by
//! [`crate::contact_problem`] like any scene.
//!
//! | family | dimension | bodies | contacts per body | W |
//! |---|---|---|---|---|
//! | [`hex_disks`] | 2D particles | rows x per_row | about 3 (hexagonal lattice) | singular (3 > 2 dofs) |
//! | [`hex_disks_in_box`] | 2D particles | as [`hex_disks`], between two side walls | about 3 | singular |
//! | [`random_disks`] | 2D particles | hexagonal sites minus vacancies | up to 3 | singular |
//! | [`fcc_pile`] | 3D particles | FCC sites minus vacancies | up to 6 (12 neighbours) | singular (6 > 3 dofs) |
//! | [`cubic_lattice`] | 3D rigid spheres | n^3 | about 3 | regular (3 n^3 - 2 n^2 contacts act on 3 n^3 translations) |
//! | [`box_stacks`] | 2D or 3D rigid boxes | columns x height | 2 (2D) or 4 (3D) corners | regular, conditioned by the mass ratio |
//! | [`loaded_tray`] | 3D rigid tray + particles | k^2 layers + 1 | k^2 on the tray, 4 to 6 per sphere | dense block: every sphere on the tray couples with every other, nnz(W) >= k^4 |

use crate::body::{Body, Dimension};
use crate::math::Vec3;
use crate::scene::Scene;
use crate::shape::Shape;

const GRAVITY: f64 = 9.81;
/// Contact margin of every family: touching gaps are zero up to round-off in the lattice
/// coordinates (sqrt(3)/2 row spacing), so a margin of 1e-9 (diameters are 1) closes them.
const MARGIN: f64 = 1e-9;

fn floor(dim: Dimension) -> Body {
    let normal = match dim {
        Dimension::Two => [0.0, 1.0, 0.0],
        Dimension::Three => [0.0, 0.0, 1.0],
    };
    Body::fixed("floor", Shape::HalfSpace { normal, offset: 0.0 })
}

fn scene(dim: Dimension, bodies: Vec<Body>) -> Scene {
    let gravity = match dim {
        Dimension::Two => [0.0, -GRAVITY, 0.0],
        Dimension::Three => [0.0, 0.0, -GRAVITY],
    };
    let mut s = Scene::new(dim, gravity);
    s.margin = MARGIN;
    s.bodies = bodies;
    s
}

/// Disks of diameter 1 on a hexagonal lattice resting on the floor: `rows` rows of `per_row`
/// touching disks, odd rows shifted by 1/2, row spacing sqrt(3)/2. Masses alternate between
/// rows (1 on even rows, `mass_ratio` on odd ones), so every inter-row contact joins masses in
/// that ratio. An interior disk touches six neighbours: about 3 rows x per_row contacts for
/// 2 rows x per_row translational degrees of freedom.
pub fn hex_disks(rows: usize, per_row: usize, mass_ratio: f64) -> Scene {
    hex_sites(rows, per_row, |r, _| Some(if r % 2 == 1 { mass_ratio } else { 1.0 }))
}

/// Disks of diameter 1 on the hexagonal lattice of [`hex_disks`] on the floor, site by site in
/// row order: `mass(row, column)` gives the disk's mass, or `None` to leave the site empty.
fn hex_sites(
    rows: usize,
    per_row: usize,
    mut mass: impl FnMut(usize, usize) -> Option<f64>,
) -> Scene {
    let h = 3f64.sqrt() / 2.0;
    let mut bodies = Vec::with_capacity(rows * per_row + 1);
    for r in 0..rows {
        let shift = if r % 2 == 1 { 0.5 } else { 0.0 };
        for j in 0..per_row {
            let Some(m) = mass(r, j) else { continue };
            let x: Vec3 = [j as f64 + shift, 0.5 + r as f64 * h, 0.0];
            bodies.push(Body::particle(
                format!("d{r}_{j}"),
                Dimension::Two,
                m,
                Shape::Sphere { radius: 0.5 },
                x,
            ));
        }
    }
    bodies.push(floor(Dimension::Two));
    scene(Dimension::Two, bodies)
}

/// [`hex_disks`] between two frictionless side walls: the left wall (x = -1/2) touches the
/// first disk of every even row, the right one (x = `per_row`) the last disk of every odd row.
/// The walls take the lattice's horizontal thrust, so the packing can rest: every disk's
/// acceleration is zero and the floor carries the total weight (`lcp/contact/hex_packing` in
/// the verification suite). W stays singular.
pub fn hex_disks_in_box(rows: usize, per_row: usize, mass_ratio: f64) -> Scene {
    let mut s = hex_disks(rows, per_row, mass_ratio);
    s.bodies
        .push(Body::fixed("left_wall", Shape::HalfSpace { normal: [1.0, 0.0, 0.0], offset: -0.5 }));
    s.bodies.push(Body::fixed(
        "right_wall",
        Shape::HalfSpace { normal: [-1.0, 0.0, 0.0], offset: -(per_row as f64) },
    ));
    s
}

/// A random disk pile: the sites of [`hex_disks`] with a `vacancies` fraction left empty at
/// random (seeded by `seed`) and masses log-uniform in [1, `mass_ratio`], the 2D counterpart
/// of [`fcc_pile`]. Around each vacancy the lattice loses its regular contact pattern; away
/// from them a disk still touches up to six neighbours, so W stays singular.
pub fn random_disks(
    rows: usize,
    per_row: usize,
    vacancies: f64,
    mass_ratio: f64,
    seed: u64,
) -> Scene {
    let mut rng = SplitMix(seed);
    hex_sites(rows, per_row, |_, _| {
        let draw = rng.unit();
        let log_mass = rng.unit() * mass_ratio.max(1.0).ln();
        (draw >= vacancies).then(|| log_mass.exp())
    })
}

/// A small deterministic generator (SplitMix64) for the random families.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A pile of spheres of diameter 1 on the sites of a face-centred cubic lattice (nearest
/// neighbours touching, 12 of them inside the pile) in an nx x ny x nz block of cubic cells of
/// side sqrt(2), with a `vacancies` fraction of the sites left empty at random (seeded by
/// `seed`) and masses log-uniform in [1, `mass_ratio`]. The bottom layer rests on the floor.
/// Particles (3 translational dofs each) with up to 6 contacts per sphere: W is singular.
pub fn fcc_pile(
    (nx, ny, nz): (usize, usize, usize),
    vacancies: f64,
    mass_ratio: f64,
    seed: u64,
) -> Scene {
    let a = 2f64.sqrt();
    let basis = [[0.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.5, 0.0, 0.5], [0.0, 0.5, 0.5]];
    let mut rng = SplitMix(seed);
    let mut bodies = Vec::with_capacity(4 * nx * ny * nz + 1);
    for i in 0..nx {
        for j in 0..ny {
            for k in 0..nz {
                for (b, off) in basis.iter().enumerate() {
                    let draw = rng.unit();
                    let log_mass = rng.unit() * mass_ratio.max(1.0).ln();
                    if draw < vacancies {
                        continue;
                    }
                    let x: Vec3 = [
                        a * (i as f64 + off[0]),
                        a * (j as f64 + off[1]),
                        0.5 + a * (k as f64 + off[2]),
                    ];
                    bodies.push(Body::particle(
                        format!("s{i}_{j}_{k}_{b}"),
                        Dimension::Three,
                        log_mass.exp(),
                        Shape::Sphere { radius: 0.5 },
                        x,
                    ));
                }
            }
        }
    }
    bodies.push(floor(Dimension::Three));
    scene(Dimension::Three, bodies)
}

/// n^3 touching rigid spheres of diameter 1 on a simple cubic lattice on the floor, masses
/// 1, 2, 3 by (i + j + k) mod 3: 3 n^2 (n - 1) + n^2 contacts (n = 33: 105 633), the lattice of
/// the Delassus assembly bench.
pub fn cubic_lattice(n: usize) -> Scene {
    let mut bodies = Vec::with_capacity(n * n * n + 1);
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                let x: Vec3 = [i as f64, j as f64, 0.5 + k as f64];
                bodies.push(Body::rigid(
                    format!("s{i}_{j}_{k}"),
                    Dimension::Three,
                    1.0 + ((i + j + k) % 3) as f64,
                    Shape::Sphere { radius: 0.5 },
                    x,
                ));
            }
        }
    }
    bodies.push(floor(Dimension::Three));
    scene(Dimension::Three, bodies)
}

/// `columns` separate stacks of `height` rigid boxes (thickness 0.2) on the floor, masses
/// growing geometrically from 1 at the bottom to `mass_ratio` at the top; widths shrink upwards
/// so every upper corner lies inside the face below (vertex–face contacts, none coincident).
/// 2D: 2 corner contacts per interface for 3 dofs per box; 3D: 4 corners for 6 dofs.
pub fn box_stacks(dim: Dimension, columns: usize, height: usize, mass_ratio: f64) -> Scene {
    let t = 0.1;
    let mut bodies = Vec::with_capacity(columns * height + 1);
    let growth = if height > 1 { mass_ratio.max(1.0).powf(1.0 / (height - 1) as f64) } else { 1.0 };
    let base = 0.5 + 0.05 * height as f64;
    for c in 0..columns {
        let x0 = c as f64 * (2.0 * base + 0.5);
        for level in 0..height {
            let half = base - 0.05 * level as f64;
            let (x, shape) = match dim {
                Dimension::Two => (
                    [x0, t + 2.0 * t * level as f64, 0.0],
                    Shape::Box { half_extents: [half, t, 0.0] },
                ),
                Dimension::Three => (
                    [x0, 0.0, t + 2.0 * t * level as f64],
                    Shape::Box { half_extents: [half, half, t] },
                ),
            };
            bodies.push(Body::rigid(
                format!("b{c}_{level}"),
                dim,
                growth.powi(level as i32),
                shape,
                x,
            ));
        }
    }
    bodies.push(floor(dim));
    scene(dim, bodies)
}

/// A free rigid tray (a box of side k, thickness 0.2, mass k^2) on the floor, carrying
/// `layers` layers of k x k touching spheres of diameter 1 (particles of mass 1, simple cubic
/// stacking). Every sphere of the bottom layer touches the tray, so the k^2 rows on the tray
/// couple with each other through it: nnz(W) >= k^4 while nnz(J) grows like k^2 `layers`
/// (the case where W is far denser than J, as under any body with many contacts).
pub fn loaded_tray(k: usize, layers: usize) -> Scene {
    let t = 0.1;
    let side = k as f64;
    let mut bodies = Vec::with_capacity(k * k * layers + 2);
    bodies.push(Body::rigid(
        "tray",
        Dimension::Three,
        side * side,
        Shape::Box { half_extents: [side / 2.0, side / 2.0, t] },
        [side / 2.0, side / 2.0, t],
    ));
    for l in 0..layers {
        for i in 0..k {
            for j in 0..k {
                let x: Vec3 = [i as f64 + 0.5, j as f64 + 0.5, 2.0 * t + 0.5 + l as f64];
                bodies.push(Body::particle(
                    format!("s{l}_{i}_{j}"),
                    Dimension::Three,
                    1.0,
                    Shape::Sphere { radius: 0.5 },
                    x,
                ));
            }
        }
    }
    bodies.push(floor(Dimension::Three));
    scene(Dimension::Three, bodies)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::detect_contacts;

    fn contacts(s: &Scene) -> usize {
        detect_contacts(&s.bodies, s.dimension, s.margin).expect("contacts").len()
    }

    #[test]
    fn hex_disks_touch_six_neighbours() {
        // rows r: in-row pairs (per_row - 1) each, rows above: 2 per disk but at the ends;
        // floor: the bottom row.
        let (rows, per_row) = (4, 5);
        let s = hex_disks(rows, per_row, 10.0);
        let in_row = rows * (per_row - 1);
        let between = (rows - 1) * (2 * per_row - 1);
        assert_eq!(contacts(&s), in_row + between + per_row);
        assert!(contacts(&s) > 2 * rows * per_row, "contacts outnumber dofs");
    }

    #[test]
    fn walls_touch_alternate_rows() {
        let (rows, per_row) = (4, 5);
        let extra = contacts(&hex_disks_in_box(rows, per_row, 10.0))
            - contacts(&hex_disks(rows, per_row, 10.0));
        // The left wall touches rows 0 and 2, the right one rows 1 and 3.
        assert_eq!(extra, rows);
    }

    #[test]
    fn random_disks_are_deterministic_and_over_constrained() {
        let a = random_disks(12, 12, 0.1, 10.0, 3);
        assert_eq!(a, random_disks(12, 12, 0.1, 10.0, 3));
        assert_ne!(a, random_disks(12, 12, 0.1, 10.0, 4));
        let disks = a.bodies.len() - 1;
        assert!(disks < 144 && disks > 110, "{disks} of 144 sites");
        assert!(contacts(&a) > 2 * disks, "{} contacts, {disks} disks", contacts(&a));
        assert!(contacts(&a) < contacts(&hex_disks(12, 12, 10.0)));
        assert!(a
            .bodies
            .iter()
            .all(|b| b.kind == crate::BodyKind::Fixed || (1.0..=10.0).contains(&b.mass)));
    }

    #[test]
    fn fcc_pile_is_deterministic_and_over_constrained() {
        let a = fcc_pile((3, 3, 3), 0.1, 10.0, 7);
        let b = fcc_pile((3, 3, 3), 0.1, 10.0, 7);
        assert_eq!(a, b);
        let spheres = a.bodies.len() - 1;
        assert!(spheres < 108 && spheres > 80, "{spheres} of 108 sites");
        assert!(contacts(&a) > 3 * spheres, "{} contacts, {spheres} spheres", contacts(&a));
        assert!(a
            .bodies
            .iter()
            .all(|b| b.kind == crate::BodyKind::Fixed || (1.0..=10.0).contains(&b.mass)));
    }

    #[test]
    fn cubic_lattice_has_the_bench_count() {
        assert_eq!(contacts(&cubic_lattice(4)), 3 * 16 * 3 + 16);
    }

    #[test]
    fn box_stacks_have_corner_contacts() {
        let s2 = box_stacks(Dimension::Two, 3, 4, 1000.0);
        assert_eq!(contacts(&s2), 3 * 4 * 2);
        let s3 = box_stacks(Dimension::Three, 2, 3, 100.0);
        assert_eq!(contacts(&s3), 2 * 3 * 4);
        let top = s2.bodies.iter().find(|b| b.name == "b0_3").expect("top box");
        assert!((top.mass - 1000.0).abs() < 1e-9);
    }
}
