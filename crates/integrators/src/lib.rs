//! Smooth integrators, nonsmooth time stepping and the event-driven scheme (filled by issue 5).
