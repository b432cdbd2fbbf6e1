//! The generator's draws: [`neff_rng::SplitMix64`] (the workspace's one seeded generator), so
//! generated programs depend on the seed only, sampled by modulo as the generator always did (so
//! a seed keeps giving the same program).

use neff_rng::SplitMix64;

/// The generator's random stream.
#[derive(Clone, Debug)]
pub(crate) struct Rng(SplitMix64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(SplitMix64::new(seed))
    }

    /// Uniform in `0..n` (`n > 0`; 0 when `n == 0`).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.0.next_u64() % n as u64) as usize
        }
    }

    /// True with probability `1/n`.
    pub(crate) fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
}
