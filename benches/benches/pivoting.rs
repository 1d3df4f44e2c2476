//! Benchmarks of the pivoting solvers (filled by the benches issue).
fn main() {}
