//! Every LCP algorithm of the crate, one module each (params, solve, tests), and their
//! registration under the names of DESIGN.md §3.

use crate::registry::Registry;

pub mod ipm;
pub mod jacobian_system;
pub mod newton_fb;
pub mod newton_min;
pub mod qp;

/// Registers every built-in solver.
pub fn register_all(registry: &mut Registry) {
    newton_fb::register(registry);
    newton_min::register(registry);
    ipm::register(registry);
    qp::register(registry);
}
