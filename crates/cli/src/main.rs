//! The `signorini` command-line program (solve, info, convert, simulate; filled by its issue).
fn main() {}
