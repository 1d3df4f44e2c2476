//! Multibody contact assembly: bodies, shapes, gaps, Jacobians, Delassus matrices (filled by issue 4).
