//! MOVE 0xA7 (decision D136, one real slot in attn_v6, no profile): the register-immediate move,
//! shaped like the other register ops (D52): dtype +0x0D, data source +0x0E (IMM = 1), the
//! destination register +0x18 and the 32-bit immediate +0x20 (0x3f800000, fp32 1.0, into register
//! 61, which the ALU_OPs that follow read). +0x0C (1) is not decoded.

use crate::alu_op::DataSrc;
use crate::dtype::Dtype;
use crate::layout::view;

view! {
    /// A MOVE slot (register move, partly typed).
    MoveReg / MoveRegMut = MOVE "MOVE" {
        /// +0x0D the dtype.
        dtype: enum(Dtype) @ 0x0D, Always;
        /// +0x0E the data source.
        src: enum(DataSrc) @ 0x0E, Always;
        /// +0x18 the destination register.
        reg: u8 @ 0x18, Always;
        /// +0x20 the immediate's bits.
        imm: hex32 @ 0x20, Always;
    }
}
