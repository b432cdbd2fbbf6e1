//! A runtime version's regions learned from one capture of it (decision D463): the PREAMBLE
//! (MODEL_SWITCH inside) and POSTAMBLE bytes the runtime wrote around each engine's program, kept
//! per engine and per content key, so that another NEFF loads with that runtime's own bytes.
//!
//! A capture's streams are the runtime's loaded images (reference-ntff §4): the first runtime
//! segment of a stream is its PREAMBLE, the last its POSTAMBLE. What decides a region's content
//! is the subgraph's content (decision D464: [`VariantKey`]), never the file it came from; a
//! NEFF whose engine has a key no learned stream has gets the rules' regions
//! ([`super::RuntimeRegions::new`]) instead, and the load says so.
//!
//! neffkit does not read captures here (neff-profile does, once): the caller hands over each
//! stream as a [`CapturedStream`].

use std::borrow::Cow;
use std::ops::Range;

use neff_isa::payload::{CompareBranch, CompareBranchMut};
use neff_isa::{EngineType, SLOT_BYTES, Slot, SlotBuf};

use super::queue_block::{self, StaticQueue};
use super::table_queue;
use super::{RuntimeContent, rules};

/// One runtime-written segment of a captured stream (reference-ntff §2, field 5.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CapturedSegment {
    /// The first slot.
    pub first_slot: usize,
    /// Slots.
    pub count: usize,
    /// Flag 2: a runtime slot inside the NEFF's program (reference-ntff §4).
    pub inner: bool,
}

impl CapturedSegment {
    /// The segment's slots.
    pub fn slots(&self) -> Range<usize> {
        self.first_slot..self.first_slot.saturating_add(self.count)
    }
}

/// One engine's loaded stream as a capture holds it: what learning and comparison read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CapturedStream<'a> {
    /// The engine.
    pub engine: EngineType,
    /// Device address of the stream's slot 0.
    pub device_base: u64,
    /// The stream's bytes.
    pub bytes: &'a [u8],
    /// The runtime's segments, in capture order.
    pub segments: Vec<CapturedSegment>,
}

impl CapturedStream<'_> {
    /// Whole slots in the stream.
    pub fn slot_count(&self) -> usize {
        self.bytes.len() / SLOT_BYTES
    }

    /// Slot `i`'s bytes.
    pub fn slot(&self, i: usize) -> Option<&[u8]> {
        self.bytes.get(i * SLOT_BYTES..(i + 1) * SLOT_BYTES)
    }

    /// The PREAMBLE: the first segment, when it starts the stream.
    pub fn preamble(&self) -> Option<Range<usize>> {
        let s = self.segments.first()?;
        (s.first_slot == 0 && !s.inner).then(|| s.slots())
    }

    /// The POSTAMBLE: the last segment, when it is a runtime one past the PREAMBLE inside the
    /// stream (the seven shared captures have no FUNCTION section behind it).
    pub fn postamble(&self) -> Option<Range<usize>> {
        let s = self.segments.last()?;
        let pre = self.preamble()?;
        let r = s.slots();
        (!s.inner && r.start >= pre.end && r.end <= self.slot_count() && self.segments.len() > 1)
            .then_some(r)
    }

    /// Whether slot `i` is one the runtime wrote (a segment's, not a flag-2 one).
    pub fn is_runtime_slot(&self, i: usize) -> bool {
        self.segments
            .iter()
            .any(|s| !s.inner && s.slots().contains(&i))
    }
}

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

/// One engine's regions as one capture shows them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LearnedVariant {
    /// The engine.
    pub engine: EngineType,
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
}

/// Where an engine's static-queue blocks sit (decision D468): PREAMBLE from slot 2 (after the
/// first NOTIFY and its neighbour), POSTAMBLE from slot 9 of the block-free POSTAMBLE (before
/// NOTIFY DONE) — Pool and SP of moe_v6b and moe_megakernel, DVE of attn_v6.
const PREAMBLE_QUEUE_BLOCK_AT: usize = 2;
/// Slots of the POSTAMBLE after its queue block: NOTIFY DONE and the branch back.
const POSTAMBLE_TAIL: usize = 2;

impl LearnedVariant {
    /// The same regions without the engine's static-queue blocks (decision D468): the PREAMBLE's
    /// [`rules::queue_preamble_slots`] from slot 2 and the POSTAMBLE's
    /// [`rules::queue_postamble_slots`] before its last two slots; `None` when the regions are too
    /// short to hold them.
    pub fn without_static_queues(&self) -> Option<Self> {
        let content = RuntimeContent {
            static_queues: [self.key.static_queues; EngineType::COUNT],
            data_queues: [self.key.data_queues; EngineType::COUNT],
            ..RuntimeContent::default()
        };
        let pre_n = rules::queue_preamble_slots(self.engine, &content);
        let post_n = rules::queue_postamble_slots(self.engine, &content);
        let (pre_len, post_len) = (
            self.preamble.len() / SLOT_BYTES,
            self.postamble.len() / SLOT_BYTES,
        );
        let cut = PREAMBLE_QUEUE_BLOCK_AT..PREAMBLE_QUEUE_BLOCK_AT + pre_n;
        if pre_n == 0
            || cut.end > self.program_start
            || post_len < post_n + POSTAMBLE_TAIL
            || pre_len < cut.end
        {
            return None;
        }
        let mut preamble = self.preamble.clone();
        preamble.drain(cut.start * SLOT_BYTES..cut.end * SLOT_BYTES);
        let tail = post_len - POSTAMBLE_TAIL;
        let mut postamble = self.postamble.clone();
        postamble.drain((tail - post_n) * SLOT_BYTES..tail * SLOT_BYTES);
        Some(Self {
            engine: self.engine,
            key: VariantKey {
                static_queues: 0,
                data_queues: 0,
                ..self.key
            },
            preamble,
            program_start: self.program_start - pre_n,
            model_switch: self.model_switch.start - pre_n..self.model_switch.end - pre_n,
            postamble,
        })
    }

    /// The same regions with queue `q`'s blocks put in (decision D582), the inverse of
    /// [`Self::without_static_queues`]: the PREAMBLE block at slot 2, the POSTAMBLE block before
    /// its last two slots; ring addresses placed in the window from `window_start`. `None` when
    /// the regions already have static queues or are too short.
    pub fn with_static_queue(&self, window_start: u64, q: &StaticQueue) -> Option<Self> {
        let post_len = self.postamble.len() / SLOT_BYTES;
        if self.key.static_queues != 0
            || PREAMBLE_QUEUE_BLOCK_AT > self.program_start
            || post_len < POSTAMBLE_TAIL
        {
            return None;
        }
        let pre_block = queue_block::preamble_block(window_start, q);
        let n = pre_block.len() / SLOT_BYTES;
        let at = PREAMBLE_QUEUE_BLOCK_AT * SLOT_BYTES;
        let mut preamble = self.preamble.clone();
        preamble.splice(at..at, pre_block);
        let tail = (post_len - POSTAMBLE_TAIL) * SLOT_BYTES;
        let mut postamble = self.postamble.clone();
        postamble.splice(tail..tail, queue_block::postamble_block(q));
        Some(Self {
            engine: self.engine,
            key: VariantKey {
                static_queues: 1,
                data_queues: u8::from(q.data),
                ..self.key
            },
            preamble,
            program_start: self.program_start + n,
            model_switch: self.model_switch.start + n..self.model_switch.end + n,
            postamble,
        })
    }

    /// The POSTAMBLE placed at image slot `start`: the same bytes, the last slot's relative
    /// branch (COMPARE_BRANCH `br_imm`, a rel32 in bytes) aimed at the program start again.
    pub fn postamble_at(&self, start: usize) -> Vec<u8> {
        let mut out = self.postamble.clone();
        let n = out.len() / SLOT_BYTES;
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
}

/// Why a capture's stream cannot teach its regions.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LearnError {
    /// No first segment at slot 0, or no last runtime segment.
    #[error(
        "{subgraph} {engine}: the capture's runtime segments do not frame a PREAMBLE and a POSTAMBLE"
    )]
    NoRegions {
        /// Subgraph name.
        subgraph: String,
        /// The engine.
        engine: EngineType,
    },
    /// The POSTAMBLE's last slot is no COMPARE_BRANCH back into the PREAMBLE.
    #[error("{subgraph} {engine}: POSTAMBLE slot {slot} is not a branch back into the PREAMBLE")]
    NoBranchBack {
        /// Subgraph name.
        subgraph: String,
        /// The engine.
        engine: EngineType,
        /// The stream slot.
        slot: usize,
    },
    /// Two streams with one key hold different regions: the key misses a fact.
    #[error("{engine}: two streams with the same content key hold PREAMBLEs of {a} and {b} slots")]
    Conflict {
        /// The engine.
        engine: EngineType,
        /// One length.
        a: usize,
        /// The other.
        b: usize,
    },
    /// The capture ran a subgraph the NEFF given for it does not have.
    #[error("the capture's subgraph {subgraph} is not in the NEFF it is said to have run")]
    NoSubgraph {
        /// Subgraph name.
        subgraph: String,
    },
}

/// A runtime version's regions, learned from one capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LearnedRuntime {
    /// The runtime version the capture names (`2.30.51`).
    pub version: String,
    /// The device memory window the runtime allocated its images in (decision D465): the 4 GiB
    /// window holding the capture's stream bases. Addresses inside it depend on what else the
    /// runtime had loaded, so a comparison takes any two of them as a relocation.
    pub window: Range<u64>,
    /// Every engine's regions per key seen.
    pub variants: Vec<LearnedVariant>,
}

/// The size of the relocation window (decision D465).
pub const RELOCATION_WINDOW: u64 = 1 << 32;

impl LearnedRuntime {
    /// Learns from a capture's subgraphs, each with its NEFF subgraph's content and its streams.
    pub fn learn<'a>(
        version: impl Into<String>,
        subgraphs: impl IntoIterator<Item = (String, RuntimeContent, Vec<CapturedStream<'a>>)>,
    ) -> Result<Self, LearnError> {
        let mut variants: Vec<LearnedVariant> = Vec::new();
        let mut low = u64::MAX;
        for (name, content, streams) in subgraphs {
            for s in &streams {
                low = low.min(s.device_base);
                let v = variant_of(&name, s, &content)?;
                match variants
                    .iter()
                    .find(|x| x.engine == v.engine && x.key == v.key)
                {
                    Some(x) if x.preamble.len() != v.preamble.len() => {
                        return Err(LearnError::Conflict {
                            engine: v.engine,
                            a: x.preamble.len() / SLOT_BYTES,
                            b: v.preamble.len() / SLOT_BYTES,
                        });
                    }
                    Some(_) => {}
                    None => variants.push(v),
                }
            }
        }
        let start = if low == u64::MAX {
            0
        } else {
            low & !(RELOCATION_WINDOW - 1)
        };
        Ok(Self {
            version: version.into(),
            window: start..start.saturating_add(RELOCATION_WINDOW),
            variants,
        })
    }

    /// The regions learned for `engine` in a subgraph with `content`: a stream's with that key,
    /// else one whose engine owned static queues the content has none of, with their blocks taken
    /// out (decision D468); either with the PREAMBLE's DGE queue masks written for `content`'s
    /// dynamic queues (decision D770) and its two modelled queue-14 DMA counts (decision D771).
    pub fn variant(
        &self,
        engine: EngineType,
        content: &RuntimeContent,
    ) -> Option<Cow<'_, LearnedVariant>> {
        let v = self.learned_variant(engine, content)?;
        let masked = content.dge_queues.rewrite(engine, &v.preamble);
        let counted =
            table_queue::rewrite(engine, content, masked.as_deref().unwrap_or(&v.preamble));
        match counted.or(masked) {
            Some(preamble) => Some(Cow::Owned(LearnedVariant {
                preamble,
                ..v.into_owned()
            })),
            None => Some(v),
        }
    }

    /// [`Self::variant`] as learned, the masks those of the capture.
    fn learned_variant(
        &self,
        engine: EngineType,
        content: &RuntimeContent,
    ) -> Option<Cow<'_, LearnedVariant>> {
        let key = VariantKey::of(engine, content);
        let of_engine = || self.variants.iter().filter(move |v| v.engine == engine);
        if let Some(v) = of_engine().find(|v| v.key == key) {
            return Some(Cow::Borrowed(v));
        }
        if key.static_queues != 0 {
            // D582: one static queue the learned engine lacked gets its blocks built.
            let q = content.static_queue[engine.index()].filter(|_| key.static_queues == 1)?;
            return of_engine()
                .find(|v| {
                    v.key.tables == key.tables
                        && v.key.dge_table == key.dge_table
                        && v.key.static_queues == 0
                })
                .and_then(|v| v.with_static_queue(self.window.start, &q))
                .map(Cow::Owned);
        }
        of_engine()
            .find(|v| v.key.tables == key.tables && v.key.dge_table == key.dge_table)
            .and_then(LearnedVariant::without_static_queues)
            .map(Cow::Owned)
    }
}

/// One stream's regions.
fn variant_of(
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
    Ok(LearnedVariant {
        engine: s.engine,
        key: VariantKey::of(s.engine, content),
        preamble: bytes(&pre),
        program_start,
        model_switch,
        postamble: bytes(&post),
    })
}

/// The slot a COMPARE_BRANCH at slot `at` jumps to (its `br_imm` a rel32 in bytes).
fn branch_target(slot: Option<&[u8]>, at: usize) -> Option<usize> {
    let b = CompareBranch::new(Slot::new(slot?.try_into().ok()?))?;
    let rel = i64::from(b.br_imm() as u32 as i32);
    if rel % SLOT_BYTES as i64 != 0 {
        return None;
    }
    usize::try_from(at as i64 + rel / SLOT_BYTES as i64).ok()
}
