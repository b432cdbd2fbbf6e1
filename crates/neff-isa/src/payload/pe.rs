//! LDWEIGHTS 0x01 and MATMUL 0x02, the tensor engine (decision D131). Every offset is read from
//! the profile pairs of the four shared trn2 profiles (the profiler's `src=fp32@0x369f4[-1,0,0]
//! [128,1,1]`, `fp32_mode=`, `transpose_mode=`, `acc_flags=`, `dst=`, `128*128` against the slot
//! bytes) and checked on the byte statistics of both generations (reference-compute-bytes):
//! src TENSOR3D +0x10, its dtype +0x20, fp32 mode +0x21, transpose +0x22, active rows / columns
//! +0x26 / +0x27, MATMUL acc_flags +0x2B and dst TENSOR3D +0x30 (PSUM, no dtype byte).
//!
//! Generations: +0x2C / +0x2D are 0x0F in every slot of both (the 4 x 32 row / column tiles of
//! the PE array, D131); v2 (sunda) alone also sets +0x2E (LDWEIGHTS 0x0F or 0x02, MATMUL 0x10),
//! which no evidence names: it stays a raw overlay (decision D139).

use crate::dtype::Dtype;
use crate::layout::view;
use crate::pe_mode::{Fp32Mode, TransposeMode};

view! {
    /// An LDWEIGHTS slot: load the stationary (weights) tile into the PE array.
    LdWeights / LdWeightsMut = LDWEIGHTS "LDWEIGHTS" {
        /// +0x21 the fp32 pass split (profile prints it only when non-zero).
        fp32_mode: enum(Fp32Mode) @ 0x21, NonZero;
        /// +0x22 transposing load.
        transpose_mode: enum(TransposeMode) @ 0x22, Always;
        /// +0x10 the weights TENSOR3D (SBUF), printed with its dtype (+0x20).
        src: tensor(3, Byte @ 0x20) @ 0x10, Always;
        /// +0x20 the weights dtype, printed as the `src=` prefix.
        in_dtype: enum(Dtype) @ 0x20, Joined;
        /// +0x26 / +0x27 active PE rows and columns (`128*128`).
        pe_shape: shape @ 0x26, Positional;
        /// +0x2C the active row tiles (4 bits, 0x0F = all four; printed only when not 0x0F).
        row_tiles: u8 @ 0x2C, Unless(0x0f);
        /// +0x2D the active column tiles (as `row_tiles`).
        col_tiles: u8 @ 0x2D, Unless(0x0f);
    }
}

view! {
    /// A MATMUL slot: stream the moving tile through the loaded weights into PSUM.
    Matmul / MatmulMut = MATMUL "MATMUL" {
        /// +0x2B accumulation flags (profile `acc_flags=0..3`).
        acc_flags: u8 @ 0x2B, Always;
        /// +0x21 the fp32 pass split (`LOW_HIGH` for fp32 operands).
        fp32_mode: enum(Fp32Mode) @ 0x21, NonZero;
        /// +0x22 the transpose mode of the weights in use (equal to the preceding LDWEIGHTS'
        /// +0x22 in all 1,384 real slots; the profiler does not print it).
        transpose_mode: enum(TransposeMode) @ 0x22, NonZero;
        /// +0x10 the moving TENSOR3D, printed with its dtype (+0x20).
        src: tensor(3, Byte @ 0x20) @ 0x10, Always;
        /// +0x20 the moving dtype.
        in_dtype: enum(Dtype) @ 0x20, Joined;
        /// +0x30 the PSUM destination TENSOR3D (fp32 accumulators; no dtype byte).
        dst: tensor(3) @ 0x30, Always;
        /// +0x26 / +0x27 active PE rows and columns (`128*128`).
        pe_shape: shape @ 0x26, Positional;
        /// +0x2C the active row tiles (as LDWEIGHTS).
        row_tiles: u8 @ 0x2C, Unless(0x0f);
        /// +0x2D the active column tiles (as LDWEIGHTS).
        col_tiles: u8 @ 0x2D, Unless(0x0f);
    }
}
