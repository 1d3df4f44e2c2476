//! Every LCP algorithm of the crate, one module each (params, solve, tests), and their
//! registration under the names of DESIGN.md §3.

use crate::registry::Registry;

/// Registers every built-in solver.
pub fn register_all(registry: &mut Registry) {
    let _ = registry;
}
