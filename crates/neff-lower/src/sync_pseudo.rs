//! PSEUDO_SEMAPHORE_SET (0xC5) and PSEUDO_SYNC_BARRIER (0xD5): recipes from the semaphore
//! builders (spec 001 §4; slot layouts decision D56).
//!
//! 0xC5: semaphore and value read through neff-isa's `SemaphoreSet` view -> one CTRL_ES writing the value on completion.
//! 0xD5: barrier semaphore and participants through `SyncBarrier` -> add_sync_barrier (2 records), preceded
//! by an EVENT_SEMAPHORE carrying the slot's events when it has any.

use neff_isa::Events;
use neff_isa::builder::{add_evsem, add_semaphore_set, add_sync_barrier};
use neff_isa::payload::{SemaphoreSet, SyncBarrier};
use neff_isa::{SLOT_BYTES, Slot};

use super::error::LowerErrorKind;
use super::lowered::BlockWriter;

/// 0xC5: `semaphore[id] = value` as a CTRL_ES with events_extended {update SEM_WR_IMM_COMPLETE,
/// id, value at +0x28}, keeping the slot's events.
pub(super) fn translate_semaphore_set(
    slot: &[u8; SLOT_BYTES],
    out: &mut BlockWriter<'_, '_>,
) -> Result<(), LowerErrorKind> {
    let events = Events::read(slot).map(Events::pack);
    let set = SemaphoreSet(Slot::new(slot));
    let off = out.bytes().len();
    add_semaphore_set(out.bytes(), off, set.semaphore(), set.value(), events);
    Ok(())
}

/// 0xD5: the barrier recipe.
pub(super) fn translate_sync_barrier(
    slot: &[u8; SLOT_BYTES],
    out: &mut BlockWriter<'_, '_>,
) -> Result<(), LowerErrorKind> {
    let events = Events::read(slot).map(Events::pack).unwrap_or(0);
    let mut off = out.bytes().len();
    if events != 0 {
        off = add_evsem(out.bytes(), off, Some(events));
    }
    let barrier = SyncBarrier(Slot::new(slot));
    add_sync_barrier(
        out.bytes(),
        off,
        barrier.semaphore(),
        barrier.participants(),
    );
    Ok(())
}
