//! The profiler's instruction names against neffkit's (neff-isa's opcode table): the one place
//! the two vocabularies meet.
//!
//! Read from the four shared profiles (decision D176), every profiled NEFF instruction's
//! `opcode` against the neff-isa mnemonic of its `compiler_pc` slot:
//! - most names are the same (MATMUL, LDWEIGHTS, ACTIVATE, COPY, CAST, EVENT_SEMAPHORE, NOP, ...);
//! - the profiler drops the `_ARITH_OP` suffix (TENSOR_REDUCE = TENSOR_REDUCE_ARITH_OP,
//!   TENSOR_SCALAR = TENSOR_SCALAR_ARITH_OP);
//! - a pseudo-instruction is named for what runs, without `PSEUDO_` (DMA_DIRECT2D), and the
//!   report then carries the NEFF's name in `compiler_opcode` (PSEUDO_DMA_DIRECT2D);
//! - one name differs outright: ACT_TABLE_LOAD = ACTIVATION_TABLE_LOAD ([`ALIASES`]);
//! - a raw capture names what the runtime loaded, not the NEFF's slot: where the runtime rewrites a
//!   pseudo-instruction into another instruction, that one's name ([`RUNTIME_FORMS`]).

/// Profiler names that are neither neffkit's name nor derived from it by a rule above:
/// (profiler, neff-isa).
pub const ALIASES: [(&str, &str); 1] = [("ACT_TABLE_LOAD", "ACTIVATION_TABLE_LOAD")];

/// Instructions the runtime loads in place of a NEFF pseudo-instruction, as a capture's loaded
/// stream names them: (loaded, neff-isa). Decision D461: runtime 2.30.51 writes every 0xD4 of the
/// seven shared captures as a DMAMEMCPY (0xB8) carrying its descriptor; the vendor's report of
/// the same run calls it DMA_DIRECT2D because it reads the NEFF's slot. Decision D580: a 0xC1 on
/// a static queue is loaded as WRITEs to the queue's tail-increment registers (and D54's WRITE
/// of the tail pointer is a WRITE too).
pub const RUNTIME_FORMS: [(&str, &str); 2] = [
    ("DMAMEMCPY", "PSEUDO_DMA_DIRECT2D"),
    ("WRITE", "PSEUDO_DMA_TRIGGER"),
];

/// The suffix the profiler leaves off neff-isa's ALU-op instruction names.
const ARITH_SUFFIX: &str = "_ARITH_OP";
/// The prefix of neff-isa's pseudo-instruction names, absent from the profiler's.
const PSEUDO_PREFIX: &str = "PSEUDO_";

/// The name the profiler gives the instruction neff-isa calls `neffkit`.
pub fn profiler_name(neffkit: &str) -> &str {
    if let Some(&(p, _)) = ALIASES.iter().find(|(_, n)| *n == neffkit) {
        return p;
    }
    let n = neffkit.strip_prefix(PSEUDO_PREFIX).unwrap_or(neffkit);
    n.strip_suffix(ARITH_SUFFIX).unwrap_or(n)
}

/// Whether a profiled instruction (`opcode`, and `compiler_opcode` when the report has one) is
/// the instruction neff-isa names `neffkit`.
pub fn agrees(opcode: &str, compiler_opcode: Option<&str>, neffkit: &str) -> bool {
    compiler_opcode.is_some_and(|c| c == neffkit)
        || opcode == neffkit
        || opcode == profiler_name(neffkit)
        || RUNTIME_FORMS.contains(&(opcode, neffkit))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_names_seen_in_the_shared_profiles_agree() {
        for (p, n) in [
            ("MATMUL", "MATMUL"),
            ("ACT_TABLE_LOAD", "ACTIVATION_TABLE_LOAD"),
            ("TENSOR_REDUCE", "TENSOR_REDUCE_ARITH_OP"),
            ("TENSOR_SCALAR", "TENSOR_SCALAR_ARITH_OP"),
            ("DMA_DIRECT2D", "PSEUDO_DMA_DIRECT2D"),
        ] {
            assert!(agrees(p, None, n), "{p} vs {n}");
        }
        assert!(agrees(
            "WRITE",
            Some("PSEUDO_DMA_DIRECT2D"),
            "PSEUDO_DMA_DIRECT2D"
        ));
        // A capture's loaded 0xB8 for the NEFF's 0xD4 (D461), and nothing else by that rule.
        assert!(agrees("DMAMEMCPY", None, "PSEUDO_DMA_DIRECT2D"));
        assert!(!agrees("DMAMEMCPY", None, "PSEUDO_DMA_TRIGGER"));
        assert!(agrees("WRITE", None, "PSEUDO_DMA_TRIGGER"));
        assert!(!agrees("WRITE", None, "MATMUL"));
    }

    #[test]
    fn different_instructions_disagree() {
        assert!(!agrees("MATMUL", None, "LDWEIGHTS"));
        assert!(!agrees("TENSOR_SCALAR", None, "TENSOR_REDUCE_ARITH_OP"));
        assert!(!agrees(
            "DMA_DIRECT2D",
            Some("PSEUDO_DMA_DIRECT2D"),
            "PSEUDO_DMA_TRIGGER"
        ));
    }
}
