//! SplitMix64 (Steele, Lea, Flood 2014): the workspace's one deterministic pseudo-random
//! generator. Generated programs and synthetic NEFFs are seeded only from their options, never
//! from the OS, so one seed always gives the same bytes. A crate of its own (it was in neff-isa
//! until issue 29), so the BIR generator and neff-synth share it without the BIR crate depending
//! on the instruction set.

/// The golden-ratio increment of SplitMix64 (`0x9E3779B97F4A7C15`).
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// A SplitMix64 stream. Small, fast, and good enough to vary addresses, semaphores and programs.
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A stream starting at `seed`.
    pub const fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    /// A stream for one part of the output (a subgraph's engine, say), derived from the run's
    /// seed and the part's coordinates so parts can be generated in any order, or in parallel,
    /// and still give the same bytes.
    pub fn derive(seed: u64, parts: &[u64]) -> Self {
        let mut rng = Self::new(seed);
        for &p in parts {
            let mixed = rng.next_u64() ^ p.wrapping_mul(GAMMA);
            rng = Self::new(mixed);
        }
        rng
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`; multiply-shift, bias below 2^-32 for the small `n` used).
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }

    /// 16 random bytes (a header uuid, say).
    pub fn bytes16(&mut self) -> [u8; 16] {
        let mut out = [0u8; 16];
        out[..8].copy_from_slice(&self.next_u64().to_le_bytes());
        out[8..].copy_from_slice(&self.next_u64().to_le_bytes());
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference splitmix64 output for seed 0 (the published test vector).
    #[test]
    fn matches_reference_vector() {
        let mut r = SplitMix64::new(0);
        assert_eq!(r.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(r.next_u64(), 0x6E78_9E6A_A1B9_65F4);
    }

    #[test]
    fn below_stays_in_range_and_derive_is_stable() {
        let mut r = SplitMix64::derive(7, &[1, 2]);
        assert!((0..1000).all(|_| r.below(5) < 5));
        assert_eq!(
            SplitMix64::derive(7, &[1, 2]).next_u64(),
            SplitMix64::derive(7, &[1, 2]).next_u64()
        );
        assert_ne!(
            SplitMix64::derive(7, &[1, 2]).next_u64(),
            SplitMix64::derive(7, &[2, 1]).next_u64()
        );
    }
}
