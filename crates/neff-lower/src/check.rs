//! The lowered-stream check (spec 001 §1 NOTE: "a surviving pseudo would be rejected by
//! is_valid_neuron_instruction"), run through neff-isa's one validator ([`neff_isa::validate`]
//! with `lowered: true`). Before image assembly the four function placeholders of decision D50
//! may remain; after assembly none may ([`check_lowered`] with `placeholders: false`).
//!
//! Only what lowering answers for is an error here: a surviving pseudo and a record that is not
//! 64 bytes with inst_word_len 16. An opcode the table does not know, or an event mode it does
//! not name, is a property of the source slot that lowering copies verbatim ("bytes are the
//! truth"), so those diagnostics are left to `neff validate`.
//!
//! A load checks every image once after assembly (tens of MB for a large engine), and the whole
//! validator was 6-11% of `neff load`'s CPU, almost all of it diagnostics this check then drops
//! (decision D337). So a scan of the two bytes this check answers for — the opcode and
//! inst_word_len of each record — runs first; only when it finds a suspect record does the
//! validator run, and it alone words the error, so errors are unchanged.

use neff_isa::validate::{DiagnosticKind, ValidateOptions, validate};
use neff_isa::{INST_NWORDS, Opcode, SLOT_BYTES};

use super::error::LowerErrorKind;
use super::image_buf::ImageBuf;
use super::pseudo::is_placeholder;

/// Checks `bytes`; `placeholders` allows the D50 markers. On failure returns the index of the
/// first offending output record and why.
pub fn check_lowered(bytes: &[u8], placeholders: bool) -> Result<(), (usize, LowerErrorKind)> {
    if plainly_lowered(bytes, placeholders) {
        return Ok(());
    }
    validator_verdict(bytes, placeholders)
}

/// [`check_lowered`] of a buffer that may borrow runs of its stream (decision D830): the scan
/// part by part (parts hold whole records), and only when it finds a suspect record the
/// validator over one flat copy, so the verdict and its wording are those of the flat image.
pub fn check_lowered_buf(
    buf: &ImageBuf<'_>,
    placeholders: bool,
) -> Result<(), (usize, LowerErrorKind)> {
    if buf.parts().all(|p| plainly_lowered(p, placeholders)) {
        return Ok(());
    }
    validator_verdict(&buf.to_vec(), placeholders)
}

/// The check through the whole validator: the first diagnostic this check keeps, worded by it.
fn validator_verdict(bytes: &[u8], placeholders: bool) -> Result<(), (usize, LowerErrorKind)> {
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

/// Whether `bytes` is whole 64-byte records, each with inst_word_len 16 and an opcode that is not
/// a pseudo (a D50 placeholder allowed when `placeholders`). Then the validator has nothing this
/// check keeps: a bad word length, trailing bytes or a surviving pseudo (a 0xD4 / 0xDA pair's
/// continuation is only looked at when its head, a pseudo, is there) are each a record this
/// scan refuses.
fn plainly_lowered(bytes: &[u8], placeholders: bool) -> bool {
    let refused: [bool; 256] = std::array::from_fn(|v| {
        let op = Opcode(v as u8);
        op.is_pseudo() && !(placeholders && is_placeholder(op))
    });
    bytes.len().is_multiple_of(SLOT_BYTES)
        && bytes
            .chunks_exact(SLOT_BYTES)
            .all(|r| r[1] == INST_NWORDS && !refused[usize::from(r[0])])
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

    proptest::proptest! {
        /// The scan in front of the validator changes no verdict (decision D337): records with
        /// device opcodes, placeholders, other pseudos (0xD4 / 0xDA pairs among them), bad word
        /// lengths, and a trailing partial record.
        #[test]
        fn the_scan_agrees_with_the_validator(
            records in proptest::collection::vec(
                (proptest::sample::select(vec![0x00u8, 0x41, 0xA0, 0xC1, 0xD1, 0xD3, 0xD4, 0xDA, 0xDF, 0xFF]),
                 proptest::sample::select(vec![0x10u8, 0x10, 0x10, 0x0F, 0x00]),
                 0u8..=255),
                0..12,
            ),
            tail in 0usize..3,
            placeholders: bool,
        ) {
            let mut bytes = Vec::new();
            for (op, words, fill) in records {
                let mut r = [fill; 64];
                r[0] = op;
                r[1] = words;
                bytes.extend_from_slice(&r);
            }
            bytes.resize(bytes.len() + tail, 0);
            proptest::prop_assert_eq!(
                check_lowered(&bytes, placeholders),
                validator_verdict(&bytes, placeholders)
            );
        }
    }
}
