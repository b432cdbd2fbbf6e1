//! Typed payload views, one file per spec struct family. Each file declares its field list once
//! with `view!`: that list is both the [`crate::layout::Layout`] the opcode table points
//! at and a zero-copy view with one getter per field. Offsets are those of the 8-byte events
//! dialect (decision D2). Each view also declares a writer (`*Mut`) with one setter per field: the
//! micro-op builders ([`crate::builder`]) place every payload byte through it, so a builder
//! record and the view that prints it share one definition (decisions D10, D52).

use crate::layout::Layout;
mod activate;
mod affine_select;
mod alu;
mod branch;
mod collective;
mod copy_cast;
mod direct2d;
mod dma_extension;
mod dma_trigger;
mod event_semaphore;
mod extension;
mod function;
mod label;
mod memory;
mod memset;
mod move_reg;
mod nop;
mod notify;
mod ordering;
mod pe;
mod poll_sem;
mod pseudo_inst;
mod range_clear;
mod rank_ids;
mod sync_pseudo;
mod tensor_load_pseudo;
mod tensor_reduce;
mod tensor_scalar;
mod tensor_tensor;
mod trigger_collective2;
mod write;

pub use activate::{
    ACT_TABLE_LOAD, ACTIVATE, ActTableLoad, ActTableLoadMut, Activate, ActivateMut,
};
pub use affine_select::{AFFINE_SELECT, AffineSelect, AffineSelectMut};
pub use alu::{ALU_OP, AluOpInst, AluOpMut};
pub use branch::{
    BRANCH_HINT, BranchHint, BranchHintMut, COMPARE_BRANCH, CompareBranch, CompareBranchMut,
};
pub use collective::{TRIGGER_COLLECTIVE, TriggerCollective, TriggerCollectiveMut};
pub use copy_cast::{COPY_CAST, CopyCast, CopyCastMut};
pub use direct2d::{DGE_OP, DMA_DIRECT2D, DgeOp, DmaDirect2d, DmaDirect2dMut};
pub use dma_extension::{DMA_EXTENSION, DmaExtension, DmaExtensionMut};
pub use dma_trigger::{DMA_TRIGGER, DMA_TRIGGER_LEGACY, DmaTrigger, DmaTriggerMut};
pub use event_semaphore::{EVENT_SEMAPHORE, EventSemaphore, EventSemaphoreMut};
pub use extension::{EXTENSION, Extension, ExtensionMut};
pub use function::{FUNCTION_NAME, FunctionName, FunctionNameMut};
pub use label::{BRANCH_LABEL, BranchLabel, BranchLabelMut};
pub use memory::{ADDR8_MARKER_ADDR_REG, MEM_2D, MEM_2D_DATA_WORDS, Mem2d, Mem2dMut};
pub use memset::{MEMSET, Memset, MemsetMut};
pub use move_reg::{MOVE, MoveReg, MoveRegMut};
pub use nop::{NOP, Nop, NopMut};
pub use notify::{NOTIFY, Notify, NotifyMut};
pub use ordering::{SET_ORDERING_MODE, SetOrderingMode, SetOrderingModeMut};
pub use pe::{LDWEIGHTS, LdWeights, LdWeightsMut, MATMUL, Matmul, MatmulMut};
pub use poll_sem::{POLL_SEM, PollSem, PollSemMut};
pub use pseudo_inst::{PSEUDO_INST, PSEUDO_INST_OP, PseudoInst, PseudoInstMut, PseudoInstOp};
pub use range_clear::{RANGE_CLEAR, RangeClear, RangeClearMut};
pub use rank_ids::{
    CUR_PROCESSING_RANK_ID, CurProcessingRankId, CurProcessingRankIdMut, GID_LOAD, GidLoad,
    GidLoadMut,
};
pub use sync_pseudo::{
    SEMAPHORE_SET, SYNC_BARRIER, SemaphoreSet, SemaphoreSetMut, SyncBarrier, SyncBarrierMut,
};
pub use tensor_load_pseudo::{TENSOR_LOAD_PSEUDO, TensorLoadPseudo, TensorLoadPseudoMut};
pub use tensor_reduce::{TENSOR_REDUCE, TensorReduce, TensorReduceMut};
pub use tensor_scalar::{TENSOR_SCALAR, TensorScalar, TensorScalarMut};
pub use tensor_tensor::{TENSOR_TENSOR, TensorTensor, TensorTensorMut};
pub use trigger_collective2::{
    Ptc2Operand, TRIGGER_COLLECTIVE2, TriggerCollective2, TriggerCollective2Mut,
};
pub use write::{RegWrite, RegWriteMut, WRITE};

/// The layout of every opcode without a typed payload: header and events only; the payload bytes
/// are printed losslessly as raw overlays (spec 003 §1.3: "the per-opcode payload fills to 64 B").
pub static GENERIC: Layout = Layout {
    name: "generic",
    fields: &[],
    text_plan: crate::text::PlanCell::new(),
};

/// Real slot bytes from the reference, shared by tests across modules.
#[cfg(test)]
pub(crate) mod tests_support {
    pub(crate) use super::direct2d::tests::POOL_SLOT2 as POOL_DIRECT2D;
    pub(crate) use super::tensor_tensor::tests::DVE_SLOT1;
}

#[cfg(test)]
mod tensor_getter_tests {
    use super::*;
    use crate::layout::{FieldValue, Tensor};
    use crate::slot::Slot;

    /// Every `TENSOR{N}D` getter reads at its declared offset (D826); the value must be what the
    /// field list reads for that name (the path the getters took before), on arbitrary bytes.
    #[test]
    fn tensor_getters_read_what_the_field_list_reads() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            let mut b = [0u8; 64];
            for c in b.chunks_mut(8) {
                // SplitMix64 step, enough to cover every byte and nibble value.
                x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
                let mut z = x;
                z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
                c.copy_from_slice(&(z ^ (z >> 31)).to_le_bytes());
            }
            let s = Slot::new(&b);
            let by_name = |f: FieldValue| match f {
                FieldValue::Tensor(t) => t,
                _ => Tensor::default(),
            };
            let pairs: [(Tensor, FieldValue); 17] = [
                (Activate(s).src(), Activate(s).field("src")),
                (Activate(s).dst(), Activate(s).field("dst")),
                (AffineSelect(s).src(), AffineSelect(s).field("src")),
                (AffineSelect(s).dst(), AffineSelect(s).field("dst")),
                (CopyCast(s).src(), CopyCast(s).field("src")),
                (CopyCast(s).dst(), CopyCast(s).field("dst")),
                (Memset(s).dst(), Memset(s).field("dst")),
                (LdWeights(s).src(), LdWeights(s).field("src")),
                (Matmul(s).src(), Matmul(s).field("src")),
                (Matmul(s).dst(), Matmul(s).field("dst")),
                (TensorReduce(s).src(), TensorReduce(s).field("src")),
                (TensorReduce(s).dst(), TensorReduce(s).field("dst")),
                (TensorScalar(s).src(), TensorScalar(s).field("src")),
                (TensorScalar(s).dst(), TensorScalar(s).field("dst")),
                (TensorTensor(s).src0(), TensorTensor(s).field("src0")),
                (TensorTensor(s).src1(), TensorTensor(s).field("src1")),
                (TensorTensor(s).dst(), TensorTensor(s).field("dst")),
            ];
            for (i, (got, want)) in pairs.into_iter().enumerate() {
                assert_eq!(got, by_name(want), "getter {i} on {b:02x?}");
            }
        }
    }
}
