//! The text form of TPB streams (decision D4): [`print_slot`] / [`disassemble`] write, and
//! [`parse_line`] / [`assemble`] read, with `assemble(disassemble(b)) == b` for every byte string.

mod continuation;
mod events_syntax;
#[cfg(feature = "serde")]
pub mod json;
pub(crate) mod number;
mod parse;
mod plan;
mod print;
mod sink;
pub(crate) mod window;

pub use number::parse_hex_bytes;
pub use parse::{Line, ParseError, parse_line};

/// Splits a line into tokens the way the TPB assembler does (comments, quotes, trailing `;`).
pub fn tokenize_line(line: &str) -> Result<Vec<&str>, ParseError> {
    parse::tokenize(line)
}
pub use continuation::{print_continuation, print_stream_slot};
pub use plan::PlanCell;
pub(crate) use plan::{Compiled, Covered, covered, token_spans};
pub use print::print_slot;
pub(crate) use print::print_token;
pub use sink::{TextBuf, TextSink};

use crate::layout::{FieldKind, FieldValue, Layout};
use crate::opcode::Opcode;

/// The layout the text form uses for `op` in `dialect` (decision D2), `None` for an unknown op.
pub fn layout_for_dialect(op: Opcode, dialect: Dialect) -> Option<&'static Layout> {
    print::layout_for(op, dialect)
}

/// Appends a field value in its text form.
pub fn push_field_value<W: TextSink + ?Sized>(kind: FieldKind, v: &FieldValue, out: &mut W) {
    print::push_value(kind, v, out)
}

/// Parses a field value from its text form (the inverse of [`push_field_value`]).
pub fn parse_field_value(kind: FieldKind, s: &str) -> Option<FieldValue> {
    parse::parse_value(kind, s)
}

use crate::events::Dialect;
use crate::slot::{SLOT_BYTES, Slot};
use crate::stream::{SlotIndex, Slots, slots};

/// Options of the stream disassembler.
#[derive(Debug, Clone, Copy, Default)]
pub struct DisasmOptions {
    /// The events dialect (decision D2).
    pub dialect: Dialect,
    /// Prefix each line with its slot index (`   7: `), as `neff disasm` does.
    pub index_prefix: bool,
}

/// Appends one line per instruction of `bytes` to `out` (one per slot, but one for a 0xD4 and its
/// continuation: decision D155), then `.bytes <hex>` for a trailing remainder, so the text
/// assembles back to exactly `bytes`.
pub fn disassemble<W: TextSink + ?Sized>(bytes: &[u8], opts: DisasmOptions, out: &mut W) {
    disassemble_at(bytes, 0, opts, out);
}

/// Like [`disassemble`] for a piece of a longer stream whose first slot has index
/// `first_index`: the line prefixes count from there, so a stream printed piece by piece (through
/// one reused `String`, e.g. `neff disasm`) reads exactly like one printed whole.
pub fn disassemble_at<W: TextSink + ?Sized>(
    bytes: &[u8],
    first_index: u64,
    opts: DisasmOptions,
    out: &mut W,
) {
    let mut it = text_lines(bytes);
    for line in it.by_ref() {
        if opts.index_prefix {
            let i = first_index + line.index.0 as u64;
            // Right-aligned in 4 columns (`   7: `).
            if i < 1000 {
                let digits = 1 + usize::from(i >= 10) + usize::from(i >= 100);
                out.push_str(&"   "[digits - 1..]);
            }
            out.push_dec(i);
            out.push_str(": ");
        }
        line.print(opts.dialect, out);
        out.push('\n');
    }
    let rest = it.slots.remainder();
    if !rest.is_empty() {
        out.push_str(".bytes ");
        number::push_hex_bytes(out, rest);
        out.push('\n');
    }
}

/// One line of the text form: a slot, or a 0xD4 with its continuation slot (decision D155).
#[derive(Debug, Clone, Copy)]
pub struct TextLine<'a> {
    /// The index of its (first) slot.
    pub index: SlotIndex,
    /// The slot.
    pub head: Slot<'a>,
    /// The continuation printed on the head's line, if the next slot is one.
    pub continuation: Option<Slot<'a>>,
}

impl TextLine<'_> {
    /// Appends the line's text, without the slot prefix and the newline: what [`disassemble`]
    /// prints after `N: `.
    pub fn print<W: TextSink + ?Sized>(&self, dialect: Dialect, out: &mut W) {
        print_slot(&self.head, dialect, out);
        if let Some(next) = &self.continuation {
            print_continuation(next, out);
        }
    }

    /// The byte length of the line's slots (64, or 128 with a continuation).
    pub fn byte_len(&self) -> usize {
        SLOT_BYTES * (1 + usize::from(self.continuation.is_some()))
    }
}

/// The lines of `bytes` in order, as [`disassemble`] prints them (whole slots only).
pub fn text_lines(bytes: &[u8]) -> TextLines<'_> {
    TextLines {
        bytes,
        slots: slots(bytes),
    }
}

/// The iterator of [`text_lines`].
#[derive(Debug, Clone)]
pub struct TextLines<'a> {
    bytes: &'a [u8],
    slots: Slots<'a>,
}

impl<'a> Iterator for TextLines<'a> {
    type Item = TextLine<'a>;

    fn next(&mut self) -> Option<TextLine<'a>> {
        let (index, head) = self.slots.next()?;
        let continuation = continuation_after(self.bytes, index.0 as usize);
        if continuation.is_some() {
            // The continuation was printed on its head's line (D155).
            self.slots.next();
        }
        Some(TextLine {
            index,
            head,
            continuation,
        })
    }
}

/// The continuation of slot `index` of `bytes`, if the next slot is one (D155).
#[inline]
fn continuation_after(bytes: &[u8], index: usize) -> Option<Slot<'_>> {
    if bytes[index * SLOT_BYTES] != crate::opcode::Opcode::PSEUDO_DMA_DIRECT2D.0 {
        return None;
    }
    let at = index.checked_add(1)?.checked_mul(SLOT_BYTES)?;
    let next = Slot::from_slice(bytes.get(at..)?)?;
    crate::continuation::is_continuation(bytes[at - SLOT_BYTES], next.opcode().0).then_some(next)
}

/// Assembles a whole text into stream bytes; errors carry the 1-based line number.
pub fn assemble(text: &str, dialect: Dialect) -> Result<Vec<u8>, ParseError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        parse_line(line, dialect)
            .map_err(|e| ParseError { line: n + 1, ..e })?
            .append_to(&mut out);
    }
    Ok(out)
}

#[cfg(test)]
pub(crate) mod tests;
