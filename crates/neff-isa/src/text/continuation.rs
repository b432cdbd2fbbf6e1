//! The text of a 128-byte record (decision D155): the 0xD4's line, then `|`, then the
//! continuation as `PSEUDO_EXTENSION` with its [`crate::payload::DMA_EXTENSION`] fields and an
//! `@0xOFF=HEX` overlay for any other non-zero byte, so the pair assembles back to its 128 bytes.
//!
//! `PSEUDO_DMA_DIRECT2D semaphore=12 ... dst_dtype=bf16 | PSEUDO_EXTENSION src_bound_size_bytes=268435456`

use super::parse::{ParseError, err, parse_overlay, parse_value};
use super::print::{print_overlays, print_slot, push_value};
use super::sink::TextSink;
use crate::continuation::{Pairing, pairing_at};
use crate::events::Dialect;
use crate::layout::Show;
use crate::opcode::Opcode;
use crate::payload::DMA_EXTENSION;
use crate::slot::{SLOT_BYTES, Slot, SlotBuf};

/// The token that separates a head's text from its continuation's.
pub(crate) const SEPARATOR: &str = "|";

/// Appends ` | PSEUDO_EXTENSION <fields> [@0xOFF=HEX]*` for the continuation `slot`.
pub fn print_continuation<W: TextSink + ?Sized>(slot: &Slot<'_>, out: &mut W) {
    out.push(' ');
    out.push_str(SEPARATOR);
    out.push(' ');
    print_extension(slot, out);
}

/// Appends `PSEUDO_EXTENSION <fields> [@0xOFF=HEX]*`: a continuation's own part of its line.
fn print_extension<W: TextSink + ?Sized>(slot: &Slot<'_>, out: &mut W) {
    out.push_str(Opcode::PSEUDO_EXTENSION.mnemonic().unwrap_or_default());
    let b = slot.bytes();
    // Bit i set = byte i is shown: the opcode byte and every field.
    let mut covered: u64 = 1;
    for f in DMA_EXTENSION.fields {
        let o = usize::from(f.offset);
        let size = f.kind.size();
        covered |= (((1u128 << size) - 1) as u64) << o;
        if f.show == Show::NonZero && b[o..o + size].iter().all(|&c| c == 0) {
            continue;
        }
        out.push(' ');
        out.push_str(f.name);
        out.push('=');
        push_value(f.kind, &f.read(slot), out);
    }
    print_overlays(b, covered, out);
}

/// Appends the text of slot `index` of `stream` as the instruction it is part of and returns its
/// pairing: a head with its continuation's fields (the one line of D155), a continuation as
/// `PSEUDO_EXTENSION <fields>` (its own part of that line), any other slot as [`print_slot`]. A
/// slot that breaks the pairing rule prints as a slot of its own; nothing for an index past the
/// last whole slot.
pub fn print_stream_slot<W: TextSink + ?Sized>(
    stream: &[u8],
    index: usize,
    dialect: Dialect,
    out: &mut W,
) -> Pairing {
    let slot_at = |i: usize| {
        let at = i.checked_mul(SLOT_BYTES)?;
        Slot::from_slice(stream.get(at..)?)
    };
    let Some(slot) = slot_at(index) else {
        return Pairing::Single;
    };
    let pairing = pairing_at(stream, index).unwrap_or(Pairing::Single);
    match pairing {
        Pairing::Continuation => print_extension(&slot, out),
        _ => print_slot(&slot, dialect, out),
    }
    if pairing == Pairing::Head
        && let Some(next) = slot_at(index + 1)
    {
        print_continuation(&next, out);
    }
    pairing
}

/// Parses the tokens after `|`: `PSEUDO_EXTENSION` then `key=value` fields of the continuation
/// and `@0xOFF=HEX` overlays.
pub(crate) fn parse_continuation(toks: &[&str]) -> Result<SlotBuf, ParseError> {
    let mnemonic = Opcode::PSEUDO_EXTENSION.mnemonic().unwrap_or_default();
    let Some((&first, rest)) = toks.split_first() else {
        return Err(err(SEPARATOR, format!("`{mnemonic}` after `|`")));
    };
    if first != mnemonic {
        return Err(err(first, format!("`{mnemonic}` after `|`")));
    }
    let mut buf = SlotBuf([0; SLOT_BYTES]);
    buf.0[0] = Opcode::PSEUDO_EXTENSION.0;
    let mut overlays = Vec::new();
    for &tok in rest {
        if let Some(o) = tok.strip_prefix('@') {
            overlays.push(parse_overlay(tok, o)?);
            continue;
        }
        let (k, v) = tok
            .split_once('=')
            .ok_or_else(|| err(tok, "a `key=value` or `@0xOFF=HEX` token"))?;
        let f = DMA_EXTENSION
            .field(k)
            .ok_or_else(|| err(tok, format!("a field of {}", DMA_EXTENSION.name)))?;
        let value =
            parse_value(f.kind, v).ok_or_else(|| err(tok, "a value of the field's kind"))?;
        f.write(&mut buf, &value)
            .map_err(|()| err(tok, "a value that fits the field"))?;
    }
    for (o, bytes) in overlays {
        buf.0[o..o + bytes.len()].copy_from_slice(&bytes);
    }
    Ok(buf)
}
