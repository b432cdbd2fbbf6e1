//! EVENT_SEMAPHORE 0xA0 (CTRL_ES, spec 001 §4): the standard events at +4 plus a
//! `setter_signature` at +0x0C (S5 via reference search; decision D8) and the 12-byte
//! `events_extended` block at +0x20 that `add_semaphore_inc` fills.

use crate::layout::view;

view! {
    /// An EVENT_SEMAPHORE (CTRL_ES) slot (spec 001 §4; spec 003 §7.2 slot 2).
    EventSemaphore / EventSemaphoreMut = EVENT_SEMAPHORE "CTRL_ES" {
        /// +0x0C `setter_signature` u32 (decision D8), printed `setter=0` as the profiler does
        /// (decision D137).
        setter_signature: u32 @ 0x0C as "setter", Always;
        /// +0x20 `events_extended` (spec 001 §4).
        es: events_ext @ 0x20, NonZero;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::UpdateMode;
    use crate::slot::Slot;

    /// spec 001 §4 `add_semaphore_inc(sem 7)`: 0x15 at +0x22, id at +0x23, 1 at +0x28.
    #[test]
    fn add_semaphore_inc_record_reads_back() {
        let mut b = [0u8; 64];
        b[..2].copy_from_slice(&[0xa0, 0x10]);
        b[0x22] = 0x15;
        b[0x23] = 7;
        b[0x28] = 1;
        let es = EventSemaphore::new(Slot::new(&b)).expect("0xA0").es();
        assert_eq!(
            UpdateMode::from_u8(es.update_mode),
            Some(UpdateMode::SemAddImmComplete)
        );
        assert_eq!((es.update_idx, es.sem_update_value), (7, 1));
    }
}
