//! Delassus assembly W = J M^-1 J^T for a packed sphere lattice (~10^5 contacts): the block
//! assembly of signorini-contact straight to CSR (on 1 and 2 threads) against the generic sparse
//! products J (M^-1 J^T) of sprs and of faer (symbolic + numeric) on the same matrices, in the
//! same run. The three results are checked equal once before timing.
// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use faer::sparse::linalg::matmul::sparse_sparse_matmul;
use faer::sparse::Triplet;
use faer::Par;
use signorini_contact::{
    detect_contacts, BlockDiagonalMass, Body, Dimension, DofLayout, Jacobian, MassMatrix, Shape,
};
use sprs::{smmp, CsMat, TriMat};

/// A simple cubic lattice of n^3 touching unit-diameter spheres on a floor: 3 n^2 (n - 1) + n^2
/// contacts (n = 33, the default: 105 633).
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
        std::env::var("SIGNORINI_LATTICE_N").ok().and_then(|s| s.parse().ok()).unwrap_or(33);
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

    // The same J and M^-1 for sprs and faer.
    let j_coo = jac.to_coo();
    let j = to_sprs(&j_coo);
    let jt: CsMat<f64> = j.transpose_view().to_csr();
    let mut minv = signorini_contact::Coo::new(layout.n_dofs, layout.n_dofs);
    for b in mass.blocks.iter().flatten() {
        let l = b.inverse_factor();
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
    let minv_coo = minv;
    let minv = to_sprs(&minv_coo);
    let fj = to_faer(&j_coo);
    let fjt = to_faer(&transpose(&j_coo));
    let fminv = to_faer(&minv_coo);

    // Same matrix from every method (checked once, outside the timings).
    let ours = mass.delassus_csr(&jac);
    let reference = &j * &(&minv * &jt);
    let faer_w = faer_product(&fj, &fminv, &fjt, Par::Seq);
    let mut max_diff = 0.0_f64;
    let mut scale = 0.0_f64;
    for r in 0..ours.nrows {
        for p in ours.row_ptr[r]..ours.row_ptr[r + 1] {
            let (c, v) = (ours.col[p], ours.val[p]);
            let s = reference.get(r, c).copied().unwrap_or(0.0);
            let f = faer_w.as_ref().get(c, r).copied().unwrap_or(0.0);
            max_diff = max_diff.max((v - s).abs()).max((v - f).abs());
            scale = scale.max(v.abs());
        }
    }
    assert!(max_diff <= 1e-12 * scale, "assemblies disagree: {max_diff:e}");
    assert_eq!(ours.nnz(), reference.nnz(), "same sparsity as the sprs product");
    eprintln!(
        "W: {} x {}, nnz {} (ours), {} (sprs), {} (faer); max |difference| {max_diff:.1e}",
        ours.nrows,
        ours.ncols,
        ours.nnz(),
        reference.nnz(),
        faer_w.compute_nnz()
    );

    let one = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("pool");
    let two = rayon::ThreadPoolBuilder::new().num_threads(2).build().expect("pool");

    // Interleaved rounds (every variant once per round, so load drift on a shared machine hits
    // all alike): median wall time and median CPU time of the whole process per call.
    let rounds: usize =
        std::env::var("SIGNORINI_ASSEMBLY_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(15);
    type Variant<'a> = (&'a str, Box<dyn Fn() + 'a>);
    let variants: Vec<Variant> = vec![
        ("block_csr_1_thread", Box::new(|| drop(one.install(|| mass.delassus_csr(&jac))))),
        ("block_csr_2_threads", Box::new(|| drop(two.install(|| mass.delassus_csr(&jac))))),
        (
            "sprs_j_times_minv_jt_1_thread",
            Box::new(|| {
                smmp::set_thread_threading_strategy(smmp::ThreadingStrategy::Fixed(1));
                drop(&j * &(&minv * &jt))
            }),
        ),
        (
            "sprs_j_times_minv_jt_2_threads",
            Box::new(|| {
                smmp::set_thread_threading_strategy(smmp::ThreadingStrategy::Fixed(2));
                drop(&j * &(&minv * &jt))
            }),
        ),
        (
            "faer_j_times_minv_jt_1_thread",
            Box::new(|| drop(faer_product(&fj, &fminv, &fjt, Par::Seq))),
        ),
        (
            "faer_j_times_minv_jt_2_threads",
            Box::new(|| drop(two.install(|| faer_product(&fj, &fminv, &fjt, Par::rayon(2))))),
        ),
    ];
    let mut wall = vec![Vec::new(); variants.len()];
    let mut cpu = vec![Vec::new(); variants.len()];
    for _ in 0..rounds {
        for (i, (_, f)) in variants.iter().enumerate() {
            let (t, c) = (std::time::Instant::now(), process_cpu_ns());
            f();
            wall[i].push(t.elapsed().as_secs_f64() * 1e3);
            cpu[i].push((process_cpu_ns() - c) as f64 * 1e-6);
        }
    }
    let median = |v: &mut Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    eprintln!("interleaved, {rounds} rounds (load average {}):", load_average());
    eprintln!("| variant | median wall (ms) | median process CPU (ms) |");
    eprintln!("|---|---|---|");
    let mut med = Vec::with_capacity(variants.len());
    for (i, (name, _)) in variants.iter().enumerate() {
        med.push(median(&mut wall[i]));
        eprintln!("| {name} | {:.1} | {:.1} |", med[i], median(&mut cpu[i]));
    }
    // Ratios of median wall times: the fastest generic product at the same thread count, and
    // the fastest generic product at any thread count, over ours.
    let fastest = |pred: &dyn Fn(&str) -> bool| {
        variants
            .iter()
            .zip(&med)
            .filter(|((name, _), _)| !name.starts_with("block") && pred(name))
            .map(|(_, &t)| t)
            .fold(f64::INFINITY, f64::min)
    };
    let any = fastest(&|_| true);
    for (threads, ours) in [("1_thread", med[0]), ("2_threads", med[1])] {
        let same = fastest(&|name| name.ends_with(threads));
        eprintln!(
            "block_csr_{threads}: {:.2}x the fastest generic product on {threads}, {:.2}x the \
             fastest on any thread count",
            same / ours,
            any / ours
        );
    }
    let mut group = c.benchmark_group("delassus_lattice");
    group.sample_size(20);
    group.bench_function("block_csr_1_thread", |bch| {
        bch.iter(|| one.install(|| mass.delassus_csr(&jac)))
    });
    group.bench_function("block_csr_2_threads", |bch| {
        bch.iter(|| two.install(|| mass.delassus_csr(&jac)))
    });
    group.bench_function("block_coo_1_thread", |bch| {
        bch.iter(|| one.install(|| mass.delassus(&jac)))
    });
    // sprs (feature multi_thread: the thread count of its product is set per calling thread).
    for t in [1, 2] {
        group.bench_function(format!("sprs_j_times_minv_jt_{t}_threads"), |bch| {
            smmp::set_thread_threading_strategy(smmp::ThreadingStrategy::Fixed(t));
            bch.iter(|| &j * &(&minv * &jt))
        });
    }
    group.bench_function("sprs_j_minv_times_jt_2_threads", |bch| {
        smmp::set_thread_threading_strategy(smmp::ThreadingStrategy::Fixed(2));
        bch.iter(|| &(&j * &minv) * &jt)
    });
    // faer: symbolic + numeric product J (M^-1 J^T), sequential and parallel.
    group.bench_function("faer_j_times_minv_jt_1_thread", |bch| {
        bch.iter(|| faer_product(&fj, &fminv, &fjt, Par::Seq))
    });
    group.bench_function("faer_j_times_minv_jt_2_threads", |bch| {
        bch.iter(|| faer_product(&fj, &fminv, &fjt, Par::rayon(2)))
    });
    group.finish();
}

/// CPU time of every thread of this process (ns), from /proc/self/task/*/schedstat.
fn process_cpu_ns() -> u64 {
    let Ok(dir) = std::fs::read_dir("/proc/self/task") else { return 0 };
    dir.flatten()
        .filter_map(|e| std::fs::read_to_string(e.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

type FaerCsc = faer::sparse::SparseColMat<usize, f64>;

fn to_faer(coo: &signorini_contact::Coo) -> FaerCsc {
    let triplets: Vec<Triplet<usize, usize, f64>> = coo
        .row
        .iter()
        .zip(&coo.col)
        .zip(&coo.val)
        .map(|((&row, &col), &val)| Triplet { row, col, val })
        .collect();
    FaerCsc::try_new_from_triplets(coo.nrows, coo.ncols, &triplets).expect("faer matrix")
}

fn transpose(coo: &signorini_contact::Coo) -> signorini_contact::Coo {
    signorini_contact::Coo {
        nrows: coo.ncols,
        ncols: coo.nrows,
        row: coo.col.clone(),
        col: coo.row.clone(),
        val: coo.val.clone(),
    }
}

/// J (M^-1 J^T) with faer (symbolic and numeric phases, both timed). faer's matrices are
/// column-major, so the result is W^T = W in CSC.
fn faer_product(j: &FaerCsc, minv: &FaerCsc, jt: &FaerCsc, par: Par) -> FaerCsc {
    let g = sparse_sparse_matmul(minv.as_ref(), jt.as_ref(), 1.0, par).expect("M^-1 J^T");
    sparse_sparse_matmul(j.as_ref(), g.as_ref(), 1.0, par).expect("J G")
}

criterion_group!(benches, bench_assembly);
criterion_main!(benches);
