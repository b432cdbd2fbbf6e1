//! The PE (tensor engine) mode bytes of LDWEIGHTS / MATMUL, named the way neuron-profile prints
//! them (decision D131: profile pairs of the four shared trn2 profiles).

use crate::field_enum::field_enum;

field_enum! {
    /// How an fp32 operand is split into passes (+0x21 of LDWEIGHTS / MATMUL; D131). The profile
    /// prints `fp32_mode=LOW` / `HIGH` on LDWEIGHTS and `LOW_HIGH` on MATMUL and omits the token
    /// when the byte is 0 (every bf16 / fp16 slot).
    Fp32Mode / FP32_MODE {
        /// Not an fp32 pass split (printed by no profile token).
        None = 0 => "NONE",
        /// The low half.
        Low = 1 => "LOW",
        /// The high half.
        High = 2 => "HIGH",
        /// Both halves (MATMUL of fp32 operands).
        LowHigh = 3 => "LOW_HIGH",
    }
}

field_enum! {
    /// Whether the PE array transposes the loaded weights (+0x22 of LDWEIGHTS, `transpose_mode=`
    /// in the profile; MATMUL carries the value of the LDWEIGHTS it consumes, D131).
    TransposeMode / TRANSPOSE_MODE {
        /// Plain load.
        Disabled = 0 => "DISABLED",
        /// Transposing load.
        Enabled = 1 => "ENABLED",
    }
}
