//! Delassus assembly W = J M^-1 J^T for a packed sphere lattice (~10^5 contacts): the block
//! assembly of signorini-contact (rayon, and on one thread) against the generic sparse product
//! J (M^-1 J^T) of sprs on the same matrices, in the same run.
// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use signorini_contact::{
    detect_contacts, BlockDiagonalMass, Body, Dimension, DofLayout, Jacobian, MassMatrix, Shape,
};
use sprs::{CsMat, TriMat};

/// A simple cubic lattice of n^3 touching unit-diameter spheres on a floor: 3 n^2 (n - 1) + n^2
/// contacts (n = 32: 96 256).
fn lattice(n: usize) -> Vec<Body> {
    let mut bodies = Vec::with_capacity(n * n * n + 1);
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                let x = [i as f64, 0.5 + j as f64, k as f64];
                bodies.push(Body::rigid(
                    format!("s{i}_{j}_{k}"),
                    Dimension::Three,
                    1.0 + ((i + j + k) % 3) as f64,
                    Shape::Sphere { radius: 0.5 },
                    x,
                ));
            }
        }
    }
    bodies.push(Body::fixed("floor", Shape::HalfSpace { normal: [0.0, 1.0, 0.0], offset: 0.0 }));
    bodies
}

fn to_sprs(coo: &signorini_contact::Coo) -> CsMat<f64> {
    TriMat::from_triplets((coo.nrows, coo.ncols), coo.row.clone(), coo.col.clone(), coo.val.clone())
        .to_csr()
}

fn bench_assembly(c: &mut Criterion) {
    let n: usize =
        std::env::var("SIGNORINI_LATTICE_N").ok().and_then(|s| s.parse().ok()).unwrap_or(32);
    // Broad + narrow phase scaling: 8 times the bodies should cost about 8 times the time.
    for m in [n / 2, n] {
        let b = lattice(m);
        let t = std::time::Instant::now();
        let found = detect_contacts(&b, Dimension::Three, 1e-9).expect("lattice contacts").len();
        eprintln!(
            "detect_contacts: {} bodies, {found} contacts, {:.3} s",
            b.len(),
            t.elapsed().as_secs_f64()
        );
    }
    let bodies = lattice(n);
    let layout = DofLayout::new(Dimension::Three, &bodies);
    let contacts = detect_contacts(&bodies, Dimension::Three, 1e-9).expect("lattice contacts");
    let jac = Jacobian::normal(&layout, &bodies, &contacts);
    let mass = BlockDiagonalMass::new(&layout, &bodies);
    eprintln!(
        "lattice n = {n}: {} bodies, {} contacts, {} dofs",
        bodies.len(),
        contacts.len(),
        layout.n_dofs
    );

    // The same J and M^-1 for sprs.
    let j = to_sprs(&jac.to_coo());
    let jt: CsMat<f64> = j.transpose_view().to_csr();
    let mut minv = signorini_contact::Coo::new(layout.n_dofs, layout.n_dofs);
    for b in mass.blocks.iter().flatten() {
        let l = &b.inverse_factor;
        for row in 0..b.len {
            for col in 0..b.len {
                // (L L^T)_{row, col}
                let v: f64 = (0..b.len).map(|k| l[row * b.len + k] * l[col * b.len + k]).sum();
                if v != 0.0 {
                    minv.push(b.offset + row, b.offset + col, v);
                }
            }
        }
    }
    let minv = to_sprs(&minv);

    let mut group = c.benchmark_group("delassus_lattice");
    group.sample_size(10);
    group.bench_function("block_rayon", |bch| bch.iter(|| mass.delassus(&jac)));
    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    group.bench_function("block_1_thread", |bch| bch.iter(|| one.install(|| mass.delassus(&jac))));
    group.bench_function("sprs_j_minv_jt", |bch| {
        bch.iter(|| {
            let g = &minv * &jt;
            &j * &g
        })
    });
    group.finish();
}

criterion_group!(benches, bench_assembly);
criterion_main!(benches);
