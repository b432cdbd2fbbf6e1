//! What-if knobs a kernel author turns: the machine's clocks, the DMA bandwidth, per-engine
//! speed factors. They change how the cost model reads its table, never the table (decision
//! D442): the same fitted constants answer "and on trn1?" or "with twice the DMA bandwidth?".

use neff_isa::EngineType;
use serde::{Deserialize, Serialize};

use super::Clocks;

/// The knobs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Knobs {
    /// The clocks of the machine simulated (the fitted table's clocks are what its nanoseconds
    /// mean; every engine cost scales by fitted / simulated).
    pub clocks: Clocks,
    /// The DMA bandwidth of the whole core, GB/s (bytes per ns), shared evenly by its DMA
    /// engines; `None`: the fitted per-engine rate.
    pub dma_gbps: Option<f64>,
    /// Per engine (in [`EngineType::ALL`] order) a speed factor: 2 halves every cost of that
    /// engine, 0.5 doubles it.
    pub speed: [f64; 5],
}

impl Default for Knobs {
    /// trn2 clocks, the fitted DMA rate, every engine at speed 1.
    fn default() -> Self {
        Self {
            clocks: Clocks::TRN2,
            dma_gbps: None,
            speed: [1.0; 5],
        }
    }
}

impl Knobs {
    /// The speed factor of `engine` (non-finite or non-positive factors count as 1).
    pub fn speed_of(&self, engine: EngineType) -> f64 {
        let i = EngineType::ALL
            .iter()
            .position(|&e| e == engine)
            .unwrap_or(0);
        let s = self.speed[i];
        if s.is_finite() && s > 0.0 { s } else { 1.0 }
    }

    /// Sets the speed factor of `engine`.
    pub fn set_speed(&mut self, engine: EngineType, factor: f64) {
        if let Some(i) = EngineType::ALL.iter().position(|&e| e == engine) {
            self.speed[i] = factor;
        }
    }

    /// How much longer every cost of `engine` takes than the table says: the fitted clock over
    /// the simulated one, over the speed factor.
    pub fn time_scale(&self, fitted: &Clocks, engine: EngineType) -> f64 {
        let sim = self.clocks.of(engine);
        let ratio = if sim > 0.0 {
            fitted.of(engine) / sim
        } else {
            1.0
        };
        ratio / self.speed_of(engine)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trn1_engines_run_faster_and_its_pe_slower_than_trn2_fitted_costs() {
        let k = Knobs {
            clocks: Clocks::TRN1,
            ..Knobs::default()
        };
        let f = Clocks::TRN2;
        assert!((k.time_scale(&f, EngineType::Act) - 1.2 / 1.4).abs() < 1e-12);
        assert!((k.time_scale(&f, EngineType::Pe) - 2.4 / 1.4).abs() < 1e-12);
        let mut k = Knobs::default();
        k.set_speed(EngineType::Dve, 2.0);
        assert_eq!(k.time_scale(&f, EngineType::Dve), 0.5);
        assert_eq!(k.time_scale(&f, EngineType::Pe), 1.0);
        k.set_speed(EngineType::Pe, f64::NAN);
        assert_eq!(k.speed_of(EngineType::Pe), 1.0);
    }
}
