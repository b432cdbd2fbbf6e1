//! The 64-byte record the builders fill (spec 001 "The builder ABI").
//!
//! A builder starts from [`new_slot`] and places its operands only through the writer of the
//! payload view that prints the record (`crate::payload::*Mut`, decisions D10, D52): no builder
//! names a payload offset of its own.

use crate::{Events, Opcode, SLOT_BYTES, SlotBuf};

/// One 64-byte TPB instruction record.
pub type Record = [u8; SLOT_BYTES];

/// A zeroed record with the opcode word stamped at +0x00: byte 0 = `opcode`, byte 1 = 0x10
/// (inst_word_len, spec 001 §1 "high byte 0x10"), and the events tuple copied to +0x04 iff given.
pub fn new_record(opcode: u8, events: Option<u64>) -> Record {
    new_slot(opcode, events).0
}

/// [`new_record`] as a [`SlotBuf`], ready for a payload writer.
pub(crate) fn new_slot(opcode: u8, events: Option<u64>) -> SlotBuf {
    let mut slot = SlotBuf::new(Opcode(opcode));
    if let Some(ev) = events {
        slot.set_events(Events::from_bytes(ev.to_le_bytes()));
    }
    slot
}
