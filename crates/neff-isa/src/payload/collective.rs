//! PSEUDO_TRIGGER_COLLECTIVE 0xC8 (spec 003 §6). Fields are listed in the order spec 003 §7.1's
//! pe.asm prints them: `ctype input_tensor_id output_tensor_id num_elements dtype op group_id`.

use crate::alu_op::AluOp;
use crate::collective_type::CollectiveType;
use crate::dtype::Dtype;
use crate::layout::view;

view! {
    /// A PSEUDO_TRIGGER_COLLECTIVE slot (spec 003 §6).
    TriggerCollective / TriggerCollectiveMut = TRIGGER_COLLECTIVE "PSEUDO_TRIGGER_COLLECTIVE" {
        /// +0x20 `ctype` (ALL_REDUCE = 0x01).
        ctype: enum(CollectiveType) @ 0x20, Always;
        /// +0x10 `input_tensor_id`.
        input_tensor_id: u32 @ 0x10, Always;
        /// +0x14 `output_tensor_id`.
        output_tensor_id: u32 @ 0x14, Always;
        /// +0x18 `num_elements` u64.
        num_elements: u64 @ 0x18, Always;
        /// +0x0D `dtype` (FP32 = 0x0A).
        dtype: enum(Dtype) @ 0x0D, Always;
        /// +0x0C reduce `op` (ADD = 0x04).
        op: enum(AluOp) @ 0x0C, Always;
        /// +0x0E `group_id` u16: the replica group.
        group_id: u16 @ 0x0E, Always;
        /// +0x30 `src_offset_elems` u64.
        src_offset_elems: u64 @ 0x30, NonZero;
        /// +0x38 `dst_offset_elems` u64.
        dst_offset_elems: u64 @ 0x38, NonZero;
    }
}

impl TriggerCollective<'_> {
    /// +0x21 INSTR_CHAINING (reserved1's first byte, decision D55), read by the lowering of 0xC8
    /// and 0xCB. Not in the field list: the disassembly keeps printing a non-zero byte there as its
    /// raw overlay `@0x21=..` (decision D421).
    #[inline]
    pub fn chaining(&self) -> u8 {
        self.0.u8_at(0x21)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slot::Slot;

    /// spec 003 §7.1 pe.bin, byte for byte.
    #[test]
    fn sample_pe_slot_decodes() {
        let mut b = [0u8; 64];
        b[..16].copy_from_slice(&[
            0xc8, 0x10, 0, 0, 4, 0x0a, 0x13, 0x16, 0, 0, 0, 0, 4, 0x0a, 0, 0,
        ]);
        b[0x10] = 3;
        b[0x14] = 4;
        b[0x18] = 0x20;
        b[0x20] = 1;
        let c = TriggerCollective::new(Slot::new(&b)).expect("0xC8");
        assert_eq!(c.ctype(), Ok(CollectiveType::AllReduce));
        assert_eq!(c.op(), Ok(AluOp::Add));
        assert_eq!(c.dtype(), Ok(Dtype::Float32));
        assert_eq!(
            (c.input_tensor_id(), c.output_tensor_id(), c.num_elements()),
            (3, 4, 32)
        );
        assert_eq!(c.group_id(), 0);
    }
}
