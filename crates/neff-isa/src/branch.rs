//! The branch descriptor enums of CTRL_BR (COMPARE_BRANCH 0xA9, spec 001 §2): the compare op at
//! +0x0C and the target mode at +0x0E. The values the spec pins are named, plus the three compare
//! ops the builders use (decisions D7, D52); others print as numbers and survive.

use crate::field_enum::field_enum;

field_enum! {
    /// `BR_CMP_OP` (spec 001 §2: EQIMM 3, GTIMM 6 from `add_cmp_imm_br_rel` /
    /// `add_cmpgt_imm_br_rel`).
    BrCmpOp / BR_CMP_OP {
        /// Branch always (`add_br_rel`, decision D52).
        Always = 0 => "ALWAYS",
        /// Branch if `reg == imm`.
        EqImm = 3 => "EQ_IMM",
        /// Branch if `reg != imm` (decision D52).
        NeImm = 4 => "NE_IMM",
        /// Branch if `reg < imm` (decision D52).
        LtImm = 5 => "LT_IMM",
        /// Branch if `reg > imm`.
        GtImm = 6 => "GT_IMM",
    }
}

field_enum! {
    /// `BR_TARGET_MODE` (spec 001 §2: REGISTER 1, RELATIVE_IMMEDIATE 3, RELATIVE_REGISTER 4).
    BrTargetMode / BR_TARGET_MODE {
        /// Absolute target in a register.
        Register = 1 => "REG",
        /// PC-relative immediate at +0x30.
        RelativeImmediate = 3 => "REL_IMM",
        /// PC-relative offset in a register.
        RelativeRegister = 4 => "REL_REG",
    }
}
