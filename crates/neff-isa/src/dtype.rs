//! The element data type byte (`TONGA_ISA_TPB_DTYPE`): FP32=0x0A, BF16=0x06, FP16=0x07, INT32=0x08
//! (spec 003 §6), UINT32=0x09 (spec 001 §2), the nrt.h `nrt_dtype_t` codes for the rest
//! (reference §8; decision D5).

use crate::field_enum::field_enum;

field_enum! {
    /// An element data type (nrt.h `nrt_dtype_t` codes, decision D5).
    Dtype / DTYPE {
        /// `NRT_DTYPE_INVALID` = 0.
        Invalid = 0x0 => "invalid",
        /// 64-bit unsigned.
        Uint64 = 0x1 => "u64",
        /// 8-bit signed.
        Int8 = 0x2 => "i8",
        /// 8-bit unsigned.
        Uint8 = 0x3 => "u8",
        /// 16-bit signed.
        Int16 = 0x4 => "i16",
        /// 16-bit unsigned.
        Uint16 = 0x5 => "u16",
        /// bfloat16 (`bfloat16` as neuron-profile spells it, decision D130).
        Bfloat16 = 0x6 => "bfloat16",
        /// IEEE half.
        Float16 = 0x7 => "fp16",
        /// 32-bit signed.
        Int32 = 0x8 => "i32",
        /// 32-bit unsigned.
        Uint32 = 0x9 => "u32",
        /// IEEE single.
        Float32 = 0xA => "fp32",
        /// fp32 "round" (fp32r).
        Float32R = 0xB => "fp32r",
        /// 64-bit signed.
        Int64 = 0xC => "i64",
        /// fp8 e3m4.
        Fp8E3 = 0xD => "fp8e3",
        /// fp8 e4m3.
        Fp8E4 = 0xE => "fp8e4",
        /// fp8 e5m2.
        Fp8E5 = 0xF => "fp8e5",
    }
}

impl Dtype {
    /// Bytes per element (the `build_enc_op_list_args` "per-element byte sizes", spec 001 §3),
    /// from the type's width; `None` for `Invalid`, which has no width.
    pub const fn size(self) -> Option<u32> {
        match self {
            Self::Invalid => None,
            Self::Int8 | Self::Uint8 | Self::Fp8E3 | Self::Fp8E4 | Self::Fp8E5 => Some(1),
            Self::Int16 | Self::Uint16 | Self::Bfloat16 | Self::Float16 => Some(2),
            Self::Int32 | Self::Uint32 | Self::Float32 | Self::Float32R => Some(4),
            Self::Uint64 | Self::Int64 => Some(8),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_codes() {
        assert_eq!(Dtype::from_u8(0x0A), Some(Dtype::Float32));
        assert_eq!(Dtype::from_u8(0x06), Some(Dtype::Bfloat16));
        assert_eq!(Dtype::from_u8(0x07), Some(Dtype::Float16));
        assert_eq!(Dtype::from_u8(0x08), Some(Dtype::Int32));
        assert_eq!(Dtype::Float32.text(), "fp32");
        assert_eq!(DTYPE.value_of("fp32"), Some(0x0A));
    }

    #[test]
    fn sizes_follow_the_width() {
        assert_eq!(Dtype::Float32.size(), Some(4));
        assert_eq!(Dtype::Bfloat16.size(), Some(2));
        assert_eq!(Dtype::Fp8E4.size(), Some(1));
        assert_eq!(Dtype::Int64.size(), Some(8));
        assert_eq!(Dtype::Invalid.size(), None);
    }
}
