//! Every fuzz harness (`signorini_verification::fuzz`) on its seed corpus and on seeded
//! mutations of it: the short run CI makes of each fuzz target without cargo-fuzz (the long,
//! coverage-guided runs are `cargo xtask fuzz`).

use signorini_verification::fuzz::{seeds, Mutator, HARNESSES};

/// Mutations per harness (HDF5 inputs are written to a scratch file each time: fewer).
fn budget(name: &str) -> usize {
    if name == "fclib_hdf5" {
        1500
    } else {
        20000
    }
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
