//! Fuzzes the BIR JSON <-> IR round trip: whatever reads, written in the canonical form, reads
//! back and writes the same bytes (unknown keys survive, spec 002 §4).
//! Run: `cargo +nightly fuzz run bir_roundtrip` from the repository root.

#![no_main]

use libfuzzer_sys::fuzz_target;
use neff_bir::json::{Style, from_slice, to_vec};

fuzz_target!(|data: &[u8]| {
    let Ok(prog) = from_slice(data) else {
        return;
    };
    let once = to_vec(&prog, Style::Canonical);
    let again = from_slice(&once).expect("canonical output reads back");
    assert_eq!(to_vec(&again, Style::Canonical), once);
    let pretty = to_vec(&prog, Style::Pretty);
    let from_pretty = from_slice(&pretty).expect("pretty output reads back");
    assert_eq!(to_vec(&from_pretty, Style::Canonical), once);
});
