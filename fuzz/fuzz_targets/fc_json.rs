#![no_main]
//! libFuzzer target `fc_json`: signorini_verification::fuzz::fc_json on arbitrary bytes.

libfuzzer_sys::fuzz_target!(|data: &[u8]| signorini_verification::fuzz::fc_json(data));
