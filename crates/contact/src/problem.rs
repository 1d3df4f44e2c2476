//! The contact LCP of a scene's initial state at the acceleration, velocity or position level,
//! with or without a polyhedral friction cone, and the report of its solution (the contract of
//! `signorini contact --json`).
//!
//! Unknowns z (normal components first, in contact order): reactions N (acceleration level,
//! forces) or impulses P (velocity and position level), then, with friction, k tangential
//! components β per contact, then one sliding-speed multiplier λ per contact. Without friction
//! the LCP is (W, b) with W = J M^-1 J^T:
//!
//! - acceleration: b = J M^-1 f + J'v (J'v from [`crate::detect::gap_acceleration_bias`]),
//!   w = normal accelerations;
//! - velocity: b = J v + h J M^-1 f + e min(J v, 0) (Newton restitution e of the material on the
//!   normal rows), w = next normal velocities plus the restitution term;
//! - position (Anitescu–Potra, Tedrake's time-stepping LCP): normal rows
//!   w = d + h J_n v⁺ = (d + h J_n v_free) + h W_n· P with v_free = v + h M^-1 f, so the normal rows
//!   of the matrix are h W and b_n = gap + h J_n v_free; w = next-step gaps (linearised).
//!
//! f holds gravity, the applied forces and, for 3D rigid bodies, the gyroscopic torque
//! −ω × (I_w ω). J'v is computed for the normal rows ([`crate::detect::gap_acceleration_bias`])
//! and for the tangential rows of friction at the acceleration level
//! ([`crate::detect::friction_acceleration_bias`]: the rate of the friction directions with the
//! normal and of the witness points sliding over the surfaces).
//!
//! With friction (Stewart & Trinkle 1996, *An implicit time-stepping scheme for rigid body
//! dynamics with inelastic collisions and Coulomb friction*; Anitescu & Potra 1997), with D the
//! k tangential rows of J, E the block-diagonal matrix of ones columns and μ the friction
//! coefficient, the one LCP (nonsymmetric, copositive) is
//!
//! ```text
//! [ s W_nn   s W_nD   0 ] [c_n]   [b_n]
//! [ W_Dn     W_DD     E ] [ β ] + [b_D]  ⟂  [c_n, β, λ] >= 0
//! [ μ       -E^T      0 ] [ λ ]   [ 0 ]
//! ```
//!
//! with s = h at the position level and 1 otherwise.
//!
//! Without friction the matrix s W can also be handed over matrix-free
//! ([`contact_problem_with`] and [`DelassusForm`]): as the Gram form s W = G G' with
//! G = sqrt(s) J L (M⁻¹ = L L' blockwise, [`BlockDiagonalMass::delassus_gram`]), which has
//! J's pattern, so that `pgs`, `psor`, `sgs` and `apgd` never form W.

use serde::Serialize;
use signorini_lcp::{Lcp, LcpSolver, Solution, SolveOptions};

use crate::body::{BodyKind, Dimension, DofLayout};
use crate::delassus::DelassusForm;
use crate::detect::{detect_contacts, friction_acceleration_bias, gap_acceleration_bias, Contact};
use crate::error::ContactError;
use crate::jacobian::{Coo, Jacobian};
use crate::mass::{BlockDiagonalMass, MassMatrix};
use crate::math::{cross, mat_vec};
use crate::scene::Scene;

/// Where the contact LCP is posed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Forces and accelerations of closed contacts (no time step).
    Acceleration,
    /// Impulses and next-step velocities (time step h).
    Velocity,
    /// Impulses and linearised next-step gaps (time step h).
    Position,
}

impl Level {
    /// The name as on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Acceleration => "acceleration",
            Level::Velocity => "velocity",
            Level::Position => "position",
        }
    }
}

impl std::str::FromStr for Level {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "acceleration" => Ok(Level::Acceleration),
            "velocity" => Ok(Level::Velocity),
            "position" => Ok(Level::Position),
            other => Err(format!(
                "unknown level `{other}` (expected acceleration, velocity or position)"
            )),
        }
    }
}

/// The assembled contact LCP of a scene and everything needed to interpret its solution.
#[derive(Debug, Clone)]
pub struct ContactProblem {
    /// The level.
    pub level: Level,
    /// Time step h (velocity and position level).
    pub step: Option<f64>,
    /// k, when friction rows are present.
    pub friction_directions: Option<usize>,
    /// Dimension of the scene.
    pub dimension: Dimension,
    /// Body names, for reports.
    pub body_names: Vec<String>,
    /// Closed contacts, in order.
    pub contacts: Vec<Contact>,
    /// Velocity layout.
    pub layout: DofLayout,
    /// Mass matrix.
    pub mass: BlockDiagonalMass,
    /// J: normal rows, then tangential rows.
    pub jacobian: Jacobian,
    /// Generalised velocity v of the initial state.
    pub velocity: Vec<f64>,
    /// Generalised force f (gravity, applied forces, gyroscopic torques).
    pub force: Vec<f64>,
    /// How W went into the LCP: [`DelassusForm::Assembled`] or [`DelassusForm::MatrixFree`]
    /// (`Auto` resolved).
    pub delassus_form: DelassusForm,
    /// W = J M^-1 J^T over all rows of J; `None` when matrix-free (W is not formed: read it
    /// through `lcp`, whose [`Lcp::matrix`] assembles it on demand).
    pub delassus: Option<Coo>,
    /// The LCP matrix (= W without friction at acceleration and velocity level); `None` when
    /// matrix-free.
    pub matrix: Option<Coo>,
    /// The LCP vector b (its q).
    pub b: Vec<f64>,
    /// The LCP, sparse or (matrix-free) in Gram form.
    pub lcp: Lcp,
}

/// The generalised force f of the scene's bodies: m g + applied force on the translational
/// components, −ω × (I_w ω) on the rotational components of 3D rigid bodies.
pub fn generalized_force(scene: &Scene, layout: &DofLayout) -> Vec<f64> {
    let mut f = vec![0.0; layout.n_dofs];
    for (body, &(offset, _)) in scene.bodies.iter().zip(&layout.blocks) {
        if body.kind == BodyKind::Fixed {
            continue;
        }
        let mut spatial = [0.0; 6];
        for ((s, g), f) in spatial.iter_mut().zip(scene.gravity).zip(body.force) {
            *s = body.mass * g + f;
        }
        if body.kind == BodyKind::Rigid && scene.dimension == Dimension::Three {
            let r = body.rotation();
            let w = body.angular_velocity;
            let wl = crate::math::mat_t_vec(&r, w);
            let iw = mat_vec(
                &r,
                [body.inertia[0] * wl[0], body.inertia[1] * wl[1], body.inertia[2] * wl[2]],
            );
            let g = cross(w, iw);
            spatial[3] = -g[0];
            spatial[4] = -g[1];
            spatial[5] = -g[2];
        }
        for (k, &c) in DofLayout::spatial_components(scene.dimension, body.kind).iter().enumerate()
        {
            f[offset + k] = spatial[c];
        }
    }
    f
}

fn validate_step(level: Level, step: Option<f64>) -> Result<Option<f64>, ContactError> {
    match (level, step) {
        (Level::Acceleration, _) => Ok(None),
        (_, None) => Err(ContactError::MissingStep { level: level.as_str() }),
        (_, Some(h)) if !(h.is_finite() && h > 0.0) => Err(ContactError::InvalidStep(h)),
        (_, Some(h)) => Ok(Some(h)),
    }
}

/// k for the scene: None without friction; the requested k, or 2 (2D) / 4 (3D) when the
/// material's friction is positive. Friction rows are present when μ > 0 or k is given.
fn friction_k(scene: &Scene, requested: Option<usize>) -> Result<Option<usize>, ContactError> {
    let k = match requested {
        Some(k) => k,
        None if scene.material.friction > 0.0 => match scene.dimension {
            Dimension::Two => 2,
            Dimension::Three => 4,
        },
        None => return Ok(None),
    };
    let ok = match scene.dimension {
        Dimension::Two => k == 2,
        Dimension::Three => k >= 3,
    };
    if ok {
        Ok(Some(k))
    } else {
        Err(ContactError::InvalidFrictionDirections { k, dimension: scene.dimension.as_usize() })
    }
}

/// Detects the closed contacts of the scene's initial state and assembles the contact LCP at the
/// given level (see the module documentation for the formulas), W assembled.
pub fn contact_problem(
    scene: &Scene,
    level: Level,
    step: Option<f64>,
    friction_directions: Option<usize>,
) -> Result<ContactProblem, ContactError> {
    contact_problem_with(scene, level, step, friction_directions, DelassusForm::Assembled)
}

/// [`contact_problem`] with W in the requested form: assembled, matrix-free (the Gram form
/// G G', frictionless LCPs only: with friction rows this is
/// [`ContactError::MatrixFreeWithFriction`]) or `Auto` (matrix-free for a frictionless LCP
/// whose nnz(W) / nnz(J) reaches [`crate::delassus::MATRIX_FREE_MIN_RATIO`]).
pub fn contact_problem_with(
    scene: &Scene,
    level: Level,
    step: Option<f64>,
    friction_directions: Option<usize>,
    form: DelassusForm,
) -> Result<ContactProblem, ContactError> {
    let step = validate_step(level, step)?;
    let k = friction_k(scene, friction_directions)?;
    let dim = scene.dimension;
    let layout = DofLayout::new(dim, &scene.bodies);
    let mass = BlockDiagonalMass::new(&layout, &scene.bodies);
    let contacts = detect_contacts(&scene.bodies, dim, scene.margin)?;
    let nc = contacts.len();
    let jacobian = match k {
        Some(k) => Jacobian::with_friction(&layout, &scene.bodies, &contacts, k),
        None => Jacobian::normal(&layout, &scene.bodies, &contacts),
    };
    let velocity = layout.velocity(&scene.bodies);
    let force = generalized_force(scene, &layout);
    let mut minv_f = vec![0.0; layout.n_dofs];
    mass.apply_inverse(&force, &mut minv_f);
    let form = match (form, k) {
        (DelassusForm::MatrixFree, Some(_)) => return Err(ContactError::MatrixFreeWithFriction),
        (DelassusForm::Auto, Some(_)) => DelassusForm::Assembled,
        (form, _) => form.choose(&jacobian),
    };

    let (b, normal_scale) = match (level, step) {
        (Level::Acceleration, _) => {
            let mut b = jacobian.apply(&minv_f);
            for (bi, c) in b.iter_mut().zip(&contacts) {
                *bi += gap_acceleration_bias(&scene.bodies, dim, c);
            }
            if let Some(k) = k {
                for (ci, c) in contacts.iter().enumerate() {
                    let rows = friction_acceleration_bias(&scene.bodies, dim, c, k);
                    for (d, bias) in rows.into_iter().enumerate() {
                        b[nc + ci * k + d] += bias;
                    }
                }
            }
            (b, 1.0)
        }
        (Level::Velocity, Some(h)) => {
            let jv = jacobian.apply(&velocity);
            let jf = jacobian.apply(&minv_f);
            let e = scene.material.restitution;
            let b = jv
                .iter()
                .zip(&jf)
                .enumerate()
                .map(|(i, (v, f))| v + h * f + if i < nc { e * v.min(0.0) } else { 0.0 })
                .collect();
            (b, 1.0)
        }
        (Level::Position, Some(h)) => {
            let v_free: Vec<f64> = velocity.iter().zip(&minv_f).map(|(v, f)| v + h * f).collect();
            let mut b = jacobian.apply(&v_free);
            for (bi, c) in b.iter_mut().zip(&contacts) {
                *bi = c.gap + h * *bi;
            }
            (b, h)
        }
        (_, None) => return Err(ContactError::MissingStep { level: level.as_str() }),
    };

    let mu = scene.material.friction;
    let (delassus, matrix, b, lcp) = if form == DelassusForm::MatrixFree {
        let lcp = Lcp::from_gram(mass.delassus_gram(&jacobian, normal_scale)?, b.clone())?;
        (None, None, b, lcp)
    } else {
        let delassus = mass.delassus(&jacobian);
        let (matrix, b) = match k {
            None => {
                let mut m = delassus.clone();
                if normal_scale != 1.0 {
                    m.val.iter_mut().for_each(|v| *v *= normal_scale);
                }
                (m, b)
            }
            Some(k) => stewart_trinkle(&delassus, b, nc, k, mu, normal_scale),
        };
        let lcp = Lcp::from_coo(matrix.nrows, &matrix.row, &matrix.col, &matrix.val, b.clone())?;
        (Some(delassus), Some(matrix), b, lcp)
    };
    Ok(ContactProblem {
        delassus_form: form,
        level,
        step,
        friction_directions: k,
        dimension: dim,
        body_names: scene.bodies.iter().map(|b| b.name.clone()).collect(),
        contacts,
        layout,
        mass,
        jacobian,
        velocity,
        force,
        delassus,
        matrix,
        b,
        lcp,
    })
}

/// The Stewart–Trinkle / Anitescu–Potra LCP (module documentation) from W over normal and
/// tangential rows (nc + nc k), its b, the friction coefficient and the normal-row scale s.
pub fn stewart_trinkle(
    w: &Coo,
    b: Vec<f64>,
    nc: usize,
    k: usize,
    mu: f64,
    s: f64,
) -> (Coo, Vec<f64>) {
    let n_rows = nc + nc * k;
    let n = n_rows + nc;
    let mut m = Coo::new(n, n);
    for ((&i, &j), &v) in w.row.iter().zip(&w.col).zip(&w.val) {
        m.push(i, j, if i < nc { s * v } else { v });
    }
    for c in 0..nc {
        for d in 0..k {
            let t = nc + c * k + d;
            m.push(t, n_rows + c, 1.0);
            m.push(n_rows + c, t, -1.0);
        }
        m.push(n_rows + c, c, mu);
    }
    let mut q = b;
    q.resize(n, 0.0);
    (m, q)
}

/// The local frictional-contact problem with the exact Coulomb cone (the Siconos / FCLIB
/// form u = W r + q, r_i in K_mu, contact frames normal first) of a scene's closed contacts.
#[derive(Debug, Clone)]
pub struct CoulombProblem {
    /// 2 or 3: the size of each contact's block.
    pub dimension: usize,
    /// Closed contacts, in order (block c of r and u belongs to contact c).
    pub contacts: Vec<Contact>,
    /// Body names, for reports.
    pub body_names: Vec<String>,
    /// W = J M^-1 J' with J's rows per contact (n, t1, t2) in 3D or (n, t) in 2D.
    pub w: Coo,
    /// q: J M^-1 f plus the gap and frame biases (acceleration), or J v + h J M^-1 f with
    /// Newton restitution on the normal rows (velocity).
    pub q: Vec<f64>,
    /// The scene's friction coefficient, once per contact.
    pub mu: Vec<f64>,
}

/// Assembles the exact-cone problem of the scene at acceleration or velocity level. The frame
/// of each contact is its normal and the tangent basis of [`crate::math::tangent_basis`] (3D:
/// t1, t2; 2D: t = e_z x n): the same rows, biases and W as the polyhedral problem with k = 4
/// (3D, directions t1, t2, -t1, -t2) or k = 2 (2D), of which the rows along t1, t2 (or t) are
/// kept. The position level mixes a gap with velocities in one block, so it is refused.
pub fn coulomb_problem(
    scene: &Scene,
    level: Level,
    step: Option<f64>,
) -> Result<CoulombProblem, ContactError> {
    if level == Level::Position {
        return Err(ContactError::ConeLevel { level: level.as_str() });
    }
    let (d, k) = match scene.dimension {
        Dimension::Two => (2usize, 2usize),
        Dimension::Three => (3, 4),
    };
    let p = contact_problem(scene, level, step, Some(k))?;
    let nc = p.contacts.len();
    // Row of the polyhedral problem -> row of the cone problem (None: dropped).
    let map = |i: usize| -> Option<usize> {
        if i < nc {
            Some(i * d)
        } else if i < nc + nc * k {
            let (c, dir) = ((i - nc) / k, (i - nc) % k);
            (dir < d - 1).then_some(c * d + 1 + dir)
        } else {
            None
        }
    };
    let n = nc * d;
    let mut w = Coo::new(n, n);
    // contact_problem assembles W; formed again only if that ever changes.
    let delassus = p.delassus.clone().unwrap_or_else(|| p.mass.delassus(&p.jacobian));
    for ((&i, &j), &v) in delassus.row.iter().zip(&delassus.col).zip(&delassus.val) {
        if let (Some(a), Some(b)) = (map(i), map(j)) {
            w.push(a, b, v);
        }
    }
    let mut q = vec![0.0; n];
    for (i, &bi) in p.b.iter().enumerate().take(nc + nc * k) {
        if let Some(a) = map(i) {
            q[a] = bi;
        }
    }
    Ok(CoulombProblem {
        dimension: d,
        body_names: p.body_names,
        contacts: p.contacts,
        w,
        q,
        mu: vec![scene.material.friction; nc],
    })
}

/// The 1-D Coulomb friction LCP of Tedrake's time-stepping section (Underactuated Robotics,
/// "Multi-Body Dynamics", "Time-stepping LCP"): a mass m sliding on a line with velocity v,
/// tangential applied force u, normal force f_n, friction coefficient μ and time step h.
/// Unknowns z = (β⁺, β⁻, λ): friction forces in the +x and −x directions and the sliding speed;
/// v⁺ = v + (h/m)(u + β⁺ − β⁻), and
///
/// ```text
/// w = [ λ + v⁺ ; λ − v⁺ ; μ f_n − β⁺ − β⁻ ] >= 0 ⟂ z >= 0.
/// ```
///
/// It sticks (v⁺ = 0, λ = 0) when |m v/h + u| <= μ f_n and otherwise slides with the full
/// friction force μ f_n opposing v⁺ and λ = |v⁺|.
pub fn coulomb_1d_lcp(
    m: f64,
    v: f64,
    u: f64,
    f_n: f64,
    mu: f64,
    h: f64,
) -> Result<Lcp, ContactError> {
    let a = h / m;
    let v_free = v + a * u;
    Ok(Lcp::from_dense_rows(
        &[vec![a, -a, 1.0], vec![-a, a, 1.0], vec![-1.0, -1.0, 0.0]],
        vec![v_free, -v_free, mu * f_n],
    )?)
}

impl ContactProblem {
    /// Number of contacts.
    pub fn n_contacts(&self) -> usize {
        self.contacts.len()
    }

    fn reaction_len(&self) -> usize {
        self.jacobian.n_rows()
    }

    /// Generalised acceleration M^-1 (f + J^T z_r) for reactions z (acceleration level).
    pub fn acceleration(&self, z: &[f64]) -> Vec<f64> {
        let jt = self.jacobian.apply_transpose(&z[..self.reaction_len().min(z.len())]);
        let total: Vec<f64> = self.force.iter().zip(&jt).map(|(f, r)| f + r).collect();
        let mut a = vec![0.0; self.layout.n_dofs];
        self.mass.apply_inverse(&total, &mut a);
        a
    }

    /// Next generalised velocity v + h M^-1 f + M^-1 J^T z_r for impulses z (velocity and
    /// position level).
    pub fn next_velocity(&self, z: &[f64]) -> Vec<f64> {
        let h = self.step.unwrap_or(0.0);
        let jt = self.jacobian.apply_transpose(&z[..self.reaction_len().min(z.len())]);
        let total: Vec<f64> = self.force.iter().zip(&jt).map(|(f, r)| h * f + r).collect();
        let mut dv = vec![0.0; self.layout.n_dofs];
        self.mass.apply_inverse(&total, &mut dv);
        self.velocity.iter().zip(&dv).map(|(v, d)| v + d).collect()
    }
}

/// One contact in a report.
#[derive(Debug, Clone, Serialize)]
pub struct ContactEntry {
    /// Name of body a (the normal points towards it).
    pub body_a: String,
    /// Name of body b.
    pub body_b: String,
    /// Contact point (midpoint of the witness points), `dimension` entries.
    pub point: Vec<f64>,
    /// Unit normal from b to a.
    pub normal: Vec<f64>,
    /// Gap.
    pub gap: f64,
}

/// A matrix in the coordinate form of the LCP file format.
#[derive(Debug, Clone, Serialize)]
pub struct CooEntries {
    /// Size.
    pub n: usize,
    /// Row indices.
    pub row: Vec<usize>,
    /// Column indices.
    pub col: Vec<usize>,
    /// Values.
    pub val: Vec<f64>,
}

/// The solved contact problem, as `signorini contact --json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct ContactReport {
    /// Level name.
    pub level: Level,
    /// Number of closed contacts.
    pub n_contacts: usize,
    /// The contacts.
    pub contacts: Vec<ContactEntry>,
    /// The LCP matrix that was solved (w = W z + b).
    #[serde(rename = "W")]
    pub w: CooEntries,
    /// The LCP vector.
    pub b: Vec<f64>,
    /// Solver status name.
    pub status: String,
    /// Solver spec.
    pub solver: String,
    /// The residual ||min(z, w)|| / ||b|| recomputed by the driver.
    pub residual: f64,
    /// Forces (acceleration level) or impulses: normal components in contact order, then k
    /// tangential components per contact.
    pub reactions: Vec<f64>,
    /// Sliding-speed multipliers λ (with friction).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sliding_speeds: Option<Vec<f64>>,
    /// Normal accelerations (acceleration level).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub normal_accelerations: Option<Vec<f64>>,
    /// Next normal velocities J_n v⁺ (velocity and position level).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub normal_velocities: Option<Vec<f64>>,
}

impl ContactReport {
    /// Builds the report of a solution of `problem.lcp`.
    pub fn new(problem: &ContactProblem, solution: &Solution) -> Result<Self, ContactError> {
        let n = problem.lcp.n();
        if solution.z.len() != n || solution.w.len() != n {
            return Err(ContactError::SolutionSize { expected: n, got: solution.z.len() });
        }
        let d = problem.dimension.as_usize();
        let nc = problem.n_contacts();
        let nr = problem.jacobian.n_rows();
        let contacts = problem
            .contacts
            .iter()
            .map(|c| ContactEntry {
                body_a: problem.body_names[c.body_a].clone(),
                body_b: problem.body_names[c.body_b].clone(),
                point: c.point()[..d].to_vec(),
                normal: c.normal[..d].to_vec(),
                gap: c.gap,
            })
            .collect();
        let z = &solution.z;
        let (normal_accelerations, normal_velocities) = match problem.level {
            Level::Acceleration => (Some(solution.w[..nc].to_vec()), None),
            Level::Velocity | Level::Position => {
                let v_next = problem.next_velocity(z);
                let vn = problem.jacobian.rows[..nc].iter().map(|r| r.dot(&v_next)).collect();
                (None, Some(vn))
            }
        };
        Ok(Self {
            level: problem.level,
            n_contacts: nc,
            contacts,
            w: match &problem.matrix {
                Some(m) => {
                    CooEntries { n, row: m.row.clone(), col: m.col.clone(), val: m.val.clone() }
                }
                // Matrix-free: the report still states the W that was solved.
                None => {
                    let mut w = CooEntries { n, row: Vec::new(), col: Vec::new(), val: Vec::new() };
                    problem.lcp.for_each_entry(|i, j, v| {
                        w.row.push(i);
                        w.col.push(j);
                        w.val.push(v);
                    });
                    w
                }
            },
            b: problem.b.clone(),
            status: solution.status.as_str().to_owned(),
            solver: solution.solver.clone(),
            residual: solution.residual(),
            reactions: z[..nr].to_vec(),
            sliding_speeds: problem.friction_directions.map(|_| z[nr..].to_vec()),
            normal_accelerations,
            normal_velocities,
        })
    }
}

/// The whole `signorini contact` pipeline short of argument parsing: detect, assemble at
/// `level`, solve with `solver` (any [`LcpSolver`], e.g. from `Registry::builtin().build(spec)`)
/// and report. A solver that ends without `solved` still gives a report (its `status` says so).
pub fn solve_contact(
    scene: &Scene,
    level: Level,
    step: Option<f64>,
    friction_directions: Option<usize>,
    solver: &dyn LcpSolver,
    options: &SolveOptions,
) -> Result<(ContactProblem, ContactReport), ContactError> {
    let problem = contact_problem(scene, level, step, friction_directions)?;
    let solution = solver
        .solve(&problem.lcp, options, None)
        .map_err(|e| ContactError::Solve(e.to_string()))?;
    let report = ContactReport::new(&problem, &solution)?;
    Ok((problem, report))
}
