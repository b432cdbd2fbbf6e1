//! ALU_OP 0xA8 (CTRL_AL, spec 001 §2): descriptor `{ALU_OP, DTYPE, DATA_SRC}` at +0x0C, `src0`
//! register at +0x10, `dst` register at +0x14, 8-byte immediate at +0x18.

use crate::alu_op::{AluOp, DataSrc};
use crate::dtype::Dtype;
use crate::layout::view;

view! {
    /// An ALU_OP (CTRL_AL) slot (spec 001 §2).
    AluOpInst / AluOpMut = ALU_OP "CTRL_AL" {
        /// +0x0C the operation (ADD = 4).
        op: enum(AluOp) @ 0x0C, Always;
        /// +0x0D the dtype (INT32 = 8, UINT32 = 9).
        dtype: enum(Dtype) @ 0x0D, Always;
        /// +0x0E source 1 selector (IMM = 1, REG = 0).
        src1: enum(DataSrc) @ 0x0E, Always;
        /// +0x14 destination register (`dst_lo`).
        dst: u8 @ 0x14, Always;
        /// +0x10 source 0 register (`src0_lo`).
        src0: u8 @ 0x10, Always;
        /// +0x18 the immediate (`ALU_IMMEDIATE`, 8 bytes).
        imm: u64 @ 0x18, Always;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slot::Slot;

    /// spec 001 §2 `add_add32_imm`: 0x10804 at +0x0C = {ADD 4, INT32 8, IMM 1}.
    #[test]
    fn add32_imm_descriptor() {
        let mut b = [0u8; 64];
        b[..2].copy_from_slice(&[0xa8, 0x10]);
        b[0x0C..0x10].copy_from_slice(&0x10804u32.to_le_bytes());
        b[0x10] = 2;
        b[0x14] = 3;
        b[0x18] = 40;
        let a = AluOpInst::new(Slot::new(&b)).expect("0xA8");
        assert_eq!(
            (a.op(), a.dtype(), a.src1()),
            (Ok(AluOp::Add), Ok(Dtype::Int32), Ok(DataSrc::Immediate))
        );
        assert_eq!((a.src0(), a.dst(), a.imm()), (2, 3, 40));
    }
}
