//! The engine clocks of a NeuronCore: what turns the fitted nanoseconds into cycles and back.
//! The cost table says at which clocks it was fitted ([`super::CostTable::clocks`]); a model
//! runs at the clocks of the machine it simulates ([`super::Knobs::clocks`]), and every engine
//! cost scales by the ratio (docs/performance.md "Cost model"; decision D441).

use neff_isa::EngineType;
use serde::{Deserialize, Serialize};

/// The clocks, GHz.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Clocks {
    /// The PE array's clock.
    pub pe_ghz: f64,
    /// The other engines' clock (ACT, POOL, DVE, SP).
    pub engines_ghz: f64,
}

impl Clocks {
    /// trn2 (NeuronCore v3): the profiles' `metadata.pe_clock_freq` 2.4 and `pe_clock_others`
    /// 1.2; the capture's event-wait cycles count at 1.2 GHz (reference-ntff §3).
    pub const TRN2: Clocks = Clocks {
        pe_ghz: 2.4,
        engines_ghz: 1.2,
    };

    /// trn1 (NeuronCore v2): engine timestamps of a format-4 capture step by 1 / 1.4 GHz
    /// (reference-ntff §5), for every engine; no trn1 capture says the PE array's clock apart,
    /// so it is taken to be the same (decision D441).
    pub const TRN1: Clocks = Clocks {
        pe_ghz: 1.4,
        engines_ghz: 1.4,
    };

    /// The clocks of a target's NeuronCore: trn1 (sunda) at [`Clocks::TRN1`], trn2 and later at
    /// [`Clocks::TRN2`] (decision D441: only trn2 is calibrated; what trn1 carries over is in
    /// docs/performance.md). Every caller that simulates a NEFF of a known target starts here.
    pub fn of_target(target: neff_kelf::Target) -> Clocks {
        match target {
            neff_kelf::Target::Sunda => Clocks::TRN1,
            neff_kelf::Target::Cayman | neff_kelf::Target::Mariana => Clocks::TRN2,
        }
    }

    /// The clock of `engine`, GHz.
    pub fn of(&self, engine: EngineType) -> f64 {
        match engine {
            EngineType::Pe => self.pe_ghz,
            _ => self.engines_ghz,
        }
    }

    /// These clocks with every engine's scaled so the non-PE engines run at `ghz` (the PE array
    /// keeps its ratio to them): the `--clock` knob.
    pub fn at(&self, ghz: f64) -> Clocks {
        let r = ghz / self.engines_ghz;
        Clocks {
            pe_ghz: self.pe_ghz * r,
            engines_ghz: ghz,
        }
    }
}

impl Default for Clocks {
    /// [`Clocks::TRN2`]: the machine every shared capture comes from.
    fn default() -> Self {
        Self::TRN2
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_clock_knob_keeps_the_pe_ratio() {
        let c = Clocks::TRN2.at(1.4);
        assert_eq!(c.engines_ghz, 1.4);
        assert!((c.pe_ghz - 2.8).abs() < 1e-12);
        assert_eq!(Clocks::TRN1.of(EngineType::Pe), 1.4);
        assert_eq!(Clocks::TRN2.of(EngineType::Dve), 1.2);
    }
}
