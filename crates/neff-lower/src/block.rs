//! The per-block driver, `translate_pseudo_instrs_partial_v2` (spec 000 §5, spec 001 §1, §5).

use neff_isa::{ByteOffset, EngineType, SLOT_BYTES, SLOT_SHIFT};
use std::ops::Range;

use super::context::LowerContext;
use super::demux::{TranslateState, plain_run, translate_one};
use super::error::{LowerError, LowerErrorKind};
use super::image_buf::ImageBuf;
use super::lowered::{BlockWriter, LoweredBlock};
use crate::patch::{PatchSection, PatchType};
use crate::physical_core::PhysicalCore;

/// Lowers the source bytes `window` (`[kbin_begin_offset, kbin_end_offset)`) of `engine`'s
/// `stream`, a block of the function starting at `fn_start`, into a fresh buffer: the block's
/// records and its [`LoweredBlock`] (rows in `section`). A load uses [`translate_block_into`].
pub fn translate_block(
    ctx: &LowerContext<'_>,
    engine: EngineType,
    stream: &[u8],
    window: Range<usize>,
    fn_start: usize,
    section: PatchSection,
) -> Result<(Vec<u8>, LoweredBlock), LowerError> {
    let mut buf = ImageBuf::from_vec(Vec::with_capacity(window.end.saturating_sub(window.start)));
    let block = translate_block_into(ctx, engine, stream, window, fn_start, section, &mut buf)?;
    Ok((buf.into_vec(), block))
}

/// [`translate_block`] appending the records to `buf` (the engine image during a load, so each
/// pass-through run is copied once, straight from the stream to its place, spec 000 §6.1, or
/// kept as a view of the stream by a borrowing buffer, decision D830); [`LoweredBlock::range`]
/// says where they landed. On error `buf` may hold part of the block.
///
/// Per source slot: note the translated offset, demux, then 1 -> N > 1 appends INSERT(N-1),
/// 1 -> 0 appends DELETE(1), 1 -> 1 appends nothing (spec 000 §5); row offsets are relative to
/// the block's translated start. `fn_start` is the function-relative base of the runtime's
/// `v37 >> 6` slot index; lowering reports absolute stream slots, so it only checks the window.
pub fn translate_block_into<'s>(
    ctx: &LowerContext<'_>,
    engine: EngineType,
    stream: &'s [u8],
    window: Range<usize>,
    fn_start: usize,
    section: PatchSection,
    buf: &mut ImageBuf<'s>,
) -> Result<LoweredBlock, LowerError> {
    let bad = window.start > window.end
        || window.end > stream.len()
        || fn_start > window.start
        || !window.start.is_multiple_of(SLOT_BYTES)
        || !window.end.is_multiple_of(SLOT_BYTES);
    if bad {
        let kind = LowerErrorKind::BadWindow {
            begin: ByteOffset(window.start as u64),
            end: ByteOffset(window.end as u64),
            len: stream.len(),
        };
        return Err(LowerError::new(
            ctx.member(engine),
            (window.start / SLOT_BYTES) as u64,
            kind,
        ));
    }
    let mut out = BlockWriter::new(buf);
    // One origin per output record, and a block lowers to about as many records as it has
    // slots: reserved once, the list is not grown by doubling, whose freed smaller copies stay
    // resident (decision D833).
    out.block.origins.reserve_exact(window.len() / SLOT_BYTES);
    let mut state = TranslateState::default();
    // D816: where the records made are moved, from the frame core's windows they are written in.
    let mover = ctx.core.and_then(|c| PhysicalCore::FRAME.move_to(c));
    let mut at = window.start;
    while at < window.end {
        // A run of real opcodes is copied 1 -> 1 with no rows: one bulk copy, no per-slot demux.
        let run = plain_run(&stream[at..window.end]);
        if run > 0 {
            let first = (at / SLOT_BYTES) as u64;
            out.buf.push_run(&stream[at..at + run * SLOT_BYTES]);
            out.block.origins.extend(first..first + run as u64);
            state.pending_extension = false;
            at += run * SLOT_BYTES;
            continue;
        }
        let size_used = out.offset();
        let n = translate_one(ctx, engine, stream, at, &mut state, &mut out)?;
        if let Some(m) = &mover {
            // The records just made, moved to the subgraph's core (the NEFF's own slots, above,
            // are copied as they are).
            let tail = out.bytes();
            let made = tail.len().saturating_sub(n * SLOT_BYTES);
            m.words(&mut tail[made..]);
        }
        out.block
            .origins
            .extend(std::iter::repeat_n((at / SLOT_BYTES) as u64, n));
        let offset = u32::try_from(size_used).unwrap_or(u32::MAX);
        match n {
            0 => out
                .block
                .patches
                .append(offset, SLOT_BYTES as u64, PatchType::Delete, section),
            1 => {}
            n => out.block.patches.append(
                offset,
                ((n - 1) as u64) << SLOT_SHIFT,
                PatchType::Insert,
                section,
            ),
        }
        at += 64;
    }
    if state.pending_extension {
        let slot = (window.end / SLOT_BYTES) as u64;
        let found = "the end of the block".to_owned();
        return Err(LowerError::new(
            ctx.member(engine),
            slot.saturating_sub(1),
            LowerErrorKind::MissingPtc2Extension { found },
        ));
    }
    Ok(out.finish())
}
