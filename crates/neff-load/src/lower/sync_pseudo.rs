//! PSEUDO_SEMAPHORE_SET (0xC5) and PSEUDO_SYNC_BARRIER (0xD5): recipes from the semaphore
//! builders (spec 001 §4; slot layouts decision D56).
//!
//! 0xC5: +0x0C semaphore, +0x10 value u32 -> one CTRL_ES writing the value on completion.
//! 0xD5: +0x0C barrier semaphore, +0x10 participants u32 -> add_sync_barrier (2 records), preceded
//! by an EVENT_SEMAPHORE carrying the slot's events when it has any.

use neff_isa::SLOT_BYTES;
use neff_isa::builder::{
    EventsFields, UPDATE_SEM_WR_IMM_COMPLETE, add_evsem, add_ins, add_sync_barrier, new_record,
};

use super::error::LowerErrorKind;
use super::lowered::BlockWriter;
use super::slot_field::u32_at;

/// 0xC5: `semaphore[id] = value` as a CTRL_ES with events_extended {update SEM_WR_IMM_COMPLETE,
/// id, value at +0x28}, keeping the slot's events.
pub(super) fn translate_semaphore_set(
    slot: &[u8; SLOT_BYTES],
    out: &mut BlockWriter<'_>,
) -> Result<(), LowerErrorKind> {
    let events = EventsFields::read(slot).map(EventsFields::pack);
    let mut rec = new_record(neff_isa::builder::OP_EVENT_SEMAPHORE, events);
    rec[0x22] = UPDATE_SEM_WR_IMM_COMPLETE;
    rec[0x23] = slot[0x0C];
    rec[0x28..0x2C].copy_from_slice(&u32_at(slot, 0x10).to_le_bytes());
    let off = out.bytes.len();
    add_ins(out.bytes, off, &rec);
    Ok(())
}

/// 0xD5: the barrier recipe.
pub(super) fn translate_sync_barrier(
    slot: &[u8; SLOT_BYTES],
    out: &mut BlockWriter<'_>,
) -> Result<(), LowerErrorKind> {
    let events = EventsFields::read(slot)
        .map(EventsFields::pack)
        .unwrap_or(0);
    let mut off = out.bytes.len();
    if events != 0 {
        off = add_evsem(out.bytes, off, Some(events));
    }
    add_sync_barrier(out.bytes, off, slot[0x0C], u32_at(slot, 0x10));
    Ok(())
}
