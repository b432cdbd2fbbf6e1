//! The in-place event patchers (spec 001 §4 GOTCHA): they rewrite the events of records already
//! in a chunk, never append, never change the record count (so they raise no IP delta, §5).

use super::events::EVENTS_OFFSET;
use crate::events::Events;
use crate::slot::SLOT_BYTES;

/// A patch window outside the chunk (the runtime's assert at instr_sunda.c:0x2E).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "event patch window [{start:#x}, {end:#x}) is not a run of whole records inside the {size:#x}-byte chunk"
)]
pub struct PatchRangeError {
    /// First byte of the window.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
    /// The chunk size.
    pub size: usize,
}

fn check(chunk: &[u8], start: usize, end: usize) -> Result<(), PatchRangeError> {
    let ok = end <= chunk.len()
        && start + SLOT_BYTES <= end
        && start.is_multiple_of(SLOT_BYTES)
        && end.is_multiple_of(SLOT_BYTES);
    ok.then_some(()).ok_or(PatchRangeError {
        start,
        end,
        size: chunk.len(),
    })
}

fn write(chunk: &mut [u8], record_offset: usize, ev: Events) {
    let at = record_offset + EVENTS_OFFSET;
    chunk[at..at + 8].copy_from_slice(&ev.pack().to_le_bytes());
}

/// `update_evtsema` : replaces the whole 8-byte events tuple of the record at `record_offset`.
pub fn update_evtsema(
    chunk: &mut [u8],
    record_offset: usize,
    events: u64,
) -> Result<(), PatchRangeError> {
    check(chunk, record_offset, record_offset + SLOT_BYTES)?;
    write(chunk, record_offset, Events::unpack(events));
    Ok(())
}

/// `update_evtsema_first_and_last_inst` (@0x271780, spec 001 §4): the split-sync fence of a block
/// `[block_start, block_end)`: the first record takes the wait (`wait_mode`, `semaphore_value`),
/// the last takes the update (`update_mode`, `semaphore_value`), exactly the fields the spec
/// lists; the other bytes of both records are kept.
pub fn update_evtsema_first_and_last_inst(
    chunk: &mut [u8],
    block_start: usize,
    block_end: usize,
    events: u64,
) -> Result<(), PatchRangeError> {
    check(chunk, block_start, block_end)?;
    let ev = Events::unpack(events);
    let mut first = Events::read(&chunk[block_start..]).unwrap_or_default();
    first.wait_mode = ev.wait_mode;
    first.semaphore_value = ev.semaphore_value;
    write(chunk, block_start, first);
    let last_at = block_end - SLOT_BYTES;
    let mut last = Events::read(&chunk[last_at..]).unwrap_or_default();
    last.update_mode = ev.update_mode;
    last.semaphore_value = ev.semaphore_value;
    write(chunk, last_at, last);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::builder::{add_nop, get_event_semaphore_wait_update};

    #[test]
    fn first_gets_wait_last_gets_update_count_unchanged() {
        let mut c = Vec::new();
        for _ in 0..3 {
            let off = c.len();
            add_nop(&mut c, off, None);
        }
        let ev = get_event_semaphore_wait_update(5, 7, 0x13, 8, 16);
        update_evtsema_first_and_last_inst(&mut c, 0, 192, ev).unwrap();
        assert_eq!(c.len(), 192);
        assert_eq!(&c[4..12], &[5, 0, 0, 0, 16, 0, 0, 0]);
        assert_eq!(&c[64 + 4..64 + 12], &[0; 8], "middle untouched");
        assert_eq!(&c[128 + 4..128 + 12], &[0, 0, 0x13, 0, 16, 0, 0, 0]);
    }

    #[test]
    fn update_evtsema_replaces_tuple_and_checks_range() {
        let mut c = vec![0u8; 128];
        update_evtsema(&mut c, 64, 0x0000_0002_1316_0a04).unwrap();
        assert_eq!(&c[68..76], &[4, 0x0a, 0x16, 0x13, 2, 0, 0, 0]);
        assert!(update_evtsema(&mut c, 128, 0).is_err());
        assert!(update_evtsema_first_and_last_inst(&mut c, 0, 192, 0).is_err());
        assert!(update_evtsema_first_and_last_inst(&mut c, 64, 64, 0).is_err());
    }
}
