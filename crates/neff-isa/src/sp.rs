//! The 8-byte SP sequencer word (spec 003 §3.2): header byte `{opcode:7, phase:1}` and the SP
//! opcode set of `aws_tonga_isa_sp_common.h` (reference §4.2). Real v2/v3 NEFFs use 64-byte TPB
//! slots in SP.bin too (reference §4.2); this form is selected explicitly (`neff disasm --sp`).
//!
//! Text: `MNEMONIC[ p] [<14 hex digits of bytes 1-7>]`, or `.sp <16 hex digits>` for an unknown
//! opcode; the operand bytes are not typed by the spec pages and print raw (decision D12).

use crate::text::number::{parse_hex_bytes, push_hex_bytes};
use crate::text::{Line, ParseError};

/// `TONGA_ISA_SP_INST_NBYTES` (spec 003 §3.2).
pub const SP_WORD_BYTES: usize = 8;

/// The SP opcodes (reference §4.2, `aws_tonga_isa_sp_common.h`).
pub static SP_OPCODES: &[(u8, &str)] = &[
    (0x04, "WRITE8_IND"),
    (0x05, "WRITE32_IND"),
    (0x08, "WRITE8_DIR"),
    (0x10, "NOTIFY_HALT"),
    (0x20, "WAIT_CYCLES"),
    (0x24, "WAIT_EVENT_SET"),
    (0x25, "WAIT_EVENT_SET_M"),
    (0x30, "BRANCH_U"),
    (0x34, "BRANCH_C_EVENT_SET"),
    (0x38, "BRANCH_C_CNTR_Z"),
    (0x39, "BRANCH_C_CNTR_NZ"),
    (0x40, "SET_CNTR"),
    (0x41, "DECR_CNTR"),
    (0x50, "CLR_ALL_EVENTS"),
    (0x51, "CLR_EVENT"),
    (0x60, "SET_AR"),
];

/// A zero-copy view of one 8-byte SP word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpWord<'a>(pub &'a [u8; SP_WORD_BYTES]);

impl SpWord<'_> {
    /// The 7-bit opcode (header bits 0-6).
    pub fn opcode(&self) -> u8 {
        self.0[0] & 0x7f
    }

    /// The phase bit `p` (header bit 7).
    pub fn phase(&self) -> bool {
        self.0[0] & 0x80 != 0
    }

    /// The SP mnemonic, if the opcode is known.
    pub fn mnemonic(&self) -> Option<&'static str> {
        SP_OPCODES
            .iter()
            .find(|(v, _)| *v == self.opcode())
            .map(|(_, n)| *n)
    }

    /// Appends the text form (no newline).
    pub fn print(&self, out: &mut String) {
        let Some(m) = self.mnemonic() else {
            out.push_str(".sp ");
            push_hex_bytes(out, self.0);
            return;
        };
        out.push_str(m);
        if self.phase() {
            out.push_str(" p");
        }
        if self.0[1..].iter().any(|&b| b != 0) {
            out.push(' ');
            push_hex_bytes(out, &self.0[1..]);
        }
    }
}

/// Iterates the 8-byte words of an SP stream; the remainder is reported like [`crate::Slots`].
pub fn sp_words(bytes: &[u8]) -> std::slice::ChunksExact<'_, u8> {
    bytes.chunks_exact(SP_WORD_BYTES)
}

/// Appends one line per SP word, then `.bytes <hex>` for a remainder.
pub fn disassemble_sp(bytes: &[u8], index_prefix: bool, out: &mut String) {
    let mut it = sp_words(bytes);
    for (i, w) in it.by_ref().enumerate() {
        let Ok(w) = <&[u8; SP_WORD_BYTES]>::try_from(w) else {
            continue;
        };
        if index_prefix {
            out.push_str(&format!("{i:>4}: "));
        }
        SpWord(w).print(out);
        out.push('\n');
    }
    if !it.remainder().is_empty() {
        out.push_str(".bytes ");
        push_hex_bytes(out, it.remainder());
        out.push('\n');
    }
}

fn sp_err(line: usize, token: &str, message: &str) -> ParseError {
    ParseError {
        line,
        token: token.to_owned(),
        message: message.to_owned(),
    }
}

/// Parses one SP line (index prefix, comments and `;` as in the TPB form).
pub fn parse_sp_line(line: &str) -> Result<Line, ParseError> {
    let toks = crate::text::tokenize_line(line)?;
    let mut toks = toks.as_slice();
    if toks.first().is_some_and(|t| t.ends_with(':')) {
        toks = &toks[1..];
    }
    let Some((&m, rest)) = toks.split_first() else {
        return Ok(Line::Empty);
    };
    let hex = |t: &str| parse_hex_bytes(t).ok_or_else(|| sp_err(1, t, "hex bytes"));
    if m == ".bytes" {
        return match rest {
            [h] => hex(h).map(Line::Bytes),
            _ => Err(sp_err(1, m, "one hex argument")),
        };
    }
    let mut w = [0u8; SP_WORD_BYTES];
    if m == ".sp" {
        let [h] = rest else {
            return Err(sp_err(1, m, "16 hex digits"));
        };
        w = hex(h)?
            .try_into()
            .map_err(|_| sp_err(1, h, "exactly 8 bytes"))?;
        return Ok(Line::Bytes(w.to_vec()));
    }
    let op = SP_OPCODES
        .iter()
        .find(|(_, n)| *n == m)
        .map(|(v, _)| *v)
        .ok_or_else(|| sp_err(1, m, "an SP mnemonic or `.sp`"))?;
    w[0] = op;
    let mut rest = rest;
    if rest.first() == Some(&"p") {
        w[0] |= 0x80;
        rest = &rest[1..];
    }
    match rest {
        [] => {}
        [h] => {
            let b = hex(h)?;
            if b.len() != 7 {
                return Err(sp_err(1, h, "exactly 7 operand bytes (14 hex digits)"));
            }
            w[1..].copy_from_slice(&b);
        }
        [_, extra, ..] => return Err(sp_err(1, extra, "end of line")),
    }
    Ok(Line::Bytes(w.to_vec()))
}

/// Assembles an SP text into stream bytes.
pub fn assemble_sp(text: &str) -> Result<Vec<u8>, ParseError> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        parse_sp_line(line)
            .map_err(|e| ParseError { line: n + 1, ..e })?
            .append_to(&mut out);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_is_opcode7_phase1() {
        let w = [0x80 | 0x24, 3, 0, 0, 0, 0, 0, 0];
        let s = SpWord(&w);
        assert_eq!(
            (s.opcode(), s.phase(), s.mnemonic()),
            (0x24, true, Some("WAIT_EVENT_SET"))
        );
        let mut t = String::new();
        s.print(&mut t);
        assert_eq!(t, "WAIT_EVENT_SET p 03000000000000");
    }

    #[test]
    fn every_word_round_trips() {
        let mut bytes = Vec::new();
        for op in 0..=255u8 {
            bytes.extend_from_slice(&[op, op ^ 0x5a, 0, 0, 1, 0, 0, op]);
        }
        bytes.push(7);
        let mut text = String::new();
        disassemble_sp(&bytes, true, &mut text);
        assert_eq!(assemble_sp(&text), Ok(bytes));
    }
}
