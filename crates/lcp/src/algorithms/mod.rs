//! Every LCP algorithm of the crate, one module each (params, solve, tests), and their
//! registration under the names of DESIGN.md §3.

use crate::registry::Registry;

pub mod apgd;
pub mod auto;
pub mod bpgs;
pub mod bpp;
pub mod enumerate;
pub mod ipm;
pub mod jacobian_system;
pub mod lemke;
pub mod murty;
pub mod newton_fb;
pub mod newton_min;
pub mod pgs;
pub mod pgs_colored;
pub mod qp;

/// Registers every built-in solver.
pub fn register_all(registry: &mut Registry) {
    lemke::register(registry);
    murty::register(registry);
    bpp::register(registry);
    enumerate::register(registry);
    pgs::register(registry);
    bpgs::register(registry);
    pgs_colored::register(registry);
    apgd::register(registry);
    newton_fb::register(registry);
    newton_min::register(registry);
    ipm::register(registry);
    qp::register(registry);
    auto::register(registry);
}
