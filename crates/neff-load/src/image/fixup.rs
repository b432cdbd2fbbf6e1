//! The branch fix-ups that need the whole layout: the §6.3 post-process pass (0xD3 call ->
//! return-address set-up and relative branch to the callee's `block_offset`, a function's 0xD2
//! -> the return through its register, 0xDF exit and MAIN's 0xD2 -> relative branch to the
//! POSTAMBLE start with the debug bit OR-ed, each written back as whole 64-byte slots; decisions
//! D72, D290) and the label branches lowering left (decision D72).

use neff_isa::builder::{
    BranchRangeError, add_br_rel, add_br_rel_reg, add_mov32_imm, check_rel_offset,
};
use neff_isa::payload::{BranchHintMut, CompareBranchMut};
use neff_isa::{ByteOffset, EngineType, SLOT_BYTES, SlotBuf, SlotIndex};

use super::call::return_reg;
use super::function::Assembly;
use super::special::slot_events;
use crate::error::LoadError;
use crate::lower::{BranchFixup, FixupKind, Label, SpecialKind};
use crate::program::Program;

/// The 32-bit reach check of `ipb_postprocess_instrs` (spec 001 §2).
fn reach(engine: EngineType, at: usize, target: usize) -> Result<i32, LoadError> {
    check_rel_offset(target as i64 - at as i64).map_err(|_| LoadError::BranchOutOfReach {
        engine,
        offset: ByteOffset(at as u64),
        target: target as i128,
    })
}

/// §6.3: rewrites every deferred placeholder into a branch. `offset_0` is the POSTAMBLE start.
/// A call becomes its return-address set-up (the slot inserted before it) and a branch to the
/// callee's entry; a function's return goes back through its return register (decision D290); a
/// return in MAIN and the 0xDF exit branch to the POSTAMBLE (decision D72).
pub fn post_process(
    engine: EngineType,
    program: &Program,
    buf: &mut Vec<u8>,
    asm: &Assembly,
    offset_0: usize,
) -> Result<(), LoadError> {
    asm.calls.check_acyclic(engine, program)?;
    for (o, sp) in &asm.post_process {
        let o = *o;
        let events = slot_events(buf, o);
        let debug = buf[o + 3];
        match sp.kind {
            SpecialKind::FunctionCall => {
                let (callee, entry) = match (
                    program.function_by_name(&sp.name),
                    asm.entries.get(&sp.name),
                ) {
                    (Some(f), Some(&t)) => (f, t),
                    _ => {
                        return Err(LoadError::UnknownFunction {
                            engine,
                            slot: SlotIndex(u32::try_from(sp.source_slot).unwrap_or(u32::MAX)),
                            offset: ByteOffset(o as u64),
                            name: sp.name.clone(),
                        });
                    }
                };
                // R - Q_f: the return point (after the call) relative to the callee's return
                // slot; 0 when the callee never returns.
                let back = match asm.calls.first_return.get(&callee.func_id) {
                    Some(&q) => reach(engine, q, o + SLOT_BYTES)?,
                    None => 0,
                };
                let reg = return_reg(engine, callee.func_id)?;
                let marker = buf[o - SLOT_BYTES + 3]; // the stride-128 OR pass's bit, in a function
                add_mov32_imm(buf, o - SLOT_BYTES, reg, back as u32, None);
                buf[o - SLOT_BYTES + 3] |= marker;
                let rel = reach(engine, o, entry)?; // :1267-1286
                add_br_rel(buf, o, rel, events);
            }
            SpecialKind::FunctionReturn if asm.calls.return_owner.contains_key(&o) => {
                let func_id = asm.calls.return_owner[&o];
                let first = asm.calls.first_return[&func_id];
                if first == o {
                    add_br_rel_reg(buf, o, return_reg(engine, func_id)?, events);
                } else {
                    let rel = reach(engine, o, first)?;
                    add_br_rel(buf, o, rel, events);
                }
                buf[o + 3] |= debug;
            }
            _ => {
                // 0xDF exit (sub-op 1) and a 0xD2 in MAIN: branch to offset_0 (:1311-1312).
                let rel = reach(engine, o, offset_0)?;
                add_br_rel(buf, o, rel, events);
                buf[o + 3] |= debug;
            }
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
        if let Some(record) = bytes.get_mut(f.offset..f.offset + SLOT_BYTES) {
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
            offset: ByteOffset(f.offset as u64),
            label: u64::from(f.label),
        },
        LabelFixupError::OutOfReach { fixup, target, .. } => LoadError::BranchOutOfReach {
            engine,
            offset: ByteOffset(fixup.offset as u64),
            target: target as i128,
        },
    })
}
