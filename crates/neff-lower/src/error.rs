//! Lowering errors: every one names the member, the source slot and what was expected.

use std::fmt;

use neff_isa::{ByteOffset, SlotIndex};

/// A pseudo-instruction that cannot be lowered, located at `member` slot `slot`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{member} {slot}: {kind}")]
pub struct LowerError {
    /// The engine stream's member path (e.g. `sg00/pool.bin`).
    pub member: String,
    /// The source slot index in that stream.
    pub slot: SlotIndex,
    /// What went wrong.
    pub kind: LowerErrorKind,
}

/// Why a slot could not be lowered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LowerErrorKind {
    /// The window is not whole 64-byte slots inside the stream.
    #[error("block window [{begin}, {end}) is not whole 64-byte slots of the {len:#x}-byte stream")]
    BadWindow {
        /// First byte.
        begin: ByteOffset,
        /// One past the last byte.
        end: ByteOffset,
        /// Stream length.
        len: usize,
    },
    /// A pseudo-instruction with no recipe (spec 001 §1: a missing demux arm is an error, never a
    /// silent copy).
    #[error("unsupported pseudo-instruction {opcode:#04x} ({name})")]
    Unsupported {
        /// The opcode byte.
        opcode: u8,
        /// Its name.
        name: &'static str,
    },
    /// A source slot whose inst_word_len is not 16 (spec 003 §1.1, §5 check 2).
    #[error("inst_word_len {found}, expected 16")]
    BadWordLen {
        /// The byte found.
        found: u8,
    },
    /// PSEUDO_DMA_TRIGGER with an empty queue name (spec 003 §5 validity check).
    #[error("PSEUDO_DMA_TRIGGER has an empty dma_queue_name")]
    EmptyQueueName,
    /// A queue name that def.json `dma_queue` does not declare.
    #[error("DMA queue `{queue}` is not declared in def.json dma_queue")]
    UnknownQueue {
        /// The name in the slot.
        queue: String,
    },
    /// A trigger's block id that no engine JSON `dma[]` block of the queue has.
    #[error("DMA queue `{queue}` has no block {block_id} in the engine JSON dma[]")]
    UnknownBlock {
        /// The queue.
        queue: String,
        /// The block id in the slot.
        block_id: u32,
    },
    /// A DIRECT2D whose semaphore belongs to no queue owned by the engine.
    #[error("no DMA queue owned by {engine} has semaphore {semaphore} in its semaphore_set")]
    NoQueueForSemaphore {
        /// The engine of the stream.
        engine: String,
        /// The slot's semaphore.
        semaphore: u8,
    },
    /// A DIRECT2D operand that cannot be resolved to a var.
    #[error("{operand} address: {reason}")]
    BadAddress {
        /// `src` or `dst`.
        operand: &'static str,
        /// Why.
        reason: String,
    },
    /// A collective whose update mode is not SEM_INC_COMPLETE (spec 001 §3 `require`).
    #[error("collective update mode is {found:#04x}, expected SEM_INC_COMPLETE (0x13)")]
    UpdateModeNotSemIncComplete {
        /// The update mode in the slot.
        found: u8,
    },
    /// A reduce collective with an ALU op outside mask 0x350 (ADD/MULT/MAX/MIN).
    #[error("collective reduce ALU op {alu_op:#04x} is not ADD, MULT, MAX or MIN (mask 0x350)")]
    BadReduceOp {
        /// The op byte.
        alu_op: u8,
    },
    /// A collective type with no encoder op class.
    #[error("unknown collective type {ctype:#04x}")]
    UnknownCollectiveType {
        /// The ctype byte.
        ctype: u8,
    },
    /// A chaining value outside NONE/INITIAL/BODY/FINAL.
    #[error("unknown collective chaining {chaining}")]
    BadChaining {
        /// The byte.
        chaining: u8,
    },
    /// A replica group id the kbin does not have.
    #[error("replica group {group_id} does not exist ({count} groups)")]
    UnknownReplicaGroup {
        /// The id in the slot.
        group_id: u16,
        /// How many groups there are.
        count: usize,
    },
    /// More than one CC stream ("PTC instructions only support single streams", spec 001 §3).
    #[error("PTC instructions only support single streams (cc_streams.num_streams = {streams})")]
    MultipleStreams {
        /// The stream count.
        streams: u64,
    },
    /// A 0xD9 not followed by its mandatory 0xDA extension (spec 001 §3).
    #[error(
        "PSEUDO_TRIGGER_COLLECTIVE2 (0xd9) is not followed by its PSEUDO_EXTENSION (0xda); found {found}"
    )]
    MissingPtc2Extension {
        /// What follows instead.
        found: String,
    },
    /// A 0xDA not preceded by a 0xD9 in the same block.
    #[error("PSEUDO_EXTENSION (0xda) without a preceding PSEUDO_TRIGGER_COLLECTIVE2 (0xd9)")]
    OrphanExtension,
    /// A var-addressed pseudo names a var the kbin does not have.
    #[error("var_id {var_id} is not in def.json var")]
    UnknownVar {
        /// The id in the slot.
        var_id: u32,
    },
    /// A var-addressed pseudo's offset is past the end of its var.
    #[error("offset {offset:#x} is outside var `{name}` ({size} bytes)")]
    VarOffsetOutOfRange {
        /// The var.
        name: String,
        /// The offset in the slot.
        offset: u32,
        /// The var's size.
        size: u64,
    },
    /// A resolved address that an ADDR8 immediate cannot hold (its top byte is the marker).
    #[error("address {addr:#x} does not fit an ADDR8 immediate (56 bits)")]
    AddressNotImmediate {
        /// The address.
        addr: u64,
    },
    /// A 0xD4 / 0xDA sequence that breaks the pairing rule (decision D155).
    #[error(transparent)]
    Pairing(neff_isa::continuation::PairingError),
    /// The PTC2 partition offset uses bit 25 or bits 26..31 (spec 001 §3).
    #[error("PTC2 partition offset {value:#010x} has bit 25 or bits 26..31 set")]
    BadPartitionOffset {
        /// The offset word.
        value: u32,
    },
    /// A PTC2 operand whose address marker is not a VAR_ID marker ((x & 0xFC) == 0x10).
    #[error(
        "PTC2 {operand} address marker {marker:#04x} is not a VAR_ID marker ((x & 0xfc) == 0x10)"
    )]
    BadVarIdMarker {
        /// `src0`, `src1` or `dst`.
        operand: &'static str,
        /// The marker byte.
        marker: u8,
    },
    /// A kbin target with no demux (spec 001 arch gate: 2 SUNDA, 3 CAYMAN, 4 MARIANA).
    #[error("kbin target arch {arch} has no demux: expected 2 (sunda), 3 (cayman) or 4 (mariana)")]
    UnknownArch {
        /// `kbin.target`.
        arch: u32,
    },
    /// A NEFF compiled for a newer generation than the device (decision D288).
    #[error(
        "a {target} NEFF cannot be lowered for a {device} device: only sunda input is down-translated (spec 001 §1)"
    )]
    TargetNewerThanDevice {
        /// The NEFF's target.
        target: &'static str,
        /// The device's generation.
        device: &'static str,
    },
    /// A pseudo of the v3 set on a generation or core that has no recipe for it (spec 001 §1;
    /// decision D288).
    #[error("{what} is unsupported on this generation ({device}, arch {arch}): {reason}")]
    UnsupportedOnGeneration {
        /// The pseudo (its name, or the DGE transpose family).
        what: &'static str,
        /// The opcode byte.
        opcode: u8,
        /// The device's generation.
        device: &'static str,
        /// Its arch number.
        arch: u32,
        /// Why.
        reason: &'static str,
    },
    /// A collective tensor id that resolves to no mem ref (spec 001 §3 "resolves ... mem-refs by
    /// tensor id"; decision D285).
    #[error(
        "{operand} tensor id {tensor_id} resolves to no mem ref: def.json var has no var_id {var_id} ({vars} vars)"
    )]
    UnknownTensor {
        /// `input`, `input1` or `output`.
        operand: &'static str,
        /// The id in the slot.
        tensor_id: u32,
        /// The var id that is missing (the tensor id, or where a pointer or list led).
        var_id: u32,
        /// How many vars the mem_ref_set has.
        vars: usize,
    },
    /// A `pointer` var without `referenced_var_id`.
    #[error("{operand} tensor id {tensor_id}: pointer var `{name}` has no referenced_var_id")]
    PointerWithoutTarget {
        /// `input`, `input1` or `output`.
        operand: &'static str,
        /// The id in the slot.
        tensor_id: u32,
        /// The pointer var.
        name: String,
    },
    /// `pointer` vars that refer to each other.
    #[error("{operand} tensor id {tensor_id}: pointer vars refer to each other in a cycle")]
    PointerCycle {
        /// `input`, `input1` or `output`.
        operand: &'static str,
        /// The id in the slot.
        tensor_id: u32,
    },
    /// Input and output are not both one mem ref or both lists of one length (spec 001 §3
    /// "MR-list symmetry"; decision D285).
    #[error(
        "MR-list symmetry: input tensor id {input_tensor_id} is {input} but output tensor id {output_tensor_id} is {output}"
    )]
    MrListAsymmetry {
        /// The input id.
        input_tensor_id: u32,
        /// What it resolved to.
        input: String,
        /// The output id.
        output_tensor_id: u32,
        /// What it resolved to.
        output: String,
    },
    /// A collective operand larger than its var (decision D285).
    #[error(
        "{operand} tensor id {tensor_id}: var `{name}` has {size} bytes, the collective needs {need}"
    )]
    TensorTooSmall {
        /// `input` or `output`.
        operand: &'static str,
        /// The id in the slot.
        tensor_id: u32,
        /// The var (after pointers / list entries).
        name: String,
        /// Its size.
        size: u64,
        /// Bytes the operand spans.
        need: u64,
    },
    /// A collective dtype with no element size (spec 001 §3 "computes per-element byte sizes").
    #[error("collective dtype {dtype:#04x} has no element size")]
    UnsizedDtype {
        /// The DTYPE byte.
        dtype: u8,
    },
    /// A rank-id load that is not 4 bytes (spec 001 §3 pcprid).
    #[error("PSEUDO_CUR_PROCESSING_RANK_ID loads {size} bytes; only 4-byte loads are supported")]
    RankIdSize {
        /// The size byte.
        size: u8,
    },
    /// A branch or hint to a label the function does not define.
    #[error("branch to missing label {label}")]
    MissingLabel {
        /// The label id.
        label: u32,
    },
    /// A label defined twice.
    #[error("label {label} is defined twice")]
    DuplicateLabel {
        /// The label id.
        label: u32,
    },
    /// A resolved branch offset outside 32 bits (spec 001 §2, checked at resolve).
    #[error(transparent)]
    BranchRange(#[from] neff_isa::builder::BranchRangeError),
    /// The device model cannot produce an address.
    #[error(transparent)]
    Device(#[from] crate::device::DeviceModelError),
    /// A record of the lowered stream that is not a well-formed device record.
    #[error("lowered record {0}")]
    Malformed(String),
}

impl LowerError {
    /// An error at `member` slot `slot`.
    /// `slot` is the source slot index as lowering counts it (`u64`, like the origins); a stream
    /// has at most `u32::MAX` slots (the container's member-size limit is far below 256 GiB).
    pub fn new(member: impl fmt::Display, slot: u64, kind: LowerErrorKind) -> Self {
        Self {
            member: member.to_string(),
            slot: SlotIndex(u32::try_from(slot).unwrap_or(u32::MAX)),
            kind,
        }
    }
}
