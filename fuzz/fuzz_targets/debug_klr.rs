//! Fuzz neff-debug's KLR source-map reader (NKI kernels' JSON): any bytes give a map or a JSON
//! error, never a panic; every site a map holds can be looked up by its name.
//! Run: `cargo +nightly fuzz run debug_klr` from the repository root.

#![no_main]

use libfuzzer_sys::fuzz_target;
use neff_debug::klr::KlrMap;

fuzz_target!(|data: &[u8]| {
    if let Ok(map) = KlrMap::parse(data) {
        let _ = (map.len(), map.is_empty());
        for name in ["", "a", "i0", "nki_kernel"] {
            let _ = (map.get(name), map.lookup_bir(name));
        }
    }
});
