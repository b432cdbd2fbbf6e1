//! The lowered-stream check (spec 001 §1 NOTE: "a surviving pseudo would be rejected by
//! is_valid_neuron_instruction"), run through neff-isa's one validator ([`neff_isa::validate`]
//! with `lowered: true`). Before image assembly the four function placeholders of decision D50
//! may remain; after assembly none may ([`check_lowered`] with `placeholders: false`).
//!
//! Only what lowering answers for is an error here: a surviving pseudo and a record that is not
//! 64 bytes with inst_word_len 16. An opcode the table does not know, or an event mode it does
//! not name, is a property of the source slot that lowering copies verbatim ("bytes are the
//! truth"), so those diagnostics are left to `neff validate`.

use neff_isa::validate::{DiagnosticKind, ValidateOptions, validate};

use super::error::LowerErrorKind;
use super::pseudo::is_placeholder;

/// Checks `bytes`; `placeholders` allows the D50 markers. On failure returns the index of the
/// first offending output record and why.
pub fn check_lowered(bytes: &[u8], placeholders: bool) -> Result<(), (usize, LowerErrorKind)> {
    let opts = ValidateOptions {
        lowered: true,
        ..ValidateOptions::default()
    };
    let bad = validate(bytes, &opts).into_iter().find(|d| match d.kind {
        DiagnosticKind::PseudoInLoweredStream(op) => !(placeholders && is_placeholder(op)),
        DiagnosticKind::TrailingBytes(_) | DiagnosticKind::BadWordLen(_) => true,
        _ => false,
    });
    match bad {
        None => Ok(()),
        Some(d) => Err((d.index.0 as usize, LowerErrorKind::Malformed(d.to_string()))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(op: u8) -> [u8; 64] {
        let mut r = [0u8; 64];
        r[0] = op;
        r[1] = 0x10;
        r
    }

    #[test]
    fn pseudo_survivors_and_bad_records_are_rejected() {
        assert_eq!(check_lowered(&rec(0xA0), false), Ok(()));
        let call = [rec(0xA0), rec(0xD3)].concat();
        assert_eq!(check_lowered(&call, true), Ok(()));
        assert_eq!(check_lowered(&call, false).unwrap_err().0, 1);
        assert_eq!(check_lowered(&rec(0xC1), true).unwrap_err().0, 0);
        let mut short = rec(0xA0);
        short[1] = 0x0F;
        assert!(check_lowered(&short, false).is_err());
        assert!(check_lowered(&[0u8; 65][..], false).is_err());
    }
}
