//! ACTIVATE 0x21 and ACTIVATION_TABLE_LOAD 0x23, the scalar engine (decision D133). From the
//! profile pairs (`EXP bias_ptr=fp32@0x4810 src=... dst=... channels=128 scale=1.000000
//! imm=0.000000 accumulator_cmd=IDLE`): src TENSOR3D +0x10, dtypes +0x20 (low nibble src, high
//! nibble bias) and +0x21 (dst), channels +0x22, function +0x23, scale fp32 +0x24, bias +0x28,
//! imm fp32 +0x2C, dst TENSOR3D +0x30. From the corpus patterns (no profile holds them): +0x0C
//! selects what +0x28 is (0 a bias pointer, 1 an fp32 immediate: 1e-6, 1e-9 epsilons), +0x0D what
//! +0x24 is (0 the fp32 scale, 1 an SBUF pointer), +0x0F equals +0x0C in every slot of both
//! generations (printed only when it does not), +0x0E the accumulator command (0 = IDLE in every
//! slot). Same offsets on v2 and v3 (reference-compute-bytes).

use crate::act_func::ActFunc;
use crate::dtype::Dtype;
use crate::imm_src::{BiasSrc, ImmSrc};
use crate::layout::view;
use crate::reduce::AccCmd;

view! {
    /// An ACTIVATE slot: `dst = func(src * scale + bias)` per partition.
    Activate / ActivateMut = ACTIVATE "ACTIVATE" {
        /// +0x23 the activation function (printed bare, `EXP`).
        func: enum(ActFunc) @ 0x23, Positional;
        /// +0x28 the bias: `bias_ptr=<dtype>@0xADDR` when +0x0C is PTR, `bias=<fp32>` when IMM.
        bias: operand(0x0C, Zero, F32, true, Hi @ 0x20) @ 0x28, Always;
        /// +0x10 the source TENSOR3D with its dtype (+0x20 low nibble).
        src: tensor(3, Lo @ 0x20) @ 0x10, Always;
        /// +0x30 the destination TENSOR3D with its dtype (+0x21).
        dst: tensor(3, Byte @ 0x21) @ 0x30, Always;
        /// +0x22 active partitions.
        channels: u8 @ 0x22, Always;
        /// +0x24 the scale: `scale=<fp32>` (`1.000000`), or `scale_ptr=0xADDR` when +0x0D is PTR.
        scale: operand(0x0D, NonZero, F32, true) @ 0x24, Always;
        /// +0x2C the fp32 immediate (`imm=0.000000`).
        imm: f32 @ 0x2C, Always;
        /// +0x0E the accumulator command.
        accumulator_cmd: enum(AccCmd) @ 0x0E, Always;
        /// +0x0C what +0x28 holds.
        bias_src: enum(BiasSrc) @ 0x0C, NonZero;
        /// +0x0D what +0x24 holds.
        scale_src: enum(ImmSrc) @ 0x0D, NonZero;
        /// +0x20 low nibble: the source dtype.
        in_dtype: lo(Dtype) @ 0x20, Joined;
        /// +0x20 high nibble: the bias dtype.
        bias_dtype: hi(Dtype) @ 0x20, Joined;
        /// +0x21 the destination dtype.
        out_dtype: enum(Dtype) @ 0x21, Joined;
        /// +0x0F: equal to +0x0C in every real slot (meaning unknown, decision D133).
        bias_src_copy: u8 @ 0x0F, Mirror(0x0C);
    }
}

view! {
    /// An ACTIVATION_TABLE_LOAD slot: load one of the engine JSON's activation function sets.
    ActTableLoad / ActTableLoadMut = ACT_TABLE_LOAD "ACT_TABLE_LOAD" {
        /// +0x23 the index into `Activation.json` `activation_function_sets` (profile
        /// `table_sel=0`; 0 / 1 in attn_v6, whose engine JSON lists two sets).
        table_sel: u8 @ 0x23, Always;
    }
}
