//! Errors of image assembly, staging and IP translation. Each names where: the engine, the
//! function or slot, the byte offset or device address.

use neff_isa::{ByteOffset, EngineType, SlotIndex};
use thiserror::Error;

use crate::ipmap::{DeviceAddr, NeffIp};

/// An IP translation failure (spec 004 §3).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum IpError {
    /// The runtime's message for an address in neither MAIN nor FUNCTION (spec 004 §3,
    /// `kbin_patch.c`, 0x2fb4db).
    #[error("device_ip {device_ip} is out of bounds of main and function buffer")]
    OutOfBounds {
        /// The address asked about.
        device_ip: DeviceAddr,
    },
    /// The slot just before MAIN: the runtime's probe window starts at `main.base - 0x40` (spec 004
    /// §3), where its walk answers NEFF IP 0, an index no instruction has (decision D291).
    #[error(
        "device_ip {device_ip} is the slot before MAIN ({main_start}): the runtime's probe \
         starts at main.base - 0x40 and would answer NEFF IP 0 there, which is no instruction"
    )]
    BeforeMain {
        /// The address asked about.
        device_ip: DeviceAddr,
        /// MAIN's first device address.
        main_start: DeviceAddr,
    },
    /// The runtime's error for a section without patch rows (spec 004 §3, `kbin_patch.c`
    /// 0x2fb43c / 0x2fb596); neffkit maps such a section 1:1 and reports this beside the answer
    /// (decision D291).
    #[error("Failed to find section {section} in the patch list")]
    SectionNotFound {
        /// `kbin_patch_section_t` value (MAIN 2, FUNCTION 3).
        section: u32,
    },
    /// A row whose type is not INSERT/MODIFY/DELETE ("Invalid patch type %d", kbin_patch.c:0xAC).
    #[error("Invalid patch type {kind} (patch row {row})")]
    InvalidPatchType {
        /// Index of the row in the engine's list.
        row: usize,
        /// The type value found.
        kind: u32,
    },
    /// A row positioned before the end of the previous row of its section (decision D71).
    #[error("patch row {row} at offset {offset:#x} lies before the end of the previous row")]
    RowOutOfOrder {
        /// Index of the row in the engine's list.
        row: usize,
        /// Its offset.
        offset: u32,
    },
    /// A device address inside INSERTed glue that no NEFF instruction of its section follows:
    /// there is no NEFF instruction to answer (decision D71, amended).
    #[error(
        "device_ip {device_ip} is inserted glue with no following NEFF instruction in its section"
    )]
    NoNeffInstruction {
        /// The address asked about.
        device_ip: DeviceAddr,
    },
    /// A NEFF IP of no instruction of the engine (reverse map).
    #[error("NEFF IP {neff_ip} is not an instruction of this engine (IPs start at 1)")]
    NeffIpOutOfRange {
        /// The NEFF IP asked about.
        neff_ip: NeffIp,
    },
}

/// A failure to assemble or stage one engine's image (spec 000).
#[derive(Debug, Error)]
pub enum LoadError {
    /// The engine stream is not a whole number of 64-byte slots.
    #[error("{engine}: instruction stream of {len} bytes is not a multiple of 64")]
    RaggedStream {
        /// The engine.
        engine: EngineType,
        /// Its byte length.
        len: usize,
    },
    /// A 0xD3 PSEUDO_FUNCTION_CALL names no function of the engine (spec 000 §6.3 `ht_name_find`).
    #[error("{engine}: {slot} (image offset {offset}) calls unknown function {name:?}")]
    UnknownFunction {
        /// The engine.
        engine: EngineType,
        /// Source slot index (0-based) of the call.
        slot: SlotIndex,
        /// Image byte offset of the call.
        offset: ByteOffset,
        /// The name read at +12.
        name: String,
    },
    /// More functions than return registers (decision D290).
    #[error("{engine}: function {func_id} has no return register (at most {max} functions)")]
    TooManyFunctions {
        /// The engine.
        engine: EngineType,
        /// The function without a register.
        func_id: u32,
        /// How many functions have one.
        max: u32,
    },
    /// A function that reaches itself through calls: the sequencer has no stack, so its return
    /// register would be overwritten (decision D290).
    #[error(
        "{engine}: function {function:?} calls itself through a call cycle; calls do not nest into themselves"
    )]
    RecursiveCall {
        /// The engine.
        engine: EngineType,
        /// A function on the cycle.
        function: String,
    },
    /// A branch label that no 0xCC defines (decision D50).
    #[error("{engine}: image offset {offset} branches to undefined label {label}")]
    UnknownLabel {
        /// The engine.
        engine: EngineType,
        /// Image byte offset of the branch.
        offset: ByteOffset,
        /// The label id.
        label: u64,
    },
    /// A relative branch whose distance does not fit 32 bits (spec 001 §2: "Offset must be fit
    /// within 32 bits", re-checked by `ipb_postprocess_instrs`).
    #[error("{engine}: branch at image offset {offset} to {target:#x} is beyond 32-bit reach")]
    BranchOutOfReach {
        /// The engine.
        engine: EngineType,
        /// Image byte offset of the branch.
        offset: ByteOffset,
        /// Image byte offset of the target.
        target: i128,
    },
    /// The POSTAMBLE scratch overflowed (spec 000 §8.1: `assert(off <= 0x10000)`).
    #[error("{engine}: postamble of {len} bytes exceeds 0x10000")]
    PostambleTooLarge {
        /// The engine.
        engine: EngineType,
        /// Its byte length.
        len: usize,
    },
    /// The image does not fit the device model's HBM (spec 000 §8 `dmem_alloc_aligned`).
    #[error(
        "{engine}: image of {size:#x} bytes (aligned {align:#x}) does not fit device memory \
         ({free:#x} of {capacity:#x} bytes free)"
    )]
    OutOfDeviceMemory {
        /// The engine.
        engine: EngineType,
        /// Image bytes.
        size: u64,
        /// Alignment asked for.
        align: u64,
        /// Bytes still free.
        free: u64,
        /// HBM capacity of the model.
        capacity: u64,
    },
    /// The kbin does not end with SP (spec 000 §2 assert, sequencer_sunda.c:0x239).
    #[error("the last engine set up must be SP (eng_type 4), found {found}")]
    EngineOrder {
        /// The engine found last.
        found: EngineType,
    },
    /// Lowering of one block failed (the error names the member and the source slot).
    #[error("{engine}")]
    Lower {
        /// The engine.
        engine: EngineType,
        /// The lowering error.
        source: crate::lower::LowerError,
    },
    /// A label defined twice in one function (labels are function-scoped, decision D72).
    #[error("{engine}: function {function:?} defines label {label} twice")]
    DuplicateLabel {
        /// The engine.
        engine: EngineType,
        /// The function's name (empty for MAIN).
        function: String,
        /// The label id.
        label: u64,
    },
    /// A pseudo-instruction or malformed record in an assembled image (spec 001 §1 NOTE: the
    /// validator runs over the output; none may survive assembly).
    #[error("{engine}: image offset {offset}: {reason}")]
    Unlowered {
        /// The engine.
        engine: EngineType,
        /// Image byte offset of the record.
        offset: ByteOffset,
        /// What the validator found.
        reason: String,
    },
    /// The device model is inconsistent (spec 000 §8 asserts).
    #[error(transparent)]
    Device(#[from] crate::device_model::DeviceModelError),
    /// Reading the NEFF (container or manifests) failed.
    #[error("{0}")]
    Input(String),
    /// Building the IP map failed.
    #[error("{engine}")]
    Ip {
        /// The engine.
        engine: EngineType,
        /// The failure.
        source: IpError,
    },
    /// A runtime learned from a capture of another version than the rules' teaches no regions
    /// for this engine's content (decision D842).
    #[error("{subgraph}")]
    Unlearned {
        /// The subgraph (empty until the load names it).
        subgraph: String,
        /// What was not taught.
        source: Box<crate::runtime_model::Unlearned>,
    },
    /// More than one engine failed to build (issue 15 item 6): every engine's error, in set-up
    /// order, one per line with its causes (a single failure is that error itself).
    #[error("{} engines failed to load:{}", .0.len(), each_line(.0))]
    Engines(Vec<LoadError>),
}

impl LoadError {
    /// The same error, an [`LoadError::Unlearned`] one naming `subgraph`.
    pub fn in_subgraph(self, subgraph: &str) -> Self {
        match self {
            Self::Unlearned { source, .. } => Self::Unlearned {
                subgraph: subgraph.to_owned(),
                source,
            },
            e => e,
        }
    }
}

/// Each error on its own indented line, with its causes (`engine: member: slot: reason`): the
/// list is the message, so no link of a listed error's chain is lost or said twice (D301).
fn each_line(errors: &[LoadError]) -> String {
    let mut out = String::new();
    for e in errors {
        out.push_str("\n  ");
        out.push_str(&e.with_causes());
    }
    out
}

impl LoadError {
    /// The error and its causes on one line, `error: cause: cause`, as the CLI prints it.
    pub fn with_causes(&self) -> String {
        let mut out = self.to_string();
        let mut cause = std::error::Error::source(self);
        while let Some(c) = cause {
            out.push_str(": ");
            out.push_str(&c.to_string());
            cause = c.source();
        }
        out
    }
}
