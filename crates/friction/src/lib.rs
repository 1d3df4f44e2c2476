#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]
//! signorini-friction: frictional contact with the exact Coulomb cone, the local problem of
//! Siconos and FCLIB in 2D and 3D (Acary, Brogliato 2008, *Numerical Methods for Nonsmooth
//! Dynamical Systems*, ch. 13; Acary, Brémond, Huber 2018).
//!
//! # The problem
//!
//! Find r, u in R^{d n_c} (d = 2 or 3, one block per contact, normal component first) with
//! u = W r + q, r_i in K_{mu_i} = {|r_T| <= mu_i r_N}, u_i + mu_i |u_T,i| e_N in K*_{mu_i} and
//! r_i . (u_i + mu_i |u_T,i| e_N) = 0 (De Saxcé's form of Coulomb's law).
//!
//! # Usage
//!
//! ```
//! use signorini_friction::{FcProblem, FcRegistry};
//! use signorini_lcp::{SolveOptions, Status};
//! // One 3D contact, W = I, pushed in (q_N = -1) and sideways (q_T = (2, 0)), mu = 0.5:
//! // it slides, r = (1, -0.5, 0).
//! let eye = vec![vec![1.0, 0.0, 0.0], vec![0.0, 1.0, 0.0], vec![0.0, 0.0, 1.0]];
//! let p = FcProblem::from_dense_rows(3, &eye, vec![-1.0, 2.0, 0.0], vec![0.5]).unwrap();
//! let solver = FcRegistry::builtin().build("nsgs").unwrap();
//! let sol = solver.solve(&p, &SolveOptions::default(), None).unwrap();
//! assert_eq!(sol.status, Status::Solved);
//! assert!((sol.r[0] - 1.0).abs() < 1e-10 && (sol.r[1] + 0.5).abs() < 1e-10);
//! ```
//!
//! Every [`FcSolution`] has r projected exactly onto the cones and u and the error
//! ([`merit::error`], Siconos' `fc3d_compute_error`) recomputed from it by the driver
//! ([`solver::solve`]).

/// The example of this crate's README, run as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

pub mod algorithms;
pub mod cone;
pub mod formats;
pub mod local;
pub mod merit;
pub mod problem;
pub mod registry;
pub mod solver;

pub use problem::{FcProblem, FcProblemError};
pub use registry::{fc_solver_from_spec, FcRegistry};
pub use solver::{solve, FcContext, FcOutcome, FcSolution, FcSolver};
