//! Fuzz the streaming scan (decision D27): any bytes give `Ok` or a `ContainerError`, never a panic;
//! when both the scan and the buffered reader accept the bytes, they list the same members and
//! the scan's kept bytes are the reader's.
//! Run: `cargo +nightly fuzz run container_scan` from the repository root.

#![no_main]

use libfuzzer_sys::fuzz_target;
use neff_container::{Limits, Neff, ReadOptions, scan};

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        max_members: 1000,
        max_member_size: 1 << 24,
        max_total_size: 1 << 26,
        max_ratio: 1100,
    };
    for verify in [false, true] {
        // Mapped members and the second thread with the hash, neither without it (D780).
        let options = ReadOptions {
            verify,
            limits,
            threads: verify,
            map_memory: verify,
        };
        // Keep every other member the header announces, so both paths of the scan run.
        let mut n = 0u32;
        let scanned = scan(data, &options, |_, _| {
            n += 1;
            n % 2 == 1
        });
        let (Ok(s), Ok(neff)) = (scanned, Neff::parse_with(data, &options)) else {
            continue;
        };
        assert_eq!(s.member_count(), neff.members().count());
        for (m, b) in s.members().zip(neff.members()) {
            assert_eq!((m.path, m.size), (b.path, b.data.len() as u64));
            if let Some(kept) = m.data {
                assert_eq!(kept, b.data);
            }
        }
    }
});
