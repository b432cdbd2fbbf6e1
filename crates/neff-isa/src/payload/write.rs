//! WRITE 0xA5 (CTRL_WR): the 32-bit register write of `add_wr32` (spec 001 §3 doorbell, spec 003 §4
//! "replaced by Write"). Spec 001 gives no bytes; the layout is decision D52, shaped like CTRL_AL:
//! +0x0D dtype, +0x0E data source, +0x10 register address u64, +0x18 the 32-bit value.

use crate::alu_op::DataSrc;
use crate::dtype::Dtype;
use crate::layout::view;

view! {
    /// A WRITE (CTRL_WR) slot: a 32-bit register write (decision D52).
    RegWrite / RegWriteMut = WRITE "CTRL_WR" {
        /// +0x0D the written dtype (`add_wr32`: UINT32 = 9).
        dtype: enum(Dtype) @ 0x0D, Always;
        /// +0x0E the value's source (`add_wr32`: IMM = 1).
        src: enum(DataSrc) @ 0x0E, Always;
        /// +0x10 the device address written (u64).
        addr: hex64 @ 0x10, Always;
        /// +0x18 the 32-bit value.
        value: u32 @ 0x18, Always;
    }
}
