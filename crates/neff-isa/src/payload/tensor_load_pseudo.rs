//! PSEUDO_TENSOR_LOAD 0xCE / PSEUDO_TENSOR_STORE 0xCD: S5's `PSEUDO_MEM_2D_STRUCT`, the
//! compiler's form of TENSOR_LOAD / TENSOR_STORE ([`super::Mem2d`]) with a variable in place of
//! the address: `var_id` u32 +0x10 and `var_offset` u32 +0x14 where MEM_2D has `start_addr`;
//! every other byte is MEM_2D's (decision D157). The 144 real 0xCE slots (moe_v6b Pool) fit it:
//! dtype 9 (u32), register source, one element, var 0 (`SB`) at offset 0x17300 + 4k (the i32
//! array a DVE MEMSET fills at that SBUF address), steps [1, 8], register 60 / 61 in data[0]
//! (the registers the ALU_OPs after each load read). No real 0xCD exists to check; S5 binds both
//! opcodes to the one struct.

use crate::alu_op::DataSrc;
use crate::dtype::Dtype;
use crate::layout::view;

view! {
    /// A PSEUDO_TENSOR_LOAD / PSEUDO_TENSOR_STORE slot (`PSEUDO_MEM_2D`).
    TensorLoadPseudo / TensorLoadPseudoMut = TENSOR_LOAD_PSEUDO "PSEUDO_MEM_2D" {
        /// +0x0C the element dtype.
        dtype: enum(Dtype) @ 0x0C, Always;
        /// +0x0D `src_datasrc`: REG (the registers of `data`) or IMM (a store's immediates).
        datasrc: enum(DataSrc) @ 0x0D, Always;
        /// +0x0E `num_elem[0]`.
        num_elem0: u8 @ 0x0E, Always;
        /// +0x0F `num_elem[1]`.
        num_elem1: u8 @ 0x0F, Always;
        /// +0x10 the variable (kbin mem ref / def.json `var_id`).
        var_id: u32 @ 0x10, Always;
        /// +0x14 the byte offset in the variable.
        var_offset: hex32 @ 0x14, Always;
        /// +0x18 `step_elem[2]`, int32 strides in elements.
        step_elem: u32s(2) @ 0x18, NonZero;
        /// +0x20 `data` word 0 (the register of a one-element access in its low byte).
        data: u32 @ 0x20, NonZero;
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::slot::Slot;

    /// moe_v6b sg00/Pool.bin slot 11, verbatim.
    pub(crate) const MOE_POOL_SLOT11: [u8; 64] = {
        let mut b = [0u8; 64];
        b[0] = 0xce;
        b[1] = 0x10;
        b[0x0c] = 9;
        b[0x0e] = 1;
        b[0x0f] = 1;
        b[0x15] = 0x73;
        b[0x16] = 0x01;
        b[0x18] = 1;
        b[0x1c] = 8;
        b[0x20] = 0x3d;
        b
    };

    #[test]
    fn moe_tensor_load_names_sb_and_register_61() {
        let p = TensorLoadPseudo::new(Slot::new(&MOE_POOL_SLOT11)).expect("0xCE");
        assert_eq!(
            (p.dtype(), p.datasrc()),
            (Ok(Dtype::Uint32), Ok(DataSrc::Register))
        );
        assert_eq!((p.var_id(), p.var_offset()), (0, 0x17300));
        assert_eq!(
            (p.num_elem0(), p.num_elem1(), p.step_elem()),
            (1, 1, [1, 8])
        );
        assert_eq!(p.data(), 61);
    }
}
