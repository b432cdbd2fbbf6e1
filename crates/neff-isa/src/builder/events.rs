//! The 8-byte events tuple at record +0x04 (spec 003 §1.2 (b), spec 001 §4).

/// Byte offset of the events tuple in every record (spec 001 "copy *events to +0x04").
pub const EVENTS_OFFSET: usize = 0x04;

/// `get_event_semaphore_wait_update` (@0x276cb0, spec 001 §4): packs
/// `value<<32 | update_idx<<24 | update_mode<<16 | wait_idx<<8 | wait_mode`, the u64 a builder
/// copies (little-endian) to +0x04.
pub const fn get_event_semaphore_wait_update(
    wait_mode: u8,
    wait_idx: u8,
    update_mode: u8,
    update_idx: u8,
    value: u32,
) -> u64 {
    ((value as u64) << 32)
        | ((update_idx as u64) << 24)
        | ((update_mode as u64) << 16)
        | ((wait_idx as u64) << 8)
        | wait_mode as u64
}

/// The five fields of a packed events tuple, for patchers and translators that edit one field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct EventsFields {
    /// Wait mode (+0x04).
    pub wait_mode: u8,
    /// Semaphore waited on (+0x05).
    pub wait_idx: u8,
    /// Update mode (+0x06).
    pub update_mode: u8,
    /// Semaphore updated (+0x07).
    pub update_idx: u8,
    /// `semaphore_value` (+0x08, u32).
    pub value: u32,
}

impl EventsFields {
    /// Unpacks a tuple packed by [`get_event_semaphore_wait_update`].
    pub const fn unpack(ev: u64) -> Self {
        Self {
            wait_mode: ev as u8,
            wait_idx: (ev >> 8) as u8,
            update_mode: (ev >> 16) as u8,
            update_idx: (ev >> 24) as u8,
            value: (ev >> 32) as u32,
        }
    }

    /// Packs the fields back.
    pub const fn pack(self) -> u64 {
        get_event_semaphore_wait_update(
            self.wait_mode,
            self.wait_idx,
            self.update_mode,
            self.update_idx,
            self.value,
        )
    }

    /// Reads the tuple at +0x04 of a 64-byte record (or any slice of at least 12 bytes).
    pub fn read(record: &[u8]) -> Option<Self> {
        let b: [u8; 8] = record
            .get(EVENTS_OFFSET..EVENTS_OFFSET + 8)?
            .try_into()
            .ok()?;
        Some(Self::unpack(u64::from_le_bytes(b)))
    }
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
        assert_eq!(EventsFields::unpack(ev).pack(), ev);
        assert_eq!(EventsFields::unpack(ev).value, 16);
    }
}
