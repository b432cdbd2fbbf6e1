//! The trn2 physical NeuronCores' own address windows (decision D816): where a runtime image
//! writes to its core's TPB (state buffer, event and semaphore banks, engine control registers)
//! and to its core's 16 DMA engines, so that the one image of a subgraph differs from core to
//! core in exactly those words.
//!
//! The windows are the device's address map (aws-neuron-driver `v3/address_map.h`:
//! `V3_MMAP_TPB_n_BASE`, `V3_MMAP_NC_SIZE`, `V3_APB_SE_n_SDMA_0_BASE`, `V3_APB_SDMA_DIST`, two
//! cores per engine set, 16 DMA engines per core). Every shared capture ran sg00 on core 4 and
//! sg01 on core 5, and the two streams of one engine and content differ in exactly the words
//! this map moves (`0x8028_0266_13a0` / `0x8038_0266_13a0` in the TPB windows,
//! `0x8010_0252_f038` / `0x8010_0352_f038` in the DMA engines'); the other six cores' windows
//! are the map's, never seen in a capture.
//!
//! Lowering and the runtime model write core addresses in [`PhysicalCore::FRAME`]'s windows (its
//! register constants, the learned regions); each record they make for a subgraph on another core
//! is moved there as it is made (a lowered pseudo-instruction, a PREAMBLE / POSTAMBLE). The NEFF's
//! own instructions are never touched: the runtime copies them as they are.

use std::fmt;

/// One physical NeuronCore of a trn2 device (0..8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PhysicalCore(u8);

/// Cores per trn2 device (`V3_NC_PER_DEVICE`).
pub const CORES: u8 = 8;

/// Each core's TPB window base (`V3_MMAP_TPB_0_BASE` .. `V3_MMAP_TPB_7_BASE`).
const TPB_BASE: [u64; CORES as usize] = [
    0x0020_0000_0000,
    0x0030_0000_0000,
    0x0060_0000_0000,
    0x0070_0000_0000,
    0x8020_0000_0000,
    0x8030_0000_0000,
    0x8060_0000_0000,
    0x8070_0000_0000,
];

/// A TPB window's size (`V3_MMAP_NC_SIZE`).
const TPB_SIZE: u64 = 0x8_0400_0000;

/// DMA engine 0 of each engine set (two cores each; `V3_APB_SE_n_SDMA_0_BASE`).
const SDMA_BASE: [u64; 4] = [
    0x0010_0200_0000,
    0x0050_0400_0000,
    0x8010_0200_0000,
    0x8050_0400_0000,
];

/// One DMA engine's register bank (`V3_APB_SDMA_DIST`).
const SDMA_BANK: u64 = 0x10_0000;

/// DMA engines per core (`V3_DMA_ENG_PER_NC`).
const SDMA_PER_CORE: u64 = 16;

impl PhysicalCore {
    /// The core the runtime model's images are built for: the shared captures' sg00 (decision
    /// D816), whose windows the learned regions and the rules' register constants are in.
    pub const FRAME: Self = Self(4);

    /// Core `n`, when the device has it.
    pub fn new(n: u64) -> Option<Self> {
        u8::try_from(n).ok().filter(|&n| n < CORES).map(Self)
    }

    /// The core's number.
    pub const fn index(self) -> u8 {
        self.0
    }

    /// The core `by` after this one, when the device has it (subgraph `i` of a NEFF placed on
    /// consecutive cores).
    pub fn plus(self, by: usize) -> Option<Self> {
        u64::try_from(by)
            .ok()
            .and_then(|by| Self::new(u64::from(self.0) + by))
    }

    /// Where the core's TPB window starts: its state buffer's address 0 (decision D157's
    /// `0x8020_0000_0000` is core 4's).
    pub const fn tpb_base(self) -> u64 {
        TPB_BASE[self.0 as usize]
    }

    /// Where the core's 16 DMA engines' register banks start (queue_block's `0x8010_0200_0000`
    /// is core 4's).
    pub const fn dma_engines_base(self) -> u64 {
        SDMA_BASE[(self.0 / 2) as usize] + (self.0 % 2) as u64 * SDMA_PER_CORE * SDMA_BANK
    }

    /// DMA engine `engine`'s register bank (1 MiB each, from [`Self::dma_engines_base`]).
    pub const fn dma_engine_bank(self, engine: u64) -> u64 {
        self.dma_engines_base() + engine * SDMA_BANK
    }

    /// The core's windows: (start, size) of its TPB and of its DMA engines' banks.
    fn windows(self) -> [(u64, u64); 2] {
        [
            (self.tpb_base(), TPB_SIZE),
            (self.dma_engines_base(), SDMA_PER_CORE * SDMA_BANK),
        ]
    }

    /// The other core of this core's engine set (`V3_NC_PER_SENG` 2): the one its image signals
    /// (the shared captures' sg00 on core 4 raises semaphores in core 5's TPB window at
    /// `0x8038_0270_1804`, and sg01 on core 5 in core 4's at `0x8028_0270_1804`).
    pub const fn peer(self) -> Self {
        Self(self.0 ^ 1)
    }

    /// `word` as the image moved from this core to core `to` writes it: an address in one of this
    /// core's windows moved to the same place in `to`'s, one in its peer's windows to `to`'s
    /// peer's; `None` for any other word (and for every word when `to` is this core).
    pub fn moved(self, to: Self, word: u64) -> Option<u64> {
        self.move_to(to)?.word(word)
    }

    /// Moves every aligned 8-byte word of `bytes` (slots, so aligned from their start) that is an
    /// address in this core's or its peer's windows ([`Self::moved`]); how many were moved.
    pub fn move_words(self, to: Self, bytes: &mut [u8]) -> usize {
        self.move_to(to).map_or(0, |m| m.words(bytes))
    }

    /// The move from this core to `to`, `None` when `to` is this core.
    pub fn move_to(self, to: Self) -> Option<CoreMove> {
        if self == to {
            return None;
        }
        let mut windows = [(0, 0, 0); 4];
        let pairs = [(self, to), (self.peer(), to.peer())];
        let all = pairs
            .into_iter()
            .flat_map(|(a, b)| a.windows().into_iter().zip(b.windows()));
        for (w, ((from, size), (onto, _))) in windows.iter_mut().zip(all) {
            *w = (from, from + size, onto);
        }
        let low = windows.iter().map(|w| w.0).min().unwrap_or(0);
        let high = windows.iter().map(|w| w.1).max().unwrap_or(0);
        Some(CoreMove {
            windows,
            span: low..high,
        })
    }
}

/// Moving words from one core's windows (and its peer's) to another's: what
/// [`PhysicalCore::move_to`] computes once for every word of a record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoreMove {
    /// (start, end, new start) of each window moved.
    windows: [(u64, u64, u64); 4],
    /// From the lowest window's start to the highest's end: most words (counts, offsets, data)
    /// are outside it, one comparison each.
    span: std::ops::Range<u64>,
}

impl CoreMove {
    /// `word` moved, `None` when it is in none of the windows.
    pub fn word(&self, word: u64) -> Option<u64> {
        if !self.span.contains(&word) {
            return None;
        }
        (self.windows.iter())
            .find(|&&(start, end, _)| (start..end).contains(&word))
            .map(|&(start, _, onto)| onto + (word - start))
    }

    /// Moves every aligned 8-byte word of `bytes` in the windows; how many were moved.
    pub fn words(&self, bytes: &mut [u8]) -> usize {
        let mut moved = 0;
        for chunk in bytes.chunks_exact_mut(8) {
            let Ok(word) = <[u8; 8]>::try_from(&*chunk).map(u64::from_le_bytes) else {
                continue;
            };
            if let Some(w) = self.word(word) {
                chunk.copy_from_slice(&w.to_le_bytes());
                moved += 1;
            }
        }
        moved
    }
}

impl fmt::Display for PhysicalCore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "core {}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words that differ between the shared captures' sg00 (core 4) and sg01 (core 5)
    /// streams of one engine and content (baseline_attention PE slots 4 and 27).
    #[test]
    fn the_captures_core_words_move_from_core_4_to_core_5() {
        let (four, five) = (PhysicalCore::FRAME, PhysicalCore::new(5).unwrap());
        assert_eq!(four.moved(five, 0x8028_0266_13a0), Some(0x8038_0266_13a0));
        assert_eq!(four.moved(five, 0x8010_0252_f038), Some(0x8010_0352_f038));
        assert_eq!(five.moved(four, 0x8010_0350_f038), Some(0x8010_0250_f038));
        // The peer's semaphores: core 4 signals core 5 and core 5 core 4 (PE slots 60, 61).
        assert_eq!(four.moved(five, 0x8038_0270_1804), Some(0x8028_0270_1804));
        assert_eq!(five.moved(four, 0x8028_0270_1804), Some(0x8038_0270_1804));
        let zero = PhysicalCore::new(0).unwrap();
        assert_eq!(four.moved(zero, 0x8038_0270_1804), Some(0x0038_0270_1804));
        assert_eq!(four.moved(four, 0x8038_0270_1804), None);
        // The state buffer and the DMA engines the runtime model's constants name.
        assert_eq!(four.tpb_base(), 0x8020_0000_0000);
        assert_eq!(four.dma_engines_base(), 0x8010_0200_0000);
        // HBM (the images' own addresses) and plain data stay.
        assert_eq!(four.moved(five, 0x8005_c035_e02c), None);
        assert_eq!(four.moved(five, 0x0102_0009), None);
        // Just past each window (core 5's DMA banks follow core 4's).
        assert_eq!(four.moved(five, 0x8020_0000_0000 + TPB_SIZE), None);
        assert_eq!(four.moved(five, 0x8010_0400_0000), None);
    }

    #[test]
    fn every_core_has_its_own_windows() {
        let cores: Vec<_> = (0..u64::from(CORES))
            .map(|n| PhysicalCore::new(n).unwrap())
            .collect();
        for (i, a) in cores.iter().enumerate() {
            for b in &cores[i + 1..] {
                for ((x, xs), (y, ys)) in a.windows().into_iter().zip(b.windows()) {
                    assert!(x + xs <= y || y + ys <= x, "{a} and {b} overlap");
                }
            }
        }
        assert_eq!(PhysicalCore::new(8), None);
        assert_eq!(PhysicalCore::FRAME.plus(3), PhysicalCore::new(7));
        assert_eq!(PhysicalCore::FRAME.plus(4), None);
    }

    #[test]
    fn moving_words_there_and_back_is_the_identity() {
        let mut slot = [0u8; 64];
        slot[16..24].copy_from_slice(&0x8028_0266_13a0u64.to_le_bytes());
        slot[24..32].copy_from_slice(&0x8010_0250_f038u64.to_le_bytes());
        slot[32..40].copy_from_slice(&5u64.to_le_bytes());
        let orig = slot;
        let zero = PhysicalCore::new(0).unwrap();
        assert_eq!(PhysicalCore::FRAME.move_words(zero, &mut slot), 2);
        assert_eq!(&slot[16..24], &0x0028_0266_13a0u64.to_le_bytes());
        assert_eq!(&slot[24..32], &0x0010_0250_f038u64.to_le_bytes());
        assert_eq!(zero.peer(), PhysicalCore::new(1).unwrap());
        assert_eq!(zero.move_words(PhysicalCore::FRAME, &mut slot), 2);
        assert_eq!(slot, orig);
    }
}
