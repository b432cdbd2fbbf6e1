//! CTRL_AL (opcode word 0x10a8): the scalar ALU family (spec 001 §2).
//!
//! Record: +0x0c descriptor {ALU_OP, DTYPE, DATA_SRC of src1}, +0x10 src0_lo, +0x14 dst_lo,
//! +0x18 immediate (8-byte ALU_IMMEDIATE field) or, for DATA_SRC REGISTER, src1 register
//! (decision D52: the register operand takes the immediate's place). The offsets are declared
//! once, by the `ALU_OP` payload view (crate::payload::AluOpInst), whose writer places them.

use super::codes::{
    ALU_ADD, ALU_BITWISE_AND, ALU_BITWISE_OR, ALU_BITWISE_XOR, ALU_BYPASS, ALU_LOGICAL_SHIFT_LEFT,
    ALU_LOGICAL_SHIFT_RIGHT, ALU_SUBTRACT, DATA_SRC_IMMEDIATE, DATA_SRC_REGISTER, DTYPE_INT32,
    DTYPE_UINT32, OP_ALU,
};
use super::record::new_slot;
use super::sink::add_ins;
use crate::payload::AluOpMut;

/// The second ALU operand: an immediate or a register (DATA_SRC, spec 001 §2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AluSrc1 {
    /// DATA_SRC IMMEDIATE (1): the 32-bit immediate at +0x18.
    Imm(u32),
    /// DATA_SRC REGISTER (0): the register number at +0x18.
    Reg(u8),
}

/// The generic CTRL_AL builder: `dst = src0 <op> src1` in `dtype`.
#[allow(clippy::too_many_arguments)] // the runtime's ABI plus the descriptor
pub fn add_alu(
    chunk: &mut Vec<u8>,
    offset: usize,
    op: u8,
    dtype: u8,
    dst_reg: u8,
    src0_reg: u8,
    src1: AluSrc1,
    events: Option<u64>,
) -> usize {
    let mut rec = new_slot(OP_ALU, events);
    let (mode, value) = match src1 {
        AluSrc1::Imm(v) => (DATA_SRC_IMMEDIATE, u64::from(v)),
        AluSrc1::Reg(r) => (DATA_SRC_REGISTER, u64::from(r)),
    };
    AluOpMut(&mut rec)
        .op(op)
        .dtype(dtype)
        .src1(mode)
        .src0(src0_reg)
        .dst(dst_reg)
        .imm(value);
    add_ins(chunk, offset, &rec.0)
}

/// Declares the named two-register-operand ALU builders of spec 001 §2 from one table: each row
/// is `name(src1 parameter: its type => AluSrc1 arm) = ALU op, dtype`, with the row's doc comment.
macro_rules! alu_builders {
    ($($(#[$doc:meta])* $name:ident($src1:ident: $ty:ty => $arm:ident) = $op:expr, $dtype:expr;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(
                chunk: &mut Vec<u8>,
                offset: usize,
                dst_reg: u8,
                src0_reg: u8,
                $src1: $ty,
                events: Option<u64>,
            ) -> usize {
                add_alu(chunk, offset, $op, $dtype, dst_reg, src0_reg, AluSrc1::$arm($src1), events)
            }
        )*
    };
}

alu_builders! {
    /// `add_add32_imm` (@0x272090, spec 001 §2): `dst = src0 + imm32`, descriptor 0x10804.
    add_add32_imm(imm32: u32 => Imm) = ALU_ADD, DTYPE_INT32;
    /// `add_add32_reg`: `dst = src0 + src1` (register form, descriptor 0x00804).
    add_add32_reg(src1_reg: u8 => Reg) = ALU_ADD, DTYPE_INT32;
    /// `add_sub32_imm`: `dst = src0 - imm32` (SUBTRACT 5, INT32).
    add_sub32_imm(imm32: u32 => Imm) = ALU_SUBTRACT, DTYPE_INT32;
    /// `add_bit_and_imm`: `dst = src0 & imm32` (BITWISE_AND, UINT32: "a logical op is unsigned",
    /// spec 001 §2).
    add_bit_and_imm(imm32: u32 => Imm) = ALU_BITWISE_AND, DTYPE_UINT32;
    /// `add_bit_or_imm`: `dst = src0 | imm32` (BITWISE_OR, UINT32; spec 001 §2).
    add_bit_or_imm(imm32: u32 => Imm) = ALU_BITWISE_OR, DTYPE_UINT32;
    /// `add_bit_xor_imm`: `dst = src0 ^ imm32` (BITWISE_XOR, UINT32).
    add_bit_xor_imm(imm32: u32 => Imm) = ALU_BITWISE_XOR, DTYPE_UINT32;
    /// `add_shl32_imm`: `dst = src0 << imm32` (LOGICAL_SHIFT_LEFT, UINT32).
    add_shl32_imm(imm32: u32 => Imm) = ALU_LOGICAL_SHIFT_LEFT, DTYPE_UINT32;
    /// `add_shr32_imm`: `dst = src0 >> imm32` (LOGICAL_SHIFT_RIGHT, UINT32).
    add_shr32_imm(imm32: u32 => Imm) = ALU_LOGICAL_SHIFT_RIGHT, DTYPE_UINT32;
}

/// `add_mov32_imm`: `dst = imm32` (BYPASS with immediate src1, INT32; the register-destination
/// arm of pseudo_gid_load, spec 001 §3).
pub fn add_mov32_imm(
    chunk: &mut Vec<u8>,
    offset: usize,
    dst_reg: u8,
    imm32: u32,
    events: Option<u64>,
) -> usize {
    add_alu(
        chunk,
        offset,
        ALU_BYPASS,
        DTYPE_INT32,
        dst_reg,
        0,
        AluSrc1::Imm(imm32),
        events,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn add32_imm_matches_spec_layout() {
        let mut c = Vec::new();
        let end = add_add32_imm(&mut c, 0, 3, 7, 0x1234_5678, Some(0x0102_0304_0506_0708));
        assert_eq!(end, 64);
        assert_eq!(&c[0..2], &[0xa8, 0x10]);
        assert_eq!(&c[4..12], &0x0102_0304_0506_0708u64.to_le_bytes());
        assert_eq!(u32_at(&c, 0x0c), 0x10804);
        assert_eq!((c[0x10], c[0x14]), (7, 3));
        assert_eq!(&c[0x18..0x20], &[0x78, 0x56, 0x34, 0x12, 0, 0, 0, 0]);
        assert!(c[0x20..].iter().all(|&b| b == 0));
    }

    type ImmBuilder = fn(&mut Vec<u8>, usize, u8, u8, u32, Option<u64>) -> usize;

    #[test]
    fn alu_family_descriptors() {
        let cases: [(ImmBuilder, u32); 6] = [
            (add_sub32_imm, 0x10805),
            (add_bit_and_imm, 0x1090a),
            (add_bit_or_imm, 0x1090b),
            (add_bit_xor_imm, 0x1090c),
            (add_shl32_imm, 0x10910),
            (add_shr32_imm, 0x10911),
        ];
        for (f, desc) in cases {
            let mut c = Vec::new();
            f(&mut c, 0, 2, 1, 9, None);
            assert_eq!(u32_at(&c, 0x0c), desc);
            assert_eq!((c[0x10], c[0x14], c[0x18]), (1, 2, 9));
        }
        let mut c = Vec::new();
        add_add32_reg(&mut c, 0, 2, 1, 5, None);
        assert_eq!(u32_at(&c, 0x0c), 0x00804);
        assert_eq!(c[0x18], 5);
        let mut c = Vec::new();
        add_mov32_imm(&mut c, 0, 4, 77, None);
        assert_eq!(u32_at(&c, 0x0c), 0x10800);
        assert_eq!((c[0x10], c[0x14], u32_at(&c, 0x18)), (0, 4, 77));
    }
}
