//! `ib_add_one_function_to_final_buf` (spec 000 §7.1-§7.2): appends one function's lowered
//! blocks to the image, carries their patch rows rebased to the section, and resolves the
//! function's label branches once its blocks are placed (decision D50).

use std::collections::HashMap;

use neff_isa::builder::add_nop;
use neff_isa::{EngineType, SLOT_BYTES};

use super::call::CallSites;
use super::fixup::resolve_function_labels;
use super::special::{or_debug, process_special_instr};
use super::{AssemblyContext, CodeRange, PlacedBlock};
use crate::error::LoadError;
use crate::lower::{BranchFixup, ImageBuf, Label, LoweredBlock, Special, SpecialKind};
use crate::patch::{EnginePatches, PatchLocation, PatchSection, PatchType};
use crate::program::{Block, Function};

/// Lowers one block of a function, appending its records to the image buffer (spec 000 §4
/// `translate_pseudo_instrs_partial_v2` per block; `setup_block` during a [`crate::load`]),
/// which may keep runs of the engine stream `'s` as views (decision D830).
pub type LowerBlockFn<'a, 's> =
    dyn FnMut(&Function, &Block, &mut ImageBuf<'s>) -> Result<LoweredBlock, LoadError> + 'a;

/// State carried across functions while one image is assembled.
#[derive(Debug, Default)]
pub struct Assembly {
    /// Every block's place, in image order.
    pub placed: Vec<PlacedBlock>,
    /// `post_process`: the deferred placeholders (§6.3) with their image offsets.
    pub post_process: Vec<(usize, Special)>,
    /// Function name -> image offset of its entry (its first block's `block_offset`).
    pub entries: HashMap<String, usize>,
    /// Calls and returns, for the return-address mechanism (decision D290).
    pub calls: CallSites,
}

impl Assembly {
    /// Appends function `f` (section MAIN for func_id 0, FUNCATION otherwise, §7.1 :125) to
    /// `buf`, lowering each block straight into it with `lower` (spec 000 §4 + §7.2: the block's
    /// records are written once, in place), its rows to `rows` at `image offset - rebase`
    /// (`v85 = func_id ? function_section_offset : 0`, :127-128); then resolves its label
    /// branches.
    #[allow(clippy::too_many_arguments)] // the runtime function's inputs, each used once
    pub fn add_function<'s>(
        &mut self,
        engine: EngineType,
        buf: &mut ImageBuf<'s>,
        f: &Function,
        lower: &mut LowerBlockFn<'_, 's>,
        rows: &mut EnginePatches,
        function_section_offset: usize,
        ctx: &AssemblyContext,
    ) -> Result<(), LoadError> {
        let rebase = if f.func_id == 0 {
            0
        } else {
            function_section_offset
        };
        let fn_start = buf.len();
        let mut labels: Vec<(Label, usize)> = Vec::new();
        let mut fixups: Vec<BranchFixup> = Vec::new();
        for block in &f.blocks {
            let pad_start = buf.len();
            if block.requires_cache_align && ctx.cache_align > SLOT_BYTES {
                // ipb_br_label_cache_align_target (:181): NOPs up to the cache block; taken back
                // below if the block lowers to nothing (an empty block is never padded).
                while !buf.len().is_multiple_of(ctx.cache_align) {
                    let tail = buf.tail();
                    let at = tail.len();
                    add_nop(tail, at, None);
                }
            }
            let mut lb = lower(f, block, buf)?;
            if lb.range.is_empty() {
                buf.truncate(pad_start);
                lb.range = pad_start..pad_start;
                // §7.2 :139-147: an empty block carries its rows verbatim at the cursor.
                for r in lb.patches.locations() {
                    rows.push(PatchLocation {
                        offset: (buf.len() - rebase) as u32,
                        ..*r
                    });
                }
            } else {
                self.place_block(buf, &lb, rows, pad_start, rebase, f.func_id);
            }
            let blk_start = lb.range.start;
            for &(label, off) in &lb.labels {
                if labels.iter().any(|(l, _)| *l == label) {
                    return Err(LoadError::DuplicateLabel {
                        engine,
                        function: f.name.clone(),
                        label: u64::from(label),
                    });
                }
                labels.push((label, blk_start + off));
            }
            fixups.extend(lb.branch_fixups.iter().map(|b| BranchFixup {
                offset: blk_start + b.offset,
                ..*b
            }));
            self.placed.push(PlacedBlock {
                function_id: f.func_id,
                block_id: block.block_id,
                source: (block.begin, block.end),
                block_preamble_offset: CodeRange::span(pad_start, blk_start),
                block_offset: CodeRange::span(blk_start, buf.len()),
            });
        }
        // Labels are function-scoped (decision D72); every position is final now.
        resolve_function_labels(engine, buf, &fixups, &labels)?;
        if f.func_id != 0 {
            self.entries
                .insert(f.name.clone(), self.entry_of(f.func_id).unwrap_or(fn_start));
            mark_function(buf, fn_start);
        }
        Ok(())
    }

    /// The image offset of a function's first block (`block_offset.offset`, itf_block_t +176).
    fn entry_of(&self, func_id: u32) -> Option<usize> {
        self.placed
            .iter()
            .find(|p| p.function_id == func_id)
            .map(|p| p.block_offset.offset as usize)
    }

    /// Places one non-empty block already lowered into `buf` at `lb.range`: the placeholders
    /// lowering listed handled one slot at a time; the padding recorded as the block's net INSERT
    /// at its start (by sign, :294-308); the block's rows and the placeholders' MODIFY rows merged
    /// in offset order (:265-291). A call (the block's last slot, decision D70) gets its
    /// return-address slot inserted before it, with an INSERT row there (decision D290).
    fn place_block(
        &mut self,
        buf: &mut ImageBuf<'_>,
        lb: &LoweredBlock,
        rows: &mut EnginePatches,
        pad_start: usize,
        rebase: usize,
        func_id: u32,
    ) {
        let section = if func_id == 0 {
            PatchSection::Main
        } else {
            PatchSection::Function
        };
        let blk_start = lb.range.start;
        let pads = blk_start - pad_start;
        let mut merged: Vec<PatchLocation> =
            Vec::with_capacity(lb.patches.locations().len() + lb.specials.len() + 1);
        merged.extend(lb.patches.locations().iter().map(|r| PatchLocation {
            offset: (r.offset as usize + blk_start - rebase) as u32,
            ..*r
        }));
        let row = |at: usize, kind| PatchLocation {
            offset: (at - rebase) as u32,
            count: 1,
            kind,
            section,
        };
        for sp in &lb.specials {
            let mut at = blk_start + sp.offset;
            match sp.kind {
                SpecialKind::FunctionCall => {
                    // The INSERT source of spec 000 §7.3: the return-address slot, filled by the
                    // §6.3 pass once the callee's return is placed.
                    buf.insert_zeroed_record(at);
                    merged.push(row(at, PatchType::Insert));
                    at += SLOT_BYTES;
                    self.calls.calls.push((func_id, sp.name.clone()));
                }
                SpecialKind::FunctionReturn if func_id != 0 => {
                    self.calls.first_return.entry(func_id).or_insert(at);
                    self.calls.return_owner.insert(at, func_id);
                }
                _ => {}
            }
            process_special_instr(buf, at, sp, &mut self.post_process);
            merged.push(row(at, PatchType::Modify));
        }
        merged.sort_by_key(|r| r.offset); // stable: a label's DELETE stays before a MODIFY
        rows.append(
            (pad_start - rebase) as u32,
            pads as u64,
            PatchType::Insert,
            section,
        );
        for r in merged {
            rows.push(r);
        }
    }
}

/// For func_id != 0 (spec 000 §7.2 :432-455): the function-entry marker (`+3 |= 1`) and the
/// stride-128 OR pass over the rest of the function.
fn mark_function(buf: &mut ImageBuf<'_>, start: usize) {
    let size = buf.len();
    if start + 3 < size {
        or_debug(buf, start, 1);
    }
    let mut o = start + SLOT_BYTES;
    while o < size {
        or_debug(buf, o, 1);
        if o + 67 < size {
            or_debug(buf, o + SLOT_BYTES, 1);
        }
        o += 2 * SLOT_BYTES;
    }
}
