#![no_main]
//! libFuzzer target `fclib_hdf5`: signorini_verification::fuzz::fclib_hdf5 on arbitrary bytes.

libfuzzer_sys::fuzz_target!(|data: &[u8]| signorini_verification::fuzz::fclib_hdf5(data));
