#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]
//! signorini-integrators: smooth ODE integrators for compliant (penalty) models, the
//! Moreau–Jean time-stepping scheme, and an event-driven scheme with located impacts, the
//! acceleration-level contact LCP and an accumulation (Zeno) rule. Every nonsmooth stepper
//! takes any [`signorini_lcp::LcpSolver`] and records per-solve statistics.
//!
//! # Map
//!
//! - [`system`]: the ODE x'' = a(t, x, v) ([`SecondOrderSystem`]) and the linear oscillator.
//! - [`smooth`]: explicit Euler, symplectic Euler, Störmer–Verlet, RK4, implicit Euler,
//!   implicit midpoint behind [`Integrator`].
//! - [`roots`]: Brent's method and event location along an integrator's steps.
//! - [`penalty`]: the 1-D penalty contact model (linear, Kelvin–Voigt).
//! - [`model`]: [`MechanicalSystem`] (M, f) and [`ContactModel`] (gaps, Jacobian rows,
//!   restitution), the interface signorini-contact implements; [`BouncingBall`].
//! - [`acceleration`]: the acceleration-level LCP and the constrained motion.
//! - [`event_driven`]: the event-driven scheme.
//! - [`impact_support`]: which impact laws and modes each scheme implements.
//! - [`stepping`]: the one time-stepping loop ([`run_stepping`]) with one run and error type
//!   ([`SteppingRun`], [`SteppingError`]) for the three schemes below, its shared settings
//!   ([`SteppingParams`]: failure policy, samples, warm start, recording, time limit) and
//!   observers ([`StepObserver`]).
//! - [`moreau_jean`]: the Moreau–Jean theta-method.
//! - [`moreau_jean_cone`]: Moreau–Jean with Coulomb friction on the exact cone, each step a
//!   signorini-friction problem solved by any [`signorini_friction::FcSolver`]
//!   ([`run_stepping_cone`]).
//! - [`position_lcp`]: the position-level time-stepping LCP (Stewart–Trinkle / Tedrake, no
//!   friction).
//! - [`stewart_trinkle`]: Stewart–Trinkle / Anitescu–Potra with the polyhedral friction cone.
//! - [`scene_model`]: a signorini-contact scene as [`MechanicalSystem`] / [`ContactModel`] /
//!   [`FrictionModel`], and as a penalty ODE.
//! - [`simulation`]: a scene and options as one bounded run of any scheme ([`Simulation`]),
//!   what `signorini simulate`, the verification suite and the benches run scenes with.
//! - [`convergence`]: observed orders by least squares.

pub mod acceleration;
pub mod convergence;
pub mod event_driven;
pub mod impact_support;
pub mod model;
pub mod moreau_jean;
pub mod moreau_jean_cone;
pub mod penalty;
pub mod position_lcp;
pub mod roots;
pub mod scene_model;
pub mod simulation;
pub mod smooth;
mod step_matrices;
pub mod stepping;
pub mod stewart_trinkle;
pub mod system;

pub use convergence::observed_order;
pub use event_driven::{
    simulate_event_driven, simulate_event_driven_observed, EventDrivenParams, EventDrivenRun,
    Flight,
};
pub use impact_support::{check_impact_support, SchemeKind, UnsupportedImpact};
pub use model::{BouncingBall, ContactModel, FreeMotion, MechanicalSystem};
pub use moreau_jean::MoreauJean;
pub use penalty::{PenaltyLaw, PenaltyPointMass};
pub use scene_model::{PenaltyScene, SceneModel};
pub use simulation::{
    FrictionLaw, ImpactEvent, ImpactSettings, PenaltyIntegrator, SampleColumns, Scheme, Simulation,
    SimulationError, SimulationLimits, SimulationObserver, SimulationOptions, SimulationOutcome,
};
pub use smooth::{
    integrate, integrator_from_name, ExplicitEuler, ImplicitEuler, ImplicitMidpoint, Integrator,
    IntegratorError, NewtonParams, Rk4, StormerVerlet, SymplecticEuler,
};
pub use stepping::{
    run_stepping, run_stepping_cone, NoObserver, OnSolverFailure, Recording, RunEnd, Sample,
    StepObserver, SteppingError, SteppingParams, SteppingRun, TimeStepper, WarmStart,
};
pub use stewart_trinkle::FrictionModel;
pub use system::{LinearOscillator, SecondOrderSystem, SystemError};
