//! The output of lowering one block (the contract with image assembly): the records are appended
//! to a caller's buffer (the engine image itself during a load, spec 000 §6.1's one
//! `src_size + 0x10100` allocation), the block keeps where they landed and its side tables.

use neff_isa::SLOT_BYTES;
use std::ops::Range;

use super::collective::CollectiveOpList;
use super::direct2d::GeneratedDescriptor;
use super::image_buf::ImageBuf;
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
    /// Byte offset of the record from the block's start ([`LoweredBlock::range`]).
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
    /// Where the translated records (64 bytes each) are in the buffer the block was lowered
    /// into; every offset below is relative to `range.start`.
    pub range: Range<usize>,
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
        self.range.len() / SLOT_BYTES
    }

    /// The block's records in `buf`, the flat buffer it was lowered into.
    pub fn bytes<'b>(&self, buf: &'b [u8]) -> &'b [u8] {
        buf.get(self.range.clone()).unwrap_or(&[])
    }
}

/// Where a translator appends: the output buffer (records go at its end) and the block's side
/// tables, whose offsets are relative to `start`, the buffer length when the block began.
#[derive(Debug)]
pub struct BlockWriter<'a, 's> {
    /// The output buffer (an engine image during a load); runs of the stream `'s` may be kept
    /// as views of it (decision D830).
    pub buf: &'a mut ImageBuf<'s>,
    /// `buf.len()` when the block began.
    pub start: usize,
    /// The block's side tables.
    pub block: LoweredBlock,
}

impl<'a, 's> BlockWriter<'a, 's> {
    /// A writer appending to `buf` from its current end.
    pub fn new(buf: &'a mut ImageBuf<'s>) -> Self {
        let start = buf.len();
        Self {
            buf,
            start,
            block: LoweredBlock {
                range: start..start,
                ..LoweredBlock::default()
            },
        }
    }

    /// The owned bytes a translator appends its records to ([`ImageBuf::tail`]): offsets into
    /// it are the builders' `offset` arguments, relative to its own start; side tables take
    /// [`offset`](Self::offset).
    pub fn bytes(&mut self) -> &mut Vec<u8> {
        self.buf.tail()
    }

    /// The offset of the next record from the block's start.
    pub fn offset(&self) -> usize {
        self.buf.len() - self.start
    }

    /// The finished block, its `range` covering what was appended.
    pub fn finish(self) -> LoweredBlock {
        LoweredBlock {
            range: self.start..self.buf.len(),
            ..self.block
        }
    }
}
