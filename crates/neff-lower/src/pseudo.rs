//! Which pseudo opcodes survive lowering as image-assembly placeholders (decision D50). Names and
//! the pseudo band itself come from neff-isa's one opcode table ([`neff_isa::Opcode`]).

use neff_isa::Opcode;

/// The function markers lowering leaves 1->1 for image assembly: 0xD1 begin, 0xD2 return,
/// 0xD3 call, 0xDF exit (decision D50).
pub const PLACEHOLDERS: [Opcode; 4] = [
    Opcode::PSEUDO_FUNCTION_BEGIN,
    Opcode::PSEUDO_FUNCTION_RETURN,
    Opcode::PSEUDO_FUNCTION_CALL,
    Opcode::PSEUDO_INST,
];

/// Whether `opcode` is one of [`PLACEHOLDERS`].
pub fn is_placeholder(opcode: Opcode) -> bool {
    PLACEHOLDERS.contains(&opcode)
}

/// The table name of a pseudo opcode, for error messages; `None` for a device opcode.
pub(super) fn pseudo_mnemonic(opcode: Opcode) -> Option<&'static str> {
    opcode.is_pseudo().then(|| opcode.mnemonic()).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_pseudo_and_labels_are_not_placeholders() {
        assert!(PLACEHOLDERS.iter().all(|o| o.is_pseudo()));
        assert!(is_placeholder(Opcode(0xD3)) && !is_placeholder(Opcode(0xCC)));
        assert_eq!(pseudo_mnemonic(Opcode(0xC1)), Some("PSEUDO_DMA_TRIGGER"));
        assert_eq!(pseudo_mnemonic(Opcode(0xA0)), None);
    }
}
