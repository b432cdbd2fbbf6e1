//! The runtime model's PREAMBLE and POSTAMBLE bytes (decision D174): one placeholder record per
//! runtime slot, so that lengths and positions are the runtime's; what each slot is lives in
//! [`crate::runtime_model::RuntimeRegions`], not in these bytes.
//!
//! The placeholder is the neff-isa NOP record (`add_nop`, no events). The traces give mnemonics
//! and operand text, not the runtime's encodings, and many slots are never traced at all:
//! writing a guessed encoding would put invented bytes in the image.

use neff_isa::SLOT_BYTES;
use neff_isa::builder::add_nop;

use super::CodeRange;
use crate::runtime_model::{LearnedVariant, RuntimeRegions};

/// The runtime PREAMBLE: its bytes, the MODEL_SWITCH range and the program start offset.
pub fn build_preamble(regions: &RuntimeRegions) -> (Vec<u8>, CodeRange, usize) {
    let bytes = placeholders(regions.preamble.len());
    let ms = &regions.model_switch;
    (
        bytes,
        CodeRange::span(ms.start * SLOT_BYTES, ms.end * SLOT_BYTES),
        regions.program_start * SLOT_BYTES,
    )
}

/// A learned PREAMBLE (decision D463): the runtime's own bytes, its MODEL_SWITCH range and
/// program start offset.
pub fn learned_preamble(v: &LearnedVariant) -> (Vec<u8>, CodeRange, usize) {
    let ms = &v.model_switch;
    (
        v.preamble.clone(),
        CodeRange::span(ms.start * SLOT_BYTES, ms.end * SLOT_BYTES),
        v.program_start * SLOT_BYTES,
    )
}

/// Appends the runtime POSTAMBLE (its branch back included) to `buf`.
pub fn append_postamble(regions: &RuntimeRegions, buf: &mut Vec<u8>) {
    buf.extend_from_slice(&placeholders(regions.postamble.len()));
}

/// `n` placeholder records.
fn placeholders(n: usize) -> Vec<u8> {
    let mut b = Vec::with_capacity(n * SLOT_BYTES);
    let mut off = 0;
    for _ in 0..n {
        off = add_nop(&mut b, off, None);
    }
    b
}
