#![no_main]
//! libFuzzer target `fc_dat`: signorini_verification::fuzz::fc_dat on arbitrary bytes.

libfuzzer_sys::fuzz_target!(|data: &[u8]| signorini_verification::fuzz::fc_dat(data));
