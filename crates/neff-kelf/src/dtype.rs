//! The string -> kbin_dtype table (spec 004 §4, `str_to_dtype_map`, 19 entries), consumed while
//! parsing DMA descriptors (`<ap>_dtype` keys). Values the spec names are pinned; the rest are
//! decision D31.

use std::fmt;

/// A kbin element type as the DMA descriptors carry it (`kbin_dtype`, spec 004 §4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum KbinDtype {
    /// `float8e3` (spec 004 §4: 1).
    Float8E3 = 1,
    /// `float8e4` (spec 004 §4: 2).
    Float8E4 = 2,
    /// `float8e5` (spec 004 §4: 3).
    Float8E5 = 3,
    /// `float16` (decision D31).
    Float16 = 4,
    /// `float32` (spec 004 §4: 5).
    Float32 = 5,
    /// `float32r`, the fp32 "round" variant (decision D31).
    Float32R = 6,
    /// `bfloat16` (spec 004 §4: 7).
    Bfloat16 = 7,
    /// `uint8` (decision D31).
    Uint8 = 8,
    /// `uint16` (decision D31).
    Uint16 = 9,
    /// `uint32` (decision D31); also the container of the packed `_x4` aliases.
    Uint32 = 10,
    /// `uint64` (decision D31).
    Uint64 = 11,
    /// `int8` (decision D31).
    Int8 = 12,
    /// `int16` (decision D31).
    Int16 = 13,
    /// `int32` (decision D31).
    Int32 = 14,
    /// `int64` (decision D31).
    Int64 = 15,
}

/// The 19 entries of `str_to_dtype_map`, sorted by name (a `std::map`'s order), built at compile
/// time — the runtime builds it in a static initializer before any subgraph is parsed (spec 004 §4).
pub const STR_TO_DTYPE: [(&str, KbinDtype); 19] = [
    ("bfloat16", KbinDtype::Bfloat16),
    ("float16", KbinDtype::Float16),
    ("float32", KbinDtype::Float32),
    ("float32r", KbinDtype::Float32R),
    ("float8e3", KbinDtype::Float8E3),
    ("float8e3_x4", KbinDtype::Uint32),
    ("float8e4", KbinDtype::Float8E4),
    ("float8e4_x4", KbinDtype::Uint32),
    ("float8e5", KbinDtype::Float8E5),
    ("float8e5_x4", KbinDtype::Uint32),
    ("int16", KbinDtype::Int16),
    ("int32", KbinDtype::Int32),
    ("int64", KbinDtype::Int64),
    ("int8", KbinDtype::Int8),
    ("uint16", KbinDtype::Uint16),
    ("uint32", KbinDtype::Uint32),
    ("uint64", KbinDtype::Uint64),
    ("uint8", KbinDtype::Uint8),
    ("uint8_x4", KbinDtype::Uint32),
];

impl KbinDtype {
    /// Looks a descriptor dtype string up in [`STR_TO_DTYPE`] (exact, case-sensitive, like the
    /// runtime's `std::map::find`).
    pub fn from_name(name: &str) -> Option<Self> {
        STR_TO_DTYPE
            .binary_search_by(|(k, _)| (*k).cmp(name))
            .ok()
            .map(|i| STR_TO_DTYPE[i].1)
    }

    /// The canonical (non-alias) name.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Float8E3 => "float8e3",
            Self::Float8E4 => "float8e4",
            Self::Float8E5 => "float8e5",
            Self::Float16 => "float16",
            Self::Float32 => "float32",
            Self::Float32R => "float32r",
            Self::Bfloat16 => "bfloat16",
            Self::Uint8 => "uint8",
            Self::Uint16 => "uint16",
            Self::Uint32 => "uint32",
            Self::Uint64 => "uint64",
            Self::Int8 => "int8",
            Self::Int16 => "int16",
            Self::Int32 => "int32",
            Self::Int64 => "int64",
        }
    }

    /// The element size in bytes.
    pub const fn size(self) -> u32 {
        match self {
            Self::Float8E3 | Self::Float8E4 | Self::Float8E5 | Self::Uint8 | Self::Int8 => 1,
            Self::Float16 | Self::Bfloat16 | Self::Uint16 | Self::Int16 => 2,
            Self::Float32 | Self::Float32R | Self::Uint32 | Self::Int32 => 4,
            Self::Uint64 | Self::Int64 => 8,
        }
    }
}

impl fmt::Display for KbinDtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_has_19_sorted_unique_entries() {
        assert_eq!(STR_TO_DTYPE.len(), 19);
        assert!(STR_TO_DTYPE.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn values_named_by_spec_004_4() {
        assert_eq!(KbinDtype::from_name("float32").map(|d| d as u8), Some(5));
        assert_eq!(KbinDtype::from_name("bfloat16").map(|d| d as u8), Some(7));
        assert_eq!(KbinDtype::from_name("float8e3").map(|d| d as u8), Some(1));
        assert_eq!(KbinDtype::from_name("float8e4").map(|d| d as u8), Some(2));
        assert_eq!(KbinDtype::from_name("float8e5").map(|d| d as u8), Some(3));
        // The packed aliases map to an unsigned-int container.
        assert_eq!(KbinDtype::from_name("float8e4_x4"), Some(KbinDtype::Uint32));
    }

    #[test]
    fn every_canonical_name_round_trips() {
        for (name, d) in STR_TO_DTYPE {
            if !name.ends_with("_x4") {
                assert_eq!(d.name(), name);
            }
        }
        assert_eq!(KbinDtype::from_name("Float32"), None);
        assert_eq!(KbinDtype::from_name("fp32"), None);
    }
}
