//! The facts a raw capture states about itself (reference-ntff §1, §2): format version, the
//! software that ran, the machine, the NEFF, and per subgraph its loaded streams and trace
//! buffers. Fields the reader does not interpret are kept with their number and raw bytes.

use crate::stream::LoadedStream;
use crate::trace::TraceBuffer;

/// A capture's format version (byte 0, reference §1; seen: 4 trn1, 5 and 6 trn2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FormatVersion(pub u8);

impl FormatVersion {
    /// The versions neffkit reads.
    pub const KNOWN: [u8; 3] = [4, 5, 6];

    /// Whether trace buffers and stream bytes sit in the data area with a top-level buffer table
    /// and an execution window (v6), or per subgraph and inline (v4, v5).
    pub fn has_window(self) -> bool {
        self.0 >= 6
    }

    /// Whether the capture is of a trn1 device (v4; reference §5: the engines tick at 1.4 GHz and
    /// the DMA records use another clock).
    pub fn is_trn1(self) -> bool {
        self.0 == 4
    }
}

/// A software version (fields 8, 11, 12: {1 major, 2 minor, 3 patch, 5 git hash}).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SoftwareVersion {
    /// Field 1.
    pub major: u64,
    /// Field 2.
    pub minor: u64,
    /// Field 3.
    pub patch: u64,
    /// Field 5, when present.
    pub git_hash: Option<String>,
}

impl std::fmt::Display for SoftwareVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The execution window (field 15, v6): device time in ps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Field 1: the uuid.
    pub uuid: Vec<u8>,
    /// Field 2: T0, the origin of the vendor's timestamps.
    pub t0_ps: u64,
    /// Field 3: T1; the vendor keeps events ending at or before it.
    pub t1_ps: u64,
}

/// A DMA queue of a subgraph (field 7; the vendor's `dma_queues_info`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DmaQueueInfo {
    /// Field 1: the DMA engine id.
    pub dma_engine: u64,
    /// Field 2: the queue index.
    pub queue: u64,
    /// Field 3: the queue type (a number; the vendor prints a word for it).
    pub kind: u64,
    /// Field 4: the queue's name (`qPoolDynamic`).
    pub name: String,
}

/// One captured subgraph (a physical core; field 4.4.1).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SubgraphFacts {
    /// Field 1: `sg00`, `sg01`.
    pub name: String,
    /// Field 3: the physical core the buffer table's field 7 names (v5, v6).
    pub core: u64,
    /// Field 4 with field 5's segments: the loaded stream of each engine.
    pub streams: Vec<LoadedStream>,
    /// Field 7: the DMA queues.
    pub dma_queues: Vec<DmaQueueInfo>,
    /// Field 14 (v6): the subgraph's span in ps.
    pub span_ps: Option<u64>,
    /// Fields the reader does not interpret.
    pub unknown: Vec<UnknownField>,
}

impl SubgraphFacts {
    /// The loaded stream of `engine`.
    pub fn stream(&self, engine: neff_isa::EngineType) -> Option<&LoadedStream> {
        self.streams.iter().find(|s| s.engine == engine)
    }

    /// The name of the queue a DMA record's (`dma_engine`, `dma_queue`) names: the queue
    /// table's entry of that queue index on that engine, the table naming an engine by the
    /// records' id or by that id plus 64 (as `neff sim --compare` has always paired them).
    pub fn queue_name(&self, dma_engine: u64, queue: u64) -> Option<&str> {
        (self.dma_queues.iter())
            .find(|q| {
                q.queue == queue && (q.dma_engine == dma_engine || q.dma_engine == dma_engine + 64)
            })
            .map(|q| q.name.as_str())
    }
}

/// A metadata field the reader keeps without interpreting it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownField {
    /// Field path from the top level, dotted (`4.4.1.10`).
    pub path: String,
    /// Absolute byte offset of the field's key.
    pub offset: u64,
    /// The value: a varint's value as its little-endian bytes, or the raw payload.
    pub raw: Vec<u8>,
}

/// Everything a capture says about itself besides its trace records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaptureFacts {
    /// Byte 0.
    pub format: FormatVersion,
    /// Field 1: the NEFF's file name as the capture saw it.
    pub neff_name: String,
    /// Field 2: the NEFF's uuid bytes as written (a C string: may run past 16 bytes or stop
    /// short; reference §2).
    pub neff_uuid_raw: Vec<u8>,
    /// Field 4.5: the clean 16-byte uuid, when present.
    pub neff_uuid: Option<[u8; 16]>,
    /// Field 5: subgraphs captured.
    pub subgraph_count: Option<u64>,
    /// Field 7 (v4): capture time, unix seconds.
    pub capture_time: Option<u64>,
    /// Field 8.
    pub runtime: Option<SoftwareVersion>,
    /// Field 11.
    pub driver: Option<SoftwareVersion>,
    /// Field 12.
    pub collectives: Option<SoftwareVersion>,
    /// Field 9: `trn2.3xlarge`.
    pub instance_type: Option<String>,
    /// Field 15 (v6).
    pub window: Option<Window>,
    /// Field 4.4.1.
    pub subgraphs: Vec<SubgraphFacts>,
    /// Field 16 (v6) or each subgraph's field 6 (v4, v5), in file order.
    pub buffers: Vec<TraceBuffer>,
    /// Top-level and execution fields the reader does not interpret.
    pub unknown: Vec<UnknownField>,
}

impl CaptureFacts {
    /// The uuid bytes a NEFF must match: the clean field 4.5 when present, else the bytes of
    /// field 2 present (at most 16; reference §2).
    pub fn uuid_bytes(&self) -> &[u8] {
        match &self.neff_uuid {
            Some(u) => u,
            None => &self.neff_uuid_raw[..self.neff_uuid_raw.len().min(16)],
        }
    }

    /// Whether a NEFF whose header holds uuid `neff` is the captured one: every uuid byte the
    /// capture holds agrees.
    pub fn matches_uuid(&self, neff: &[u8; 16]) -> bool {
        let have = self.uuid_bytes();
        !have.is_empty() && neff.starts_with(have)
    }

    /// The subgraph whose physical core is `core`.
    pub fn subgraph_of_core(&self, core: u64) -> Option<usize> {
        self.subgraphs.iter().position(|s| s.core == core)
    }
}
