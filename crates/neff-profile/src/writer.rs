//! A synthetic capture writer (issue 28 item 6): a v6 capture in the layout neffkit reads
//! (reference-ntff §1-§3), so that tests and benchmarks have captures of any size. The records
//! follow the layout; the times are a plain schedule (one instruction after another per engine),
//! not a simulation.

use std::io::{self, Write};

use neff_isa::{EngineType, SLOT_BYTES, SLOT_SHIFT};

use crate::ntff::HEADER_BYTES;
use crate::trace::{RECORD_BYTES, Record, dma_bits, instruction_bits as ib};
use crate::wire::{put_bytes_field, put_varint_field};

/// What to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntheticCapture {
    /// The NEFF's uuid.
    pub uuid: [u8; 16],
    /// Instructions per engine (each a start and an end record).
    pub instructions_per_engine: u64,
    /// DMA transfers (each a start and a data-done record), on queue 0 of DMA engine 64.
    pub dma_transfers: u64,
    /// Slots of each engine's stream (the pcs cycle through them).
    pub stream_slots: u64,
}

/// Device base of every synthetic stream.
const BASE: u64 = 0x7000_0000_0000;
/// T0 of the window, ps.
const T0: u64 = 1_000_000;
/// One instruction's duration, ps.
const STEP: u64 = 1_000;

impl SyntheticCapture {
    /// Records the capture holds.
    pub fn record_count(&self) -> u64 {
        2 * (self.instructions_per_engine * EngineType::COUNT as u64 + self.dma_transfers)
    }

    fn metadata(&self, stream_bytes: u64, ins_bytes: u64, dma_bytes: u64) -> Vec<u8> {
        let mut sg = Vec::new();
        put_bytes_field(&mut sg, 1, b"sg00");
        put_varint_field(&mut sg, 3, 0);
        for e in EngineType::ALL {
            let mut s = Vec::new();
            put_varint_field(&mut s, 1, e.index() as u64);
            put_varint_field(&mut s, 2, BASE);
            put_varint_field(&mut s, 7, e.index() as u64 * stream_bytes);
            put_varint_field(&mut s, 8, stream_bytes);
            put_bytes_field(&mut sg, 4, &s);
        }
        let mut exec = Vec::new();
        put_bytes_field(&mut exec, 1, &sg);
        let mut four = Vec::new();
        put_bytes_field(&mut four, 4, &exec);
        put_bytes_field(&mut four, 5, &self.uuid);
        let mut m = Vec::new();
        put_bytes_field(&mut m, 1, b"synthetic.neff");
        put_bytes_field(&mut m, 2, &self.uuid);
        put_bytes_field(&mut m, 4, &four);
        put_varint_field(&mut m, 5, 1);
        let mut v = Vec::new();
        put_varint_field(&mut v, 1, 2);
        put_varint_field(&mut v, 2, 30);
        put_varint_field(&mut v, 3, 51);
        put_bytes_field(&mut m, 8, &v);
        put_bytes_field(&mut m, 9, b"synthetic");
        let end = T0 + (self.instructions_per_engine.max(self.dma_transfers) + 2) * STEP;
        let mut w = Vec::new();
        put_bytes_field(&mut w, 1, &self.uuid);
        put_varint_field(&mut w, 2, T0);
        put_varint_field(&mut w, 3, end);
        put_bytes_field(&mut m, 15, &w);
        let streams = stream_bytes * EngineType::COUNT as u64;
        for (kind, off, size) in [(0, streams, ins_bytes), (4, streams + ins_bytes, dma_bytes)] {
            let mut b = Vec::new();
            put_varint_field(&mut b, 1, kind);
            put_varint_field(&mut b, 5, off);
            put_varint_field(&mut b, 6, size);
            put_varint_field(&mut b, 7, 0);
            put_bytes_field(&mut m, 16, &b);
        }
        m
    }

    /// Writes the capture to `out`, streaming (memory stays small whatever the size).
    pub fn write(&self, out: &mut impl Write) -> io::Result<()> {
        let slots = self.stream_slots.max(1);
        let stream_bytes = slots * SLOT_BYTES as u64;
        let ins_bytes =
            2 * self.instructions_per_engine * EngineType::COUNT as u64 * RECORD_BYTES as u64;
        let dma_bytes = 2 * self.dma_transfers * RECORD_BYTES as u64;
        let meta = self.metadata(stream_bytes, ins_bytes, dma_bytes);
        let mut header = [0u8; HEADER_BYTES];
        header[0] = 6;
        header[1..5].copy_from_slice(&(meta.len() as u32).to_le_bytes());
        out.write_all(&header)?;
        out.write_all(&meta)?;
        let slot = [0u8; SLOT_BYTES];
        for _ in 0..slots * EngineType::COUNT as u64 {
            out.write_all(&slot)?;
        }
        let base_bits = ((BASE >> SLOT_SHIFT) & 0x1F_FFFF) as u32;
        let mut buf = Vec::with_capacity(1 << 16);
        for k in 0..self.instructions_per_engine {
            for e in EngineType::ALL {
                let pc = (k % slots) as u32;
                let w0 = (1 << 31)
                    | ((e.index() as u32 + 1) << ib::ENGINE_SHIFT)
                    | (base_bits.wrapping_add(pc) & ib::ADDR_MASK);
                let t = T0 + k * STEP;
                let start = Record {
                    w0,
                    w1: 12 << ib::WAIT_SHIFT,
                    ts: t,
                };
                let end = Record {
                    w0: w0 | ib::END,
                    w1: 0xFFFF_FFFF,
                    ts: t + STEP - 1,
                };
                buf.extend_from_slice(&start.to_bytes());
                buf.extend_from_slice(&end.to_bytes());
            }
            if buf.len() >= 1 << 16 {
                out.write_all(&buf)?;
                buf.clear();
            }
        }
        for k in 0..self.dma_transfers {
            let t = T0 + k * STEP;
            let start = Record {
                w0: 0,
                w1: dma_bits::START,
                ts: t,
            };
            let done = Record {
                w0: 4096,
                w1: dma_bits::DATA_DONE | (0x1234 << dma_bits::CRC_SHIFT),
                ts: t + STEP / 2,
            };
            buf.extend_from_slice(&start.to_bytes());
            buf.extend_from_slice(&done.to_bytes());
            if buf.len() >= 1 << 16 {
                out.write_all(&buf)?;
                buf.clear();
            }
        }
        out.write_all(&buf)
    }

    /// The capture's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut v = Vec::new();
        let _ = self.write(&mut v);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Capture, Profile};

    #[test]
    fn a_synthetic_capture_reads_back_with_every_record() {
        let spec = SyntheticCapture {
            uuid: [7; 16],
            instructions_per_engine: 100,
            dma_transfers: 30,
            stream_slots: 40,
        };
        let bytes = spec.to_bytes();
        let cap = Capture::parse(&bytes).unwrap();
        assert_eq!(cap.record_count(), spec.record_count());
        assert!(cap.facts.matches_uuid(&[7; 16]));
        let (p, stats) = Profile::from_capture(&cap);
        assert_eq!(stats.unpaired_starts + stats.unpaired_ends, 0);
        assert_eq!(p.instructions.len(), 500);
        assert_eq!(p.dma.len(), 30);
        let i = &p.instructions[7];
        assert_eq!(i.duration, 0, "999 ps floor to 0 ns");
        assert!(p.instructions.iter().all(|i| i.pc < 40));
        assert_eq!(p.instructions.iter().filter(|i| i.pc == 39).count(), 10);
        assert_eq!(p.dma[3].timestamp, 3);
        assert_eq!(p.instructions[0].evt_wait_time, Some(10));
    }
}
