//! `feature_bits` (header 0x220) and the names the RE wiki gives its bits (reference §1.4,
//! CLAIMED: only 0x400 `neff_feature_vnc` is corroborated by a real def.json).

/// The 64-bit incompatible-feature mask of the header.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct FeatureBits(pub u64);

/// Bit -> name, from reference §1.4 (S5, claimed). One table; `neff info` prints from it.
pub const KNOWN_FEATURE_BITS: &[(u64, &str)] = &[
    (0x2, "collective_has_offset"),
    (0x4, "neff_feature_custom_ops"),
    (0x8, "neff_coalesced_ccops"),
    (0x10, "neff_queue_set_instances"),
    (0x20, "neff_has_functions"),
    (0x40, "neff_feature_dynamic_pwp"),
    (0x80, "indirect_memcpy_32b_sem_wait"),
    (0x100, "indirect_memcpy_bound_check"),
    (0x200, "DMA_desc_higher_dim"),
    (0x400, "neff_feature_vnc"),
    (0x800, "DVE_perf_mode"),
    (0x4000, "remote_sem"),
    (0x100_0000, "large_tensor_support"),
    (0x200_0000, "large_tensor_support"),
];

/// One set bit of a [`FeatureBits`] mask with its claimed name, if the table has one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeatureBit {
    /// The bit value (a power of two).
    pub bit: u64,
    /// Its name from reference §1.4, or `None` when unknown.
    pub name: Option<&'static str>,
}

impl FeatureBits {
    /// Every set bit, lowest first, with its known name.
    pub fn bits(self) -> impl Iterator<Item = FeatureBit> {
        (0..64)
            .map(|i| 1u64 << i)
            .filter(move |b| self.0 & b != 0)
            .map(|bit| FeatureBit {
                bit,
                name: KNOWN_FEATURE_BITS
                    .iter()
                    .find(|(b, _)| *b == bit)
                    .map(|(_, n)| *n),
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trn2_mask_0x209c00_has_vnc_named_and_three_unknown() {
        // reference §1.4: 0x209c00 = 0x200000|0x8000|0x1000|0x800|0x400.
        let bits: Vec<_> = FeatureBits(0x209c00).bits().collect();
        let values: Vec<u64> = bits.iter().map(|b| b.bit).collect();
        assert_eq!(values, [0x400, 0x800, 0x1000, 0x8000, 0x200000]);
        assert_eq!(bits[0].name, Some("neff_feature_vnc"));
        assert_eq!(bits[2].name, None);
    }
}
