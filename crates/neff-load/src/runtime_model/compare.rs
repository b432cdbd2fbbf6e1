//! A loaded image held against the runtime's own (decision D466): slot by slot, each slot
//! identical, different only in relocated address fields, or different (which fields).
//!
//! A relocated field (decision D465) is an aligned 8-byte word whose two values are both
//! addresses the allocator chose: the captured one inside the capture's allocation window, the
//! model's inside one of the model's own (its HBM and tensor windows). Where an image lands in
//! device memory depends on what else the runtime had loaded, so such a word says nothing about
//! the lowering.

use std::ops::Range;

use neff_isa::text::layout_for_dialect;
use neff_isa::{Dialect, EngineType, Opcode, SLOT_BYTES};

use super::stream::CapturedStream;

/// The address windows a comparison treats as relocatable (decision D465).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Relocation {
    /// The model's own allocation windows.
    pub model: Vec<Range<u64>>,
    /// The capture's allocation window.
    pub captured: Range<u64>,
}

impl Relocation {
    /// The windows a comparison of `device`'s images with `captured` relocates (decision D465):
    /// the model's HBM and tensor windows and its learned runtime's window on the model side,
    /// the 4 GiB window of the captured streams' bases on the other.
    pub fn between(device: &crate::DeviceModel, captured: &[CapturedStream<'_>]) -> Self {
        let window = super::learned::RELOCATION_WINDOW;
        let low = captured.iter().map(|s| s.device_base).min().unwrap_or(0) & !(window - 1);
        let mut model = vec![
            device.hbm_base..device.hbm_base.saturating_add(device.hbm_size),
            device.tensor_base..device.tensor_base.saturating_add(window),
        ];
        if let Some(l) = &device.learned {
            model.push(l.window.clone());
        }
        Self {
            model,
            captured: low..low.saturating_add(window),
        }
    }

    /// Whether the word pair `(model, captured)` is one relocated address.
    pub fn relocates(&self, model: u64, captured: u64) -> bool {
        self.captured.contains(&captured) && self.model.iter().any(|w| w.contains(&model))
    }
}

/// What one slot's comparison found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Byte-identical.
    Identical,
    /// Different only in relocated address words.
    Relocated,
    /// Different beyond relocation: the differing fields.
    Differs(Vec<SlotDiff>),
}

/// One differing field of a slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SlotDiff {
    /// The slot's bytes that differ (a run of differing aligned 8-byte words).
    pub bytes: Range<usize>,
    /// The field of the captured opcode's layout that holds the first differing byte, or
    /// `opcode` when the opcode byte itself differs.
    pub field: String,
}

/// One engine's comparison.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineComparison {
    /// The engine.
    pub engine: EngineType,
    /// Slots of the model's image.
    pub model_slots: usize,
    /// Slots of the captured stream.
    pub captured_slots: usize,
    /// Whether the opcode sequences agree (same length, same opcode byte at every slot).
    pub opcodes_equal: bool,
    /// Byte-identical slots.
    pub identical: usize,
    /// Slots different only in relocated addresses.
    pub relocated: usize,
    /// The other slots (of those both have), with what differs.
    pub differs: Vec<(usize, Vec<SlotDiff>)>,
    /// Of [`Self::identical`], the ones the runtime wrote (PREAMBLE, POSTAMBLE, inner segments),
    /// and how many such slots the capture has.
    pub runtime_identical: (usize, usize),
}

impl EngineComparison {
    /// Whether the image is the runtime's, up to relocation: same length, no differing slot.
    pub fn matches(&self) -> bool {
        self.model_slots == self.captured_slots && self.differs.is_empty()
    }
}

/// The verdict on one slot pair.
pub fn compare_slot(model: &[u8], captured: &[u8], reloc: &Relocation) -> Verdict {
    if model == captured {
        return Verdict::Identical;
    }
    let word = |b: &[u8], i: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[i * 8..i * 8 + 8]);
        u64::from_le_bytes(w)
    };
    let mut diffs: Vec<SlotDiff> = Vec::new();
    let mut open: Option<Range<usize>> = None;
    for i in 0..SLOT_BYTES / 8 {
        let (m, c) = (word(model, i), word(captured, i));
        let real = m != c && (i == 0 || !reloc.relocates(m, c));
        match (&mut open, real) {
            (Some(r), true) => r.end = i * 8 + 8,
            (None, true) => open = Some(i * 8..i * 8 + 8),
            (Some(_), false) => {
                diffs.push(field_diff(model, captured, open.take().unwrap_or_default()))
            }
            (None, false) => {}
        }
    }
    if let Some(r) = open {
        diffs.push(field_diff(model, captured, r));
    }
    if diffs.is_empty() {
        Verdict::Relocated
    } else {
        Verdict::Differs(diffs)
    }
}

/// A differing run of words, named by the captured opcode's field at its first differing byte.
fn field_diff(model: &[u8], captured: &[u8], words: Range<usize>) -> SlotDiff {
    let first = words
        .clone()
        .find(|&b| model[b] != captured[b])
        .unwrap_or(words.start);
    let last = words
        .clone()
        .rev()
        .find(|&b| model[b] != captured[b])
        .unwrap_or(first);
    SlotDiff {
        bytes: first..last + 1,
        field: field_name(captured[0], first),
    }
}

/// The field holding byte `at` of an `opcode` slot: the layout field with the greatest offset not
/// past it (the text layouts list fields, not widths), else the byte's offset.
fn field_name(opcode: u8, at: usize) -> String {
    if at == 0 {
        return "opcode".into();
    }
    let named = layout_for_dialect(Opcode(opcode), Dialect::Semaphore8).and_then(|l| {
        l.fields
            .iter()
            .filter(|f| usize::from(f.offset) <= at)
            .max_by_key(|f| f.offset)
    });
    match named {
        Some(f) if usize::from(f.offset) + 8 > at => format!("{}@{:#04x}", f.name, at),
        _ => format!("{at:#04x}"),
    }
}

/// Compares an engine image with the runtime's stream of that engine.
pub fn compare_engine(
    model: &[u8],
    captured: &CapturedStream<'_>,
    reloc: &Relocation,
) -> EngineComparison {
    let model_slots = model.len() / SLOT_BYTES;
    let captured_slots = captured.slot_count();
    let mut out = EngineComparison {
        engine: captured.engine,
        model_slots,
        captured_slots,
        opcodes_equal: model_slots == captured_slots,
        identical: 0,
        relocated: 0,
        differs: Vec::new(),
        runtime_identical: (0, 0),
    };
    for i in 0..model_slots.min(captured_slots) {
        let (m, c) = (
            &model[i * SLOT_BYTES..(i + 1) * SLOT_BYTES],
            captured.slot(i).unwrap_or_default(),
        );
        out.opcodes_equal &= m[0] == c[0];
        let runtime = captured.is_runtime_slot(i);
        out.runtime_identical.1 += usize::from(runtime);
        match compare_slot(m, c, reloc) {
            Verdict::Identical => {
                out.identical += 1;
                out.runtime_identical.0 += usize::from(runtime);
            }
            Verdict::Relocated => out.relocated += 1,
            Verdict::Differs(d) => out.differs.push((i, d)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot(op: u8, word4: u64) -> Vec<u8> {
        let mut s = vec![0u8; SLOT_BYTES];
        s[0] = op;
        s[1] = 0x10;
        s[0x20..0x28].copy_from_slice(&word4.to_le_bytes());
        s
    }

    /// neffkit's default HBM window against the captures' stream window.
    fn reloc() -> Relocation {
        Relocation {
            model: std::iter::once(0x40_0000_0000..0x44_0000_0000).collect(),
            captured: 0x8005_0000_0000..0x8006_0000_0000,
        }
    }

    #[test]
    fn an_address_both_allocators_chose_is_a_relocation() {
        // baseline_attention sg00 Pool preamble slot 3: 0x8005c0377000 in the capture.
        let v = compare_slot(
            &slot(0xAB, 0x40_0001_0000),
            &slot(0xAB, 0x8005_c037_7000),
            &reloc(),
        );
        assert_eq!(v, Verdict::Relocated);
    }

    #[test]
    fn a_data_word_that_differs_is_named() {
        // fused_attention vs baseline_attention sg00 PE slot 6: WRITE data 2 vs 5.
        let v = compare_slot(&slot(0xA5, 2), &slot(0xA5, 5), &reloc());
        let Verdict::Differs(d) = v else {
            panic!("expected a difference, got {v:?}")
        };
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].bytes, 0x20..0x21);
    }

    #[test]
    fn an_address_outside_the_windows_is_a_real_difference() {
        let v = compare_slot(&slot(0xAB, 0x1234), &slot(0xAB, 0x8005_c037_7000), &reloc());
        assert!(matches!(v, Verdict::Differs(_)), "{v:?}");
    }
}
