//! TEMPORARY experiment: contact-space vs velocity-space Cholesky of the IPM Newton matrix.
use std::collections::HashMap;
use std::time::Instant;
use signorini_contact::packings::{box_stacks, cubic_lattice, fcc_pile, hex_disks, random_disks};
use signorini_contact::{contact_problem_with, DelassusForm, Dimension, Level};
use signorini_lcp::linalg::jacobian_system::PrincipalCholesky;
use signorini_lcp::solver::SolveContext;
use signorini_lcp::Lcp;

fn main() {
    let a: Vec<String> = std::env::args().collect();
    let fam = a[1].as_str();
    let unknowns: f64 = a[2].parse().unwrap();
    let side = |per: f64, p: f64| ((unknowns / per).powf(p)).ceil().max(2.0) as usize;
    let s = match fam {
        "hex" => { let r = side(3.0, 0.5); hex_disks(r, r, 10.0) }
        "hexr" => { let r = side(2.6, 0.5); random_disks(r, r, 0.05, 10.0, 1) }
        "fcc" => { let c = side(22.0, 1.0 / 3.0); fcc_pile((c, c, c), 0.05, 10.0, 1) }
        "cubic" => cubic_lattice(side(3.0, 1.0 / 3.0)),
        "stack3" => box_stacks(Dimension::Three, side(40.0, 1.0), 10, 1000.0),
        _ => box_stacks(Dimension::Two, side(20.0, 1.0), 10, 1000.0),
    };
    let p = contact_problem_with(&s, Level::Acceleration, None, None, DelassusForm::MatrixFree).unwrap();
    let g = p.lcp.gram().unwrap().factor().clone();
    let (n, m) = (g.nrows(), g.ncols());
    let mut used = vec![false; m];
    let mut map: HashMap<(usize, usize), f64> = HashMap::new();
    for i in 0..n {
        let c = g.col_idx_of_row_raw(i);
        let v = g.val_of_row(i);
        for x in 0..c.len() {
            used[c[x]] = true;
            for y in 0..c.len() {
                *map.entry((c[x], c[y])).or_insert(0.0) += v[x] * v[y];
            }
        }
    }
    for k in 0..m { *map.entry((k, k)).or_insert(0.0) += 1.0; }
    let (mut r, mut cc, mut vv) = (vec![], vec![], vec![]);
    for ((i, j), v) in map { r.push(i); cc.push(j); vv.push(v); }
    let kv = Lcp::from_coo(m, &r, &cc, &vv, vec![0.0; m]).unwrap();
    let used_cols = used.iter().filter(|u| **u).count();
    let t = Instant::now();
    let w = p.lcp.matrix().clone();
    let wl = Lcp::new(w, vec![0.0; n]).unwrap();
    eprintln!("assemble W {:.3}s", t.elapsed().as_secs_f64());
    for (name, lcp, dim) in [("contact W+I", &wl, n), ("velocity I+G'G", &kv, m)] {
        let mut ctx = SolveContext::new(1e-8, 10);
        let t = Instant::now();
        let mut ch = PrincipalCholesky::new(lcp, 1e-12).unwrap();
        ch.analyse_now().unwrap();
        let ta = t.elapsed().as_secs_f64();
        let d = vec![1.0; dim];
        let mut tf = vec![];
        for _ in 0..5 { let t = Instant::now(); ch.factor_plus_diagonal(&d, &mut ctx).unwrap(); tf.push(t.elapsed().as_secs_f64()); }
        tf.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!("{fam} n={n} m={m} (used {used_cols}) {name}: dim {dim} nnzK {} nnzL {} fill {:.1} amd {:?} analyse {:.4}s factor median {:.4}s",
            ch.matrix_nnz(), ch.factor_nnz(), ch.factor_nnz() as f64 / ch.matrix_nnz() as f64, ch.uses_amd(), ta, tf[2]);
    }
}
