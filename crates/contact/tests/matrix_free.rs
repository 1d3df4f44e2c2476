//! Issue 16, matrix-free sweeps: the contact LCP with W handed over as its Gram form
//! W = G G', G = J L ([`contact_problem_with`] and [`DelassusForm`]), against the assembled W
//! on packings: the same W, the same runs of the matrix-free solvers (statuses and
//! iterations), the nnz(W) count from J's block structure, and the `auto` choice.

use signorini_contact::delassus::{delassus_nnz, jacobian_nnz};
use signorini_contact::packings::{
    box_stacks, cubic_lattice, fcc_pile, hex_disks, loaded_tray, random_disks,
};
use signorini_contact::{
    contact_problem, contact_problem_with, ContactError, ContactReport, DelassusForm, Dimension,
    Level, Scene,
};
use signorini_lcp::{Registry, SolveOptions};

fn scenes() -> Vec<(&'static str, Scene)> {
    vec![
        ("hex_disks(8, 10, 10)", hex_disks(8, 10, 10.0)),
        ("fcc_pile(3, 3, 3)", fcc_pile((3, 3, 3), 0.1, 10.0, 1)),
        ("cubic_lattice(4)", cubic_lattice(4)),
        ("box_stacks(3D, 3, 4)", box_stacks(Dimension::Three, 3, 4, 100.0)),
        ("loaded_tray(5, 2)", loaded_tray(5, 2)),
    ]
}

#[test]
fn the_gram_form_is_the_assembled_w_and_its_nnz_is_counted_without_forming_it() {
    for (name, scene) in scenes() {
        for (level, step) in [(Level::Acceleration, None), (Level::Position, Some(0.01))] {
            let a = contact_problem(&scene, level, step, None).expect("assembles");
            let f = contact_problem_with(&scene, level, step, None, DelassusForm::MatrixFree)
                .expect("matrix-free");
            assert_eq!(f.delassus_form, DelassusForm::MatrixFree);
            assert!(f.delassus.is_none() && f.matrix.is_none(), "{name}");
            let n = a.lcp.n();
            let scale = a.lcp.diag().iter().fold(0.0f64, |m, v| m.max(*v));
            for i in 0..n {
                for j in 0..n {
                    let (x, y) = (a.lcp.get(i, j), f.lcp.get(i, j));
                    assert!((x - y).abs() <= 1e-13 * scale, "{name} {level:?} ({i}, {j}): {x} {y}");
                }
            }
            assert_eq!(f.lcp.q(), a.lcp.q(), "{name}");
            let csr = a.mass.delassus_csr(&a.jacobian);
            assert_eq!(delassus_nnz(&a.jacobian), csr.nnz(), "{name}");
            assert_eq!(f.lcp.nnz(), csr.nnz(), "{name}");
            let g = f.lcp.gram().expect("Gram form");
            assert_eq!(g.factor_nnz(), jacobian_nnz(&a.jacobian), "{name}");
        }
    }
}

#[test]
fn matrix_free_solvers_run_as_on_the_assembled_w() {
    for (name, scene) in scenes() {
        let a = contact_problem(&scene, Level::Velocity, Some(0.01), None).expect("assembles");
        let f = contact_problem_with(
            &scene,
            Level::Velocity,
            Some(0.01),
            None,
            DelassusForm::MatrixFree,
        )
        .expect("matrix-free");
        for spec in ["pgs", "psor", "sgs", "apgd"] {
            let solver = Registry::builtin().build(spec).expect("registered");
            let opts = SolveOptions { max_iter: Some(5000), ..Default::default() };
            let x = solver.solve(&a.lcp, &opts, None).expect("runs");
            let y = solver.solve(&f.lcp, &opts, None).expect("runs");
            assert_eq!(x.status, y.status, "{name} {spec}: {:?} / {:?}", x.note, y.note);
            assert_eq!(x.iterations, y.iterations, "{name} {spec}");
            let ra = ContactReport::new(&a, &x).expect("report");
            let rf = ContactReport::new(&f, &y).expect("report");
            let s = ra.reactions.iter().fold(1e-300f64, |m, v| m.max(v.abs()));
            for (p, q) in ra.reactions.iter().zip(&rf.reactions) {
                assert!((p - q).abs() <= 1e-6 * s, "{name} {spec}: {p} vs {q}");
            }
            assert!(!f.lcp.gram_is_assembled(), "{name} {spec} formed W");
        }
    }
}

#[test]
fn auto_goes_matrix_free_where_w_is_much_denser_than_j() {
    let tray = loaded_tray(8, 1);
    let p = contact_problem_with(&tray, Level::Acceleration, None, None, DelassusForm::Auto)
        .expect("assembles");
    let ratio = delassus_nnz(&p.jacobian) as f64 / jacobian_nnz(&p.jacobian) as f64;
    assert!(ratio > 4.0, "{ratio}");
    assert_eq!(p.delassus_form, DelassusForm::MatrixFree);
    let lattice = cubic_lattice(4);
    let p = contact_problem_with(&lattice, Level::Acceleration, None, None, DelassusForm::Auto)
        .expect("assembles");
    assert_eq!(p.delassus_form, DelassusForm::Assembled);
    assert!(p.delassus.is_some());
    // With friction rows the LCP is not a Gram matrix: auto assembles, matrix-free refuses.
    let p = contact_problem_with(&tray, Level::Acceleration, None, Some(4), DelassusForm::Auto)
        .expect("assembles");
    assert_eq!(p.delassus_form, DelassusForm::Assembled);
    assert!(matches!(
        contact_problem_with(&tray, Level::Acceleration, None, Some(4), DelassusForm::MatrixFree),
        Err(ContactError::MatrixFreeWithFriction)
    ));
    assert_eq!("matrix-free".parse::<DelassusForm>(), Ok(DelassusForm::MatrixFree));
    assert!("dense".parse::<DelassusForm>().is_err());
}

/// `ipm` on the Gram form of the random 2D pile at n = 10 577 (`packings_speed --family hexr
/// --sizes 10000`, the supernodal velocity-space factorisation): with Δw = M Δz + r on every
/// row it ended `stalled` at residual 1.6e-6, a w_i of 4e-16 blocked by a Δw_i of round-off
/// (-1e-14); with Δw from the complementarity equation on the active rows it solves (39 steps).
#[test]
fn ipm_solves_the_random_disk_pile_in_velocity_space() {
    let scene = random_disks(63, 63, 0.05, 10.0, 1);
    let f = contact_problem_with(&scene, Level::Acceleration, None, None, DelassusForm::MatrixFree)
        .expect("matrix-free");
    assert_eq!(f.lcp.n(), 10577);
    let solver = Registry::builtin().build("ipm").expect("registered");
    let opts = SolveOptions { tol: Some(1e-8), ..Default::default() };
    let sol = solver.solve(&f.lcp, &opts, None).expect("runs");
    assert_eq!(sol.status, signorini_lcp::Status::Solved, "{:?}", sol.note);
    assert!(sol.residual() <= 1e-8, "{}", sol.residual());
    assert!(!f.lcp.gram_is_assembled(), "ipm formed W");
}
