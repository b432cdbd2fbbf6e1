//! Labels and the branches that target them (spec 001 §2, §5; decision D53).
//!
//! PSEUDO_BRANCH_LABEL (0xCC) is consumed to a position and emits nothing (DELETE; decision D50).
//! A COMPARE_BRANCH (0xA9) whose target mode is REL_IMM and a PSEUDO_BRANCH_PREFETCH_HINT (0xDD)
//! name a label by id in br_immediate (+0x30); the branch is copied 1->1 and the hint becomes a
//! BRANCH_PREFETCH_HINT (0xb5), each with a fix-up that writes `label - record` once positions are
//! known, with the 32-bit reach checked at emit and at resolve. The one resolver is
//! [`crate::resolve_branch_fixups`], run once positions are final.

use neff_isa::builder::{add_br_hint_rel_imm, add_ins};
use neff_isa::payload::{BranchHint, BranchLabel, CompareBranch};
use neff_isa::{BrTargetMode, Events, SLOT_BYTES, Slot};

use super::error::LowerErrorKind;
use super::lowered::BlockWriter;

/// A label id (u32 at +0x0C of a 0xCC; decision D53).
pub type Label = u32;

/// What a fix-up patches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixupKind {
    /// A COMPARE_BRANCH's br_immediate.
    Branch,
    /// A BRANCH_PREFETCH_HINT's target.
    PrefetchHint,
}

/// A record whose relative target is a label (`post_process` entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BranchFixup {
    /// Byte offset of the record from the block's start.
    pub offset: usize,
    /// The label it targets.
    pub label: Label,
    /// Branch or hint.
    pub kind: FixupKind,
    /// The source slot.
    pub source_slot: u64,
}

/// 0xCC: records the label at the current translated offset; emits nothing.
pub(super) fn translate_label(
    slot: &[u8; SLOT_BYTES],
    out: &mut BlockWriter<'_, '_>,
) -> Result<(), LowerErrorKind> {
    let label = BranchLabel(Slot::new(slot)).label();
    if out.block.labels.iter().any(|(l, _)| *l == label) {
        return Err(LowerErrorKind::DuplicateLabel { label });
    }
    out.block.labels.push((label, out.offset()));
    Ok(())
}

/// 0xA9: copies the branch; a REL_IMM branch gets a fix-up for the label in br_immediate.
pub(super) fn translate_compare_branch(
    slot: &[u8; SLOT_BYTES],
    source_slot: u64,
    out: &mut BlockWriter<'_, '_>,
) {
    let at = out.bytes().len();
    let branch = CompareBranch(Slot::new(slot));
    if branch.target_mode() == Ok(BrTargetMode::RelativeImmediate) {
        out.block.branch_fixups.push(BranchFixup {
            offset: out.offset(),
            // The label id is the low 32 bits of br_immediate (decision D53).
            label: branch.br_imm() as u32,
            kind: FixupKind::Branch,
            source_slot,
        });
    }
    add_ins(out.bytes(), at, slot);
}

/// 0xDD: one BRANCH_PREFETCH_HINT with the slot's events and a placeholder offset 0.
pub(super) fn translate_prefetch_hint(
    slot: &[u8; SLOT_BYTES],
    source_slot: u64,
    out: &mut BlockWriter<'_, '_>,
) -> Result<(), LowerErrorKind> {
    let (at, offset) = (out.bytes().len(), out.offset());
    let events = Events::read(slot).map(Events::pack);
    add_br_hint_rel_imm(out.bytes(), at, 0, events)?;
    out.block.branch_fixups.push(BranchFixup {
        offset,
        // 0xDD names its label where the hint record it becomes holds the target (decision D53).
        label: BranchHint(Slot::new(slot)).br_imm() as u32,
        kind: FixupKind::PrefetchHint,
        source_slot,
    });
    Ok(())
}
