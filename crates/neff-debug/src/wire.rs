//! The protobuf messages of the compiler's debug-info members, written for the schema observed on
//! the real fixtures (no schema is published; decision D230 gives the evidence for every field).
//!
//! Every layer — asm (`sgNN/debug_info_asm_<Engine>.dbg`), BIR (`sgNN/debug_info_backend_<Engine>.dbg`,
//! `_DMA`), Penguin, HLO and framework (`debug_info/debug_info_{penguin,hlo,pttf}.dbg_sgNNNNNN`) —
//! is one [`DebugFile`]: a description, the name of the layer its records point up to, and the
//! records. The stack-frame index (`debug_info/debug_info_stack_frame_index.dbg`) is a
//! [`DebugFile`] whose field 6 holds XLA's stack-frame tables.

use prost::Message;

use crate::unknown::{DeclaredTags, Kept};

/// One debug-info member (D230).
#[derive(Clone, PartialEq, Message)]
pub struct DebugFileFields {
    /// 1: what the file is, in English ("Debug info for one engine's assembly instructions...").
    #[prost(string, optional, tag = "1")]
    pub description: Option<String>,
    /// 2: the file name of the layer the records' `parents` point into
    /// (`debug_info_backend_PE.dbg` in an asm file, `debug_info_penguin.dbg` in a backend file).
    #[prost(string, optional, tag = "2")]
    pub parent_file: Option<String>,
    /// 3: the records, in file order (for asm files: slot order).
    #[prost(message, repeated, tag = "3")]
    pub records: Vec<Record>,
    /// 4: the engine of a per-engine file (PE 1, Activation 2, Pool 3, DMA 4, DVE 5, SP 6: the
    /// member names of every fixture agree).
    #[prost(uint32, optional, tag = "4")]
    pub engine_code: Option<u32>,
    /// 5: source file table; a record's `kernel_file` attribute is an index into it.
    #[prost(string, repeated, tag = "5")]
    pub kernel_files: Vec<String>,
    /// 6: XLA's stack-frame index (the stack-frame-index file only).
    #[prost(message, optional, tag = "6")]
    pub stack_frame_index: Option<StackFrameIndex>,
    /// 7: kernel name table; a record's `kernel_name` attribute is an index into it.
    #[prost(string, repeated, tag = "7")]
    pub kernel_names: Vec<String>,
}

impl DeclaredTags for DebugFileFields {
    const TAGS: &'static [u32] = &[1, 2, 3, 4, 5, 6, 7];
}

/// A debug-info member with its undeclared fields kept.
pub type DebugFile = Kept<DebugFileFields>;

/// One record of a layer: an asm slot, a BIR instruction, a Penguin, HLO or framework op (D230).
#[derive(Clone, PartialEq, Message)]
pub struct RecordFields {
    /// 1: the record's id, unique in its layer (absent = 0, proto3's default).
    #[prost(uint64, tag = "1")]
    pub id: u64,
    /// 2: its name (BIR `I-72-0`, `inst.186-wait-0`; HLO `%op0 = dot(%x, %y)`).
    #[prost(string, optional, tag = "2")]
    pub name: Option<String>,
    /// 3: ids of the records it came from, in the layer the file's `parent_file` names.
    #[prost(uint64, repeated, tag = "3")]
    pub parents: Vec<u64>,
    /// 4: ids of the same-layer records it depends on (BIR: with kinds in field 9; HLO: the
    /// operands).
    #[prost(uint64, repeated, tag = "4")]
    pub dependencies: Vec<u64>,
    /// 5: a second same-layer dependency list (BIR): the instruction's dependencies after the
    /// semaphore waits were split out (kinds in field 10; D230).
    #[prost(uint64, repeated, tag = "5")]
    pub sync_dependencies: Vec<u64>,
    /// 6: a small number (1, 2 or 3 seen) whose meaning is not known; kept, not interpreted.
    #[prost(uint64, optional, tag = "6")]
    pub tag6: Option<u64>,
    /// 7: key/value attributes (`kernel_file`, `kernel_line`, `kernel_name`, `dma_queue`,
    /// `op_type`, `source_file`, `source_line`).
    #[prost(message, repeated, tag = "7")]
    pub attributes: Vec<Attribute>,
    /// 8: an HLO op's stack frame: an id into the stack-frame index's `stack_frames` (1-based).
    #[prost(uint64, optional, tag = "8")]
    pub stack_frame: Option<u64>,
    /// 9: the BIR EdgeKind tag of each `dependencies` entry (spec 002 §5: Ordered 1 .. Flow 4).
    #[prost(uint32, repeated, tag = "9")]
    pub dependency_kinds: Vec<u32>,
    /// 10: the EdgeKind tag of each `sync_dependencies` entry.
    #[prost(uint32, repeated, tag = "10")]
    pub sync_dependency_kinds: Vec<u32>,
}

impl DeclaredTags for RecordFields {
    const TAGS: &'static [u32] = &[1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
}

/// A record with its undeclared fields kept.
pub type Record = Kept<RecordFields>;

impl RecordFields {
    /// The value of attribute `key`, if present.
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes
            .iter()
            .find(|a| a.key.as_deref() == Some(key))
            .and_then(|a| a.value.as_deref())
    }
}

/// A key/value attribute of a record (field 7).
#[derive(Clone, PartialEq, Message)]
pub struct AttributeFields {
    /// 1: the key.
    #[prost(string, optional, tag = "1")]
    pub key: Option<String>,
    /// 2: the value, always a string (numbers as decimal text); present even when empty.
    #[prost(string, optional, tag = "2")]
    pub value: Option<String>,
}

impl DeclaredTags for AttributeFields {
    const TAGS: &'static [u32] = &[1, 2];
}

/// An attribute with its undeclared fields kept.
pub type Attribute = Kept<AttributeFields>;

/// XLA's stack-frame index (field 6 of the stack-frame-index file): name tables, file locations
/// and frames, ids 1-based (D230).
#[derive(Clone, PartialEq, Message)]
pub struct StackFrameIndexFields {
    /// 1: file names.
    #[prost(string, repeated, tag = "1")]
    pub file_names: Vec<String>,
    /// 2: function names.
    #[prost(string, repeated, tag = "2")]
    pub function_names: Vec<String>,
    /// 3: file locations.
    #[prost(message, repeated, tag = "3")]
    pub file_locations: Vec<FileLocation>,
    /// 4: frames.
    #[prost(message, repeated, tag = "4")]
    pub stack_frames: Vec<StackFrame>,
}

impl DeclaredTags for StackFrameIndexFields {
    const TAGS: &'static [u32] = &[1, 2, 3, 4];
}

/// The stack-frame index with its undeclared fields kept.
pub type StackFrameIndex = Kept<StackFrameIndexFields>;

/// A file location of the stack-frame index.
#[derive(Clone, PartialEq, Message)]
pub struct FileLocationFields {
    /// 1: 1-based index into `file_names`.
    #[prost(uint64, tag = "1")]
    pub file_name_id: u64,
    /// 2: 1-based index into `function_names`.
    #[prost(uint64, tag = "2")]
    pub function_name_id: u64,
    /// 3: the line.
    #[prost(uint64, tag = "3")]
    pub line: u64,
}

impl DeclaredTags for FileLocationFields {
    const TAGS: &'static [u32] = &[1, 2, 3];
}

/// A file location with its undeclared fields kept.
pub type FileLocation = Kept<FileLocationFields>;

/// A frame of the stack-frame index.
#[derive(Clone, PartialEq, Message)]
pub struct StackFrameFields {
    /// 1: 1-based index into `file_locations`.
    #[prost(uint64, tag = "1")]
    pub file_location_id: u64,
    /// 2: 1-based index of the calling frame (0: outermost).
    #[prost(uint64, tag = "2")]
    pub parent_frame_id: u64,
}

impl DeclaredTags for StackFrameFields {
    const TAGS: &'static [u32] = &[1, 2];
}

/// A frame with its undeclared fields kept.
pub type StackFrame = Kept<StackFrameFields>;

/// Decodes one debug-info member.
pub fn decode(bytes: &[u8]) -> Result<DebugFile, prost::DecodeError> {
    DebugFile::decode(bytes)
}
