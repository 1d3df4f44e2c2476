//! Every fuzz harness (`signorini_verification::fuzz`) on its seed corpus and on seeded
//! mutations of it: the short run CI makes of each fuzz target without cargo-fuzz (the long,
//! coverage-guided runs are `cargo xtask fuzz`).

use signorini_verification::fuzz::{seeds, Mutator, HARNESSES};

/// Mutations per harness (HDF5 inputs are written to a scratch file each time: fewer).
fn budget(name: &str) -> usize {
    if name == "fclib_hdf5" {
        1500
    } else if name == "solvers" {
        // Every registered solver per input.
        300
    } else {
        20000
    }
}

/// A `solvers` reproducer of tests/data: its bytes and the problem they decode to.
fn solvers_reproducer(name: &str) -> (Vec<u8>, signorini_lcp::Lcp) {
    let file = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(name);
    let data = std::fs::read(file).expect("reproducer");
    let lcp = signorini_verification::fuzz::decode_problem(&data).expect("a problem");
    (data, lcp)
}

#[test]
fn every_harness_survives_its_seeds_and_their_mutations() {
    for (name, harness) in HARNESSES {
        let corpus = seeds(name);
        assert!(!corpus.is_empty(), "{name}: no seeds");
        for input in &corpus {
            harness(input);
        }
        let mut m = Mutator::new(0x5167_0121);
        for k in 0..budget(name) {
            let input = m.mutate(&corpus[k % corpus.len()]);
            harness(&input);
        }
        harness(&[]);
        harness(b"\xff\xfe\x00garbage");
    }
}

/// A body name holding a newline is echoed escaped: the error stays one line.
#[test]
fn echoed_user_text_is_escaped() {
    let scene = "dimension = 2\n[[body]]\nname = \"a\\nb\"\nmass = -1.0\nshape = { type = \"sphere\", radius = 1.0 }\n";
    let e = signorini_contact::Scene::from_toml_str(scene).expect_err("negative mass");
    let text = e.to_string();
    assert!(!text.contains('\n') && text.contains("a\\nb"), "{text}");
}

/// Found by `cargo xtask fuzz` (target `fclib_hdf5`): a crafted datatype message makes
/// rust-hdf5 0.7.9 overflow an integer multiplication (`datatype.rs:717`, a panic under
/// overflow checks). The FCLIB reader now catches a panic inside the decoder and returns a
/// typed one-line error; the harness asserts exactly that.
#[test]
fn issue_14_a_panic_inside_the_hdf5_decoder_is_a_typed_error() {
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/fuzz_fclib_datatype_overflow.hdf5");
    let data = std::fs::read(file).expect("reproducer");
    signorini_verification::fuzz::fclib_hdf5(&data);
    let e = signorini_lcp::formats::read_problem(
        std::path::Path::new(file),
        Some(signorini_lcp::formats::Format::Fclib),
    )
    .expect_err("not an FCLIB problem");
    assert!(e.to_string().contains("HDF5"), "{e}");
}

/// Found by `cargo xtask fuzz` (target `lcp_json`): a `"format"` tag holding escaped newlines
/// was echoed raw into the error, which then spanned several lines. The tag is now escaped
/// (formats::one_line) in the LCP and the frictional-contact JSON readers.
#[test]
fn issue_14_a_format_tag_with_newlines_gives_a_one_line_error() {
    let file =
        concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/fuzz_lcp_json_format_tag_newline.json");
    let data = std::fs::read(file).expect("reproducer");
    signorini_verification::fuzz::lcp_json(&data);
}

/// Found by `cargo xtask fuzz` (target `solvers`): on M = [[1.1e110, 101], [1.8e115, -3.9e-4]],
/// q = (-3.9e-64, -3.9e-3), which has no solution, `enum` proved `no_solution` while `auto`
/// returned `solved` with a z whose z_1 = 2e-118 was below t |z|_inf (so counted as zero in
/// row 1) yet made up all of row 2 through 1.8e115. The row test now reads z in column units;
/// the harness (every solver, independent row check, no contradiction between a verified
/// answer and a proof of none) passes on the reproducer.
#[test]
fn issue_14_a_tiny_z_through_a_huge_column_is_not_zero() {
    let (data, lcp) = solvers_reproducer("fuzz_solvers_enum_vs_auto.bin");
    let m = lcp.dense_rows();
    assert!(m[1][0] > 1e115 && m[0][0] > 1e110 && m[1][1] < 0.0, "the reproducer's M: {m:?}");
    signorini_verification::fuzz::solvers(&data);
}

/// Found by `cargo xtask fuzz` (target `solvers`, 2026-12-03): on M = diag(8.6e87, -1.01e61),
/// q = (-1, -1e-17), which has no solution, `enum` proved `no_solution` while `auto`'s answer
/// passed the row test through row 2's normwise floor. The floor that may excuse a negative
/// w_i is now what a perturbation of z within the budget, keeping z >= 0, can lift it by.
#[test]
fn issue_14_the_floor_cannot_lift_a_row_that_z_cannot_lift() {
    let (data, lcp) = solvers_reproducer("fuzz_solvers_diag_negative.bin");
    let m = lcp.dense_rows();
    assert!(m[0][1] == 0.0 && m[1][0] == 0.0 && m[1][1] < 0.0, "the reproducer's M: {m:?}");
    signorini_verification::fuzz::solvers(&data);
}

/// Found by `cargo xtask fuzz` (target `solvers`, 2026-12-03): on M = [[0, -3.9e-13],
/// [33, 3e-96]], q = (-8.5e-85, -85.3), which has no solution, `newton-fb`'s answer passed the
/// row test while `enum` proved `no_solution`: w_1 = -3.9e-13 z_2 lost q_1 in rounding and the
/// lift bound 3.9e-13 z_2 excused exactly that. The lift is now carried out (w' and its scale
/// summed at the lifted point, where w'_1 = q_1), so the answer is not `solved`.
#[test]
fn issue_14_a_q_lost_in_rounding_is_not_excused_by_the_lift() {
    let (data, lcp) = solvers_reproducer("fuzz_solvers_lifted_row.bin");
    let m = lcp.dense_rows();
    assert!(m[0][0] == 0.0 && m[0][1] < 0.0 && lcp.q()[0] < 0.0, "the reproducer: {m:?}");
    let newton = signorini_lcp::Registry::builtin().build("newton-fb").expect("registered");
    let sol = newton.solve(&lcp, &signorini_lcp::SolveOptions::default(), None).expect("runs");
    assert_ne!(sol.status, signorini_lcp::Status::Solved, "z = {:?}", sol.z);
    signorini_verification::fuzz::solvers(&data);
}

/// Found by `cargo xtask fuzz` (target `solvers`, 2026-12-03, after the lift fix): on
/// M = [[16, 1.7e17], [8e17, -1e-12]], q = (10, -0.0039), which has no solution (enum proves
/// it), `ipm` returned z = (5.1e-21, 1.9e-10) as `solved`: the merit is 1.9e-11, z_1 is below
/// t |Cz|_inf and counts as 0 in row 1, and row 2's data |q_2| = 0.0039 is below the 4.5e-3 an
/// error of t |Cz|_inf moves it by: the row test's documented blind spot (merit.rs, "What the
/// test cannot see"). Both statements hold at their own standard; the harness now accepts the
/// pair only inside that blind spot, and this reproducer checks that it is one.
#[test]
fn issue_14_a_proof_of_none_beside_a_solution_in_the_blind_spot() {
    let (data, lcp) = solvers_reproducer("fuzz_solvers_blind_spot.bin");
    let m = lcp.dense_rows();
    assert!(m[1][0] > 1e17 && m[0][1] > 1e17 && lcp.q()[1].abs() < 1e-2, "the reproducer: {m:?}");
    signorini_verification::fuzz::solvers(&data);
}

/// Found by `cargo xtask fuzz` (target `solvers`, 2026-12-03): `sgs` diverged on
/// M = [[1.18, -75], [-1, 1e-12]], q = (0, -0.0039) and returned z = [NaN, NaN], which the
/// driver's projection onto z >= 0 let through (NaN < 0 is false). Non-finite entries are now
/// set to 0 with a note, and the status is decided from that z.
#[test]
fn issue_14_a_diverged_solver_returns_a_finite_nonnegative_z() {
    let (data, lcp) = solvers_reproducer("fuzz_solvers_sgs_nan.bin");
    let sgs = signorini_lcp::Registry::builtin().build("sgs").expect("registered");
    let sol = sgs.solve(&lcp, &signorini_lcp::SolveOptions::default(), None).expect("runs");
    assert!(sol.z.iter().all(|v| v.is_finite() && *v >= 0.0), "{:?}", sol.z);
    assert_ne!(sol.status, signorini_lcp::Status::Solved, "{:?}", sol.note);
    signorini_verification::fuzz::solvers(&data);
}
