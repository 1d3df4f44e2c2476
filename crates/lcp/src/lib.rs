#![cfg_attr(not(test), warn(clippy::unwrap_used, clippy::expect_used))]
//! signorini-lcp: linear complementarity problems LCP(M, q), one merit, one status enum with
//! certificates, one solver trait, and every algorithm selectable by name.
//!
//! # The problem
//!
//! Find $z, w \in \mathbb{R}^n$ with $w = Mz + q$, $z \ge 0$, $w \ge 0$, $z^\top w = 0$
//! (Cottle, Pang, Stone 1992). For symmetric $M$ it is the KKT system of
//! $\min \tfrac12 z^\top M z + q^\top z$ subject to $z \ge 0$.
//!
//! # Usage
//!
//! ```
//! use signorini_lcp::{Lcp, SolveOptions, Registry, Status};
//! let lcp = Lcp::from_dense_rows(&[vec![2.0, 1.0], vec![1.0, 2.0]], vec![-3.0, -3.0]).unwrap();
//! let solver = Registry::builtin().build("lemke").unwrap();
//! let sol = solver.solve(&lcp, &SolveOptions::default(), None).unwrap();
//! assert_eq!(sol.status, Status::Solved);
//! assert!((sol.z[0] - 1.0).abs() < 1e-12);
//! ```
//!
//! Every [`Solution`] carries the residual `||min(z, w)||_2 / ||q||_2` recomputed from z by the
//! driver ([`solver::run_solver`]), never copied from a solver's loop.
//!
//! # Matrix-free problems
//!
//! A symmetric positive semidefinite M = G G' + D (a Delassus matrix W = J M⁻¹ J' is one, with
//! G = J L) can be held by its sparse factor: [`Lcp::from_gram`] with a [`GramMatrix`]. `pgs`,
//! `psor`, `sgs` and `apgd` then run without forming M ([`LcpSolver::matrix_free`]); any other
//! solver gets M assembled once, after the driver has checked its size against the memory
//! budget.
//!
//! Work is bounded by the request: every dense array a solver sizes from the problem is
//! checked against [`SolveOptions::memory_budget`] (default [`DEFAULT_MEMORY_BUDGET`], 2 GiB)
//! before it is allocated ([`memory`]), the wall-clock limit reaches every solver (clarabel
//! included), and the readers cap their input ([`formats::DEFAULT_MAX_INPUT_BYTES`]).

pub mod algorithms;
pub mod auto;
pub mod diagnostics;
pub mod formats;
pub mod generate;
pub mod gram;
pub mod linalg;
pub mod memory;
pub mod merit;
pub mod params;
pub mod problem;
pub mod registry;
pub mod solver;
pub mod status;
pub mod steps;

/// The examples of this crate's README and of the workspace README, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;

pub use formats::{read_problem, write_problem, Format, FormatError, FormatErrorKind};
pub use gram::{GramError, GramMatrix, RowCache};
pub use memory::{MemoryError, DEFAULT_MEMORY_BUDGET};
pub use merit::{evaluate, worst_row, Merit, RowCheck};
pub use params::{ParamDoc, ParamValue, SolverParams, SpecError};
pub use problem::{Lcp, Matrix, ProblemError};
pub use registry::{solver_from_spec, Registry};
pub use solver::{
    run_solver, Entry, HistoryEntry, LcpSolver, Outcome, Preset, Solution, SolveContext,
    SolveError, SolveOptions,
};
pub use status::{verify_farkas, Certificate, FarkasError, Status};
