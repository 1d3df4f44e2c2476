//! Every LCP algorithm of the crate, one module each (params, solve, tests), and their
//! registration under the names of DESIGN.md §3.

use crate::registry::Registry;

pub mod apgd;
pub mod bpgs;
pub mod pgs;
pub mod pgs_colored;

/// Registers every built-in solver.
pub fn register_all(registry: &mut Registry) {
    pgs::register(registry);
    bpgs::register(registry);
    pgs_colored::register(registry);
    apgd::register(registry);
    let _ = registry;
}
