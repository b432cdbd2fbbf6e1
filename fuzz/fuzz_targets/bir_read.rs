//! Fuzzes the BIR reader, verifier and writers: any bytes give a program or a `JsonError`; a
//! program verifies, prints stats and DOT without a panic.
//! Run: `cargo +nightly fuzz run bir_read` from the repository root.

#![no_main]

use libfuzzer_sys::fuzz_target;
use neff_bir::json::from_slice;

fuzz_target!(|data: &[u8]| {
    if let Ok(prog) = from_slice(data) {
        for p in neff_bir::verify(&prog) {
            let _ = p.to_string();
        }
        let _ = neff_bir::to_dot(&prog, neff_bir::DotOptions::default());
        let _ = neff_bir::Stats::of(&prog);
    }
});
