//! The 8-byte events tuple at record +0x04 (spec 003 §1.2 (b), spec 001 §4): spec 001's packer.
//! The tuple itself is the one [`Events`] type of `crate::events`.

pub use crate::events::EVENTS_OFFSET;
use crate::events::Events;

/// `get_event_semaphore_wait_update` (@0x276cb0, spec 001 §4): packs
/// `value<<32 | update_idx<<24 | update_mode<<16 | wait_idx<<8 | wait_mode`, the u64 a builder
/// copies (little-endian) to +0x04; [`Events::pack`] of those fields.
pub const fn get_event_semaphore_wait_update(
    wait_mode: u8,
    wait_idx: u8,
    update_mode: u8,
    update_idx: u8,
    value: u32,
) -> u64 {
    Events {
        wait_mode,
        wait_idx,
        update_mode,
        update_idx,
        semaphore_value: value,
    }
    .pack()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packer_matches_spec_formula_and_sample_bytes() {
        // pe.bin slot 0 events (spec 003 §7.1): 04 0a 13 16 00 00 00 00 = $S[10]>0, $S[22]++.
        let ev = get_event_semaphore_wait_update(0x04, 0x0a, 0x13, 0x16, 0);
        assert_eq!(ev.to_le_bytes(), [0x04, 0x0a, 0x13, 0x16, 0, 0, 0, 0]);
        let ev = get_event_semaphore_wait_update(5, 0x18, 0, 0, 16);
        assert_eq!(ev, (16u64 << 32) | (0x18 << 8) | 5);
        assert_eq!(Events::unpack(ev).pack(), ev);
        assert_eq!(Events::unpack(ev).semaphore_value, 16);
    }
}
