//! CTRL_BR (opcode word 0x10a9) and the BRANCH_PREFETCH_HINT outlier (0x10b5): spec 001 §2.
//!
//! Record (spec 001 §2, add_cmp_imm_br_rel): +0x03 debug_hint = 2, +0x04 events,
//! +0x0c {BR_CMP_OP, DTYPE, BR_TARGET_MODE}, +0x10 cmp_immediate u32, +0x20 cmp_reg0,
//! +0x30 br_immediate (rel32 zero-extended to u64). add_br_rel is the same record with the
//! "always" compare (decision D52); the hint uses the same target fields (decision D52). The
//! offsets are declared once, by the `COMPARE_BRANCH` / `BRANCH_HINT` payload views
//! (crate::payload), whose writers place them.

use super::codes::{
    BR_ALWAYS, BR_EQIMM, BR_GTIMM, BR_LTIMM, BR_NEIMM, BR_TARGET_REL_IMM, BR_TARGET_REL_REGISTER,
    DEBUG_HINT_REL, DTYPE_INT32, OP_BRANCH_PREFETCH_HINT, OP_COMPARE_BRANCH,
};
use super::record::new_slot;
use super::sink::add_ins;
use crate::payload::{BranchHintMut, CompareBranchMut};

/// A relative branch offset that does not fit 32 bits (spec 001 §2: "Invalid branch relative
/// offset ... Offset must be fit within 32 bits"), checked at emit and at resolve.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("Invalid branch relative offset {0}. Offset must be fit within 32 bits")]
pub struct BranchRangeError(pub i64);

/// The reach check of add_br_hint_rel_imm and ipb_postprocess_instrs: `|offset| < 2^31`
/// (spec 001 §2).
pub fn check_rel_offset(offset: i64) -> Result<i32, BranchRangeError> {
    if offset.unsigned_abs() < (1u64 << 31) {
        Ok(offset as i32)
    } else {
        Err(BranchRangeError(offset))
    }
}

/// `add_cmp_imm_br_rel` (@0x271d50, spec 001 §2): "cmp(reg) <cmp_op> imm32 -> relative branch".
#[allow(clippy::too_many_arguments)] // the runtime's ABI, operand for operand
pub fn add_cmp_imm_br_rel(
    chunk: &mut Vec<u8>,
    offset: usize,
    cmp_reg: u8,
    cmp_op: u8,
    cmp_dtype: u8,
    cmp_imm32: u32,
    rel32: i32,
    events: Option<u64>,
) -> usize {
    let mut rec = new_slot(OP_COMPARE_BRANCH, events);
    rec.set_debug_hint(DEBUG_HINT_REL);
    CompareBranchMut(&mut rec)
        .cmp_op(cmp_op)
        .dtype(cmp_dtype)
        .target_mode(BR_TARGET_REL_IMM)
        .cmp_reg(cmp_reg)
        .cmp_imm(cmp_imm32)
        .br_imm(u64::from(rel32 as u32));
    add_ins(chunk, offset, &rec.0)
}

/// `add_br_rel` (@0x271ae0): an unconditional relative branch by `rel32` bytes (descriptor
/// {ALWAYS, INT32, REL_IMM}, decision D52).
pub fn add_br_rel(chunk: &mut Vec<u8>, offset: usize, rel32: i32, events: Option<u64>) -> usize {
    add_cmp_imm_br_rel(chunk, offset, 0, BR_ALWAYS, DTYPE_INT32, 0, rel32, events)
}

/// An unconditional branch by the byte offset held in register `reg` (descriptor {ALWAYS, INT32,
/// REL_REGISTER 4}, spec 001 §2's third target mode): the function return of
/// `itf_translate_function_return_instr`. The register number sits in br_immediate (+0x30), as
/// the ALU's register src1 sits in its immediate field (decision D290).
pub fn add_br_rel_reg(chunk: &mut Vec<u8>, offset: usize, reg: u8, events: Option<u64>) -> usize {
    let mut rec = new_slot(OP_COMPARE_BRANCH, events);
    rec.set_debug_hint(DEBUG_HINT_REL);
    CompareBranchMut(&mut rec)
        .cmp_op(BR_ALWAYS)
        .dtype(DTYPE_INT32)
        .target_mode(BR_TARGET_REL_REGISTER)
        .br_imm(u64::from(reg));
    add_ins(chunk, offset, &rec.0)
}

/// Declares the fixed-descriptor compare-and-branch forms of spec 001 §2 from one table: each row
/// is `name = compare op`, all INT32 and REL_IMM, with the row's doc comment.
macro_rules! cmp_imm_br_rel_builders {
    ($($(#[$doc:meta])* $name:ident = $cmp:expr;)*) => {
        $(
            $(#[$doc])*
            pub fn $name(
                chunk: &mut Vec<u8>,
                offset: usize,
                cmp_reg: u8,
                imm: u32,
                rel32: i32,
                events: Option<u64>,
            ) -> usize {
                add_cmp_imm_br_rel(chunk, offset, cmp_reg, $cmp, DTYPE_INT32, imm, rel32, events)
            }
        )*
    };
}

cmp_imm_br_rel_builders! {
    /// `add_cmpgt_imm_br_rel`: descriptor literal 0x30806 = {GTIMM 6, INT32 8, REL_IMM 3}
    /// (spec 001 §2).
    add_cmpgt_imm_br_rel = BR_GTIMM;
    /// `add_cmplt_imm_br_rel`: descriptor {LTIMM, INT32, REL_IMM} (LTIMM = 5, decision D52).
    add_cmplt_imm_br_rel = BR_LTIMM;
    /// `add_cmpeq_imm_br_rel`: descriptor {EQIMM 3, INT32, REL_IMM} = 0x30803 (spec 001 §2).
    add_cmpeq_imm_br_rel = BR_EQIMM;
    /// `add_cmpne_imm_br_rel`: descriptor {NEIMM, INT32, REL_IMM} (NEIMM = 4, decision D52).
    add_cmpne_imm_br_rel = BR_NEIMM;
}

/// `add_br_hint_rel_imm` (0x10b5, spec 001 §2): a prefetch hint for the branch target
/// `br_rel_offset` bytes away; the only builder that validates: `|offset| < 2^31`.
pub fn add_br_hint_rel_imm(
    chunk: &mut Vec<u8>,
    offset: usize,
    br_rel_offset: i64,
    events: Option<u64>,
) -> Result<usize, BranchRangeError> {
    let rel = check_rel_offset(br_rel_offset)?;
    let mut rec = new_slot(OP_BRANCH_PREFETCH_HINT, events);
    rec.set_debug_hint(DEBUG_HINT_REL);
    BranchHintMut(&mut rec)
        .cmp_op(BR_ALWAYS)
        .dtype(DTYPE_INT32)
        .target_mode(BR_TARGET_REL_IMM)
        .br_imm(u64::from(rel as u32));
    Ok(add_ins(chunk, offset, &rec.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u32_at(b: &[u8], at: usize) -> u32 {
        u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    }

    #[test]
    fn cmp_imm_br_rel_fills_spec_offsets() {
        let mut c = Vec::new();
        let ev = 0x0000_0007_1316_0a04;
        let end = add_cmp_imm_br_rel(
            &mut c,
            0,
            9,
            BR_EQIMM,
            DTYPE_INT32,
            0xdead_beef,
            -128,
            Some(ev),
        );
        assert_eq!(end, 64);
        assert_eq!(&c[0..4], &[0xa9, 0x10, 0x00, 0x02]);
        assert_eq!(&c[4..12], &ev.to_le_bytes());
        assert_eq!(&c[0x0c..0x0f], &[3, 8, 3]);
        assert_eq!(u32_at(&c, 0x10), 0xdead_beef);
        assert_eq!(c[0x20], 9);
        // rel32 zero-extended to the 8-byte br_immediate.
        assert_eq!(&c[0x30..0x38], &[0x80, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
    }

    #[test]
    fn cmpgt_descriptor_is_0x30806() {
        let mut c = Vec::new();
        add_cmpgt_imm_br_rel(&mut c, 0, 1, 5, 64, None);
        assert_eq!(u32_at(&c, 0x0c), 0x30806);
        assert_eq!(&c[4..12], &[0; 8], "no events -> zero");
        let mut c = Vec::new();
        add_cmpeq_imm_br_rel(&mut c, 0, 1, 5, 64, None);
        assert_eq!(u32_at(&c, 0x0c), 0x30803);
        let mut c = Vec::new();
        add_cmplt_imm_br_rel(&mut c, 0, 1, 5, 64, None);
        assert_eq!(u32_at(&c, 0x0c), 0x30805);
        let mut c = Vec::new();
        add_cmpne_imm_br_rel(&mut c, 0, 1, 5, 64, None);
        assert_eq!(u32_at(&c, 0x0c), 0x30804);
    }

    #[test]
    fn br_rel_is_always_rel_imm_branch() {
        let mut c = Vec::new();
        add_br_rel(&mut c, 0, 0x40, None);
        assert_eq!(&c[0..4], &[0xa9, 0x10, 0, 2]);
        assert_eq!(u32_at(&c, 0x0c), 0x30800);
        assert_eq!(u32_at(&c, 0x30), 0x40);
        let mut r = Vec::new();
        add_br_rel_reg(&mut r, 0, 0x41, None);
        assert_eq!(
            (r[0], u32_at(&r, 0x0c), u32_at(&r, 0x30)),
            (0xa9, 0x40800, 0x41)
        );
    }

    #[test]
    fn br_hint_checks_32_bit_reach() {
        let mut c = Vec::new();
        assert_eq!(add_br_hint_rel_imm(&mut c, 0, -(1 << 31) + 1, None), Ok(64));
        assert_eq!(&c[0..2], &[0xb5, 0x10]);
        assert_eq!(u32_at(&c, 0x30), 0x8000_0001);
        let err = add_br_hint_rel_imm(&mut c, 64, 1 << 31, None).unwrap_err();
        assert_eq!(err, BranchRangeError(1 << 31));
        assert!(err.to_string().contains("must be fit within 32 bits"));
        assert_eq!(c.len(), 64, "nothing appended on error");
    }
}
