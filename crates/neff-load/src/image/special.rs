//! `ib_process_special_instr` (spec 000 §7.3): the handler for the translated-stream placeholders
//! lowering leaves 1->1 (decision D50: 0xD1 FUNCTION_BEGIN, 0xD2 FUNCTION_RETURN, 0xD3
//! FUNCTION_CALL, 0xDF PSEUDO_INST).
//!
//! Spec 000 §7.3 says "0xCC is the only DELETE this handler produces": with decision D50 the label
//! is consumed (and its one DELETE recorded) by lowering, so this handler never sees a 0xCC and
//! produces no DELETE at all — the same single DELETE, recorded one layer down (decision D72).
//! Every placeholder it handles stays one slot and gets one MODIFY row at its offset, recorded
//! here, in offset order with the block's rows; 0xD3, 0xD2 and 0xDF sub-op 1 are queued in
//! `post_process` and rewritten into branches once every section offset is known (§6.3).

use neff_isa::builder::{EVENTS_OFFSET, add_nop};

/// PSEUDO_FUNCTION_BEGIN.
pub const OP_FUNCTION_BEGIN: u8 = 0xD1;
/// PSEUDO_FUNCTION_RETURN.
pub const OP_FUNCTION_RETURN: u8 = 0xD2;
/// PSEUDO_FUNCTION_CALL.
pub const OP_FUNCTION_CALL: u8 = 0xD3;
/// PSEUDO_INST (sub-op at +12: 1 = EXIT_EXECUTION, 2 = LIBRARY_RELOAD_INDEX; reference §4.2).
pub const OP_PSEUDO_INST: u8 = 0xDF;
/// Byte offset of 0xDF's sub-op (spec 000 §6.3 `buf[O+12] == 1`).
pub const PSEUDO_INST_SUBOP: usize = 12;
/// 0xDF sub-op EXIT_EXECUTION.
pub const SUBOP_EXIT: u8 = 1;

/// What the handler did with one slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecialAction {
    /// Not a placeholder: copied as is.
    Plain,
    /// Rewritten in place now (0xD1 -> NOP, 0xDF other sub-ops -> NOP); one MODIFY row.
    Rewritten,
    /// Left for the post-process pass (0xD3, 0xD2, 0xDF exit); one MODIFY row.
    Deferred,
}

/// Whether `opcode` is one of the placeholders this handler owns.
pub fn is_special(opcode: u8) -> bool {
    matches!(
        opcode,
        OP_FUNCTION_BEGIN | OP_FUNCTION_RETURN | OP_FUNCTION_CALL | OP_PSEUDO_INST
    )
}

/// Processes the slot at `buf[at..at + 64]` (already copied into the image): rewrites it or
/// queues it in `post_process`. The slot count never changes (net delta 0, decision D72).
pub fn process_special_instr(
    buf: &mut Vec<u8>,
    at: usize,
    post_process: &mut Vec<usize>,
) -> SpecialAction {
    let op = buf[at];
    match op {
        OP_FUNCTION_CALL | OP_FUNCTION_RETURN => {
            post_process.push(at);
            SpecialAction::Deferred
        }
        OP_PSEUDO_INST if buf[at + PSEUDO_INST_SUBOP] == SUBOP_EXIT => {
            post_process.push(at);
            SpecialAction::Deferred
        }
        OP_FUNCTION_BEGIN | OP_PSEUDO_INST => {
            // The entry marker / library-reload index has no device meaning of its own: a NOP
            // that keeps the slot's events (so a wait or update on it still happens).
            let ev = u64::from_le_bytes(
                buf[at + EVENTS_OFFSET..at + EVENTS_OFFSET + 8]
                    .try_into()
                    .unwrap_or([0; 8]),
            );
            let debug = buf[at + 3];
            add_nop(buf, at, (ev != 0).then_some(ev));
            buf[at + 3] |= debug;
            SpecialAction::Rewritten
        }
        _ => SpecialAction::Plain,
    }
}
