//! TENSOR_SCALAR_AFFINE_SELECT 0x92 (decision D136, two real slots in attn_v6, no profile): the
//! parts whose shape is plain: channels +0x0C, dtypes +0x0D (low nibble src, high nibble dst),
//! src / dst TENSOR2D +0x24 / +0x30 and the fill value +0x3C (0xffffffff). The affine predicate
//! (+0x0E, +0x0F and the 20 bytes at +0x10) is not decoded: it stays a raw overlay.

use crate::dtype::Dtype;
use crate::layout::view;

view! {
    /// A TENSOR_SCALAR_AFFINE_SELECT slot (partly typed).
    AffineSelect / AffineSelectMut = AFFINE_SELECT "TENSOR_SCALAR_AFFINE_SELECT" {
        /// +0x24 the source TENSOR2D with its dtype (+0x0D low nibble).
        src: tensor(2, Lo @ 0x0D) @ 0x24, Always;
        /// +0x30 the destination TENSOR2D with its dtype (+0x0D high nibble).
        dst: tensor(2, Hi @ 0x0D) @ 0x30, Always;
        /// +0x0C active partitions.
        channels: u8 @ 0x0C, Always;
        /// +0x3C the fill value's bits.
        fill: hex32 @ 0x3C, Always;
        /// +0x0D low nibble: the source dtype.
        in_dtype: lo(Dtype) @ 0x0D, Joined;
        /// +0x0D high nibble: the destination dtype.
        out_dtype: hi(Dtype) @ 0x0D, Joined;
    }
}
