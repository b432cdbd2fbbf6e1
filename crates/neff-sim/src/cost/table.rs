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
    /// The core's shared DMA path, per descriptor, ns: the engines start descriptors one after
    /// another at this fixed cost plus [`Self::fabric_ns_per_byte`] per byte, whatever engine
    /// moves them (decision D621: in a long burst 16 engines start 4 KiB descriptors ~15 ns
    /// apart, ~270 GB/s, not the 16 x 27 GB/s of the engines alone). 0: no shared limit.
    #[serde(default)]
    pub fabric_descriptor_ns: f64,
    /// The shared DMA path per contiguous run of a DIRECT2D beyond one per descriptor, when
    /// the runs are longer than [`Self::small_run_bytes`], ns (D810: a 2 KiB record of eight
    /// 256-byte runs starts 13.7 ns after the one before, a contiguous 2 KiB record 5-8 ns).
    #[serde(default)]
    pub fabric_run_ns: f64,
    /// The shared DMA path per run of at most [`Self::small_run_bytes`], ns (D810: 16-byte
    /// records of eight 2-byte runs start 47-63 ns apart, 8-byte single-run records 9.4 ns).
    #[serde(default)]
    pub fabric_small_run_ns: f64,
    /// The largest run the captures show paying the small-run cost, bytes (D810: 2- and 8-byte
    /// runs do, 256-byte and larger do not; no capture has runs of 9-255 bytes, priced as large).
    #[serde(default)]
    pub small_run_bytes: u64,
    /// The shared DMA path per byte, ns (the inverse of the core's aggregate bandwidth).
    #[serde(default)]
    pub fabric_ns_per_byte: f64,
    /// How long a descriptor-generating DMA instruction (a 0xB8, or the D54 WRITE standing for
    /// its 0xD4) holds its engine before the next instruction issues, ns: the engine generates
    /// the descriptors first (decision D622: Pool's 0xB8s issue >= 580 ns apart in every
    /// capture, and the TENSOR_LOAD after one issues ~620 ns after it).
    #[serde(default)]
    pub dge_interval_ns: f64,
    /// Per engine (index order), how long its descriptor generator works on one DMA
    /// instruction's job, ns; 0 where no capture shows a queue of jobs (decision D742: Pool's
    /// 0xB8s issue every ~580 ns while its generator takes ~606 ns a job, so each one's
    /// duration grows by ~25 ns until a pause lets the queue drain; Activation's and SP's last
    /// ~520-600 ns each, never growing: they finish their own job).
    #[serde(default)]
    pub dge_job_ns: [f64; EngineType::COUNT],
}

/// The PE activity throttle (profiles: `throttle_activity_1_avg_util_limit` 0.5): after an idle
/// gap the array streams at `1 / factor` of its rate until it has been busy for `warm_ns` (D856:
/// busy time, idle gaps between not counted and not ending it).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Throttle {
    /// The slow-down of the streamed part while throttled (1 = no throttle).
    pub factor: f64,
    /// Busy time after which the throttle lifts, ns.
    pub warm_ns: f64,
    /// An idle gap at least this long throttles the array again once its episode is over, ns.
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
    /// The most PE cycles a MATMUL's stationary free size holds the array for, per pass
    /// (D812): a MATMUL streams for at least `min(stationary columns, this)` cycles whatever its
    /// moving columns (the NKI ISA's `nc_matmul` cost `max(min(64, N_stationary), N_moving)`
    /// cycles; fitted on the captures' back-to-back small MATMULs). 0: no floor.
    #[serde(default)]
    pub matmul_floor_columns: f64,
    /// How long a MATMUL's results take to leave the array, ns per moving column (D813): a
    /// MATMUL completes no earlier than this times its moving columns after the MATMUL before it
    /// completed (MoE: a 128-column MATMUL issued 60 ns after another ends 105 ns after it).
    /// 0: no limit.
    #[serde(default)]
    pub matmul_drain_ns_per_column: f64,
    /// What a MATMUL issued while no MATMUL is in flight adds to its latency, ns (D815: a
    /// 1-column MATMUL lasts 186 ns after an idle array, 165 ns behind another).
    #[serde(default)]
    pub matmul_idle_ns: f64,
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
        matmul_floor_columns: FITTED_MATMUL_FLOOR_COLUMNS,
        matmul_drain_ns_per_column: FITTED_MATMUL_DRAIN_NS_PER_COLUMN,
        matmul_idle_ns: FITTED_MATMUL_IDLE_NS,
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
        [lin(2.2425, 0.0), lin(168.0595, 0.4647), lin(5.3333, 0.4167)],
        (2890, 8.7802),
    ),
    row(
        E::Pe,
        C::LoadWeights,
        [lin(2.0, 0.0), lin(78.8031, 0.1969), lin(0.0, 0.0)],
        (3572, 0.9464),
    ),
    row(
        E::Pe,
        C::LoadWeightsFp32,
        [lin(3.0, 0.0), lin(78.2381, 0.881), lin(0.0, 0.0)],
        (496, 3.2465),
    ),
    row(
        E::Pe,
        C::Sync,
        [lin(92.0, 0.0), lin(52.0, 0.0), lin(0.0, 0.0)],
        (164, 0.0),
    ),
    row(
        E::Pe,
        C::Barrier,
        [lin(129.0, 0.0), lin(52.0, 0.0), lin(0.0, 0.0)],
        (152, 22.3881),
    ),
    row(
        E::Pe,
        C::Ordering,
        [lin(116.0, 0.0), lin(44.0, 0.0), lin(0.0, 0.0)],
        (21, 0.0),
    ),
    row(
        E::Pe,
        C::Drain,
        [lin(92.0, 0.0), lin(12.0, 0.0), lin(0.0, 0.0)],
        (168, 0.0),
    ),
    row(
        E::Pe,
        C::Control,
        [lin(277.0, 0.0), lin(185.0, 0.0), lin(0.0, 0.0)],
        (14, 0.0),
    ),
    row(
        E::Pe,
        C::RuntimeOpaque,
        [lin(128.0, 0.0), lin(0.0, 0.0), lin(0.0, 0.0)],
        (392, 0.0),
    ),
    row(
        E::Pe,
        C::RuntimeLoad,
        [lin(0.0, 965.0), lin(24.0, 610.0), lin(0.0, 0.0)],
        (28, 0.79),
    ),
    row(
        E::Act,
        C::Activate,
        [lin(5.0, 0.0), lin(331.3151, 0.9788), lin(374.9821, 0.5761)],
        (544, 7.1948),
    ),
    row(
        E::Act,
        C::ActTableLoad,
        [
            lin(1283.0, 0.8333),
            lin(1283.0, 0.8333),
            lin(1254.2168, 0.8333),
        ],
        (17, 0.0),
    ),
    row(
        E::Act,
        C::Copy,
        [
            lin(0.0, 1.4674),
            lin(154.2511, 0.8111),
            lin(96.8583, 1.1417),
        ],
        (720, 2.0047),
    ),
    row(
        E::Act,
        C::Cast,
        [
            lin(0.0, 0.7337),
            lin(158.3333, 0.8333),
            lin(129.5501, 0.8333),
        ],
        (5, 0.0016),
    ),
    row(
        E::Act,
        C::Sync,
        [lin(320.0, 0.0), lin(40.0, 0.0), lin(0.0, 0.0)],
        (85, 0.0),
    ),
    row(
        E::Act,
        C::Barrier,
        [lin(92.0, 0.0), lin(28.0, 0.0), lin(0.0, 0.0)],
        (144, 0.0),
    ),
    row(
        E::Act,
        C::Ordering,
        [lin(100.0, 0.0), lin(41.0, 0.0), lin(0.0, 0.0)],
        (21, 0.0),
    ),
    row(
        E::Act,
        C::Drain,
        [lin(76.0, 0.0), lin(7.0, 0.0), lin(0.0, 0.0)],
        (196, 0.0),
    ),
    row(
        E::Act,
        C::Control,
        [lin(248.0, 0.0), lin(171.0, 0.0), lin(0.0, 0.0)],
        (14, 0.0),
    ),
    row(
        E::Act,
        C::DmaDynamic,
        [lin(313.25, 0.0), lin(572.0, 0.0), lin(0.0, 0.0)],
        (8, 0.0876),
    ),
    row(
        E::Act,
        C::RuntimeOpaque,
        [lin(110.0, 0.0), lin(0.0, 0.0), lin(0.0, 0.0)],
        (369, 0.0),
    ),
    row(
        E::Act,
        C::RuntimeLoad,
        [lin(136.0, 544.5), lin(208.0, 406.0), lin(0.0, 0.0)],
        (42, 2.2293),
    ),
    row(
        E::Pool,
        C::OtherCompute,
        [lin(790.0, 0.0), lin(311.0, 0.0), lin(311.0, 0.0)],
        (3, 2.2519),
    ),
    row(
        E::Pool,
        C::Sync,
        [lin(548.0, 0.0), lin(19.0, 0.0), lin(0.0, 0.0)],
        (190, 0.0),
    ),
    row(
        E::Pool,
        C::Barrier,
        [lin(76.0, 0.0), lin(31.0, 0.0), lin(0.0, 0.0)],
        (142, 3.125),
    ),
    row(
        E::Pool,
        C::Ordering,
        [lin(678.5, 0.0), lin(41.0, 0.0), lin(0.0, 0.0)],
        (28, 0.0),
    ),
    row(
        E::Pool,
        C::Drain,
        [lin(77.0, 0.0), lin(29.0, 0.0), lin(0.0, 0.0)],
        (196, 0.0),
    ),
    row(
        E::Pool,
        C::Control,
        [lin(78.0, 0.0), lin(42.0, 0.0), lin(0.0, 0.0)],
        (6412, 2.439),
    ),
    row(
        E::Pool,
        C::DmaDynamic,
        [lin(21.0, 0.0), lin(31.0, 0.0), lin(0.0, 0.0)],
        (2199, 0.0),
    ),
    row(
        E::Pool,
        C::DmaStatic,
        [lin(82.0, 0.0), lin(46.0, 0.0), lin(0.0, 0.0)],
        (64, 0.0),
    ),
    row(
        E::Pool,
        C::RegisterIo,
        [lin(334.0, 0.0), lin(290.0, 0.0), lin(0.0, 0.0)],
        (1824, 0.346),
    ),
    row(
        E::Pool,
        C::RuntimeOpaque,
        [lin(88.5, 0.0), lin(0.0, 0.0), lin(0.0, 0.0)],
        (378, 0.0),
    ),
    row(
        E::Pool,
        C::RuntimeLoad,
        [lin(241.0, 489.0), lin(337.0, 344.0), lin(0.0, 0.0)],
        (42, 0.8734),
    ),
    row(
        E::Dve,
        C::TensorReduce,
        [lin(16.0, 0.0), lin(148.1056, 1.0498), lin(215.0, 0.7578)],
        (69, 0.8857),
    ),
    row(
        E::Dve,
        C::TensorScalar,
        [lin(14.5, 0.0), lin(305.0, 0.3438), lin(220.0, 0.3438)],
        (24, 0.2514),
    ),
    row(
        E::Dve,
        C::TensorTensor,
        [lin(15.4, 0.0), lin(156.1548, 0.9597), lin(73.2606, 2.4823)],
        (648, 0.6986),
    ),
    row(
        E::Dve,
        C::Copy,
        [lin(7.881, 0.0595), lin(152.7337, 0.9582), lin(63.5, 8.0)],
        (258, 5.2684),
    ),
    row(
        E::Dve,
        C::Cast,
        [lin(64.2, 0.0), lin(159.2319, 0.4439), lin(78.325, 1.3098)],
        (136, 2.3563),
    ),
    row(
        E::Dve,
        C::Reciprocal,
        [
            lin(175.1958, 0.7011),
            lin(175.1958, 0.7011),
            lin(100.401, 0.7011),
        ],
        (4, 0.0001),
    ),
    row(
        E::Dve,
        C::Memset,
        [lin(83.4397, 0.0), lin(83.4397, 0.0), lin(26.6812, 0.8865)],
        (574, 6.974),
    ),
    row(
        E::Dve,
        C::Sync,
        [lin(320.0, 0.0), lin(26.0, 0.0), lin(0.0, 0.0)],
        (52, 0.0),
    ),
    row(
        E::Dve,
        C::Barrier,
        [lin(107.0, 0.0), lin(53.0, 0.0), lin(0.0, 0.0)],
        (144, 1.8518),
    ),
    row(
        E::Dve,
        C::Ordering,
        [lin(110.0, 0.0), lin(56.0, 0.0), lin(0.0, 0.0)],
        (21, 0.0),
    ),
    row(
        E::Dve,
        C::Drain,
        [lin(73.0, 0.0), lin(13.0, 0.0), lin(0.0, 0.0)],
        (196, 0.0),
    ),
    row(
        E::Dve,
        C::Control,
        [lin(303.0, 0.0), lin(33.0, 0.0), lin(0.0, 0.0)],
        (40, 0.0),
    ),
    row(
        E::Dve,
        C::DmaStatic,
        [lin(84.0, 0.0), lin(33.0, 0.0), lin(0.0, 0.0)],
        (40, 0.0),
    ),
    row(
        E::Dve,
        C::RuntimeOpaque,
        [lin(100.0, 0.0), lin(0.0, 0.0), lin(0.0, 0.0)],
        (378, 0.0),
    ),
    row(
        E::Dve,
        C::RuntimeLoad,
        [lin(309.0, 476.5), lin(380.0, 345.0), lin(0.0, 0.0)],
        (42, 4.9204),
    ),
    row(
        E::Sp,
        C::Sync,
        [lin(320.0, 0.0), lin(18.0, 0.0), lin(0.0, 0.0)],
        (4, 0.0),
    ),
    row(
        E::Sp,
        C::Barrier,
        [lin(67.0, 0.0), lin(24.0, 0.0), lin(0.0, 0.0)],
        (34, 0.0),
    ),
    row(
        E::Sp,
        C::Ordering,
        [lin(74.0, 0.0), lin(21.0, 0.0), lin(0.0, 0.0)],
        (25, 16.6667),
    ),
    row(
        E::Sp,
        C::Drain,
        [lin(72.0, 0.0), lin(8.0, 0.0), lin(0.0, 0.0)],
        (196, 0.0),
    ),
    row(
        E::Sp,
        C::Control,
        [lin(272.5, 0.0), lin(58.0, 0.0), lin(0.0, 0.0)],
        (46, 3.3333),
    ),
    row(
        E::Sp,
        C::DmaDynamic,
        [lin(605.5, 0.0), lin(519.0, 0.0), lin(0.0, 0.0)],
        (39, 0.0),
    ),
    row(
        E::Sp,
        C::DmaStatic,
        [lin(82.0, 0.0), lin(58.0, 0.0), lin(0.0, 0.0)],
        (36, 0.0),
    ),
    row(
        E::Sp,
        C::RuntimeOpaque,
        [lin(86.0, 0.0), lin(0.0, 0.0), lin(0.0, 0.0)],
        (310, 0.0),
    ),
    row(
        E::Sp,
        C::RuntimeLoad,
        [lin(247.0, 454.0), lin(321.0, 325.0), lin(0.0, 0.0)],
        (42, 0.6218),
    ),
];

/// DMA (29689 back-to-back transfers, 936 trigger latencies, 32552 transfers sized, 34 long bursts, 6 record groups of several or small runs).
pub const FITTED_DMA: DmaCost = DmaCost {
    latency_ns: 760.0,
    descriptor_ns: 5.8145,
    ns_per_byte: 0.0364,
    engines: 16,
    max_descriptor_bytes: 4096,
    fabric_descriptor_ns: 0.1633,
    fabric_run_ns: 0.8718,
    fabric_small_run_ns: 7.146,
    small_run_bytes: 8,
    fabric_ns_per_byte: 0.0036,
    dge_interval_ns: 580.0,
    dge_job_ns: [0.0, 0.0, 606.0, 0.0, 647.0],
};

/// The PE throttle.
pub const FITTED_THROTTLE: Throttle = Throttle {
    factor: 2.0063,
    warm_ns: 5781.3333,
    idle_reset_ns: 10228.771,
};

/// The MATMUL floor, stationary columns a pass (D812; 648 back-to-back MATMUL gaps, quartiles 62.40 / 64.80 / 67.20 PE cycles a pass).
pub const FITTED_MATMUL_FLOOR_COLUMNS: f64 = 64.8;

/// The MATMUL drain, ns per moving column (D813; 92 held MATMULs, quartiles 0.83 / 0.84 / 0.84 ns a moving column).
pub const FITTED_MATMUL_DRAIN_NS_PER_COLUMN: f64 = 0.8359;

/// A MATMUL on an idle array, extra ns (D815; 1003 MATMULs on an idle array, 1134 behind another).
pub const FITTED_MATMUL_IDLE_NS: f64 = 21.0;

/// The clocks the constants were measured at.
pub const FITTED_CLOCKS: Clocks = Clocks {
    pe_ghz: 2.4,
    engines_ghz: 1.2,
};
