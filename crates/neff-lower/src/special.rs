//! The function markers image assembly resolves (spec 000 §6.3, §7.3; decision D50): copied 1->1
//! and listed with their names.

use neff_isa::builder::add_ins;
use neff_isa::{Opcode, SLOT_BYTES};

use super::lowered::{BlockWriter, Special, SpecialKind};

/// The 32-byte name field at +12 of 0xD1/0xD3 (spec 000 §6.3 `&buf[O + 12]`).
const NAME: std::ops::Range<usize> = 12..44;

/// Copies a 0xD1/0xD2/0xD3/0xDF slot verbatim and records it as a [`Special`].
pub(super) fn translate_special(
    slot: &[u8; SLOT_BYTES],
    source_slot: u64,
    out: &mut BlockWriter<'_>,
) {
    let kind = match Opcode(slot[0]) {
        Opcode::PSEUDO_FUNCTION_BEGIN => SpecialKind::FunctionBegin,
        Opcode::PSEUDO_FUNCTION_RETURN => SpecialKind::FunctionReturn,
        Opcode::PSEUDO_FUNCTION_CALL => SpecialKind::FunctionCall,
        _ => SpecialKind::Inst(slot[12]),
    };
    let name = match kind {
        SpecialKind::Inst(1) => "EXIT_EXECUTION".to_owned(),
        SpecialKind::Inst(2) => "LIBRARY_RELOAD_INDEX".to_owned(),
        SpecialKind::Inst(n) => format!("sub-op {n}"),
        _ => {
            let raw = &slot[NAME];
            let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
            String::from_utf8_lossy(&raw[..end]).into_owned()
        }
    };
    let at = out.bytes.len();
    out.block.specials.push(Special {
        offset: out.offset(),
        source_slot,
        kind,
        name,
    });
    add_ins(out.bytes, at, slot);
}
