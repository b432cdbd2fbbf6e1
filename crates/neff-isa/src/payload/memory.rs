//! TENSOR_LOAD 0xAA / TENSOR_STORE 0xAB as the 32-bit register loads and stores of
//! `add_ldr32_addr` / `add_str32_*` (spec 001 §3 pcprid and pseudo_gid_load). Spec 001 names
//! these builders without bytes; the layout is decision D52, shaped like CTRL_AL: +0x0D dtype,
//! +0x0E data source, +0x0F address mode, +0x10 address u64, +0x18 data register, +0x1C data
//! immediate u32, +0x20 address register. Each form uses a subset, so the operands print only
//! when non-zero.

use crate::alu_op::DataSrc;
use crate::dtype::Dtype;
use crate::field_enum::field_enum;
use crate::layout::view;

field_enum! {
    /// Where a 32-bit load/store finds its address (+0x0F, decision D52).
    AddrMode / ADDR_MODE {
        /// The address is the immediate at +0x10.
        Immediate = 0 => "IMM",
        /// The address is in the register at +0x20.
        Register = 1 => "REG",
    }
}

view! {
    /// A 32-bit register load/store slot (TENSOR_LOAD / TENSOR_STORE, decision D52).
    MemAccess / MemAccessMut = MEM_ACCESS "CTRL_LDST32" {
        /// +0x0D the access dtype (INT32 = 8).
        dtype: enum(Dtype) @ 0x0D, Always;
        /// +0x0E the data source: REG = the register at +0x18, IMM = the immediate at +0x1C.
        src: enum(DataSrc) @ 0x0E, Always;
        /// +0x0F the address mode.
        addr_mode: enum(AddrMode) @ 0x0F, Always;
        /// +0x10 the immediate address.
        addr: hex64 @ 0x10, NonZero;
        /// +0x18 the data register (loaded into, or stored from).
        reg: u8 @ 0x18, NonZero;
        /// +0x1C the stored immediate.
        imm: u32 @ 0x1C, NonZero;
        /// +0x20 the address register.
        addr_reg: u8 @ 0x20, NonZero;
    }
}
