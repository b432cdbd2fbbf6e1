//! 32-bit register loads and stores (spec 001 §3: pcprid's add_ldr32_addr, pseudo_gid_load's
//! add_str32_imm_addr / add_str32_imm_reg; plus add_str32_addr).
//!
//! Spec 001 names these builders but gives no bytes; the layout is decision D52, declared once as
//! the `MEM_ACCESS` view (crate::payload::MemAccess): +0x0c {0, DTYPE INT32, DATA_SRC}, +0x0f
//! address mode (0 = immediate address, 1 = address in a register), +0x10 address u64, +0x18 data
//! register, +0x1c data immediate u32, +0x20 address register. Loads are TENSOR_LOAD (0xaa),
//! stores TENSOR_STORE (0xab).

use super::codes::{
    DATA_SRC_IMMEDIATE, DATA_SRC_REGISTER, DTYPE_INT32, OP_TENSOR_LOAD, OP_TENSOR_STORE,
};
use super::record::new_slot;
use super::sink::add_ins;
use crate::SlotBuf;
use crate::payload::{AddrMode, MemAccessMut};

/// A record of the family with its descriptor `{0, INT32, data_src, addr_mode}` at +0x0c.
fn mem_record(opcode: u8, data_src: u8, addr_mode: AddrMode, events: Option<u64>) -> SlotBuf {
    let mut rec = new_slot(opcode, events);
    MemAccessMut(&mut rec)
        .dtype(DTYPE_INT32)
        .src(data_src)
        .addr_mode(addr_mode);
    rec
}

/// `add_ldr32_addr`: `reg = *(u32 *)addr` (pcprid's rank-id load, spec 001 §3).
pub fn add_ldr32_addr(
    chunk: &mut Vec<u8>,
    offset: usize,
    dst_reg: u8,
    addr: u64,
    events: Option<u64>,
) -> usize {
    let mut rec = mem_record(
        OP_TENSOR_LOAD,
        DATA_SRC_REGISTER,
        AddrMode::Immediate,
        events,
    );
    MemAccessMut(&mut rec).addr(addr).reg(dst_reg);
    add_ins(chunk, offset, &rec.0)
}

/// `add_str32_addr`: `*(u32 *)addr = reg`.
pub fn add_str32_addr(
    chunk: &mut Vec<u8>,
    offset: usize,
    src_reg: u8,
    addr: u64,
    events: Option<u64>,
) -> usize {
    let mut rec = mem_record(
        OP_TENSOR_STORE,
        DATA_SRC_REGISTER,
        AddrMode::Immediate,
        events,
    );
    MemAccessMut(&mut rec).addr(addr).reg(src_reg);
    add_ins(chunk, offset, &rec.0)
}

/// `add_str32_imm_addr`: `*(u32 *)addr = imm32` (pseudo_gid_load, memory destination).
pub fn add_str32_imm_addr(
    chunk: &mut Vec<u8>,
    offset: usize,
    imm32: u32,
    addr: u64,
    events: Option<u64>,
) -> usize {
    let mut rec = mem_record(
        OP_TENSOR_STORE,
        DATA_SRC_IMMEDIATE,
        AddrMode::Immediate,
        events,
    );
    MemAccessMut(&mut rec).addr(addr).imm(imm32);
    add_ins(chunk, offset, &rec.0)
}

/// `add_str32_imm_reg`: `*(u32 *)(reg) = imm32` (pseudo_gid_load, register-addressed memory
/// destination).
pub fn add_str32_imm_reg(
    chunk: &mut Vec<u8>,
    offset: usize,
    imm32: u32,
    addr_reg: u8,
    events: Option<u64>,
) -> usize {
    let mut rec = mem_record(
        OP_TENSOR_STORE,
        DATA_SRC_IMMEDIATE,
        AddrMode::Register,
        events,
    );
    MemAccessMut(&mut rec).imm(imm32).addr_reg(addr_reg);
    add_ins(chunk, offset, &rec.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ldr32_addr_bytes() {
        let mut c = Vec::new();
        add_ldr32_addr(&mut c, 0, 5, 0x0000_0010_2000_0040, None);
        assert_eq!(&c[0..2], &[0xaa, 0x10]);
        assert_eq!(&c[0x0c..0x10], &[0, 8, 0, 0]);
        assert_eq!(&c[0x10..0x18], &0x0000_0010_2000_0040u64.to_le_bytes());
        assert_eq!(c[0x18], 5);
    }

    #[test]
    fn str32_forms_bytes() {
        let mut c = Vec::new();
        add_str32_addr(&mut c, 0, 6, 0x100, None);
        assert_eq!(
            (c[0], c[0x0e], c[0x0f], c[0x10], c[0x18]),
            (0xab, 0, 0, 0x00, 6)
        );
        assert_eq!(c[0x11], 0x01);
        let mut c = Vec::new();
        add_str32_imm_addr(&mut c, 0, 0xabcd, 0x200, None);
        assert_eq!((c[0x0e], c[0x0f], c[0x11]), (1, 0, 0x02));
        assert_eq!(&c[0x1c..0x20], &[0xcd, 0xab, 0, 0]);
        let mut c = Vec::new();
        add_str32_imm_reg(&mut c, 0, 7, 12, None);
        assert_eq!((c[0x0e], c[0x0f], c[0x1c], c[0x20]), (1, 1, 7, 12));
        assert!(c[0x10..0x18].iter().all(|&b| b == 0));
    }
}
