//! Typed payload views, one file per spec struct family. Each file declares its field list once
//! with `view!`: that list is both the [`crate::layout::Layout`] the opcode table points
//! at and a zero-copy view with one getter per field. Offsets are those of the 8-byte events
//! dialect (decision D2).

use crate::layout::Layout;

mod alu;
mod branch;
mod collective;
mod copy_cast;
mod direct2d;
mod dma_trigger;
mod event_semaphore;
mod extension;
mod function;
mod pseudo_inst;
mod tensor_tensor;

pub use alu::{ALU_OP, AluOpInst};
pub use branch::{BRANCH_HINT, BranchHint, COMPARE_BRANCH, CompareBranch};
pub use collective::{TRIGGER_COLLECTIVE, TriggerCollective};
pub use copy_cast::{COPY_CAST, CopyCast};
pub use direct2d::{DMA_DIRECT2D, DmaDirect2d};
pub use dma_trigger::{DMA_TRIGGER, DMA_TRIGGER_LEGACY, DmaTrigger};
pub use event_semaphore::{EVENT_SEMAPHORE, EventSemaphore};
pub use extension::{EXTENSION, Extension};
pub use function::{FUNCTION_NAME, FunctionName};
pub use pseudo_inst::{PSEUDO_INST, PSEUDO_INST_OP, PseudoInst, PseudoInstOp};
pub use tensor_tensor::{TENSOR_TENSOR, TensorTensor};

/// The layout of every opcode without a typed payload: header and events only; the payload bytes
/// are printed losslessly as raw overlays (spec 003 §1.3: "the per-opcode payload fills to 64 B").
pub static GENERIC: Layout = Layout {
    name: "generic",
    fields: &[],
};

/// Real slot bytes from the reference, shared by tests across modules.
#[cfg(test)]
pub(crate) mod tests_support {
    pub(crate) use super::direct2d::tests::POOL_SLOT2 as POOL_DIRECT2D;
    pub(crate) use super::tensor_tensor::tests::DVE_SLOT1;
}
