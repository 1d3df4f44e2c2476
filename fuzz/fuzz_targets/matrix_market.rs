#![no_main]
//! libFuzzer target `matrix_market`: signorini_verification::fuzz::matrix_market on arbitrary bytes.

libfuzzer_sys::fuzz_target!(|data: &[u8]| signorini_verification::fuzz::matrix_market(data));
