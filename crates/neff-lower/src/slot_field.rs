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

/// The little-endian `u64` at `at` of `slot`.
#[inline(always)]
pub(super) fn u64_at(slot: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    b.copy_from_slice(&slot[at..at + 8]);
    u64::from_le_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_are_little_endian() {
        let s: Vec<u8> = (0..16).collect();
        assert_eq!(u16_at(&s, 2), 0x0302);
        assert_eq!(u32_at(&s, 4), 0x0706_0504);
        assert_eq!(u64_at(&s, 8), 0x0f0e_0d0c_0b0a_0908);
    }
}
