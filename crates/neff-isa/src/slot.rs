//! The 64-byte TPB instruction slot (spec 003 §1): a zero-copy view [`Slot`] over `&[u8; 64]` and
//! an owned buffer [`SlotBuf`], with the common 4-byte header (spec 003 §1.1).
//!
//! Header layout (spec 003 §1.1, reference §4.1): `+0 opcode u8`, `+1 inst_word_len u8` (in 4-byte
//! words, always 16), `+2 debug_cmd u8` (trace mode bits 0-1, halt bit 7), `+3 debug_hint u8`.

use crate::events::{Events, LegacyEvents};
use crate::opcode::Opcode;

/// `TONGA_ISA_TPB_INST_NBYTES` (spec 003 §1; `TPB_INST_NBYTES` of spec 001 §1): bytes in one TPB
/// instruction slot. The workspace's one slot size: every slot count <-> byte length conversion
/// uses it or [`SLOT_SHIFT`].
pub const SLOT_BYTES: usize = 64;
/// `log2(SLOT_BYTES)`: the runtime's `<< 6` / `>> 6` between slot counts and byte lengths (spec 001
/// §1), for arithmetic in `u64` / `i128` (device addresses, patch rows) where shifting needs no cast.
pub const SLOT_SHIFT: u32 = SLOT_BYTES.trailing_zeros();
/// `TONGA_ISA_TPB_INST_NWORDS` (spec 003 §1): the only valid `inst_word_len` (16 words of 4 bytes).
pub const INST_NWORDS: u8 = 16;

/// Trace mode of `debug_cmd` bits 0-1 (spec 003 §1.1: `TRACE_MODE_SHIFT=0, SIZE=2`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum TraceMode {
    /// `DISABLE` = 0.
    Disable = 0,
    /// `GEN_ON_START` = 1.
    GenOnStart = 1,
    /// `GEN_ON_END` = 2.
    GenOnEnd = 2,
    /// `GEN_ON_START_AND_END` = 3.
    GenOnStartAndEnd = 3,
}

impl TraceMode {
    /// The trace mode held in the low two bits of `debug_cmd`.
    pub const fn from_debug_cmd(debug_cmd: u8) -> Self {
        match debug_cmd & 0x3 {
            0 => Self::Disable,
            1 => Self::GenOnStart,
            2 => Self::GenOnEnd,
            _ => Self::GenOnStartAndEnd,
        }
    }
}

/// Reads the little-endian fields of a 64-byte slot; shared by [`Slot`] and [`SlotBuf`].
macro_rules! slot_readers {
    () => {
        /// The opcode byte at +0 (spec 003 §1.1).
        #[inline]
        pub fn opcode(&self) -> Opcode {
            Opcode(self.bytes()[0])
        }

        /// `inst_word_len` at +1, in 4-byte words; 16 in every valid slot (spec 003 §1.1 QUIRK).
        #[inline]
        pub fn inst_word_len(&self) -> u8 {
            self.bytes()[1]
        }

        /// `debug_cmd` at +2 (trace mode bits 0-1, halt-enable bit 7; spec 003 §1.1).
        #[inline]
        pub fn debug_cmd(&self) -> u8 {
            self.bytes()[2]
        }

        /// The trace mode, `debug_cmd` bits 0-1 (spec 003 §1.1).
        #[inline]
        pub fn trace_mode(&self) -> TraceMode {
            TraceMode::from_debug_cmd(self.debug_cmd())
        }

        /// The halt-enable flag, `debug_cmd` bit 7 (spec 003 §1.1: `HALT_EN_SHIFT=7`).
        #[inline]
        pub fn halt_enabled(&self) -> bool {
            self.debug_cmd() & 0x80 != 0
        }

        /// `debug_hint` at +3 (spec 003 §1.1; branch builders stamp 2, spec 001 §2).
        #[inline]
        pub fn debug_hint(&self) -> u8 {
            self.bytes()[3]
        }

        /// The 8-byte semaphore events block at +4 (spec 003 §1.2 (b); decision D2).
        #[inline]
        pub fn events(&self) -> Events {
            Events::from_bytes(self.u64_at(4).to_le_bytes())
        }

        /// The legacy 4-byte TONGA events block at +4 (spec 003 §1.2 (a); decision D2).
        #[inline]
        pub fn legacy_events(&self) -> LegacyEvents {
            LegacyEvents::from_bytes(self.u32_at(4).to_le_bytes())
        }

        /// The byte at `off` (`off < 64`).
        #[inline]
        pub fn u8_at(&self, off: usize) -> u8 {
            self.bytes()[off]
        }

        /// The little-endian `u16` at `off` (`off + 2 <= 64`).
        #[inline]
        pub fn u16_at(&self, off: usize) -> u16 {
            let b = self.bytes();
            u16::from_le_bytes([b[off], b[off + 1]])
        }

        /// The little-endian `u32` at `off` (`off + 4 <= 64`).
        #[inline]
        pub fn u32_at(&self, off: usize) -> u32 {
            let b = self.bytes();
            u32::from_le_bytes([b[off], b[off + 1], b[off + 2], b[off + 3]])
        }

        /// The little-endian `u64` at `off` (`off + 8 <= 64`).
        #[inline]
        pub fn u64_at(&self, off: usize) -> u64 {
            let b = self.bytes();
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[off..off + 8]);
            u64::from_le_bytes(w)
        }

        /// A NUL-padded ASCII name field of `len` bytes at `off` (e.g. the 32-byte DMA queue
        /// name, spec 003 §5), cut at the first NUL.
        #[inline]
        pub fn name_at(&self, off: usize, len: usize) -> &[u8] {
            let field = &self.bytes()[off..off + len];
            let end = field.iter().position(|&c| c == 0).unwrap_or(len);
            &field[..end]
        }
    };
}

/// A zero-copy view of one 64-byte TPB instruction slot (spec 003 §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Slot<'a> {
    bytes: &'a [u8; SLOT_BYTES],
}

impl<'a> Slot<'a> {
    /// Views `bytes` as a slot.
    #[inline]
    pub const fn new(bytes: &'a [u8; SLOT_BYTES]) -> Self {
        Self { bytes }
    }

    /// Views the first 64 bytes of `bytes`, or `None` when fewer than 64 remain.
    #[inline]
    pub fn from_slice(bytes: &'a [u8]) -> Option<Self> {
        bytes.first_chunk::<SLOT_BYTES>().map(Self::new)
    }

    /// The 64 bytes of the slot.
    #[inline]
    pub const fn bytes(&self) -> &'a [u8; SLOT_BYTES] {
        self.bytes
    }

    /// Copies the slot into an owned buffer.
    #[inline]
    pub fn to_buf(&self) -> SlotBuf {
        SlotBuf(*self.bytes)
    }

    slot_readers!();
}

/// An owned 64-byte TPB instruction slot, for building and editing (spec 003 §1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SlotBuf(pub [u8; SLOT_BYTES]);

impl Default for SlotBuf {
    fn default() -> Self {
        Self([0; SLOT_BYTES])
    }
}

impl SlotBuf {
    /// A zeroed slot carrying `opcode` and `inst_word_len = 16` (the builder ABI of spec 001 §1:
    /// zero 64 bytes, stamp the opcode word `0x10XX`).
    pub fn new(opcode: Opcode) -> Self {
        let mut s = Self::default();
        s.0[0] = opcode.0;
        s.0[1] = INST_NWORDS;
        s
    }

    /// The 64 bytes of the slot.
    #[inline]
    pub const fn bytes(&self) -> &[u8; SLOT_BYTES] {
        &self.0
    }

    /// A borrowed view of this slot.
    #[inline]
    pub fn view(&self) -> Slot<'_> {
        Slot::new(&self.0)
    }

    slot_readers!();

    /// Sets the opcode byte (+0).
    pub fn set_opcode(&mut self, op: Opcode) {
        self.0[0] = op.0;
    }

    /// Sets `inst_word_len` (+1).
    pub fn set_inst_word_len(&mut self, words: u8) {
        self.0[1] = words;
    }

    /// Sets `debug_cmd` (+2).
    pub fn set_debug_cmd(&mut self, v: u8) {
        self.0[2] = v;
    }

    /// Sets `debug_hint` (+3).
    pub fn set_debug_hint(&mut self, v: u8) {
        self.0[3] = v;
    }

    /// Writes the 8-byte semaphore events block at +4 (spec 003 §1.2 (b)).
    pub fn set_events(&mut self, ev: Events) {
        self.0[4..12].copy_from_slice(&ev.to_bytes());
    }

    /// Writes the legacy 4-byte events block at +4 (spec 003 §1.2 (a)).
    pub fn set_legacy_events(&mut self, ev: LegacyEvents) {
        self.0[4..8].copy_from_slice(&ev.to_bytes());
    }

    /// Writes a byte at `off`.
    pub fn put_u8(&mut self, off: usize, v: u8) {
        self.0[off] = v;
    }

    /// Writes a little-endian `u16` at `off`.
    pub fn put_u16(&mut self, off: usize, v: u16) {
        self.0[off..off + 2].copy_from_slice(&v.to_le_bytes());
    }

    /// Writes a little-endian `u32` at `off`.
    pub fn put_u32(&mut self, off: usize, v: u32) {
        self.0[off..off + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// Writes a little-endian `u64` at `off`.
    pub fn put_u64(&mut self, off: usize, v: u64) {
        self.0[off..off + 8].copy_from_slice(&v.to_le_bytes());
    }

    /// Writes `name` into a NUL-padded field of `len` bytes at `off`; `name` longer than `len`
    /// is cut (callers that must refuse long names check first; spec 003 §5 `RT_MAX_NAME = 32`).
    pub fn put_name(&mut self, off: usize, len: usize, name: &[u8]) {
        let field = &mut self.0[off..off + len];
        field.fill(0);
        let n = name.len().min(len);
        field[..n].copy_from_slice(&name[..n]);
    }
}

impl From<[u8; SLOT_BYTES]> for SlotBuf {
    fn from(b: [u8; SLOT_BYTES]) -> Self {
        Self(b)
    }
}

impl<'a> From<&'a [u8; SLOT_BYTES]> for Slot<'a> {
    fn from(b: &'a [u8; SLOT_BYTES]) -> Self {
        Self::new(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// spec 003 §7.1: pe.bin's lead word 0x10C8 is {opcode 0xC8, len 16}, not a 16-bit opcode.
    #[test]
    fn lead_word_is_opcode_then_word_len() {
        let mut b = [0u8; 64];
        b[0] = 0xC8;
        b[1] = 0x10;
        b[2] = 0x83;
        let s = Slot::new(&b);
        assert_eq!(s.opcode(), Opcode(0xC8));
        assert_eq!(s.inst_word_len(), 16);
        assert_eq!(s.trace_mode(), TraceMode::GenOnStartAndEnd);
        assert!(s.halt_enabled());
    }

    #[test]
    fn setters_mirror_readers() {
        let mut s = SlotBuf::new(Opcode(0xC1));
        s.put_u32(0x30, 7);
        s.put_name(0x0C, 32, b"q_gradient_in");
        assert_eq!(s.u32_at(0x30), 7);
        assert_eq!(s.name_at(0x0C, 32), b"q_gradient_in");
        assert_eq!(&s.0[..2], &[0xC1, 0x10]);
    }
}
