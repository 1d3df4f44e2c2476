//! Reference scenes of issue 4 with closed-form reactions and accelerations (REFERENCE.md A4,
//! A5; V-groove statics; box stack; singular four-corner box; granular column), each read from
//! its file in verification/scenes/ and solved by name through the registry (or the test-only
//! solvers of `common` while none is registered).
#![allow(clippy::needless_range_loop)] // matrix tests read best with indices

mod common;

use common::{close, scene_path, solve_general, solve_symmetric};
use signorini_contact::{
    contact_problem, coulomb_1d_lcp, read_scene, Body, ContactReport, Dimension, Level, Scene,
    Shape,
};

const G: f64 = 9.81;

fn acceleration_problem(file: &str) -> (Scene, signorini_contact::ContactProblem) {
    let scene = read_scene(scene_path(file)).expect("reference scene parses");
    let problem = contact_problem(&scene, Level::Acceleration, None, None).expect("assembles");
    (scene, problem)
}

/// REFERENCE.md A5: N = max(mg - u, 0) summed over the two corners, a = max((u - mg)/m, 0).
fn check_pulled_block(file: &str, u: f64) {
    let (_, problem) = acceleration_problem(file);
    assert_eq!(problem.n_contacts(), 2, "box on floor in 2D: two corners");
    let solution = solve_symmetric(&problem.lcp);
    let report = ContactReport::new(&problem, &solution).expect("report");
    let m = 2.0;
    let total: f64 = report.reactions.iter().sum();
    let expected_n = (m * G - u).max(0.0);
    assert!(close(total, expected_n, 1e-9, 1.0), "u = {u}: sum N = {total}, expected {expected_n}");
    let expected_a = ((u - m * G) / m).max(0.0);
    for a in report.normal_accelerations.as_ref().expect("acceleration level") {
        assert!(close(*a, expected_a, 1e-9, 1.0), "u = {u}: a = {a}, expected {expected_a}");
    }
    for (n, a) in
        report.reactions.iter().zip(report.normal_accelerations.as_ref().unwrap_or(&vec![]))
    {
        assert!(n * a <= 1e-9, "complementarity N a = {}", n * a);
    }
}

#[test]
fn a5_block_pulled_u5_reactions_sum_to_14_62() {
    check_pulled_block("block-pulled-u5.toml", 5.0);
    // The figure of REFERENCE.md to its digits.
    assert!(close(2.0 * G - 5.0, 14.62, 1e-12, 1.0));
}

#[test]
fn a5_block_pulled_u19_62_touching_unloaded() {
    check_pulled_block("block-pulled-u19_62.toml", 19.62);
}

#[test]
fn a5_block_pulled_u25_separates_with_2_69() {
    check_pulled_block("block-pulled-u25.toml", 25.0);
    assert!(close((25.0 - 2.0 * G) / 2.0, 2.69, 1e-12, 1.0));
}

#[test]
fn a4_coupled_two_contacts_w_b_and_reactions() {
    let (_, problem) = acceleration_problem("coupled-two-contacts.toml");
    assert_eq!(problem.n_contacts(), 2);
    let w = problem.delassus.as_ref().expect("assembled").to_dense();
    let expected = [[2.0, 1.0], [1.0, 2.0]];
    for i in 0..2 {
        for j in 0..2 {
            assert!(close(w[i][j], expected[i][j], 1e-12, 1.0), "W = {w:?}");
        }
        assert!(close(problem.b[i], -3.0, 1e-12, 1.0), "b = {:?}", problem.b);
    }
    let solution = solve_symmetric(&problem.lcp);
    for &n in &solution.z {
        assert!(close(n, 1.0, 1e-9, 1.0), "N = {:?}", solution.z);
    }
    for &a in &solution.w {
        assert!(a.abs() <= 1e-9, "a = {:?}", solution.w);
    }
    // The decoupled guess 1.5 N each gives 1.5 m/s^2 outward at both loaded contacts.
    let guess = problem.delassus.as_ref().expect("assembled").mul_vec(&[1.5, 1.5]);
    for (g, b) in guess.iter().zip(&problem.b) {
        assert!(close(g + b, 1.5, 1e-12, 1.0));
    }
}

#[test]
fn sphere_in_v_groove_statics() {
    let (scene, problem) = acceleration_problem("sphere-v-groove.toml");
    assert_eq!(problem.n_contacts(), 2);
    let solution = solve_symmetric(&problem.lcp);
    let (a1, a2) = (20f64.to_radians(), 50f64.to_radians());
    let m = scene.bodies[0].mass;
    let expected = [m * G * a2.sin() / (a1 + a2).sin(), m * G * a1.sin() / (a1 + a2).sin()];
    // Contacts are ordered by pair: (ball, wall1), (ball, wall2).
    for (n, e) in solution.z.iter().zip(expected) {
        assert!(close(*n, e, 1e-9, 1.0), "N = {:?}, expected {expected:?}", solution.z);
    }
    let acc = problem.acceleration(&solution.z);
    for a in acc {
        assert!(a.abs() <= 1e-9, "acceleration {a}");
    }
}

#[test]
fn box_stack_with_mass_ratios_1_10_100_1000() {
    let (scene, problem) = acceleration_problem("box-stack-mass-ratios.toml");
    assert_eq!(problem.n_contacts(), 8, "two vertex contacts per interface");
    // Pivoting: projected Gauss–Seidel slows with the mass ratio (the registered `pgs` stops at
    // its default iteration limit short of 1e-12 here).
    let solution = solve_general(&problem.lcp);
    let masses: Vec<f64> = scene.bodies[..4].iter().map(|b| b.mass).collect();
    for (c, n) in problem.contacts.iter().zip(&solution.z) {
        // The upper body of the interface is body a unless it is the floor pair.
        let upper =
            if problem.body_names[c.body_b] == "floor" { c.body_a } else { c.body_a.max(c.body_b) };
        let load: f64 = masses[upper..].iter().sum::<f64>() * G;
        assert!(
            close(*n, 0.5 * load, 1e-9, 1.0),
            "contact {c:?}: N = {n}, expected {}",
            0.5 * load
        );
    }
    for a in problem.acceleration(&solution.z) {
        assert!(a.abs() <= 1e-9 * G, "acceleration {a}");
    }
}

#[test]
fn box_3d_on_four_corners_singular_w() {
    let (scene, problem) = acceleration_problem("box-3d-four-corners.toml");
    assert_eq!(problem.n_contacts(), 4);
    // W is singular: the checkerboard combination of corner forces moves nothing.
    let signs: Vec<f64> = problem
        .contacts
        .iter()
        .map(|c| {
            let r = signorini_contact::math::sub(c.point_a, scene.bodies[0].position);
            let local = signorini_contact::math::mat_t_vec(&scene.bodies[0].rotation(), r);
            local[0].signum() * local[2].signum()
        })
        .collect();
    let wv = problem.delassus.as_ref().expect("assembled").mul_vec(&signs);
    let scale = problem
        .delassus
        .as_ref()
        .expect("assembled")
        .val
        .iter()
        .fold(0.0_f64, |m, v| m.max(v.abs()));
    for x in wv {
        assert!(x.abs() <= 1e-12 * scale, "W s = {x}");
    }
    let solution = solve_symmetric(&problem.lcp);
    let total: f64 = solution.z.iter().sum();
    assert!(close(total, 3.0 * G, 1e-9, 1.0), "sum N = {total}");
    for a in problem.acceleration(&solution.z) {
        assert!(a.abs() <= 1e-8, "acceleration {a}");
    }
}

#[test]
fn granular_column_loads() {
    let (scene, problem) = acceleration_problem("granular-column.toml");
    assert_eq!(problem.n_contacts(), 6);
    let solution = solve_symmetric(&problem.lcp);
    let masses: Vec<f64> = scene.bodies[..6].iter().map(|b| b.mass).collect();
    for (c, n) in problem.contacts.iter().zip(&solution.z) {
        let upper =
            if problem.body_names[c.body_b] == "floor" { c.body_a } else { c.body_a.max(c.body_b) };
        let load: f64 = masses[upper..].iter().sum::<f64>() * G;
        assert!(close(*n, load, 1e-9, 1.0), "contact {c:?}: N = {n}, expected {load}");
    }
}

#[test]
fn toml_and_json_give_the_same_scene() {
    let toml_scene = read_scene(scene_path("block-pulled-u5.toml")).expect("toml");
    let json = r#"{"dimension": 2, "gravity": [0.0, -9.81],
      "material": {"restitution": 0.0, "friction": 0.0, "stiffness": 1.0e5, "damping": 0.0},
      "body": [
        {"name": "block", "mass": 2.0, "inertia": 0.0417,
         "shape": {"type": "box", "half_extents": [0.25, 0.25]},
         "position": [0.0, 0.25], "angle": 0.0, "velocity": [0.0, 0.0],
         "angular_velocity": 0.0, "force": [0.0, 5.0]},
        {"name": "floor", "fixed": true,
         "shape": {"type": "halfspace", "normal": [0.0, 1.0], "offset": 0.0}}]}"#;
    let json_scene = Scene::from_json_str(json).expect("json");
    assert_eq!(toml_scene, json_scene);
}

#[test]
fn report_json_has_the_cli_keys() {
    let (_, problem) = acceleration_problem("block-pulled-u5.toml");
    let solution = solve_symmetric(&problem.lcp);
    let report = ContactReport::new(&problem, &solution).expect("report");
    let v = serde_json::to_value(&report).expect("serialises");
    for key in ["n_contacts", "contacts", "W", "b", "status", "reactions", "normal_accelerations"] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    for key in ["n", "row", "col", "val"] {
        assert!(v["W"].get(key).is_some(), "W missing {key}");
    }
    for key in ["body_a", "body_b", "point", "normal", "gap"] {
        assert!(v["contacts"][0].get(key).is_some(), "contact missing {key}");
    }
    assert_eq!(v["status"], "solved");
    assert_eq!(v["contacts"][0]["body_a"], "block");
    assert_eq!(v["contacts"][0]["body_b"], "floor");
}

/// A block on a floor with gravity tilted by α (an incline): sticks iff tan α <= μ, else slides
/// with g (sin α − μ cos α) (REFERENCE.md C; a 2D cone with k = 2 is exact Coulomb).
fn incline(alpha_deg: f64, mu: f64) -> (Scene, signorini_contact::ContactProblem, Vec<f64>) {
    let a = alpha_deg.to_radians();
    let mut scene = Scene::new(Dimension::Two, [G * a.sin(), -G * a.cos(), 0.0]);
    scene.material.friction = mu;
    scene.margin = 1e-9;
    scene.bodies.push(Body::rigid(
        "block",
        Dimension::Two,
        2.0,
        Shape::Box { half_extents: [0.5, 0.1, 0.0] },
        [0.0, 0.1, 0.0],
    ));
    scene
        .bodies
        .push(Body::fixed("floor", Shape::HalfSpace { normal: [0.0, 1.0, 0.0], offset: 0.0 }));
    let problem = contact_problem(&scene, Level::Acceleration, None, Some(2)).expect("assembles");
    let solution = solve_general(&problem.lcp);
    let acc = problem.acceleration(&solution.z);
    (scene, problem, acc)
}

#[test]
fn friction_incline_sticks_when_tan_alpha_below_mu() {
    let (_, problem, acc) = incline(20.0, 0.5);
    assert_eq!(problem.lcp.n(), 2 + 4 + 2);
    for a in acc {
        assert!(a.abs() <= 1e-9, "sticking block accelerates: {a}");
    }
}

#[test]
fn friction_incline_slides_with_g_sin_minus_mu_cos() {
    let alpha = 40f64.to_radians();
    let mu = 0.5;
    let (_, _, acc) = incline(40.0, mu);
    let expected = G * (alpha.sin() - mu * alpha.cos());
    assert!(close(acc[0], expected, 1e-9, 1.0), "a_x = {}, expected {expected}", acc[0]);
    assert!(acc[1].abs() <= 1e-9 && acc[2].abs() <= 1e-9, "a = {acc:?}");
}

#[test]
fn friction_velocity_level_particle_slows_by_h_mu_g() {
    // A particle disk sliding at v0 on a floor; one step of the Stewart–Trinkle LCP.
    for (v0, expected) in [(1.0, 1.0 - 0.01 * 0.3 * G), (0.02, 0.0)] {
        let mut scene = Scene::new(Dimension::Two, [0.0, -G, 0.0]);
        scene.material.friction = 0.3;
        scene.margin = 1e-9;
        let mut disk = Body::particle(
            "disk",
            Dimension::Two,
            1.5,
            Shape::Sphere { radius: 0.2 },
            [0.0, 0.2, 0.0],
        );
        disk.velocity = [v0, 0.0, 0.0];
        scene.bodies.push(disk);
        scene
            .bodies
            .push(Body::fixed("floor", Shape::HalfSpace { normal: [0.0, 1.0, 0.0], offset: 0.0 }));
        let problem =
            contact_problem(&scene, Level::Velocity, Some(0.01), None).expect("assembles");
        let solution = solve_general(&problem.lcp);
        let v = problem.next_velocity(&solution.z);
        assert!(close(v[0], expected, 1e-9, 1.0), "v0 = {v0}: v+ = {}, expected {expected}", v[0]);
        assert!(v[1].abs() <= 1e-9, "normal velocity {}", v[1]);
    }
}

#[test]
fn tedrake_1d_coulomb_lcp_stick_and_slide() {
    let (m, h, mu, fn_) = (2.0, 0.01, 0.4, 2.0 * G);
    // Slide: |m v / h + u| = 200 > μ f_n.
    let lcp = coulomb_1d_lcp(m, 1.0, 0.0, fn_, mu, h).expect("lcp");
    let s = solve_general(&lcp);
    let v_next = 1.0 + h / m * (s.z[0] - s.z[1]);
    assert!(close(v_next, 1.0 - h * mu * G, 1e-9, 1.0), "v+ = {v_next}");
    assert!(close(s.z[2], v_next, 1e-9, 1.0), "λ = |v+|");
    // Stick: |m v / h + u| = 2 < μ f_n = 7.848.
    let lcp = coulomb_1d_lcp(m, 0.01, 0.0, fn_, mu, h).expect("lcp");
    let s = solve_general(&lcp);
    let v_next = 0.01 + h / m * (s.z[0] - s.z[1]);
    assert!(v_next.abs() <= 1e-9, "v+ = {v_next}");
    assert!(close(s.z[0] - s.z[1], -m * 0.01 / h, 1e-9, 1.0));
}

#[test]
fn position_level_matrix_is_h_w_and_b_is_gap_plus_h_j_v_free() {
    let scene = read_scene(scene_path("block-pulled-u5.toml")).expect("scene");
    let h = 1e-3;
    let p = contact_problem(&scene, Level::Position, Some(h), None).expect("assembles");
    let w = p.delassus.as_ref().expect("assembled").to_dense();
    let m = p.matrix.as_ref().expect("assembled").to_dense();
    for i in 0..2 {
        for j in 0..2 {
            assert!(close(m[i][j], h * w[i][j], 1e-14, 1.0));
        }
        // v = 0, v_free = h M^-1 f: b = gap + h^2 (u/m - g).
        let expected = p.contacts[i].gap + h * h * (5.0 / 2.0 - G);
        assert!(close(p.b[i], expected, 1e-12, 1e-12), "b = {:?}", p.b);
    }
    let s = solve_symmetric(&p.lcp);
    let report = ContactReport::new(&p, &s).expect("report");
    // The impulses stop the block: sum P = h (mg - u), next normal velocities zero.
    let total: f64 = report.reactions.iter().sum();
    assert!(close(total, h * (2.0 * G - 5.0), 1e-9, 1e-9), "sum P = {total}");
    for v in report.normal_velocities.expect("velocity") {
        assert!(v.abs() <= 1e-9, "v_n = {v}");
    }
}

#[test]
fn missing_step_and_bad_friction_directions_are_errors() {
    let scene = read_scene(scene_path("block-pulled-u5.toml")).expect("scene");
    assert!(matches!(
        contact_problem(&scene, Level::Velocity, None, None),
        Err(signorini_contact::ContactError::MissingStep { .. })
    ));
    assert!(matches!(
        contact_problem(&scene, Level::Position, Some(-1.0), None),
        Err(signorini_contact::ContactError::InvalidStep(_))
    ));
    assert!(matches!(
        contact_problem(&scene, Level::Acceleration, None, Some(4)),
        Err(signorini_contact::ContactError::InvalidFrictionDirections { k: 4, dimension: 2 })
    ));
}

#[test]
fn friction_velocity_level_3d_sphere_along_a_cone_direction() {
    // n = e_y gives the tangent basis (e_z, e_x); k = 4 has ±e_x among its directions, so a
    // slide along x meets the exact Coulomb bound: v+ = v0 - h mu g.
    let (v0, h, mu) = (1.0, 0.01, 0.3);
    let mut scene = Scene::new(Dimension::Three, [0.0, -G, 0.0]);
    scene.material.friction = mu;
    scene.margin = 1e-9;
    let mut ball =
        Body::rigid("ball", Dimension::Three, 1.5, Shape::Sphere { radius: 0.2 }, [0.0, 0.2, 0.0]);
    ball.velocity = [v0, 0.0, 0.0];
    ball.angular_velocity = [0.0, 0.0, -v0 / 0.2]; // rolling: the contact point does not slip
    scene.bodies.push(ball.clone());
    scene
        .bodies
        .push(Body::fixed("floor", Shape::HalfSpace { normal: [0.0, 1.0, 0.0], offset: 0.0 }));
    let problem = contact_problem(&scene, Level::Velocity, Some(h), Some(4)).expect("assembles");
    assert_eq!(problem.lcp.n(), 1 + 4 + 1);
    let s = solve_general(&problem.lcp);
    let v = problem.next_velocity(&s.z);
    // Rolling without slip on a flat floor: no friction needed, velocity kept.
    assert!(close(v[0], v0, 1e-9, 1.0), "rolling v+ = {}", v[0]);
    // Without spin the ball slides: friction impulse mu m g h opposes the slip at the contact
    // point (it also spins the ball up: dv = -mu g h, dw_z = -5 mu g h / (2 r)).
    ball.angular_velocity = [0.0; 3];
    scene.bodies[0] = ball;
    let problem = contact_problem(&scene, Level::Velocity, Some(h), Some(4)).expect("assembles");
    let s = solve_general(&problem.lcp);
    let v = problem.next_velocity(&s.z);
    assert!(close(v[0], v0 - h * mu * G, 1e-9, 1.0), "sliding v+ = {}", v[0]);
    assert!(close(v[5], -2.5 * mu * G * h / 0.2, 1e-9, 1.0), "spin-up w_z = {}", v[5]);
}

#[test]
fn solve_contact_pipeline_with_a_registered_solver() {
    let registry = signorini_lcp::Registry::builtin();
    let name = if registry.names().contains(&"lemke") { "lemke" } else { return };
    let solver = registry.build(name).expect("builds");
    let scene = read_scene(scene_path("coupled-two-contacts.toml")).expect("scene");
    let (_, report) = signorini_contact::solve_contact(
        &scene,
        Level::Acceleration,
        None,
        None,
        &solver,
        &signorini_lcp::SolveOptions::default(),
    )
    .expect("pipeline");
    assert_eq!(report.status, "solved");
    for n in &report.reactions {
        assert!(close(*n, 1.0, 1e-9, 1.0));
    }
}
