//! Benchmarks of the signorini solvers and drivers for peer comparisons (see `benches/`).

pub mod fc_peers;

use signorini_contact::{Body, Dimension, Scene, Shape};

/// An m x layers x m grid of unit-diameter rigid spheres (masses 1, 2, 3 in turn) under
/// gravity -y, margin 1e-9: centre (h i, 0.5 + lift + v j, h k) for sphere (i, j, k), with a
/// floor y = 0 when `floor`. Shared by the time-stepping benches (`stepping_scale`,
/// `warm_start`).
pub fn sphere_grid(m: usize, layers: usize, (h, v, lift): (f64, f64, f64), floor: bool) -> Scene {
    let mut scene = Scene::new(Dimension::Three, [0.0, -9.81, 0.0]);
    scene.margin = 1e-9;
    for i in 0..m {
        for j in 0..layers {
            for k in 0..m {
                scene.bodies.push(Body::rigid(
                    format!("g{i}_{j}_{k}"),
                    Dimension::Three,
                    1.0 + ((i + j + k) % 3) as f64,
                    Shape::Sphere { radius: 0.5 },
                    [h * i as f64, 0.5 + lift + v * j as f64, h * k as f64],
                ));
            }
        }
    }
    if floor {
        scene = scene.with_body(Body::fixed(
            "floor",
            Shape::HalfSpace { normal: [0.0, 1.0, 0.0], offset: 0.0 },
        ));
    }
    scene
}

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

/// STREAM-like triad bandwidth `a[i] = b[i] + s c[i]` over three arrays of 2^25 doubles
/// (768 MiB, far beyond the caches), one thread, 24 B per element (write-allocate not
/// counted): the median of `runs` passes in bytes/s. The yardstick of the sweep benches
/// (`pgs_throughput --bandwidth`, `matrix_free`).
pub fn triad_bandwidth(runs: usize) -> f64 {
    let len = 1usize << 25;
    let b: Vec<f64> = (0..len).map(|i| (i % 1000) as f64).collect();
    let c: Vec<f64> = (0..len).map(|i| (i % 777) as f64).collect();
    let mut a = vec![0.0f64; len];
    let s = std::hint::black_box(3.0);
    let mut rates = Vec::new();
    for _ in 0..runs {
        let t = std::time::Instant::now();
        for ((ai, bi), ci) in a.iter_mut().zip(&b).zip(&c) {
            *ai = bi + s * ci;
        }
        let secs = t.elapsed().as_secs_f64();
        std::hint::black_box(&a);
        rates.push(24.0 * len as f64 / secs);
    }
    median(&rates)
}
