//! Where an instruction operand value comes from: `IMM_SRC` (reference §4.6: 0 instruction
//! immediate, 1 pointer immediate, 2 register pointer), spelled as neuron-profile prints it
//! (`imm_src=PTR,INSTRUCTION`, decision D135), and ACTIVATE's bias selector (decision D133).

use crate::field_enum::field_enum;

field_enum! {
    /// The source of an immediate operand (reference §4.6 `IMM_SRC`).
    ImmSrc / IMM_SRC {
        /// The value is in the instruction.
        Instruction = 0 => "INSTRUCTION",
        /// The instruction holds the address of the value.
        Ptr = 1 => "PTR",
        /// A register holds the address of the value.
        RegPtr = 2 => "REG_PTR",
    }
}

field_enum! {
    /// ACTIVATE +0x0C: what +0x28 holds (decision D133). 0 is the profiled form (`bias_ptr=`);
    /// 1 is read from the corpus (fp32 epsilons 1e-6, 1e-9 at +0x28 in attn_v6).
    BiasSrc / BIAS_SRC {
        /// +0x28 is the address of a per-partition bias vector.
        Ptr = 0 => "PTR",
        /// +0x28 is an fp32 bias immediate.
        Imm = 1 => "IMM",
    }
}
