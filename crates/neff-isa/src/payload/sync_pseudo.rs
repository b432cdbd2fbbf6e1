//! PSEUDO_SEMAPHORE_SET 0xC5 and PSEUDO_SYNC_BARRIER 0xD5: the operands the semaphore recipes of
//! spec 001 §4 read (slot layouts decision D56). The disassembler decodes both generically (their
//! payload is printed as raw overlays); these views are the lowering's readers and the writers of
//! tests and synthetic programs, so each offset is declared here once (decision D421).

use crate::layout::view;

view! {
    /// A PSEUDO_SEMAPHORE_SET slot (decision D56): `semaphore[id] = value`.
    SemaphoreSet / SemaphoreSetMut = SEMAPHORE_SET "PSEUDO_SEMAPHORE_SET" {
        /// +0x0C the semaphore written.
        semaphore: u8 @ 0x0C, Always;
        /// +0x10 the value written, u32.
        value: u32 @ 0x10, Always;
    }
}

view! {
    /// A PSEUDO_SYNC_BARRIER slot (decision D56): lowered by `add_sync_barrier` (spec 001 §4).
    SyncBarrier / SyncBarrierMut = SYNC_BARRIER "PSEUDO_SYNC_BARRIER" {
        /// +0x0C the barrier semaphore.
        semaphore: u8 @ 0x0C, Always;
        /// +0x10 the number of participants, u32.
        participants: u32 @ 0x10, Always;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::opcode::Opcode;
    use crate::slot::{Slot, SlotBuf};

    /// The writer places what the view reads, at D56's offsets.
    #[test]
    fn semaphore_set_and_barrier_round_trip_at_d56_offsets() {
        let mut b = SlotBuf::new(Opcode::PSEUDO_SEMAPHORE_SET);
        SemaphoreSetMut(&mut b).semaphore(7).value(0x0102_0304);
        assert_eq!((b.0[0x0C], &b.0[0x10..0x14]), (7, &[4, 3, 2, 1][..]));
        let s = SemaphoreSet(Slot::new(&b.0));
        assert_eq!((s.semaphore(), s.value()), (7, 0x0102_0304));
        let mut b = SlotBuf::new(Opcode::PSEUDO_SYNC_BARRIER);
        SyncBarrierMut(&mut b).semaphore(3).participants(5);
        let s = SyncBarrier(Slot::new(&b.0));
        assert_eq!((s.semaphore(), s.participants()), (3, 5));
    }
}
