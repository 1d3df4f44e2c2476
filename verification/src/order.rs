//! Observed order of convergence: the least-squares slope of log(err) against log(h) over at
//! least five levels, from signorini-integrators (one implementation for the integrators'
//! tests and the verification studies).

pub use signorini_integrators::convergence::{observed_order, OrderError, MIN_LEVELS};
