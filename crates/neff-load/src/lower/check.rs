//! The lowered-stream check (spec 001 §1 NOTE): no pseudo survives except the four function
//! placeholders (decision D50), and every record is a 64-byte record with inst_word_len 16.

use neff_isa::builder::INST_WORD_LEN;

use super::error::LowerErrorKind;
use super::pseudo::{is_placeholder, pseudo_name};

/// Checks `bytes`; on failure returns the index of the offending output record and why.
pub fn check_lowered(bytes: &[u8]) -> Result<(), (usize, LowerErrorKind)> {
    if !bytes.len().is_multiple_of(64) {
        let reason = format!(
            "stream of {} bytes is not whole 64-byte records",
            bytes.len()
        );
        return Err((bytes.len() / 64, LowerErrorKind::Malformed(reason)));
    }
    for (i, rec) in bytes.chunks_exact(64).enumerate() {
        let op = rec[0];
        if rec[1] != INST_WORD_LEN {
            let reason = format!("{i}: inst_word_len {:#04x}, expected 0x10", rec[1]);
            return Err((i, LowerErrorKind::Malformed(reason)));
        }
        if let Some(name) = pseudo_name(op).filter(|_| !is_placeholder(op)) {
            let reason = format!("{i}: pseudo-instruction {op:#04x} ({name}) survived lowering");
            return Err((i, LowerErrorKind::Malformed(reason)));
        }
    }
    Ok(())
}
