#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]
//! signorini-impact: impact laws (Newton, Poisson, perfectly inelastic), the simultaneous
//! multi-contact impact LCP solved by any [`signorini_lcp::LcpSolver`], sequential pairwise
//! resolution with a stated ordering rule, and the kinetic-energy change of every impact
//! (Pfeiffer & Glocker 1996, *Multibody Dynamics with Unilateral Contacts*, ch. 7; Glocker 2001,
//! *Set-Valued Force Laws*, ch. 8).
//!
//! # The problem in contact coordinates
//!
//! With contact Jacobian $J$ (normal rows), mass matrix $M$ and pre-impact generalised velocity
//! $v^-$, the normal velocities are $u^- = J v^-$ and an impulse $P \ge 0$ changes them to
//! $u^+ = u^- + W P$ with the Delassus matrix $W = J M^{-1} J^\top$. The kinetic-energy change is
//! exactly
//! $$\Delta T = P^\top u^- + \tfrac12 P^\top W P = \tfrac12 P^\top (u^- + u^+).$$
//!
//! - **Newton** (per-contact $e_i$): $u^+_i + e_i u^-_i \ge 0 \perp P_i \ge 0$, an LCP with
//!   $M = W$, $q_i = (1 + e_i) u^-_i$.
//! - **Perfectly inelastic**: Newton with $e = 0$.
//! - **Poisson**: a compression phase (inelastic LCP, impulse $P_c$), then an expansion phase
//!   $\Delta P \ge 0 \perp u^+ = u^- + W((1+E) P_c + \Delta P) \ge 0$ (Glocker's form).
//!
//! **Which contacts take part.** The law is posed on the contacts that close or touch at the
//! impact instant ($u^-_i \le 0$). Then, for Newton with $0 \le e_i \le 1$,
//! $\Delta T = \tfrac12 \sum_i P_i (1 - e_i) u^-_i \le 0$: no impact gains energy. A contact that
//! was separating ($u^-_i > 0$) but is pushed into approach by the others is treated by a
//! follow-up impact (it is then closing), so every pass is dissipative. (Posing the law on a
//! separating contact as well can gain energy: see the test
//! `separating_contact_in_the_law_would_gain_energy`.)

pub mod law;
pub mod mechanical;
pub mod problem;
pub mod sequential;
pub mod simultaneous;

pub use law::{ImpactLaw, ImpactMode, UnknownName};
pub use mechanical::{MechanicalImpact, MechanicalImpactReport};
pub use problem::{ImpactError, ImpactOutcome, ImpactProblem, LcpSolveRecord};
pub use sequential::{solve_sequential, SequentialParams};
pub use simultaneous::{solve_simultaneous, SimultaneousParams};
