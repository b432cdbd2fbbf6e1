//! The cost model: how long each instruction keeps its engine from issuing the next one
//! (`dispatch`), and how long it takes from issue to completion (`latency`) — the two figures a
//! pipelined engine needs apart (fixtures/real/profiled/README.md: durations overlap on one
//! engine). Both are linear in the instruction's decoded size ([`features`]), per engine and
//! instruction class; the constants are fitted on the hardware profiles by
//! `scripts/fit_costs.sh` and live in one place, [`table`] (docs/performance.md "Cost model").
//! Nothing is keyed by NEFF: the same table prices any program.

pub mod features;
pub mod table;

use neff_isa::EngineType;

pub use features::{Features, features};
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
    /// LDWEIGHTS: a weight tile loaded into the PE array.
    LoadWeights,
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
}

impl CostClass {
    /// Every class, in order.
    pub const ALL: [CostClass; 22] = [
        Self::Matmul,
        Self::LoadWeights,
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
        Self::Ordering,
        Self::Notify,
        Self::Drain,
        Self::Control,
        Self::DmaDynamic,
        Self::DmaStatic,
        Self::Collective,
        Self::RegisterIo,
        Self::RuntimeOpaque,
    ];

    /// The report name (`MATMUL`, `LOAD_WEIGHTS`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Self::Matmul => "MATMUL",
            Self::LoadWeights => "LOAD_WEIGHTS",
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
            Self::Ordering => "ORDERING",
            Self::Notify => "NOTIFY",
            Self::Drain => "DRAIN",
            Self::Control => "CONTROL",
            Self::DmaDynamic => "DMA_DYNAMIC",
            Self::DmaStatic => "DMA_STATIC",
            Self::Collective => "COLLECTIVE",
            Self::RegisterIo => "REGISTER_IO",
            Self::RuntimeOpaque => "RUNTIME_OPAQUE",
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
}

/// The model: a cost table plus the rules that read it.
#[derive(Debug, Clone, PartialEq)]
pub struct CostModel {
    /// The constants.
    pub table: CostTable,
}

impl Default for CostModel {
    /// The fitted table ([`fitted`]).
    fn default() -> Self {
        Self { table: fitted() }
    }
}

impl CostModel {
    /// The cost of an instruction of `engine` with features `f`, at full rate and throttled
    /// (the PE activity throttle slows the per-unit parts by its factor; other engines are never
    /// throttled).
    pub fn op_cost(&self, engine: EngineType, f: &Features) -> (OpCost, OpCost) {
        let c = self.table.class(engine, f.class);
        let n = f.work() as f64;
        let at = |slow: f64| OpCost {
            dispatch: c.dispatch.eval(n, slow),
            latency: c.latency.eval(n, slow),
            occupancy: c.occupancy.eval(n, slow),
        };
        let factor = match engine {
            EngineType::Pe => self.table.pe_throttle.factor.max(1.0),
            _ => 1.0,
        };
        (at(1.0), at(factor))
    }

    /// How long a queue takes to move `bytes` once it starts the transfer.
    pub fn transfer(&self, bytes: u64) -> Ps {
        let d = &self.table.dma;
        ps_from_ns(d.fixed_ns + d.ns_per_byte * bytes as f64)
    }

    /// How long a single-rank collective over `bytes` takes (a local copy).
    pub fn collective(&self, bytes: u64) -> Ps {
        let d = &self.table.collective;
        ps_from_ns(d.fixed_ns + d.ns_per_byte * bytes as f64)
    }
}
