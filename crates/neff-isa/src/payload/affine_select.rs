//! TENSOR_SCALAR_AFFINE_SELECT 0x92 (decisions D136, D600; two real slots in attn_v6, no
//! profile): channels +0x0C, dtypes +0x0D (low nibble src, high nibble dst), src / dst TENSOR2D
//! +0x24 / +0x30. The affine predicate follows BIR's `TensorScalarAffineSelect{compare_op,
//! fill_value}` and NKI `affine_select(pattern, offset, channel_multiplier, cmp_op)` (reference
//! §BIR opcodes; D600): compare op +0x0E, the register holding the fp32 fill value +0x0F, the
//! offset +0x10 (i32), the pattern's steps +0x14 and counts +0x1C (four each, innermost first,
//! as a TENSOR4D's), the channel multiplier +0x3C (i32).

use crate::dtype::Dtype;
use crate::layout::view;

view! {
    /// A TENSOR_SCALAR_AFFINE_SELECT slot.
    AffineSelect / AffineSelectMut = AFFINE_SELECT "TENSOR_SCALAR_AFFINE_SELECT" {
        /// +0x24 the source TENSOR2D with its dtype (+0x0D low nibble).
        src: tensor(2, Lo @ 0x0D) @ 0x24, Always;
        /// +0x30 the destination TENSOR2D with its dtype (+0x0D high nibble).
        dst: tensor(2, Hi @ 0x0D) @ 0x30, Always;
        /// +0x0C active partitions.
        channels: u8 @ 0x0C, Always;
        /// +0x0E the compare op of `value cmp 0` (0x03 in every real slot: not equal, D600).
        cmp_op: u8 @ 0x0E, Always;
        /// +0x0F the register whose fp32 bits are the value where the predicate is false.
        fill_reg: u8 @ 0x0F, Always;
        /// +0x10 the affine offset (an i32's bits).
        offset: hex32 @ 0x10, Always;
        /// +0x14 the pattern's four steps (i16, innermost first).
        step: u16s(4) @ 0x14, Always;
        /// +0x1C the pattern's four counts (innermost first).
        num: u16s(4) @ 0x1C, Always;
        /// +0x3C the channel multiplier (an i32's bits; -1 in both real slots).
        channel_multiplier: hex32 @ 0x3C, Always;
        /// +0x0D low nibble: the source dtype.
        in_dtype: lo(Dtype) @ 0x0D, Joined;
        /// +0x0D high nibble: the destination dtype.
        out_dtype: hi(Dtype) @ 0x0D, Joined;
    }
}
