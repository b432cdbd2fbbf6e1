//! `ib_add_one_function_to_final_buf` (spec 000 §7.1-§7.2): appends one function's translated
//! blocks to the image and carries their patch rows, rebased to the section.

use std::collections::HashMap;

use neff_isa::builder::add_nop;

use super::special::{SpecialAction, is_special, process_special_instr};
use super::{AssemblyContext, CodeRange, PlacedBlock, SLOT, TranslatedBlock};
use crate::error::LoadError;
use crate::patch::{EnginePatches, PatchLocation, PatchSection, PatchType};
use crate::program::Function;

/// State carried across functions while one image is assembled.
#[derive(Debug, Default)]
pub struct Assembly {
    /// Every block's place, in image order.
    pub placed: Vec<PlacedBlock>,
    /// `post_process`: image offsets of the deferred placeholders (§6.3).
    pub post_process: Vec<usize>,
    /// (func_id, label) -> image offset (decision D72: labels are function-scoped).
    pub labels: HashMap<(u32, u64), usize>,
    /// (func_id, image offset of the branch, label).
    pub branches: Vec<(u32, usize, u64)>,
    /// Function name -> image offset of its entry (its first block's `block_offset`).
    pub entries: HashMap<String, usize>,
}

impl Assembly {
    /// Appends function `f` (section MAIN for func_id 0, FUNCATION otherwise, §7.1 :125) to
    /// `buf`, its rows to `rows` at `image offset - rebase` (`v85 = func_id ?
    /// function_section_offset : 0`, :127-128).
    pub fn add_function(
        &mut self,
        buf: &mut Vec<u8>,
        f: &Function,
        blocks: &[TranslatedBlock],
        rows: &mut EnginePatches,
        function_section_offset: usize,
        ctx: &AssemblyContext,
    ) -> Result<(), LoadError> {
        let section = if f.func_id == 0 {
            PatchSection::Main
        } else {
            PatchSection::Funcation
        };
        let rebase = if f.func_id == 0 {
            0
        } else {
            function_section_offset
        };
        let fn_start = buf.len();
        for (block, tb) in f.blocks.iter().zip(blocks) {
            let pad_start = buf.len();
            if tb.bytes.is_empty() {
                // §7.2 :139-147: an empty block carries its rows verbatim at the cursor.
                for r in &tb.patches {
                    rows.push(PatchLocation {
                        offset: (buf.len() - rebase) as u32,
                        ..*r
                    });
                }
            } else {
                if block.requires_cache_align && ctx.cache_align > SLOT {
                    // ipb_br_label_cache_align_target (:181): NOPs up to the cache block.
                    while !buf.len().is_multiple_of(ctx.cache_align) {
                        let at = buf.len();
                        add_nop(buf, at, None);
                    }
                }
                self.copy_block(buf, tb, rows, pad_start, rebase, section);
            }
            let blk_start = if tb.bytes.is_empty() {
                buf.len()
            } else {
                buf.len() - tb.bytes.len()
            };
            for &(label, off) in &tb.labels {
                self.labels.insert((f.func_id, label), blk_start + off);
            }
            for b in &tb.branches {
                self.branches
                    .push((f.func_id, blk_start + b.offset, b.label));
            }
            self.placed.push(PlacedBlock {
                function_id: f.func_id,
                block_id: block.block_id,
                source: (block.begin, block.end),
                block_preamble_offset: CodeRange::span(pad_start, blk_start),
                block_offset: CodeRange::span(blk_start, buf.len()),
            });
        }
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

    /// Copies one non-empty block: specials handled one slot at a time, the rest bulk-copied;
    /// the padding recorded as the block's net INSERT at its start (by sign, :294-308); the
    /// block's rows and the specials' MODIFY rows merged in offset order (:265-291).
    fn copy_block(
        &mut self,
        buf: &mut Vec<u8>,
        tb: &TranslatedBlock,
        rows: &mut EnginePatches,
        pad_start: usize,
        rebase: usize,
        section: PatchSection,
    ) {
        let blk_start = buf.len();
        buf.extend_from_slice(&tb.bytes);
        let pads = blk_start - pad_start;
        let mut merged: Vec<PatchLocation> = Vec::with_capacity(tb.patches.len() + 2);
        merged.extend(tb.patches.iter().map(|r| PatchLocation {
            offset: (r.offset as usize + blk_start - rebase) as u32,
            ..*r
        }));
        for at in (blk_start..buf.len()).step_by(SLOT) {
            if is_special(buf[at])
                && process_special_instr(buf, at, &mut self.post_process) != SpecialAction::Plain
            {
                merged.push(PatchLocation {
                    offset: (at - rebase) as u32,
                    count: 1,
                    kind: PatchType::Modify,
                    section,
                });
            }
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
fn mark_function(buf: &mut [u8], start: usize) {
    let size = buf.len();
    if start + 3 < size {
        buf[start + 3] |= 1;
    }
    let mut o = start + SLOT;
    while o < size {
        buf[o + 3] |= 1;
        if o + 67 < size {
            buf[o + 67] |= 1;
        }
        o += 2 * SLOT;
    }
}
