//! THE cost constants, in one place. The rows below the marker are written by
//! `scripts/fit_costs.sh` (the `fit_costs` example of this crate, [`super::fit`]) from the
//! shared captures and profiles; rerun it to refit. Beside each constant the fit writes how many
//! measured instructions or transfers it rests on and its in-sample residual. docs/performance.md
//! explains each constant.

use neff_isa::EngineType;
use serde::{Deserialize, Serialize};

use super::{Clocks, CostClass};
use crate::time::{Ps, ps_from_ns};

/// `base + per_unit * work`, in nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Linear {
    /// The fixed part, ns.
    pub base_ns: f64,
    /// Per unit of work ([`super::Features::work`]), ns.
    pub per_unit_ns: f64,
}

impl Linear {
    /// `base + per_unit * work * slow`, as picoseconds.
    pub fn eval(&self, work: f64, slow: f64) -> Ps {
        ps_from_ns(self.base_ns + self.per_unit_ns * work * slow)
    }

    /// Both parts times `k`.
    pub fn scaled(&self, k: f64) -> Linear {
        Linear {
            base_ns: self.base_ns * k,
            per_unit_ns: self.per_unit_ns * k,
        }
    }
}

/// The cost of one instruction class on one engine.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct ClassCost {
    /// Issue to the next issue on the same engine.
    pub dispatch: Linear,
    /// Issue to completion.
    pub latency: Linear,
    /// How long the engine's streaming unit stays busy (the PE array for MATMUL).
    pub occupancy: Linear,
}

impl ClassCost {
    /// Every part times `k`.
    pub fn scaled(&self, k: f64) -> ClassCost {
        ClassCost {
            dispatch: self.dispatch.scaled(k),
            latency: self.latency.scaled(k),
            occupancy: self.occupancy.scaled(k),
        }
    }
}

/// One row of the table.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct ClassRow {
    /// The engine.
    #[serde(with = "crate::engine_name")]
    pub engine: EngineType,
    /// The class.
    pub class: CostClass,
    /// Its cost.
    pub cost: ClassCost,
    /// How many measured instructions the row was fitted on (0: a default, not fitted).
    pub samples: u32,
    /// The fit's in-sample residual: the median of |predicted - measured| / measured over the
    /// row's latency samples, percent (0 when it has none).
    pub residual_pct: f64,
}

/// The DMA engines moving a queue's descriptors (reference-ntff §3: every queue of a capture
/// runs on the core's 16 DMA engines; the JSON's `dma_ddr_bandwidth` 435 GB/s is their sum).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct DmaCost {
    /// From the trigger's issue to the first descriptor moving, ns: descriptor generation and
    /// fetch. Not a resource: it overlaps the data of earlier transfers.
    pub latency_ns: f64,
    /// The fixed cost of one descriptor on one DMA engine, ns.
    pub descriptor_ns: f64,
    /// Per byte on one DMA engine, ns (the inverse of one engine's bandwidth).
    pub ns_per_byte: f64,
    /// The DMA engines of a core.
    pub engines: u32,
    /// The largest descriptor a transfer is cut into, bytes.
    pub max_descriptor_bytes: u64,
}

/// The PE activity throttle (profiles: `throttle_activity_1_avg_util_limit` 0.5): after an idle
/// gap the array streams at `1 / factor` of its rate until it has been busy for `warm_ns`.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Throttle {
    /// The slow-down of the streamed part while throttled (1 = no throttle).
    pub factor: f64,
    /// Busy time after which the throttle lifts, ns.
    pub warm_ns: f64,
    /// An idle gap at least this long throttles the array again, ns.
    pub idle_reset_ns: f64,
}

/// Every constant of the cost model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostTable {
    /// Per (engine, class) costs; a pair without a row costs [`CostTable::default_cost`].
    pub rows: Vec<ClassRow>,
    /// The cost of a pair without a row.
    pub default_cost: ClassCost,
    /// DMA transfers.
    pub dma: DmaCost,
    /// Single-rank collectives (a local copy on the DMA engines).
    pub collective: DmaCost,
    /// The PE throttle.
    pub pe_throttle: Throttle,
    /// The clocks of the machine the table was fitted on: what its nanoseconds mean in cycles.
    pub clocks: Clocks,
}

impl CostTable {
    /// The cost of `class` on `engine`: its row, else the same class on any engine, else the
    /// default.
    pub fn class(&self, engine: EngineType, class: CostClass) -> ClassCost {
        let exact = self
            .rows
            .iter()
            .find(|r| r.engine == engine && r.class == class);
        let any = || self.rows.iter().find(|r| r.class == class);
        exact.or_else(any).map_or(self.default_cost, |r| r.cost)
    }
}

const fn lin(base_ns: f64, per_unit_ns: f64) -> Linear {
    Linear {
        base_ns,
        per_unit_ns,
    }
}

const fn row(
    engine: EngineType,
    class: CostClass,
    [dispatch, latency, occupancy]: [Linear; 3],
    (samples, residual_pct): (u32, f64),
) -> ClassRow {
    ClassRow {
        engine,
        class,
        cost: ClassCost {
            dispatch,
            latency,
            occupancy,
        },
        samples,
        residual_pct,
    }
}

/// A pair no capture showed: the fit's default.
pub const DEFAULT_COST: ClassCost = ClassCost {
    dispatch: lin(60.0, 0.0),
    latency: lin(100.0, 0.0),
    occupancy: lin(0.0, 0.0),
};

/// The fitted table.
pub fn fitted() -> CostTable {
    CostTable {
        rows: FITTED_ROWS.to_vec(),
        default_cost: DEFAULT_COST,
        dma: FITTED_DMA,
        collective: FITTED_DMA,
        pe_throttle: FITTED_THROTTLE,
        clocks: FITTED_CLOCKS,
    }
}

// ---- generated by scripts/fit_costs.sh: do not edit below this line ----

use CostClass as C;
use EngineType as E;

/// Per (engine, class): `[dispatch, latency, occupancy]`,
/// (samples, in-sample median latency residual %).
pub static FITTED_ROWS: &[ClassRow] = &[
    row(
        E::Pe,
        C::Matmul,
        [lin(2.2301, 0.0), lin(173.2265, 0.4806), lin(5.3333, 0.4167)],
        (2887, 6.6091),
    ),
    row(
        E::Pe,
        C::LoadWeights,
        [lin(1.0216, 0.0233), lin(78.8399, 0.1966), lin(0.0, 0.0)],
        (4064, 0.9479),
    ),
    row(
        E::Pe,
        C::Sync,
        [lin(95.5, 0.0), lin(52.0, 0.0), lin(0.0, 0.0)],
        (97, 0.0),
    ),
    row(
        E::Pe,
        C::Ordering,
        [lin(140.0, 0.0), lin(40.5, 0.0), lin(0.0, 0.0)],
        (35, 8.707),
    ),
    row(
        E::Pe,
        C::Notify,
        [lin(80.5, 0.0), lin(7.0, 0.0), lin(0.0, 0.0)],
        (29, 0.0),
    ),
    row(
        E::Pe,
        C::Drain,
        [lin(92.0, 0.0), lin(12.0, 0.0), lin(0.0, 0.0)],
        (260, 0.0),
    ),
    row(
        E::Pe,
        C::Control,
        [lin(296.0, 0.0), lin(225.0, 0.0), lin(0.0, 0.0)],
        (70, 29.6474),
    ),
    row(
        E::Pe,
        C::RegisterIo,
        [lin(718.0, 0.0), lin(931.0, 0.0), lin(0.0, 0.0)],
        (21, 38.1167),
    ),
    row(
        E::Act,
        C::Activate,
        [
            lin(372.0573, 0.8189),
            lin(372.0573, 0.8189),
            lin(390.5473, 0.5687),
        ],
        (379, 2.8765),
    ),
    row(
        E::Act,
        C::ActTableLoad,
        [
            lin(1283.0, 0.8161),
            lin(1283.0, 0.8161),
            lin(1226.1023, 0.8161),
        ],
        (4, 0.0),
    ),
    row(
        E::Act,
        C::Copy,
        [
            lin(154.0843, 0.8134),
            lin(154.0843, 0.8134),
            lin(96.8583, 1.1417),
        ],
        (699, 2.0551),
    ),
    row(
        E::Act,
        C::Ordering,
        [lin(128.0, 0.0), lin(40.0, 0.0), lin(0.0, 0.0)],
        (32, 2.439),
    ),
    row(
        E::Act,
        C::Notify,
        [lin(56.0, 0.0), lin(4.0, 0.0), lin(0.0, 0.0)],
        (29, 0.0),
    ),
    row(
        E::Act,
        C::Drain,
        [lin(75.0, 0.0), lin(7.0, 0.0), lin(0.0, 0.0)],
        (169, 0.0),
    ),
    row(
        E::Act,
        C::Control,
        [lin(288.0, 0.0), lin(222.0, 0.0), lin(0.0, 0.0)],
        (47, 12.9412),
    ),
    row(
        E::Act,
        C::RegisterIo,
        [lin(718.0, 0.0), lin(616.0, 0.0), lin(0.0, 0.0)],
        (15, 28.8703),
    ),
    row(
        E::Pool,
        C::Ordering,
        [lin(96.0, 0.0), lin(39.0, 0.0), lin(0.0, 0.0)],
        (28, 4.878),
    ),
    row(
        E::Pool,
        C::Notify,
        [lin(50.0, 0.0), lin(12.5, 0.0), lin(0.0, 0.0)],
        (21, 20.8333),
    ),
    row(
        E::Pool,
        C::Drain,
        [lin(72.5, 0.0), lin(29.0, 0.0), lin(0.0, 0.0)],
        (105, 0.0),
    ),
    row(
        E::Pool,
        C::Control,
        [lin(286.5, 0.0), lin(124.0, 0.0), lin(0.0, 0.0)],
        (35, 55.8719),
    ),
    row(
        E::Pool,
        C::RegisterIo,
        [lin(718.0, 0.0), lin(641.0, 0.0), lin(0.0, 0.0)],
        (7, 0.1562),
    ),
    row(
        E::Dve,
        C::TensorReduce,
        [
            lin(152.8346, 1.0413),
            lin(152.8346, 1.0413),
            lin(69.8346, 1.0413),
        ],
        (44, 0.2934),
    ),
    row(
        E::Dve,
        C::TensorScalar,
        [lin(305.0, 0.3438), lin(305.0, 0.3438), lin(220.0, 0.3438)],
        (22, 0.2514),
    ),
    row(
        E::Dve,
        C::TensorTensor,
        [
            lin(158.0551, 0.9449),
            lin(158.0551, 0.9449),
            lin(270.0551, 0.9449),
        ],
        (329, 0.3563),
    ),
    row(
        E::Dve,
        C::Copy,
        [
            lin(153.036, 1.0511),
            lin(153.036, 1.0511),
            lin(251.9489, 1.0511),
        ],
        (49, 0.7105),
    ),
    row(
        E::Dve,
        C::Cast,
        [
            lin(155.5276, 0.4724),
            lin(155.5276, 0.4724),
            lin(251.0, 0.0),
        ],
        (67, 0.0024),
    ),
    row(
        E::Dve,
        C::Reciprocal,
        [
            lin(175.1654, 0.7087),
            lin(175.1654, 0.7087),
            lin(205.1654, 0.7087),
        ],
        (4, 0.0001),
    ),
    row(
        E::Dve,
        C::Memset,
        [lin(81.2444, 0.0), lin(81.2444, 0.0), lin(50.4197, 0.7076)],
        (413, 2.841),
    ),
    row(
        E::Dve,
        C::Ordering,
        [lin(118.0, 0.0), lin(50.0, 0.0), lin(0.0, 0.0)],
        (34, 10.7143),
    ),
    row(
        E::Dve,
        C::Notify,
        [lin(63.0, 0.0), lin(13.0, 0.0), lin(0.0, 0.0)],
        (39, 0.0),
    ),
    row(
        E::Dve,
        C::Drain,
        [lin(73.0, 0.0), lin(13.0, 0.0), lin(0.0, 0.0)],
        (201, 0.0),
    ),
    row(
        E::Dve,
        C::Control,
        [lin(384.0, 0.0), lin(140.0, 0.0), lin(0.0, 0.0)],
        (59, 54.3974),
    ),
    row(
        E::Dve,
        C::RegisterIo,
        [lin(718.0, 0.0), lin(808.0, 0.0), lin(0.0, 0.0)],
        (19, 16.932),
    ),
    row(
        E::Sp,
        C::Ordering,
        [lin(106.0, 0.0), lin(13.0, 0.0), lin(0.0, 0.0)],
        (28, 0.0),
    ),
    row(
        E::Sp,
        C::Notify,
        [lin(46.0, 0.0), lin(7.5, 0.0), lin(0.0, 0.0)],
        (21, 37.5),
    ),
    row(
        E::Sp,
        C::Drain,
        [lin(62.0, 0.0), lin(8.0, 0.0), lin(0.0, 0.0)],
        (105, 0.0),
    ),
    row(
        E::Sp,
        C::Control,
        [lin(290.5, 0.0), lin(99.0, 0.0), lin(0.0, 0.0)],
        (35, 4.8077),
    ),
    row(
        E::Sp,
        C::RegisterIo,
        [lin(718.0, 0.0), lin(628.0, 0.0), lin(0.0, 0.0)],
        (7, 0.9464),
    ),
];

/// DMA (29689 back-to-back transfers, 806 trigger latencies, 32552 transfers sized).
pub const FITTED_DMA: DmaCost = DmaCost {
    latency_ns: 737.0,
    descriptor_ns: 5.8145,
    ns_per_byte: 0.0364,
    engines: 16,
    max_descriptor_bytes: 4096,
};

/// The PE throttle.
pub const FITTED_THROTTLE: Throttle = Throttle {
    factor: 2.0063,
    warm_ns: 6803.0,
    idle_reset_ns: 10228.771,
};

/// The clocks the constants were measured at.
pub const FITTED_CLOCKS: Clocks = Clocks {
    pe_ghz: 2.4,
    engines_ghz: 1.2,
};
