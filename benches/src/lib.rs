//! Benchmarks of the signorini solvers and drivers for peer comparisons (see `benches/`).

pub mod fc_peers;

/// Median of repeated timings (the mean of the two middle values for an even count; NaN when
/// there are none). Shared by the timing binaries.
pub fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    let k = v.len();
    if k == 0 {
        f64::NAN
    } else if k % 2 == 1 {
        v[k / 2]
    } else {
        0.5 * (v[k / 2 - 1] + v[k / 2])
    }
}
