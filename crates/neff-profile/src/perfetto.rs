//! A profile's rows as a Perfetto trace (issue 28 item 3, `neff profile --perfetto`): the
//! protobuf `Trace` of Perfetto's published protos (`protos/perfetto/trace/trace.proto`,
//! `trace_packet.proto`, `track_event/track_event.proto`, `track_descriptor.proto`,
//! `debug_annotation.proto`, `interned_data.proto`; field numbers below are theirs), written
//! packet by packet as rows arrive, so memory stays bounded whatever the capture's size.
//!
//! Layout: a track per subgraph; under it a track per engine and per DMA queue, each split into
//! as many lanes as the rows overlap (Perfetto nests slices on one track, and PE overlaps
//! LDWEIGHTS with MATMUL); a counter track per semaphore. Slice names are interned (one string
//! per mnemonic); each instruction carries its `pc` and `neff_slot` as debug annotations.
//! Throttle rows are not written (their meaning is open, reference-ntff §3).

use std::io::{self, Write};

use prost::Message;

use crate::row_stream::{DmaView, InstructionView, RowSink, SemaphoreView, ThrottleView};

/// `Trace` (trace.proto): the file is a sequence of field-1 packets.
#[derive(Clone, PartialEq, Message)]
pub struct Trace {
    /// 1: the packets.
    #[prost(message, repeated, tag = "1")]
    pub packet: Vec<TracePacket>,
}

/// `TracePacket` (trace_packet.proto), the fields written.
#[derive(Clone, PartialEq, Message)]
pub struct TracePacket {
    /// 8: time, ns.
    #[prost(uint64, optional, tag = "8")]
    pub timestamp: Option<u64>,
    /// 10: the writer's sequence (one for the whole file).
    #[prost(uint32, optional, tag = "10")]
    pub trusted_packet_sequence_id: Option<u32>,
    /// 11: a track event.
    #[prost(message, optional, tag = "11")]
    pub track_event: Option<TrackEvent>,
    /// 12: strings interned from here on.
    #[prost(message, optional, tag = "12")]
    pub interned_data: Option<InternedData>,
    /// 13: `SequenceFlags` (1 incremental state cleared, 2 needs incremental state).
    #[prost(uint32, optional, tag = "13")]
    pub sequence_flags: Option<u32>,
    /// 60: a track's description.
    #[prost(message, optional, tag = "60")]
    pub track_descriptor: Option<TrackDescriptor>,
}

/// `TrackDescriptor` (track_descriptor.proto), the fields written.
#[derive(Clone, PartialEq, Message)]
pub struct TrackDescriptor {
    /// 1: the track's id.
    #[prost(uint64, optional, tag = "1")]
    pub uuid: Option<u64>,
    /// 2: its name.
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
    /// 5: the track it sits under.
    #[prost(uint64, optional, tag = "5")]
    pub parent_uuid: Option<u64>,
    /// 8: present for a counter track.
    #[prost(message, optional, tag = "8")]
    pub counter: Option<CounterDescriptor>,
}

/// `CounterDescriptor` (counter_descriptor.proto): no field needed.
#[derive(Clone, PartialEq, Message)]
pub struct CounterDescriptor {}

/// `TrackEvent` (track_event.proto), the fields written.
#[derive(Clone, PartialEq, Message)]
pub struct TrackEvent {
    /// 4: named values shown with the slice.
    #[prost(message, repeated, tag = "4")]
    pub debug_annotations: Vec<DebugAnnotation>,
    /// 9: `Type` (1 slice begin, 2 slice end, 3 instant, 4 counter).
    #[prost(int32, optional, tag = "9")]
    pub r#type: Option<i32>,
    /// 10: the name, interned.
    #[prost(uint64, optional, tag = "10")]
    pub name_iid: Option<u64>,
    /// 11: the track.
    #[prost(uint64, optional, tag = "11")]
    pub track_uuid: Option<u64>,
    /// 23: the name, inline.
    #[prost(string, optional, tag = "23")]
    pub name: Option<String>,
    /// 30: a counter's value.
    #[prost(int64, optional, tag = "30")]
    pub counter_value: Option<i64>,
}

/// `DebugAnnotation` (debug_annotation.proto), the fields written.
#[derive(Clone, PartialEq, Message)]
pub struct DebugAnnotation {
    /// 1: the name, interned.
    #[prost(uint64, optional, tag = "1")]
    pub name_iid: Option<u64>,
    /// 3: an unsigned value.
    #[prost(uint64, optional, tag = "3")]
    pub uint_value: Option<u64>,
}

/// `InternedData` (interned_data.proto), the fields written.
#[derive(Clone, PartialEq, Message)]
pub struct InternedData {
    /// 2: event names.
    #[prost(message, repeated, tag = "2")]
    pub event_names: Vec<InternedString>,
    /// 3: debug annotation names.
    #[prost(message, repeated, tag = "3")]
    pub debug_annotation_names: Vec<InternedString>,
}

/// `EventName` / `DebugAnnotationName`: an id and its string.
#[derive(Clone, PartialEq, Message)]
pub struct InternedString {
    /// 1: the id.
    #[prost(uint64, optional, tag = "1")]
    pub iid: Option<u64>,
    /// 2: the string.
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
}

/// `TrackEvent.Type` values.
pub mod event_type {
    /// A slice begins.
    pub const SLICE_BEGIN: i32 = 1;
    /// A slice ends.
    pub const SLICE_END: i32 = 2;
    /// A counter's value.
    pub const COUNTER: i32 = 4;
}

/// `SequenceFlags`.
const SEQ_INCREMENTAL_STATE_CLEARED: u32 = 1;
const SEQ_NEEDS_INCREMENTAL_STATE: u32 = 2;
/// The one sequence of the file.
const SEQUENCE: u32 = 1;
/// Interned debug-annotation names.
const PC_IID: u64 = 1;
const NEFF_SLOT_IID: u64 = 2;
/// Lanes per track at most; rows overlapping more than this share the last lane (counted).
pub const MAX_LANES: usize = 64;
/// Bytes buffered before a write.
const FLUSH_AT: usize = 1 << 16;

/// A track split into lanes of non-overlapping slices.
#[derive(Default)]
struct Lanes {
    /// Per lane: its track uuid and the end of its last slice.
    lanes: Vec<(u64, u64)>,
}

/// Per subgraph: its track and its children.
struct SubgraphTracks {
    name: String,
    uuid: u64,
    /// Engines by [`neff_isa::EngineType::index`]; the last for rows of no engine.
    engines: Vec<Lanes>,
    queues: Vec<(u64, Lanes)>,
    semaphores: Vec<(u64, u64)>,
}

/// What the writer wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PerfettoStats {
    /// Packets written.
    pub packets: u64,
    /// Slices (instructions and DMA transfers).
    pub slices: u64,
    /// Counter values (semaphore updates).
    pub counters: u64,
    /// Slices put on a lane they overlap (more than [`MAX_LANES`] at once).
    pub overlapped: u64,
    /// Throttle rows not written.
    pub throttle_skipped: u64,
}

/// Streams rows into a Perfetto trace on `out`; [`PerfettoWriter::finish`] says whether every
/// write succeeded.
pub struct PerfettoWriter<W: Write> {
    out: W,
    buf: Vec<u8>,
    error: Option<io::Error>,
    next_uuid: u64,
    subgraphs: Vec<SubgraphTracks>,
    /// Interned slice names: (name, iid).
    names: Vec<(String, u64)>,
    stats: PerfettoStats,
    /// A track event being encoded.
    scratch: Vec<u8>,
}

impl<W: Write> PerfettoWriter<W> {
    /// A writer on `out` (buffer it: packets are small).
    pub fn new(out: W) -> Self {
        let mut w = Self {
            out,
            buf: Vec::with_capacity(FLUSH_AT * 2),
            error: None,
            next_uuid: 1,
            subgraphs: Vec::new(),
            names: Vec::new(),
            stats: PerfettoStats::default(),
            scratch: Vec::with_capacity(64),
        };
        // The first packet clears the sequence's state and interns the annotation names.
        let named = |iid, n: &str| InternedString {
            iid: Some(iid),
            name: Some(n.to_string()),
        };
        w.packet(&TracePacket {
            trusted_packet_sequence_id: Some(SEQUENCE),
            sequence_flags: Some(SEQ_INCREMENTAL_STATE_CLEARED),
            interned_data: Some(InternedData {
                event_names: Vec::new(),
                debug_annotation_names: vec![
                    named(PC_IID, "pc"),
                    named(NEFF_SLOT_IID, "neff_slot"),
                ],
            }),
            ..Default::default()
        });
        w
    }

    /// Flushes and returns what was written, or the first write error.
    pub fn finish(mut self) -> io::Result<(W, PerfettoStats)> {
        self.flush();
        if let Some(e) = self.error {
            return Err(e);
        }
        self.out.flush()?;
        Ok((self.out, self.stats))
    }

    fn flush(&mut self) {
        if self.error.is_none()
            && let Err(e) = self.out.write_all(&self.buf)
        {
            self.error = Some(e);
        }
        self.buf.clear();
    }

    /// Appends one `Trace.packet` (field 1, length-delimited).
    fn packet(&mut self, p: &TracePacket) {
        self.buf.push(0x0A);
        // Encoding into a Vec cannot fail (it grows).
        let _ = p.encode_length_delimited(&mut self.buf);
        self.stats.packets += 1;
        if self.buf.len() >= FLUSH_AT {
            self.flush();
        }
    }

    fn uuid(&mut self) -> u64 {
        self.next_uuid += 1;
        self.next_uuid
    }

    fn descriptor(&mut self, uuid: u64, name: String, parent: Option<u64>, counter: bool) {
        self.packet(&TracePacket {
            trusted_packet_sequence_id: Some(SEQUENCE),
            track_descriptor: Some(TrackDescriptor {
                uuid: Some(uuid),
                name: Some(name),
                parent_uuid: parent,
                counter: counter.then_some(CounterDescriptor {}),
            }),
            ..Default::default()
        });
    }

    /// The index of `name`'s tracks, described on first use.
    fn subgraph(&mut self, name: &str) -> usize {
        if let Some(i) = self.subgraphs.iter().position(|s| s.name == name) {
            return i;
        }
        let uuid = self.uuid();
        self.descriptor(uuid, name.to_string(), None, false);
        self.subgraphs.push(SubgraphTracks {
            name: name.to_string(),
            uuid,
            engines: (0..=neff_isa::EngineType::COUNT)
                .map(|_| Lanes::default())
                .collect(),
            queues: Vec::new(),
            semaphores: Vec::new(),
        });
        self.subgraphs.len() - 1
    }

    /// The lane of a slice `[start, end)` on a track: the first whose last slice ended by
    /// `start`, else a new one (described under `parent` as `label`, `label +n`).
    fn lane(&mut self, sg: usize, track: Track, label: &str, start: u64, end: u64) -> u64 {
        let lanes = self.lanes_mut(sg, track);
        if let Some(l) = lanes.lanes.iter_mut().find(|l| l.1 <= start) {
            l.1 = end;
            return l.0;
        }
        if lanes.lanes.len() >= MAX_LANES {
            self.stats.overlapped += 1;
            let l = self.lanes_mut(sg, track).lanes.last_mut().map_or(0, |l| {
                l.1 = l.1.max(end);
                l.0
            });
            return l;
        }
        let n = lanes.lanes.len();
        let uuid = self.uuid();
        self.lanes_mut(sg, track).lanes.push((uuid, end));
        let name = if n == 0 {
            label.to_string()
        } else {
            format!("{label} +{n}")
        };
        let parent = self.subgraphs[sg].uuid;
        self.descriptor(uuid, name, Some(parent), false);
        uuid
    }

    fn lanes_mut(&mut self, sg: usize, track: Track) -> &mut Lanes {
        let s = &mut self.subgraphs[sg];
        match track {
            Track::Engine(i) => &mut s.engines[i],
            Track::Queue(q) => {
                let i = match s.queues.iter().position(|(x, _)| *x == q) {
                    Some(i) => i,
                    None => {
                        s.queues.push((q, Lanes::default()));
                        s.queues.len() - 1
                    }
                };
                &mut s.queues[i].1
            }
        }
    }

    /// The iid of slice name `name`, interned in `interned` when new.
    fn name_iid(&mut self, name: &str, interned: &mut Option<InternedData>) -> u64 {
        if let Some((_, iid)) = self.names.iter().find(|(n, _)| n == name) {
            return *iid;
        }
        let iid = self.names.len() as u64 + 1;
        self.names.push((name.to_string(), iid));
        interned
            .get_or_insert_with(InternedData::default)
            .event_names
            .push(InternedString {
                iid: Some(iid),
                name: Some(name.to_string()),
            });
        iid
    }

    /// A slice: its begin packet (with the new names interned) and its end packet.
    fn slice(&mut self, track: u64, name: &str, start: u64, end: u64, notes: &[(u64, u64)]) {
        let mut interned = None;
        let iid = self.name_iid(name, &mut interned);
        if interned.is_some() {
            // A new name (rare): the general encoder.
            let notes = notes.iter().map(|&(i, v)| note(i, v)).collect();
            self.packet(&TracePacket {
                timestamp: Some(start),
                trusted_packet_sequence_id: Some(SEQUENCE),
                sequence_flags: Some(SEQ_NEEDS_INCREMENTAL_STATE),
                interned_data: interned,
                track_event: Some(TrackEvent {
                    debug_annotations: notes,
                    r#type: Some(event_type::SLICE_BEGIN),
                    name_iid: Some(iid),
                    track_uuid: Some(track),
                    ..Default::default()
                }),
                ..Default::default()
            });
        } else {
            self.event_packet(start, event_type::SLICE_BEGIN, Some(iid), track, notes);
        }
        self.event_packet(end, event_type::SLICE_END, None, track, &[]);
        self.stats.slices += 1;
    }

    /// The packet of one track event, encoded by hand: the fields prost writes for
    /// [`TracePacket`] {timestamp, sequence, flags, track_event {debug_annotations, type,
    /// name_iid, track_uuid}}, without building the message (the writer's hot path: prost's
    /// nested length passes were most of its time). The decode-back tests read it with prost.
    fn event_packet(
        &mut self,
        ts: u64,
        ty: i32,
        iid: Option<u64>,
        track: u64,
        notes: &[(u64, u64)],
    ) {
        use prost::encoding::{WireType, encode_key, encode_varint, encoded_len_varint};
        let ev = &mut self.scratch;
        ev.clear();
        for &(i, v) in notes {
            encode_key(4, WireType::LengthDelimited, ev);
            encode_varint(
                (2 + encoded_len_varint(i) + encoded_len_varint(v)) as u64,
                ev,
            );
            varint_field(ev, 1, i);
            varint_field(ev, 3, v);
        }
        // The type values are small and positive: one varint byte as prost's int32 writes them.
        varint_field(ev, 9, ty.unsigned_abs().into());
        if let Some(i) = iid {
            varint_field(ev, 10, i);
        }
        varint_field(ev, 11, track);
        let seq = u64::from(SEQUENCE);
        let flags = u64::from(SEQ_NEEDS_INCREMENTAL_STATE);
        // Keys of fields 8, 10, 11 and 13 are one byte each.
        let len = 1
            + encoded_len_varint(ts)
            + 1
            + encoded_len_varint(seq)
            + 1
            + encoded_len_varint(flags)
            + 1
            + encoded_len_varint(ev.len() as u64)
            + ev.len();
        let buf = &mut self.buf;
        buf.push(0x0A);
        encode_varint(len as u64, buf);
        varint_field(buf, 8, ts);
        varint_field(buf, 10, seq);
        varint_field(buf, 13, flags);
        encode_key(11, WireType::LengthDelimited, buf);
        encode_varint(ev.len() as u64, buf);
        buf.extend_from_slice(ev);
        self.stats.packets += 1;
        if self.buf.len() >= FLUSH_AT {
            self.flush();
        }
    }
}

/// A varint field: its key and value.
fn varint_field(buf: &mut Vec<u8>, tag: u32, v: u64) {
    prost::encoding::encode_key(tag, prost::encoding::WireType::Varint, buf);
    prost::encoding::encode_varint(v, buf);
}

/// Which lanes of a subgraph.
#[derive(Clone, Copy)]
enum Track {
    Engine(usize),
    Queue(u64),
}

fn note(iid: u64, v: u64) -> DebugAnnotation {
    DebugAnnotation {
        name_iid: Some(iid),
        uint_value: Some(v),
    }
}

impl<W: Write> RowSink for PerfettoWriter<W> {
    fn instruction(&mut self, r: &InstructionView<'_>) {
        let sg = self.subgraph(r.subgraph);
        let (idx, label) = r
            .engine
            .map_or((neff_isa::EngineType::COUNT, "?"), |e| (e.index(), e.key()));
        let end = r.timestamp + r.duration;
        let track = self.lane(sg, Track::Engine(idx), label, r.timestamp, end);
        let notes = [(PC_IID, r.pc), (NEFF_SLOT_IID, r.neff_slot.unwrap_or(0))];
        let notes = &notes[..if r.neff_slot.is_some() { 2 } else { 1 }];
        let name = if r.opcode.is_empty() { "?" } else { r.opcode };
        self.slice(track, name, r.timestamp, end, notes);
    }

    fn dma(&mut self, r: &DmaView<'_>) {
        let sg = self.subgraph(r.subgraph);
        let end = r.timestamp + r.duration;
        let label = format!("dma q{}", r.dma_queue);
        let track = self.lane(sg, Track::Queue(r.dma_queue), &label, r.timestamp, end);
        let name = format!("dma {}B", r.size);
        self.slice(track, &name, r.timestamp, end, &[]);
    }

    fn semaphore(&mut self, r: &SemaphoreView<'_>) {
        let sg = self.subgraph(r.subgraph);
        let found = self.subgraphs[sg]
            .semaphores
            .iter()
            .find(|(i, _)| *i == r.index)
            .map(|&(_, u)| u);
        let track = match found {
            Some(u) => u,
            None => {
                let uuid = self.uuid();
                let parent = self.subgraphs[sg].uuid;
                self.descriptor(uuid, format!("semaphore {}", r.index), Some(parent), true);
                self.subgraphs[sg].semaphores.push((r.index, uuid));
                uuid
            }
        };
        self.packet(&TracePacket {
            timestamp: Some(r.timestamp),
            trusted_packet_sequence_id: Some(SEQUENCE),
            track_event: Some(TrackEvent {
                r#type: Some(event_type::COUNTER),
                track_uuid: Some(track),
                counter_value: Some(r.value),
                ..Default::default()
            }),
            ..Default::default()
        });
        self.stats.counters += 1;
    }

    fn throttle(&mut self, _: &ThrottleView<'_>) {
        self.stats.throttle_skipped += 1;
    }
}
