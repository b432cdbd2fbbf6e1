//! The output of lowering one block (the contract with image assembly).

use super::collective::CollectiveOpList;
use super::direct2d::GeneratedDescriptor;
use super::label::{BranchFixup, Label};
use crate::patch::EnginePatches;

/// Which function marker a [`Special`] is (decision D50: left 1->1 for image assembly).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpecialKind {
    /// 0xD1 PSEUDO_FUNCTION_BEGIN.
    FunctionBegin,
    /// 0xD2 PSEUDO_FUNCTION_RETURN.
    FunctionReturn,
    /// 0xD3 PSEUDO_FUNCTION_CALL: resolved to a relative branch to the callee (spec 000 §6.3).
    FunctionCall,
    /// 0xDF PSEUDO_INST with its sub-op at +12 (1 = EXIT_EXECUTION, 2 = LIBRARY_RELOAD_INDEX).
    Inst(u8),
}

/// A placeholder record copied verbatim for image assembly (`ib_process_special_instr`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Special {
    /// Byte offset of the record in [`LoweredBlock::bytes`].
    pub offset: usize,
    /// The source slot it came from.
    pub source_slot: u64,
    /// The marker.
    pub kind: SpecialKind,
    /// The 32-byte name at +12 (function begin/call; spec 000 §6.3), or the sub-op's name.
    pub name: String,
}

/// One block's translated records and side tables (spec 000 §3 `itf_block_t`:
/// `translated_pseudo_instrs`, `post_process`, `patch_info`).
#[derive(Debug, Clone, Default)]
pub struct LoweredBlock {
    /// The translated records, 64 bytes each.
    pub bytes: Vec<u8>,
    /// INSERT/DELETE rows, offsets relative to the block's translated start, in the block's
    /// section.
    pub patches: EnginePatches,
    /// Per output record: the source slot (index in the engine stream) it came from.
    pub origins: Vec<u64>,
    /// 0xD1/0xD2/0xD3/0xDF placeholders.
    pub specials: Vec<Special>,
    /// Branches and prefetch hints to labels, to resolve once positions are known.
    pub branch_fixups: Vec<BranchFixup>,
    /// Labels consumed (0xCC): label -> translated byte offset.
    pub labels: Vec<(Label, usize)>,
    /// The collectives' ENC op lists (spec 001 §3), off-stream.
    pub op_lists: Vec<CollectiveOpList>,
    /// DMA descriptors generated from DIRECT2D slots into their queue's ring.
    pub descriptors: Vec<GeneratedDescriptor>,
}

impl LoweredBlock {
    /// Number of translated records.
    pub fn record_count(&self) -> usize {
        self.bytes.len() / 64
    }

    /// The translated record `i`.
    pub fn record(&self, i: usize) -> Option<&[u8]> {
        self.bytes.get(i * 64..i * 64 + 64)
    }
}
