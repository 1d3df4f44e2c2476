//! The crate's floor of shared numerics, below every algorithm: the algorithms import it,
//! the registry imports the algorithms, and nothing here imports either.
//!
//! - [`sweeps`]: row access to M ([`sweeps::Rows`]), the projected Gauss–Seidel sweeps and the
//!   loop the splitting methods share;
//! - [`jacobian_system`]: the Newton systems of the semismooth and interior-point methods
//!   (dense LU, sparse LU/Cholesky with one symbolic analysis, GMRES);
//! - [`gram_newton`]: the Newton matrix G G' + E of a Gram-form M solved in the p unknowns of
//!   G's columns (Woodbury), for `ipm`;
//! - [`dissection`]: a nested dissection ordering, tried beside minimum degree on large
//!   Newton matrices;
//! - `dense_lu`: sequential dense LU (bit-identical across thread counts) and equilibration
//!   for the pivoting methods;
//! - [`sparse_lu`]: sequential sparse LU (faer's lower-level API with `Par::Seq`) for
//!   Lemke's sparse basis, the sparse Newton systems and the friction crate;
//! - [`symmetry`]: the one symmetry check (M against M', relative to the largest entry).

pub(crate) mod dense_lu;
pub mod dissection;
pub mod gram_newton;
pub mod jacobian_system;
pub mod sparse_lu;
pub mod sweeps;
pub mod symmetry;
