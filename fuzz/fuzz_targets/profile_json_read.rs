//! Fuzzes the neuron-profile JSON reader: any bytes give a profile or an error naming the line,
//! column or field; a profile summarises without a panic.
//! Run: `cargo +nightly fuzz run profile_json_read` from the repository root.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use neff_profile::{Profile, ReadLimits};

fuzz_target!(|data: &[u8]| {
    let limits = ReadLimits {
        max_json_bytes: 1 << 20,
        max_capture_bytes: 1 << 20,
    };
    if let Ok(p) = Profile::parse(Path::new("fuzz.json"), data, &limits) {
        let _ = p.summary();
        let _ = p.span_ns("sg00");
    }
});
