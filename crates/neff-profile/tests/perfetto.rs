//! `--perfetto`: the written trace decoded back with Perfetto's field numbers (prost) and checked
//! against the rows it came from, on the shared captures and a synthetic one.

use std::collections::HashMap;
use std::path::Path;

use neff_fixtures::{PROFILED_DIR, PROFILED_NAMES};
use neff_profile::Capture;
use neff_profile::perfetto::{PerfettoWriter, Trace, event_type};
use neff_profile::row_stream::{DmaView, InstructionView, RowSink, SemaphoreView, ThrottleView};
use neff_profile::writer::SyntheticCapture;
use prost::Message;

/// Counts and the (start, end) pairs of every slice, as the rows say.
#[derive(Default)]
struct Expect {
    slices: Vec<(u64, u64)>,
    pcs: Vec<u64>,
    semaphores: Vec<(u64, i64)>,
}

impl RowSink for Expect {
    fn instruction(&mut self, r: &InstructionView<'_>) {
        self.slices.push((r.timestamp, r.timestamp + r.duration));
        self.pcs.push(r.pc);
    }
    fn dma(&mut self, r: &DmaView<'_>) {
        self.slices.push((r.timestamp, r.timestamp + r.duration));
    }
    fn semaphore(&mut self, r: &SemaphoreView<'_>) {
        self.semaphores.push((r.timestamp, r.value));
    }
    fn throttle(&mut self, _: &ThrottleView<'_>) {}
}

/// Decodes `bytes` and checks it against the rows of `cap`.
fn check(name: &str, cap: &Capture<'_>) {
    let mut out = Vec::new();
    let mut w = PerfettoWriter::new(&mut out);
    cap.rows(&mut w);
    let (_, stats) = w.finish().unwrap();
    let mut want = Expect::default();
    cap.rows(&mut want);
    let trace = Trace::decode(&out[..]).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(trace.packet.len() as u64, stats.packets, "{name}");
    // Every slice: a begin then its end on the same track; lanes never overlap.
    let mut open: HashMap<u64, u64> = HashMap::new();
    let mut last_end: HashMap<u64, u64> = HashMap::new();
    let mut got = Vec::new();
    let mut counters = Vec::new();
    let mut pcs = Vec::new();
    let mut tracks = 0;
    for p in &trace.packet {
        assert_eq!(p.trusted_packet_sequence_id, Some(1), "{name}");
        tracks += usize::from(p.track_descriptor.is_some());
        let Some(e) = &p.track_event else { continue };
        let (t, ts) = (e.track_uuid.unwrap(), p.timestamp.unwrap());
        match e.r#type {
            Some(event_type::SLICE_BEGIN) => {
                assert!(open.insert(t, ts).is_none(), "{name}: nested on {t}");
                assert!(
                    last_end.get(&t).is_none_or(|&l| l <= ts),
                    "{name}: overlap on {t}"
                );
                assert!(e.name_iid.is_some(), "{name}");
                // An instruction's pc is its first annotation (interned name 1).
                if let Some(a) = e.debug_annotations.first() {
                    assert_eq!(a.name_iid, Some(1), "{name}");
                    pcs.push(a.uint_value.unwrap());
                }
            }
            Some(event_type::SLICE_END) => {
                let start = open.remove(&t).unwrap();
                last_end.insert(t, ts);
                got.push((start, ts));
            }
            Some(event_type::COUNTER) => counters.push((ts, e.counter_value.unwrap())),
            other => panic!("{name}: type {other:?}"),
        }
    }
    assert!(open.is_empty(), "{name}");
    assert_eq!(stats.overlapped, 0, "{name}");
    assert_eq!(got.len(), want.slices.len(), "{name}");
    got.sort_unstable();
    want.slices.sort_unstable();
    assert_eq!(got, want.slices, "{name}");
    pcs.sort_unstable();
    want.pcs.sort_unstable();
    assert_eq!(pcs, want.pcs, "{name}");
    counters.sort_unstable();
    want.semaphores.sort_unstable();
    assert_eq!(counters, want.semaphores, "{name}");
    assert!(tracks > 1, "{name}");
}

#[test]
fn the_shared_captures_decode_back_to_their_rows() {
    for n in PROFILED_NAMES {
        let Some(gz) =
            neff_fixtures::read(Path::new(PROFILED_DIR).join(n).with_extension("ntff.gz"))
        else {
            continue;
        };
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gz[..]), &mut bytes).unwrap();
        let cap = Capture::parse(&bytes).unwrap();
        check(n, &cap);
    }
}

#[test]
fn a_synthetic_capture_decodes_back_to_its_rows() {
    let spec = SyntheticCapture {
        uuid: [3; 16],
        instructions_per_engine: 2_000,
        dma_transfers: 500,
        stream_slots: 64,
    };
    let bytes = spec.to_bytes();
    let cap = Capture::parse(&bytes).unwrap();
    check("synthetic", &cap);
}
