//! The activation function id byte of ACTIVATE (+0x23; decision D133). The ids are those of the
//! compiler's PWP profile tables shipped in real NEFFs (`<set>.json` `profile_meta_data[].func_id`
//! / `func_name`, e.g. `exp_400p` = 7, reference §3.2); the text is the function name upper-cased
//! without its `_Np` piece count, as neuron-profile prints it (`EXP`).

use crate::field_enum::field_enum;

field_enum! {
    /// An activation function (PWP `func_id`).
    ActFunc / ACT_FUNC {
        /// `identity_1p`.
        Identity = 1 => "IDENTITY",
        /// `relu_1p`.
        Relu = 2 => "RELU",
        /// `leaky_relu_1p`.
        LeakyRelu = 3 => "LEAKY_RELU",
        /// `parametric_relu_1p`.
        ParametricRelu = 4 => "PARAMETRIC_RELU",
        /// `tanh_4p`.
        Tanh = 6 => "TANH",
        /// `exp_400p` (profile: `EXP`).
        Exp = 7 => "EXP",
        /// `ln_400p`.
        Ln = 10 => "LN",
        /// `derivative_identity_1p`.
        DerivativeIdentity = 11 => "DERIVATIVE_IDENTITY",
        /// `derivative_relu_1p`.
        DerivativeRelu = 12 => "DERIVATIVE_RELU",
        /// `derivative_leaky_relu_1p`.
        DerivativeLeakyRelu = 13 => "DERIVATIVE_LEAKY_RELU",
        /// `sin_4p`.
        Sin = 19 => "SIN",
        /// `reciprocal_sqrt_40000p`.
        ReciprocalSqrt = 29 => "RECIPROCAL_SQRT",
        /// `square_1p`.
        Square = 30 => "SQUARE",
        /// `sign_1p`.
        Sign = 31 => "SIGN",
        /// `abs_1p`.
        Abs = 33 => "ABS",
        /// `is_finite_1p`.
        IsFinite = 35 => "IS_FINITE",
        /// `silu_32p`.
        Silu = 36 => "SILU",
        /// `copy_1p`.
        Copy = 128 => "COPY",
        /// `memset_zero_1p`.
        MemsetZero = 130 => "MEMSET_ZERO",
    }
}
