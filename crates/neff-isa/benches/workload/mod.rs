//! The benchmark workload shared by `benches/isa_throughput.rs` (criterion) and
//! `examples/isa_speed.rs` (wall + on-CPU time): a generated 1M-slot stream.

use neff_isa::{Opcode, SlotBuf};

/// Slots in the generated stream.
pub(crate) const SLOTS: usize = 1_000_000;

/// A stream shaped like real NEFFs (reference §4.3 histograms): event waits, DMA triggers,
/// tensor ops, copies, with a deterministic mix.
pub(crate) fn stream() -> Vec<u8> {
    let mut templates = Vec::new();
    let mut t = SlotBuf::new(Opcode::PSEUDO_DMA_TRIGGER);
    t.put_name(0x0C, 32, b"qSPIO0");
    t.put_u32(0x30, 3);
    templates.push(t);
    let mut t = SlotBuf::new(Opcode::EVENT_SEMAPHORE);
    t.0[4..12].copy_from_slice(&[5, 24, 0, 0, 16, 0, 0, 0]);
    templates.push(t);
    let mut t = SlotBuf::new(Opcode::TENSOR_TENSOR_ARITH_OP);
    t.0[4..16].copy_from_slice(&[5, 9, 0x13, 6, 16, 0, 0, 0, 0xaa, 0x0a, 4, 0x80]);
    for o in [16, 32, 48] {
        t.put_u32(o, 0x2c180 + o as u32);
        t.0[o + 4..o + 16].copy_from_slice(&[1, 0, 1, 0, 1, 0, 0xe8, 3, 1, 0, 1, 0]);
    }
    templates.push(t);
    let mut t = SlotBuf::new(Opcode::MATMUL);
    t.0[4..8].copy_from_slice(&[0, 0, 0x13, 5]);
    t.put_u32(0x10, 0x37b00);
    templates.push(t);
    templates.push(SlotBuf::new(Opcode::NOP));
    let mut out = Vec::with_capacity(SLOTS * 64);
    for i in 0..SLOTS {
        out.extend_from_slice(&templates[(i * 7 + i / 3) % templates.len()].0);
    }
    out
}
