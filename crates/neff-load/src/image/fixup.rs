//! The branch fix-ups that need the whole layout: the §6.3 post-process pass (0xD3 call ->
//! relative branch to the callee's `block_offset`, 0xDF exit and 0xD2 return -> relative
//! branch to the POSTAMBLE start with the debug bit OR-ed, each written back as one whole
//! 64-byte slot) and the label branches lowering left (decision D72).

use neff_isa::EngineType;
use neff_isa::builder::{EVENTS_OFFSET, add_br_rel, check_rel_offset};

use super::function::Assembly;
use super::special::{OP_FUNCTION_CALL, OP_FUNCTION_RETURN};
use crate::error::LoadError;
use crate::program::{Program, slot_name};

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
    for &o in &asm.post_process {
        let op = buf[o];
        let events = u64::from_le_bytes(
            buf[o + EVENTS_OFFSET..o + EVENTS_OFFSET + 8]
                .try_into()
                .unwrap_or([0; 8]),
        );
        let events = (events != 0).then_some(events);
        if op == OP_FUNCTION_CALL {
            let name = slot_name(&buf[o..o + 64]);
            let target = match (program.function_by_name(&name), asm.entries.get(&name)) {
                (Some(_), Some(&t)) => t,
                _ => {
                    return Err(LoadError::UnknownFunction {
                        engine,
                        slot: source_slot_of(asm, o),
                        offset: o,
                        name,
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
            debug_assert!(op != OP_FUNCTION_RETURN || buf[o] != OP_FUNCTION_RETURN);
        }
    }
    Ok(())
}

/// Resolves lowering's label branches (0xA9 / 0xDD fix-ups) against the labels' image offsets:
/// the rel32 distance lands in `br_immediate` (+0x30).
pub fn resolve_labels(engine: EngineType, buf: &mut [u8], asm: &Assembly) -> Result<(), LoadError> {
    for &(func_id, at, label) in &asm.branches {
        let target = *asm
            .labels
            .get(&(func_id, label))
            .ok_or(LoadError::UnknownLabel {
                engine,
                offset: at,
                label,
            })?;
        let rel = reach(engine, at, target)?;
        buf[at + BR_IMMEDIATE..at + BR_IMMEDIATE + 8]
            .copy_from_slice(&u64::from(rel as u32).to_le_bytes());
    }
    Ok(())
}

/// The 0-based source slot of the block holding image offset `o` (for error messages): the
/// block's first source slot.
fn source_slot_of(asm: &Assembly, o: usize) -> usize {
    asm.placed
        .iter()
        .find(|p| (p.block_offset.offset as usize..p.block_offset.end() as usize).contains(&o))
        .map_or(0, |p| p.source.0 / 64)
}
