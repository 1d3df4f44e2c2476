#![no_main]
//! libFuzzer target `solution_json`: signorini_verification::fuzz::solution_json on arbitrary bytes.

libfuzzer_sys::fuzz_target!(|data: &[u8]| signorini_verification::fuzz::solution_json(data));
