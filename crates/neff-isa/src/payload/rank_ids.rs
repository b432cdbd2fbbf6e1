//! PSEUDO_CUR_PROCESSING_RANK_ID 0xDB and PSEUDO_GID_LOAD 0xDC: the operands spec 001 §3's
//! `instr_col_translate_pcprid` and `instr_col_translate_pseudo_gid_load` read (slot layouts
//! decision D55). The disassembler decodes both generically (their payload is printed as raw
//! overlays, decision D11); these views are the lowering's readers, so each offset is declared
//! here once (decision D421).

use crate::layout::view;

view! {
    /// A PSEUDO_CUR_PROCESSING_RANK_ID slot (decision D55): load the current rank id.
    CurProcessingRankId / CurProcessingRankIdMut = CUR_PROCESSING_RANK_ID "PSEUDO_CUR_PROCESSING_RANK_ID" {
        /// +0x0C the destination register.
        dst_reg: u8 @ 0x0C, Always;
        /// +0x0D the load size in bytes (spec 001 §3 supports 4 only).
        load_size: u8 @ 0x0D, Always;
    }
}

view! {
    /// A PSEUDO_GID_LOAD slot (decision D55): store the global device id.
    GidLoad / GidLoadMut = GID_LOAD "PSEUDO_GID_LOAD" {
        /// +0x0C the destination kind: 0 a register, 1 an immediate address, 2 an address held
        /// in a register (spec 001 §3).
        dst_kind: u8 @ 0x0C, Always;
        /// +0x10 the destination: the register number in its low byte (kinds 0 and 2) or the
        /// 64-bit address (kind 1).
        dst: u64 @ 0x10, Always;
    }
}

impl GidLoad<'_> {
    /// The register of destination kinds 0 and 2: the low byte of [`GidLoad::dst`].
    #[inline]
    pub fn dst_reg(&self) -> u8 {
        self.dst() as u8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opcode::Opcode;
    use crate::slot::{Slot, SlotBuf};

    /// The writers place what the views read, at D55's offsets.
    #[test]
    fn rank_id_and_gid_load_round_trip_at_d55_offsets() {
        let mut b = SlotBuf::new(Opcode::PSEUDO_CUR_PROCESSING_RANK_ID);
        CurProcessingRankIdMut(&mut b).dst_reg(9).load_size(4);
        assert_eq!((b.0[0x0C], b.0[0x0D]), (9, 4));
        let v = CurProcessingRankId(Slot::new(&b.0));
        assert_eq!((v.dst_reg(), v.load_size()), (9, 4));
        let mut b = SlotBuf::new(Opcode::PSEUDO_GID_LOAD);
        GidLoadMut(&mut b).dst_kind(1).dst(0x0102_0304_0506_0708);
        assert_eq!((b.0[0x0C], b.0[0x10], b.0[0x17]), (1, 0x08, 0x01));
        let v = GidLoad(Slot::new(&b.0));
        assert_eq!(
            (v.dst_kind(), v.dst(), v.dst_reg()),
            (1, 0x0102_0304_0506_0708, 0x08)
        );
    }
}
