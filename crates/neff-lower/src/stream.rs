//! Lowering a whole engine stream as one block: what `neff lower` shows before image assembly
//! splits functions (spec 000 §4 for a stream that is only MAIN). Labels resolve with the one
//! resolver ([`crate::resolve_branch_fixups`], image assembly's too) over the whole stream; the D50 placeholders remain.

use neff_isa::{EngineType, SLOT_BYTES};

use super::block::translate_block_into;
use super::check::check_lowered_buf;
use super::context::LowerContext;
use super::error::{LowerError, LowerErrorKind};
use super::image_buf::ImageBuf;
use super::lowered::LoweredBlock;
use crate::label_fixup::{LabelFixupError, resolve_branch_fixups};
use crate::patch::PatchSection;

/// A stream lowered whole, with its label fix-ups resolved. Its runs of real opcodes are views
/// of the source stream `'s`, not copies (decision D830): `neff lower` of a 10 MB stream holds
/// its text's records, not a second 10 MB.
#[derive(Debug, Clone)]
pub struct LoweredStream<'s> {
    /// The engine.
    pub engine: EngineType,
    /// The translated records, 64 bytes each (`block.range` is all of it).
    pub bytes: ImageBuf<'s>,
    /// The lowered block (all of the stream).
    pub block: LoweredBlock,
}

impl LoweredStream<'_> {
    /// The translated record `i`.
    pub fn record(&self, i: usize) -> Option<&[u8]> {
        self.bytes.record(i.checked_mul(SLOT_BYTES)?)
    }

    /// The translated records in order, 64 bytes each.
    pub fn records(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.bytes.parts().flat_map(|p| p.chunks_exact(SLOT_BYTES))
    }
}

/// Lowers all of `stream` as MAIN, resolves its branch fix-ups against its labels and runs the
/// lowered-stream check; an error names the member and the source slot.
pub fn lower_stream<'s>(
    ctx: &LowerContext<'_>,
    engine: EngineType,
    stream: &'s [u8],
) -> Result<LoweredStream<'s>, LowerError> {
    let whole = stream.len() - stream.len() % SLOT_BYTES;
    let mut bytes = ImageBuf::borrowing();
    let block = translate_block_into(
        ctx,
        engine,
        stream,
        0..whole,
        0,
        PatchSection::Main,
        &mut bytes,
    )?;
    let member = ctx.member(engine);
    resolve_branch_fixups(&mut bytes, &block.branch_fixups, &block.labels).map_err(
        |e| match e {
            LabelFixupError::Missing(f) => {
                let kind = LowerErrorKind::MissingLabel { label: f.label };
                LowerError::new(member, f.source_slot, kind)
            }
            LabelFixupError::OutOfReach { fixup, source, .. } => {
                LowerError::new(member, fixup.source_slot, source.into())
            }
        },
    )?;
    check_lowered_buf(&bytes, true).map_err(|(i, kind)| {
        let slot = block.origins.get(i).copied().unwrap_or(0);
        LowerError::new(member, slot, kind)
    })?;
    Ok(LoweredStream {
        engine,
        bytes,
        block,
    })
}
