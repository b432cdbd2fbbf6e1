//! One engine's regions as one captured stream shows them (decision D463): the PREAMBLE
//! (MODEL_SWITCH inside) and POSTAMBLE bytes, read from the stream by its segments and branches
//! (decision D840), never at positions another runtime version had them.

use std::fmt;
use std::ops::Range;

use neff_isa::payload::{CompareBranch, CompareBranchMut};
use neff_isa::{EngineType, SLOT_BYTES, Slot, SlotBuf};

use super::learned::LearnError;
use super::queue_block::{self, StaticQueue};
use super::stream::CapturedStream;
use super::{RuntimeContent, table_queue};
use crate::physical_core::PhysicalCore;

/// What of a subgraph decides an engine's regions (decision D464): its table sets, the DGE
/// table, and the static (not `dynamic`) DMA queues it owns — the three facts that change the
/// regions' length across the seven shared captures.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VariantKey {
    /// Whether the engine loads tables: Activation's function sets, DVE's tables (D467: their
    /// number does not change the regions).
    pub tables: bool,
    /// Whether the subgraph has a `dge-table` var.
    pub dge_table: bool,
    /// The static queues the engine owns.
    pub static_queues: u8,
    /// Of them, the `data` queues.
    pub data_queues: u8,
}

impl VariantKey {
    /// The key of `engine` in a subgraph with `content`.
    pub fn of(engine: EngineType, content: &RuntimeContent) -> Self {
        Self {
            tables: super::rules::table_load(engine, content),
            dge_table: content.dge_table,
            static_queues: content.static_queues[engine.index()],
            data_queues: content.data_queues[engine.index()],
        }
    }
}

impl fmt::Display for VariantKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let yes = |b: bool| if b { "yes" } else { "no" };
        write!(
            f,
            "tables {}, DGE table {}, {} static queue(s) ({} data)",
            yes(self.tables),
            yes(self.dge_table),
            self.static_queues,
            self.data_queues
        )
    }
}

/// Which of the rules that rewrite PREAMBLE data words for the loaded NEFF the teacher's own
/// regions follow (decision D841): a rule is applied only where, applied to the teacher's own
/// content, it changes none of the teacher's words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Confirmed {
    /// The DGE queue masks (decision D770).
    pub masks: bool,
    /// The two queue-14 DMA counts (decision D771).
    pub counts: bool,
}

impl Confirmed {
    /// Both rules hold on every stream seen with one key.
    pub fn and(self, other: Self) -> Self {
        Self {
            masks: self.masks && other.masks,
            counts: self.counts && other.counts,
        }
    }
}

/// The teacher's block of its engine's static queue (decision D840): where it sits in the
/// learned regions, found by its registers, not at a fixed slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeacherQueueBlock {
    /// The queue, as the teacher's NEFF describes it.
    pub queue: StaticQueue,
    /// The block's PREAMBLE slots.
    pub preamble: Range<usize>,
    /// The block's POSTAMBLE slots.
    pub postamble: Range<usize>,
    /// Whether [`queue_block`]'s builder makes this very block for this queue (its slots,
    /// opcodes and registers, decision D840).
    pub builder_confirmed: bool,
    /// Whether the regions with the block cut out have the opcodes of the teacher's stream of
    /// the same engine without a static queue (before the program start, and the POSTAMBLE);
    /// `None` when the teacher has no such stream (decision D844).
    pub cut_confirmed: Option<bool>,
}

/// One engine's regions as one capture shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LearnedVariant {
    /// The engine.
    pub engine: EngineType,
    /// The subgraph of the capture the regions were read from.
    pub subgraph: String,
    /// The content they were seen with.
    pub key: VariantKey,
    /// The PREAMBLE bytes.
    pub preamble: Vec<u8>,
    /// The slot the POSTAMBLE branches back to.
    pub program_start: usize,
    /// The slots the run-word branch skips.
    pub model_switch: Range<usize>,
    /// The POSTAMBLE bytes (its last slot the branch back, re-aimed by [`Self::postamble_at`]).
    pub postamble: Vec<u8>,
    /// The teacher's static-queue block, when the engine owns one queue and its block is found.
    pub queue_block: Option<TeacherQueueBlock>,
    /// The data-word rules the teacher's regions follow.
    pub confirmed: Confirmed,
    /// The engine's table sets in every stream seen with this key and these lengths (decision
    /// D844: two different counts of one length show the count does not change the regions).
    pub table_sets: Vec<usize>,
}

/// Where a static queue's blocks go in regions that lack them (decision D840): the PREAMBLE
/// slot the block starts at, and how many POSTAMBLE slots follow its POSTAMBLE block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QueuePlace {
    /// The PREAMBLE slot.
    pub preamble_at: usize,
    /// POSTAMBLE slots after the block.
    pub postamble_tail: usize,
}

/// Runtime 2.30.51's place (decision D468): PREAMBLE slot 2 (after the first NOTIFY and its
/// neighbour), before the POSTAMBLE's last two slots (NOTIFY DONE and the branch back) — Pool
/// and SP of moe_v6b and moe_megakernel, DVE of attn_v6.
pub const RULES_QUEUE_PLACE: QueuePlace = QueuePlace {
    preamble_at: 2,
    postamble_tail: 2,
};

/// The opcode of every slot.
/// The opcode of each slot of `bytes`: what every form derived from another must keep.
pub(crate) fn opcodes(bytes: &[u8]) -> impl Iterator<Item = u8> + '_ {
    bytes.chunks_exact(SLOT_BYTES).map(|s| s[0])
}

fn slots(bytes: &[u8]) -> usize {
    bytes.len() / SLOT_BYTES
}

fn shift(r: &Range<usize>, by: isize) -> Range<usize> {
    r.start.saturating_add_signed(by)..r.end.saturating_add_signed(by)
}

impl LearnedVariant {
    /// The same regions without the engine's static-queue blocks (decisions D468, D840): the
    /// teacher's located block cut from both regions; `None` when no block was located.
    pub fn without_static_queues(&self) -> Option<Self> {
        let b = self.queue_block.as_ref()?;
        let pre_n = b.preamble.len();
        let mut preamble = self.preamble.clone();
        preamble.drain(b.preamble.start * SLOT_BYTES..b.preamble.end * SLOT_BYTES);
        let mut postamble = self.postamble.clone();
        postamble.drain(b.postamble.start * SLOT_BYTES..b.postamble.end * SLOT_BYTES);
        let back = -(pre_n as isize);
        Some(Self {
            key: VariantKey {
                static_queues: 0,
                data_queues: 0,
                ..self.key
            },
            preamble,
            program_start: self.program_start - pre_n,
            model_switch: shift(&self.model_switch, back),
            postamble,
            queue_block: None,
            ..self.clone()
        })
    }

    /// The same regions with the blocks of queues `qs` put in at `place` (decision D582), the
    /// inverse of [`Self::without_static_queues`]; ring addresses placed in the window from
    /// `window_start`. Several queues' blocks go one after the other in `qs`'s order (def.json's,
    /// decision D857), in both regions. `None` when the regions already have static queues, when
    /// `qs` is empty, or when the regions are too short.
    pub fn with_static_queues(
        &self,
        window_start: u64,
        qs: &[StaticQueue],
        place: QueuePlace,
    ) -> Option<Self> {
        let post_len = slots(&self.postamble);
        if self.key.static_queues != 0
            || qs.is_empty()
            || place.preamble_at > self.program_start
            || post_len < place.postamble_tail
        {
            return None;
        }
        let pre_block: Vec<u8> = qs
            .iter()
            .flat_map(|q| queue_block::preamble_block(window_start, q))
            .collect();
        let n = slots(&pre_block);
        let at = place.preamble_at * SLOT_BYTES;
        let mut preamble = self.preamble.clone();
        preamble.splice(at..at, pre_block);
        let tail = (post_len - place.postamble_tail) * SLOT_BYTES;
        let mut postamble = self.postamble.clone();
        postamble.splice(tail..tail, qs.iter().flat_map(queue_block::postamble_block));
        Some(Self {
            key: VariantKey {
                static_queues: u8::try_from(qs.len()).ok()?,
                data_queues: u8::try_from(qs.iter().filter(|q| q.data).count()).ok()?,
                ..self.key
            },
            preamble,
            program_start: self.program_start + n,
            model_switch: shift(&self.model_switch, n as isize),
            postamble,
            queue_block: None,
            ..self.clone()
        })
    }

    /// The POSTAMBLE placed at image slot `start`: the same bytes, the last slot's relative
    /// branch (COMPARE_BRANCH `br_imm`, a rel32 in bytes) aimed at the program start again.
    pub fn postamble_at(&self, start: usize) -> Vec<u8> {
        let mut out = self.postamble.clone();
        let n = slots(&out);
        if n == 0 {
            return out;
        }
        let last = (n - 1) * SLOT_BYTES;
        let mut slot = SlotBuf::default();
        slot.0.copy_from_slice(&out[last..]);
        let rel = (self.program_start as i64 - (start + n - 1) as i64) * SLOT_BYTES as i64;
        CompareBranchMut(&mut slot).br_imm(u64::from(rel as i32 as u32));
        out[last..].copy_from_slice(&slot.0);
        out
    }

    /// Whether, its queue block cut out, these regions have the opcodes of `other`'s (a stream of
    /// the same engine without a static queue): before the program start, and the POSTAMBLE
    /// (decision D844; the DGE register load and the table block after the program start may
    /// differ between them).
    pub fn cut_matches(&self, other: &Self) -> Option<bool> {
        let cut = self.without_static_queues()?;
        let init =
            |v: &Self| opcodes(&v.preamble[..v.program_start * SLOT_BYTES]).collect::<Vec<_>>();
        Some(init(&cut) == init(other) && opcodes(&cut.postamble).eq(opcodes(&other.postamble)))
    }

    /// Where this variant's located queue block sits, as a place for building one elsewhere.
    pub fn queue_place(&self) -> Option<QueuePlace> {
        let b = self.queue_block.as_ref()?;
        Some(QueuePlace {
            preamble_at: b.preamble.start,
            postamble_tail: slots(&self.postamble).checked_sub(b.postamble.end)?,
        })
    }
}

/// One stream's regions (decision D840): the PREAMBLE and POSTAMBLE the segments frame, the
/// program start the POSTAMBLE's last slot branches to, MODEL_SWITCH the first forward branch
/// after it skips, the queue block found by its registers.
pub(crate) fn variant_of(
    subgraph: &str,
    s: &CapturedStream<'_>,
    content: &RuntimeContent,
) -> Result<LearnedVariant, LearnError> {
    let no_regions = || LearnError::NoRegions {
        subgraph: subgraph.to_owned(),
        engine: s.engine,
    };
    let (pre, post) = (
        s.preamble().ok_or_else(no_regions)?,
        s.postamble().ok_or_else(no_regions)?,
    );
    let bytes = |r: &Range<usize>| s.bytes[r.start * SLOT_BYTES..r.end * SLOT_BYTES].to_vec();
    let last = post.end - 1;
    let program_start = branch_target(s.slot(last), last)
        .filter(|&t| t < pre.end)
        .ok_or_else(|| LearnError::NoBranchBack {
            subgraph: subgraph.to_owned(),
            engine: s.engine,
            slot: last,
        })?;
    // MODEL_SWITCH: the slots the first forward branch at or after the program start skips
    // (the run-word branch, D173).
    let model_switch = (program_start..pre.end)
        .find_map(|i| {
            let t = branch_target(s.slot(i), i)?;
            (t > i + 1 && t <= pre.end).then_some(i + 1..t)
        })
        .unwrap_or(pre.end..pre.end);
    let (mut preamble, mut postamble) = (bytes(&pre), bytes(&post));
    // D816: the regions are kept in the frame core's windows, moved to a subgraph's core at load.
    if let Some(core) = s.core {
        core.move_words(PhysicalCore::FRAME, &mut preamble);
        core.move_words(PhysicalCore::FRAME, &mut postamble);
    }
    let key = VariantKey::of(s.engine, content);
    let queue_block = (key.static_queues == 1)
        .then(|| content.static_queues_of(s.engine).first().copied())
        .flatten()
        .and_then(|q| locate_block(&q, &preamble, &postamble, program_start));
    let confirmed = Confirmed {
        masks: content.dge_queues.rewrite(s.engine, &preamble).is_none(),
        counts: table_queue::rewrite(s.engine, content, &preamble).is_none(),
    };
    Ok(LearnedVariant {
        engine: s.engine,
        subgraph: subgraph.to_owned(),
        key,
        preamble,
        program_start,
        model_switch,
        postamble,
        queue_block,
        confirmed,
        table_sets: vec![super::rules::table_sets(s.engine, content)],
    })
}

/// Queue `q`'s blocks in the teacher's regions: both found, the PREAMBLE one before the program
/// start (the slots the POSTAMBLE's branch skips on a rerun).
fn locate_block(
    q: &StaticQueue,
    preamble: &[u8],
    postamble: &[u8],
    program_start: usize,
) -> Option<TeacherQueueBlock> {
    let pre = queue_block::locate(preamble, q).filter(|r| r.end <= program_start)?;
    // The POSTAMBLE's last slot is the branch back: a block ends before it.
    let post = queue_block::locate(postamble, q).filter(|r| r.end < slots(postamble))?;
    let builder_confirmed = queue_block::builder_confirmed(
        q,
        &preamble[pre.start * SLOT_BYTES..pre.end * SLOT_BYTES],
        &postamble[post.start * SLOT_BYTES..post.end * SLOT_BYTES],
    );
    Some(TeacherQueueBlock {
        queue: *q,
        preamble: pre,
        postamble: post,
        builder_confirmed,
        cut_confirmed: None,
    })
}

/// The slot a COMPARE_BRANCH at slot `at` jumps to (its `br_imm` a rel32 in bytes).
pub(crate) fn branch_target(slot: Option<&[u8]>, at: usize) -> Option<usize> {
    let b = CompareBranch::new(Slot::new(slot?.try_into().ok()?))?;
    let rel = i64::from(b.br_imm() as u32 as i32);
    if rel % SLOT_BYTES as i64 != 0 {
        return None;
    }
    usize::try_from(at as i64 + rel / SLOT_BYTES as i64).ok()
}
