//! TENSOR_SCALAR_ARITH_OP 0x43 and its BITVEC twin 0x53 (decision D135). From the profile pairs
//! (`ops=MULTIPLY,BYPASS imm=0x6840,0 imm_src=PTR,INSTRUCTION src=... dst=... channels=128`):
//! src TENSOR3D +0x10, dtypes +0x20 / +0x21, channels +0x22, imm0 source +0x23, ops +0x24 /
//! +0x25, imm0 +0x28, imm1 +0x2C, dst TENSOR3D +0x30. imm1's source at +0x27 is the issue's
//! reading by symmetry: it is 0 (INSTRUCTION) in every real slot, as the profile prints it.

use crate::alu_op::AluOp;
use crate::dtype::Dtype;
use crate::imm_src::ImmSrc;
use crate::layout::view;

view! {
    /// A TENSOR_SCALAR slot: `dst = (src op0 imm0) op1 imm1`.
    TensorScalar / TensorScalarMut = TENSOR_SCALAR "TENSOR_SCALAR" {
        /// +0x24 the first operation.
        op0: enum(AluOp) @ 0x24 as "ops", Always;
        /// +0x25 the second operation.
        op1: enum(AluOp) @ 0x25 as "ops", Always;
        /// +0x28 the first immediate: an address (hex) when its source is a pointer.
        imm0: operand(0x23, NonZero, U32, false) @ 0x28 as "imm", Always;
        /// +0x2C the second immediate.
        imm1: operand(0x27, NonZero, U32, false) @ 0x2C as "imm", Always;
        /// +0x23 where imm0 comes from.
        imm0_src: enum(ImmSrc) @ 0x23 as "imm_src", Always;
        /// +0x27 where imm1 comes from.
        imm1_src: enum(ImmSrc) @ 0x27 as "imm_src", Always;
        /// +0x10 the source TENSOR3D with its dtype (+0x20).
        src: tensor(3, Byte @ 0x20) @ 0x10, Always;
        /// +0x30 the destination TENSOR3D with its dtype (+0x21).
        dst: tensor(3, Byte @ 0x21) @ 0x30, Always;
        /// +0x22 active partitions.
        channels: u8 @ 0x22, Always;
        /// +0x20 the source dtype.
        in_dtype: enum(Dtype) @ 0x20, Joined;
        /// +0x21 the destination dtype.
        out_dtype: enum(Dtype) @ 0x21, Joined;
    }
}
