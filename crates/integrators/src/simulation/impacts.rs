//! Impacts as a [`crate::Simulation`] reports them, for every family of schemes:
//!
//! - event-driven: its located impacts;
//! - time steppers: a step in which a contact that was approaching (J v < 0, gap within one
//!   step's travel) receives a normal velocity jump larger than the free-flight change over
//!   the step, with the thresholds of [`SteppedImpactDetection`]; its `impulse` is the 2-norm
//!   of the step's contact impulse M (v⁺ − v) − h f;
//! - penalty schemes: contact episodes per body pair, from the last sample before any contact
//!   of the pair penetrates to the first sample after none does, with the trapezoidal integral
//!   of the pair's normal forces as impulse.
//!
//! Energies: time steppers and penalty schemes report the mechanical energy (kinetic, gravity
//! and constant applied forces; penalty: and the springs' energy) at the ends of the step or
//! episode; the event-driven scheme reports the kinetic energy just before and after the
//! impact (the coordinates do not change across it, so the difference is the same; `signorini
//! simulate` and its tests have always reported it so).

use signorini_contact::BodyKind;

use crate::model::{ContactId, ContactModel as _};
use crate::scene_model::{PenaltyScene, SceneModel};
use crate::stepping::{Sample, StepView};

/// At most this many impacts and failed solves are listed in a
/// [`crate::SimulationOutcome`] (the first ones); the totals count all of them.
pub const MAX_LISTED: usize = 10_000;

/// Default [`SteppedImpactDetection::approach_speed`]: a contact closing slower than this
/// (in the scene's velocity unit) is resting, not approaching.
pub const DEFAULT_APPROACH_SPEED: f64 = 1e-6;

/// Default [`SteppedImpactDetection::gap_slack`]: round-off allowance on the gap test (length
/// unit).
pub const DEFAULT_GAP_SLACK: f64 = 1e-9;

/// Default [`SteppedImpactDetection::jump_factor`]: a normal velocity jump must exceed twice
/// the free-flight change over the step, so that the impulse that only holds a contact against
/// the applied forces for one step (a jump of about h |J M⁻¹ f|) is no impact.
pub const DEFAULT_JUMP_FACTOR: f64 = 2.0;

/// Default [`SteppedImpactDetection::jump_slack`]: round-off allowance on the jump test
/// (velocity unit), so that round-off in a free flight is no impact.
pub const DEFAULT_JUMP_SLACK: f64 = 1e-9;

/// The thresholds that decide whether a time step holds an impact (velocity and length in the
/// scene's units).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SteppedImpactDetection {
    /// A contact is approaching when its normal velocity J v is below −approach_speed
    /// (default [`DEFAULT_APPROACH_SPEED`]).
    pub approach_speed: f64,
    /// ... and close when its gap is at most one step's travel −h J v plus gap_slack
    /// (default [`DEFAULT_GAP_SLACK`]).
    pub gap_slack: f64,
    /// It is hit when its normal velocity jumps by more than jump_factor times the free-flight
    /// change h |J M⁻¹ f| over the step (default [`DEFAULT_JUMP_FACTOR`]) ...
    pub jump_factor: f64,
    /// ... plus jump_slack (default [`DEFAULT_JUMP_SLACK`]).
    pub jump_slack: f64,
}

impl Default for SteppedImpactDetection {
    fn default() -> Self {
        Self {
            approach_speed: DEFAULT_APPROACH_SPEED,
            gap_slack: DEFAULT_GAP_SLACK,
            jump_factor: DEFAULT_JUMP_FACTOR,
            jump_slack: DEFAULT_JUMP_SLACK,
        }
    }
}

impl SteppedImpactDetection {
    /// The name of the first threshold that is not a finite number >= 0.
    pub(crate) fn invalid(&self) -> Option<(&'static str, f64)> {
        [
            ("approach_speed", self.approach_speed),
            ("gap_slack", self.gap_slack),
            ("jump_factor", self.jump_factor),
            ("jump_slack", self.jump_slack),
        ]
        .into_iter()
        .find(|(_, x)| !(x.is_finite() && *x >= 0.0))
    }
}

/// One reported impact.
#[derive(Debug, Clone, PartialEq)]
pub struct ImpactEvent {
    /// Time (start of the step or episode; the located time for event-driven).
    pub t: f64,
    /// Names of the bodies that took part.
    pub bodies: Vec<String>,
    /// 2-norm of the impulse.
    pub impulse: f64,
    /// Energy before: mechanical at the start of the step or episode; event-driven: kinetic
    /// just before the impact (see the module documentation).
    pub energy_before: f64,
    /// Energy after: mechanical at the end of the step or episode; event-driven: kinetic just
    /// after the impact.
    pub energy_after: f64,
    /// Penalty episodes only: whether the pair separated before the end of the run.
    pub separated: Option<bool>,
    /// Penalty episodes only: the first sample after separation.
    pub t_separation: Option<f64>,
}

/// The first [`MAX_LISTED`] items of a kind and how many there were.
#[derive(Debug, Clone, PartialEq)]
pub struct Listed<T> {
    /// The first items, in the order they occurred.
    pub items: Vec<T>,
    /// How many occurred.
    pub total: usize,
}

impl<T> Default for Listed<T> {
    fn default() -> Self {
        Self { items: Vec::new(), total: 0 }
    }
}

impl<T> Listed<T> {
    pub(crate) fn push(&mut self, item: T) {
        self.total += 1;
        if self.items.len() < MAX_LISTED {
            self.items.push(item);
        }
    }
}

/// Kinetic energy plus the potential of gravity and the constant applied forces.
pub(crate) fn mechanical_energy(model: &SceneModel, q: &[f64], v: &[f64]) -> f64 {
    let scene = model.scene();
    let potential: f64 = model
        .bodies_at(q, v)
        .iter()
        .filter(|b| b.kind != BodyKind::Fixed)
        .map(|b| {
            (0..3).map(|k| -(b.mass * scene.gravity[k] + b.force[k]) * b.position[k]).sum::<f64>()
        })
        .sum();
    model.kinetic_energy(q, v) + potential
}

/// Names of the two bodies of every contact, in the model's order.
pub(crate) fn contact_names(model: &SceneModel) -> Vec<[String; 2]> {
    let bodies = &model.scene().bodies;
    model
        .contact_body_indices()
        .into_iter()
        .map(|(a, b)| [bodies[a].name.clone(), bodies[b].name.clone()])
        .collect()
}

/// Finds the impacts of a time-stepping run step by step.
pub(crate) struct SteppedImpacts<'a> {
    model: &'a SceneModel,
    p: SteppedImpactDetection,
    names: Vec<[String; 2]>,
    pub(crate) found: Listed<ImpactEvent>,
}

impl<'a> SteppedImpacts<'a> {
    pub(crate) fn new(model: &'a SceneModel, p: SteppedImpactDetection) -> Self {
        Self { model, p, names: contact_names(model), found: Listed::default() }
    }

    /// The names of a contact's two bodies.
    fn names_of(&self, id: ContactId) -> [String; 2] {
        let bodies = &self.model.scene().bodies;
        match id {
            ContactId::Index(c) => self.names.get(c).cloned().unwrap_or_default(),
            ContactId::Feature { body_a, body_b, .. } => {
                [body_a, body_b].map(|b| bodies.get(b).map(|b| b.name.clone()).unwrap_or_default())
            }
        }
    }

    /// Looks at one step, with the stepper's own gaps, normal velocities and free
    /// acceleration at its start.
    pub(crate) fn step(&mut self, step: &StepView<'_>) {
        let (a, b, h) = (step.before, step.after, step.h);
        let gaps = step.gaps;
        let un_pre = step.normal_velocities(&a.v);
        let un_post = step.normal_velocities(&b.v);
        // Free-flight change of the normal velocities over the step: h J M^-1 f.
        let free = step.normal_velocities(step.free_acceleration);
        let p = &self.p;
        let hit: Vec<usize> = (0..gaps.len())
            .filter(|&i| {
                un_pre[i] < -p.approach_speed
                    && gaps[i] <= -un_pre[i] * h + p.gap_slack
                    && un_post[i] - un_pre[i] > p.jump_factor * h * free[i].abs() + p.jump_slack
            })
            .collect();
        if hit.is_empty() {
            return;
        }
        let dv: Vec<f64> = b.v.iter().zip(&a.v).map(|(x, y)| x - y).collect();
        let mdv = step.mass_times(&dv);
        let f = step.forces;
        let impulse = mdv.iter().zip(f).map(|(p, f)| (p - h * f).powi(2)).sum::<f64>().sqrt();
        let mut bodies: Vec<String> =
            hit.iter().flat_map(|&i| self.names_of(step.contact_ids[i])).collect();
        bodies.sort();
        bodies.dedup();
        self.found.push(ImpactEvent {
            t: a.t,
            bodies,
            impulse,
            energy_before: mechanical_energy(self.model, &a.q, &a.v),
            energy_after: mechanical_energy(self.model, &b.q, &b.v),
            separated: None,
            t_separation: None,
        });
    }
}

/// T + V_gravity + V_applied + V_elastic of a penalty scene.
fn penalty_energy(sys: &PenaltyScene, q: &[f64], v: &[f64]) -> f64 {
    mechanical_energy(&sys.model, q, v) + sys.elastic_energy(q)
}

/// An episode in progress: start time, energy at the start, impulse so far.
type OpenEpisode = (f64, f64, f64);

/// A finished (or, at the end, still open) episode: pair, start, impulse, energies, the
/// separation time.
type Episode = (usize, f64, f64, f64, f64, Option<f64>);

/// Contact episodes of a penalty run, per body pair.
pub(crate) struct Episodes<'a> {
    sys: &'a PenaltyScene,
    pair_of_contact: Vec<usize>,
    pairs: Vec<(usize, usize)>,
    open: Vec<Option<OpenEpisode>>,
    previous: Previous,
    done: Listed<Episode>,
}

/// The last sample's time, energy and per-pair penetration and normal force.
struct Previous {
    t: f64,
    energy: f64,
    penetrating: Vec<bool>,
    force: Vec<f64>,
}

impl<'a> Episodes<'a> {
    pub(crate) fn new(sys: &'a PenaltyScene, start: &Sample) -> Self {
        let by_contact = sys.model.contact_body_indices();
        let mut pairs: Vec<(usize, usize)> = Vec::new();
        let mut index = std::collections::HashMap::new();
        let pair_of_contact = by_contact
            .iter()
            .map(|p| {
                *index.entry(*p).or_insert_with(|| {
                    pairs.push(*p);
                    pairs.len() - 1
                })
            })
            .collect();
        let mut e = Self {
            sys,
            pair_of_contact,
            open: vec![None; pairs.len()],
            pairs,
            previous: Previous { t: 0.0, energy: 0.0, penetrating: Vec::new(), force: Vec::new() },
            done: Listed::default(),
        };
        e.previous = e.sample(start);
        // A pair already penetrating at the start begins its episode there.
        for (p, open) in e.open.iter_mut().enumerate() {
            if e.previous.penetrating[p] {
                *open = Some((start.t, e.previous.energy, 0.0));
            }
        }
        e
    }

    fn sample(&self, s: &Sample) -> Previous {
        let gaps = self.sys.model.gaps(&s.q);
        let forces = self.sys.normal_forces(&s.q, &s.v);
        let mut penetrating = vec![false; self.pairs.len()];
        let mut force = vec![0.0; self.pairs.len()];
        for (i, &p) in self.pair_of_contact.iter().enumerate() {
            penetrating[p] |= gaps[i] < 0.0;
            force[p] += forces[i];
        }
        Previous { t: s.t, energy: penalty_energy(self.sys, &s.q, &s.v), penetrating, force }
    }

    pub(crate) fn advance(&mut self, s: &Sample) {
        let now = self.sample(s);
        let prev = &self.previous;
        let dt = now.t - prev.t;
        for p in 0..self.pairs.len() {
            let trapezoid = 0.5 * dt * (prev.force[p] + now.force[p]);
            match (&mut self.open[p], now.penetrating[p]) {
                (None, true) => self.open[p] = Some((prev.t, prev.energy, trapezoid)),
                (Some((_, _, impulse)), true) => *impulse += trapezoid,
                (Some((t0, e0, impulse)), false) => {
                    self.done.push((p, *t0, *impulse + trapezoid, *e0, now.energy, Some(now.t)));
                    self.open[p] = None;
                }
                (None, false) => {}
            }
        }
        self.previous = now;
    }

    pub(crate) fn finish(mut self) -> Listed<ImpactEvent> {
        for p in 0..self.pairs.len() {
            if let Some((t0, e0, impulse)) = self.open[p] {
                self.done.push((p, t0, impulse, e0, self.previous.energy, None));
            }
        }
        self.done.items.sort_by(|a, b| a.1.total_cmp(&b.1));
        let names: Vec<&str> =
            self.sys.model.scene().bodies.iter().map(|b| b.name.as_str()).collect();
        let items = self
            .done
            .items
            .into_iter()
            .map(|(p, t, impulse, energy_before, energy_after, end)| {
                let (a, b) = self.pairs[p];
                ImpactEvent {
                    t,
                    bodies: vec![names[a].to_owned(), names[b].to_owned()],
                    impulse,
                    energy_before,
                    energy_after,
                    separated: Some(end.is_some()),
                    t_separation: end,
                }
            })
            .collect();
        Listed { items, total: self.done.total }
    }
}
