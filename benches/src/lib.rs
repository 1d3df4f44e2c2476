//! Benchmarks of the signorini solvers and drivers for peer comparisons (see `benches/`).
