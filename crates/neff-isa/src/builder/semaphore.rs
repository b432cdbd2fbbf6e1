//! The event-semaphore emitters (spec 001 §4): CTRL_ES 0x10a0, CTRL_POLL_SEM 0x10b3,
//! CTRL_ER 0x10b0.
//!
//! CTRL_ES carries its own sync payload in `events_extended` at +0x20 (spec 001 §4: wait_mode
//! +0x20, wait_idx +0x21, update_mode +0x22, update_idx +0x23, sem_wait_value +0x24,
//! sem_update_value +0x28). The POLL_SEM operand offsets and the CTRL_ER range offsets are not
//! given by the spec (decision D52): POLL_SEM +0x0c alu_op, +0x10 sema address u64, +0x18
//! write-back address u64, +0x20 n_read u32, +0x24 register; CTRL_ER +0x10 first u32,
//! +0x14 last u32. Each offset is declared once, in the payload views (`EVENT_SEMAPHORE`,
//! `POLL_SEM`, `RANGE_CLEAR` of crate::payload), whose writers these builders call.

use super::codes::{
    ALU_MIN, OP_EVENT_SEMAPHORE, OP_EVENT_SEMAPHORE_RANGE_CLEAR, OP_POLL_SEM,
    UPDATE_SEM_ADD_IMM_COMPLETE, UPDATE_SEM_WR_IMM_COMPLETE, WAIT_SEM_EQ_IMM,
};
use super::record::{new_record, new_slot};
use super::sink::add_ins;
use crate::EventsExtended;
use crate::payload::{EventSemaphoreMut, PollSemMut, RangeClearMut};

/// `add_evsem` (@0x2737d0): a bare EVENT_SEMAPHORE record whose only content is the events tuple
/// at +0x04 (the shape of every 0xa0 slot in real streams, reference §4.5).
pub fn add_evsem(chunk: &mut Vec<u8>, offset: usize, events: Option<u64>) -> usize {
    add_ins(chunk, offset, &new_record(OP_EVENT_SEMAPHORE, events))
}

/// `add_semaphore_inc_val` (@0x273820, spec 001 §4): `semaphore[id] += delta`; update_mode
/// SEM_ADD_IMM_COMPLETE (0x15) at +0x22, id at +0x23, delta at +0x28.
pub fn add_semaphore_inc_val(
    chunk: &mut Vec<u8>,
    offset: usize,
    semaphore_id: u8,
    delta: u32,
) -> usize {
    let mut rec = new_slot(OP_EVENT_SEMAPHORE, None);
    EventSemaphoreMut(&mut rec).es(EventsExtended {
        update_mode: UPDATE_SEM_ADD_IMM_COMPLETE,
        update_idx: semaphore_id,
        sem_update_value: delta,
        ..EventsExtended::default()
    });
    add_ins(chunk, offset, &rec.0)
}

/// The record PSEUDO_SEMAPHORE_SET 0xC5 lowers to (decision D56): `semaphore[id] = value` on
/// completion, one CTRL_ES carrying `events` with events_extended {update SEM_WR_IMM_COMPLETE,
/// id, value at +0x28}.
pub fn add_semaphore_set(
    chunk: &mut Vec<u8>,
    offset: usize,
    semaphore_id: u8,
    value: u32,
    events: Option<u64>,
) -> usize {
    let mut rec = new_slot(OP_EVENT_SEMAPHORE, events);
    EventSemaphoreMut(&mut rec).es(EventsExtended {
        update_mode: UPDATE_SEM_WR_IMM_COMPLETE,
        update_idx: semaphore_id,
        sem_update_value: value,
        ..EventsExtended::default()
    });
    add_ins(chunk, offset, &rec.0)
}

/// `add_semaphore_inc` (@0x273860, spec 001 §4): `semaphore[id] += 1` (a literal 1 at +0x28).
pub fn add_semaphore_inc(chunk: &mut Vec<u8>, offset: usize, semaphore_id: u8) -> usize {
    add_semaphore_inc_val(chunk, offset, semaphore_id, 1)
}

/// `add_semaphore_wait_eq_and_clear` (spec 001 §4, the embedding-update sync): wait until
/// `semaphore[id] == value`, then write 0 to it — one CTRL_ES with events_extended
/// {SEM_EQ_IMM, id, SEM_WR_IMM_COMPLETE, id, value, 0} (decision D52).
pub fn add_semaphore_wait_eq_and_clear(
    chunk: &mut Vec<u8>,
    offset: usize,
    semaphore_id: u8,
    value: u32,
) -> usize {
    let mut rec = new_slot(OP_EVENT_SEMAPHORE, None);
    EventSemaphoreMut(&mut rec).es(EventsExtended {
        wait_mode: WAIT_SEM_EQ_IMM,
        wait_idx: semaphore_id,
        update_mode: UPDATE_SEM_WR_IMM_COMPLETE,
        update_idx: semaphore_id,
        sem_wait_value: value,
        sem_update_value: 0,
    });
    add_ins(chunk, offset, &rec.0)
}

/// `add_poll_sem` (@0x271820, spec 001 §4): poll the semaphore at `addr` `n_read` times into
/// `reg` with ALU sub-op MIN, writing back to `wb_addr`.
#[allow(clippy::too_many_arguments)] // the runtime's ABI, operand for operand
pub fn add_poll_sem(
    chunk: &mut Vec<u8>,
    offset: usize,
    addr: u64,
    n_read: u32,
    reg: u8,
    wb_addr: u64,
    events: Option<u64>,
) -> usize {
    let mut rec = new_slot(OP_POLL_SEM, events);
    PollSemMut(&mut rec)
        .op(ALU_MIN)
        .addr(addr)
        .wb_addr(wb_addr)
        .n_read(n_read)
        .reg(reg);
    add_ins(chunk, offset, &rec.0)
}

/// `add_sema_clear` (@0x271880, spec 001 §4): clear the semaphore range `[first, last]`.
pub fn add_sema_clear(
    chunk: &mut Vec<u8>,
    offset: usize,
    range_first: u32,
    range_last: u32,
    events: Option<u64>,
) -> usize {
    let mut rec = new_slot(OP_EVENT_SEMAPHORE_RANGE_CLEAR, events);
    RangeClearMut(&mut rec).first(range_first).last(range_last);
    add_ins(chunk, offset, &rec.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semaphore_inc_bytes_match_spec() {
        let mut c = Vec::new();
        assert_eq!(add_semaphore_inc(&mut c, 0, 22), 64);
        let mut want = [0u8; 64];
        want[0..2].copy_from_slice(&[0xa0, 0x10]);
        want[0x22] = 0x15;
        want[0x23] = 22;
        want[0x28] = 1;
        assert_eq!(c, want);
        let mut c = Vec::new();
        add_semaphore_inc_val(&mut c, 0, 3, 16);
        assert_eq!((c[0x22], c[0x23], c[0x28]), (0x15, 3, 16));
    }

    #[test]
    fn evsem_is_events_only() {
        let mut c = Vec::new();
        // The real PE slot `a0 10 00 00 | 05 18 00 00 | 10 00 00 00` (reference §4.5).
        add_evsem(&mut c, 0, Some((16u64 << 32) | (0x18 << 8) | 5));
        assert_eq!(&c[0..12], &[0xa0, 0x10, 0, 0, 5, 0x18, 0, 0, 0x10, 0, 0, 0]);
        assert!(c[12..].iter().all(|&b| b == 0));
    }

    #[test]
    fn poll_sem_and_sema_clear_bytes() {
        let mut c = Vec::new();
        add_poll_sem(&mut c, 0, 0x1000, 4, 2, 0x2000, None);
        assert_eq!(&c[0..2], &[0xb3, 0x10]);
        assert_eq!(c[0x0c], 0x09, "MIN");
        assert_eq!((c[0x11], c[0x19], c[0x20], c[0x24]), (0x10, 0x20, 4, 2));
        let mut c = Vec::new();
        add_sema_clear(&mut c, 0, 5, 9, None);
        assert_eq!(&c[0..2], &[0xb0, 0x10]);
        assert_eq!((c[0x10], c[0x14]), (5, 9));
    }

    #[test]
    fn wait_eq_and_clear_uses_events_extended() {
        let mut c = Vec::new();
        add_semaphore_wait_eq_and_clear(&mut c, 0, 7, 16);
        assert_eq!(&c[0x20..0x2c], &[1, 7, 0x19, 7, 16, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&c[4..12], &[0; 8]);
    }
}
