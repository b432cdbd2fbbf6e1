//! `ib_process_special_instr` (spec 000 §7.3): the handler for the translated-stream placeholders
//! lowering leaves 1->1 and lists in [`LoweredBlock::specials`](crate::lower::LoweredBlock)
//! (decision D50: 0xD1 FUNCTION_BEGIN, 0xD2 FUNCTION_RETURN, 0xD3 FUNCTION_CALL, 0xDF
//! PSEUDO_INST).
//!
//! Spec 000 §7.3 says "0xCC is the only DELETE this handler produces": with decision D50 the label
//! is consumed (and its one DELETE recorded) by lowering, so this handler never sees a 0xCC and
//! produces no DELETE at all — the same single DELETE, recorded one layer down (decision D72).
//! Every placeholder it handles stays one slot and gets one MODIFY row at its offset, recorded
//! by the caller in offset order with the block's rows; a 0xD3 also gets its return-address
//! slot inserted before it (the INSERT source of §7.3, decision D290). 0xD3, 0xD2 and 0xDF
//! sub-op 1 are queued in `post_process` and rewritten once every section offset is known (§6.3).

use neff_isa::builder::{EVENTS_OFFSET, add_nop};

use crate::lower::{ImageBuf, Special, SpecialKind};

/// 0xDF sub-op EXIT_EXECUTION (spec 000 §6.3 `buf[O+12] == 1`; reference §4.2).
pub const SUBOP_EXIT: u8 = 1;

/// What the handler did with one slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecialAction {
    /// Rewritten in place now (0xD1 -> NOP, 0xDF other sub-ops -> NOP); one MODIFY row.
    Rewritten,
    /// Left for the post-process pass (0xD3, 0xD2, 0xDF exit); one MODIFY row.
    Deferred,
}

/// The 8-byte events at +0x04 of the record at `at`, `None` when zero (the builders'
/// `events == NULL`), so a rewritten placeholder keeps its wait and update.
pub fn slot_events(buf: &[u8], at: usize) -> Option<u64> {
    let raw = buf.get(at + EVENTS_OFFSET..at + EVENTS_OFFSET + 8)?;
    let ev = u64::from_le_bytes(raw.try_into().ok()?);
    (ev != 0).then_some(ev)
}

/// The debug byte (+3) and the events ([`slot_events`]) of the image record at `at`.
pub fn record_debug_and_events(buf: &ImageBuf<'_>, at: usize) -> (u8, Option<u64>) {
    buf.record(at)
        .map_or((0, None), |r| (r[3], slot_events(r, 0)))
}

/// ORs `bits` into the debug byte (+3) of the image record at `at` (the function marker, a
/// rewritten placeholder's kept debug bit).
pub fn or_debug(buf: &mut ImageBuf<'_>, at: usize, bits: u8) {
    if let Some(r) = buf.record_mut(at) {
        r[3] |= bits;
    }
}

/// Processes the placeholder `sp`, already copied into the image at `buf[at..at + 64]`: rewrites
/// it or queues it in `post_process`. The slot itself stays one slot (decision D72); a call's
/// inserted return-address slot is the caller's (decision D290).
pub fn process_special_instr(
    buf: &mut ImageBuf<'_>,
    at: usize,
    sp: &Special,
    post_process: &mut Vec<(usize, Special)>,
) -> SpecialAction {
    match sp.kind {
        SpecialKind::FunctionCall | SpecialKind::FunctionReturn | SpecialKind::Inst(SUBOP_EXIT) => {
            post_process.push((at, sp.clone()));
            SpecialAction::Deferred
        }
        SpecialKind::FunctionBegin | SpecialKind::Inst(_) => {
            // The entry marker / library-reload index has no device meaning of its own: a NOP
            // that keeps the slot's events (so a wait or update on it still happens).
            let (debug, events) = record_debug_and_events(buf, at);
            buf.rewrite(at, |c| {
                add_nop(c, 0, events);
            });
            or_debug(buf, at, debug);
            SpecialAction::Rewritten
        }
    }
}
