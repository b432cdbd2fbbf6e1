//! Fuzzes the raw capture reader (.ntff): any bytes give a capture or an `NtffError` naming
//! where; a capture decodes its trace records and becomes the vendor's rows, a summary and a
//! Perfetto trace
//! without a panic and without allocating from an untrusted size (issue 28 item 7).
//! Run: `cargo +nightly fuzz run ntff_read` from the repository root.

#![no_main]

use libfuzzer_sys::fuzz_target;
use neff_profile::{Capture, Profile};

fuzz_target!(|data: &[u8]| {
    match Capture::parse(data) {
        Ok(cap) => {
            let (p, _) = Profile::from_capture(&cap);
            let _ = p.summary();
            let _ = p.top_instructions(10);
            // The streamed outputs: the Perfetto writer (lanes, interning) on any rows.
            let mut w = neff_profile::perfetto::PerfettoWriter::new(std::io::sink());
            cap.rows(&mut w);
            let _ = w.finish();
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
