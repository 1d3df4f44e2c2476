//! Truncated and garbled problem files give an error, never a panic (after Clarabel's
//! wrong-dimension tests): the Siconos `.dat` reader on vendored files cut short or with a
//! token replaced, the JSON reader on truncated documents and random bytes.

use std::path::Path;

use proptest::prelude::*;
use signorini_friction::formats::{dat, json};

/// A vendored file without the trailing tokens after mu that the reader ignores (several
/// Siconos files end with one more integer): every token left is read.
fn vendored(name: &str) -> String {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../verification/data/siconos-fc").join(name);
    let text = std::fs::read_to_string(p).expect("vendored file");
    let mut tokens: Vec<&str> = text.split_whitespace().collect();
    assert!(dat::from_str(&text).is_ok(), "{name} reads");
    while tokens.len() > 1 && dat::from_str(&tokens[..tokens.len() - 1].join(" ")).is_ok() {
        tokens.pop();
    }
    tokens.join("\n")
}

/// Byte offset of the start of the last token (text before it is incomplete).
fn last_token_start(text: &str) -> usize {
    let trimmed = text.trim_end();
    trimmed.rfind(char::is_whitespace).map_or(0, |i| i + 1)
}

const FILES: [&str; 4] = [
    "FrictionContact3D_1c.dat",
    "FC2D_SliderCrankLagrangian00000.dat",
    "FC3D_Example1_SBM.dat",
    "Confeti-ex13-4contact-Fc3D-SBM.dat",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn truncated_dat_files_are_errors(file in 0..FILES.len() + 1, cut in 0.0f64..1.0) {
        // The last one is the CSparse (storage 2) file.
        let name = FILES.get(file).copied().unwrap_or("fc2d_granularflowonwall_00667_00000.dat");
        let text = vendored(name);
        let end = ((cut * last_token_start(&text) as f64) as usize).min(text.len());
        let end = (0..=end).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        // Cutting inside a number can leave a valid shorter number; cut at whitespace.
        let end = text[..end].rfind(char::is_whitespace).unwrap_or(0);
        prop_assert!(dat::from_str(&text[..end]).is_err());
    }

    #[test]
    fn a_garbled_dat_token_is_an_error(file in 0..FILES.len(), which in 0.0f64..1.0, junk in "[a-z!#]{1,4}") {
        let text = vendored(FILES[file]);
        let tokens: Vec<&str> = text.split_whitespace().collect();
        let k = ((which * tokens.len() as f64) as usize).min(tokens.len() - 1);
        let mut garbled = tokens.clone();
        garbled[k] = &junk;
        prop_assert!(dat::from_str(&garbled.join(" ")).is_err(), "token {k} of {}", FILES[file]);
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = dat::from_str(&text);
        let _ = json::from_str(&text);
    }

    #[test]
    fn truncated_json_is_an_error(cut in 0.0f64..1.0) {
        let text = r#"{"format":"signorini-fc/1","dimension":3,"W":{"dense":[[1,0,0],[0,1,0],[0,0,1]]},"q":[-1,0.5,0],"mu":[0.3]}"#;
        let end = (cut * (text.len() - 1) as f64) as usize;
        prop_assert!(json::from_str(&text[..end]).is_err());
    }
}
