//! The little-endian fields of a pseudo slot, read at the offsets the translators take from spec
//! 001 (one reader for every lower file; the slot is the 64-byte window the demux hands over, so
//! the offsets are in range).

/// The little-endian `u16` at `at` of `slot`.
#[inline(always)]
pub(super) fn u16_at(slot: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([slot[at], slot[at + 1]])
}

/// The little-endian `u32` at `at` of `slot`.
#[inline(always)]
pub(super) fn u32_at(slot: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([slot[at], slot[at + 1], slot[at + 2], slot[at + 3]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_little_endian() {
        let s: Vec<u8> = (0..16).collect();
        assert_eq!(u16_at(&s, 2), 0x0302);
        assert_eq!(u32_at(&s, 4), 0x0706_0504);
    }
}
