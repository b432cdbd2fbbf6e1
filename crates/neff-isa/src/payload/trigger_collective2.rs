//! PSEUDO_TRIGGER_COLLECTIVE2 0xD9 (PTC2): the operands `instr_col_translate_ptc2_full` reads
//! (spec 001 §3; slot layout decision D55). The disassembler decodes 0xD9 generically (decision
//! D11: the spec pages do not pin its fields for printing); this view is the lowering's reader, so
//! each offset is declared here once (decision D421).

use crate::layout::view;

view! {
    /// A PSEUDO_TRIGGER_COLLECTIVE2 slot (decision D55).
    TriggerCollective2 / TriggerCollective2Mut = TRIGGER_COLLECTIVE2 "PSEUDO_TRIGGER_COLLECTIVE2" {
        /// +0x0C reduce op (an [`crate::AluOp`] byte).
        op: u8 @ 0x0C, Always;
        /// +0x0D dtype (a [`crate::Dtype`] byte).
        dtype: u8 @ 0x0D, Always;
        /// +0x0E `group_id` u16.
        group_id: u16 @ 0x0E, Always;
        /// +0x10 src0, an ADDR8 operand (see [`Ptc2Operand`]).
        src0: u64 @ 0x10, Always;
        /// +0x18 src1, an ADDR8 operand.
        src1: u64 @ 0x18, Always;
        /// +0x20 dst, an ADDR8 operand.
        dst: u64 @ 0x20, Always;
        /// +0x28 `num_elements` u64.
        num_elements: u64 @ 0x28, Always;
        /// +0x30 collective class (the op-class numbers of decision D6).
        ctype: u8 @ 0x30, Always;
        /// +0x31 INSTR_CHAINING.
        chaining: u8 @ 0x31, NonZero;
    }
}

/// One PTC2 ADDR8 operand split as spec 001 §3 reads it: the low u32 (the byte offset), the u16
/// at +4 (the var id) and the marker byte at +7 (`(x & 0xFC) == 0x10` for a VAR_ID start address).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ptc2Operand(pub u64);

impl Ptc2Operand {
    /// Bytes +0..+4: the offset.
    pub const fn offset(self) -> u32 {
        self.0 as u32
    }

    /// Bytes +4..+6: the var id.
    pub const fn var_id(self) -> u16 {
        (self.0 >> 32) as u16
    }

    /// Byte +7: the operand marker.
    pub const fn marker(self) -> u8 {
        (self.0 >> 56) as u8
    }

    /// Whether the marker says VAR_ID (spec 001 §3: `(x & 0xFC) == 0x10`).
    pub const fn is_var_id(self) -> bool {
        self.marker() & 0xFC == 0x10
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slot::Slot;

    /// An operand's var id at +4 and marker at +7 (decision D55), read from the slot's bytes.
    #[test]
    fn operand_splits_at_d55_offsets() {
        let mut b = [0u8; 64];
        b[0] = 0xD9;
        b[0x20..0x28].copy_from_slice(&[0x40, 0, 0, 0, 0x34, 0x12, 0, 0x11]);
        b[0x31] = 2;
        let v = TriggerCollective2(Slot::new(&b));
        let dst = Ptc2Operand(v.dst());
        assert_eq!(
            (dst.offset(), dst.var_id(), dst.marker()),
            (0x40, 0x1234, 0x11)
        );
        assert!(dst.is_var_id());
        assert!(!Ptc2Operand(v.src0()).is_var_id());
        assert_eq!(v.chaining(), 2);
    }
}
