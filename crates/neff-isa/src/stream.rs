//! A flat engine stream (`sgNN/<engine>.bin`, reference §4.1: "a flat array of 64-byte records,
//! no file header, no length prefix") walked slot by slot, with typed positions.

use std::fmt;

use crate::slot::{SLOT_BYTES, SLOT_SHIFT, Slot};

/// The index of a slot in its engine stream (the NEFF IP of spec 004 §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct SlotIndex(pub u32);

/// A byte offset from the start of an engine stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct ByteOffset(pub u64);

impl SlotIndex {
    /// The offset of this slot's first byte (`index << 6`, spec 001 §1).
    #[inline]
    pub const fn byte_offset(self) -> ByteOffset {
        ByteOffset((self.0 as u64) << SLOT_SHIFT)
    }

    /// The offset of byte `within` of this slot.
    #[inline]
    pub const fn byte(self, within: usize) -> ByteOffset {
        ByteOffset(((self.0 as u64) << SLOT_SHIFT) + within as u64)
    }
}

impl fmt::Display for SlotIndex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "slot {}", self.0)
    }
}

impl fmt::Display for ByteOffset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x}", self.0)
    }
}

/// Iterator over the whole 64-byte slots of a stream; [`Slots::remainder`] holds the trailing
/// bytes that do not fill a slot (a valid stream has none, reference §4.1).
#[derive(Debug, Clone)]
pub struct Slots<'a> {
    chunks: std::slice::ChunksExact<'a, u8>,
    next: u32,
}

/// Walks `bytes` as 64-byte slots (spec 003 §1: fixed 0x40 stride, no framing).
pub fn slots(bytes: &[u8]) -> Slots<'_> {
    Slots {
        chunks: bytes.chunks_exact(SLOT_BYTES),
        next: 0,
    }
}

impl<'a> Slots<'a> {
    /// The bytes after the last whole slot (empty for a well-formed stream).
    pub fn remainder(&self) -> &'a [u8] {
        self.chunks.remainder()
    }
}

impl<'a> Iterator for Slots<'a> {
    type Item = (SlotIndex, Slot<'a>);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let chunk = self.chunks.next()?;
        let arr: &[u8; SLOT_BYTES] = chunk.try_into().ok()?;
        let i = SlotIndex(self.next);
        self.next = self.next.wrapping_add(1);
        Some((i, Slot::new(arr)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chunks.size_hint()
    }
}

impl ExactSizeIterator for Slots<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_slots_and_reports_remainder() {
        let mut b = vec![0u8; 64 * 3 + 5];
        b[64] = 0xc1;
        let mut it = slots(&b);
        assert_eq!(it.len(), 3);
        let v: Vec<_> = it.by_ref().map(|(i, s)| (i.0, s.opcode().0)).collect();
        assert_eq!(v, [(0, 0), (1, 0xc1), (2, 0)]);
        assert_eq!(it.remainder().len(), 5);
        assert_eq!(SlotIndex(2).byte(0x0C), ByteOffset(0x8C));
    }
}
