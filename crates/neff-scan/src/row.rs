//! One row of a scan: everything `neff scan` reports about one file (docs/json.md "neff scan
//! rows"). The same struct is the JSON line, the Parquet row and the Python dict, so the three
//! cannot drift apart.

use serde::{Deserialize, Serialize};

/// The stage of a scan that failed, which says which columns are still filled: a `header`
/// failure leaves only path, size and sha256; `package` keeps the header fields; `kelf` keeps
/// the package fields; `load` keeps everything but `load_ok`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stage {
    /// The file could not be read (or is larger than any NEFF the limits allow).
    Io,
    /// The 1024-byte header (reference §1.1): truncated, bad `header_size`, unknown
    /// `pkg_version`.
    Header,
    /// The package: `data_size`, hash, gzip, tar, limits (neff-container).
    Package,
    /// The kelf manifests and the kbin (spec 004 §1-§2, neff-kelf).
    Kelf,
    /// The runtime's load: lowering, image assembly, staging (spec 000, neff-load).
    Load,
    /// The simulation (neff-sim, only when asked for): a deadlock or a runaway.
    Sim,
    /// A raw capture whose header, metadata or trace buffers cannot be read
    /// (reference-ntff §1-§3; the message names the byte offset or metadata field).
    Capture,
    /// A panic inside neffkit while scanning this file: a neffkit bug, reported in the row so
    /// the scan goes on.
    Internal,
}

impl Stage {
    /// Every stage, in pipeline order.
    pub const ALL: [Stage; 8] = [
        Self::Io,
        Self::Header,
        Self::Package,
        Self::Kelf,
        Self::Load,
        Self::Sim,
        Self::Capture,
        Self::Internal,
    ];

    /// The stage spelled `name` ([`Stage::name`]).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The JSON / Parquet spelling.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Io => "io",
            Self::Header => "header",
            Self::Package => "package",
            Self::Kelf => "kelf",
            Self::Load => "load",
            Self::Sim => "sim",
            Self::Capture => "capture",
            Self::Internal => "internal",
        }
    }
}

/// What a scanned file is, told by its content (decision D640).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RowKind {
    /// A NEFF (or a file that is neither: its row has the `header` error).
    Neff,
    /// A raw device capture (`.ntff`, plain or gzip; reference-ntff §1).
    Capture,
}

impl RowKind {
    /// Every kind.
    pub const ALL: [RowKind; 2] = [Self::Neff, Self::Capture];

    /// The kind spelled `name` ([`RowKind::name`]).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The JSON / Parquet spelling.
    pub const fn name(self) -> &'static str {
        match self {
            Self::Neff => "neff",
            Self::Capture => "capture",
        }
    }
}

/// How many slots of one opcode the NEFF's engine streams hold (all subgraphs and engines).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OpcodeCount {
    /// The opcode byte (spec 003 §2).
    pub opcode: u8,
    /// Its mnemonic (neff-isa's table, decision D1), or `0xNN` for a byte the table does not
    /// know.
    pub mnemonic: String,
    /// Slots with this opcode.
    pub count: u64,
}

/// One DMA queue of one subgraph's kbin (spec 004 §2) with what its descriptors describe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DmaQueueRow {
    /// The subgraph (`sg00`, ...).
    pub subgraph: String,
    /// The queue name (def.json `dma_queue` key).
    pub queue: String,
    /// The owning engine (`pe`, `act`, `pool`, `dve`, `sp`), when def.json names one.
    pub owner: Option<String>,
    /// def.json `type` (`in`, `out`, `dynamic`, ...).
    #[serde(rename = "type")]
    pub ty: String,
    /// Descriptors over all of the queue's rings.
    pub descriptors: u64,
    /// Bytes the descriptors write (decisions D271, D261).
    pub bytes: u64,
}

/// One scanned file. Every field after `error` is `None` (or empty) when the stage that fills
/// it was not reached; see [`Stage`].
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ScanRow {
    /// The path as given or found (a label for bytes scanned without a file).
    pub path: String,
    /// The file's size in bytes.
    pub size: u64,
    /// SHA-256 of the whole file, lowercase hex (None when the file could not be read).
    pub sha256: Option<String>,
    /// `neff` or `capture`, told by content (None when the file could not be read).
    pub kind: Option<RowKind>,
    /// Whether the runtime's load (neff-load) succeeded.
    pub load_ok: bool,
    /// The stage that failed, if any.
    pub error_stage: Option<Stage>,
    /// Its message, naming where (member, slot, byte offset, JSON pointer) like the CLI's.
    pub error: Option<String>,
    /// Header 0x000 `pkg_version` (reference §1.1).
    pub pkg_version: Option<u64>,
    /// Header 0x018 `neff_version_major`.
    pub neff_version_major: Option<u64>,
    /// Header 0x020 `neff_version_minor`.
    pub neff_version_minor: Option<u64>,
    /// Header 0x028 `neff_build_version` as text.
    pub build_version: Option<String>,
    /// Header 0x0CC `uuid`; for a capture, the captured NEFF's uuid (metadata field 4.5, else
    /// the bytes of field 2; reference-ntff §2), so NEFFs and their captures join on it.
    pub uuid: Option<String>,
    /// Header 0x0DC `name`; for a capture, the NEFF's file name as the capture saw it (field 1).
    pub name: Option<String>,
    /// Header 0x0A8 `num_tpb`.
    pub num_tpb: Option<u32>,
    /// Header 0x228 `lnc_size`.
    pub lnc_size: Option<u32>,
    /// Header 0x220 `feature_bits`.
    pub feature_bits: Option<u64>,
    /// The header hash check: `verified`, `verified_legacy_order`, `not_checked` (a mismatch
    /// is a `package` error).
    pub hash_status: Option<String>,
    /// Members of the package.
    pub members: Option<u64>,
    /// Their total size (the inflated tar's content).
    pub inflated_size: Option<u64>,
    /// The compiler build: `info.json` `tool_version` (reference §3.1-§3.2), when present.
    pub compiler_version: Option<String>,
    /// The kelf target (`sunda`, `cayman`, `mariana`; decision D30).
    pub target: Option<String>,
    /// Subgraphs (kbins).
    pub subgraphs: Option<u32>,
    /// PE instructions over all subgraphs (`ninstr = size >> 6`, spec 004 §2); the five
    /// counts in `EngineType` order, PE, ACT, POOL, DVE, SP (D340).
    pub instr_pe: Option<u64>,
    /// Activation-engine instructions.
    pub instr_act: Option<u64>,
    /// Pool instructions.
    pub instr_pool: Option<u64>,
    /// DVE instructions.
    pub instr_dve: Option<u64>,
    /// SP instructions.
    pub instr_sp: Option<u64>,
    /// The opcode histogram over every engine stream, by opcode byte.
    pub opcodes: Vec<OpcodeCount>,
    /// DMA queues over all subgraphs.
    pub dma_queues: Option<u64>,
    /// DMA descriptors over all queues.
    pub dma_descriptors: Option<u64>,
    /// Bytes the descriptors write, over all queues (decisions D271, D261).
    pub dma_bytes: Option<u64>,
    /// Per queue.
    pub dma: Vec<DmaQueueRow>,
    /// The simulated span in ns (neff-sim; only with the simulation asked for): the longest
    /// subgraph's, from its first NEFF instruction to its last completion.
    pub sim_span_ns: Option<u64>,
    /// A capture's format version (byte 0, reference-ntff §1: 4 trn1, 5 and 6 trn2).
    pub capture_format: Option<u32>,
    /// The runtime that ran the capture (metadata field 8), `major.minor.patch`.
    pub runtime_version: Option<String>,
    /// The instance the capture ran on (field 9, `trn2.3xlarge`).
    pub instance_type: Option<String>,
    /// The captured span in ns: the longest subgraph's, first instruction start to last end,
    /// the runtime's own instructions included (`neff profile`'s span).
    pub capture_span_ns: Option<u64>,
    /// The longest subgraph's span of NEFF instructions alone, ns (what `sim_span_ns`
    /// simulates).
    pub capture_neff_span_ns: Option<u64>,
    /// Executed instructions over all subgraphs and engines (the runtime's included).
    pub executed_instructions: Option<u64>,
    /// Busy time of the PE engines, the union of their instructions' intervals, summed over
    /// subgraphs (each subgraph runs on its own core), ns; the five in `EngineType` order.
    pub busy_pe_ns: Option<u64>,
    /// Busy time of the activation engines, ns.
    pub busy_act_ns: Option<u64>,
    /// Busy time of the pool engines, ns.
    pub busy_pool_ns: Option<u64>,
    /// Busy time of the DVE engines, ns.
    pub busy_dve_ns: Option<u64>,
    /// Busy time of the SP engines, ns.
    pub busy_sp_ns: Option<u64>,
    /// DMA transfers the capture recorded, over all subgraphs and queues.
    pub dma_transfers: Option<u64>,
    /// Bytes those transfers moved.
    pub dma_transfer_bytes: Option<u64>,
    /// What is odd but not an error (kbin warnings, streams with a partial trailing slot,
    /// an unreadable `info.json`).
    pub warnings: Vec<String>,
}

impl ScanRow {
    /// An empty row for `path` of `size` bytes.
    pub fn new(path: impl Into<String>, size: u64) -> Self {
        Self {
            path: path.into(),
            size,
            ..Self::default()
        }
    }

    /// Records a failure of `stage`.
    pub fn fail(&mut self, stage: Stage, message: impl Into<String>) {
        self.error_stage = Some(stage);
        self.error = Some(message.into());
    }
}
