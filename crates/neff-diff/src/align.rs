//! The alignment of two instruction streams (decision D501), in two passes the way a person
//! reads a listing:
//!
//! 1. **Identical slots.** Every 64-byte slot is a token (its bytes, interned); the histogram
//!    diff of imara-diff (Myers with git's heuristics on repetitive runs) finds the slots both
//!    sides hold unchanged. What remains are hunks: a run of A's slots replaced by a run of B's.
//! 2. **Same instruction, other operands.** Inside each hunk the slots are re-tokenised by a
//!    coarser key ([`Key`]): the debug info's BIR instruction name and source line when both
//!    NEFFs carry debug info for the stream, else the opcode. Slots the second pass pairs are
//!    *changed* (their fields are compared later, [`crate::operands`]).
//! 3. **Same place, same opcode.** What the keys left unpaired between two pairs is aligned
//!    once more by opcode (a recompile renames BIR instructions); the rest are *removed* (A
//!    only) or *added* (B only).
//!
//! Only the edits are kept, as runs ([`Op`]), so memory is bounded by the edits, never a
//! per-slot record of the unchanged bulk.

use std::collections::HashMap;
use std::hash::Hash;
use std::ops::Range;

use imara_diff::{Algorithm, Diff, InternedInput, Token};
use neff_isa::SLOT_BYTES;
use serde::Serialize;

/// One run of edits, in slot indices of each side.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Op {
    /// `len` slots of A from `a` are not in B.
    Removed {
        /// First slot of A.
        a: u32,
        /// Slots.
        len: u32,
    },
    /// `len` slots of B from `b` are not in A.
    Added {
        /// First slot of B.
        b: u32,
        /// Slots.
        len: u32,
    },
    /// `len` slots pair up one to one (same key), their bytes differ.
    Changed {
        /// First slot of A.
        a: u32,
        /// First slot of B.
        b: u32,
        /// Slots.
        len: u32,
    },
    /// `len` slots inside a hunk that the second pass paired and that are byte-identical after
    /// all (the first pass's heuristics are not minimal): unchanged, shown as context.
    Same {
        /// First slot of A.
        a: u32,
        /// First slot of B.
        b: u32,
        /// Slots.
        len: u32,
    },
}

impl Op {
    /// The A slots this run covers (start, count).
    pub fn a_range(&self) -> (u32, u32) {
        match *self {
            Op::Removed { a, len } | Op::Changed { a, len, .. } | Op::Same { a, len, .. } => {
                (a, len)
            }
            Op::Added { .. } => (0, 0),
        }
    }
}

/// The second-pass key of a slot of a stream both sides carry debug info for (decision D501);
/// a stream without it is keyed by the bare opcode byte.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Key {
    /// The BIR instruction name and source line (`file`, `line`) the debug info gives the slot.
    Bir(String, Option<(String, u64)>),
    /// The opcode byte: a slot without a BIR instruction (the compiler's own).
    Opcode(u8),
}

/// The edits between two streams, and their counts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Alignment {
    /// Slots of A.
    pub slots_a: u64,
    /// Slots of B.
    pub slots_b: u64,
    /// Slots on both sides, byte-identical.
    pub unchanged: u64,
    /// Slots only in B.
    pub added: u64,
    /// Slots only in A.
    pub removed: u64,
    /// Slots paired with a different slot of the other side.
    pub changed: u64,
    /// The edit runs, in stream order.
    pub ops: Vec<Op>,
}

/// Aligns the whole slots of `a` and `b` (trailing bytes are the caller's). `key_a(i)` /
/// `key_b(i)` give the second-pass key of a slot of a hunk.
pub fn align<K: Hash + Eq + Clone>(
    a: &[u8],
    b: &[u8],
    key_a: impl Fn(u32) -> K,
    key_b: impl Fn(u32) -> K,
) -> Alignment {
    let slots_a = whole_slots(a);
    let slots_b = whole_slots(b);
    let mut input: InternedInput<&[u8]> = InternedInput::default();
    input.reserve(slots_a.len() as u32, slots_b.len() as u32);
    input.update_before(slots_a.iter().map(|s| s.as_slice()));
    input.update_after(slots_b.iter().map(|s| s.as_slice()));
    let mut first = Diff::compute(Algorithm::Histogram, &input);
    // Like git: a run of equal slots that could sit higher or lower goes as far down as it can
    // (an appended copy of the last slot is the last slot added).
    first.postprocess_no_heuristic(&input);
    let mut out = Alignment {
        slots_a: slots_a.len() as u64,
        slots_b: slots_b.len() as u64,
        ..Alignment::default()
    };
    let mut emit = |step: Step| {
        let op = match step {
            Step::A(i) => Op::Removed { a: i, len: 1 },
            Step::B(j) => Op::Added { b: j, len: 1 },
            Step::Pair(i, j) if slots_a[i as usize] == slots_b[j as usize] => {
                Op::Same { a: i, b: j, len: 1 }
            }
            Step::Pair(i, j) => Op::Changed { a: i, b: j, len: 1 },
        };
        push(&mut out.ops, op);
    };
    let opcode_a = |i: u32| slots_a[i as usize][0];
    let opcode_b = |j: u32| slots_b[j as usize][0];
    for h in first.hunks() {
        let steps = pass(h.before.clone(), h.after.clone(), &key_a, &key_b);
        // Third pass (D501): what the keys left unpaired between two pairs is paired by
        // opcode, so an instruction of another BIR name in the same place still reads as
        // changed operands.
        let mut k = 0;
        while k < steps.len() {
            let gap = steps[k..]
                .iter()
                .take_while(|s| !matches!(s, Step::Pair(..)))
                .count();
            if gap == 0 {
                emit(steps[k]);
                k += 1;
                continue;
            }
            let ra = range_of(&steps[k..k + gap], |s| matches!(s, Step::A(_)));
            let rb = range_of(&steps[k..k + gap], |s| matches!(s, Step::B(_)));
            if ra.is_empty() || rb.is_empty() {
                steps[k..k + gap].iter().for_each(|&s| emit(s));
            } else {
                pass(ra, rb, opcode_a, opcode_b)
                    .into_iter()
                    .for_each(&mut emit);
            }
            k += gap;
        }
    }
    for op in &out.ops {
        match *op {
            Op::Removed { len, .. } => out.removed += u64::from(len),
            Op::Added { len, .. } => out.added += u64::from(len),
            Op::Changed { len, .. } => out.changed += u64::from(len),
            Op::Same { .. } => {}
        }
    }
    out.unchanged = out.slots_a - out.removed - out.changed;
    out
}

/// One slot's fate in a pass, in absolute slot indices.
#[derive(Debug, Clone, Copy)]
enum Step {
    /// A's slot, unpaired.
    A(u32),
    /// B's slot, unpaired.
    B(u32),
    /// A's and B's slots paired (same key).
    Pair(u32, u32),
}

/// The slot range of the steps `is` picks (they are consecutive indices).
fn range_of(steps: &[Step], is: impl Fn(&Step) -> bool) -> Range<u32> {
    let mut it = steps.iter().filter(|s| is(s)).map(|s| match *s {
        Step::A(i) | Step::B(i) => i,
        Step::Pair(i, _) => i,
    });
    let first = it.next();
    let last = it.last().or(first);
    match (first, last) {
        (Some(f), Some(l)) => f..l + 1,
        _ => 0..0,
    }
}

/// Aligns A's slots `ra` with B's `rb` by key (Myers: the keys of a hunk are few and repeat,
/// where the histogram diff falls back to it anyway): unpaired A slots first, then unpaired B
/// slots, as diff(1) prints them, then each pair.
fn pass<K: Hash + Eq + Clone>(
    ra: Range<u32>,
    rb: Range<u32>,
    key_a: impl Fn(u32) -> K,
    key_b: impl Fn(u32) -> K,
) -> Vec<Step> {
    let ka: Vec<K> = ra.clone().map(key_a).collect();
    let kb: Vec<K> = rb.clone().map(key_b).collect();
    let (ta, tb, n) = intern_pair(&ka, &kb);
    drop((ka, kb));
    let mut d = Diff::default();
    d.compute_with(Algorithm::Myers, &ta, &tb, n);
    let (na, nb) = (ta.len() as u32, tb.len() as u32);
    let mut steps = Vec::with_capacity((na + nb) as usize);
    let (mut i, mut j) = (0u32, 0u32);
    while i < na || j < nb {
        if i < na && d.is_removed(i) {
            steps.push(Step::A(ra.start + i));
            i += 1;
        } else if j < nb && d.is_added(j) {
            steps.push(Step::B(rb.start + j));
            j += 1;
        } else {
            steps.push(Step::Pair(ra.start + i, rb.start + j));
            i += 1;
            j += 1;
        }
    }
    steps
}

/// The whole 64-byte slots of a stream, as array references (no copy).
fn whole_slots(bytes: &[u8]) -> &[[u8; SLOT_BYTES]] {
    bytes.as_chunks::<SLOT_BYTES>().0
}

/// Interns two key lists into one token space.
fn intern_pair<K: Hash + Eq + Clone>(a: &[K], b: &[K]) -> (Vec<Token>, Vec<Token>, u32) {
    let mut ids: HashMap<K, u32> = HashMap::new();
    let mut id = |k: &K| {
        let next = ids.len() as u32;
        Token(*ids.entry(k.clone()).or_insert(next))
    };
    let ta = a.iter().map(&mut id).collect();
    let tb = b.iter().map(&mut id).collect();
    (ta, tb, ids.len() as u32)
}

/// Appends one slot's edit, extending the last run when it continues it.
fn push(ops: &mut Vec<Op>, op: Op) {
    if let Some(last) = ops.last_mut() {
        match (last, op) {
            (Op::Removed { a, len }, Op::Removed { a: a2, .. }) if *a + *len == a2 => {
                *len += 1;
                return;
            }
            (Op::Added { b, len }, Op::Added { b: b2, .. }) if *b + *len == b2 => {
                *len += 1;
                return;
            }
            (Op::Changed { a, b, len }, Op::Changed { a: a2, b: b2, .. })
            | (Op::Same { a, b, len }, Op::Same { a: a2, b: b2, .. })
                if *a + *len == a2 && *b + *len == b2 =>
            {
                *len += 1;
                return;
            }
            _ => {}
        }
    }
    ops.push(op);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(op: u8, x: u8) -> [u8; 64] {
        let mut s = [0u8; 64];
        s[0] = op;
        s[1] = 16;
        s[40] = x;
        s
    }

    fn stream(slots: &[[u8; 64]]) -> Vec<u8> {
        slots.concat()
    }

    fn by_opcode(bytes: &[u8]) -> impl Fn(u32) -> u8 + '_ {
        move |i| bytes[i as usize * 64]
    }

    #[test]
    fn counts_add_up_and_operand_change_is_changed_not_removed_and_added() {
        let a = stream(&[slot(1, 0), slot(2, 0), slot(3, 0), slot(4, 0)]);
        let b = stream(&[slot(1, 0), slot(2, 9), slot(3, 0), slot(5, 0), slot(4, 0)]);
        let r = align(&a, &b, by_opcode(&a), by_opcode(&b));
        assert_eq!((r.slots_a, r.slots_b), (4, 5));
        assert_eq!((r.unchanged, r.changed, r.added, r.removed), (3, 1, 1, 0));
        assert_eq!(r.unchanged + r.removed + r.changed, r.slots_a);
        assert_eq!(r.unchanged + r.added + r.changed, r.slots_b);
        assert_eq!(
            r.ops,
            [
                Op::Changed { a: 1, b: 1, len: 1 },
                Op::Added { b: 3, len: 1 }
            ]
        );
    }

    #[test]
    fn other_opcode_is_removed_and_added() {
        let a = stream(&[slot(1, 0), slot(2, 0), slot(3, 0)]);
        let b = stream(&[slot(1, 0), slot(7, 0), slot(3, 0)]);
        let r = align(&a, &b, by_opcode(&a), by_opcode(&b));
        assert_eq!(
            r.ops,
            [Op::Removed { a: 1, len: 1 }, Op::Added { b: 1, len: 1 }]
        );
    }

    #[test]
    fn identical_streams_have_no_ops() {
        let a = stream(&[slot(1, 0), slot(2, 0)]);
        let r = align(&a, &a, by_opcode(&a), by_opcode(&a));
        assert!(r.ops.is_empty());
        assert_eq!(r.unchanged, 2);
    }
}
