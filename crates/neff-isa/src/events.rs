//! The synchronization block after the header (spec 003 §1.2), in both dialects.
//!
//! * [`Events`]: the 8-byte NEURON_ISA semaphore form `{wait_mode, wait_idx, update_mode,
//!   update_idx, semaphore_value u32}` at +4, the default (decision D2; the spec sample and every
//!   real NEFF use it, spec 003 §7.2 proof, reference §4.1).
//! * [`LegacyEvents`]: the 4-byte TONGA form `{wait_event_mode, wait_event_idx, set_event_mode,
//!   set_event_idx}` (spec 003 §1.2 (a)), selectable with [`Dialect::Legacy4`].
//! * [`EventsExtended`]: the 12-byte `events_extended` block of CTRL_ES at +0x20 (spec 001 §4).

/// Which events dialect a stream uses (decision D2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Dialect {
    /// The 8-byte NEURON_ISA semaphore events (spec 003 §1.2 (b)); payloads start at +0x0C.
    #[default]
    Semaphore8,
    /// The legacy 4-byte TONGA events (spec 003 §1.2 (a)); payloads start at +0x08.
    Legacy4,
}

/// Defines a `u8` enum with its text names; `from_u8` returns `None` for unnamed values.
macro_rules! mode_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $value:literal,)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum $name {
            $($(#[$vdoc])* $variant = $value,)*
        }

        impl $name {
            /// Every named value.
            pub const ALL: &'static [$name] = &[$($name::$variant,)*];

            /// The mode named by byte `v`, if any.
            #[inline]
            pub const fn from_u8(v: u8) -> Option<Self> {
                match v {
                    $($value => Some(Self::$variant),)*
                    _ => None,
                }
            }
        }
    };
}

mode_enum! {
    /// `wait_mode` of the 8-byte events (reference §4.1, S5 names; GT=4 and GE=5 verified by the
    /// sample's `$S[10]>0`, spec 003 §7, and real `>= 16` DMA waits, reference §4.4). The `_REG`
    /// forms are the immediate forms `| 0x80` (`WAIT_FOR_SEM_GE_REG = 0x85`): the value names a
    /// register.
    WaitMode {
        /// No wait.
        None = 0,
        /// Wait until `sem[idx] == value`.
        SemEqImm = 1,
        /// Wait until `sem[idx] < value`.
        SemLtImm = 2,
        /// Wait until `sem[idx] <= value`.
        SemLeImm = 3,
        /// Wait until `sem[idx] > value`.
        SemGtImm = 4,
        /// Wait until `sem[idx] >= value`.
        SemGeImm = 5,
        /// Wait until event `idx` is set.
        EvtSet = 6,
        /// Wait until event `idx` is set, then clear it.
        EvtSetThenClear = 7,
        /// Wait until event `idx` is clear.
        EvtClear = 14,
        /// Wait until event `idx` is clear, then set it.
        EvtClearThenSet = 15,
        /// Wait until `sem[idx] == reg[value]`.
        SemEqReg = 0x81,
        /// Wait until `sem[idx] < reg[value]`.
        SemLtReg = 0x82,
        /// Wait until `sem[idx] <= reg[value]`.
        SemLeReg = 0x83,
        /// Wait until `sem[idx] > reg[value]`.
        SemGtReg = 0x84,
        /// Wait until `sem[idx] >= reg[value]`.
        SemGeReg = 0x85,
    }
}

mode_enum! {
    /// `update_mode` of the 8-byte events (reference §4.1, S5 names): the `_READ` forms act when
    /// the instruction reads its inputs, the `_COMPLETE` forms (`+16`) when it completes
    /// (`0x13` = SEM_INC on complete, spec 003 §7.1; `0x15` SEM_ADD_IMM_COMPLETE, spec 001 §4).
    UpdateMode {
        /// No update.
        None = 0,
        /// Set event `idx`.
        EvtSetRead = 1,
        /// Clear event `idx`.
        EvtClrRead = 2,
        /// `sem[idx] += 1`.
        SemIncRead = 3,
        /// `sem[idx] -= 1`.
        SemDecRead = 4,
        /// `sem[idx] += value`.
        SemAddImmRead = 5,
        /// `sem[idx] -= value`.
        SemSubImmRead = 7,
        /// `sem[idx] = value`.
        SemWrImmRead = 9,
        /// Set event `idx` on completion.
        EvtSetComplete = 17,
        /// Clear event `idx` on completion.
        EvtClrComplete = 18,
        /// `sem[idx] += 1` on completion.
        SemIncComplete = 19,
        /// `sem[idx] -= 1` on completion.
        SemDecComplete = 20,
        /// `sem[idx] += value` on completion.
        SemAddImmComplete = 21,
        /// `sem[idx] -= value` on completion.
        SemSubImmComplete = 23,
        /// `sem[idx] = value` on completion.
        SemWrImmComplete = 25,
    }
}

impl WaitMode {
    /// Whether the wait reads `semaphore_value` (every semaphore comparison does; event waits
    /// do not).
    pub const fn uses_value(self) -> bool {
        !matches!(
            self,
            Self::None
                | Self::EvtSet
                | Self::EvtSetThenClear
                | Self::EvtClear
                | Self::EvtClearThenSet
        )
    }
}

impl UpdateMode {
    /// Whether the update reads `semaphore_value` (add, subtract, write).
    pub const fn uses_value(self) -> bool {
        matches!(
            self,
            Self::SemAddImmRead
                | Self::SemSubImmRead
                | Self::SemWrImmRead
                | Self::SemAddImmComplete
                | Self::SemSubImmComplete
                | Self::SemWrImmComplete
        )
    }

    /// Whether the update fires on completion (`_COMPLETE`, the `+16` forms).
    pub const fn on_complete(self) -> bool {
        (self as u8) >= 16
    }
}

/// Byte offset of the 8-byte events block in every slot and every lowered record (spec 003 §1.2
/// (b); spec 001 §4 "copy *events to +0x04").
pub const EVENTS_OFFSET: usize = 0x04;

/// The 8-byte NEURON_ISA events block at +4 (spec 003 §1.2 (b), reference §4.1). Plain bytes:
/// modes are kept raw so unknown values survive; [`Events::wait`] / [`Events::update`] name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Events {
    /// +4 `wait_mode` (raw; see [`WaitMode`]).
    pub wait_mode: u8,
    /// +5 `wait_idx`: semaphore or event index.
    pub wait_idx: u8,
    /// +6 `update_mode` (raw; see [`UpdateMode`]).
    pub update_mode: u8,
    /// +7 `update_idx`: semaphore or event index.
    pub update_idx: u8,
    /// +8 `semaphore_value` u32, shared by the wait and the update.
    pub semaphore_value: u32,
}

impl Events {
    /// No wait, no update.
    pub const NONE: Events = Events {
        wait_mode: 0,
        wait_idx: 0,
        update_mode: 0,
        update_idx: 0,
        semaphore_value: 0,
    };

    /// Decodes the 8 bytes at slot +4.
    #[inline]
    pub const fn from_bytes(b: [u8; 8]) -> Self {
        Self {
            wait_mode: b[0],
            wait_idx: b[1],
            update_mode: b[2],
            update_idx: b[3],
            semaphore_value: u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
        }
    }

    /// Encodes to the 8 bytes at slot +4. The same value as spec 001 §4's
    /// `get_event_semaphore_wait_update` packer read little-endian.
    #[inline]
    pub const fn to_bytes(self) -> [u8; 8] {
        let v = self.semaphore_value.to_le_bytes();
        [
            self.wait_mode,
            self.wait_idx,
            self.update_mode,
            self.update_idx,
            v[0],
            v[1],
            v[2],
            v[3],
        ]
    }

    /// The events as the u64 spec 001 §4's `get_event_semaphore_wait_update` packs:
    /// `value<<32 | update_idx<<24 | update_mode<<16 | wait_idx<<8 | wait_mode`, the value a
    /// builder copies little-endian to +0x04.
    #[inline]
    pub const fn pack(self) -> u64 {
        u64::from_le_bytes(self.to_bytes())
    }

    /// Unpacks a tuple packed by [`Events::pack`] (or spec 001 §4's packer).
    #[inline]
    pub const fn unpack(ev: u64) -> Self {
        Self::from_bytes(ev.to_le_bytes())
    }

    /// Reads the tuple at [`EVENTS_OFFSET`] of a record (any slice of at least 12 bytes; `None`
    /// when it is shorter).
    #[inline]
    pub fn read(record: &[u8]) -> Option<Self> {
        let b: [u8; 8] = record
            .get(EVENTS_OFFSET..EVENTS_OFFSET + 8)?
            .try_into()
            .ok()?;
        Some(Self::from_bytes(b))
    }

    /// Writes the tuple at [`EVENTS_OFFSET`] of a record (`None`, writing nothing, when it is
    /// shorter than 12 bytes): the inverse of [`Events::read`].
    #[inline]
    pub fn write(self, record: &mut [u8]) -> Option<()> {
        record
            .get_mut(EVENTS_OFFSET..EVENTS_OFFSET + 8)?
            .copy_from_slice(&self.to_bytes());
        Some(())
    }

    /// The named wait mode, or `None` if the byte is not a known mode.
    #[inline]
    pub const fn wait(self) -> Option<WaitMode> {
        WaitMode::from_u8(self.wait_mode)
    }

    /// The named update mode, or `None` if the byte is not a known mode.
    #[inline]
    pub const fn update(self) -> Option<UpdateMode> {
        UpdateMode::from_u8(self.update_mode)
    }

    /// Whether every byte is zero (nothing to print).
    #[inline]
    pub const fn is_none(self) -> bool {
        self.wait_mode == 0
            && self.wait_idx == 0
            && self.update_mode == 0
            && self.update_idx == 0
            && self.semaphore_value == 0
    }
}

/// The legacy 4-byte TONGA events block at +4 (spec 003 §1.2 (a)): event indices into the
/// 256-event space (`TONGA_ISA_TPB_NUM_EVENTS`). Modes are raw bytes (decision D2: the 4-byte
/// `WAIT_EVENT_MODE` constants are not in the spec pages).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct LegacyEvents {
    /// +4 `wait_event_mode`.
    pub wait_event_mode: u8,
    /// +5 `wait_event_idx`.
    pub wait_event_idx: u8,
    /// +6 `set_event_mode`.
    pub set_event_mode: u8,
    /// +7 `set_event_idx`.
    pub set_event_idx: u8,
}

impl LegacyEvents {
    /// Decodes the 4 bytes at slot +4.
    #[inline]
    pub const fn from_bytes(b: [u8; 4]) -> Self {
        Self {
            wait_event_mode: b[0],
            wait_event_idx: b[1],
            set_event_mode: b[2],
            set_event_idx: b[3],
        }
    }

    /// Encodes to the 4 bytes at slot +4.
    #[inline]
    pub const fn to_bytes(self) -> [u8; 4] {
        [
            self.wait_event_mode,
            self.wait_event_idx,
            self.set_event_mode,
            self.set_event_idx,
        ]
    }
}

/// The 12-byte `events_extended` block of CTRL_ES (EVENT_SEMAPHORE 0xA0) at +0x20 (spec 001 §4):
/// the two-stage wait/update with separate wait and update values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct EventsExtended {
    /// +0x20 `wait_mode` (raw; see [`WaitMode`]).
    pub wait_mode: u8,
    /// +0x21 `wait_idx`.
    pub wait_idx: u8,
    /// +0x22 `update_mode` (raw; see [`UpdateMode`]; `add_semaphore_inc` stamps 0x15).
    pub update_mode: u8,
    /// +0x23 `update_idx`.
    pub update_idx: u8,
    /// +0x24 `sem_wait_value` u32.
    pub sem_wait_value: u32,
    /// +0x28 `sem_update_value` u32.
    pub sem_update_value: u32,
}

impl EventsExtended {
    /// Offset of the block inside the slot (spec 001 §4).
    pub const OFFSET: usize = 0x20;

    /// Decodes the 12 bytes at slot +0x20.
    pub fn from_bytes(b: &[u8; 12]) -> Self {
        Self {
            wait_mode: b[0],
            wait_idx: b[1],
            update_mode: b[2],
            update_idx: b[3],
            sem_wait_value: u32::from_le_bytes([b[4], b[5], b[6], b[7]]),
            sem_update_value: u32::from_le_bytes([b[8], b[9], b[10], b[11]]),
        }
    }

    /// Encodes to the 12 bytes at slot +0x20.
    pub fn to_bytes(self) -> [u8; 12] {
        let w = self.sem_wait_value.to_le_bytes();
        let u = self.sem_update_value.to_le_bytes();
        [
            self.wait_mode,
            self.wait_idx,
            self.update_mode,
            self.update_idx,
            w[0],
            w[1],
            w[2],
            w[3],
            u[0],
            u[1],
            u[2],
            u[3],
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// spec 003 §7.1: pe.bin events `04 0a 13 16 00 00 00 00` = wait $S[10]>0, $S[22]++@complete.
    #[test]
    fn sample_collective_events_decode() {
        let e = Events::from_bytes([0x04, 0x0a, 0x13, 0x16, 0, 0, 0, 0]);
        assert_eq!(e.wait(), Some(WaitMode::SemGtImm));
        assert_eq!(e.wait_idx, 10);
        assert_eq!(e.update(), Some(UpdateMode::SemIncComplete));
        assert_eq!(e.update_idx, 22);
        assert_eq!(e.to_bytes(), [0x04, 0x0a, 0x13, 0x16, 0, 0, 0, 0]);
    }

    /// spec 001 §4: the packer is (value<<32)|(update_idx<<24)|(update_mode<<16)|(wait_idx<<8)|wait_mode.
    #[test]
    fn packing_matches_get_event_semaphore_wait_update() {
        let e = Events {
            wait_mode: 5,
            wait_idx: 9,
            update_mode: 0x13,
            update_idx: 6,
            semaphore_value: 16,
        };
        let packed = (16u64 << 32) | (6 << 24) | (0x13 << 16) | (9 << 8) | 5;
        assert_eq!(u64::from_le_bytes(e.to_bytes()), packed);
    }
}
