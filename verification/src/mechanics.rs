//! Mechanics cases with closed-form answers (REFERENCE.md A4–A8 and C): the bouncing ball
//! event-driven, the pulled block and the coupled contacts through signorini-contact, the
//! penalty figures and oscillator, the incline with Coulomb friction, Newton's cradle, Tedrake's
//! block collision and 1-D Coulomb LCP, Housner's rocking block and Painlevé's rod; and the
//! scene-file runs (Newton's cradle in both impact modes, the rocking block, inclines in 2D
//! and in 3D with k-sided cones, and through Moreau–Jean with the exact cone) through
//! `SceneModel` and the steppers. Where
//! REFERENCE.md gives no number, the case's doc comment derives it and the case checks it two
//! independent ways.

use std::sync::Arc;

use faer::Mat;
use signorini_contact::{contact_problem, coulomb_1d_lcp, ContactReport, Level, Scene};
use signorini_impact::{
    solve_sequential, solve_simultaneous, ImpactLaw, ImpactMode, MechanicalImpact,
    SequentialParams, SimultaneousParams,
};
use signorini_integrators::{
    integrator_from_name, run_stepping, simulate_event_driven, BouncingBall, ContactModel,
    EventDrivenParams, Flight, FrictionLaw, FrictionModel, MechanicalSystem, NoObserver,
    PenaltyLaw, PenaltyPointMass, Sample, Scheme, Simulation, SimulationOptions, SimulationOutcome,
    SteppingParams, TimeStepper, WarmStart,
};
use signorini_lcp::{Lcp, LcpSolver, SolveOptions, Status};

use crate::case::{Case, Context};
use crate::check::fmt_sci;
use crate::convergence::{contact_pass, settled_overlap, Recorder, StudyCase};

const G: f64 = 9.81;

/// The mechanics cases.
pub fn cases() -> Vec<Box<dyn Case>> {
    let v: Vec<StudyCase> = vec![
        StudyCase {
            id: "integrators/event_driven/bouncing_ball",
            kind: "integrators",
            source: "REFERENCE.md C (h0 = 1 m, g = 9.81, e = 0.9)",
            quick: true,
            body: bouncing_ball_event_driven,
        },
        StudyCase {
            id: "contact/a5/block_pulled",
            kind: "contact",
            source: "REFERENCE.md A5; scenes verification/scenes/block-pulled-u*.toml",
            quick: true,
            body: block_pulled,
        },
        StudyCase {
            id: "contact/a4/coupled_two_contacts",
            kind: "contact",
            source: "REFERENCE.md A4; scene verification/scenes/coupled-two-contacts.toml",
            quick: true,
            body: coupled_two_contacts,
        },
        StudyCase {
            id: "penalty/a6/figures",
            kind: "penalty",
            source: "REFERENCE.md A6",
            quick: true,
            body: penalty_figures,
        },
        StudyCase {
            id: "penalty/oscillator/contact_time_and_restitution",
            kind: "penalty",
            source: "REFERENCE.md C (penalty oscillator; Kelvin-Voigt restitution, Hunt & \
                     Crossley 1975)",
            quick: true,
            body: penalty_oscillator,
        },
        StudyCase {
            id: "integrators/stewart_trinkle/incline",
            kind: "integrators",
            source: "REFERENCE.md C (block on an incline); Stewart & Trinkle 1996",
            quick: true,
            body: incline,
        },
        StudyCase {
            id: "impact/newtons_cradle",
            kind: "impact",
            source: "REFERENCE.md C; derivation in crates/impact/tests/newtons_cradle.rs",
            quick: true,
            body: newtons_cradle,
        },
        StudyCase {
            id: "integrators/position_lcp/tedrake_block_collision",
            kind: "integrators",
            source: "REFERENCE.md A8; Tedrake, Underactuated Robotics, ch. Multi-Body \
                     Dynamics, § Time-stepping LCP",
            quick: true,
            body: tedrake_block_collision,
        },
        StudyCase {
            id: "contact/a8/tedrake_coulomb_1d",
            kind: "contact",
            source: "REFERENCE.md A8; Tedrake, Underactuated Robotics, ch. Multi-Body \
                     Dynamics, § Time-stepping LCP",
            quick: true,
            body: tedrake_coulomb_1d,
        },
        StudyCase {
            id: "impact/rocking_block/housner",
            kind: "impact",
            source: "REFERENCE.md C; Housner 1963, The behavior of inverted pendulum \
                     structures during earthquakes (derivation in the doc comment)",
            quick: true,
            body: rocking_block,
        },
        StudyCase {
            id: "contact/painleve/rod",
            kind: "contact",
            source: "REFERENCE.md C; Stewart 2000, Rigid-body dynamics with friction and impact, \
                     SIAM Review 42 (derivation in the doc comment)",
            quick: true,
            body: painleve_rod,
        },
        StudyCase {
            id: "integrators/scene/newtons_cradle",
            kind: "integrators",
            source: "REFERENCE.md C; scenes verification/scenes/newtons-cradle-{3,5}-*.toml; \
                     Brogliato 2016, Nonsmooth Mechanics, §6.2",
            quick: true,
            body: scene_newtons_cradle,
        },
        StudyCase {
            id: "integrators/scene/rocking_block",
            kind: "integrators",
            source: "REFERENCE.md C; scene verification/scenes/rocking-block.toml; Housner 1963",
            quick: true,
            body: scene_rocking_block,
        },
        StudyCase {
            id: "integrators/scene/incline",
            kind: "integrators",
            source: "REFERENCE.md C; scenes verification/scenes/incline-{2d-stick,2d-slide,\
                     3d-cone}.toml; Stewart & Trinkle 1996",
            quick: true,
            body: scene_incline,
        },
        StudyCase {
            id: "integrators/scene/incline_cone",
            kind: "integrators",
            source: "REFERENCE.md C; scenes verification/scenes/incline-{2d-stick,2d-slide,\
                     3d-cone}.toml; Moreau 1988, Jean 1999 (Moreau–Jean with the exact Coulomb \
                     cone)",
            quick: true,
            body: scene_incline_cone,
        },
    ];
    v.into_iter().map(|c| Box::new(c) as Box<dyn Case>).collect()
}

fn solver(ctx: &Context, r: &mut Recorder, name: &str) -> Option<Box<dyn LcpSolver>> {
    let s = ctx.solver(name);
    if s.is_none() {
        r.error("solver", format!("solver `{name}` not registered"));
    }
    s
}

/// Absolute comparison |observed - expected| <= tol.
fn close_abs(r: &mut Recorder, label: &str, expected: f64, observed: f64, tol: f64) {
    let err = (observed - expected).abs();
    r.check(
        label,
        "value",
        err <= tol,
        format!("{expected:.10} (absolute tolerance {tol:.0e})"),
        format!("{observed:.12} (error {})", fmt_sci(err)),
        Some(tol),
    );
}

/// Bouncing ball event-driven through both root paths (closed-form ballistic roots; RK4 steps
/// with Brent): t1, t2, t3 to 1e-9 and t_inf to 1e-6 against the figures of REFERENCE.md C, and
/// the first impact speed sqrt(2 g h0) (h0 = 1 m, dropped at rest) to 1e-9 relative.
fn bouncing_ball_event_driven(ctx: &Context, r: &mut Recorder) {
    let Some(lemke) = solver(ctx, r, "lemke") else { return };
    let b = BouncingBall { mass: 1.0, gravity: G, pull: 0.0, restitution: 0.9 };
    let rk4 = match integrator_from_name("rk4") {
        Ok(s) => Arc::from(s),
        Err(e) => {
            r.error("rk4", e);
            return;
        }
    };
    let flights =
        [("ballistic", Flight::Ballistic), ("rk4", Flight::Integrator { scheme: rk4, step: 1e-2 })];
    let expected = [0.4515236410, 1.2642661948, 1.9957344932];
    for (name, flight) in flights {
        let params = EventDrivenParams { flight, ..EventDrivenParams::default() };
        match simulate_event_driven(&b, &b, lemke.as_ref(), 0.0, &[1.0], &[0.0], 10.0, &params) {
            Ok(run) => {
                // First impact speed: free fall from h0 = 1 m at rest, |v| = sqrt(2 g h0).
                match run.impacts.first().and_then(|imp| imp.pre_velocity.first()) {
                    Some(v) => {
                        let v1 = (2.0 * G * 1.0f64).sqrt();
                        close_abs(r, &format!("{name}_first_impact_speed"), v1, v.abs(), 1e-9 * v1)
                    }
                    None => r.error(&format!("{name}_first_impact_speed"), "impact missing"),
                }
                for (k, t) in expected.iter().enumerate() {
                    match run.impacts.get(k) {
                        Some(imp) => close_abs(r, &format!("{name}_t{}", k + 1), *t, imp.t, 1e-9),
                        None => r.error(&format!("{name}_t{}", k + 1), "impact missing"),
                    }
                }
                match run.accumulations.first() {
                    Some(acc) => {
                        close_abs(r, &format!("{name}_t_inf"), 8.5789491787, acc.t_inf, 1e-6)
                    }
                    None => r.error(&format!("{name}_t_inf"), "no accumulation detected"),
                }
                let rest = run.end.q[0].abs() <= 1e-9 && run.end.v[0].abs() <= 1e-9;
                r.check(
                    &format!("{name}_at_rest"),
                    "value",
                    rest && run.closed.first().copied().unwrap_or(false),
                    "at rest on the floor, contact closed, at t = 10 s".into(),
                    format!(
                        "q = {:.3e}, v = {:.3e}, closed = {:?}",
                        run.end.q[0], run.end.v[0], run.closed
                    ),
                    Some(1e-9),
                );
            }
            Err(e) => r.error(name, e),
        }
    }
}

fn acceleration_problem(text: &str) -> Result<signorini_contact::ContactProblem, String> {
    let scene = Scene::from_toml_str(text).map_err(|e| e.to_string())?;
    contact_problem(&scene, Level::Acceleration, None, None).map_err(|e| e.to_string())
}

/// A5: m = 2 kg on a floor pulled up by u: N = max(mg - u, 0) summed over the two corners,
/// a = max((u - mg)/m, 0); solved by `lemke` on the contact crate's acceleration-level LCP.
fn block_pulled(ctx: &Context, r: &mut Recorder) {
    let Some(lemke) = solver(ctx, r, "lemke") else { return };
    let scenes = [
        (5.0, "u5", include_str!("../scenes/block-pulled-u5.toml"), 14.62, 0.0),
        (19.62, "u19_62", include_str!("../scenes/block-pulled-u19_62.toml"), 0.0, 0.0),
        (25.0, "u25", include_str!("../scenes/block-pulled-u25.toml"), 0.0, 2.69),
    ];
    for (u, tag, text, n_ref, a_ref) in scenes {
        let m = 2.0;
        let report = acceleration_problem(text).and_then(|p| {
            let sol =
                lemke.solve(&p.lcp, &SolveOptions::default(), None).map_err(|e| e.to_string())?;
            ContactReport::new(&p, &sol).map_err(|e| e.to_string())
        });
        match report {
            Ok(rep) => {
                let total: f64 = rep.reactions.iter().sum();
                close_abs(r, &format!("{tag}_normal_force"), (m * G - u).max(0.0), total, 1e-9);
                close_abs(r, &format!("{tag}_normal_force_reference"), n_ref, total, 1e-9);
                let a = rep.normal_accelerations.unwrap_or_default();
                let a_max = a.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let a_min = a.iter().copied().fold(f64::INFINITY, f64::min);
                let a_exp = ((u - m * G) / m).max(0.0);
                close_abs(r, &format!("{tag}_acceleration"), a_exp, a_max, 1e-9);
                close_abs(r, &format!("{tag}_acceleration_reference"), a_ref, a_min, 1e-9);
            }
            Err(e) => r.error(tag, e),
        }
    }
}

/// A4: the disk in a V-groove gives W = [[2, 1], [1, 2]], b = (-3, -3); N = (1, 1) with zero
/// normal acceleration; the decoupled guess N = 1.5 each gives a = 1.5 outward at both loaded
/// contacts and violates complementarity (z_i w_i = 2.25).
fn coupled_two_contacts(ctx: &Context, r: &mut Recorder) {
    let Some(lemke) = solver(ctx, r, "lemke") else { return };
    let problem = match acceleration_problem(include_str!("../scenes/coupled-two-contacts.toml")) {
        Ok(p) => p,
        Err(e) => {
            r.error("scene", e);
            return;
        }
    };
    // contact_problem assembles W (an absent W fails the check below).
    let w = problem.delassus.as_ref().map(|w| w.to_dense()).unwrap_or_default();
    let ok_w = w.len() == 2
        && [[2.0, 1.0], [1.0, 2.0]]
            .iter()
            .enumerate()
            .all(|(i, row)| row.iter().enumerate().all(|(j, e)| (w[i][j] - e).abs() <= 1e-12));
    let ok_b = problem.b.len() == 2 && problem.b.iter().all(|b| (b + 3.0).abs() <= 1e-12);
    r.check(
        "delassus_and_b",
        "value",
        ok_w && ok_b,
        "W = [[2, 1], [1, 2]], b = (-3, -3)".into(),
        format!("W = {w:?}, b = {:?}", problem.b),
        Some(1e-12),
    );
    match lemke.solve(&problem.lcp, &SolveOptions::default(), None) {
        Ok(sol) => {
            for i in 0..sol.z.len().min(2) {
                close_abs(r, &format!("normal_force_{i}"), 1.0, sol.z[i], 1e-9);
                close_abs(
                    r,
                    &format!("normal_acceleration_{i}"),
                    0.0,
                    problem.lcp.w_of(&sol.z)[i],
                    1e-9,
                );
            }
        }
        Err(e) => r.error("solve", e),
    }
    let guess = [1.5, 1.5];
    let a = problem.lcp.w_of(&guess);
    let comp = guess.iter().zip(&a).map(|(z, w)| z * w).fold(0.0, f64::max);
    r.check(
        "decoupled_guess_fails",
        "value",
        a.iter().all(|x| (x - 1.5).abs() <= 1e-12) && comp > 1.0,
        "decoupled N = 1.5 each: a = (1.5, 1.5) outward, z_i w_i = 2.25 > 0".into(),
        format!("a = {a:?}, max z_i w_i = {comp}"),
        Some(1e-12),
    );
}

/// A6: overlaps measured by running a damped implicit-Euler penalty model to rest, and the
/// contact frequency measured as π / (contact duration) of an undamped pass with no gravity.
fn penalty_figures(_ctx: &Context, r: &mut Recorder) {
    let measured_w = |k: f64, m: f64| {
        let p = PenaltyPointMass {
            mass: m,
            gravity: 0.0,
            external_force: 0.0,
            law: PenaltyLaw::Linear { stiffness: k },
        };
        contact_pass(&p, 1.0).map(|c| std::f64::consts::PI / c.duration)
    };
    let figures = [
        ("block_u5_k1e5_overlap", 2.0, 5.0, 1e5, 0.1462e-3),
        ("m2_k2e5_overlap", 2.0, 0.0, 2e5, 98.1e-6),
        ("m2_k2e7_overlap", 2.0, 0.0, 2e7, 0.981e-6),
    ];
    for (label, m, u, k, expected) in figures {
        match settled_overlap(m, u, k) {
            Ok(d) => r.close(label, expected, d, 1e-9, 0.0),
            Err(e) => r.error(label, e),
        }
    }
    match (measured_w(2e5, 2.0), measured_w(2e7, 2.0)) {
        (Ok(w1), Ok(w2)) => {
            // 316.2 is sqrt(1e5) = 316.227... rounded to four digits.
            r.close("m2_k2e5_contact_frequency", 316.2, w1, 1e-4, 0.0);
            r.close("k_times_100_frequency_ratio", 10.0, w2 / w1, 1e-9, 0.0);
        }
        (Err(e), _) | (_, Err(e)) => r.error("contact_frequency", e),
    }
}

/// Penalty oscillator without gravity (m = 1, k = 1e4, entry speed 1 m/s): contact time π/w,
/// peak penetration v/w, exit speed equal to the entry speed; Kelvin–Voigt (not clamped) with
/// ζ = 0.05, 0.1, 0.3 gives restitution exp(-ζπ/sqrt(1-ζ²)). Measured with RK4 at w h = 1e-3.
fn penalty_oscillator(_ctx: &Context, r: &mut Recorder) {
    let (m, k, v) = (1.0f64, 1e4f64, 1.0f64);
    let w = (k / m).sqrt();
    let p = PenaltyPointMass {
        mass: m,
        gravity: 0.0,
        external_force: 0.0,
        law: PenaltyLaw::Linear { stiffness: k },
    };
    match contact_pass(&p, v) {
        Ok(c) => {
            r.close("contact_time", std::f64::consts::PI / w, c.duration, 1e-9, 0.0);
            r.close("peak_penetration", v / w, c.peak_penetration, 1e-6, 0.0);
            r.close("exit_speed", v, c.exit_speed, 1e-9, 0.0);
        }
        Err(e) => r.error("linear", e),
    }
    for zeta in [0.05, 0.1, 0.3] {
        let c = 2.0 * zeta * (k * m).sqrt();
        let p = PenaltyPointMass { law: PenaltyLaw::KelvinVoigt { stiffness: k, damping: c }, ..p };
        let expected = (-zeta * std::f64::consts::PI / (1.0 - zeta * zeta).sqrt()).exp();
        match contact_pass(&p, v) {
            Ok(pass) => r.close(
                &format!("kelvin_voigt_zeta{zeta}"),
                expected,
                pass.exit_speed / v,
                1e-8,
                0.0,
            ),
            Err(e) => r.error(&format!("kelvin_voigt_zeta{zeta}"), e),
        }
    }
}

/// Point mass on an incline in the incline's frame (x along, y normal), friction cone with the
/// two directions ±x: in 2-D this polyhedral cone is the Coulomb cone itself, so the effective
/// coefficient is μ exactly (with k directions in 3-D it would lie in [μ cos(π/k), μ]).
struct Incline {
    angle: f64,
    mu: f64,
}

impl MechanicalSystem for Incline {
    fn n_dof(&self) -> usize {
        2
    }
    fn mass_matrix(&self, _q: &[f64]) -> Mat<f64> {
        Mat::from_fn(2, 2, |i, j| if i == j { 2.0 } else { 0.0 })
    }
    fn forces(&self, _t: f64, _q: &[f64], _v: &[f64]) -> Vec<f64> {
        vec![2.0 * G * self.angle.sin(), -2.0 * G * self.angle.cos()]
    }
}

impl ContactModel for Incline {
    fn n_contacts(&self) -> usize {
        1
    }
    fn gaps(&self, q: &[f64]) -> Vec<f64> {
        vec![q[1]]
    }
    fn jacobian(&self, _q: &[f64]) -> Mat<f64> {
        Mat::from_fn(1, 2, |_, j| if j == 1 { 1.0 } else { 0.0 })
    }
    fn restitution(&self, _contact_idx: usize) -> f64 {
        0.0
    }
}

impl FrictionModel for Incline {
    fn n_directions(&self) -> usize {
        2
    }
    fn tangent_jacobian(&self, _q: &[f64]) -> Mat<f64> {
        Mat::from_fn(2, 2, |r, j| match (r, j) {
            (0, 0) => 1.0,
            (1, 0) => -1.0,
            _ => 0.0,
        })
    }
    fn friction_coefficient(&self, _contact_idx: usize) -> f64 {
        self.mu
    }
}

/// Incline with μ = 0.5 (friction angle atan 0.5 = 26.565°): Stewart–Trinkle, h = 1e-3, 1 s from
/// rest. Sticks at 10°, 20°, 26.5° (v = 0); slides at 26.7°, 35°, 60° with
/// v(1 s) = g (sin a - μ cos a) (constant forces, so semi-implicit Euler is exact in v).
fn incline(ctx: &Context, r: &mut Recorder) {
    let Some(lemke) = solver(ctx, r, "lemke") else { return };
    let mu = 0.5;
    for angle in [10.0, 20.0, 26.5, 26.7, 35.0, 60.0] {
        let a = f64::to_radians(angle);
        let body = Incline { angle: a, mu };
        let mut p = SteppingParams::with_step(1e-3);
        p.sample_every = 0;
        let label = format!("angle{angle}");
        let start = Sample { t: 0.0, q: vec![0.0, 0.0], v: vec![0.0, 0.0] };
        let stepper = TimeStepper::StewartTrinkle(&body);
        match run_stepping(&body, stepper, lemke.as_ref(), &start, 1000, &p, &mut NoObserver) {
            Ok(run) => {
                let sticks = a.tan() <= mu;
                let expected = if sticks { 0.0 } else { G * (a.sin() - mu * a.cos()) };
                close_abs(r, &format!("{label}_velocity"), expected, run.v[0], 1e-9);
                close_abs(r, &format!("{label}_stays_on_incline"), 0.0, run.q[1], 1e-12);
            }
            Err(e) => r.error(&label, e),
        }
    }
}

/// Newton's cradle (n equal balls, e = 1, ball 1 at v = 1.5 m/s): sequential pairwise impacts
/// give (0, ..., 0, v), which is what experiments show; the simultaneous LCP gives ball 1
/// v (1 - n_c)/(1 + n_c) and the others 2 v/(n_c + 1), e.g. (-v/3, 2v/3, 2v/3). Both conserve
/// momentum and energy; the check `matches_experiment` names the sequential outcome.
fn newtons_cradle(ctx: &Context, r: &mut Recorder) {
    let Some(lemke) = solver(ctx, r, "lemke") else { return };
    let (mass, v) = (0.2, 1.5);
    for n in [3usize, 5] {
        let n_c = n - 1;
        let m = Mat::from_fn(n, n, |i, j| if i == j { mass } else { 0.0 });
        let jac = Mat::from_fn(n_c, n, |k, j| {
            if j == k {
                -1.0
            } else if j == k + 1 {
                1.0
            } else {
                0.0
            }
        });
        let mut v0 = vec![0.0; n];
        v0[0] = v;
        let imp = match MechanicalImpact::new(m, &jac, v0, vec![1.0; n_c]) {
            Ok(i) => i,
            Err(e) => {
                r.error(&format!("n{n}"), e);
                return;
            }
        };
        let ncf = n_c as f64;
        let mut sim_expected = vec![2.0 * v / (ncf + 1.0); n];
        sim_expected[0] = v * (1.0 - ncf) / (1.0 + ncf);
        let mut seq_expected = vec![0.0; n];
        seq_expected[n - 1] = v;
        let sim = solve_simultaneous(
            imp.problem(),
            ImpactLaw::Newton,
            lemke.as_ref(),
            &SimultaneousParams::default(),
        );
        let seq = solve_sequential(imp.problem(), ImpactLaw::Newton, &SequentialParams::default());
        for (mode, out, expected) in
            [("simultaneous", sim, &sim_expected), ("sequential", seq, &seq_expected)]
        {
            let label = format!("n{n}_{mode}");
            match out {
                Ok(o) => {
                    let rep = imp.report(&o);
                    let err = rep
                        .velocity_after
                        .iter()
                        .zip(expected.iter())
                        .map(|(a, b)| (a - b).abs())
                        .fold(0.0, f64::max);
                    let de = (rep.energy_after - rep.energy_before).abs() / rep.energy_before;
                    let p: f64 = rep.velocity_after.iter().map(|u| mass * u).sum();
                    let dp = (p - mass * v).abs() / (mass * v);
                    r.check(
                        &label,
                        "value",
                        err <= 1e-9 * v && de <= 1e-12 && dp <= 1e-12,
                        format!("velocities {expected:.6?}, energy and momentum conserved"),
                        format!(
                            "velocities {:.6?} (error {}), energy change {}, momentum change {}",
                            rep.velocity_after,
                            fmt_sci(err),
                            fmt_sci(de),
                            fmt_sci(dp)
                        ),
                        Some(1e-9),
                    );
                    if mode == "sequential" {
                        r.check(
                            &format!("n{n}_matches_experiment"),
                            "value",
                            err <= 1e-9 * v,
                            "experiment: only the last ball leaves, at v; the sequential outcome \
                             matches, the simultaneous one does not"
                                .into(),
                            format!("sequential gives {:.6?}", rep.velocity_after),
                            Some(1e-9),
                        );
                    }
                }
                Err(e) => r.error(&label, e),
            }
        }
    }
}

/// A8 block collision: m = 2 kg dropped from 1 m on the position-level time-stepping LCP
/// (h = 1e-3, perfectly inelastic): never penetrates, lands within two steps after
/// t1 = sqrt(2/g), at rest afterwards.
fn tedrake_block_collision(ctx: &Context, r: &mut Recorder) {
    let Some(lemke) = solver(ctx, r, "lemke") else { return };
    let block = BouncingBall { mass: 2.0, gravity: G, pull: 0.0, restitution: 0.0 };
    let h = 1e-3;
    let p = SteppingParams::with_step(h);
    let start = Sample { t: 0.0, q: vec![1.0], v: vec![0.0] };
    let stepper = TimeStepper::PositionLcp(&block);
    match run_stepping(&block, stepper, lemke.as_ref(), &start, 1000, &p, &mut NoObserver) {
        Ok(run) => {
            let min_gap = run.samples.iter().map(|s| s.q[0]).fold(f64::INFINITY, f64::min);
            r.check(
                "no_penetration",
                "value",
                min_gap >= -1e-12,
                "gap >= 0 at every step".into(),
                format!("min gap {}", fmt_sci(min_gap)),
                Some(1e-12),
            );
            let t1 = (2.0f64 / G).sqrt();
            match run.samples.iter().find(|s| s.q[0].abs() <= 1e-12).map(|s| s.t) {
                Some(t) => r.check(
                    "landing_time",
                    "value",
                    t >= t1 - 1e-12 && t <= t1 + 2.0 * h,
                    format!("in [t1, t1 + 2h], t1 = {t1:.10}"),
                    format!("{t:.6}"),
                    Some(2.0 * h),
                ),
                None => r.error("landing_time", "never lands"),
            }
            close_abs(r, "rest_height", 0.0, run.q[0], 1e-12);
            close_abs(r, "rest_velocity", 0.0, run.v[0], 1e-12);
        }
        Err(e) => r.error("run", e),
    }
}

/// A8 1-D Coulomb friction LCP (m = 1, h = 0.01, f_n = m g, μ = 0.5, so μ f_n = 4.905 N): it
/// sticks when |m v / h + u| <= μ f_n (v+ = 0), else slides with friction μ f_n against v+
/// and λ = |v+|.
fn tedrake_coulomb_1d(ctx: &Context, r: &mut Recorder) {
    let Some(lemke) = solver(ctx, r, "lemke") else { return };
    let (m, h, mu) = (1.0, 0.01, 0.5);
    let f_n = m * G;
    for (tag, v, u) in [
        ("stick_u2", 0.0, 2.0),
        ("slide_u10", 0.0, 10.0),
        ("slide_v1", 1.0, 0.0),
        ("stick_v0_01_u_minus1", 0.01, -1.0),
    ] {
        let drive = m * v / h + u;
        let expected =
            if drive.abs() <= mu * f_n { 0.0 } else { v + h / m * (u - mu * f_n * drive.signum()) };
        let result =
            coulomb_1d_lcp(m, v, u, f_n, mu, h).map_err(|e| e.to_string()).and_then(|lcp: Lcp| {
                lemke.solve(&lcp, &SolveOptions::default(), None).map_err(|e| e.to_string())
            });
        match result {
            Ok(sol) if sol.status == Status::Solved => {
                let v_next = v + h / m * (u + sol.z[0] - sol.z[1]);
                close_abs(r, &format!("{tag}_next_velocity"), expected, v_next, 1e-12);
                close_abs(r, &format!("{tag}_sliding_speed"), expected.abs(), sol.z[2], 1e-12);
            }
            Ok(sol) => r.error(tag, format!("status {}", sol.status)),
            Err(e) => r.error(tag, e),
        }
    }
}

/// Housner's rocking block (1963): a rigid rectangular block of width 2b and height 2h rocking
/// on its right corner O with angular velocity ω1 > 0 lands on its left corner O' and, without
/// bouncing or slipping, rocks on O' with ω2.
///
/// **Derivation.** The impulse acts at O' only, so angular momentum about O' is conserved.
/// With R² = b² + h², α = atan(b/h), I_G = m R²/3 and I_O = I_G + m R² = 4 m R²/3: before,
/// v_G = ω1 × (G - O) and H_O' = I_G ω1 + m (G - O') × v_G = I_G ω1 + m ω1 R² cos 2α (the
/// angle between G - O' and G - O is 2α); after, H_O' = I_O ω2. So
/// r = ω2/ω1 = (1/3 + cos 2α)/(4/3) = 1 - (3/2) sin² α.
///
/// **Second way.** The impact crate's simultaneous impact LCP on the body (x, y, θ),
/// M = diag(m, m, I_G), with four inelastic (e = 0) unilateral contacts: O' normal, O'
/// tangential as the pair ±t (both u+ >= 0 forces u_t+ = 0: no slip), and O normal (which
/// must separate). ω2 is read from the post-impact velocity.
fn rocking_block(ctx: &Context, r: &mut Recorder) {
    let Some(lemke) = solver(ctx, r, "lemke") else { return };
    let m = 1.0;
    for (tag, b, h) in
        [("slender_b0_2_h1", 0.2f64, 1.0f64), ("b0_5_h1", 0.5, 1.0), ("b0_8_h1", 0.8, 1.0)]
    {
        let alpha = (b / h).atan();
        let expected = 1.0 - 1.5 * alpha.sin().powi(2);
        let inertia = m * (b * b + h * h) / 3.0;
        let mass = Mat::from_fn(3, 3, |i, j| match (i, j) {
            (0, 0) | (1, 1) => m,
            (2, 2) => inertia,
            _ => 0.0,
        });
        // Rows: velocity of a point P = G + rp is (vx - ω rp_y, vy + ω rp_x).
        let rows = [[0.0, 1.0, -b], [1.0, 0.0, h], [-1.0, 0.0, -h], [0.0, 1.0, b]];
        let jac = Mat::from_fn(4, 3, |i, j| rows[i][j]);
        let omega1 = 1.0;
        let v0 = vec![-h * omega1, -b * omega1, omega1];
        let out = MechanicalImpact::new(mass, &jac, v0, vec![0.0; 4])
            .map_err(|e| e.to_string())
            .and_then(|imp| {
                solve_simultaneous(
                    imp.problem(),
                    ImpactLaw::Newton,
                    lemke.as_ref(),
                    &SimultaneousParams::default(),
                )
                .map(|o| (imp.report(&o), o))
                .map_err(|e| e.to_string())
            });
        match out {
            Ok((rep, o)) => {
                let omega2 = rep.velocity_after[2];
                r.close(&format!("{tag}_ratio"), expected, omega2 / omega1, 1e-9, 0.0);
                // Rocking on O' afterwards: v = ω2 (-h, b, 1), so O lifts at 2 b ω2.
                close_abs(
                    r,
                    &format!("{tag}_corner_o_lifts"),
                    2.0 * b * omega2,
                    o.post_velocity[3],
                    1e-9,
                );
                let energy_ratio = rep.energy_after / rep.energy_before;
                r.close(
                    &format!("{tag}_energy_ratio"),
                    expected * expected,
                    energy_ratio,
                    1e-9,
                    0.0,
                );
            }
            Err(e) => r.error(tag, e),
        }
    }
}

/// Painlevé's rod (Stewart 2000, SIAM Review 42, §5): a uniform rod (mass m, half-length l,
/// I = m l²/3) at angle θ to the floor, its lower end touching and sliding in -x, so Coulomb
/// friction pushes it +x with μN.
///
/// **Derivation.** Coordinates (x, y, θ) of the centre; the end is at (x - l cos θ,
/// y - l sin θ), so J_n = (0, 1, -l cos θ) and J_t = (1, 0, l sin θ). The contact force is
/// J_n' N + J_t' μN and the normal acceleration a = b + A N with
/// A = J_n M^-1 (J_n + μ J_t)' = (1 + 3 cos² θ - 3 μ sin θ cos θ)/m. A < 0 iff
/// μ > (1 + 3 cos² θ)/(3 sin θ cos θ) = (tan θ + 4 / tan θ)/3, whose minimum over θ is
/// **μ_c = 4/3 at tan θ = 2**. For μ > μ_c at that angle the 1 x 1 LCP (A, b) has no solution
/// when b < 0 (gravity pulls the end down) and two when b > 0.
///
/// **Checks.** A is assembled numerically from M, J_n, J_t; the threshold in μ at tan θ = 2 is
/// found by bisection on the `enum` solver's verdict (solved vs no_solution) with b = -g and
/// compared with 4/3; and at μ = 1.5 with b = +g `enum` lists two solutions, at μ = 1.2 one.
fn painleve_rod(ctx: &Context, r: &mut Recorder) {
    let Some(enumeration) = solver(ctx, r, "enum") else { return };
    let (m, l) = (1.0, 1.0);
    let theta = 2f64.atan();
    let coefficient = |mu: f64| {
        let minv = [1.0 / m, 1.0 / m, 3.0 / (m * l * l)];
        let jn = [0.0, 1.0, -l * theta.cos()];
        let jt = [1.0, 0.0, l * theta.sin()];
        (0..3).map(|i| jn[i] * minv[i] * (jn[i] + mu * jt[i])).sum::<f64>()
    };
    let verdict = |mu: f64, b: f64| -> Result<(Status, usize), String> {
        let lcp =
            Lcp::from_dense_rows(&[vec![coefficient(mu)]], vec![b]).map_err(|e| e.to_string())?;
        let sol =
            enumeration.solve(&lcp, &SolveOptions::default(), None).map_err(|e| e.to_string())?;
        Ok((sol.status, sol.all_solutions.map_or(0, |s| s.len())))
    };
    let (mut lo, mut hi) = (1.0, 2.0);
    let mut failed = None;
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        match verdict(mid, -G) {
            Ok((Status::Solved, _)) => lo = mid,
            Ok((Status::NoSolution, _)) => hi = mid,
            Ok((s, _)) => {
                failed = Some(format!("status {s} at mu = {mid}"));
                break;
            }
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    match failed {
        None => r.close("existence_threshold", 4.0 / 3.0, 0.5 * (lo + hi), 1e-9, 0.0),
        Some(e) => r.error("existence_threshold", e),
    }
    for (mu, count) in [(1.2, 1usize), (1.5, 2)] {
        match verdict(mu, G) {
            Ok((status, n)) => r.check(
                &format!("solutions_mu{mu}_b_positive"),
                "value",
                status == Status::Solved && n == count,
                format!("{count} solution(s) (A = {:.4})", coefficient(mu)),
                format!("status {status}, {n} solution(s)"),
                None,
            ),
            Err(e) => r.error(&format!("solutions_mu{mu}"), e),
        }
    }
}

/// A reference scene set up as `signorini simulate` sets it up: its simulation keys
/// (`impact_law`, `impact`) read by [`Simulation`], the options given here.
fn scene_simulation(text: &str, options: SimulationOptions) -> Result<Simulation, String> {
    let scene = Scene::from_toml_str(text).map_err(|e| e.to_string())?;
    Simulation::new(scene, options).map_err(|e| e.to_string())
}

/// Runs a reference scene; a solve that did not end solved is an error, as with the
/// stepper's stop policy.
fn run_scene(sim: &Simulation, solver: &dyn LcpSolver) -> Result<SimulationOutcome, String> {
    // No samples kept: the cases check the final state and the impacts.
    let outcome = sim.run(solver, &mut NoObserver).map_err(|e| e.to_string())?;
    match outcome.solver_failures.items.first() {
        Some(f) => Err(format!("the solve at t = {} ended {}", f.t, f.status)),
        None => Ok(outcome),
    }
}

/// Newton's cradle from the scene files through the event-driven scheme (SceneModel, RK4
/// flight): simultaneous gives ball 1 v (2 - n)/n and the others 2 v / n; sequential gives
/// (0, ..., 0, v) (what experiments show: Brogliato 2016, §6.2; Ceanga & Hurmuzlu 2001). Energy
/// is conserved (e = 1) to 1e-12.
fn scene_newtons_cradle(ctx: &Context, r: &mut Recorder) {
    let Some(lemke) = solver(ctx, r, "lemke") else { return };
    let files = [
        (3usize, "simultaneous", include_str!("../scenes/newtons-cradle-3-simultaneous.toml")),
        (3, "sequential", include_str!("../scenes/newtons-cradle-3-sequential.toml")),
        (5, "simultaneous", include_str!("../scenes/newtons-cradle-5-simultaneous.toml")),
        (5, "sequential", include_str!("../scenes/newtons-cradle-5-sequential.toml")),
    ];
    for (n, file_mode, text) in files {
        // The mode is the scene's own `impact` key, as `simulate` reads it.
        let sim = match scene_simulation(text, SimulationOptions::new(Scheme::EventDriven, 1.0)) {
            Ok(s) => s,
            Err(e) => {
                r.error(&format!("n{n}_{file_mode}"), e);
                return;
            }
        };
        let mode = sim.impact().mode;
        let tag = format!("n{n}_{}", mode.as_str());
        match run_scene(&sim, lemke.as_ref()) {
            Ok(run) => {
                let nf = n as f64;
                for k in 0..n {
                    let expected = match (mode, k) {
                        (ImpactMode::Simultaneous, 0) => (2.0 - nf) / nf,
                        (ImpactMode::Simultaneous, _) => 2.0 / nf,
                        (_, k) if k == n - 1 => 1.0,
                        _ => 0.0,
                    };
                    // Particles in 2D: (x, y) per ball.
                    close_abs(
                        r,
                        &format!("{tag}_ball{}_vx", k + 1),
                        expected,
                        run.end.v[2 * k],
                        1e-9,
                    );
                }
                match run.impacts.items.first() {
                    Some(imp) => r.close(
                        &format!("{tag}_energy"),
                        imp.energy_before,
                        imp.energy_after,
                        1e-12,
                        0.0,
                    ),
                    None => r.error(&format!("{tag}_energy"), "no impact"),
                }
            }
            Err(e) => r.error(&tag, e),
        }
    }
}

/// Housner's rocking block from the scene file through one Stewart–Trinkle step (h = 1e-5,
/// mu = 1, inelastic): ω2 = (1 - 3/2 sin² α) ω1 - m g b h / I_O (the second term: gravity about
/// the new corner over the step), to 1e-6 relative; and it rocks on O' (v = ω2 (-h_b, b)).
fn scene_rocking_block(ctx: &Context, r: &mut Recorder) {
    let Some(lemke) = solver(ctx, r, "lemke") else { return };
    let (b, hb, w1, h) = (0.2f64, 1.0f64, 1.0f64, 1e-5);
    let mut options = SimulationOptions::new(Scheme::StewartTrinkle, h);
    options.step = Some(h);
    let sim = match scene_simulation(include_str!("../scenes/rocking-block.toml"), options) {
        Ok(s) => s,
        Err(e) => return r.error("scene", e),
    };
    match run_scene(&sim, lemke.as_ref()) {
        Ok(outcome) => {
            let run = outcome.end;
            let ratio = 1.0 - 1.5 * (b / hb).atan().sin().powi(2);
            let i_o = 4.0 * (b * b + hb * hb) / 3.0;
            let w2 = run.v[2];
            r.close("omega_after", ratio * w1 - G * b * h / i_o, w2, 1e-6, 0.0);
            r.close("rocks_on_new_corner_vx", -hb * w2, run.v[0], 1e-9, 0.0);
            r.close("rocks_on_new_corner_vy", b * w2, run.v[1], 1e-9, 0.0);
        }
        Err(e) => r.error("run", e),
    }
}

/// Blocks on inclines from the scene files through Stewart–Trinkle (h = 1e-3, T = 0.5 s):
/// 2D box (k = 2, exact cone) sticks at tan a = 0.4 < mu = 0.5 and slides at tan a = 0.7 with
/// g (sin a - mu cos a); 3D point block at tan a = 0.47, mu = 0.5 with k directions: uphill is a
/// cone edge for k = 4 and 8 (effective mu: sticks) and the middle of a side for k = 6
/// (effective mu cos(pi/6) = 0.433: slides with g (sin a - 0.433 cos a)).
fn scene_incline(ctx: &Context, r: &mut Recorder) {
    let Some(lemke) = solver(ctx, r, "lemke") else { return };
    let t_end = 0.5;
    let h = 1e-3;
    let runs: [(&str, &str, f64, f64, Option<usize>); 5] = [
        ("2d_stick", include_str!("../scenes/incline-2d-stick.toml"), 0.4, 0.5, None),
        ("2d_slide", include_str!("../scenes/incline-2d-slide.toml"), 0.7, 0.5, None),
        ("3d_k4", include_str!("../scenes/incline-3d-cone.toml"), 0.47, 0.5, Some(4)),
        (
            "3d_k6",
            include_str!("../scenes/incline-3d-cone.toml"),
            0.47,
            0.5 * 0.8660254037844387,
            Some(6),
        ),
        ("3d_k8", include_str!("../scenes/incline-3d-cone.toml"), 0.47, 0.5, Some(8)),
    ];
    for (tag, text, tan_a, mu_eff, k) in runs {
        let mut options = SimulationOptions::new(Scheme::StewartTrinkle, t_end);
        options.step = Some(h);
        options.friction_directions = k;
        let sim = match scene_simulation(text, options) {
            Ok(s) => s,
            Err(e) => return r.error(tag, e),
        };
        match run_scene(&sim, lemke.as_ref()) {
            Ok(outcome) => {
                let run = outcome.end;
                let a = f64::atan(tan_a);
                let acc = if tan_a <= mu_eff { 0.0 } else { G * (a.sin() - mu_eff * a.cos()) };
                let d = if k.is_some() { 3 } else { 2 };
                let speed = run.v[..d].iter().map(|x| x * x).sum::<f64>().sqrt();
                close_abs(r, &format!("{tag}_speed_after_0_5s"), acc * t_end, speed, 1e-9);
            }
            Err(e) => r.error(tag, e),
        }
    }
}

/// The inclines of [`scene_incline`] through Moreau–Jean with the exact Coulomb cone (what
/// `signorini simulate --scheme moreau-jean --friction cone` runs: signorini-friction's `auto`,
/// here at tol 1e-12, warm-started; h = 1e-3, T = 0.5 s). With the contact closed and constant
/// forces Moreau–Jean is exact, so the 2D box sticks at tan a = 0.4 < mu = 0.5 and slides at
/// tan a = 0.7 with g (sin a - mu cos a); the 3D point block sticks at tan a = 0.47 < mu = 0.5
/// (where the six-sided polyhedral cone slides) and, with mu = 0.3, slides with
/// g (sin a - 0.3 cos a). Speed after 0.5 s to 1e-9 absolute.
fn scene_incline_cone(_ctx: &Context, r: &mut Recorder) {
    let solver = match signorini_friction::FcRegistry::builtin().build("auto") {
        Ok(s) => s,
        Err(e) => return r.error("solver", e.to_string()),
    };
    let (t_end, h) = (0.5, 1e-3);
    let runs: [(&str, &str, f64, Option<f64>, usize); 4] = [
        ("2d_stick", include_str!("../scenes/incline-2d-stick.toml"), 0.4, None, 2),
        ("2d_slide", include_str!("../scenes/incline-2d-slide.toml"), 0.7, None, 2),
        ("3d_stick", include_str!("../scenes/incline-3d-cone.toml"), 0.47, None, 3),
        ("3d_slide_mu0_3", include_str!("../scenes/incline-3d-cone.toml"), 0.47, Some(0.3), 3),
    ];
    for (tag, text, tan_a, mu_override, d) in runs {
        let mut scene = match Scene::from_toml_str(text) {
            Ok(s) => s,
            Err(e) => return r.error(tag, e.to_string()),
        };
        if let Some(mu) = mu_override {
            scene.material.friction = mu;
        }
        let mu = scene.material.friction;
        let mut options = SimulationOptions::new(Scheme::MoreauJean, t_end);
        options.step = Some(h);
        options.friction = FrictionLaw::Cone;
        options.warm_start = WarmStart::PreviousStep;
        options.solve.tol = Some(1e-12);
        let outcome = Simulation::new(scene, options).map_err(|e| e.to_string()).and_then(|sim| {
            sim.run_cone(solver.as_ref(), &mut NoObserver).map_err(|e| e.to_string())
        });
        match outcome {
            Ok(o) if o.solver_failures.total > 0 => {
                r.error(tag, format!("{} solves did not end solved", o.solver_failures.total))
            }
            Ok(o) => {
                let a = f64::atan(tan_a);
                let acc = if tan_a <= mu { 0.0 } else { G * (a.sin() - mu * a.cos()) };
                let speed = o.end.v[..d].iter().map(|x| x * x).sum::<f64>().sqrt();
                close_abs(r, &format!("{tag}_speed_after_0_5s"), acc * t_end, speed, 1e-9);
            }
            Err(e) => r.error(tag, e),
        }
    }
}
