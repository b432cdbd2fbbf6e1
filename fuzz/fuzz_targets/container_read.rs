//! Fuzz the NEFF reader: any bytes must give `Ok` or a `ContainerError`, never a panic, and a
//! NEFF that reads must survive read -> write -> read with the same members.
//! Run: `cargo +nightly fuzz run container_read` from the repository root.

#![no_main]

use libfuzzer_sys::fuzz_target;
use neff_container::{Limits, Neff, NeffBuilder, ReadOptions};

fuzz_target!(|data: &[u8]| {
    // Small limits keep each execution fast; they are part of what is exercised.
    let limits = Limits {
        max_members: 1000,
        max_member_size: 1 << 24,
        max_total_size: 1 << 26,
        max_ratio: 1100,
    };
    for verify in [false, true] {
        // The second thread on with the hash, off without it: both read paths run (D780).
        let options = ReadOptions {
            verify,
            limits,
            threads: verify,
            map_memory: true,
        };
        let Ok(neff) = Neff::parse_with(data, &options) else {
            continue;
        };
        let _ = neff.header().encode();
        let rewritten = NeffBuilder::from_neff(&neff).build();
        if let Ok(bytes) = rewritten {
            let again = Neff::parse_with(
                &bytes,
                &ReadOptions {
                    verify: true,
                    limits: Limits::unlimited(),
                    ..ReadOptions::default()
                },
            )
            .expect("what we write reads back");
            assert!(
                neff.members()
                    .map(|m| (m.path, m.data))
                    .eq(again.members().map(|m| (m.path, m.data)))
            );
        }
    }
});
