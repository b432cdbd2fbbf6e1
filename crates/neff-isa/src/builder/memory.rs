//! 32-bit register loads and stores (spec 001 §3: pcprid's add_ldr32_addr, pseudo_gid_load's
//! add_str32_imm_addr / add_str32_imm_reg; plus add_str32_addr).
//!
//! Spec 001 names these builders but gives no bytes. Each writes one-element `MEM_2D` access
//! (decision D156, declared once as [`crate::payload::Mem2d`]): dtype INT32, `src_datasrc`
//! REG or IMM, `num_elem` [1, 1], `start_addr` the u64 address (or, for `add_str32_imm_reg`, the
//! ADDR_REG marker with the register in the low byte), steps [0, 0] (as the runtime's own loads
//! in the profiles: `[0,0][1,1]`), and `data` word 0 the register or the immediate. Loads are
//! TENSOR_LOAD (0xaa), stores TENSOR_STORE (0xab).

use super::codes::{
    DATA_SRC_IMMEDIATE, DATA_SRC_REGISTER, DTYPE_INT32, OP_TENSOR_LOAD, OP_TENSOR_STORE,
};
use super::record::new_slot;
use super::sink::add_ins;
use crate::SlotBuf;
use crate::payload::{ADDR8_MARKER_ADDR_REG, Mem2dMut};

/// A one-element INT32 record: `{INT32, data_src, 1, 1}` at +0x0c, `start_addr`, `data`.
fn mem_record(opcode: u8, data_src: u8, addr: u64, data: u32, events: Option<u64>) -> SlotBuf {
    let mut rec = new_slot(opcode, events);
    Mem2dMut(&mut rec)
        .dtype(DTYPE_INT32)
        .datasrc(data_src)
        .num_elem0(1)
        .num_elem1(1)
        .addr(addr)
        .data(data);
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
    let rec = mem_record(
        OP_TENSOR_LOAD,
        DATA_SRC_REGISTER,
        addr,
        dst_reg.into(),
        events,
    );
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
    let rec = mem_record(
        OP_TENSOR_STORE,
        DATA_SRC_REGISTER,
        addr,
        src_reg.into(),
        events,
    );
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
    let rec = mem_record(OP_TENSOR_STORE, DATA_SRC_IMMEDIATE, addr, imm32, events);
    add_ins(chunk, offset, &rec.0)
}

/// `add_str32_imm_reg`: `*(u32 *)(reg) = imm32` (pseudo_gid_load, register-addressed memory
/// destination): `start_addr` is the ADDR_REG marker with the register in its low byte.
pub fn add_str32_imm_reg(
    chunk: &mut Vec<u8>,
    offset: usize,
    imm32: u32,
    addr_reg: u8,
    events: Option<u64>,
) -> usize {
    let addr = ADDR8_MARKER_ADDR_REG | u64::from(addr_reg);
    let rec = mem_record(OP_TENSOR_STORE, DATA_SRC_IMMEDIATE, addr, imm32, events);
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
        assert_eq!(&c[0x0c..0x10], &[8, 0, 1, 1]);
        assert_eq!(&c[0x10..0x18], &0x0000_0010_2000_0040u64.to_le_bytes());
        assert!(c[0x18..0x20].iter().all(|&b| b == 0));
        assert_eq!(c[0x20], 5);
    }

    #[test]
    fn str32_forms_bytes() {
        let mut c = Vec::new();
        add_str32_addr(&mut c, 0, 6, 0x100, None);
        assert_eq!((c[0], c[0x0d], c[0x11], c[0x20]), (0xab, 0, 0x01, 6));
        let mut c = Vec::new();
        add_str32_imm_addr(&mut c, 0, 0xabcd, 0x200, None);
        assert_eq!((c[0x0d], c[0x11]), (1, 0x02));
        assert_eq!(&c[0x20..0x24], &[0xcd, 0xab, 0, 0]);
        let mut c = Vec::new();
        add_str32_imm_reg(&mut c, 0, 7, 12, None);
        assert_eq!((c[0x0d], c[0x10], c[0x17], c[0x20]), (1, 12, 0x80, 7));
    }
}
