//! The 32-bit register write (CTRL_WR) and the DMA re-arm built on it: the doorbell of a
//! collective trigger (spec 001 §3 instr_col_add) and the tail-pointer WRITE a DMA trigger
//! becomes (spec 003 §4 "replaced by Write").
//!
//! Record (decision D52): opcode WRITE 0xa5, +0x0c {0, DTYPE UINT32, DATA_SRC IMMEDIATE},
//! +0x10 register address u64, +0x18 the 32-bit value, declared once by the `WRITE` payload view
//! (crate::payload::RegWrite).

use super::codes::{DATA_SRC_IMMEDIATE, DTYPE_UINT32, OP_WRITE};
use super::record::new_slot;
use super::sink::add_ins;
use crate::payload::RegWriteMut;

/// `add_wr32` (@0x2733d0): `*(u32 *)addr = value`, carrying `events`.
pub fn add_wr32(
    chunk: &mut Vec<u8>,
    offset: usize,
    addr: u64,
    value: u32,
    events: Option<u64>,
) -> usize {
    let mut rec = new_slot(OP_WRITE, events);
    RegWriteMut(&mut rec)
        .dtype(DTYPE_UINT32)
        .src(DATA_SRC_IMMEDIATE)
        .addr(addr)
        .value(value);
    add_ins(chunk, offset, &rec.0)
}

/// `add_dma_bundle_rearm` (spec 000 §8.1): re-arms a DMA ring for the next inference by writing
/// its descriptor count to the ring's re-arm register (decision D52: one WRITE).
pub fn add_dma_bundle_rearm(
    chunk: &mut Vec<u8>,
    offset: usize,
    ring_rearm_addr: u64,
    desc_count: u32,
) -> usize {
    add_wr32(chunk, offset, ring_rearm_addr, desc_count, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wr32_bytes() {
        let mut c = Vec::new();
        let ev = 0x0000_0000_0000_1604u64;
        add_wr32(&mut c, 0, 0x0000_00ff_0001_0008, 3, Some(ev));
        assert_eq!(&c[0..12], &[0xa5, 0x10, 0, 0, 4, 0x16, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&c[0x0c..0x10], &[0, 9, 1, 0]);
        assert_eq!(&c[0x10..0x18], &0x0000_00ff_0001_0008u64.to_le_bytes());
        assert_eq!(&c[0x18..0x1c], &[3, 0, 0, 0]);
        assert!(c[0x1c..].iter().all(|&b| b == 0));
    }

    #[test]
    fn rearm_is_a_plain_write() {
        let mut c = Vec::new();
        add_dma_bundle_rearm(&mut c, 0, 0x5000, 16);
        let mut w = Vec::new();
        add_wr32(&mut w, 0, 0x5000, 16, None);
        assert_eq!(c, w);
    }
}
