//! COMPARE_BRANCH 0xA9 (CTRL_BR, spec 001 §2): descriptor `{BR_CMP_OP, DTYPE, BR_TARGET_MODE}` at
//! +0x0C, `cmp_immediate` u32 at +0x10, `cmp_reg0` at +0x20, `br_immediate` u64 at +0x30; and
//! BRANCH_PREFETCH_HINT 0xB5, built by the same family (`add_br_hint_rel_imm`, spec 001 §2), whose
//! only pinned field is the relative offset at +0x30 (decision D9); the CTRL_BR descriptor bytes
//! the builder also stamps (+0x0C..+0x0E, decision D52) print when non-zero.

use crate::branch::{BrCmpOp, BrTargetMode};
use crate::dtype::Dtype;
use crate::layout::view;

view! {
    /// A COMPARE_BRANCH (CTRL_BR) slot (spec 001 §2).
    CompareBranch / CompareBranchMut = COMPARE_BRANCH "CTRL_BR" {
        /// +0x0C compare op.
        cmp_op: enum(BrCmpOp) @ 0x0C, Always;
        /// +0x0D compared dtype (INT32 = 8).
        dtype: enum(Dtype) @ 0x0D, Always;
        /// +0x0E target mode (REL_IMM = 3).
        target_mode: enum(BrTargetMode) @ 0x0E, Always;
        /// +0x20 `cmp_reg0`.
        cmp_reg: u8 @ 0x20, Always;
        /// +0x10 `cmp_immediate` u32.
        cmp_imm: u32 @ 0x10, Always;
        /// +0x30 `br_immediate` u64 (a rel32 zero-extended by `add_cmp_imm_br_rel`).
        br_imm: u64 @ 0x30, Always;
    }
}

view! {
    /// A BRANCH_PREFETCH_HINT slot (spec 001 §2 `add_br_hint_rel_imm`; decision D9).
    BranchHint / BranchHintMut = BRANCH_HINT "CTRL_BR (prefetch hint)" {
        /// +0x0C compare op (`add_br_hint_rel_imm`: ALWAYS, decision D52).
        cmp_op: enum(BrCmpOp) @ 0x0C, NonZero;
        /// +0x0D dtype (`add_br_hint_rel_imm`: INT32, decision D52).
        dtype: enum(Dtype) @ 0x0D, NonZero;
        /// +0x0E target mode.
        target_mode: enum(BrTargetMode) @ 0x0E, NonZero;
        /// +0x30 relative offset (|offset| < 2^31, spec 001 §2).
        br_imm: u64 @ 0x30, Always;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slot::Slot;

    /// spec 001 §2: `add_cmpgt_imm_br_rel` stamps 0x30806 at +0x0C = {GTIMM 6, INT32 8, REL_IMM 3}.
    #[test]
    fn cmpgt_descriptor_word() {
        let mut b = [0u8; 64];
        b[..4].copy_from_slice(&[0xa9, 0x10, 0, 2]);
        b[0x0C..0x10].copy_from_slice(&0x30806u32.to_le_bytes());
        b[0x30..0x34].copy_from_slice(&(-128i32 as u32).to_le_bytes());
        let br = CompareBranch::new(Slot::new(&b)).expect("0xA9");
        assert_eq!(br.cmp_op(), Ok(BrCmpOp::GtImm));
        assert_eq!(br.dtype(), Ok(Dtype::Int32));
        assert_eq!(br.target_mode(), Ok(BrTargetMode::RelativeImmediate));
        assert_eq!(br.br_imm(), u64::from(-128i32 as u32));
    }
}
