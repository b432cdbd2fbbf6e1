//! Trace buffers and their 16-byte records (reference-ntff §2 field 16, §3): the table that says
//! where each buffer lies in the data area, and the bit layout of a record of each kind. The
//! pairing of start and end records is [`crate::decode`]'s.

use std::ops::Range;

/// Bytes of one trace record: `u32 w0, u32 w1, u64 ts`, little-endian (reference §3, exact).
pub const RECORD_BYTES: usize = 16;

/// What a trace buffer holds (table field 1; reference §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BufferKind {
    /// 0: instruction start and end records.
    Instructions,
    /// 1: semaphore and event updates.
    Semaphores,
    /// 4: DMA records.
    Dma,
    /// 5: throttle records.
    Throttle,
    /// Any other kind (2 has been empty everywhere): kept, not decoded.
    Other(u64),
}

impl BufferKind {
    /// The kind of table value `v`.
    pub fn from_code(v: u64) -> Self {
        match v {
            0 => Self::Instructions,
            1 => Self::Semaphores,
            4 => Self::Dma,
            5 => Self::Throttle,
            n => Self::Other(n),
        }
    }
}

/// One entry of the trace-buffer table (`{1: kind, 3: class, 4: index, 5: offset, 6: size,
/// 7: physical core}`, absent = 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceBuffer {
    /// Field 1.
    pub kind: BufferKind,
    /// Field 3 (class 2 has been empty everywhere).
    pub class: u64,
    /// Field 4.
    pub index: u64,
    /// Field 7 (v6) or the subgraph's core (v4, v5): the physical core.
    pub core: u64,
    /// Index into [`crate::CaptureFacts::subgraphs`] of the core's subgraph, when there is one.
    pub subgraph: Option<usize>,
    /// The buffer's bytes in the file (absolute), checked against the data area.
    pub bytes: Range<usize>,
}

impl TraceBuffer {
    /// Records in the buffer.
    pub fn record_count(&self) -> usize {
        self.bytes.len() / RECORD_BYTES
    }
}

/// One raw record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Record {
    /// Bytes 0..4.
    pub w0: u32,
    /// Bytes 4..8.
    pub w1: u32,
    /// Bytes 8..16: device time, ps (exact on v6).
    pub ts: u64,
}

impl Record {
    /// The record at the start of `b` (16 bytes).
    #[inline]
    pub fn from_bytes(b: &[u8; RECORD_BYTES]) -> Self {
        let [a0, a1, a2, a3, b0, b1, b2, b3, t @ ..] = *b;
        Self {
            w0: u32::from_le_bytes([a0, a1, a2, a3]),
            w1: u32::from_le_bytes([b0, b1, b2, b3]),
            ts: u64::from_le_bytes(t),
        }
    }

    /// The 16 bytes of the record.
    pub fn to_bytes(self) -> [u8; RECORD_BYTES] {
        let mut out = [0; RECORD_BYTES];
        out[..4].copy_from_slice(&self.w0.to_le_bytes());
        out[4..8].copy_from_slice(&self.w1.to_le_bytes());
        out[8..].copy_from_slice(&self.ts.to_le_bytes());
        out
    }
}

/// Kind 0 bits (reference §3).
pub mod instruction_bits {
    /// w0 bits 0..20: `(device address >> 6) & 0x1FFFFF`.
    pub const ADDR_MASK: u32 = 0x1F_FFFF;
    /// w0 bit 21: the last instruction of a stream (seen).
    pub const LAST: u32 = 1 << 21;
    /// w0 bit 24: 0 start, 1 end.
    pub const END: u32 = 1 << 24;
    /// w0 bits 26..28: engine 1 PE .. 5 SP.
    pub const ENGINE_SHIFT: u32 = 26;
    /// Three engine bits.
    pub const ENGINE_MASK: u32 = 0x7;
    /// Start w1 bits 16..31: cycles waited on events.
    pub const WAIT_SHIFT: u32 = 16;
    /// End w1 bits 0..15 `crc_in`, 16..31 `crc_out`; 0xFFFF = none.
    pub const CRC_NONE: u16 = 0xFFFF;
}

/// Kind 1 bits (reference §3).
pub mod semaphore_bits {
    /// w0 bits 0..7: the index.
    pub const INDEX_MASK: u32 = 0xFF;
    /// w0 bit 8: a semaphore (clear: an event).
    pub const SEMAPHORE: u32 = 1 << 8;
    /// w0 bits 16..23: the operation (0xF3 increment, 0xF4 decrement, 0xF9 set, seen).
    pub const OP_SHIFT: u32 = 16;
}

/// Kind 4 bits (reference §3).
pub mod dma_bits {
    /// w0 bits 24..30: DMA engine minus [`ENGINE_BASE`].
    pub const ENGINE_SHIFT: u32 = 24;
    /// Seven engine bits.
    pub const ENGINE_MASK: u32 = 0x7F;
    /// The DMA engine id of engine bits 0.
    pub const ENGINE_BASE: u32 = 64;
    /// w0 bits 0..23: the transfer size of a data-done record.
    pub const SIZE_MASK: u32 = 0xFF_FFFF;
    /// w1 bits 0..3: the record type.
    pub const TYPE_MASK: u32 = 0xF;
    /// w1 bits 4..7: the queue.
    pub const QUEUE_SHIFT: u32 = 4;
    /// Type 1: a transfer starts.
    pub const START: u32 = 1;
    /// Type 5: its data is done (size, crc).
    pub const DATA_DONE: u32 = 5;
    /// Type 6: a later completion (open).
    pub const LATER_COMPLETION: u32 = 6;
    /// w1 bits 16..31: the crc of a data-done record.
    pub const CRC_SHIFT: u32 = 16;
}

/// Kind 5 bits (reference §3).
pub mod throttle_bits {
    /// w1 bits 0..7: `k`.
    pub const K_SHIFT: u32 = 0;
    /// w1 bits 8..15: `type`.
    pub const TYPE_SHIFT: u32 = 8;
    /// w0 bits 16..23: `n`.
    pub const N_SHIFT: u32 = 16;
}
