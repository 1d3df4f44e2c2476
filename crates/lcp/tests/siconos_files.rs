//! The 20 files of the Siconos LCP regression set read with the right sizes and entries (the
//! dense stream is column-major), the block files equal their dense twins, and every writer
//! round-trips (Siconos dense and sparse-block, JSON, MatrixMarket).

use std::path::{Path, PathBuf};

use signorini_lcp::formats::{self, json, mtx, siconos, Format};
use signorini_lcp::Lcp;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../verification/data/siconos-lcp");

fn data_dir() -> PathBuf {
    let dir = PathBuf::from(DATA);
    assert!(
        dir.is_dir(),
        "Siconos data folder missing: {} (see verification/data/README.md)",
        dir.display()
    );
    dir
}

fn read(name: &str) -> Lcp {
    let path = data_dir().join(format!("{name}.dat"));
    match formats::read_problem(&path, None) {
        Ok(lcp) => lcp,
        Err(e) => panic!("{e}"),
    }
}

/// (file, n, stored sparse-block).
const FILES: [(&str, usize, bool); 20] = [
    ("lcp_CPS_1", 2, false),
    ("lcp_CPS_2", 3, false),
    ("lcp_CPS_3", 4, false),
    ("lcp_CPS_4", 4, false),
    ("lcp_CPS_4bis", 4, false),
    ("lcp_CPS_5", 2, false),
    ("lcp_Pang_isolated_sol", 3, false),
    ("lcp_Pang_isolated_sol_perturbed", 3, false),
    ("lcp_inf_sol_perturbed", 3, false),
    ("lcp_deudeu", 2, false),
    ("lcp_deudeu_block", 2, true),
    ("lcp_enum_fails", 9, false),
    ("lcp_exp_murty", 6, false),
    ("lcp_exp_murty2", 6, false),
    ("lcp_mmc", 26, false),
    ("lcp_ortiz", 4, false),
    ("lcp_ortiz_block", 4, true),
    ("lcp_tobenna", 40, false),
    ("lcp_trivial", 9, false),
    ("lcp_trivial_block", 9, true),
];

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-14 * a.abs().max(b.abs()).max(1.0)
}

fn assert_same(a: &Lcp, b: &Lcp, what: &str) {
    assert_eq!(a.n(), b.n(), "{what}: n");
    for i in 0..a.n() {
        assert!(close(a.q()[i], b.q()[i]), "{what}: q[{i}] {} vs {}", a.q()[i], b.q()[i]);
        for j in 0..a.n() {
            assert!(
                close(a.get(i, j), b.get(i, j)),
                "{what}: M({i},{j}) {} vs {}",
                a.get(i, j),
                b.get(i, j)
            );
        }
    }
}

#[test]
fn the_folder_holds_exactly_the_twenty_files() {
    let mut names: Vec<String> = std::fs::read_dir(data_dir())
        .expect("readable")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".dat"))
        .collect();
    names.sort();
    let mut expected: Vec<String> = FILES.iter().map(|f| format!("{}.dat", f.0)).collect();
    expected.sort();
    assert_eq!(names, expected);
}

#[test]
fn every_file_reads_with_its_size_and_storage() {
    for (name, n, block) in FILES {
        let lcp = read(name);
        assert_eq!(lcp.n(), n, "{name}");
        assert_eq!(lcp.is_sparse(), block, "{name}");
        assert_eq!(lcp.name.as_deref(), Some(name));
    }
}

#[test]
fn block_files_equal_their_dense_twins() {
    for name in ["lcp_deudeu", "lcp_ortiz", "lcp_trivial"] {
        assert_same(&read(name), &read(&format!("{name}_block")), name);
    }
}

#[test]
fn hand_checked_entries_follow_the_column_major_stream() {
    // lcp_CPS_2 prints "0 2 -1" first: that is column 0.
    let cps2 = read("lcp_CPS_2");
    assert!(
        close(cps2.get(1, 0), 2.0) && close(cps2.get(2, 0), -1.0) && close(cps2.get(0, 1), -1.0)
    );
    // lcp_CPS_4: KKT matrix [[Q, -A'], [A, 0]] of min ½x'Qx + c'x s.t. x1 + x2 + x3 >= 6.
    let cps4 = read("lcp_CPS_4");
    assert!(
        close(cps4.get(0, 3), -1.0) && close(cps4.get(3, 0), 1.0) && close(cps4.get(2, 2), 21.0)
    );
    assert!(close(cps4.q()[2], 10.0) && close(cps4.q()[3], -6.0));
    // lcp_ortiz: the first printed line is column 0 = (3, -1, 0, 0).
    let ortiz = read("lcp_ortiz");
    assert!(
        close(ortiz.get(1, 0), -1.0) && close(ortiz.get(0, 1), 1.0) && close(ortiz.get(3, 2), 1.0)
    );
    // lcp_trivial: diag(1..9), q = -1.
    let trivial = read("lcp_trivial");
    for i in 0..9 {
        assert!(close(trivial.get(i, i), (i + 1) as f64) && close(trivial.q()[i], -1.0));
    }
    // lcp_deudeu: z = (4/3, 7/3) solves it (w = 0).
    let deudeu = read("lcp_deudeu");
    let w = deudeu.w_of(&[4.0 / 3.0, 7.0 / 3.0]);
    assert!(w.iter().all(|v| v.abs() < 1e-12), "{w:?}");
}

/// Solves M_BB z_B = -q_B by Gaussian elimination with partial pivoting (small n only).
fn solve_basis(m: &[Vec<f64>], q: &[f64], basis: &[usize]) -> Option<Vec<f64>> {
    let k = basis.len();
    let mut a: Vec<Vec<f64>> =
        basis.iter().map(|&i| basis.iter().map(|&j| m[i][j]).chain([-q[i]]).collect()).collect();
    for c in 0..k {
        let p = (c..k).max_by(|&x, &y| a[x][c].abs().total_cmp(&a[y][c].abs()))?;
        if a[p][c].abs() < 1e-12 {
            return None;
        }
        a.swap(c, p);
        let pivot_row = a[c].clone();
        for (r, row) in a.iter_mut().enumerate() {
            if r != c {
                let f = row[c] / pivot_row[c];
                for (x, p) in row.iter_mut().zip(&pivot_row).skip(c) {
                    *x -= f * p;
                }
            }
        }
    }
    Some((0..k).map(|r| a[r][k] / a[r][r]).collect())
}

/// Every complementary solution with a nonsingular basis (2^n index sets).
fn enumerate(lcp: &Lcp) -> Vec<Vec<f64>> {
    let (n, m) = (lcp.n(), lcp.dense_rows());
    let mut out = Vec::new();
    for mask in 0u32..(1 << n) {
        let basis: Vec<usize> = (0..n).filter(|i| mask & (1 << i) != 0).collect();
        if let Some(zb) = solve_basis(&m, lcp.q(), &basis) {
            let mut z = vec![0.0; n];
            for (&i, &v) in basis.iter().zip(&zb) {
                z[i] = v;
            }
            let w = lcp.w_of(&z);
            if z.iter().chain(&w).all(|&v| v >= -1e-9) {
                out.push(z);
            }
        }
    }
    out
}

#[test]
fn cps_4_has_a_solution_only_under_the_column_major_reading() {
    let lcp = read("lcp_CPS_4");
    let solutions = enumerate(&lcp);
    assert!(!solutions.is_empty(), "no complementary solution of lcp_CPS_4 as read");
    let rows = lcp.dense_rows();
    let transposed: Vec<Vec<f64>> = (0..4).map(|i| (0..4).map(|j| rows[j][i]).collect()).collect();
    let t = Lcp::from_dense_rows(&transposed, lcp.q().to_vec()).expect("valid");
    for z in &solutions {
        let min_w = t.w_of(z).into_iter().fold(f64::INFINITY, f64::min);
        assert!(min_w < -1.0, "z = {z:?} also solves the transposed reading (min w = {min_w})");
    }
}

fn tmp(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("siconos_files");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    dir.join(name)
}

#[test]
fn dense_and_sparse_block_writers_round_trip() {
    for (name, _, _) in FILES {
        let lcp = read(name);
        let dense = siconos::from_str(&siconos::to_string_dense(&lcp)).expect("dense text");
        assert!(!dense.is_sparse());
        assert_same(&lcp, &dense, &format!("{name} dense"));
        for bs in [1, 2, 3, 40] {
            let sbm = siconos::from_str(&siconos::to_string_sbm(&lcp, bs)).expect("sbm text");
            assert!(sbm.is_sparse());
            assert_same(&lcp, &sbm, &format!("{name} sbm {bs}"));
        }
        let path = tmp(&format!("{name}.dat"));
        formats::write_problem(&path, &lcp, None).expect("write");
        assert_same(&lcp, &formats::read_problem(&path, None).expect("read back"), name);
    }
}

#[test]
fn json_round_trips_dense_and_sparse() {
    for (name, _, _) in FILES {
        let lcp = read(name).with_source("Siconos, INRIA");
        let back = json::from_str(&json::to_string(&lcp)).expect("json text");
        assert_same(&lcp, &back, name);
        assert_eq!(back.is_sparse(), lcp.is_sparse(), "{name}");
        assert_eq!(back.name.as_deref(), Some(name));
        assert_eq!(back.source.as_deref(), Some("Siconos, INRIA"));
        let path = tmp(&format!("{name}.json"));
        formats::write_problem(&path, &lcp, None).expect("write");
        assert_same(&lcp, &formats::read_problem(&path, Some(Format::Json)).expect("read"), name);
    }
}

#[test]
fn matrix_market_round_trips_in_both_namings() {
    for (name, _, _) in FILES {
        let lcp = read(name);
        let back = mtx::from_strs(&mtx::m_to_string(&lcp), &mtx::q_to_string(&lcp)).expect("text");
        assert_same(&lcp, &back, name);
        let array =
            mtx::from_strs(&mtx::m_to_array_string(&lcp), &mtx::q_to_string(&lcp)).expect("array");
        assert_same(&lcp, &array, name);
        // Directory form: D/M.mtx + D/q.mtx.
        let dir = tmp(&format!("{name}_mm"));
        formats::write_problem(&dir, &lcp, Some(Format::MatrixMarket)).expect("write dir");
        assert!(dir.join("M.mtx").is_file() && dir.join("q.mtx").is_file());
        assert_same(&lcp, &formats::read_problem(&dir, None).expect("read dir"), name);
        // File form: foo.mtx + foo_q.mtx.
        let file = tmp(&format!("{name}.mtx"));
        formats::write_problem(&file, &lcp, None).expect("write file");
        assert!(tmp(&format!("{name}_q.mtx")).is_file());
        assert_same(&lcp, &formats::read_problem(&file, None).expect("read file"), name);
    }
}

#[test]
fn matrix_market_naming_rules() {
    let (m, q) = formats::matrix_market_paths(Path::new("a/b/foo.mtx"));
    assert_eq!((m.as_path(), q.as_path()), (Path::new("a/b/foo.mtx"), Path::new("a/b/foo_q.mtx")));
    let (m, q) = formats::matrix_market_paths(Path::new("a/M.mtx"));
    assert_eq!((m.as_path(), q.as_path()), (Path::new("a/M.mtx"), Path::new("a/q.mtx")));
    let (m, q) = formats::matrix_market_paths(Path::new("a/problem"));
    assert_eq!(
        (m.as_path(), q.as_path()),
        (Path::new("a/problem/M.mtx"), Path::new("a/problem/q.mtx"))
    );
}

#[test]
fn matrix_market_symmetric_and_coordinate_q() {
    let m = "%%MatrixMarket matrix coordinate real symmetric\n% lower half\n2 2 3\n1 1 2\n2 1 1\n2 2 2\n";
    let q = "%%MatrixMarket matrix coordinate integer general\n2 1 2\n1 1 -3\n2 1 -3\n";
    let lcp = mtx::from_strs(m, q).expect("valid");
    assert!(close(lcp.get(0, 1), 1.0) && close(lcp.get(1, 0), 1.0));
    assert!(close(lcp.q()[1], -3.0));
}
