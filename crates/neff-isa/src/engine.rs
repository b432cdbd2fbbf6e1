//! The runtime's engine kinds (`al_hal_tpb_eng_type_t`, spec 000 §3.1) and their names.
//!
//! Every layer keys per-engine data by this enum: the kbin engine slots (spec 004 §2), the patch
//! table's `eng_patch[5]` and the loaded model's `ib_addrs[5]` (spec 000 §3.2).

use std::fmt;
use std::str::FromStr;

/// A NeuronCore sequencer engine, numbered as the runtime's `al_hal_tpb_eng_type_t`
/// (spec 000 §3.1: PE=0, ACT=1, POOL=2, DVE=3, SP=4, MAX_ENG=5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum EngineType {
    /// The tensor (matrix-multiply) engine, `pe`.
    Pe = 0,
    /// The scalar / activation engine, `act`.
    Act = 1,
    /// The GpSimd engine, `pool`.
    Pool = 2,
    /// The vector engine, `dve`.
    Dve = 3,
    /// The sync engine, `sp`.
    Sp = 4,
}

impl EngineType {
    /// All engines in `al_hal_tpb_eng_type_t` order (the order of `eng_patch[5]`, `ib_addrs[5]`).
    pub const ALL: [EngineType; 5] = [Self::Pe, Self::Act, Self::Pool, Self::Dve, Self::Sp];

    /// `MAX_ENG` (spec 000 §3.1): the number of engines.
    pub const COUNT: usize = 5;

    /// The runtime's numeric engine type.
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The engine with runtime number `n`, if `n < 5`.
    pub const fn from_index(n: usize) -> Option<Self> {
        match n {
            0 => Some(Self::Pe),
            1 => Some(Self::Act),
            2 => Some(Self::Pool),
            3 => Some(Self::Dve),
            4 => Some(Self::Sp),
            _ => None,
        }
    }

    /// The def.json key of the engine (`pe`, `act`, `pool`, `dve`, `sp`; reference §3.3),
    /// also the name neffkit prints.
    pub const fn key(self) -> &'static str {
        match self {
            Self::Pe => "pe",
            Self::Act => "act",
            Self::Pool => "pool",
            Self::Dve => "dve",
            Self::Sp => "sp",
        }
    }

    /// The file stem real compilers give the engine's stream (`PE.bin`, `Activation.bin`, ...;
    /// reference §4.7).
    pub const fn real_file_stem(self) -> &'static str {
        match self {
            Self::Pe => "PE",
            Self::Act => "Activation",
            Self::Pool => "Pool",
            Self::Dve => "DVE",
            Self::Sp => "SP",
        }
    }

    /// Maps an engine name to its type, the runtime's `eng_name2type` (spec 004 §2): the def.json
    /// keys and the file stems of both the spec sample (`pe`) and real NEFFs (`PE`,
    /// `Activation`), case-insensitively (decision D3).
    pub fn from_name(name: &str) -> Option<Self> {
        let lower = name.to_ascii_lowercase();
        match lower.as_str() {
            "pe" => Some(Self::Pe),
            "act" | "activation" => Some(Self::Act),
            "pool" => Some(Self::Pool),
            "dve" => Some(Self::Dve),
            "sp" => Some(Self::Sp),
            _ => None,
        }
    }
}

impl fmt::Display for EngineType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// The error of [`EngineType::from_str`]: the name is not an engine (spec 004 §2 `eng_name2type`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown engine name `{0}` (expected pe, act, pool, dve or sp; or PE, Activation, Pool, DVE, SP)"
)]
pub struct UnknownEngine(pub String);

impl FromStr for EngineType {
    type Err = UnknownEngine;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::from_name(s).ok_or_else(|| UnknownEngine(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtime_numbers_match_spec_000_3_1() {
        let numbers: Vec<u8> = EngineType::ALL.iter().map(|e| *e as u8).collect();
        assert_eq!(numbers, [0, 1, 2, 3, 4]);
        assert_eq!(EngineType::from_index(5), None);
    }

    #[test]
    fn both_spellings_of_engine_names_are_accepted() {
        for e in EngineType::ALL {
            assert_eq!(EngineType::from_name(e.key()), Some(e));
            assert_eq!(EngineType::from_name(e.real_file_stem()), Some(e));
        }
        assert_eq!("ACT".parse::<EngineType>(), Ok(EngineType::Act));
        assert!("gpsimd".parse::<EngineType>().is_err());
    }
}
