#![no_main]
//! libFuzzer target `scene_toml`: signorini_verification::fuzz::scene_toml on arbitrary bytes.

libfuzzer_sys::fuzz_target!(|data: &[u8]| signorini_verification::fuzz::scene_toml(data));
