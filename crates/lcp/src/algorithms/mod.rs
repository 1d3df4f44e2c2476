//! Every LCP algorithm of the crate, one module each (its parameters declared once with
//! [`solver_params!`](crate::solver_params), the solver declared with
//! [`lcp_solver!`](crate::lcp_solver), its loop and its tests), and [`entries`], the list the
//! registry and `auto` read. The algorithms import the floor ([`crate::linalg`],
//! [`crate::params`], [`crate::solver`], [`crate::merit`]); nothing here imports the registry.
//! `pgs.rs` is the family file of the plain splitting methods `pgs`, `psor` and `sgs` (one
//! sweep, three orders and relaxations).

use crate::solver::Entry;

pub mod apgd;
pub mod bpgs;
pub mod bpp;
pub mod enumerate;
pub mod gpcg;
pub mod ipm;
pub mod lemke;
pub mod murty;
pub mod newton_fb;
pub mod newton_min;
pub mod pgs;
pub mod pgs_colored;
pub mod qp;

/// Every algorithm of the crate (not `auto`, which composes them), in registry order.
pub fn entries() -> Vec<Entry> {
    let mut e = vec![
        lemke::Lemke::entry(),
        murty::Murty::entry(),
        bpp::Bpp::entry(),
        enumerate::Enumerate::entry(),
    ];
    e.extend(pgs::entries());
    e.extend([
        bpgs::Bpgs::entry(),
        pgs_colored::PgsColored::entry(),
        apgd::Apgd::entry(),
        gpcg::Gpcg::entry(),
        newton_fb::NewtonFb::entry(),
        newton_min::NewtonMin::entry(),
        ipm::Ipm::entry(),
        qp::Qp::entry(),
    ]);
    e
}
