//! The branch fix-ups that need the whole layout: the §6.3 post-process pass (0xD3 call ->
//! return-address set-up and relative branch to the callee's `block_offset`, a function's 0xD2
//! -> the return through its register, 0xDF exit and MAIN's 0xD2 -> relative branch to the
//! POSTAMBLE start with the debug bit OR-ed, each written back as whole 64-byte slots; decisions
//! D72, D290) and the label branches lowering left (decision D72).

use neff_isa::builder::{add_br_rel, add_br_rel_reg, add_mov32_imm, check_rel_offset};
use neff_isa::{ByteOffset, EngineType, SLOT_BYTES, SlotIndex};
use neff_lower::{LabelFixupError, resolve_branch_fixups};

use super::call::return_reg;
use super::function::Assembly;
use super::special::{or_debug, record_debug_and_events};
use crate::error::LoadError;
use crate::lower::{BranchFixup, ImageBuf, Label, SpecialKind};
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
    buf: &mut ImageBuf<'_>,
    asm: &Assembly,
    offset_0: usize,
) -> Result<(), LoadError> {
    asm.calls.check_acyclic(engine, program)?;
    for (o, sp) in &asm.post_process {
        let o = *o;
        let (debug, events) = record_debug_and_events(buf, o);
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
                // the stride-128 OR pass's bit, in a function
                let (marker, _) = record_debug_and_events(buf, o - SLOT_BYTES);
                buf.rewrite(o - SLOT_BYTES, |c| {
                    add_mov32_imm(c, 0, reg, back as u32, None);
                });
                or_debug(buf, o - SLOT_BYTES, marker);
                let rel = reach(engine, o, entry)?; // :1267-1286
                buf.rewrite(o, |c| {
                    add_br_rel(c, 0, rel, events);
                });
            }
            SpecialKind::FunctionReturn if asm.calls.return_owner.contains_key(&o) => {
                let func_id = asm.calls.return_owner[&o];
                let first = asm.calls.first_return[&func_id];
                if first == o {
                    let reg = return_reg(engine, func_id)?;
                    buf.rewrite(o, |c| {
                        add_br_rel_reg(c, 0, reg, events);
                    });
                } else {
                    let rel = reach(engine, o, first)?;
                    buf.rewrite(o, |c| {
                        add_br_rel(c, 0, rel, events);
                    });
                }
                or_debug(buf, o, debug);
            }
            _ => {
                // 0xDF exit (sub-op 1) and a 0xD2 in MAIN: branch to offset_0 (:1311-1312).
                let rel = reach(engine, o, offset_0)?;
                buf.rewrite(o, |c| {
                    add_br_rel(c, 0, rel, events);
                });
                or_debug(buf, o, debug);
            }
        }
    }
    Ok(())
}

/// [`resolve_branch_fixups`] for one function of an image, its errors as [`LoadError`]s.
pub fn resolve_function_labels(
    engine: EngineType,
    buf: &mut ImageBuf<'_>,
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
