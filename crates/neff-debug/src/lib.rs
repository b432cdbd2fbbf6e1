//! A NEFF's debug info: which BIR instruction, HLO op and source line each instruction slot comes
//! from (issue 21).
//!
//! The compiler leaves a chain of protobuf members in every NEFF, each layer's records pointing up
//! to the layer above by id (decision D230 names every field and its evidence):
//!
//! ```text
//! sgNN/debug_info_asm_<Engine>.dbg      one record per slot, in slot order  -> BIR id
//! sgNN/debug_info_backend_<Engine>.dbg  BIR instructions (name, deps, kind) -> Penguin id
//! debug_info/debug_info_penguin.dbg_*   Penguin (tensorizer) instructions   -> HLO id
//! debug_info/debug_info_hlo.dbg_*       HLO ops (text, op_type, source)     -> framework id
//! debug_info/debug_info_pttf.dbg_*      PyTorch / TensorFlow op names
//! ```
//!
//! NKI kernels compiled through KLR add `kernel_debug_info.json` and a `*.klir.debuginfo.json`
//! tree giving each BIR instruction's source line and enclosing loop iterations ([`klr`]).
//!
//! [`DebugInfo::load`] reads them all and never fails: what is absent or malformed becomes a
//! [`DebugWarning`]. [`DebugInfo::slot`] answers slot -> [`SlotDebug`].

mod asm_layer;
mod bir_rebuild;
mod debug_info;
pub mod klr;
mod layer;
mod render;
mod slot_source;
mod unknown;
mod warning;
pub mod wire;

pub use asm_layer::AsmLayer;
pub use bir_rebuild::{BLOCK, NOT_GIVEN, RebuildReport, RebuiltBir};
pub use debug_info::{BirLayer, DebugInfo, GraphDebug, KERNEL_DEBUG_INFO, Kernel, MODULE_DIR};
pub use klr::Iteration;
pub use layer::Layer;
pub use render::insert_null_json;
pub use slot_source::{BirRef, HloRef, SlotDebug, Source, slot_bir};
pub use unknown::{DeclaredTags, Kept, UnknownField, UnknownValue};
pub use warning::DebugWarning;
