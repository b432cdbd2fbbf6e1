//! The cost model: how long each instruction keeps its engine from issuing the next one
//! (`dispatch`), and how long it takes from issue to completion (`latency`) — the two figures a
//! pipelined engine needs apart (fixtures/real/profiled/README.md: durations overlap on one
//! engine). Both are linear in the instruction's decoded size ([`features`]), per engine and
//! instruction class; the constants are fitted on the hardware profiles by
//! `scripts/fit_costs.sh` and live in one place, [`table`] (docs/performance.md "Cost model").
//! Nothing is keyed by NEFF: the same table prices any program. DMA is priced by its mechanism
//! ([`DmaCost`]): a latency from trigger to first byte, then the transfer cut into descriptors
//! spread over the core's DMA engines. The table says at which clocks it was fitted; the
//! [`Knobs`] say which machine is simulated (clocks, DMA bandwidth, per-engine speed).

mod clocks;
pub mod features;
pub mod fit;
mod knobs;
mod runs;
pub mod table;

use neff_isa::EngineType;

pub use clocks::Clocks;
pub use features::{Features, features};
pub use knobs::Knobs;
pub use runs::Runs;
pub use table::{ClassCost, ClassRow, CostTable, DmaCost, Linear, Throttle, fitted};

use crate::time::{Ps, ps_from_ns};

/// The instruction classes the model prices, from the opcode (and, for a WRITE, the register
/// it writes).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CostClass {
    /// MATMUL (and its sparse / MX forms): moving data streamed through the PE array.
    Matmul,
    /// LDWEIGHTS: a weight tile of 1- or 2-byte elements loaded into the PE array.
    LoadWeights,
    /// LDWEIGHTS of 4-byte (fp32) weights: 128 rows take 191 ns where 2-byte ones take 104
    /// (every capture; D814).
    LoadWeightsFp32,
    /// ACTIVATE / EXPONENTIAL on ACT.
    Activate,
    /// ACTIVATION_TABLE_LOAD.
    ActTableLoad,
    /// TENSOR_REDUCE_*.
    TensorReduce,
    /// TENSOR_SCALAR_* (immediate or pointer scalars).
    TensorScalar,
    /// TENSOR_TENSOR_*.
    TensorTensor,
    /// COPY.
    Copy,
    /// CAST.
    Cast,
    /// RECIPROCAL.
    Reciprocal,
    /// MEMSET.
    Memset,
    /// Any other datapath / high-band compute opcode.
    OtherCompute,
    /// Events-only control: EVENT_SEMAPHORE, NOP, prefetch hints.
    Sync,
    /// A step of the runtime's `$S[2]` barrier chain (D172): wait for the engine's turn,
    /// then increment (or close). Priced apart from MAIN's EVENT_SEMAPHOREs: its costs are the
    /// runtime preamble's own, fitted on its traced steps (D741).
    Barrier,
    /// SET_ORDERING_MODE.
    Ordering,
    /// NOTIFY (the host's trace START / DONE).
    Notify,
    /// DRAIN: waits for the engine's own work.
    Drain,
    /// Register and flow control: ALU_OP, COMPARE_BRANCH, plain WRITEs, POLL_SEM, range clears,
    /// HALT.
    Control,
    /// A tail-pointer WRITE with a generated (DIRECT2D) descriptor.
    DmaDynamic,
    /// A tail-pointer WRITE advancing a ring of static descriptor blocks.
    DmaStatic,
    /// A collective doorbell WRITE.
    Collective,
    /// A 32-bit register load or store (TENSOR_LOAD / TENSOR_STORE): a round trip to device
    /// memory.
    RegisterIo,
    /// A runtime slot whose content no trace shows (the runtime device model's opaque slots).
    RuntimeOpaque,
    /// The runtime PREAMBLE's TENSOR_LOADs of its own words (the run word, the DGE registers:
    /// D172); work = registers loaded. They cost 650-1260 ns in every capture, MAIN's 290 ns
    /// (D741).
    RuntimeLoad,
}

impl CostClass {
    /// Every class, in order.
    pub const ALL: [CostClass; 25] = [
        Self::Matmul,
        Self::LoadWeights,
        Self::LoadWeightsFp32,
        Self::Activate,
        Self::ActTableLoad,
        Self::TensorReduce,
        Self::TensorScalar,
        Self::TensorTensor,
        Self::Copy,
        Self::Cast,
        Self::Reciprocal,
        Self::Memset,
        Self::OtherCompute,
        Self::Sync,
        Self::Barrier,
        Self::Ordering,
        Self::Notify,
        Self::Drain,
        Self::Control,
        Self::DmaDynamic,
        Self::DmaStatic,
        Self::Collective,
        Self::RegisterIo,
        Self::RuntimeOpaque,
        Self::RuntimeLoad,
    ];

    /// The report name (`MATMUL`, `LOAD_WEIGHTS`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Self::Matmul => "MATMUL",
            Self::LoadWeights => "LOAD_WEIGHTS",
            Self::LoadWeightsFp32 => "LOAD_WEIGHTS_FP32",
            Self::Activate => "ACTIVATE",
            Self::ActTableLoad => "ACT_TABLE_LOAD",
            Self::TensorReduce => "TENSOR_REDUCE",
            Self::TensorScalar => "TENSOR_SCALAR",
            Self::TensorTensor => "TENSOR_TENSOR",
            Self::Copy => "COPY",
            Self::Cast => "CAST",
            Self::Reciprocal => "RECIPROCAL",
            Self::Memset => "MEMSET",
            Self::OtherCompute => "OTHER_COMPUTE",
            Self::Sync => "SYNC",
            Self::Barrier => "BARRIER",
            Self::Ordering => "ORDERING",
            Self::Notify => "NOTIFY",
            Self::Drain => "DRAIN",
            Self::Control => "CONTROL",
            Self::DmaDynamic => "DMA_DYNAMIC",
            Self::DmaStatic => "DMA_STATIC",
            Self::Collective => "COLLECTIVE",
            Self::RegisterIo => "REGISTER_IO",
            Self::RuntimeOpaque => "RUNTIME_OPAQUE",
            Self::RuntimeLoad => "RUNTIME_LOAD",
        }
    }

    /// Whether the class streams data through the engine's datapath (the PE array, the ACT /
    /// DVE / POOL pipelines): such instructions hold the engine's streaming unit for their
    /// occupancy, and the next one waits for it; the others only take their dispatch time.
    pub fn streams(self) -> bool {
        matches!(
            self,
            Self::Matmul
                | Self::Activate
                | Self::ActTableLoad
                | Self::TensorReduce
                | Self::TensorScalar
                | Self::TensorTensor
                | Self::Copy
                | Self::Cast
                | Self::Reciprocal
                | Self::Memset
                | Self::OtherCompute
        )
    }

    /// Whether the class loads weights into the PE array (LDWEIGHTS, either width).
    pub fn loads_weights(self) -> bool {
        matches!(self, Self::LoadWeights | Self::LoadWeightsFp32)
    }

    /// The class named `name` (the inverse of [`CostClass::name`]).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// What one instruction costs its engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OpCost {
    /// From this instruction's issue until the engine may issue the next.
    pub dispatch: Ps,
    /// From issue to completion.
    pub latency: Ps,
    /// How long it holds the engine's streaming unit (the PE array): the next instruction that
    /// needs the unit issues no earlier than this after it (0: it does not use the unit).
    pub occupancy: Ps,
    /// A MATMUL's results leave the array one moving column after another: it completes no
    /// earlier than this after the MATMUL before it completed (D813; 0: no such limit).
    pub drain: Ps,
}

/// The model: a cost table plus the rules that read it, and the knobs of the machine simulated.
#[derive(Debug, Clone, PartialEq)]
pub struct CostModel {
    /// The constants.
    pub table: CostTable,
    /// The machine simulated.
    pub knobs: Knobs,
}

impl Default for CostModel {
    /// The fitted table ([`fitted`]) on trn2.
    fn default() -> Self {
        Self {
            table: fitted(),
            knobs: Knobs::default(),
        }
    }
}

/// How one DMA transfer runs: its latency, then the same share of it on each of `shares` DMA
/// engines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TransferCost {
    /// Trigger to the first descriptor moving.
    pub latency: Ps,
    /// DMA engines the transfer is spread over.
    pub shares: u32,
    /// How long each engine moves its share.
    pub per_engine: Ps,
    /// How long the transfer holds the core's shared DMA path (D621): every descriptor's
    /// fixed cost and every byte at the core's aggregate rate; 0 when the table has no limit.
    pub fabric: Ps,
}

impl CostModel {
    /// The fitted table on `target`'s NeuronCore, every other knob at its default.
    pub fn for_target(target: neff_kelf::Target) -> Self {
        Self::with_knobs(Knobs {
            clocks: Clocks::of_target(target),
            ..Knobs::default()
        })
    }

    /// The fitted table on the machine `knobs` describes.
    pub fn with_knobs(knobs: Knobs) -> Self {
        Self {
            table: fitted(),
            knobs,
        }
    }

    /// The cost of an instruction of `engine` with features `f`, at full rate and throttled
    /// (the PE activity throttle slows the per-unit parts by its factor; other engines are never
    /// throttled).
    pub fn op_cost(&self, engine: EngineType, f: &Features) -> (OpCost, OpCost) {
        let k = self.knobs.time_scale(&self.table.clocks, engine);
        let c = self.table.class(engine, f.class).scaled(k);
        let n = f.work() as f64;
        let drain = match f.class {
            // D813: per moving column (an fp32 matmul's passes accumulate into the same columns).
            CostClass::Matmul => {
                let columns = f.elements as f64;
                ps_from_ns(self.table.matmul_drain_ns_per_column * k * columns)
            }
            _ => 0,
        };
        let at = |slow: f64| OpCost {
            dispatch: c.dispatch.eval(n, slow),
            latency: c.latency.eval(n, slow),
            occupancy: c.occupancy.eval(n, slow),
            drain,
        };
        let factor = match engine {
            EngineType::Pe => self.table.pe_throttle.factor.max(1.0),
            _ => 1.0,
        };
        let (mut fast, mut slow) = (at(1.0), at(factor));
        if f.class == CostClass::Matmul && f.stationary > 0 {
            // D812: the array takes at least min(stationary, floor) cycles a pass, whatever the
            // moving columns (attn_v6 / MoE: LDWEIGHTS of 128 columns + 1-column MATMULs issue
            // every 64 PE cycles); the throttle does not stretch it (MoE's pairs keep 27 ns
            // while its 128-column MATMULs run throttled).
            let columns = (f.stationary as f64).min(self.table.matmul_floor_columns);
            let floor = c.occupancy.per_unit_ns * columns * f64::from(f.passes.max(1));
            let floor = ps_from_ns(floor);
            fast.occupancy = fast.occupancy.max(floor);
            slow.occupancy = slow.occupancy.max(floor);
        }
        (fast, slow)
    }

    /// How a transfer of `bytes` cut into `runs` (a DIRECT2D's, a static block's from its
    /// descriptors' patterns, D836; None: taken as contiguous) that raises its semaphore from `shares` DMA engines (a DIRECT2D's
    /// `sem_increment`, a block's `num_queues`: each engine's part raises it by one) runs: each
    /// engine moves `bytes / shares` in descriptors of at most the table's largest — or, for a
    /// static block, its share of the block's own `descriptors` when they are more (D852) —
    /// each a fixed cost plus its bytes at one engine's rate, then one descriptor for the
    /// semaphore write (reference-ntff §3: a 4-byte record closes each engine's part); the
    /// shared path takes every descriptor, run and byte in turn (D621, D810).
    pub fn transfer(
        &self,
        bytes: u64,
        runs: Option<Runs>,
        shares: u32,
        descriptors: Option<u64>,
    ) -> TransferCost {
        Self::dma_cost(
            &self.table.dma,
            &self.knobs,
            bytes,
            runs,
            shares,
            descriptors,
        )
    }

    fn dma_cost(
        d: &DmaCost,
        knobs: &Knobs,
        bytes: u64,
        runs: Option<Runs>,
        shares: u32,
        descriptors: Option<u64>,
    ) -> TransferCost {
        let engines = d.engines.max(1);
        let shares = shares.clamp(1, engines);
        let share = bytes.div_ceil(u64::from(shares));
        // D852: a NEFF's own descriptors are moved one by one, however few bytes each holds.
        let given = descriptors.map_or(0, |n| n.div_ceil(u64::from(shares)));
        let ndesc = share.div_ceil(d.max_descriptor_bytes.max(1)).max(given) + 1;
        // `--dma-bandwidth` is the core's: each engine gets its part, and the shared path
        // (when the table has one) moves at that rate.
        let (ns_per_byte, fabric_ns_per_byte) = match knobs.dma_gbps {
            Some(g) if g.is_finite() && g > 0.0 => (
                f64::from(engines) / g,
                if d.fabric_ns_per_byte > 0.0 {
                    1.0 / g
                } else {
                    0.0
                },
            ),
            _ => (d.ns_per_byte, d.fabric_ns_per_byte),
        };
        let descriptors = ndesc * u64::from(shares);
        TransferCost {
            latency: ps_from_ns(d.latency_ns),
            shares,
            per_engine: ps_from_ns(d.descriptor_ns * ndesc as f64 + ns_per_byte * share as f64),
            fabric: ps_from_ns(
                d.fabric_descriptor_ns * descriptors as f64
                    + fabric_ns_per_byte * bytes as f64
                    + Self::run_ns(d, runs, descriptors - u64::from(shares)),
            ),
        }
    }

    /// What a transfer's runs add on the shared path (D810; a static block's too, D836): a run of at most the table's small
    /// size its own cost each, longer runs theirs beyond one per data descriptor.
    fn run_ns(d: &DmaCost, runs: Option<Runs>, data_descriptors: u64) -> f64 {
        match runs {
            Some(r) if r.bytes == 0 => 0.0,
            Some(r) if r.bytes <= d.small_run_bytes => d.fabric_small_run_ns * r.count as f64,
            Some(r) => d.fabric_run_ns * r.count.saturating_sub(data_descriptors) as f64,
            None => 0.0,
        }
    }

    /// How long a single-rank collective over `bytes` takes (a local copy on every DMA engine).
    pub fn collective(&self, bytes: u64) -> Ps {
        let d = &self.table.collective;
        let t = Self::dma_cost(d, &self.knobs, bytes, None, d.engines, None);
        t.latency + t.per_engine
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// D852: a static block's own descriptors are moved one by one; a block of many small
    /// descriptors takes as long as its count, not as its bytes, says.
    #[test]
    fn a_block_of_many_small_descriptors_costs_each_descriptor() {
        let cost = CostModel::default();
        let d = &cost.table.dma;
        let one = cost.transfer(4000, None, 1, Some(1));
        let many = cost.transfer(4000, None, 1, Some(1000));
        // One engine: 1000 data descriptors and the semaphore write against one and one.
        let per_descriptor = ps_from_ns(d.descriptor_ns);
        let extra = many.per_engine - one.per_engine;
        assert!(extra.abs_diff(999 * per_descriptor) <= 999, "{extra}");
        assert!(many.fabric > one.fabric);
        // Fewer descriptors than the bytes need are the bytes' count (at most the largest each).
        let big = cost.transfer(64 * 1024, None, 4, Some(1));
        assert_eq!(big, cost.transfer(64 * 1024, None, 4, None));
        // Spread over engines: each takes its share of the descriptors.
        let spread = cost.transfer(4000, None, 4, Some(1000));
        assert!(spread.per_engine >= 251 * per_descriptor && spread.per_engine < many.per_engine);
    }

    /// D836: a static block's pieces are priced as a DIRECT2D's (D810): 4,096 two-byte pieces
    /// (an element gather) take the shared path a small run's cost each; the same bytes in the
    /// 128 partition rows of a row-major source cost no more than their descriptors.
    #[test]
    fn a_static_block_pays_for_the_pieces_its_patterns_cut() {
        let cost = CostModel::default();
        let d = &cost.table.dma;
        let bytes = 8192;
        let gather = cost.transfer(bytes, Some(Runs::of_block(bytes, 4096, 1, 1)), 16, Some(1));
        let rows = cost.transfer(bytes, Some(Runs::of_block(bytes, 128, 1, 1)), 16, Some(1));
        let plain = cost.transfer(bytes, None, 16, Some(1));
        let small = ps_from_ns(d.fabric_small_run_ns * 4096.0);
        assert!(
            gather.fabric.abs_diff(plain.fabric + small) <= 1,
            "{gather:?}"
        );
        let row_extra = ps_from_ns(d.fabric_run_ns * (128 - 16) as f64);
        assert!(
            rows.fabric.abs_diff(plain.fabric + row_extra) <= 1,
            "{rows:?}"
        );
        // Half the block's descriptors (half its bytes) take half its pieces.
        let half = bytes / 2;
        assert_eq!(
            Runs::of_block(half, 4096, 3, 6),
            Runs::of_block(half, 2048, 1, 1)
        );
    }

    fn matmul(elements: u64, passes: u8, stationary: u64) -> Features {
        Features {
            elements,
            passes,
            stationary,
            ..Features::of_class(CostClass::Matmul)
        }
    }

    /// D812: a 1-column MATMUL behind 128 stationary columns holds the array for the floor's
    /// cycles, not its one column; without weights seen it streams its column alone.
    #[test]
    fn matmul_floor_is_the_stationary_columns_up_to_the_fitted_cap() {
        let m = CostModel::default();
        let t = &m.table;
        let occ = t.class(EngineType::Pe, CostClass::Matmul).occupancy;
        let floor = |columns: f64, passes: f64| ps_from_ns(occ.per_unit_ns * columns * passes);
        let (fast, slow) = m.op_cost(EngineType::Pe, &matmul(1, 1, 128));
        assert_eq!(fast.occupancy, floor(t.matmul_floor_columns, 1.0));
        assert_eq!(
            slow.occupancy, fast.occupancy,
            "the throttle does not stretch it"
        );
        let (few, _) = m.op_cost(EngineType::Pe, &matmul(1, 1, 2));
        assert_eq!(few.occupancy, occ.eval(1.0, 1.0).max(floor(2.0, 1.0)));
        let (fp32, _) = m.op_cost(EngineType::Pe, &matmul(1, 2, 128));
        assert_eq!(fp32.occupancy, floor(t.matmul_floor_columns, 2.0));
        let (none, _) = m.op_cost(EngineType::Pe, &matmul(1, 1, 0));
        assert_eq!(none.occupancy, occ.eval(1.0, 1.0));
        // Many moving columns: the columns, not the floor.
        let (wide, _) = m.op_cost(EngineType::Pe, &matmul(512, 1, 128));
        assert_eq!(wide.occupancy, occ.eval(512.0, 1.0));
    }

    /// neff-sim-report's `--compare` text pads class names to 17 characters.
    #[test]
    fn class_names_fit_the_compare_column() {
        assert!(CostClass::ALL.iter().all(|c| c.name().len() <= 17));
        assert_eq!(
            CostClass::from_name("LOAD_WEIGHTS_FP32"),
            Some(CostClass::LoadWeightsFp32)
        );
    }

    /// D813: the drain counts moving columns, not passes; only MATMULs drain.
    #[test]
    fn matmul_drain_is_per_moving_column() {
        let m = CostModel::default();
        let per = m.table.matmul_drain_ns_per_column;
        assert!(per > 0.0);
        let (c, _) = m.op_cost(EngineType::Pe, &matmul(128, 2, 128));
        assert_eq!(c.drain, ps_from_ns(per * 128.0));
        let lw = Features {
            elements: 128,
            ..Features::of_class(CostClass::LoadWeights)
        };
        assert_eq!(m.op_cost(EngineType::Pe, &lw).0.drain, 0);
    }
}
