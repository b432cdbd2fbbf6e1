//! Control records without operands of their own: NOP, NOTIFY, and the barrier / reset recipes
//! of the POSTAMBLE (spec 000 §8.1) built from the semaphore emitters.
//!
//! NOP (0xa4) and NOTIFY (0xa6) bytes are decision D52: NOP is the events tuple only (the shape
//! of the real 0xa4 slots, reference §4.4); NOTIFY carries its two arguments as u32 at +0x10 and
//! +0x14, declared once by the `NOTIFY` payload view (crate::payload::Notify).

use super::codes::{OP_NOP, OP_NOTIFY, WAIT_SEM_GE_IMM};
use super::events::get_event_semaphore_wait_update;
use super::record::{new_record, new_slot};
use super::semaphore::{add_evsem, add_sema_clear, add_semaphore_inc};
use super::sink::add_ins;
use crate::payload::NotifyMut;

/// `add_nop` (@0x273d40): a NOP that still carries `events` (the dbg_cc_nop trigger, spec 001 §3).
pub fn add_nop(chunk: &mut Vec<u8>, offset: usize, events: Option<u64>) -> usize {
    add_ins(chunk, offset, &new_record(OP_NOP, events))
}

/// `add_notify(chunk, off, queue, value)` (spec 000 §8.1: `add_notify(scratch, off, 0, 3)` is the
/// execution-DONE notify).
pub fn add_notify(chunk: &mut Vec<u8>, offset: usize, queue: u32, value: u32) -> usize {
    let mut rec = new_slot(OP_NOTIFY, None);
    NotifyMut(&mut rec).queue(queue).value(value);
    add_ins(chunk, offset, &rec.0)
}

/// `add_sync_barrier` (@0x27af20; spec 001 §4 "add_sync_barrier -> add_semaphore_inc"): every
/// participant increments the barrier semaphore, then waits until it reaches `participants`
/// (decision D52: two records, inc then an EVENT_SEMAPHORE wait SEM_GE_IMM).
pub fn add_sync_barrier(
    chunk: &mut Vec<u8>,
    offset: usize,
    barrier_semaphore: u8,
    participants: u32,
) -> usize {
    let offset = add_semaphore_inc(chunk, offset, barrier_semaphore);
    let wait =
        get_event_semaphore_wait_update(WAIT_SEM_GE_IMM, barrier_semaphore, 0, 0, participants);
    add_evsem(chunk, offset, Some(wait))
}

/// `add_sema_reset` (spec 000 §8.1): clears the given semaphores, one CTRL_ER per contiguous run
/// (decision D52).
pub fn add_sema_reset(chunk: &mut Vec<u8>, mut offset: usize, semaphores: &[u8]) -> usize {
    let mut sorted = semaphores.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut i = 0;
    while i < sorted.len() {
        let first = sorted[i];
        let mut last = first;
        while i + 1 < sorted.len() && sorted[i + 1] == last.wrapping_add(1) {
            i += 1;
            last = sorted[i];
        }
        offset = add_sema_clear(chunk, offset, u32::from(first), u32::from(last), None);
        i += 1;
    }
    offset
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nop_and_notify_bytes() {
        let mut c = Vec::new();
        add_nop(&mut c, 0, Some(0x1304));
        assert_eq!(&c[0..8], &[0xa4, 0x10, 0, 0, 0x04, 0x13, 0, 0]);
        let mut c = Vec::new();
        add_notify(&mut c, 0, 0, 3);
        assert_eq!(&c[0..2], &[0xa6, 0x10]);
        assert_eq!((c[0x10], c[0x14]), (0, 3));
    }

    #[test]
    fn sync_barrier_is_inc_then_wait() {
        let mut c = Vec::new();
        assert_eq!(add_sync_barrier(&mut c, 0, 30, 5), 128);
        assert_eq!((c[0], c[0x22], c[0x23], c[0x28]), (0xa0, 0x15, 30, 1));
        assert_eq!(&c[64..76], &[0xa0, 0x10, 0, 0, 5, 30, 0, 0, 5, 0, 0, 0]);
    }

    #[test]
    fn sema_reset_clears_contiguous_runs() {
        let mut c = Vec::new();
        assert_eq!(add_sema_reset(&mut c, 0, &[4, 2, 3, 9]), 128);
        assert_eq!((c[0], c[0x10], c[0x14]), (0xb0, 2, 4));
        assert_eq!((c[64 + 0x10], c[64 + 0x14]), (9, 9));
    }
}
