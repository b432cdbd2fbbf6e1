//! Trace records to events in one pass over each buffer (reference-ntff §3): instruction starts
//! paired with their ends first-in-first-out per w0, DMA starts with their data-done records
//! first-in-first-out per (engine, queue). Nothing is allocated per record; the open starts are
//! bounded (a start left open past [`MAX_OPEN`] others is dropped and counted).

use std::collections::VecDeque;

use neff_isa::EngineType;

use crate::capture::CaptureFacts;
use crate::event::{DmaEvent, EventSink, InstructionEvent, SemaphoreEvent, ThrottleEvent};
use crate::trace::{
    BufferKind, RECORD_BYTES, Record, TraceBuffer, dma_bits, instruction_bits as ib,
    semaphore_bits, throttle_bits,
};

/// Open instruction starts kept per engine (PE overlaps LDWEIGHTS with MATMUL: a handful are
/// open at once on the captures seen); beyond it the oldest start is dropped.
pub const MAX_OPEN: usize = 256;

/// What a decode saw besides the events (counts of records that paired with nothing).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DecodeStats {
    /// Records read.
    pub records: u64,
    /// Instruction starts without an end (a capture ends with one; reference §3).
    pub unpaired_starts: u64,
    /// Instruction ends without a start.
    pub unpaired_ends: u64,
    /// Instruction records whose engine bits are not 1..5.
    pub unknown_engine: u64,
    /// DMA starts without a data-done record.
    pub dma_unpaired_starts: u64,
    /// DMA data-done records without a start.
    pub dma_unpaired_done: u64,
    /// DMA type-6 records (a later completion: open; not decoded).
    pub dma_later_completions: u64,
    /// DMA records of any other type.
    pub dma_other_types: u64,
    /// Kind 1 records for events rather than semaphores.
    pub event_updates: u64,
    /// Records of buffers of a kind not decoded.
    pub other_records: u64,
}

/// Decodes every trace buffer of `facts` in `file` into `sink`.
pub fn decode(file: &[u8], facts: &CaptureFacts, sink: &mut impl EventSink) -> DecodeStats {
    let mut stats = DecodeStats::default();
    for buf in &facts.buffers {
        decode_buffer(file, facts, buf, sink, &mut stats);
    }
    stats
}

/// Decodes one buffer.
pub fn decode_buffer(
    file: &[u8],
    facts: &CaptureFacts,
    buf: &TraceBuffer,
    sink: &mut impl EventSink,
    stats: &mut DecodeStats,
) {
    // The reader checked the range against the file; `get` keeps a hand-built table safe too.
    let bytes = file.get(buf.bytes.clone()).unwrap_or_default();
    let records = bytes
        .chunks_exact(RECORD_BYTES)
        .map(|c| Record::from_bytes(c.try_into().unwrap_or(&[0; RECORD_BYTES])));
    stats.records += (bytes.len() / RECORD_BYTES) as u64;
    let sg = buf.subgraph.unwrap_or(usize::MAX);
    let sg16 = sg.min(u16::MAX as usize) as u16;
    match buf.kind {
        BufferKind::Instructions => instructions(records, facts, sg, sg16, sink, stats),
        BufferKind::Dma => dma(records, sg16, sink, stats),
        BufferKind::Semaphores => {
            for r in records {
                let is_semaphore = r.w0 & semaphore_bits::SEMAPHORE != 0;
                stats.event_updates += u64::from(!is_semaphore);
                sink.semaphore(SemaphoreEvent {
                    subgraph: sg16,
                    index: (r.w0 & semaphore_bits::INDEX_MASK) as u8,
                    is_semaphore,
                    op: (r.w0 >> semaphore_bits::OP_SHIFT) as u8,
                    value: r.w1,
                    ts_ps: r.ts,
                });
            }
        }
        BufferKind::Throttle => {
            for r in records {
                sink.throttle(ThrottleEvent {
                    subgraph: sg16,
                    k: (r.w1 >> throttle_bits::K_SHIFT) as u8,
                    kind: (r.w1 >> throttle_bits::TYPE_SHIFT) as u8,
                    n: (r.w0 >> throttle_bits::N_SHIFT) as u8,
                    ts: r.ts,
                });
            }
        }
        BufferKind::Other(_) => stats.other_records += (bytes.len() / RECORD_BYTES) as u64,
    }
}

/// An instruction start waiting for its end.
#[derive(Clone, Copy)]
struct Open {
    key: u32,
    ts: u64,
    w1: u32,
}

fn instructions(
    records: impl Iterator<Item = Record>,
    facts: &CaptureFacts,
    sg: usize,
    sg16: u16,
    sink: &mut impl EventSink,
    stats: &mut DecodeStats,
) {
    // Per engine: the stream's base quantity (reference §3) and the open starts.
    let subgraph = facts.subgraphs.get(sg);
    let bases: [Option<&crate::stream::LoadedStream>; EngineType::COUNT] =
        EngineType::ALL.map(|e| subgraph.and_then(|s| s.stream(e)));
    let mut open: [VecDeque<Open>; EngineType::COUNT] = Default::default();
    for r in records {
        let code = (r.w0 >> ib::ENGINE_SHIFT) & ib::ENGINE_MASK;
        let Some(engine) = code
            .checked_sub(1)
            .and_then(|c| EngineType::from_index(c as usize))
        else {
            stats.unknown_engine += 1;
            continue;
        };
        let q = &mut open[engine.index()];
        let key = r.w0 & !ib::END;
        if r.w0 & ib::END == 0 {
            if q.len() == MAX_OPEN {
                q.pop_front();
                stats.unpaired_starts += 1;
            }
            q.push_back(Open {
                key,
                ts: r.ts,
                w1: r.w1,
            });
            continue;
        }
        let Some(i) = q.iter().position(|o| o.key == key) else {
            stats.unpaired_ends += 1;
            continue;
        };
        let start = q.remove(i).unwrap_or(Open {
            key,
            ts: r.ts,
            w1: 0,
        });
        let addr = r.w0 & ib::ADDR_MASK;
        let pc = match bases[engine.index()] {
            Some(s) => s.pc_of(addr),
            None => addr,
        };
        sink.instruction(InstructionEvent {
            subgraph: sg16,
            engine,
            pc,
            start_ps: start.ts,
            end_ps: r.ts,
            wait_cycles: (start.w1 >> ib::WAIT_SHIFT) as u16,
            crc_in: r.w1 as u16,
            crc_out: (r.w1 >> 16) as u16,
            last_of_stream: r.w0 & ib::LAST != 0,
        });
    }
    stats.unpaired_starts += open.iter().map(|q| q.len() as u64).sum::<u64>();
}

/// Open DMA starts per (engine bits, queue): 128 x 16 queues.
const DMA_QUEUES: usize = 128 * 16;

fn dma(
    records: impl Iterator<Item = Record>,
    sg16: u16,
    sink: &mut impl EventSink,
    stats: &mut DecodeStats,
) {
    let mut open: Vec<VecDeque<u64>> = vec![VecDeque::new(); DMA_QUEUES];
    for r in records {
        let eng = (r.w0 >> dma_bits::ENGINE_SHIFT) & dma_bits::ENGINE_MASK;
        let queue = (r.w1 >> dma_bits::QUEUE_SHIFT) & 0xF;
        let q = &mut open[(eng as usize) * 16 + queue as usize];
        match r.w1 & dma_bits::TYPE_MASK {
            dma_bits::START => {
                if q.len() == MAX_OPEN {
                    q.pop_front();
                    stats.dma_unpaired_starts += 1;
                }
                q.push_back(r.ts);
            }
            dma_bits::DATA_DONE => match q.pop_front() {
                Some(start) => sink.dma(DmaEvent {
                    subgraph: sg16,
                    dma_engine: (eng + dma_bits::ENGINE_BASE).min(255) as u8,
                    queue: queue as u8,
                    size: r.w0 & dma_bits::SIZE_MASK,
                    start,
                    end: r.ts,
                    crc: (r.w1 >> dma_bits::CRC_SHIFT) as u16,
                }),
                None => stats.dma_unpaired_done += 1,
            },
            dma_bits::LATER_COMPLETION => stats.dma_later_completions += 1,
            _ => stats.dma_other_types += 1,
        }
    }
    stats.dma_unpaired_starts += open.iter().map(|q| q.len() as u64).sum::<u64>();
}
