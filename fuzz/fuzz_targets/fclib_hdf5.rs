#![no_main]
//! libFuzzer target `fclib_hdf5`: signorini_verification::fuzz::fclib_hdf5 on arbitrary bytes.
//! libFuzzer's panic hook aborts; a panic inside the third-party HDF5 decoder is caught by the
//! reader and becomes a typed error, so the hook lets that one unwind.

static HOOK: std::sync::Once = std::sync::Once::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !signorini_lcp::formats::fclib::decoder_panic_is_guarded() {
                previous(info);
            }
        }));
    });
    signorini_verification::fuzz::fclib_hdf5(data)
});
