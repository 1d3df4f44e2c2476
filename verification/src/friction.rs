//! Frictional contact with the exact Coulomb cone (`fc/...`): one-contact problems whose
//! reactions are known in closed form, solved by every exact solver of signorini-friction by
//! name (`nsgs`, `nsgs:local=proj`, `nsgs-colored`, `newton-ac`, `apgd-ccp:desaxce=true`, `admm`, `auto`) through its
//! driver, which recomputes u = W r + q and the Siconos error from r. Each check compares the
//! returned r (and u) with the formula, entry by entry; the status must be `solved`.
//!
//! Convention (Siconos, Acary–Brogliato 2008 §13.1): u = W r + q in the contact frame
//! (normal first), r in the cone |r_T| <= mu r_N, sliding friction opposite to u_T. The
//! problems are at acceleration level with unit-free data in SI (g = 9.81).

use signorini_friction::{FcProblem, FcRegistry};
use signorini_lcp::{SolveOptions, Status};

pub use crate::friction_siconos::SICONOS_FC_DIR;

use crate::case::{Case, Context};
use crate::check::fmt_sci;
use crate::convergence::{fitted_series, Recorder, StudyCase};
use crate::plot::LogLogPlot;

const G: f64 = 9.81;

/// The solvers of the exact cone (the `lcp` route solves a polyhedral approximation, and
/// `apgd-ccp` without the De Saxcé shift solves the convex relaxation).
pub const EXACT_SOLVERS: [&str; 7] = [
    "nsgs",
    "nsgs:local=proj",
    "nsgs-colored",
    "newton-ac",
    "apgd-ccp:desaxce=true",
    "admm",
    "auto",
];

/// The frictional-contact cases.
pub fn cases() -> Vec<Box<dyn Case>> {
    let v = vec![
        StudyCase {
            id: "fc/closed_form/incline",
            kind: "fc",
            source: "point mass on an incline (Acary, Brogliato 2008, §13.1): sticks iff \
                     mu >= tan(theta), else slides with a = g (sin theta - mu cos theta)",
            quick: true,
            body: incline,
        },
        StudyCase {
            id: "fc/closed_form/diagonal_push",
            kind: "fc",
            source: "box (point mass) pushed along a diagonal of the plane with F > mu m g: \
                     friction -mu m g opposite to the sliding acceleration (F - mu m g)/m",
            quick: true,
            body: diagonal_push,
        },
        StudyCase {
            id: "fc/closed_form/sphere_tangential_force",
            kind: "fc",
            source: "solid sphere (I = 2/5 m R^2) at rest on a plane, horizontal force F at its \
                     centre: contact-point W_T = 1/m + R^2/I = 7/(2m), so it rolls with friction \
                     -2F/7 for F <= (7/2) mu m g and slides with -mu m g above",
            quick: true,
            body: sphere_tangential_force,
        },
        StudyCase {
            id: "fc/convergence/polyhedral_cone",
            kind: "fc",
            source: "Stewart, Trinkle 1996 (k-facet polyhedral cone, the `lcp` route): sliding \
                     midway between two facet directions, the friction magnitude is \
                     mu m g cos(pi/k), so the error to the exact cone is mu m g (1 - cos(pi/k)), \
                     order 2 in 1/k",
            quick: true,
            body: polyhedral_cone,
        },
    ];
    let mut out: Vec<Box<dyn Case>> = v.into_iter().map(|c| Box::new(c) as Box<dyn Case>).collect();
    out.extend(crate::friction_siconos::cases());
    out
}

/// One decoupled contact, W = diag(a, b, ..., b) of size `d`: the exact reaction (take-off,
/// sticking or sliding) and the exact u.
fn exact(a: f64, b: f64, q: &[f64], mu: f64) -> (Vec<f64>, Vec<f64>) {
    let rn = (-q[0] / a).max(0.0);
    let qt = &q[1..];
    let nqt = qt.iter().map(|v| v * v).sum::<f64>().sqrt();
    let mut r = vec![rn];
    if nqt <= mu * b * rn {
        r.extend(qt.iter().map(|v| -v / b));
    } else {
        r.extend(qt.iter().map(|v| -mu * rn * v / nqt));
    }
    let u: Vec<f64> = r
        .iter()
        .zip(q)
        .enumerate()
        .map(|(i, (ri, qi))| qi + if i == 0 { a } else { b } * ri)
        .collect();
    (r, u)
}

/// Solves the decoupled problem with every exact solver and records, per solver, the status
/// and every entry of r and u against the closed form (relative to `scale`, the size of the
/// load); returns each solver's (r, u) for case-specific checks.
#[allow(clippy::too_many_arguments)]
fn solve_all(
    rec: &mut Recorder,
    label: &str,
    d: usize,
    a: f64,
    b: f64,
    q: &[f64],
    mu: f64,
    scale: f64,
) -> Vec<(String, Vec<f64>, Vec<f64>)> {
    let rows: Vec<Vec<f64>> = (0..d)
        .map(|i| {
            (0..d)
                .map(|j| {
                    if i != j {
                        0.0
                    } else if i == 0 {
                        a
                    } else {
                        b
                    }
                })
                .collect()
        })
        .collect();
    let problem = match FcProblem::from_dense_rows(d, &rows, q.to_vec(), vec![mu]) {
        Ok(p) => p,
        Err(e) => {
            rec.error(label, e);
            return Vec::new();
        }
    };
    let (r_exact, u_exact) = exact(a, b, q, mu);
    let registry = FcRegistry::builtin();
    let options = SolveOptions { tol: Some(1e-12), ..SolveOptions::default() };
    let mut out = Vec::new();
    for spec in EXACT_SOLVERS {
        let l = format!("{label}@{spec}");
        let sol = match registry
            .build(spec)
            .map_err(|e| e.to_string())
            .and_then(|s| s.solve(&problem, &options, None).map_err(|e| e.to_string()))
        {
            Ok(sol) => sol,
            Err(e) => {
                rec.error(&l, e);
                continue;
            }
        };
        rec.check(
            &format!("{l}_status"),
            "status",
            sol.status == Status::Solved,
            "solved (Siconos error <= 1e-12)".into(),
            format!("{} (error {})", sol.status, fmt_sci(sol.error)),
            Some(1e-12),
        );
        for (k, (got, want)) in sol.r.iter().zip(&r_exact).enumerate() {
            rec.close(&format!("{l}_r{k}"), *want, *got, 1e-9, scale);
        }
        for (k, (got, want)) in sol.u.iter().zip(&u_exact).enumerate() {
            rec.close(&format!("{l}_u{k}"), *want, *got, 1e-9, scale / b.max(a));
        }
        out.push((spec.to_string(), sol.r, sol.u));
    }
    out
}

/// Point mass m = 1 on an incline of angle theta, mu = 0.5, in 3D and in 2D: the normal is
/// the incline's, t1 points up the slope, W = I / m, q = (-g cos theta, -g sin theta[, 0]).
/// tan(26.5°) = 0.4986 sticks, tan(26.7°) = 0.5029 slides; the sliding acceleration down the
/// slope is -u_T1 = g (sin theta - mu cos theta).
fn incline(_: &Context, rec: &mut Recorder) {
    let (m, mu) = (1.0, 0.5);
    for d in [3usize, 2] {
        for angle in [20.0, 26.5, 26.7, 35.0] {
            let th = f64::to_radians(angle);
            let mut q = vec![-G * th.cos(), -G * th.sin()];
            if d == 3 {
                q.push(0.0);
            }
            let label = format!("{d}d_angle{angle}");
            let runs = solve_all(rec, &label, d, 1.0 / m, 1.0 / m, &q, mu, m * G);
            let a = if th.tan() <= mu { 0.0 } else { G * (th.sin() - mu * th.cos()) };
            for (spec, _, u) in runs {
                rec.close(&format!("{label}@{spec}_acceleration"), a, -u[1], 1e-9, G);
            }
        }
    }
}

/// Box of mass m = 2 (a point mass: one contact under its centre), mu = 0.3, pushed with
/// F = 10 N > mu m g = 5.886 N along phi = 35° in the plane: it slides along phi, friction
/// -mu m g (cos phi, sin phi), u_T = (F - mu m g) / m (cos phi, sin phi). Besides the entries,
/// the direction: |r_T x u_T| / (|r_T| |u_T|) <= 1e-9 with r_T . u_T < 0.
fn diagonal_push(_: &Context, rec: &mut Recorder) {
    let (m, mu, f, phi) = (2.0, 0.3, 10.0, f64::to_radians(35.0));
    let q = [-G, f * phi.cos() / m, f * phi.sin() / m];
    for (spec, r, u) in solve_all(rec, "push", 3, 1.0 / m, 1.0 / m, &q, mu, m * G) {
        let cross = r[1] * u[2] - r[2] * u[1];
        let dot = r[1] * u[1] + r[2] * u[2];
        let norms = r[1].hypot(r[2]) * u[1].hypot(u[2]);
        let sine = cross.abs() / norms;
        rec.check(
            &format!("push@{spec}_friction_opposes_velocity"),
            "direction",
            norms > 0.0 && dot < 0.0 && sine <= 1e-9,
            "r_T antiparallel to u_T (sine of the angle <= 1e-9)".into(),
            format!("sine {}, r_T . u_T {}", fmt_sci(sine), fmt_sci(dot)),
            Some(1e-9),
        );
    }
}

/// Solid sphere m = 1, R = 0.1, mu = 0.3, horizontal force F at its centre along 120°:
/// W = diag(1/m, 7/(2m), 7/(2m)) at the contact point. The threshold (7/2) mu m g = 10.30 N:
/// F = 5 N rolls (r_T = -2F/7 along the force), F = 20 N slides (r_T = -mu m g along it).
fn sphere_tangential_force(_: &Context, rec: &mut Recorder) {
    let (m, radius, mu, phi) = (1.0, 0.1, 0.3, f64::to_radians(120.0));
    let inertia = 0.4 * m * radius * radius;
    let b = 1.0 / m + radius * radius / inertia;
    for f in [5.0, 20.0] {
        let q = [-G, f * phi.cos() / m, f * phi.sin() / m];
        let label = format!("force{f}");
        let runs = solve_all(rec, &label, 3, 1.0 / m, b, &q, mu, m * G);
        let expected = if f <= 3.5 * mu * m * G { 2.0 * f / 7.0 } else { mu * m * G };
        for (spec, r, _) in runs {
            rec.close(
                &format!("{label}@{spec}_friction_magnitude"),
                expected,
                r[1].hypot(r[2]),
                1e-9,
                m * G,
            );
        }
    }
}

/// The polyhedral cone approaching the exact one: the pushed box of [`diagonal_push`]
/// (m = 2, mu = 0.3, F = 10 N) with the force along phi = pi/k, midway between the facet
/// directions t_0 and t_1 (and, opposite, between t_{k/2} and t_{k/2+1}), solved by the `lcp`
/// route with k = 4..64. By symmetry both opposite directions carry mu r_N / 2, so
/// |r_T| = mu m g cos(pi/k) exactly and the error to the cone's -mu m g (cos phi, sin phi) is
/// mu m g (1 - cos(pi/k)) ~ mu m g pi^2 / (2 k^2): observed order 2 in 1/k.
fn polyhedral_cone(_: &Context, rec: &mut Recorder) {
    let (m, mu, f) = (2.0, 0.3, 10.0);
    let registry = FcRegistry::builtin();
    let (mut inv_k, mut err) = (Vec::new(), Vec::new());
    for k in [4usize, 8, 16, 32, 64] {
        let phi = std::f64::consts::PI / k as f64;
        let q = vec![-G, f * phi.cos() / m, f * phi.sin() / m];
        let label = format!("k{k}");
        let rows = vec![vec![1.0 / m, 0.0, 0.0], vec![0.0, 1.0 / m, 0.0], vec![0.0, 0.0, 1.0 / m]];
        let run = FcProblem::from_dense_rows(3, &rows, q, vec![mu])
            .map_err(|e| e.to_string())
            .and_then(|p| {
                let s = registry.build(&format!("lcp:k={k}")).map_err(|e| e.to_string())?;
                s.solve(&p, &SolveOptions::default(), None).map_err(|e| e.to_string())
            });
        let sol = match run {
            Ok(sol) => sol,
            Err(e) => {
                rec.error(&label, e);
                continue;
            }
        };
        let magnitude = sol.r[1].hypot(sol.r[2]);
        rec.close(
            &format!("{label}_friction_magnitude"),
            mu * m * G * phi.cos(),
            magnitude,
            1e-9,
            m * G,
        );
        rec.close(&format!("{label}_normal"), m * G, sol.r[0], 1e-9, m * G);
        let cone = [-mu * m * G * phi.cos(), -mu * m * G * phi.sin()];
        inv_k.push(1.0 / k as f64);
        err.push((sol.r[1] - cone[0]).hypot(sol.r[2] - cone[1]));
    }
    if inv_k.len() < 5 {
        return;
    }
    let fit = rec.order("order_in_1_over_k", &inv_k, &err, 2.0, (1.9, 2.1));
    rec.plot(
        "",
        LogLogPlot {
            title: "polyhedral friction cone: distance of r_T to the exact cone's".into(),
            x_label: "1/k (k facet directions)".into(),
            y_label: "|r_T(k) - r_T| (N)".into(),
            series: vec![fitted_series(
                "lcp route, sliding midway between facets",
                &inv_k,
                &err,
                fit,
            )],
        },
    );
}
