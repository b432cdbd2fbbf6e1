//! MEMSET 0x49 (decision D136; no profile holds one: read from the corpus). dst TENSOR4D +0x2C
//! (steps 1 and counts that tile the set region in every real slot), its dtype +0x20, channels
//! +0x22, the value +0x28 (raw bits of the dtype: -1e9 as fp32 0xce6e6b28, bf16 1.0 0x3f80 in
//! attn_v6), and +0x1C, equal to the dst's first count in every slot of both generations
//! (reference-compute-bytes: +0x1C/+0x1D mirror +0x38/+0x39).

use crate::dtype::Dtype;
use crate::layout::view;

view! {
    /// A MEMSET slot: fill `dst` with `value`.
    Memset / MemsetMut = MEMSET "MEMSET" {
        /// +0x28 the value's bits (in the dtype of +0x20).
        value: hex32 @ 0x28, Always;
        /// +0x2C the destination TENSOR4D with its dtype (+0x20).
        dst: tensor(4, Byte @ 0x20) @ 0x2C, Always;
        /// +0x22 active partitions.
        channels: u8 @ 0x22, Always;
        /// +0x1C the element count per partition (= dst's first count).
        num_elem: u32 @ 0x1C, Always;
        /// +0x20 the dtype.
        dtype: enum(Dtype) @ 0x20, Joined;
    }
}
