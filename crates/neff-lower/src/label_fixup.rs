//! The one label resolver (decision D50): lowering consumes 0xCC into labels and notes the
//! branches that target them; once final positions are known each fix-up's br_immediate gets
//! `label - record`. Image assembly runs it once per function (neff-load `image::fixup`),
//! [`crate::lower_stream`] once per whole stream; it lives here, below both, so that lowering
//! and image assembly form no module cycle (decision D560).

use neff_isa::builder::{BranchRangeError, check_rel_offset};
use neff_isa::payload::{BranchHintMut, CompareBranchMut};
use neff_isa::{SLOT_BYTES, SlotBuf};

use crate::image_buf::ImageBuf;
use crate::label::{BranchFixup, FixupKind, Label};

/// Why a label fix-up could not be resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabelFixupError {
    /// No label of the function has the fix-up's id.
    Missing(BranchFixup),
    /// The distance to the label does not fit 32 bits (spec 001 §2).
    OutOfReach {
        /// The fix-up.
        fixup: BranchFixup,
        /// The label's offset, in the same coordinates as the fix-up's.
        target: usize,
        /// The builder's range error.
        source: BranchRangeError,
    },
}

/// THE label resolver (decision D50: lowering consumes 0xCC into `labels` and notes 0xA9 / 0xDD
/// `fixups`; resolution happens once final positions are known). Each fix-up's br_immediate
/// (+0x30) becomes `label - record` (spec 000 §6.3 `target - O`), rel32 zero-extended, with the
/// 32-bit reach checked (spec 001 §2). `fixups` and `labels` offsets index `bytes`; image
/// assembly calls it once per function with image offsets (labels are function-scoped, decision
/// D72), `neff lower` once per whole stream.
pub fn resolve_branch_fixups(
    bytes: &mut ImageBuf<'_>,
    fixups: &[BranchFixup],
    labels: &[(Label, usize)],
) -> Result<(), LabelFixupError> {
    for f in fixups {
        let target = labels
            .iter()
            .find(|(l, _)| *l == f.label)
            .map(|(_, o)| *o)
            .ok_or(LabelFixupError::Missing(*f))?;
        let rel = check_rel_offset(target as i64 - f.offset as i64).map_err(|source| {
            LabelFixupError::OutOfReach {
                fixup: *f,
                target,
                source,
            }
        })?;
        if let Some(record) = bytes.record_mut(f.offset) {
            write_br_imm(record, f.kind, u64::from(rel as u32));
        }
    }
    Ok(())
}

/// Writes a fix-up's rel32 (zero-extended) into the br_immediate of its 64-byte record through
/// neff-isa's writer of that record (spec 001 §2; decision D52).
fn write_br_imm(record: &mut [u8], kind: FixupKind, rel: u64) {
    let Ok(bytes) = <[u8; SLOT_BYTES]>::try_from(&*record) else {
        return;
    };
    let mut slot = SlotBuf(bytes);
    match kind {
        FixupKind::Branch => {
            CompareBranchMut(&mut slot).br_imm(rel);
        }
        FixupKind::PrefetchHint => {
            BranchHintMut(&mut slot).br_imm(rel);
        }
    }
    record.copy_from_slice(&slot.0);
}
