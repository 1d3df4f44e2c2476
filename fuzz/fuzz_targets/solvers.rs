#![no_main]
//! libFuzzer target `solvers`: signorini_verification::fuzz::solvers — every registered solver
//! on a small, badly scaled problem decoded from the bytes, its claims checked independently.

libfuzzer_sys::fuzz_target!(|data: &[u8]| signorini_verification::fuzz::solvers(data));
