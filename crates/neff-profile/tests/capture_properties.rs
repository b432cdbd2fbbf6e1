//! Properties of the capture reader over synthetic captures (`writer::SyntheticCapture`): every
//! record written is decoded and paired, and no cut or flipped byte makes the reader panic.

use neff_profile::writer::SyntheticCapture;
use neff_profile::{Capture, CaptureEvents};
use proptest::prelude::*;

fn spec() -> impl Strategy<Value = SyntheticCapture> {
    (0u64..64, 0u64..32, 1u64..32, any::<[u8; 16]>()).prop_map(|(ins, dma, slots, uuid)| {
        SyntheticCapture {
            uuid,
            instructions_per_engine: ins,
            dma_transfers: dma,
            stream_slots: slots,
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Each written start/end pair comes back as one event, with nothing left unpaired, and the
    /// pcs stay inside the stream (reference-ntff §3: pc = address quantity minus the base's).
    #[test]
    fn every_written_record_is_decoded_and_paired(s in spec()) {
        let bytes = s.to_bytes();
        let cap = Capture::parse(&bytes).unwrap();
        let mut events = CaptureEvents::default();
        let stats = cap.decode(&mut events);
        prop_assert_eq!(stats.records, s.record_count());
        prop_assert_eq!(stats.unpaired_ends + stats.dma_unpaired_done + stats.dma_unpaired_starts, 0);
        prop_assert_eq!(events.instructions.len() as u64, s.instructions_per_engine * 5);
        prop_assert_eq!(events.dmas.len() as u64, s.dma_transfers);
        prop_assert!(events.instructions.iter().all(|e| u64::from(e.pc) < s.stream_slots));
        prop_assert!(events.instructions.iter().all(|e| e.end_ps >= e.start_ps));
    }

    /// A capture cut anywhere, or with any byte changed, is read or refused; never a panic.
    #[test]
    fn damaged_captures_never_panic(s in spec(), at in any::<prop::sample::Index>(), byte in any::<u8>(), cut in any::<bool>()) {
        let mut bytes = s.to_bytes();
        let i = at.index(bytes.len());
        if cut {
            bytes.truncate(i);
        } else {
            bytes[i] = byte;
        }
        if let Ok(cap) = Capture::parse(&bytes) {
            let mut events = CaptureEvents::default();
            cap.decode(&mut events);
        }
    }
}
