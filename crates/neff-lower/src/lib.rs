//! Pseudo-instruction lowering (spec 001; spec 000 §4-§5): every pseudo slot of an engine stream
//! becomes the concrete device records the runtime would emit, with the IP-delta patch rows that
//! keep device IPs mappable to NEFF IPs.
//!
//! The pass is the spec's kit: [`translate_block`] (`translate_pseudo_instrs_partial_v2`) walks a
//! block's 64-byte source slots, hands each to the demux [`translate_one`]
//! (`translate_one_pseudo_instr_v2`), whose arms are recipes of the neff-isa builders
//! ([`neff_isa::builder`]) all ending in `add_ins`; a slot that becomes N != 1 records appends an
//! INSERT(N-1) or DELETE(1) row (spec 000 §5).
//!
//! The crate sits below neff-load (spec 000's image assembly, staging and IP maps), which
//! depends on it; it reads the device through [`LowerDevice`], which neff-load's `DeviceModel`
//! implements, and owns the kbin patch rows ([`patch`]) that lowering starts and assembly
//! extends (decision D560).
//!
//! Contract with image assembly (`neff_load::image`): [`translate_block_into`] appends the
//! translated records to the caller's [`ImageBuf`] (the engine image, which may keep runs of real
//! opcodes as views of the stream: decision D830) and returns a [`LoweredBlock`]
//! whose `range` says where they are, `patches` the block's rows (offsets
//! relative to the block's translated start), `origins` the source slot of every output record,
//! `specials` the 0xD1/0xD2/0xD3/0xDF placeholders left for assembly, `branch_fixups` and `labels`
//! for the label pass (resolved by [`resolve_branch_fixups`], image assembly's resolver too), and `op_lists` the collectives' ENC plans.

mod arch;
mod block;
mod check;
mod collective;
mod context;
mod demux;
pub mod device;
mod direct2d;
mod dma_trigger;
mod error;
mod image_buf;
mod label;
mod label_fixup;
mod lowered;
mod mem_ref;
pub mod patch;
pub mod physical_core;
mod pseudo;
mod resources;
pub mod runtime_dma;
mod special;
mod stream;
mod sync_pseudo;
mod tensor_access;
mod var_address;

pub use arch::{ArchGate, Demux};
pub use block::{translate_block, translate_block_into};
pub use check::{check_lowered, check_lowered_buf};
pub use collective::{
    CollectiveOpList, EncOp, EncOpClass, InstrChaining, REDUCE_OPS, input_scaled, output_scaled,
};
pub use context::{LowerContext, LowerOptions};
pub use demux::{TranslateState, Translated, translate_one};
pub use device::{DeviceModelError, Direct2dForm, LowerDevice, StaticTriggerForm};
pub use direct2d::{DescriptorEnd, GeneratedDescriptor};
pub use error::{LowerError, LowerErrorKind};
pub use image_buf::{BORROW_MIN, ImageBuf};
pub use label::{BranchFixup, FixupKind, Label};
pub use label_fixup::{LabelFixupError, resolve_branch_fixups};
pub use lowered::{BlockWriter, LoweredBlock, Special, SpecialKind};
pub use mem_ref::ResolvedTensor;
pub use patch::{EnginePatches, PatchSection, PatchType};
pub use pseudo::{PLACEHOLDERS, is_placeholder};
pub use resources::{
    BlockIndex, DATA_QUEUE, DYNAMIC_QUEUE, IN_QUEUE, LowerBlock, LowerQueue, LowerResources,
    LowerVar,
};
pub use stream::{LoweredStream, lower_stream};
