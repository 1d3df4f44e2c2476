#![no_main]
//! libFuzzer target `lcp_json`: signorini_verification::fuzz::lcp_json on arbitrary bytes.

libfuzzer_sys::fuzz_target!(|data: &[u8]| signorini_verification::fuzz::lcp_json(data));
