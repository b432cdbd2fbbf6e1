//! The runtime's device model (runtime 2.30.51 on trn2): the PREAMBLE, MODEL_SWITCH and
//! POSTAMBLE the real runtime puts around MAIN, slot by slot, as the hardware traces show them
//! (decisions D170-D176, docs/device-model.md "The runtime model").
//!
//! Each engine image is `[INIT][PROGRAM START][MODEL_SWITCH][START][MAIN][POSTAMBLE]`:
//! - INIT (opaque): slots never traced, before the program start the POSTAMBLE branches back to;
//!   [`rules::init_slots`] plus [`rules::TABLE_SET_SLOTS`] when the engine loads tables, plus
//!   the static queues it owns ([`rules::queue_preamble_slots`]);
//! - PROGRAM START: SET_ORDERING_MODE strict twice, an opaque slot (PE: five, then events 1-3
//!   raised), TENSOR_LOAD of the run word into `$R[0]`, DRAIN (not on PE), COMPARE_BRANCH EQ
//!   `$R[0]==0` over MODEL_SWITCH;
//! - MODEL_SWITCH (opaque): the slots that branch skips ([`rules::model_switch_slots`]);
//! - START: NOTIFY START, (PE: WRITE, wait event 4), barrier, (TENSOR_LOAD `$R[130],$R[131]` when
//!   the subgraph has a DGE table), barrier, (PE: WRITE, take `$S[1]`), barrier;
//! - POSTAMBLE: barrier, EVENT_SEMAPHORE_RANGE_CLEAR of the engine's range, barrier, NOTIFY
//!   DONE, COMPARE_BRANCH ALWAYS back to the program start.
//!
//! A barrier is DRAIN, the engine's semaphore steps on `$S[2]` (PE opens and closes the chain,
//! the others take their turns), DRAIN.

pub mod builtin;
pub mod captured;
pub mod compare;
pub mod dge_masks;
pub mod dge_slot;
pub mod learned;
pub mod op;
pub mod queue_block;
pub mod rules;
pub mod saved;
pub mod stream;
pub mod table_block;
pub mod table_queue;
pub mod taught_forms;
pub mod teacher_check;
pub mod unlearned;
pub mod variant;

use std::ops::Range;

use neff_isa::{EngineType, SLOT_BYTES};

pub use captured::{captured_stream, captured_streams, learn_capture};
pub use compare::{EngineComparison, Relocation, SlotDiff, Verdict, compare_engine};
pub use learned::{LearnError, LearnedRuntime};
pub use op::{RUNTIME_VALUE, RuntimeOp, RuntimeSlot, SlotText};
pub use stream::{CapturedSegment, CapturedStream};
pub use unlearned::{Unlearned, UnlearnedWhy};
pub use variant::{LearnedVariant, VariantKey};

/// What of a subgraph's content the runtime's regions depend on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RuntimeContent {
    /// Activation's `activation_function_sets[]` entries.
    pub activation_function_sets: usize,
    /// DVE's `dve_tables[]` entries.
    pub dve_table_sets: usize,
    /// Whether the subgraph has a `dge-table` var (`DGETable0`).
    pub dge_table: bool,
    /// Per engine (index order), the static DMA queues it owns: def.json `dma_queue` entries
    /// whose `type` is not `dynamic` (decision D464).
    pub static_queues: [u8; EngineType::COUNT],
    /// Of them, the `data` queues.
    pub data_queues: [u8; EngineType::COUNT],
    /// Per engine, its static queues in def.json order ([`Self::static_queues_of`]): what a
    /// learned region without them needs to have their queue blocks built (decisions D582,
    /// D857). A queue whose def.json index has no queue page ([`queue_block::QUEUE_PAGES`]) is
    /// left out.
    pub static_queue_list:
        [[Option<queue_block::StaticQueue>; queue_block::QUEUE_PAGES]; EngineType::COUNT],
    /// The dynamic queues by kind and owner: the PREAMBLE's DGE queue masks (decision D770).
    pub dge_queues: dge_masks::DgeQueues,
    /// The subgraph's `in` queues (def.json `type` `in`): PE's START DMA count (decision D771).
    pub in_queues: u8,
}

impl RuntimeContent {
    /// The content facts of one kbin.
    pub fn from_kbin(kbin: &neff_kelf::Kbin<'_>) -> Self {
        let (mut static_queues, mut data_queues) =
            ([0u8; EngineType::COUNT], [0u8; EngineType::COUNT]);
        let mut static_queue_list = [[None; queue_block::QUEUE_PAGES]; EngineType::COUNT];
        for (index, q) in kbin.dma_queues.iter().enumerate() {
            let Some(owner) = q.owner else { continue };
            if q.ty != neff_lower::DYNAMIC_QUEUE {
                static_queues[owner.index()] = static_queues[owner.index()].saturating_add(1);
                // D857: in def.json order, the first free entry.
                let free = static_queue_list[owner.index()]
                    .iter_mut()
                    .find(|x| x.is_none());
                if let (Some(free), Ok(index)) = (free, u8::try_from(index))
                    && usize::from(index) < queue_block::QUEUE_PAGES
                {
                    *free = Some(queue_block::StaticQueue {
                        index,
                        data: q.ty == neff_lower::DATA_QUEUE,
                        blocks: u16::try_from(q.blocks.len()).unwrap_or(u16::MAX),
                    });
                }
            }
            if q.ty == neff_lower::DATA_QUEUE {
                data_queues[owner.index()] = data_queues[owner.index()].saturating_add(1);
            }
        }
        Self {
            static_queues,
            data_queues,
            static_queue_list,
            dge_queues: dge_masks::DgeQueues::from_kbin(kbin),
            in_queues: u8::try_from(
                kbin.dma_queues
                    .iter()
                    .filter(|q| q.ty == neff_lower::IN_QUEUE)
                    .count(),
            )
            .unwrap_or(u8::MAX),
            activation_function_sets: kbin.act_function_sets.as_ref().map_or(0, |s| s.sets.len()),
            dve_table_sets: kbin.dve_tables.len(),
            dge_table: kbin
                .mem_refs
                .iter()
                .any(|m| m.ty == neff_kelf::VarType::DgeTable),
        }
    }

    /// The static queues `engine` owns, in def.json order (decision D857).
    pub fn static_queues_of(&self, engine: EngineType) -> Vec<queue_block::StaticQueue> {
        self.static_queue_list[engine.index()]
            .iter()
            .flatten()
            .copied()
            .collect()
    }
}

/// One slot of the runtime's regions, as [`RuntimeRegions::at`] finds it.
#[derive(Debug, Clone, Copy)]
pub struct RegionSlot<'a> {
    /// `PREAMBLE`, `MODEL_SWITCH` or `POSTAMBLE`.
    pub region: &'static str,
    /// What the rules know of the slot.
    pub slot: RuntimeSlot,
    /// The runtime's own bytes, when the regions are learned (decision D850).
    pub bytes: Option<&'a [u8; SLOT_BYTES]>,
}

/// One engine's runtime regions: every slot the runtime places, traced or opaque.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuntimeRegions {
    /// The engine.
    pub engine: EngineType,
    /// The PREAMBLE: image slots `0..preamble.len()`; MAIN starts right after it.
    pub preamble: Vec<RuntimeSlot>,
    /// The image slot the POSTAMBLE branches back to.
    pub program_start: usize,
    /// The image slots the run-word branch skips.
    pub model_switch: Range<usize>,
    /// The POSTAMBLE, from the slot after MAIN's last; its branch names image slots.
    pub postamble: Vec<RuntimeSlot>,
    /// The runtime's own PREAMBLE and POSTAMBLE bytes, when learned from captures (decision
    /// D463), so an opaque slot reads as the instruction its bytes encode (`None`: the rules'
    /// placeholders). Kept here because a report-only load keeps no image bytes.
    pub learned_bytes: Option<(Vec<u8>, Vec<u8>)>,
}

impl RuntimeRegions {
    /// The regions of `engine` in a subgraph with `content`.
    pub fn new(engine: EngineType, content: &RuntimeContent) -> Self {
        let mut pre = Vec::new();
        let init = rules::init_slots(engine)
            + rules::TABLE_SET_SLOTS * usize::from(rules::table_load(engine, content))
            + rules::queue_preamble_slots(engine, content);
        pre.resize(init, RuntimeSlot::Opaque);
        let program_start = pre.len();
        program_start_block(engine, &mut pre);
        let branch = pre.len();
        let model_switch = branch + 1..branch + 1 + rules::model_switch_slots(engine);
        pre.push(RuntimeSlot::Traced(RuntimeOp::SkipIfRunWordZero {
            to: model_switch.end,
        }));
        pre.resize(model_switch.end, RuntimeSlot::Opaque);
        start_block(engine, content, &mut pre);
        let mut post = Vec::new();
        barrier(engine, &mut post);
        let (first, last) = rules::clear_range(engine);
        post.push(RuntimeSlot::Traced(RuntimeOp::ClearSemaphores {
            first,
            last,
        }));
        barrier(engine, &mut post);
        let rearm = post.len() + rules::queue_postamble_slots(engine, content);
        post.resize(rearm, RuntimeSlot::Opaque);
        post.push(RuntimeSlot::Traced(RuntimeOp::Notify { hint: 3 }));
        post.push(RuntimeSlot::Traced(RuntimeOp::BranchToStart {
            to: program_start,
        }));
        Self {
            engine,
            preamble: pre,
            program_start,
            model_switch,
            postamble: post,
            learned_bytes: None,
        }
    }

    /// The regions of a learned variant (decision D463): its lengths, program start and
    /// MODEL_SWITCH; every slot opaque but the POSTAMBLE's branch back (the bytes are the
    /// runtime's own, kept in [`Self::learned_bytes`]; the traced meaning of each is not
    /// re-derived).
    pub fn learned(v: &LearnedVariant) -> Self {
        let mut postamble =
            vec![RuntimeSlot::Opaque; (v.postamble.len() / SLOT_BYTES).saturating_sub(1)];
        postamble.push(RuntimeSlot::Traced(RuntimeOp::BranchToStart {
            to: v.program_start,
        }));
        Self {
            engine: v.engine,
            preamble: vec![RuntimeSlot::Opaque; v.preamble.len() / SLOT_BYTES],
            program_start: v.program_start,
            model_switch: v.model_switch.clone(),
            postamble,
            learned_bytes: Some((v.preamble.clone(), v.postamble.clone())),
        }
    }

    /// The runtime slot at image slot `at`, the POSTAMBLE starting at image slot
    /// `postamble_start`: its region, what the rules know of it, and its own bytes when learned.
    /// `None` for a slot of MAIN or FUNCTION.
    pub fn at(&self, at: usize, postamble_start: usize) -> Option<RegionSlot<'_>> {
        let (pre, post) = match &self.learned_bytes {
            Some((pre, post)) => (Some(pre.as_slice()), Some(post.as_slice())),
            None => (None, None),
        };
        fn bytes(region: Option<&[u8]>, k: usize) -> Option<&[u8; SLOT_BYTES]> {
            let o = k.checked_mul(SLOT_BYTES)?;
            region?.get(o..o.checked_add(SLOT_BYTES)?)?.try_into().ok()
        }
        if let Some(&slot) = self.preamble.get(at) {
            let region = if self.model_switch.contains(&at) {
                "MODEL_SWITCH"
            } else {
                "PREAMBLE"
            };
            return Some(RegionSlot {
                region,
                slot,
                bytes: bytes(pre, at),
            });
        }
        let k = at.checked_sub(postamble_start)?;
        Some(RegionSlot {
            region: "POSTAMBLE",
            slot: *self.postamble.get(k)?,
            bytes: bytes(post, k),
        })
    }

    /// The image slot MAIN starts at (the PREAMBLE's length).
    pub fn main_start(&self) -> usize {
        self.preamble.len()
    }

    /// How many of `slots` are traced (the rest are opaque).
    pub fn traced(slots: &[RuntimeSlot]) -> usize {
        slots.iter().filter(|s| s.op().is_some()).count()
    }

    /// Every slot with its image slot index, PREAMBLE first, then the POSTAMBLE starting at
    /// image slot `postamble_start` (MAIN's end).
    pub fn slots(&self, postamble_start: usize) -> impl Iterator<Item = SlotText> + '_ {
        let pre = self.preamble.iter().enumerate();
        let post = self
            .postamble
            .iter()
            .enumerate()
            .map(move |(k, s)| (postamble_start + k, s));
        pre.chain(post).map(|(at, &slot)| SlotText { slot, at })
    }
}

/// SET_ORDERING_MODE strict x2, opaque, (PE: opaque x4, events 1-3), run-word load, DRAIN (not
/// PE); the branch is pushed by the caller.
fn program_start_block(engine: EngineType, out: &mut Vec<RuntimeSlot>) {
    use RuntimeOp::*;
    out.extend([RuntimeSlot::Traced(SetOrderingStrict); 2]);
    out.push(RuntimeSlot::Opaque);
    if engine == EngineType::Pe {
        out.extend([RuntimeSlot::Opaque; rules::PE_START_OPAQUE]);
        out.extend(rules::PE_START_EVENTS.map(|event| RuntimeSlot::Traced(RaiseEvent { event })));
    }
    out.push(RuntimeSlot::Traced(LoadRunWord));
    if engine != EngineType::Pe {
        out.push(RuntimeSlot::Traced(Drain));
    }
}

/// NOTIFY START, (PE: WRITE, wait event 4), barrier, (DGE register load), barrier, (PE: WRITE,
/// take $S[1]), barrier.
fn start_block(engine: EngineType, content: &RuntimeContent, out: &mut Vec<RuntimeSlot>) {
    use RuntimeOp::*;
    let pe = engine == EngineType::Pe;
    out.push(RuntimeSlot::Traced(Notify { hint: 2 }));
    if pe {
        out.push(RuntimeSlot::Traced(PeWritePair));
        out.push(RuntimeSlot::Traced(WaitEvent {
            event: rules::PE_WAIT_EVENT,
        }));
    }
    barrier(engine, out);
    if content.dge_table {
        out.push(RuntimeSlot::Traced(LoadDgeRegisters));
    }
    barrier(engine, out);
    if pe {
        out.push(RuntimeSlot::Traced(PeWriteOne));
        out.push(RuntimeSlot::Traced(TakeStartSemaphore));
    }
    barrier(engine, out);
}

/// DRAIN, the engine's steps in the `$S[2]` chain, DRAIN.
fn barrier(engine: EngineType, out: &mut Vec<RuntimeSlot>) {
    use RuntimeOp::*;
    out.push(RuntimeSlot::Traced(Drain));
    let n = rules::CHAIN_LEN;
    match rules::chain_position(engine) {
        None => out.extend([
            RuntimeSlot::Traced(BarrierOpen),
            RuntimeSlot::Traced(BarrierClose { count: 2 * n }),
        ]),
        Some(i) => {
            out.push(RuntimeSlot::Traced(BarrierTurn { turn: i }));
            if 2 * n - i != i {
                out.push(RuntimeSlot::Traced(BarrierTurn { turn: 2 * n - i }));
            }
        }
    }
    out.push(RuntimeSlot::Traced(Drain));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A subgraph's content with these activation function sets and dge-table var, no queues.
    const fn content(activation_function_sets: usize, dge_table: bool) -> RuntimeContent {
        RuntimeContent {
            activation_function_sets,
            dve_table_sets: 1,
            dge_table,
            static_queues: [0; 5],
            data_queues: [0; 5],
            static_queue_list: [[None; queue_block::QUEUE_PAGES]; 5],
            dge_queues: dge_masks::DgeQueues {
                hardware: [0; 5],
                hardware_engines: [0; 5],
                software: [0; 5],
                software_engines: [0; 5],
            },
            in_queues: 0,
        }
    }
    const SG00: RuntimeContent = content(1, true);
    const SG01: RuntimeContent = content(0, false);

    #[test]
    fn main_starts_where_the_hardware_runs_it() {
        // The first MAIN pc of every profile: sg00 67/67/67/62/50, sg01 66/56/61/66/49.
        let at =
            |c: &RuntimeContent| EngineType::ALL.map(|e| RuntimeRegions::new(e, c).main_start());
        assert_eq!(at(&SG00), [67, 67, 62, 67, 50]);
        assert_eq!(at(&SG01), [66, 56, 61, 66, 49]);
    }

    #[test]
    fn postamble_is_eleven_slots_nine_on_sp_and_branches_to_the_program_start() {
        for e in EngineType::ALL {
            let r = RuntimeRegions::new(e, &SG01);
            assert_eq!(r.postamble.len(), if e == EngineType::Sp { 9 } else { 11 });
            let last = r.postamble.last().and_then(RuntimeSlot::op);
            assert_eq!(
                last,
                Some(RuntimeOp::BranchToStart {
                    to: r.program_start
                })
            );
        }
        let starts = EngineType::ALL.map(|e| RuntimeRegions::new(e, &SG01).program_start);
        assert_eq!(starts, [24, 24, 27, 34, 21]);
    }

    #[test]
    fn the_run_word_branch_skips_model_switch() {
        let r = RuntimeRegions::new(EngineType::Act, &SG01);
        assert_eq!(r.model_switch, 30..43);
        let branch = r.preamble[29].op().unwrap();
        assert_eq!(branch, RuntimeOp::SkipIfRunWordZero { to: 43 });
        assert_eq!(
            branch.operands(29),
            "cmp_op=EQ dtype=int32 cmp0=$R[0] cmp1=0 label_id=896"
        );
    }
}
