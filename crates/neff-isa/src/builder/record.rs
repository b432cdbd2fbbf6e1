//! The 64-byte record the builders fill (spec 001 "The builder ABI").

use super::codes::INST_WORD_LEN;
use super::events::EVENTS_OFFSET;

/// One 64-byte TPB instruction record.
pub type Record = [u8; 64];

/// A zeroed record with the opcode word stamped at +0x00: byte 0 = `opcode`, byte 1 = 0x10
/// (inst_word_len, spec 001 §1 "high byte 0x10"), and the events tuple copied to +0x04 iff given.
pub fn new_record(opcode: u8, events: Option<u64>) -> Record {
    let mut rec = [0u8; 64];
    rec[0] = opcode;
    rec[1] = INST_WORD_LEN;
    if let Some(ev) = events {
        rec[EVENTS_OFFSET..EVENTS_OFFSET + 8].copy_from_slice(&ev.to_le_bytes());
    }
    rec
}

/// Writes a little-endian u32 at `at`.
pub(crate) fn put_u32(rec: &mut Record, at: usize, v: u32) {
    rec[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

/// Writes a little-endian u64 at `at`.
pub(crate) fn put_u64(rec: &mut Record, at: usize, v: u64) {
    rec[at..at + 8].copy_from_slice(&v.to_le_bytes());
}
