//! Every malformed problem file gives a typed [`FormatError`] that says what and where, and no
//! input makes a reader panic (property tests on random bytes and random token streams).

use proptest::prelude::*;
use signorini_lcp::formats::{self, json, mtx, siconos, Format, FormatErrorKind};
use signorini_lcp::ProblemError;

/// Reads `text` in `format` (MatrixMarket: `text` is M, `q_text` is q) and returns the error.
fn err(text: &str, format: Format) -> formats::FormatError {
    let r = match format {
        Format::Json => json::from_str(text),
        Format::SiconosDat => siconos::from_str(text),
        Format::MatrixMarket => mtx::from_strs(text, Q2),
        // Binary HDF5, read from a path only: text input is always an error.
        Format::Fclib => formats::problem_from_str(text, Format::Fclib),
    };
    match r {
        Ok(lcp) => panic!("{format} input was accepted (n = {}):\n{text}", lcp.n()),
        Err(e) => e,
    }
}

const Q2: &str = "%%MatrixMarket matrix array real general\n2 1\n-1\n-1\n";
const M2: &str = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 2\n2 2 2\n";

fn check(
    text: &str,
    format: Format,
    ok: impl Fn(&FormatErrorKind) -> bool,
) -> formats::FormatError {
    let e = err(text, format);
    assert!(ok(&e.kind), "unexpected error kind for {format} input {text:?}: {e:?}");
    assert!(!e.to_string().is_empty());
    e
}

const JSON_OK_HEAD: &str = r#"{ "format": "signorini-lcp/1", "#;

#[test]
fn json_nan_and_inf_are_rejected() {
    check(&format!(r#"{JSON_OK_HEAD}"M": {{"dense": [[NaN]]}}, "q": [1]}}"#), Format::Json, |k| {
        matches!(k, FormatErrorKind::Json { .. })
    });
    let e = check(
        &format!(r#"{JSON_OK_HEAD}"M": {{"dense": [[1e999]]}}, "q": [1]}}"#),
        Format::Json,
        |k| matches!(k, FormatErrorKind::Json { .. }),
    );
    assert_eq!(e.line, Some(1));
}

#[test]
fn json_non_square_and_ragged_rows() {
    check(&format!(r#"{JSON_OK_HEAD}"M": {{"dense": [[1, 2]]}}, "q": [1]}}"#), Format::Json, |k| {
        matches!(k, FormatErrorKind::Problem(ProblemError::RaggedRow { row: 0, len: 2, n: 1 }))
    });
    check(
        &format!(r#"{JSON_OK_HEAD}"M": {{"dense": [[1, 2], [3]]}}, "q": [1, 1]}}"#),
        Format::Json,
        |k| matches!(k, FormatErrorKind::Problem(ProblemError::RaggedRow { row: 1, len: 1, n: 2 })),
    );
}

#[test]
fn json_wrong_q_length() {
    check(
        &format!(r#"{JSON_OK_HEAD}"M": {{"dense": [[1, 0], [0, 1]]}}, "q": [1]}}"#),
        Format::Json,
        |k| matches!(k, FormatErrorKind::Problem(ProblemError::SizeMismatch { n: 2, q_len: 1 })),
    );
}

#[test]
fn json_coo_index_out_of_range_and_lengths() {
    check(
        &format!(
            r#"{JSON_OK_HEAD}"M": {{"coo": {{"n": 2, "row": [0, 2], "col": [0, 1], "val": [1, 1]}}}}, "q": [1, 1]}}"#
        ),
        Format::Json,
        |k| matches!(k, FormatErrorKind::Problem(ProblemError::IndexOutOfRange { entry: 1, .. })),
    );
    check(
        &format!(
            r#"{JSON_OK_HEAD}"M": {{"coo": {{"n": 2, "row": [0], "col": [0, 1], "val": [1, 1]}}}}, "q": [1, 1]}}"#
        ),
        Format::Json,
        |k| matches!(k, FormatErrorKind::Problem(ProblemError::CooLengths { .. })),
    );
}

#[test]
fn json_coo_absurd_n_is_not_allocated() {
    check(
        &format!(
            r#"{JSON_OK_HEAD}"M": {{"coo": {{"n": 1000000000000, "row": [], "col": [], "val": []}}}}, "q": [1]}}"#
        ),
        Format::Json,
        |k| matches!(k, FormatErrorKind::Problem(ProblemError::SizeMismatch { .. })),
    );
}

#[test]
fn json_empty_truncated_and_trailing_garbage() {
    check("", Format::Json, |k| matches!(k, FormatErrorKind::Empty));
    check("  \n ", Format::Json, |k| matches!(k, FormatErrorKind::Empty));
    check(r#"{ "format": "signorini-lcp/1", "M": {"dense": [[1"#, Format::Json, |k| {
        matches!(k, FormatErrorKind::Json { .. })
    });
    let e = check(
        &format!("{JSON_OK_HEAD}\"M\": {{\"dense\": [[1]]}}, \"q\": [1]}}\n garbage"),
        Format::Json,
        |k| matches!(k, FormatErrorKind::Json { .. }),
    );
    assert_eq!(e.line, Some(2), "{e}");
}

#[test]
fn json_unknown_key_and_wrong_or_missing_format() {
    let e = check(
        &format!(r#"{JSON_OK_HEAD}"M": {{"dense": [[1]]}}, "q": [1], "qq": 2}}"#),
        Format::Json,
        |k| matches!(k, FormatErrorKind::Json { .. }),
    );
    assert!(e.to_string().contains("qq"), "{e}");
    check(
        r#"{"M": {"dense": [[1]]}, "q": [1]}"#,
        Format::Json,
        |k| matches!(k, FormatErrorKind::Json { message, .. } if message.contains("format")),
    );
    check(
        r#"{"format": "signorini-lcp/2", "M": {"dense": [[1]]}, "q": [1]}"#,
        Format::Json,
        |k| matches!(k, FormatErrorKind::WrongTag { found, .. } if found == "signorini-lcp/2"),
    );
    check(
        &format!(r#"{JSON_OK_HEAD}"M": {{"dense": [[1]], "coo": {{}}}}, "q": [1]}}"#),
        Format::Json,
        |k| matches!(k, FormatErrorKind::Json { .. }),
    );
}

#[test]
fn dat_empty_and_truncated() {
    check("", Format::SiconosDat, |k| matches!(k, FormatErrorKind::Empty));
    check("\n\n  \n", Format::SiconosDat, |k| matches!(k, FormatErrorKind::Empty));
    // q is missing its second entry (n = 2 with 2 tokens after n passes the first check).
    let e = check("2\n0\n2 2\n2 2\n1 0 0 1\n-1\n", Format::SiconosDat, |k| {
        matches!(k, FormatErrorKind::AbsurdSize { .. } | FormatErrorKind::Truncated { .. })
    });
    assert!(e.line.is_some());
    let e = check("2\n0\n", Format::SiconosDat, |k| {
        matches!(k, FormatErrorKind::AbsurdSize { .. } | FormatErrorKind::Truncated { .. })
    });
    assert_eq!(e.line, Some(2), "{e}");
}

#[test]
fn dat_nan_inf_and_bad_tokens_name_line_and_token() {
    let e = check(
        "2\n0\n2\n2\n2 2\n1 0\nnan 1\n-1 -1\n",
        Format::SiconosDat,
        |k| matches!(k, FormatErrorKind::NonFinite { what } if what == "M(0,1)"),
    );
    assert_eq!((e.line, e.token.as_deref()), (Some(7), Some("nan")));
    check(
        "2\n0\n2\n2\n2 2\n1 0\n0 1\ninf -1\n",
        Format::SiconosDat,
        |k| matches!(k, FormatErrorKind::NonFinite { what } if what == "q[0]"),
    );
    let e = check("2\n0\n2\n2\n2 2\n1 0\n0 x1\n-1 -1\n", Format::SiconosDat, |k| {
        matches!(k, FormatErrorKind::NotANumber { .. })
    });
    assert_eq!(e.token.as_deref(), Some("x1"));
    check("-2\n0\n", Format::SiconosDat, |k| matches!(k, FormatErrorKind::NotAnInteger { .. }));
    check("99999999999999999999999\n0\n", Format::SiconosDat, |k| {
        matches!(k, FormatErrorKind::NotAnInteger { .. })
    });
}

#[test]
fn dat_absurd_sizes_fail_without_allocating() {
    check(
        "1000000000000\n0\n1000000000000\n1000000000000\n",
        Format::SiconosDat,
        |k| matches!(k, FormatErrorKind::AbsurdSize { what, .. } if what == "n"),
    );
    check(
        &format!("{m}\n0\n{m}\n{m}\n{m} {m}\n1 2 3\n", m = usize::MAX),
        Format::SiconosDat,
        |k| matches!(k, FormatErrorKind::AbsurdSize { .. }),
    );
    // n fits the tokens but size0*size1 + n does not.
    check(
        "3\n0\n3 3\n3 3\n1 2 3\n",
        Format::SiconosDat,
        |k| matches!(k, FormatErrorKind::AbsurdSize { what, .. } if what == "size0*size1 + n"),
    );
    // Sparse-block: an absurd block count.
    check(
        "2\n1\n2\n2\n1000000000000000\n1 1\n2\n2\n",
        Format::SiconosDat,
        |k| matches!(k, FormatErrorKind::AbsurdSize { what, .. } if what == "nbblocks"),
    );
}

#[test]
fn dat_non_square_wrong_n_and_storage() {
    check("2\n0\n2\n3\n2 3\n1 2 3 4 5 6\n1 1\n", Format::SiconosDat, |k| {
        matches!(k, FormatErrorKind::Problem(ProblemError::NotSquare { rows: 2, cols: 3 }))
    });
    check("2\n0\n3\n3\n3 3\n1 2 3 4 5 6 7 8 9\n1 1\n", Format::SiconosDat, |k| {
        matches!(k, FormatErrorKind::Problem(ProblemError::SizeMismatch { .. }))
    });
    check("2\n7\n2\n2\n2 2\n1 0 0 1\n1 1\n", Format::SiconosDat, |k| {
        matches!(k, FormatErrorKind::Layout(_))
    });
    check("2\n0\n2\n2\n3 3\n1 0 0 1\n1 1 1 1 1\n", Format::SiconosDat, |k| {
        matches!(k, FormatErrorKind::Layout(_))
    });
}

#[test]
fn dat_inconsistent_sparse_block_layouts() {
    // The README example with one field broken at a time.
    let good = "2 1 2 2 1 1 1 2 2 2 1 0 1 0 0 2 1 1 2 -5 -6";
    assert!(siconos::from_str(good).is_ok());
    for bad in [
        "2 1 2 2 1 1 1 3 2 2 1 0 1 0 0 2 1 1 2 -5 -6", // blocksize0 ends past n
        "2 1 2 2 1 1 1 2 2 3 1 0 1 0 0 2 1 1 2 -5 -6", // filled1 != blocknumber0 + 1
        "2 1 2 2 1 1 1 2 2 2 1 1 1 0 0 2 1 1 2 -5 -6", // index1 does not start at 0
        "2 1 2 2 1 1 1 2 2 2 1 0 1 5 0 2 1 1 2 -5 -6", // index2 out of range
        "2 1 2 2 1 1 1 2 2 2 1 0 1 0 4 2 1 1 2 -5 -6", // wrong block number
        "2 1 2 2 1 2 1 1 1 2 3 1 0 1 1 0 0 2 1 -5 -6", // blocksize0 not increasing
    ] {
        check(bad, Format::SiconosDat, |k| matches!(k, FormatErrorKind::Layout(_)));
    }
    check("2 1 2 2 1 1 1 2 2 2 1 0 1 0 0 2 1", Format::SiconosDat, |k| {
        matches!(k, FormatErrorKind::AbsurdSize { .. } | FormatErrorKind::Truncated { .. })
    });
}

#[test]
fn mtx_empty_banner_and_truncated_header() {
    check("", Format::MatrixMarket, |k| matches!(k, FormatErrorKind::Empty));
    check("2 2 1\n1 1 1\n", Format::MatrixMarket, |k| matches!(k, FormatErrorKind::Layout(_)));
    // sprs itself would loop forever on a file that ends inside the header.
    check(
        "%%MatrixMarket matrix coordinate real general\n% only a comment\n",
        Format::MatrixMarket,
        |k| matches!(k, FormatErrorKind::Truncated { .. }),
    );
    check("%%MatrixMarket matrix coordinate complex general\n2 2 0\n", Format::MatrixMarket, |k| {
        matches!(k, FormatErrorKind::Unsupported(_))
    });
    check("%%MatrixMarket matrix coordinate real general\n2 2\n", Format::MatrixMarket, |k| {
        matches!(k, FormatErrorKind::Layout(_))
    });
}

#[test]
fn mtx_absurd_counts_fail_without_allocating() {
    check(
        "%%MatrixMarket matrix coordinate real general\n2 2 1000000000000\n1 1 1\n",
        Format::MatrixMarket,
        |k| matches!(k, FormatErrorKind::AbsurdSize { what, .. } if what == "entries"),
    );
    check(
        &format!("%%MatrixMarket matrix array real general\n{m} {m}\n1\n", m = usize::MAX),
        Format::MatrixMarket,
        |k| matches!(k, FormatErrorKind::AbsurdSize { .. }),
    );
    let e = mtx::from_strs(
        "%%MatrixMarket matrix coordinate real general\n1000000000000 1000000000000 0\n",
        "%%MatrixMarket matrix coordinate real general\n1000000000000 1 0\n",
    )
    .expect_err("absurd q length");
    assert!(matches!(e.kind, FormatErrorKind::AbsurdSize { .. }), "{e:?}");
}

#[test]
fn mtx_indices_values_and_shapes() {
    for (bad, line) in [
        ("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n", 3),
        ("%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1\n", 3),
        ("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n% c\n2 x 1\n", 5),
    ] {
        let e = check(bad, Format::MatrixMarket, |k| {
            matches!(k, FormatErrorKind::Layout(_) | FormatErrorKind::NotAnInteger { .. })
        });
        assert_eq!(e.line, Some(line), "{e}");
    }
    let e = check(
        "%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 NaN\n",
        Format::MatrixMarket,
        |k| matches!(k, FormatErrorKind::NonFinite { .. }),
    );
    assert_eq!(e.token.as_deref(), Some("NaN"));
    check("%%MatrixMarket matrix coordinate real general\n2 3 0\n", Format::MatrixMarket, |k| {
        matches!(k, FormatErrorKind::Problem(ProblemError::NotSquare { rows: 2, cols: 3 }))
    });
    check("%%MatrixMarket matrix coordinate real general\n3 3 0\n", Format::MatrixMarket, |k| {
        matches!(k, FormatErrorKind::Problem(ProblemError::SizeMismatch { n: 3, q_len: 2 }))
    });
    let e = mtx::from_strs(M2, "%%MatrixMarket matrix array real general\n2 2\n1 2 3 4\n")
        .expect_err("q is 2x2");
    assert!(matches!(e.kind, FormatErrorKind::Layout(_)), "{e:?}");
    let e = mtx::from_strs(M2, "%%MatrixMarket matrix array real general\n2 1\n1\n")
        .expect_err("q truncated");
    assert!(matches!(e.kind, FormatErrorKind::AbsurdSize { .. }), "{e:?}");
    assert!(mtx::from_strs(M2, Q2).is_ok());
}

#[test]
fn files_missing_unknown_and_not_utf8() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("formats_bad_input");
    std::fs::create_dir_all(&dir).expect("tmp dir");
    let missing = dir.join("missing.json");
    let e = formats::read_problem(&missing, None).expect_err("missing");
    assert!(matches!(e.kind, FormatErrorKind::Io(_)));
    assert!(e.to_string().contains("missing.json"), "{e}");
    let unknown = dir.join("problem.txt");
    std::fs::write(&unknown, "1 0 1 1 1 1 1 1").expect("write");
    let e = formats::read_problem(&unknown, None).expect_err("unknown extension");
    assert!(matches!(e.kind, FormatErrorKind::UnknownFormat));
    assert!(formats::read_problem(&unknown, Some(Format::SiconosDat)).is_ok());
    let binary = dir.join("binary.dat");
    std::fs::write(&binary, [0xff, 0xfe, 0x00, 0x31]).expect("write");
    let e = formats::read_problem(&binary, None).expect_err("binary");
    assert!(matches!(e.kind, FormatErrorKind::NotUtf8));
    let e = formats::read_problem(&dir.join("nothing_here.mtx"), None).expect_err("no files");
    assert!(e.to_string().contains("nothing_here.mtx"), "{e}");
}

#[test]
fn warm_start_forms_and_errors() {
    let z = formats::warm_start_from_str("[1, 2.5]").expect("array");
    assert_eq!(z.len(), 2);
    let z = formats::warm_start_from_str(r#"{"status": "solved", "z": [0.5]}"#).expect("object");
    assert!((z[0] - 0.5).abs() < 1e-15);
    for bad in ["", "[1, null]", r#"{"w": [1]}"#, "3", "[1, \"a\"]", "[1] x"] {
        assert!(formats::warm_start_from_str(bad).is_err(), "{bad:?} accepted");
    }
}

fn token() -> impl Strategy<Value = String> {
    prop_oneof![
        (0usize..6).prop_map(|v| v.to_string()),
        Just("1000000000000".to_string()),
        Just(usize::MAX.to_string()),
        Just("-1".to_string()),
        Just("nan".to_string()),
        Just("inf".to_string()),
        Just("2.5e-3".to_string()),
        Just("%".to_string()),
        "[a-z%]{1,4}",
        any::<f64>().prop_map(|v| format!("{v:e}")),
    ]
}

fn separator() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just(" "), Just("\n"), Just("\t")]
}

fn token_stream() -> impl Strategy<Value = String> {
    proptest::collection::vec((token(), separator()), 0..40)
        .prop_map(|v| v.into_iter().map(|(t, s)| t + s).collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let text = String::from_utf8_lossy(&bytes);
        let _ = json::from_str(&text);
        let _ = siconos::from_str(&text);
        let _ = mtx::from_strs(&text, &text);
        let _ = mtx::from_strs(&text, Q2);
        let _ = formats::warm_start_from_str(&text);
    }

    #[test]
    fn random_dat_token_streams_never_panic(
        storage in 0usize..2,
        n in 0usize..4,
        rest in token_stream(),
    ) {
        let text = format!("{n}\n{storage}\n{n}\n{n}\n{rest}");
        let _ = siconos::from_str(&text);
        let _ = siconos::from_str(&rest);
    }

    #[test]
    fn random_mtx_token_streams_never_panic(
        layout in prop_oneof![Just("coordinate"), Just("array")],
        symmetry in prop_oneof![Just("general"), Just("symmetric"), Just("skew-symmetric")],
        rest in token_stream(),
        q in token_stream(),
    ) {
        let m = format!("%%MatrixMarket matrix {layout} real {symmetry}\n{rest}");
        let q = format!("%%MatrixMarket matrix {layout} real general\n{q}");
        let _ = mtx::from_strs(&m, &q);
        let _ = mtx::from_strs(M2, &q);
    }

    #[test]
    fn random_json_token_streams_never_panic(
        m in prop_oneof![Just("dense"), Just("coo"), Just("x")],
        body in proptest::collection::vec(
            prop_oneof![Just("["), Just("]"), Just(","), Just("1"), Just("-2.5"), Just("{"),
                        Just("}"), Just("\"n\":"), Just("\"row\":"), Just("1e400"), Just("99999999999999999999")],
            0..30),
    ) {
        let text = format!(r#"{{"format": "signorini-lcp/1", "M": {{"{m}": {}}}, "q": [1]}}"#, body.concat());
        let _ = json::from_str(&text);
    }
}
