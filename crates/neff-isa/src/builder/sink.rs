//! The append primitive every builder ends in (spec 001: `add_ins` @0x322480).

use super::record::Record;
use crate::slot::SLOT_BYTES;

/// `add_ins(chunk, offset, &record)`: copies exactly 64 bytes to `chunk[offset..offset + 64]`
/// and returns `offset + 64` (spec 001 "The append primitive").
///
/// The runtime memmoves into a pre-sized chunk; here the chunk grows (zero-filled) when `offset`
/// reaches past its end, so appending at `chunk.len()` is the common case.
pub fn add_ins(chunk: &mut Vec<u8>, offset: usize, record: &Record) -> usize {
    let end = offset + SLOT_BYTES;
    if chunk.len() < end {
        chunk.resize(end, 0);
    }
    chunk[offset..end].copy_from_slice(record);
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_ins_appends_exactly_64_bytes_and_returns_new_offset() {
        let mut chunk = Vec::new();
        let rec = [7u8; 64];
        assert_eq!(add_ins(&mut chunk, 0, &rec), 64);
        assert_eq!(add_ins(&mut chunk, 64, &[1u8; 64]), 128);
        assert_eq!(chunk.len(), 128);
        assert_eq!(&chunk[..64], &rec[..]);
        // Writing inside the chunk overwrites in place (memmove semantics).
        assert_eq!(add_ins(&mut chunk, 0, &[2u8; 64]), 64);
        assert_eq!((chunk.len(), chunk[0], chunk[64]), (128, 2, 1));
    }
}
