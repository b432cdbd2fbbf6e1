//! The stream validator (spec 003 §5 `tonga_isa_tpb_dma_trigger_check_validity`; spec 001 §1
//! "a surviving pseudo would be rejected by is_valid_neuron_instruction"). It returns every
//! diagnostic, each with its slot index and absolute byte offset, and allocates only for them.

use std::fmt;

use crate::continuation::{Pairing, PairingError, pairing_at};
use crate::dtype::DTYPE;
use crate::events::{Dialect, UpdateMode, WaitMode};
use crate::layout::{FieldKind, Layout};
use crate::opcode::{Generation, Opcode};
use crate::slot::{INST_NWORDS, SLOT_BYTES, Slot};
use crate::stream::{ByteOffset, SlotIndex, slots};

/// What to check.
#[derive(Debug, Clone, Copy, Default)]
pub struct ValidateOptions {
    /// The target generation; `None` accepts any v2+ opcode.
    pub generation: Option<Generation>,
    /// The stream is lowered (device-ready): pseudo opcodes are errors (spec 001 §1 NOTE).
    pub lowered: bool,
    /// The events dialect (decision D2); event modes are only range-checked in the 8-byte form.
    pub dialect: Dialect,
}

/// One problem found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The slot.
    pub index: SlotIndex,
    /// Absolute offset of the offending byte in the stream.
    pub offset: ByteOffset,
    /// What is wrong.
    pub kind: DiagnosticKind,
}

/// The kinds of problem the validator reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiagnosticKind {
    /// The stream length is not a multiple of 64 (reference §4.1); the value is the remainder.
    TrailingBytes(usize),
    /// `inst_word_len` is not 16 (spec 003 §1.1 QUIRK, §5 check 2).
    BadWordLen(u8),
    /// The opcode is not in the table for the target generation.
    UnknownOpcode(Opcode),
    /// A pseudo opcode in a lowered stream (spec 001 §1).
    PseudoInLoweredStream(Opcode),
    /// A PSEUDO_DMA_TRIGGER with an empty queue name (spec 003 §5 check 3).
    EmptyDmaQueueName,
    /// A `wait_mode` byte that is not a known mode.
    BadWaitMode(u8),
    /// An `update_mode` byte that is not a known mode.
    BadUpdateMode(u8),
    /// A slot sequence that breaks the 0xD4 + 0xDA pairing rule (decision D155).
    Pairing(PairingError),
    /// A whole-byte dtype field of the opcode's layout holds no dtype code (above 0x0F; the
    /// layout table names the field, decisions D5, D130).
    BadDtype(u8),
}

impl Diagnostic {
    /// A problem at byte `at` of slot `index`.
    fn at(index: SlotIndex, at: usize, kind: DiagnosticKind) -> Self {
        Self {
            index,
            offset: index.byte(at),
            kind,
        }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (byte {}): ", self.index, self.offset)?;
        match &self.kind {
            DiagnosticKind::TrailingBytes(n) => {
                write!(f, "{n} trailing bytes do not fill a 64-byte slot")
            }
            DiagnosticKind::BadWordLen(n) => write!(f, "inst_word_len is {n}, expected 16"),
            DiagnosticKind::UnknownOpcode(op) => write!(f, "unknown opcode {:#04x}", op.0),
            DiagnosticKind::PseudoInLoweredStream(op) => {
                write!(f, "pseudo opcode {op} ({:#04x}) in a lowered stream", op.0)
            }
            DiagnosticKind::EmptyDmaQueueName => {
                f.write_str("PSEUDO_DMA_TRIGGER queue name is empty")
            }
            DiagnosticKind::BadWaitMode(m) => write!(f, "wait_mode {m:#04x} is not a known mode"),
            DiagnosticKind::BadUpdateMode(m) => {
                write!(f, "update_mode {m:#04x} is not a known mode")
            }
            DiagnosticKind::BadDtype(d) => write!(f, "dtype byte {d:#04x} is not a dtype code"),
            DiagnosticKind::Pairing(e) => write!(f, "{e}"),
        }
    }
}

/// Per-byte lookup tables built once, so the per-slot check is a handful of loads.
struct Tables {
    known: [bool; 256],
    pseudo: [bool; 256],
    wait_ok: [bool; 256],
    update_ok: [bool; 256],
    /// Per opcode, the offsets of its layout's whole-byte dtype fields (`NO_FIELD` = none).
    dtype_at: [[u8; MAX_DTYPE_FIELDS]; 256],
}

/// Whole-byte dtype fields one layout has at most (ACTIVATE, TENSOR_REDUCE, DIRECT2D: 2).
const MAX_DTYPE_FIELDS: usize = 4;
const NO_FIELD: u8 = u8::MAX;

/// The offsets of `layout`'s whole-byte `Dtype` fields.
fn dtype_fields(layout: &Layout) -> [u8; MAX_DTYPE_FIELDS] {
    let mut at = [NO_FIELD; MAX_DTYPE_FIELDS];
    let dtypes = layout
        .fields
        .iter()
        .filter(|f| matches!(f.kind, FieldKind::Enum(t) if t.name == DTYPE.name));
    for (slot, f) in at.iter_mut().zip(dtypes) {
        *slot = f.offset;
    }
    at
}

impl Tables {
    fn new(generation: Option<Generation>) -> Self {
        let mut t = Tables {
            known: [false; 256],
            pseudo: [false; 256],
            wait_ok: [false; 256],
            update_ok: [false; 256],
            dtype_at: [[NO_FIELD; MAX_DTYPE_FIELDS]; 256],
        };
        for v in 0..=255u8 {
            let op = Opcode(v);
            t.known[v as usize] = match generation {
                Some(g) => op.known_in(g),
                None => op.info().is_some_and(|i| i.generations.0 != 0),
            };
            t.pseudo[v as usize] = op.is_pseudo();
            t.wait_ok[v as usize] = WaitMode::from_u8(v).is_some();
            t.update_ok[v as usize] = UpdateMode::from_u8(v).is_some();
            if let Some(info) = op.info() {
                t.dtype_at[v as usize] = dtype_fields(info.layout);
            }
        }
        t
    }
}

/// Validates a whole stream; returns every diagnostic in stream order.
pub fn validate(bytes: &[u8], opts: &ValidateOptions) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    validate_into(bytes, opts, &mut out);
    out
}

/// Like [`validate`], appending to `out` (reuse it across streams to avoid allocation).
pub fn validate_into(bytes: &[u8], opts: &ValidateOptions, out: &mut Vec<Diagnostic>) {
    let t = Tables::new(opts.generation);
    let mut it = slots(bytes);
    for (i, s) in it.by_ref() {
        // D155: a continuation is the second half of its 0xD4's record, not a slot with a header
        // and events of its own; only the pairing is checked for a 0xD4 or a 0xDA.
        let op = s.opcode();
        let paired = if op == Opcode::PSEUDO_DMA_DIRECT2D || op == Opcode::PSEUDO_EXTENSION {
            match pairing_at(bytes, i.0 as usize) {
                Ok(p) => p,
                Err(e) => {
                    out.push(Diagnostic::at(e.slot(), 0, DiagnosticKind::Pairing(e)));
                    Pairing::Single
                }
            }
        } else {
            Pairing::Single
        };
        if paired == Pairing::Continuation {
            check_continuation(&t, opts, i, &s, out);
        } else {
            check_slot(&t, opts, i, &s, out);
        }
    }
    let rest = it.remainder().len();
    if rest != 0 {
        let whole = (bytes.len() / SLOT_BYTES) as u32;
        out.push(Diagnostic {
            index: SlotIndex(whole),
            offset: SlotIndex(whole).byte_offset(),
            kind: DiagnosticKind::TrailingBytes(rest),
        });
    }
}

/// A continuation slot (D155): its opcode is a pseudo in a lowered stream; no other byte has a
/// header or events meaning.
fn check_continuation(
    t: &Tables,
    o: &ValidateOptions,
    i: SlotIndex,
    s: &Slot<'_>,
    out: &mut Vec<Diagnostic>,
) {
    let op = s.bytes()[0];
    if o.lowered && t.pseudo[op as usize] {
        let kind = DiagnosticKind::PseudoInLoweredStream(Opcode(op));
        out.push(Diagnostic::at(i, 0, kind));
    }
}

#[inline]
fn check_slot(
    t: &Tables,
    o: &ValidateOptions,
    i: SlotIndex,
    s: &Slot<'_>,
    out: &mut Vec<Diagnostic>,
) {
    let b = s.bytes();
    let op = b[0] as usize;
    let mut push = |at: usize, kind| out.push(Diagnostic::at(i, at, kind));
    if b[1] != INST_NWORDS {
        push(1, DiagnosticKind::BadWordLen(b[1]));
    }
    if !t.known[op] {
        push(0, DiagnosticKind::UnknownOpcode(Opcode(b[0])));
    } else if o.lowered && t.pseudo[op] {
        push(0, DiagnosticKind::PseudoInLoweredStream(Opcode(b[0])));
    }
    let name_at = match o.dialect {
        Dialect::Semaphore8 => 0x0C,
        Dialect::Legacy4 => 0x08,
    };
    if b[0] == Opcode::PSEUDO_DMA_TRIGGER.0 && b[name_at] == 0 {
        push(name_at, DiagnosticKind::EmptyDmaQueueName);
    }
    if o.dialect == Dialect::Semaphore8 {
        if !t.wait_ok[b[4] as usize] {
            push(4, DiagnosticKind::BadWaitMode(b[4]));
        }
        if !t.update_ok[b[6] as usize] {
            push(6, DiagnosticKind::BadUpdateMode(b[6]));
        }
        for &at in t.dtype_at[op].iter().take_while(|&&at| at != NO_FIELD) {
            if b[at as usize] > 0x0F {
                push(at as usize, DiagnosticKind::BadDtype(b[at as usize]));
            }
        }
        if b[0] == Opcode::EVENT_SEMAPHORE.0 {
            if !t.wait_ok[b[0x20] as usize] {
                push(0x20, DiagnosticKind::BadWaitMode(b[0x20]));
            }
            if !t.update_ok[b[0x22] as usize] {
                push(0x22, DiagnosticKind::BadUpdateMode(b[0x22]));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_sample_pool_is_valid_unlowered_and_rejected_lowered() {
        let pool = crate::text::tests::pool_bin();
        assert_eq!(validate(&pool, &ValidateOptions::default()), []);
        let lowered = ValidateOptions {
            lowered: true,
            ..Default::default()
        };
        let d = validate(&pool, &lowered);
        assert_eq!(d.len(), 2);
        assert_eq!((d[1].index, d[1].offset), (SlotIndex(1), ByteOffset(0x40)));
        assert_eq!(
            d[1].kind,
            DiagnosticKind::PseudoInLoweredStream(Opcode(0xc1))
        );
    }

    /// spec 003 §5/§7.2: reading the name at +0x08 (4-byte events) finds it empty.
    #[test]
    fn every_problem_is_reported_with_its_offset() {
        let mut b = vec![0u8; 64 * 2 + 3];
        b[..2].copy_from_slice(&[0xc1, 0x40]);
        b[4] = 0x42;
        b[6] = 0x77;
        b[64] = 0x50;
        b[65] = 0x10;
        let d = validate(&b, &ValidateOptions::default());
        let kinds: Vec<_> = d.iter().map(|d| (d.offset.0, d.kind.clone())).collect();
        assert_eq!(
            kinds,
            [
                (1, DiagnosticKind::BadWordLen(0x40)),
                (0x0C, DiagnosticKind::EmptyDmaQueueName),
                (4, DiagnosticKind::BadWaitMode(0x42)),
                (6, DiagnosticKind::BadUpdateMode(0x77)),
                (64, DiagnosticKind::UnknownOpcode(Opcode(0x50))),
                (128, DiagnosticKind::TrailingBytes(3)),
            ]
        );
    }

    /// D155: moe_v6b's 128-byte DIRECT2D record is valid; its continuation's zero
    /// `inst_word_len` and its index bytes are not read as a header and events.
    #[test]
    fn dma_record_with_continuation_is_valid() {
        use crate::continuation::tests::{MOE_POOL_SLOT9, MOE_POOL_SLOT10};
        let mut b = MOE_POOL_SLOT9.to_vec();
        let mut ext = MOE_POOL_SLOT10;
        ext[4] = 0x42; // an index address byte, not a wait_mode
        b.extend_from_slice(&ext);
        assert_eq!(validate(&b, &ValidateOptions::default()), []);
        let lowered = ValidateOptions {
            lowered: true,
            ..Default::default()
        };
        let d = validate(&b, &lowered);
        assert_eq!(d.len(), 2, "{d:?}");
        assert_eq!((d[1].index, d[1].offset), (SlotIndex(1), ByteOffset(0x40)));
    }

    #[test]
    fn missing_and_stray_continuations_are_reported_at_their_slot() {
        use crate::continuation::tests::{MOE_POOL_SLOT9, MOE_POOL_SLOT10};
        let d = validate(&MOE_POOL_SLOT9, &ValidateOptions::default());
        assert_eq!(d.len(), 1, "{d:?}");
        assert_eq!((d[0].index, d[0].offset), (SlotIndex(1), ByteOffset(0x40)));
        assert!(matches!(
            d[0].kind,
            DiagnosticKind::Pairing(PairingError::MissingContinuation { found: None, .. })
        ));
        let mut b = vec![0u8; 64];
        b[..2].copy_from_slice(&[0xa4, 0x10]);
        b.extend_from_slice(&MOE_POOL_SLOT10);
        let d = validate(&b, &ValidateOptions::default());
        assert_eq!((d[0].index, d[0].offset), (SlotIndex(1), ByteOffset(0x40)));
        assert!(
            d[0].to_string()
                .starts_with("slot 1 (byte 0x40): PSEUDO_EXTENSION")
        );
        assert!(matches!(
            d[0].kind,
            DiagnosticKind::Pairing(PairingError::StrayContinuation { .. })
        ));
    }

    /// The layout table tells the validator where the dtype bytes are (D130): a MATMUL whose
    /// src dtype (+0x20) is 0x1A is reported there; the real value 0x0A is not.
    #[test]
    fn dtype_bytes_of_the_layout_are_checked() {
        let mut b = [0u8; 64];
        b[..2].copy_from_slice(&[0x02, 0x10]);
        b[0x20] = 0x0a;
        assert_eq!(validate(&b, &ValidateOptions::default()), []);
        b[0x20] = 0x1a;
        let d = validate(&b, &ValidateOptions::default());
        assert_eq!(d.len(), 1);
        assert_eq!(
            (d[0].offset, d[0].kind.clone()),
            (ByteOffset(0x20), DiagnosticKind::BadDtype(0x1a))
        );
        assert!(
            d[0].to_string()
                .ends_with("dtype byte 0x1a is not a dtype code")
        );
    }

    #[test]
    fn generation_gates_opcodes() {
        let mut b = [0u8; 64];
        b[..2].copy_from_slice(&[0x06, 0x10]); // LDTAGS, v3+
        let v2 = ValidateOptions {
            generation: Some(Generation::V2),
            ..Default::default()
        };
        assert_eq!(validate(&b, &v2).len(), 1);
        let v3 = ValidateOptions {
            generation: Some(Generation::V3),
            ..Default::default()
        };
        assert_eq!(validate(&b, &v3), []);
    }
}
