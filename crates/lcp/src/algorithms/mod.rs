//! Every LCP algorithm of the crate, one module each (params, solve, tests), and their
//! registration under the names of DESIGN.md §3.

use crate::registry::Registry;

pub mod lemke;
pub mod murty;

/// Registers every built-in solver.
pub fn register_all(registry: &mut Registry) {
    lemke::register(registry);
    murty::register(registry);
}
