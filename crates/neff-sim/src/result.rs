//! What a simulation returns: per subgraph the span, per engine busy / waiting / idle time and
//! instruction counts, per queue the transfers, the critical path, and optionally the whole
//! timeline; a deadlock when there is one. Every type serializes with serde: `neff sim --json`
//! prints [`SimResult`] (its shape is the issue's: `{"subgraphs":[{"name","span_ns","engines":
//! [{"engine","busy_ns","wait_ns","instructions"}]}],"deadlock":null|{...}}`, plus more keys).

use neff_isa::EngineType;
use serde::Serialize;

use crate::cost::CostClass;
use crate::deadlock::Deadlock;
use crate::op::Region;
use crate::warning::SimWarning;

/// The result of [`crate::simulate`].
#[derive(Debug, Clone, Serialize)]
pub struct SimResult {
    /// Every simulated subgraph, in the NEFF's order.
    pub subgraphs: Vec<SubgraphResult>,
    /// The first deadlock found (its subgraph is named inside), or `None`.
    pub deadlock: Option<Deadlock>,
    /// Warnings: transfers nothing waited for, semaphores not back to their initial values
    /// (each serialized as its text).
    pub warnings: Vec<SimWarning>,
}

impl SimResult {
    /// The `neff sim --json` document (and the Python package's `Neff.sim()`): the result
    /// without each subgraph's `timeline` (the trace file carries it). The timeline is never
    /// serialized, not built and dropped: as a JSON tree it took ~1.4 KB per simulated
    /// instruction (a 16 M-slot NEFF went past 24 GB).
    pub fn report_json(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

/// One subgraph's run.
#[derive(Debug, Clone, Serialize)]
pub struct SubgraphResult {
    /// `sg00`, ...
    pub name: String,
    /// From the issue of the first NEFF (MAIN) instruction to the completion of the last, on
    /// any engine, ns — the figure a profile gives.
    pub span_ns: u64,
    /// When the first NEFF instruction issued, ns from the start of the run.
    pub main_start_ns: u64,
    /// The whole run, PREAMBLE and POSTAMBLE included, ns.
    pub total_ns: u64,
    /// Per engine, in `EngineType` order.
    pub engines: Vec<EngineResult>,
    /// Per DMA queue that moved something.
    pub queues: Vec<QueueResult>,
    /// Per (engine, class): NEFF instructions and their mean duration.
    pub classes: Vec<ClassResult>,
    /// The chain of instructions and transfers that set the span, newest last, summarised per
    /// engine run.
    pub critical_path: Vec<CriticalStep>,
    /// Whether the subgraph deadlocked.
    pub deadlocked: bool,
    /// The timeline, when [`crate::SimOptions::record`] was set; not part of the JSON report
    /// (see [`SimResult::report_json`]; `--trace` and `neff report` read it).
    #[serde(skip_serializing)]
    pub timeline: Option<Timeline>,
}

/// One engine's totals over the MAIN span (NEFF instructions only).
#[derive(Debug, Clone, Serialize)]
pub struct EngineResult {
    /// `pe`, `act`, `pool`, `dve`, `sp`.
    #[serde(serialize_with = "crate::engine_name::serialize")]
    pub engine: EngineType,
    /// Time at least one NEFF instruction of the engine was in flight, ns.
    pub busy_ns: u64,
    /// Time a NEFF instruction waited on a semaphore or event with nothing in flight, ns.
    pub wait_ns: u64,
    /// The rest of the span, ns.
    pub idle_ns: u64,
    /// NEFF instructions executed.
    pub instructions: u64,
    /// Instructions executed, the runtime's PREAMBLE and POSTAMBLE included.
    pub total_instructions: u64,
}

/// One DMA queue's transfers.
#[derive(Debug, Clone, Serialize)]
pub struct QueueResult {
    /// The queue name (def.json `dma_queue`).
    pub name: String,
    /// Transfers moved.
    pub transfers: u64,
    /// Bytes moved.
    pub bytes: u64,
    /// Time at least one transfer of the queue was moving, ns.
    pub busy_ns: u64,
}

/// NEFF instructions of one class on one engine.
#[derive(Debug, Clone, Serialize)]
pub struct ClassResult {
    /// The engine.
    #[serde(serialize_with = "crate::engine_name::serialize")]
    pub engine: EngineType,
    /// The class.
    pub class: CostClass,
    /// How many.
    pub count: u64,
    /// Their mean issue-to-completion time, ns.
    pub mean_ns: f64,
}

/// One stretch of the critical path: consecutive instructions of one engine, or one transfer.
#[derive(Debug, Clone, Serialize)]
pub struct CriticalStep {
    /// The engine name, or `queue <name>` for a transfer.
    pub on: String,
    /// Start, ns from the start of the run.
    pub start_ns: u64,
    /// End, ns.
    pub end_ns: u64,
    /// Instructions in the stretch (1 for a transfer).
    pub instructions: u64,
    /// The first NEFF slot of the stretch, if any.
    pub first_slot: Option<u32>,
    /// The last NEFF slot of the stretch, if any.
    pub last_slot: Option<u32>,
    /// What the stretch mostly is (the class with most instructions, or `DMA`).
    pub what: String,
}

/// Everything that happened, for the trace and the reports.
#[derive(Debug, Clone, Serialize, Default)]
pub struct Timeline {
    /// Every issued instruction, in issue order.
    pub slices: Vec<Slice>,
    /// Every transfer.
    pub transfers: Vec<TransferRecord>,
    /// Every semaphore change: (time ns, semaphore, new value).
    pub semaphores: Vec<SemaphoreSample>,
}

/// One executed instruction.
#[derive(Debug, Clone, Serialize)]
pub struct Slice {
    /// The engine.
    #[serde(serialize_with = "crate::engine_name::serialize")]
    pub engine: EngineType,
    /// Issue, ns (fractional).
    pub start_ns: f64,
    /// Issue to completion, ns (fractional).
    pub dur_ns: f64,
    /// Image byte offset.
    pub offset: u32,
    /// The NEFF slot, for MAIN and FUNCTION instructions.
    pub slot: Option<u32>,
    /// The region.
    pub region: Region,
    /// The cost class.
    pub class: CostClass,
    /// The disassembly (empty when [`crate::SimOptions::slice_text`] is off).
    pub text: String,
}

/// One transfer.
#[derive(Debug, Clone, Serialize)]
pub struct TransferRecord {
    /// The queue name.
    pub queue: String,
    /// The ring.
    pub ring: u16,
    /// Bytes.
    pub bytes: u64,
    /// Start, ns.
    pub start_ns: f64,
    /// Duration, ns.
    pub dur_ns: f64,
    /// The semaphore raised at the end.
    pub semaphore: Option<u8>,
}

/// A semaphore's value from a time on.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SemaphoreSample {
    /// When, ns.
    pub t_ns: f64,
    /// The semaphore.
    pub semaphore: u8,
    /// Its new value.
    pub value: i64,
}
