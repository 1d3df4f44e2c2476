#![no_main]
//! libFuzzer target `warm_start_json`: signorini_verification::fuzz::warm_start_json on arbitrary bytes.

libfuzzer_sys::fuzz_target!(|data: &[u8]| signorini_verification::fuzz::warm_start_json(data));
