#![no_main]
//! libFuzzer target `siconos_dat`: signorini_verification::fuzz::siconos_dat on arbitrary bytes.

libfuzzer_sys::fuzz_target!(|data: &[u8]| signorini_verification::fuzz::siconos_dat(data));
