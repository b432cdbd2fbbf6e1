//! Fuzz neff-debug's protobuf reader (the compiler's debug-info members, decision D230): any bytes
//! decode to a layer or a warning naming the member, never a panic.
//! Run: `cargo +nightly fuzz run debug_protobuf` from the repository root.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = neff_debug::wire::decode(data);
    if let Ok(layer) = neff_debug::Layer::decode("fuzz.pb", data) {
        let _ = layer.file.records.len();
    }
});
