#![no_main]
//! libFuzzer target `scene_json`: signorini_verification::fuzz::scene_json on arbitrary bytes.

libfuzzer_sys::fuzz_target!(|data: &[u8]| signorini_verification::fuzz::scene_json(data));
