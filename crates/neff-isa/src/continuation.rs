//! 128-byte records: a PSEUDO_DMA_DIRECT2D (0xD4) followed by its PSEUDO_EXTENSION (0xDA)
//! continuation slot is one instruction of two slots (decision D155).
//!
//! The continuation is S5's `PSEUDO_DMA_EXT_STRUCT` ([`crate::payload::DmaExtension`]): it has no
//! header and no events (byte 1 is `flags`, not `inst_word_len`), so a reader that takes it for an
//! ordinary slot reports `inst_word_len is 0` and misreads bytes 4..12 as events. Its meaning is
//! positional (S5: "this instruction must follow a Pseudo DMA Direct instruction immediately ...
//! there could be multiple pseudo instruction extension structs that use this same opcode"): a 0xDA
//! right after a 0xD4 is that 0xD4's continuation. A 0xDA after a PSEUDO_TRIGGER_COLLECTIVE2
//! (0xD9) is the collective's own 64-byte extension slot (spec 001 §3, decision D55) and stays a
//! slot of its own; a 0xDA after anything else is stray.
//!
//! A 0xD4 *requires* a continuation when one of its `PSEUDO_ADDR8` start addresses has the
//! OFFSET_REG marker bit (0x08, S5 `common.h:586`; the lead's rule: source mode byte +0x17 = 0x28)
//! or its `dge_op` (+0x0F) selects INDIRECT1D / TRANSPOSE / GATHER_TRANSPOSE (S5: "requires
//! extension instr"). Evidence (D155): all 144 such 0xD4 of moe_v6b's Pool are followed by a 0xDA
//! and none of the 490 other 0xD4 across the seven real NEFFs is.

use std::fmt;

use crate::opcode::Opcode;
use crate::slot::SLOT_BYTES;
use crate::stream::SlotIndex;

use crate::layout::ADDR8_OFFSET_REG;
use crate::payload::{DgeOp, DmaDirect2d};
use crate::slot::Slot;

/// Whether a 0xDA can follow this opcode at all (as a continuation or as the 0xD9 extension).
#[inline]
pub fn takes_extension(op: Opcode) -> bool {
    op == Opcode::PSEUDO_DMA_DIRECT2D || op == Opcode::PSEUDO_TRIGGER_COLLECTIVE2
}

/// Whether the 0xD4 `head` must be followed by a continuation (decision D155). False for any other
/// opcode.
#[inline]
pub fn requires_continuation(head: &[u8; SLOT_BYTES]) -> bool {
    if Opcode(head[0]) != Opcode::PSEUDO_DMA_DIRECT2D {
        return false;
    }
    // The OFFSET_REG marker bit (S5 `common.h:586`) on either ADDR8, or a `dge_op` other than
    // DIRECT2D (INDIRECT1D, TRANSPOSE, GATHER_TRANSPOSE: S5 "requires extension instr").
    let d = DmaDirect2d(Slot::new(head));
    (d.src().mode | d.dst().mode) & ADDR8_OFFSET_REG != 0
        || matches!(
            d.dge_op(),
            Ok(DgeOp::Indirect1d | DgeOp::Transpose | DgeOp::GatherTranspose)
        )
}

/// Whether `slot` is the continuation of `prev` (a 0xDA right after a 0xD4).
#[inline]
pub fn is_continuation(prev: u8, slot: u8) -> bool {
    Opcode(slot) == Opcode::PSEUDO_EXTENSION && Opcode(prev) == Opcode::PSEUDO_DMA_DIRECT2D
}

/// What one slot is in its stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pairing {
    /// A one-slot instruction (including a 0xD9's own 0xDA extension, decision D55).
    Single,
    /// The first slot of a two-slot record; the next slot is its continuation.
    Head,
    /// The second slot of a two-slot record.
    Continuation,
}

/// A slot sequence that breaks the pairing rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PairingError {
    /// A 0xD4 that requires a continuation is followed by another opcode (`Some`) or ends the
    /// stream (`None`).
    MissingContinuation {
        /// The 0xD4.
        head: SlotIndex,
        /// The opcode in the slot after it.
        found: Option<Opcode>,
    },
    /// A 0xDA that follows neither a 0xD4 nor a 0xD9 (`after` is the previous slot's opcode;
    /// `None` at the start of the stream).
    StrayContinuation {
        /// The 0xDA.
        slot: SlotIndex,
        /// The opcode before it.
        after: Option<Opcode>,
    },
}

impl PairingError {
    /// The slot the problem is reported at: the slot where the continuation should be (the one
    /// after the head, which may be one past the end of the stream), or the stray 0xDA.
    pub fn slot(&self) -> SlotIndex {
        match *self {
            Self::MissingContinuation { head, .. } => SlotIndex(head.0.saturating_add(1)),
            Self::StrayContinuation { slot, .. } => slot,
        }
    }
}

impl fmt::Display for PairingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Self::MissingContinuation { head, found } => {
                write!(
                    f,
                    "PSEUDO_DMA_DIRECT2D at {head} uses an offset register or an extended dge_op \
                     and needs a PSEUDO_EXTENSION (0xda) continuation in slot {}, but ",
                    head.0.saturating_add(1)
                )?;
                match found {
                    Some(op) => write!(f, "that slot holds opcode {:#04x}", op.0),
                    None => f.write_str("the stream ends"),
                }
            }
            Self::StrayContinuation { slot, after } => {
                write!(
                    f,
                    "PSEUDO_EXTENSION (0xda) at {slot} follows neither a PSEUDO_DMA_DIRECT2D \
                     (0xd4) nor a PSEUDO_TRIGGER_COLLECTIVE2 (0xd9) but "
                )?;
                match after {
                    Some(op) => write!(f, "opcode {:#04x}", op.0),
                    None => f.write_str("the start of the stream"),
                }
            }
        }
    }
}

impl std::error::Error for PairingError {}

/// The pairing of slot `index` of `stream` (whole slots; a trailing partial slot is ignored),
/// read from the slot and its two neighbours only. `Err` when the slot breaks the rule; a slot
/// past the end is `Single`.
pub fn pairing_at(stream: &[u8], index: usize) -> Result<Pairing, PairingError> {
    let n = stream.len() / SLOT_BYTES;
    let Some(slot) = slot_at(stream, index) else {
        return Ok(Pairing::Single);
    };
    let op = slot[0];
    let prev = index
        .checked_sub(1)
        .and_then(|p| slot_at(stream, p))
        .map(|s| s[0]);
    if Opcode(op) == Opcode::PSEUDO_EXTENSION {
        return match prev {
            Some(p) if is_continuation(p, op) => Ok(Pairing::Continuation),
            Some(p) if takes_extension(Opcode(p)) => Ok(Pairing::Single),
            after => Err(PairingError::StrayContinuation {
                slot: slot_index(index),
                after: after.map(Opcode),
            }),
        };
    }
    if Opcode(op) != Opcode::PSEUDO_DMA_DIRECT2D {
        return Ok(Pairing::Single);
    }
    let next = (index + 1 < n)
        .then(|| slot_at(stream, index + 1))
        .flatten()
        .map(|s| s[0]);
    match next {
        Some(nx) if is_continuation(op, nx) => Ok(Pairing::Head),
        found if requires_continuation(slot) => Err(PairingError::MissingContinuation {
            head: slot_index(index),
            found: found.map(Opcode),
        }),
        _ => Ok(Pairing::Single),
    }
}

/// The byte offset at or after `at` (a slot boundary) where `stream` may be cut without
/// separating a head from its continuation: `at`, or one slot later when the slot at `at` is a
/// continuation.
pub fn record_boundary(stream: &[u8], at: usize) -> usize {
    let cuts = at >= SLOT_BYTES
        && stream
            .get(at - SLOT_BYTES..at + 1)
            .is_some_and(|w| is_continuation(w[0], w[SLOT_BYTES]));
    if cuts { at + SLOT_BYTES } else { at }
}

/// How many bytes at the end of a piece a reader that sees the stream piece by piece should hold
/// back for the next piece: the last whole slot when a 0xDA may follow it (a 0xD4 or 0xD9), so
/// that the pairing of both is judged with both in view; else 0.
pub fn open_tail(piece: &[u8]) -> usize {
    let whole = piece.len() / SLOT_BYTES * SLOT_BYTES;
    match whole.checked_sub(SLOT_BYTES).map(|last| piece[last]) {
        Some(op) if takes_extension(Opcode(op)) => piece.len() - (whole - SLOT_BYTES),
        _ => 0,
    }
}

fn slot_at(stream: &[u8], index: usize) -> Option<&[u8; SLOT_BYTES]> {
    let start = index.checked_mul(SLOT_BYTES)?;
    stream.get(start..start + SLOT_BYTES)?.try_into().ok()
}

fn slot_index(index: usize) -> SlotIndex {
    SlotIndex(u32::try_from(index).unwrap_or(u32::MAX))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// moe_v6b sg00/Pool.bin slot 9, verbatim: a 0xD4 whose source is DGE-table entry 1 plus
    /// offset register 31 (mode 0x28), bound register 0xbd.
    pub(crate) const MOE_POOL_SLOT9: [u8; 64] = [
        0xd4, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x0c, 0x10, 0x00, //
        0x1f, 0, 0, 0, 0x01, 0, 0, 0x28, 0x00, 0x04, 0, 0, 0x01, 0, 0, 0, //
        0x80, 0, 0x01, 0, 0x00, 0x04, 0xbd, 0, 0x00, 0x40, 0, 0, 0, 0, 0, 0x10, //
        0, 0, 0x04, 0, 0x01, 0, 0, 0, 0x80, 0, 0x01, 0, 0x00, 0x04, 0x06, 0x06,
    ];

    /// moe_v6b sg00/Pool.bin slot 10, verbatim: its continuation, src_bound_size_bytes =
    /// 0x1000_0000 (the 256 MiB `input3` the table entry names).
    pub(crate) const MOE_POOL_SLOT10: [u8; 64] = {
        let mut b = [0u8; 64];
        b[0] = 0xda;
        b[0x0f] = 0x10;
        b
    };

    fn stream(slots: &[[u8; 64]]) -> Vec<u8> {
        slots.concat()
    }

    fn op(o: u8) -> [u8; 64] {
        let mut b = [0u8; 64];
        b[0] = o;
        b[1] = 16;
        b
    }

    #[test]
    fn moe_offset_register_direct2d_pairs_with_the_next_slot() {
        assert!(requires_continuation(&MOE_POOL_SLOT9));
        let s = stream(&[op(0xa8), MOE_POOL_SLOT9, MOE_POOL_SLOT10, op(0xce)]);
        let got: Vec<_> = (0..4).map(|i| pairing_at(&s, i)).collect();
        assert_eq!(
            got,
            [
                Ok(Pairing::Single),
                Ok(Pairing::Head),
                Ok(Pairing::Continuation),
                Ok(Pairing::Single)
            ]
        );
    }

    #[test]
    fn plain_direct2d_needs_no_continuation_but_takes_one() {
        let plain = crate::payload::tests_support::POOL_DIRECT2D;
        assert!(!requires_continuation(&plain));
        let s = stream(&[plain, op(0xa4)]);
        assert_eq!(pairing_at(&s, 0), Ok(Pairing::Single));
        let s = stream(&[plain, MOE_POOL_SLOT10]);
        assert_eq!(pairing_at(&s, 0), Ok(Pairing::Head));
        assert_eq!(pairing_at(&s, 1), Ok(Pairing::Continuation));
    }

    #[test]
    fn dge_op_and_destination_offset_register_also_require_one() {
        // Offsets from reference §4.5, written by hand (not through the view under test).
        let (dge_op, dst_mode) = (0x0F, 0x2F);
        let mut d = crate::payload::tests_support::POOL_DIRECT2D;
        d[dge_op] = 1;
        assert!(requires_continuation(&d));
        d[dge_op] = 4;
        assert!(!requires_continuation(&d));
        d[dst_mode] = 0x18;
        assert!(requires_continuation(&d));
        assert!(!requires_continuation(&op(0xd9)));
    }

    #[test]
    fn offset_register_direct2d_at_the_end_of_the_stream_is_missing_its_continuation() {
        let s = stream(&[op(0xa4), MOE_POOL_SLOT9]);
        let e = pairing_at(&s, 1).unwrap_err();
        assert_eq!(
            e,
            PairingError::MissingContinuation {
                head: SlotIndex(1),
                found: None
            }
        );
        assert_eq!(e.slot(), SlotIndex(2));
        assert!(e.to_string().contains("slot 1"), "{e}");
        assert!(e.to_string().ends_with("the stream ends"), "{e}");
    }

    #[test]
    fn offset_register_direct2d_followed_by_another_opcode_names_it() {
        let s = stream(&[MOE_POOL_SLOT9, op(0xce)]);
        assert_eq!(
            pairing_at(&s, 0),
            Err(PairingError::MissingContinuation {
                head: SlotIndex(0),
                found: Some(Opcode(0xce))
            })
        );
        // A trailing partial slot is not a continuation.
        let mut s = stream(&[MOE_POOL_SLOT9]);
        s.extend_from_slice(&[0xda; 10]);
        assert!(pairing_at(&s, 0).is_err());
    }

    #[test]
    fn stray_continuation_is_an_error_with_its_slot() {
        let s = stream(&[op(0xa4), MOE_POOL_SLOT10]);
        let e = pairing_at(&s, 1).unwrap_err();
        assert_eq!(
            e,
            PairingError::StrayContinuation {
                slot: SlotIndex(1),
                after: Some(Opcode(0xa4))
            }
        );
        assert!(e.to_string().contains("slot 1"), "{e}");
        let s = stream(&[MOE_POOL_SLOT10]);
        assert_eq!(
            pairing_at(&s, 0),
            Err(PairingError::StrayContinuation {
                slot: SlotIndex(0),
                after: None
            })
        );
        // Two 0xDA after a 0xD4: the second is stray.
        let s = stream(&[MOE_POOL_SLOT9, MOE_POOL_SLOT10, MOE_POOL_SLOT10]);
        assert!(matches!(
            pairing_at(&s, 2),
            Err(PairingError::StrayContinuation { .. })
        ));
    }

    #[test]
    fn collective2_extension_stays_a_slot_of_its_own() {
        let s = stream(&[op(0xd9), op(0xda)]);
        assert_eq!(pairing_at(&s, 0), Ok(Pairing::Single));
        assert_eq!(pairing_at(&s, 1), Ok(Pairing::Single));
    }

    #[test]
    fn cuts_move_past_a_continuation_and_tails_hold_back_a_possible_head() {
        let s = stream(&[op(0xa4), MOE_POOL_SLOT9, MOE_POOL_SLOT10, op(0xa4)]);
        assert_eq!(record_boundary(&s, 0), 0);
        assert_eq!(record_boundary(&s, 64), 64);
        assert_eq!(record_boundary(&s, 128), 192);
        assert_eq!(record_boundary(&s, 192), 192);
        assert_eq!(record_boundary(&s, 256), 256);
        assert_eq!(open_tail(&s[..128]), 64);
        assert_eq!(open_tail(&s[..192]), 0);
        let mut t = s[..128].to_vec();
        t.extend_from_slice(&[1, 2, 3]);
        assert_eq!(open_tail(&t), 67);
        assert_eq!(open_tail(&[]), 0);
    }
}
