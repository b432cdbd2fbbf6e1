//! TENSOR_REDUCE_ARITH_OP 0x42 and its BITVEC twin 0x52 (`S4D4_TSM`-shaped, decision D134): src
//! TENSOR4D +0x0C, dtypes +0x20 / +0x21, channels +0x22, negated +0x23, op +0x24, dim +0x25, dst
//! TENSOR4D +0x2C. Every field read from the profile pairs (`op=MAX dim=X negated=1 src=...
//! dst=... channels=128`); the same offsets carry the same value sets on v2 (reference-compute-
//! bytes: op 0x08 / 0x04, dim 2 / 3).

use crate::alu_op::AluOp;
use crate::dtype::Dtype;
use crate::layout::view;
use crate::reduce::ReduceDim;

view! {
    /// A TENSOR_REDUCE slot: reduce `src` along `dim` with `op` into `dst`.
    TensorReduce / TensorReduceMut = TENSOR_REDUCE "TENSOR_REDUCE" {
        /// +0x24 the reduce operation.
        op: enum(AluOp) @ 0x24, Always;
        /// +0x25 the reduce axis.
        dim: enum(ReduceDim) @ 0x25, Always;
        /// +0x23 negate the result (profile `negated=1`).
        negated: u8 @ 0x23, NonZero;
        /// +0x0C the source TENSOR4D with its dtype (+0x20).
        src: tensor(4, Byte @ 0x20) @ 0x0C, Always;
        /// +0x2C the destination TENSOR4D with its dtype (+0x21).
        dst: tensor(4, Byte @ 0x21) @ 0x2C, Always;
        /// +0x22 active partitions.
        channels: u8 @ 0x22, Always;
        /// +0x20 the source dtype.
        in_dtype: enum(Dtype) @ 0x20, Joined;
        /// +0x21 the destination dtype.
        out_dtype: enum(Dtype) @ 0x21, Joined;
    }
}
