//! Every LCP algorithm of the crate, one module each (params, solve, tests), and their
//! registration under the names of DESIGN.md §3.

use crate::registry::Registry;

pub mod auto;
pub mod bpp;
pub mod enumerate;
pub mod lemke;
pub mod murty;

/// Registers every built-in solver.
pub fn register_all(registry: &mut Registry) {
    lemke::register(registry);
    murty::register(registry);
    bpp::register(registry);
    enumerate::register(registry);
    auto::register(registry);
}
