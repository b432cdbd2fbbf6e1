//! What to generate: [`SynthOptions`] and the [`SynthTarget`] generation it imitates.

use neff_isa::Generation;

use crate::error::SynthError;

/// The NeuronCore generation a synthetic NEFF imitates (reference §3.1 vs §3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SynthTarget {
    /// trn1 (`"target": "sunda"`, neuronx-cc 2.18 shape): static DMA blocks in the engine JSONs,
    /// `PSEUDO_DMA_TRIGGER` 0xC1 in the streams, NEFF version 1, no leading label.
    #[default]
    Sunda,
    /// trn2 (`"target": "cayman"`, neuronx-cc 2.23 shape): dynamic queues, a `dge-table` var,
    /// `PSEUDO_DMA_DIRECT2D` 0xD4 in the streams, NEFF version 2, `0xCC` after `0xB1`.
    Cayman,
}

impl SynthTarget {
    /// The generation imitated (neff-isa's one generation table, decision D422).
    pub const fn generation(self) -> Generation {
        match self {
            Self::Sunda => Generation::V2,
            Self::Cayman => Generation::V3,
        }
    }

    /// The kelf `target` string (reference §3).
    pub fn name(self) -> &'static str {
        self.generation().code_name()
    }

    /// Parses a name of generation v2 or v3 as [`Generation::from_name`] reads it (`sunda` /
    /// `cayman`, `trn1` / `trn2`, `inf2`, `v2` / `v3`).
    pub fn from_name(name: &str) -> Option<Self> {
        match Generation::from_name(name)? {
            Generation::V2 => Some(Self::Sunda),
            Generation::V3 => Some(Self::Cayman),
            _ => None,
        }
    }
}

/// Everything that determines a synthetic NEFF. Equal options give byte-identical output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthOptions {
    /// Number of subgraphs `sg00..` (each one TPB program with five engine streams), 1..=100.
    pub subgraphs: u32,
    /// Slots in each engine stream (64 bytes each), including the prologue and the functions.
    /// Total stream bytes = `subgraphs * 5 * slots_per_engine * 64`.
    pub slots_per_engine: u64,
    /// Callable functions appended to every engine stream (0xD1 ... 0xD2), each called from
    /// MAIN (0xD3) before MAIN's exit (0xDF sub-op 1).
    pub functions: u32,
    /// The seed of every random choice.
    pub seed: u64,
    /// The generation imitated.
    pub target: SynthTarget,
}

impl Default for SynthOptions {
    /// One subgraph, 64 slots per engine, no functions, seed 0, sunda.
    fn default() -> Self {
        Self {
            subgraphs: 1,
            slots_per_engine: 64,
            functions: 0,
            seed: 0,
            target: SynthTarget::Sunda,
        }
    }
}

/// Most subgraphs accepted: `sgNN` names are two digits in real files (reference §2).
pub const MAX_SUBGRAPHS: u32 = 100;
/// Most functions per engine accepted (names `fn_NNN` fit the 32-byte name field easily).
pub const MAX_FUNCTIONS: u32 = 1000;
/// Most bytes per engine stream: a tar member's size must stay addressable on 32-bit `count`
/// fields of the patch table (spec 000 §3 `kbin_patch_location_t.offset` is u32).
pub const MAX_STREAM_BYTES: u64 = u32::MAX as u64 - 0x10_0000;

impl SynthOptions {
    /// Slots the fixed parts of each stream take: the prologue (`0xB1`, plus `0xCC` on cayman),
    /// MAIN's calls and exit, and each function's begin and return.
    pub fn min_slots_per_engine(&self) -> u64 {
        let prologue = match self.target {
            SynthTarget::Sunda => 1,
            SynthTarget::Cayman => 2,
        };
        let functions = u64::from(self.functions);
        if functions == 0 {
            prologue
        } else {
            prologue + 1 + functions * 3
        }
    }

    /// Total engine-stream slots of the NEFF.
    pub fn total_slots(&self) -> u64 {
        u64::from(self.subgraphs) * 5 * self.slots_per_engine
    }

    /// Refuses options that cannot make a valid NEFF, naming the field.
    pub fn check(&self) -> Result<(), SynthError> {
        let bad = |field, reason: String| Err(SynthError::InvalidOption { field, reason });
        if self.subgraphs == 0 || self.subgraphs > MAX_SUBGRAPHS {
            return bad(
                "subgraphs",
                format!("{} is not in 1..={MAX_SUBGRAPHS}", self.subgraphs),
            );
        }
        if self.functions > MAX_FUNCTIONS {
            return bad(
                "functions",
                format!("{} is more than {MAX_FUNCTIONS}", self.functions),
            );
        }
        let min = self.min_slots_per_engine();
        if self.slots_per_engine < min {
            return bad(
                "slots_per_engine",
                format!(
                    "{} is fewer than the {min} slots the prologue and functions need",
                    self.slots_per_engine
                ),
            );
        }
        if self
            .slots_per_engine
            .saturating_mul(neff_isa::SLOT_BYTES as u64)
            > MAX_STREAM_BYTES
        {
            return bad(
                "slots_per_engine",
                format!(
                    "{} slots exceed {MAX_STREAM_BYTES} bytes per stream",
                    self.slots_per_engine
                ),
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimum_slots_follow_the_stream_layout() {
        let mut o = SynthOptions {
            slots_per_engine: 1,
            ..SynthOptions::default()
        };
        assert_eq!(o.min_slots_per_engine(), 1);
        assert!(o.check().is_ok());
        o.target = SynthTarget::Cayman;
        assert!(o.check().is_err());
        o.functions = 2;
        // 0xB1 0xCC, 2 calls, exit, 2 x (begin, return) = 2 + 1 + 2 + 4.
        assert_eq!(o.min_slots_per_engine(), 9);
    }

    #[test]
    fn bad_counts_name_the_field() {
        let o = SynthOptions {
            subgraphs: 0,
            ..SynthOptions::default()
        };
        assert!(matches!(
            o.check(),
            Err(SynthError::InvalidOption {
                field: "subgraphs",
                ..
            })
        ));
        assert_eq!(SynthTarget::from_name("TRN2"), Some(SynthTarget::Cayman));
        assert_eq!(SynthTarget::from_name("mariana"), None);
    }
}
