//! The function markers image assembly resolves (spec 000 §6.3, §7.3; decision D50): copied 1->1
//! and listed with their names.

use neff_isa::builder::add_ins;
use neff_isa::payload::{FunctionName, PseudoInst};
use neff_isa::{Opcode, SLOT_BYTES, Slot};

use super::lowered::{BlockWriter, Special, SpecialKind};

/// Copies a 0xD1/0xD2/0xD3/0xDF slot verbatim and records it as a [`Special`].
pub(super) fn translate_special(
    slot: &[u8; SLOT_BYTES],
    source_slot: u64,
    out: &mut BlockWriter<'_, '_>,
) {
    let s = Slot::new(slot);
    let kind = match s.opcode() {
        Opcode::PSEUDO_FUNCTION_BEGIN => SpecialKind::FunctionBegin,
        Opcode::PSEUDO_FUNCTION_RETURN => SpecialKind::FunctionReturn,
        Opcode::PSEUDO_FUNCTION_CALL => SpecialKind::FunctionCall,
        _ => SpecialKind::Inst(PseudoInst(s).sub_op().map_or_else(|raw| raw, u8::from)),
    };
    let name = match kind {
        // The sub-op's own name (reference §4.2: 1 EXIT_EXECUTION, 2 LIBRARY_RELOAD_INDEX).
        SpecialKind::Inst(n) => match PseudoInst(s).sub_op() {
            Ok(op) => op.text().to_owned(),
            Err(_) => format!("sub-op {n}"),
        },
        // The 32-byte name at +12 (spec 000 §6.3 `&buf[O + 12]`).
        _ => String::from_utf8_lossy(FunctionName(s).name()).into_owned(),
    };
    let at = out.bytes().len();
    out.block.specials.push(Special {
        offset: out.offset(),
        source_slot,
        kind,
        name,
    });
    add_ins(out.bytes(), at, slot);
}
