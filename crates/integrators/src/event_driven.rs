//! Event-driven integration of rigid unilateral contact with Newton impacts (Pfeiffer & Glocker
//! 1996, *Multibody Dynamics with Unilateral Contacts*, ch. 6; Acary & Brogliato 2008,
//! *Numerical Methods for Nonsmooth Dynamical Systems*, ch. 7).
//!
//! Between events the motion is smooth: free flight v' = M^-1 f, or constrained motion with the
//! closed contacts loaded (acceleration LCP, [`crate::acceleration`]). Events:
//! - **impact**: an open contact's gap falls through zero; located by Brent to `root_tol` along
//!   the flight integrator's own step (or in closed form for [`Flight::Ballistic`]); resolved by
//!   signorini-impact with the law of [`EventDrivenParams::law`] (Newton, Poisson, inelastic)
//!   in the mode of [`EventDrivenParams::mode`] (the simultaneous impact LCP, or sequential
//!   pairwise impacts with the ordering rule of [`signorini_impact::solve_sequential`]) on
//!   every contact whose gap is within `contact_tol`;
//! - **release**: a closed contact's N - a (continuous, N >= 0 and a >= 0 complementary) falls
//!   through zero: it separates.
//!
//! After an impact, contacts whose post-impact normal velocity is within `velocity_tol` of zero
//! go to the acceleration LCP, which keeps those with N > 0 (or touching with a = 0) closed.
//!
//! **Accumulation (Zeno) rule.** When one contact impacts repeatedly with no other impact in
//! between, the flight times Δt_k are compared: if two successive ratios r = Δt_k / Δt_{k-1}
//! agree within `ratio_tol` (relative) and r < 1, the remaining infinitely many impacts take
//! Δt_k r / (1 - r) (geometric series). Once that is at most `accumulation_tol`, the impact is
//! re-resolved as perfectly inelastic (the limit of the remaining sequence, which dissipates the
//! remaining normal energy), the contact is closed, and the constrained motion is advanced to
//! t_inf = t_k + Δt_k r / (1 - r). For the bouncing ball this gives t_inf = t1 (1 + e)/(1 - e).

use std::cell::RefCell;
use std::sync::Arc;
use std::time::{Duration, Instant};

use signorini_impact::{
    solve_sequential, solve_simultaneous, ImpactError, ImpactLaw, ImpactMode, LcpSolveRecord,
    MechanicalImpact, SequentialParams, SimultaneousParams,
};
use signorini_lcp::{LcpSolver, SolveOptions};

use crate::acceleration::{acceleration_lcp, AccelerationError, ConstrainedMotion};
use crate::model::{ContactModel, FreeMotion, MechanicalSystem, ModelError};
use crate::roots::{brent, RootError};
use crate::smooth::{Integrator, IntegratorError};
pub use crate::stepping::Sample;
use crate::stepping::{Recording, RunEnd};
use crate::system::SecondOrderSystem;

/// How the smooth motion between events is computed.
#[derive(Clone)]
pub enum Flight {
    /// Exact motion under the acceleration at the start of the phase, taken as constant
    /// (constant forces), with gap roots in closed form; valid for gaps affine in q (point
    /// masses and planes). A root whose gap does not vanish to 1e-9 relative is an error.
    Ballistic,
    /// Any smooth integrator with a fixed step; roots by bracketing and Brent along its steps.
    Integrator {
        /// The scheme.
        scheme: Arc<dyn Integrator>,
        /// Step size.
        step: f64,
    },
}

impl std::fmt::Debug for Flight {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Flight::Ballistic => write!(f, "Ballistic"),
            Flight::Integrator { scheme, step } => {
                write!(f, "Integrator({}, h = {step})", scheme.name())
            }
        }
    }
}

/// Settings of [`simulate_event_driven`] (lengths in the model's unit).
#[derive(Debug, Clone)]
pub struct EventDrivenParams {
    /// Smooth motion between events (default: RK4, step 1e-2).
    pub flight: Flight,
    /// Event times are located to this absolute tolerance (default 1e-12).
    pub root_tol: f64,
    /// Jump to t_inf once the predicted remaining time of an impact sequence is at most this
    /// (default 1e-6).
    pub accumulation_tol: f64,
    /// Two successive flight-time ratios count as geometric when they agree to this relative
    /// tolerance (default 1e-3).
    pub ratio_tol: f64,
    /// Contacts with gap <= contact_tol take part in an impact (default 1e-9).
    pub contact_tol: f64,
    /// Post-impact normal velocities below velocity_tol (relative to the impact speed) count as
    /// zero, so the contact goes to the acceleration LCP (default 1e-9).
    pub velocity_tol: f64,
    /// A closed contact releases where N - a falls below -release_tol, i.e. once its normal
    /// acceleration exceeds release_tol (acceleration unit; default 1e-9), so round-off at an
    /// unloaded contact of a redundant set does not release it.
    pub release_tol: f64,
    /// Limit on the number of impacts (default 100 000).
    pub max_impacts: usize,
    /// The impact law at every impact (default Newton; the impact that closes an accumulation
    /// is always inelastic).
    pub law: ImpactLaw,
    /// Simultaneous (one impact LCP) or sequential (pairwise) resolution (default
    /// simultaneous).
    pub mode: ImpactMode,
    /// Options for every LCP solve.
    pub options: SolveOptions,
    /// Wall-clock limit of the run; once passed the run ends at the state reached with
    /// [`RunEnd::TimeLimit`] (default none).
    pub time_limit: Option<Duration>,
    /// Whether [`EventDrivenRun::lcp_solves`] keeps every solve ([`Recording::EveryStep`],
    /// default) or only the count and the failed ones ([`Recording::TotalsOnly`]: memory
    /// independent of the number of steps).
    pub recording: Recording,
}

impl Default for EventDrivenParams {
    fn default() -> Self {
        Self {
            flight: Flight::Integrator { scheme: Arc::new(crate::smooth::Rk4), step: 1e-2 },
            root_tol: 1e-12,
            accumulation_tol: 1e-6,
            ratio_tol: 1e-3,
            contact_tol: 1e-9,
            velocity_tol: 1e-9,
            release_tol: 1e-9,
            max_impacts: 100_000,
            law: ImpactLaw::Newton,
            mode: ImpactMode::Simultaneous,
            options: SolveOptions::default(),
            time_limit: None,
            recording: Recording::EveryStep,
        }
    }
}

/// Why an event-driven run stopped early.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EventDrivenError {
    /// Bad arguments.
    #[error("invalid input: {0}")]
    Input(String),
    /// The smooth integrator failed.
    #[error(transparent)]
    Integrator(#[from] IntegratorError),
    /// Event location failed.
    #[error(transparent)]
    Root(#[from] RootError),
    /// The model failed.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// An impact could not be resolved (includes a failed impact LCP with its status).
    #[error("impact at t = {t}: {source}")]
    Impact {
        /// Time of the impact.
        t: f64,
        /// Cause.
        source: ImpactError,
    },
    /// The acceleration LCP failed (time and status inside).
    #[error(transparent)]
    Acceleration(#[from] AccelerationError),
    /// The ballistic flight was used on a model whose gaps are not affine.
    #[error("ballistic flight: gap {contact_idx} is {gap:e} at its closed-form root t = {t}; use Flight::Integrator")]
    NotBallistic {
        /// Contact.
        contact_idx: usize,
        /// Gap at the computed root.
        gap: f64,
        /// Time.
        t: f64,
    },
    /// Events keep occurring at one instant without time advancing (e.g. redundant contacts
    /// whose reactions are not unique, so the acceleration LCP keeps switching between them).
    #[error("{events} events at t = {t} without time advancing")]
    Stalled {
        /// Number of consecutive events at that instant.
        events: usize,
        /// The instant.
        t: f64,
    },
    /// The sample observer refused a sample (e.g. its output could not be written).
    #[error("{message} (at t = {t})")]
    Output {
        /// Time of the sample.
        t: f64,
        /// The observer's error.
        message: String,
    },
    /// More impacts than allowed (an accumulation the rule did not catch).
    #[error("more than {max_impacts} impacts by t = {t}")]
    TooManyImpacts {
        /// The limit.
        max_impacts: usize,
        /// Time reached.
        t: f64,
    },
}

/// One impact as it is reported.
#[derive(Debug, Clone, PartialEq)]
pub struct ImpactRecord {
    /// Time.
    pub t: f64,
    /// Contacts that took part.
    pub contacts: Vec<usize>,
    /// Their normal impulses.
    pub impulse: Vec<f64>,
    /// Their pre-impact normal velocities.
    pub pre_velocity: Vec<f64>,
    /// Their post-impact normal velocities.
    pub post_velocity: Vec<f64>,
    /// Kinetic energy before.
    pub energy_before: f64,
    /// Kinetic energy after.
    pub energy_after: f64,
    /// The law applied (inelastic for the impact that closes an accumulation).
    pub law: ImpactLaw,
    /// Contact index of each pairwise impact in order (sequential mode; empty otherwise).
    pub order: Vec<usize>,
}

/// An accumulation of impacts that the Zeno rule closed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Accumulation {
    /// Contact.
    pub contact_idx: usize,
    /// Time of the last simulated impact.
    pub t_detected: f64,
    /// Predicted accumulation time (the contact is closed from here on).
    pub t_inf: f64,
    /// Flight-time ratio r used.
    pub ratio: f64,
}

/// The outcome of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct EventDrivenRun {
    /// Final state (at t_end, or where the time limit stopped the run).
    pub end: Sample,
    /// How the run ended.
    pub finished: RunEnd,
    /// Samples at every event and step end ([`simulate_event_driven`]; empty when they went to
    /// an observer, [`simulate_event_driven_observed`]).
    pub samples: Vec<Sample>,
    /// Every impact.
    pub impacts: Vec<ImpactRecord>,
    /// Accumulations closed by the Zeno rule.
    pub accumulations: Vec<Accumulation>,
    /// Releases (time, contact).
    pub releases: Vec<(f64, usize)>,
    /// Contacts closed at the end.
    pub closed: Vec<bool>,
    /// Every LCP solve with its time ([`Recording::EveryStep`]; empty otherwise).
    pub lcp_solves: Vec<(f64, LcpSolveRecord)>,
    /// Number of LCP solves.
    pub lcp_solve_count: usize,
    /// The solves that did not end `solved`, with their times.
    pub lcp_failures: Vec<(f64, LcpSolveRecord)>,
}

/// More consecutive events than this at one instant is [`EventDrivenError::Stalled`].
const STALL_EVENTS: usize = 100;

enum Next {
    Impact {
        t: f64,
        q: Vec<f64>,
        v: Vec<f64>,
    },
    Release {
        t: f64,
        q: Vec<f64>,
        v: Vec<f64>,
        contact_idx: usize,
    },
    End {
        q: Vec<f64>,
        v: Vec<f64>,
    },
    /// The time limit passed at (t, q, v), a state already sampled.
    Stopped {
        t: f64,
        q: Vec<f64>,
        v: Vec<f64>,
    },
}

/// Receives every sample of an observed run; an error stops it with
/// [`EventDrivenError::Output`].
pub type SampleSink<'a> = dyn FnMut(&Sample) -> Result<(), String> + 'a;

struct Runner<'a, 's> {
    sys: &'a dyn MechanicalSystem,
    contacts: &'a dyn ContactModel,
    solver: &'a dyn LcpSolver,
    p: &'a EventDrivenParams,
    run: EventDrivenRun,
    sink: &'a mut SampleSink<'s>,
    started: Instant,
}

/// Simulates from (t0, q0, v0) to t_end, keeping every sample in
/// [`EventDrivenRun::samples`].
#[allow(clippy::too_many_arguments)]
pub fn simulate_event_driven(
    sys: &dyn MechanicalSystem,
    contacts: &dyn ContactModel,
    solver: &dyn LcpSolver,
    t0: f64,
    q0: &[f64],
    v0: &[f64],
    t_end: f64,
    params: &EventDrivenParams,
) -> Result<EventDrivenRun, EventDrivenError> {
    let start = Sample { t: t0, q: q0.to_vec(), v: v0.to_vec() };
    let mut samples = Vec::new();
    let mut keep = |s: &Sample| {
        samples.push(s.clone());
        Ok(())
    };
    let mut run =
        simulate_event_driven_observed(sys, contacts, solver, &start, t_end, params, &mut keep)?;
    run.samples = samples;
    Ok(run)
}

/// Simulates from `start` to t_end, handing every sample (the start, every event and every
/// flight step's end) to `sink` as it is produced instead of keeping it.
pub fn simulate_event_driven_observed(
    sys: &dyn MechanicalSystem,
    contacts: &dyn ContactModel,
    solver: &dyn LcpSolver,
    start: &Sample,
    t_end: f64,
    params: &EventDrivenParams,
    sink: &mut SampleSink<'_>,
) -> Result<EventDrivenRun, EventDrivenError> {
    let (t0, q0, v0) = (start.t, &start.q, &start.v);
    let n = sys.n_dof();
    if q0.len() != n || v0.len() != n {
        return Err(EventDrivenError::Input(format!(
            "q0 has {}, v0 has {} entries, the model has {n} coordinates",
            q0.len(),
            v0.len()
        )));
    }
    if !(t0.is_finite() && t_end.is_finite() && t_end >= t0) {
        return Err(EventDrivenError::Input(format!("times t0 = {t0}, t_end = {t_end}")));
    }
    if let Flight::Integrator { step, .. } = &params.flight {
        if !(step.is_finite() && *step > 0.0) {
            return Err(EventDrivenError::Input(format!("flight step {step} must be > 0")));
        }
    }
    let mut r = Runner {
        sys,
        contacts,
        solver,
        p: params,
        run: EventDrivenRun {
            end: start.clone(),
            finished: RunEnd::Finished,
            samples: Vec::new(),
            impacts: Vec::new(),
            accumulations: Vec::new(),
            releases: Vec::new(),
            closed: vec![false; contacts.n_contacts()],
            lcp_solves: Vec::new(),
            lcp_solve_count: 0,
            lcp_failures: Vec::new(),
        },
        sink,
        started: Instant::now(),
    };
    r.emit(start)?;
    r.simulate(t0, q0.to_vec(), v0.to_vec(), t_end)?;
    Ok(r.run)
}

impl Runner<'_, '_> {
    fn emit(&mut self, sample: &Sample) -> Result<(), EventDrivenError> {
        (self.sink)(sample).map_err(|message| EventDrivenError::Output { t: sample.t, message })
    }

    fn out_of_time(&self) -> bool {
        self.p.time_limit.is_some_and(|limit| self.started.elapsed() >= limit)
    }

    /// Counts a solve, keeps it ([`Recording::EveryStep`]) and keeps it if it failed.
    fn record_solve(&mut self, t: f64, record: LcpSolveRecord) {
        self.run.lcp_solve_count += 1;
        if record.status != signorini_lcp::Status::Solved {
            self.run.lcp_failures.push((t, record.clone()));
        }
        if self.p.recording == Recording::EveryStep {
            self.run.lcp_solves.push((t, record));
        }
    }

    fn closed_set(&self) -> Vec<usize> {
        (0..self.run.closed.len()).filter(|&i| self.run.closed[i]).collect()
    }

    fn simulate(
        &mut self,
        mut t: f64,
        mut q: Vec<f64>,
        mut v: Vec<f64>,
        t_end: f64,
    ) -> Result<(), EventDrivenError> {
        // Contacts touching at the start with zero normal velocity: let the LCP decide.
        let touching = self.touching_at_rest(&q, &v);
        self.close_by_lcp(&touching, t, &q, &v)?;
        // Impact times of the current run of impacts of one contact: (contact, times).
        let mut series: Option<(usize, Vec<f64>)> = None;
        // Consecutive events at one instant (no time progress).
        let mut same_instant = (t, 0usize);
        while t < t_end {
            if self.out_of_time() {
                self.run.finished = RunEnd::TimeLimit;
                break;
            }
            if same_instant.1 > STALL_EVENTS {
                return Err(EventDrivenError::Stalled { events: same_instant.1, t });
            }
            match self.next_event(t, &q, &v, t_end)? {
                Next::End { q: q1, v: v1 } => {
                    t = t_end;
                    q = q1;
                    v = v1;
                }
                Next::Stopped { t: ts, q: q1, v: v1 } => {
                    self.run.finished = RunEnd::TimeLimit;
                    t = ts;
                    q = q1;
                    v = v1;
                    break;
                }
                Next::Release { t: te, q: q1, v: v1, contact_idx } => {
                    self.run.closed[contact_idx] = false;
                    self.run.releases.push((te, contact_idx));
                    t = te;
                    q = q1;
                    v = v1;
                    series = None;
                }
                Next::Impact { t: te, q: q1, v: v1 } => {
                    if self.run.impacts.len() >= self.p.max_impacts {
                        return Err(EventDrivenError::TooManyImpacts {
                            max_impacts: self.p.max_impacts,
                            t: te,
                        });
                    }
                    let set = self.impact_set(&q1, &v1);
                    let (v_new, record) = self.impact(te, &q1, &v1, &set, self.p.law)?;
                    let single = if set.len() == 1 { Some(set[0]) } else { None };
                    series = match (series.take(), single) {
                        (Some((c, mut times)), Some(s)) if c == s => {
                            times.push(te);
                            Some((c, times))
                        }
                        (_, Some(s)) => Some((s, vec![te])),
                        _ => None,
                    };
                    let acc = series.as_ref().and_then(|(c, times)| self.accumulation(*c, times));
                    t = te;
                    q = q1;
                    if let Some(acc) = acc {
                        let (v_inel, rec_inel) =
                            self.impact(te, &q, &v1, &set, ImpactLaw::Inelastic)?;
                        self.run.impacts.push(rec_inel);
                        v = v_inel;
                        self.close_by_lcp(&set, t, &q, &v)?;
                        let t_inf = acc.t_inf.min(t_end);
                        match self.next_event(t, &q, &v, t_inf)? {
                            Next::End { q: q2, v: v2 } => {
                                q = q2;
                                v = v2;
                            }
                            Next::Stopped { t: ts, q: q2, v: v2 } => {
                                self.run.finished = RunEnd::TimeLimit;
                                self.run.end = Sample { t: ts, q: q2, v: v2 };
                                return Ok(());
                            }
                            Next::Impact { .. } | Next::Release { .. } => {}
                        }
                        t = t_inf;
                        self.run.accumulations.push(acc);
                        series = None;
                    } else {
                        self.run.impacts.push(record);
                        v = v_new;
                        let scale = set
                            .iter()
                            .map(|&i| self.normal_velocity(&q, &v1, i).abs())
                            .fold(0.0, f64::max);
                        let resting: Vec<usize> = set
                            .iter()
                            .copied()
                            .filter(|&i| {
                                self.normal_velocity(&q, &v, i).abs()
                                    <= self.p.velocity_tol * scale.max(f64::MIN_POSITIVE)
                            })
                            .collect();
                        // A contact of the impact that now separates is open, even if it was
                        // closed before (a resting contact that the impact pushed apart).
                        for &i in &set {
                            if !resting.contains(&i) && self.normal_velocity(&q, &v, i) > 0.0 {
                                self.run.closed[i] = false;
                            }
                        }
                        self.close_by_lcp(&resting, t, &q, &v)?;
                    }
                }
            }
            self.emit(&Sample { t, q: q.clone(), v: v.clone() })?;
            same_instant = if t > same_instant.0 { (t, 0) } else { (t, same_instant.1 + 1) };
        }
        self.run.end = Sample { t, q, v };
        Ok(())
    }

    fn normal_velocity(&self, q: &[f64], v: &[f64], i: usize) -> f64 {
        let j = self.contacts.jacobian(q);
        (0..v.len()).map(|k| j[(i, k)] * v[k]).sum()
    }

    fn touching_at_rest(&self, q: &[f64], v: &[f64]) -> Vec<usize> {
        let gaps = self.contacts.gaps(q);
        (0..gaps.len())
            .filter(|&i| {
                gaps[i].abs() <= self.p.contact_tol
                    && self.normal_velocity(q, v, i).abs() <= self.p.velocity_tol
            })
            .collect()
    }

    /// Contacts with a closed gap take part in the impact.
    fn impact_set(&self, q: &[f64], _v: &[f64]) -> Vec<usize> {
        let gaps = self.contacts.gaps(q);
        (0..gaps.len()).filter(|&i| gaps[i] <= self.p.contact_tol).collect()
    }

    fn impact(
        &mut self,
        t: f64,
        q: &[f64],
        v: &[f64],
        set: &[usize],
        law: ImpactLaw,
    ) -> Result<(Vec<f64>, ImpactRecord), EventDrivenError> {
        let n = v.len();
        let jac = self.contacts.jacobian(q);
        let js = faer::Mat::from_fn(set.len(), n, |a, k| jac[(set[a], k)]);
        let e: Vec<f64> = set.iter().map(|&i| self.contacts.restitution(i)).collect();
        let wrap = |source| EventDrivenError::Impact { t, source };
        let imp =
            MechanicalImpact::new(self.sys.mass_matrix(q), &js, v.to_vec(), e).map_err(wrap)?;
        let out = match self.p.mode {
            ImpactMode::Simultaneous => {
                let sp = SimultaneousParams {
                    options: self.p.options.clone(),
                    ..SimultaneousParams::default()
                };
                solve_simultaneous(imp.problem(), law, self.solver, &sp)
            }
            ImpactMode::Sequential => {
                solve_sequential(imp.problem(), law, &SequentialParams::default())
            }
        }
        .map_err(wrap)?;
        for rec in &out.lcp_solves {
            self.record_solve(t, rec.clone());
        }
        let rep = imp.report(&out);
        let record = ImpactRecord {
            t,
            contacts: set.to_vec(),
            impulse: out.impulse.clone(),
            pre_velocity: imp.problem().pre_velocity().to_vec(),
            post_velocity: out.post_velocity.clone(),
            energy_before: rep.energy_before,
            energy_after: rep.energy_after,
            law,
            order: out.order.iter().map(|&a| set[a]).collect(),
        };
        Ok((rep.velocity_after, record))
    }

    /// Closes the contacts of `candidates` that the acceleration LCP (with the already closed
    /// ones) keeps loaded or touching with zero normal acceleration.
    fn close_by_lcp(
        &mut self,
        candidates: &[usize],
        t: f64,
        q: &[f64],
        v: &[f64],
    ) -> Result<(), EventDrivenError> {
        if candidates.is_empty() {
            return Ok(());
        }
        let mut set = self.closed_set();
        for &c in candidates {
            if !set.contains(&c) {
                set.push(c);
            }
        }
        let cf =
            acceleration_lcp(self.sys, self.contacts, &set, t, q, v, self.solver, &self.p.options)?;
        self.record_solve(t, cf.record.clone());
        let scale = cf.normal_acceleration.iter().fold(0.0_f64, |m, a| m.max(a.abs())).max(1.0);
        for (a, &i) in set.iter().enumerate() {
            self.run.closed[i] =
                cf.normal_force[a] > 0.0 || cf.normal_acceleration[a] <= 1e-12 * scale;
        }
        Ok(())
    }

    fn accumulation(&self, contact_idx: usize, times: &[f64]) -> Option<Accumulation> {
        let k = times.len();
        if k < 4 {
            return None;
        }
        let d: Vec<f64> = times[k - 4..].windows(2).map(|w| w[1] - w[0]).collect();
        let r_prev = d[1] / d[0];
        let r = d[2] / d[1];
        if !(r > 0.0 && r < 1.0) || (r - r_prev).abs() > self.p.ratio_tol * r {
            return None;
        }
        let remaining = d[2] * r / (1.0 - r);
        (remaining <= self.p.accumulation_tol).then(|| Accumulation {
            contact_idx,
            t_detected: times[k - 1],
            t_inf: times[k - 1] + remaining,
            ratio: r,
        })
    }

    fn next_event(
        &mut self,
        t: f64,
        q: &[f64],
        v: &[f64],
        t_end: f64,
    ) -> Result<Next, EventDrivenError> {
        let set = self.closed_set();
        let free = FreeMotion(self.sys);
        let constrained = ConstrainedMotion {
            system: self.sys,
            contacts: self.contacts,
            set: set.clone(),
            solver: self.solver,
            options: self.p.options.clone(),
            records: RefCell::new(Vec::new()),
        };
        let ode: &dyn SecondOrderSystem = if set.is_empty() { &free } else { &constrained };
        let next = match &self.p.flight {
            Flight::Ballistic => self.next_ballistic(ode, t, q, v, t_end),
            Flight::Integrator { scheme, step } => {
                self.next_stepped(ode, scheme.as_ref(), *step, t, q, v, t_end)
            }
        };
        for (t, record) in constrained.records.into_inner() {
            self.record_solve(t, record);
        }
        next
    }

    fn next_ballistic(
        &mut self,
        ode: &dyn SecondOrderSystem,
        t: f64,
        q: &[f64],
        v: &[f64],
        t_end: f64,
    ) -> Result<Next, EventDrivenError> {
        let n = q.len();
        let mut a = vec![0.0; n];
        ode.acceleration(t, q, v, &mut a).map_err(IntegratorError::from)?;
        let at = |tau: f64| -> (Vec<f64>, Vec<f64>) {
            let qs = (0..n).map(|i| q[i] + v[i] * tau + 0.5 * a[i] * tau * tau).collect();
            let vs = (0..n).map(|i| v[i] + a[i] * tau).collect();
            (qs, vs)
        };
        let gaps = self.contacts.gaps(q);
        let jac = self.contacts.jacobian(q);
        let mut best: Option<(f64, usize)> = None;
        for i in (0..gaps.len()).filter(|&i| !self.run.closed[i]) {
            let u: f64 = (0..n).map(|k| jac[(i, k)] * v[k]).sum();
            let alpha: f64 = (0..n).map(|k| jac[(i, k)] * a[k]).sum();
            if let Some(tau) = first_falling_root(gaps[i], u, alpha) {
                if t + tau <= t_end && best.is_none_or(|(b, _)| tau < b) {
                    best = Some((tau, i));
                }
            }
        }
        match best {
            None => {
                let (q1, v1) = at(t_end - t);
                Ok(Next::End { q: q1, v: v1 })
            }
            Some((tau, i)) => {
                let (q1, v1) = at(tau);
                let g = self.contacts.gaps(&q1)[i];
                let scale =
                    gaps[i].abs().max(q.iter().fold(0.0_f64, |m, x| m.max(x.abs()))).max(1.0);
                if g.abs() > 1e-9 * scale {
                    return Err(EventDrivenError::NotBallistic {
                        contact_idx: i,
                        gap: g,
                        t: t + tau,
                    });
                }
                Ok(Next::Impact { t: t + tau, q: q1, v: v1 })
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn next_stepped(
        &mut self,
        ode: &dyn SecondOrderSystem,
        scheme: &dyn Integrator,
        h: f64,
        t0: f64,
        q0: &[f64],
        v0: &[f64],
        t_end: f64,
    ) -> Result<Next, EventDrivenError> {
        let (mut t, mut q, mut v) = (t0, q0.to_vec(), v0.to_vec());
        let set = self.closed_set();
        loop {
            if t >= t_end {
                return Ok(Next::End { q, v });
            }
            if self.out_of_time() {
                return Ok(Next::Stopped { t, q, v });
            }
            let tau_max = h.min(t_end - t);
            let step = |tau: f64| -> Result<(Vec<f64>, Vec<f64>), EventDrivenError> {
                let (mut qs, mut vs) = (q.clone(), v.clone());
                if tau > 0.0 {
                    scheme.step(ode, t, tau, &mut qs, &mut vs)?;
                }
                Ok((qs, vs))
            };
            let (q1, v1) = step(tau_max)?;
            let mut best: Option<(f64, Option<usize>)> = None;
            // Impacts of open contacts: the gap falls below zero.
            let g1 = self.contacts.gaps(&q1);
            for i in (0..g1.len()).filter(|&i| !self.run.closed[i] && g1[i] < 0.0) {
                let gap = |tau: f64| -> Result<f64, EventDrivenError> {
                    Ok(self.contacts.gaps(&step(tau)?.0)[i])
                };
                if let Some(tau) = falling_root(gap, tau_max, self.p.root_tol)? {
                    if best.is_none_or(|(b, _)| tau < b) {
                        best = Some((tau, None));
                    }
                }
            }
            // Releases of closed contacts: N - a falls below zero.
            if !set.is_empty() {
                // N - a + tol: a contact releases once its acceleration exceeds the tolerance,
                // not on round-off (a ~ 1e-16 at an unloaded contact of a redundant set).
                let release_tol = self.p.release_tol;
                let switch = |tau: f64| -> Result<Vec<f64>, EventDrivenError> {
                    let (qs, vs) = step(tau)?;
                    let cf = acceleration_lcp(
                        self.sys,
                        self.contacts,
                        &set,
                        t + tau,
                        &qs,
                        &vs,
                        self.solver,
                        &self.p.options,
                    )?;
                    Ok((0..set.len())
                        .map(|a| cf.normal_force[a] - cf.normal_acceleration[a] + release_tol)
                        .collect())
                };
                let s1 = switch(tau_max)?;
                for (a, &i) in set.iter().enumerate() {
                    if s1[a] < 0.0 {
                        let f = |tau: f64| -> Result<f64, EventDrivenError> { Ok(switch(tau)?[a]) };
                        if let Some(tau) = falling_root(f, tau_max, self.p.root_tol)? {
                            if best.is_none_or(|(b, _)| tau < b) {
                                best = Some((tau, Some(i)));
                            }
                        }
                    }
                }
            }
            if let Some((tau, what)) = best {
                let (qe, ve) = step(tau)?;
                return Ok(match what {
                    None => Next::Impact { t: t + tau, q: qe, v: ve },
                    Some(contact_idx) => Next::Release { t: t + tau, q: qe, v: ve, contact_idx },
                });
            }
            t += tau_max;
            q = q1;
            v = v1;
            self.emit(&Sample { t, q: q.clone(), v: v.clone() })?;
        }
    }
}

/// Smallest tau in (0, tau_max] where f falls through zero, given f(tau_max) < 0. When f(0) is
/// not positive (a contact that just impacted or closed, f ~ 0), the bracket start is found by
/// halving tau_max until f > 0; if none is found the event is at tau = 0.
fn falling_root(
    f: impl Fn(f64) -> Result<f64, EventDrivenError>,
    tau_max: f64,
    tol: f64,
) -> Result<Option<f64>, EventDrivenError> {
    let f0 = f(0.0)?;
    let (mut lo, mut hi) = (0.0, tau_max);
    if f0 <= 0.0 {
        let mut found = false;
        for _ in 0..80 {
            let mid = 0.5 * hi;
            if mid <= tol {
                break;
            }
            if f(mid)? > 0.0 {
                lo = mid;
                found = true;
                break;
            }
            hi = mid;
        }
        if !found {
            return Ok(Some(0.0));
        }
    }
    let root = brent(f, lo, hi, tol, 200)?;
    Ok(Some(root))
}

/// First tau > 0 where g0 + u tau + alpha tau^2 / 2 crosses zero downwards.
fn first_falling_root(g0: f64, u: f64, alpha: f64) -> Option<f64> {
    let c = 0.5 * alpha;
    let mut roots: Vec<f64> = Vec::new();
    if c == 0.0 {
        if u != 0.0 {
            roots.push(-g0 / u);
        }
    } else {
        let disc = u * u - 4.0 * c * g0;
        if disc < 0.0 {
            return None;
        }
        // Stable quadratic formula.
        let s = -0.5 * (u + disc.sqrt().copysign(u));
        if s != 0.0 {
            roots.push(s / c);
            roots.push(g0 / s);
        } else {
            roots.push(0.0);
        }
    }
    roots
        .into_iter()
        .filter(|&tau| tau > 0.0 && u + alpha * tau < 0.0)
        .min_by(|a, b| a.total_cmp(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closed_form_root_skips_the_rising_crossing() {
        // Just after an impact, slightly below the floor, moving up: the next root is the fall.
        let tau = first_falling_root(-1e-18, 2.0, -9.81).unwrap();
        assert!((tau - 4.0 / 9.81).abs() < 1e-12);
        // Falling from 1 m at rest.
        let tau = first_falling_root(1.0, 0.0, -9.81).unwrap();
        assert!((tau - (2.0f64 / 9.81).sqrt()).abs() < 1e-14);
        // Rising forever.
        assert!(first_falling_root(1.0, 1.0, 0.0).is_none());
    }
}
