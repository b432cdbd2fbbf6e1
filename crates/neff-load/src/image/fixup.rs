//! The branch fix-ups that need the whole layout: the §6.3 post-process pass (0xD3 call ->
//! relative branch to the callee's `block_offset`, 0xDF exit and 0xD2 return -> relative
//! branch to the POSTAMBLE start with the debug bit OR-ed, each written back as one whole
//! 64-byte slot) and the label branches lowering left (decision D72).

use neff_isa::EngineType;
use neff_isa::builder::{BranchRangeError, add_br_rel, check_rel_offset};

use super::function::Assembly;
use super::special::slot_events;
use crate::error::LoadError;
use crate::lower::{BranchFixup, Label, SpecialKind};
use crate::program::Program;

/// Offset of the relative target in CTRL_BR and BRANCH_PREFETCH_HINT records (spec 001 §2
/// `br_immediate` +0x30, rel32 zero-extended; decision D52).
pub const BR_IMMEDIATE: usize = 0x30;

/// The 32-bit reach check of `ipb_postprocess_instrs` (spec 001 §2).
fn reach(engine: EngineType, at: usize, target: usize) -> Result<i32, LoadError> {
    check_rel_offset(target as i64 - at as i64).map_err(|_| LoadError::BranchOutOfReach {
        engine,
        offset: at,
        target: target as i128,
    })
}

/// §6.3: rewrites every deferred placeholder into a relative branch. `offset_0` is the
/// POSTAMBLE start.
pub fn post_process(
    engine: EngineType,
    program: &Program,
    buf: &mut Vec<u8>,
    asm: &Assembly,
    offset_0: usize,
) -> Result<(), LoadError> {
    for (o, sp) in &asm.post_process {
        let o = *o;
        let events = slot_events(buf, o);
        if sp.kind == SpecialKind::FunctionCall {
            let target = match (
                program.function_by_name(&sp.name),
                asm.entries.get(&sp.name),
            ) {
                (Some(_), Some(&t)) => t,
                _ => {
                    return Err(LoadError::UnknownFunction {
                        engine,
                        slot: sp.source_slot as usize,
                        offset: o,
                        name: sp.name.clone(),
                    });
                }
            };
            let rel = reach(engine, o, target)?; // :1267-1286
            add_br_rel(buf, o, rel, events);
        } else {
            // 0xDF exit (sub-op 1) and, by decision D72, 0xD2: branch to offset_0 (:1311-1312).
            let debug = buf[o + 3];
            let rel = reach(engine, o, offset_0)?;
            add_br_rel(buf, o, rel, events);
            buf[o + 3] |= debug;
        }
    }
    Ok(())
}

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
    bytes: &mut [u8],
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
        let at = f.offset + BR_IMMEDIATE;
        if let Some(field) = bytes.get_mut(at..at + 8) {
            field.copy_from_slice(&u64::from(rel as u32).to_le_bytes());
        }
    }
    Ok(())
}

/// [`resolve_branch_fixups`] for one function of an image, its errors as [`LoadError`]s.
pub fn resolve_function_labels(
    engine: EngineType,
    buf: &mut [u8],
    fixups: &[BranchFixup],
    labels: &[(Label, usize)],
) -> Result<(), LoadError> {
    resolve_branch_fixups(buf, fixups, labels).map_err(|e| match e {
        LabelFixupError::Missing(f) => LoadError::UnknownLabel {
            engine,
            offset: f.offset,
            label: u64::from(f.label),
        },
        LabelFixupError::OutOfReach { fixup, target, .. } => LoadError::BranchOutOfReach {
            engine,
            offset: fixup.offset,
            target: target as i128,
        },
    })
}
