//! An engine's loaded instruction stream as a capture records it (reference-ntff §2 field 4.4.1.4,
//! §4): the runtime's own image of the engine — PREAMBLE, the NEFF's program as that runtime
//! lowered it, POSTAMBLE — and the segment list naming the parts the runtime wrote.

use std::ops::Range;

use neff_isa::{EngineType, SLOT_SHIFT};

/// One engine's loaded stream (field 4 of a subgraph).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadedStream {
    /// The engine (field 1: 0..4 = PE, ACT, POOL, DVE, SP; absent = 0).
    pub engine: EngineType,
    /// The device address of the stream's pc 0 (field 2).
    pub device_base: u64,
    /// Where the stream's bytes lie in the capture file (absolute byte range): inside the data
    /// area on v6 (fields 7, 8), inline in the metadata on v4 and v5 (field 3).
    pub bytes: Range<usize>,
    /// The runtime-written segments of this engine (field 5 of the subgraph), in file order.
    pub segments: Vec<RuntimeSegment>,
}

/// One runtime-written segment of a stream (field 5.2): `count` slots from byte `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuntimeSegment {
    /// Byte offset from the stream's first byte (field 1).
    pub offset: u64,
    /// Slots (field 2).
    pub count: u64,
    /// Field 3; flag 2 marks runtime slots inside the NEFF's program (reference §4; seen).
    pub flag: u64,
}

/// The segment flag that marks runtime-written slots inside the NEFF's program (reference §4).
pub const INNER_SEGMENT_FLAG: u64 = 2;

impl RuntimeSegment {
    /// The segment's slot range in the stream.
    pub fn slots(&self) -> Range<u64> {
        let first = self.offset >> SLOT_SHIFT;
        first..first.saturating_add(self.count)
    }
}

impl LoadedStream {
    /// The stream's size in slots.
    pub fn slot_count(&self) -> u64 {
        (self.bytes.len() >> SLOT_SHIFT) as u64
    }

    /// The trace records' pc of a device address field (reference §3: bits 0..20 of w0 are
    /// `(address >> 6) & 0x1FFFFF`): that quantity minus the same of the stream base, modulo 2^21.
    pub fn pc_of(&self, addr_bits: u32) -> u32 {
        addr_bits.wrapping_sub(((self.device_base >> SLOT_SHIFT) & PC_MASK) as u32) & PC_MASK as u32
    }

    /// Whether slot `pc` is one the runtime wrote: inside a segment other than a flag-2 one
    /// (reference §4: the slots no segment covers, plus the flag-2 segments, are the NEFF's
    /// program as the runtime lowered it).
    pub fn is_runtime_slot(&self, pc: u64) -> bool {
        self.segments
            .iter()
            .any(|s| s.flag != INNER_SEGMENT_FLAG && s.slots().contains(&pc))
    }
}

/// The 21 address bits of an instruction record (reference §3).
pub const PC_MASK: u64 = 0x1F_FFFF;
