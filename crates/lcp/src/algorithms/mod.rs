//! Every LCP algorithm of the crate, one module each (params, solve, tests), and their
//! registration under the names of DESIGN.md §3.

use crate::registry::Registry;

pub(crate) mod jacobian_system;
pub mod newton_fb;

/// Registers every built-in solver.
pub fn register_all(registry: &mut Registry) {
    newton_fb::register(registry);
}
