//! The engine streams of one subgraph (`sgNN/<Engine>.bin`): flat arrays of 64-byte slots
//! (reference §4.1) laid out like a compiler's:
//!
//! ```text
//! 0xB1 SET_ORDERING_MODE            first slot of every real stream (reference §4.1)
//! 0xCC label 0                      trn2 only, as in every real trn2 stream
//! [0x23 ACTIVATION_TABLE_LOAD]      ACT only, as in every real ACT stream
//! MAIN body                         the engine's mix (crate::mix), cut into label-headed blocks;
//!                                   some blocks end in a COMPARE_BRANCH back to their label;
//!                                   F calls 0xD3 spread evenly through it
//! 0xDF EXIT_EXECUTION               only with functions, so MAIN never runs into them
//! F x { 0xD1 fn_NNN, body, 0xD2 }   decision D70: each 0xD1 starts a function
//! ```
//!
//! The five streams are written together, one body slot per engine per step, in the order each
//! engine executes them (MAIN's first part, the first function, MAIN's second part, ...), so
//! that every wait can be chosen from what the subgraph has raised at earlier steps: the
//! programs always simulate to the end, never deadlock (decision D360, [`Ledger`]). Each stream
//! is written straight into one `Vec` of its final size: one allocation, no copy.

use neff_isa::layout::{Addr8, Tensor};
use neff_isa::payload::{
    Activate, ActivateMut, CompareBranchMut, CopyCast, CopyCastMut, DmaDirect2d, DmaDirect2dMut,
    DmaTriggerMut, LdWeights, LdWeightsMut, Matmul, MatmulMut, TensorTensor, TensorTensorMut,
    TriggerCollectiveMut,
};
use neff_isa::{AluOp, Dtype, EngineType as Engine, SLOT_BYTES, Slot as IsaSlot, SlotBuf};
use neff_rng::SplitMix64;

use crate::engine::{QUEUE_SEMAPHORES, dma_queue, done_semaphore, queue_semaphore_base};
use crate::manifest;
use crate::mix::{self, Kind, Mix};
use crate::options::SynthTarget;
use crate::templates::{self, EventPlan, Opcode, Slot};

/// Most DMA blocks an engine JSON lists; triggers cycle through their ids (decision D110).
pub const MAX_DMA_BLOCKS: u64 = 64;
/// Shortest and longest label-headed block of body slots.
const BLOCK_MIN: u32 = 512;
const BLOCK_SPAN: u32 = 7168;
/// Semaphores an events block can name (`wait_idx` / `update_idx` are bytes).
const SEMAPHORES: usize = 256;

/// What the five streams of one subgraph are asked to be.
#[derive(Debug, Clone, Copy)]
pub struct SubgraphSpec {
    /// The generation imitated.
    pub target: SynthTarget,
    /// Exact number of slots of each stream, eng_type order.
    pub slots: [u64; 5],
    /// Functions appended to every stream (and called from MAIN).
    pub functions: u32,
    /// Each engine's own seed (derived from the run seed, subgraph and engine), eng_type order.
    pub seeds: [u64; 5],
}

/// Counts of what a stream holds, for the manifests and for tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StreamStats {
    /// DMA triggers (0xC1 or 0xD4).
    pub dma: u64,
    /// Collective triggers (0xC8).
    pub collectives: u64,
    /// Labels (0xCC).
    pub labels: u64,
    /// COMPARE_BRANCHes (0xA9).
    pub branches: u64,
    /// Function calls (0xD3).
    pub calls: u64,
}

impl StreamStats {
    /// DMA blocks the engine JSON must list: ids `0..n` (decision D110).
    pub fn dma_blocks(&self) -> u64 {
        self.dma.min(MAX_DMA_BLOCKS)
    }
}

/// A generated stream.
#[derive(Debug, Clone)]
pub struct Stream {
    /// The slots, `spec.slots * 64` bytes.
    pub bytes: Vec<u8>,
    /// What they hold.
    pub stats: StreamStats,
}

/// The function name of function `k` (fits the 32-byte name field at +0x0C).
pub fn function_name(k: u32) -> String {
    format!("fn_{k:03}")
}

/// Generates the five streams of `spec`, in eng_type order.
pub fn generate(spec: &SubgraphSpec) -> [Stream; 5] {
    let mut writers = Engine::ALL.map(|e| Writer::new(spec, e));
    let mut ledger = Ledger::new();
    loop {
        let mut live = false;
        for w in &mut writers {
            live |= w.step(&mut ledger);
        }
        if !live {
            break;
        }
        ledger.advance();
    }
    writers.map(|w| Stream {
        bytes: w.out,
        stats: w.stats,
    })
}

/// What the subgraph's slots raise, step by step (decision D360). Semaphores only ever rise
/// (increments on completion, transfers raising their semaphore), so a wait `>= v` holds for
/// good once it holds; a slot of step `t` waits only for totals `settled` at steps before `t`.
/// Then the engine blocked at the earliest step waits for slots that every engine has already
/// issued (each engine is at that step or later), whose completions and transfers need nothing
/// more: no set of engines can wait on each other for ever.
struct Ledger {
    /// Totals raised by the slots of earlier steps: what a wait may ask for.
    settled: Vec<u32>,
    /// Raised at the current step, settled by [`Ledger::advance`].
    fresh: Vec<(u8, u32)>,
}

impl Ledger {
    fn new() -> Self {
        Self {
            settled: vec![0; SEMAPHORES],
            fresh: Vec::new(),
        }
    }

    /// `sem` rises by `by` when a slot of this step completes (or its transfer does).
    fn raise(&mut self, sem: u8, by: u32) {
        self.fresh.push((sem, by));
    }

    /// The total of `sem` a wait at this step may ask for.
    fn settled(&self, sem: u8) -> u32 {
        self.settled[usize::from(sem)]
    }

    /// Ends a step.
    fn advance(&mut self) {
        for (sem, by) in self.fresh.drain(..) {
            let s = &mut self.settled[usize::from(sem)];
            *s = s.saturating_add(by);
        }
    }
}

/// The label state of MAIN or of one function: branches go back to the current block's label.
#[derive(Debug, Clone, Copy, Default)]
struct Scope {
    /// The label heading the current block, if any.
    label: Option<u32>,
    /// Body slots left before the current block ends.
    block_left: u32,
}

/// A run of body slots, in execution order: a part of MAIN between calls, or a function body.
#[derive(Debug, Clone, Copy)]
struct Piece {
    /// Its first slot.
    first: u64,
    /// Its length in slots.
    len: u64,
    /// Whether it is a function body (its own labels).
    function: bool,
}

struct Writer {
    out: Vec<u8>,
    rng: SplitMix64,
    engine: Engine,
    target: SynthTarget,
    mix: Mix,
    mix_total: u32,
    stats: StreamStats,
    next_label: u32,
    /// Body pieces in execution order, the current one and the slots written into it.
    pieces: Vec<Piece>,
    piece: usize,
    at: u64,
    /// The scope being written, and MAIN's while a function is.
    scope: Scope,
    main: Scope,
}

impl Writer {
    /// A writer with the fixed slots (prologue, calls, exit, function markers) in place and
    /// the body pieces planned.
    fn new(spec: &SubgraphSpec, engine: Engine) -> Self {
        let mix = mix::mix(engine, spec.target);
        let bytes = usize::try_from(spec.slots[engine.index()]).unwrap_or(0) * SLOT_BYTES;
        let mut w = Self {
            out: vec![0; bytes],
            rng: SplitMix64::new(spec.seeds[engine.index()]),
            engine,
            target: spec.target,
            mix,
            mix_total: mix::total(mix),
            stats: StreamStats::default(),
            next_label: 0,
            pieces: Vec::new(),
            piece: 0,
            at: 0,
            scope: Scope::default(),
            main: Scope::default(),
        };
        w.layout(spec);
        w.main = w.scope;
        w
    }

    fn put(&mut self, slot: u64, s: &Slot) {
        let at = slot as usize * SLOT_BYTES;
        self.out[at..at + SLOT_BYTES].copy_from_slice(s);
    }

    /// Places the fixed slots and plans the body pieces.
    fn layout(&mut self, spec: &SubgraphSpec) {
        let mut left = spec.slots[self.engine.index()];
        let mut at = 0;
        self.put(at, &templates::SET_ORDERING_MODE);
        (at, left) = (at + 1, left - 1);
        if spec.target == SynthTarget::Cayman {
            let l = self.label();
            self.put(at, &l);
            (at, left) = (at + 1, left - 1);
        }
        let f = u64::from(spec.functions);
        if self.engine == Engine::Act && left > f * 3 + 1 {
            self.put(at, &templates::ACTIVATION_TABLE_LOAD);
            (at, left) = (at + 1, left - 1);
        }
        if f == 0 {
            self.pieces.push(Piece {
                first: at,
                len: left,
                function: false,
            });
            return;
        }
        let body = left - (3 * f + 1);
        let per_function = body / (8 * f);
        let main = body - per_function * f;
        let mut main_pieces = Vec::new();
        for k in 0..=f {
            let len = main * (k + 1) / (f + 1) - main * k / (f + 1);
            main_pieces.push(Piece {
                first: at,
                len,
                function: false,
            });
            at += len;
            if k < f {
                let call =
                    templates::named(Opcode::PSEUDO_FUNCTION_CALL.0, &function_name(k as u32));
                self.put(at, &call);
                self.stats.calls += 1;
                at += 1;
            }
        }
        self.put(at, &templates::exit());
        at += 1;
        for k in 0..spec.functions {
            let name = function_name(k);
            self.put(
                at,
                &templates::named(Opcode::PSEUDO_FUNCTION_BEGIN.0, &name),
            );
            self.pieces.push(main_pieces[k as usize]);
            self.pieces.push(Piece {
                first: at + 1,
                len: per_function,
                function: true,
            });
            at += 1 + per_function;
            self.put(
                at,
                &templates::named(Opcode::PSEUDO_FUNCTION_RETURN.0, &name),
            );
            at += 1;
        }
        self.pieces.push(main_pieces[spec.functions as usize]);
    }

    /// A new label heading a block of random length in the current scope.
    fn label(&mut self) -> Slot {
        let id = self.next_label;
        self.next_label += 1;
        self.stats.labels += 1;
        self.scope = Scope {
            label: Some(id),
            block_left: BLOCK_MIN + self.rng.below(BLOCK_SPAN),
        };
        templates::label(id)
    }

    /// Writes this engine's slots of one step: its next body slot, or at a block boundary an
    /// optional branch back to the block's label and the next label. False when done.
    fn step(&mut self, ledger: &mut Ledger) -> bool {
        let piece = loop {
            let Some(&p) = self.pieces.get(self.piece) else {
                return false;
            };
            if self.at < p.len {
                break p;
            }
            if !p.function {
                self.main = self.scope;
            }
            self.piece += 1;
            self.at = 0;
            if let Some(next) = self.pieces.get(self.piece) {
                self.scope = if next.function {
                    Scope::default()
                } else {
                    self.main
                };
            }
        };
        let left = piece.len - self.at;
        if self.scope.block_left == 0 && left >= 2 {
            if let Some(target) = self.scope.label
                && self.rng.below(2) == 0
            {
                let b = self.branch(target);
                self.put(piece.first + self.at, &b);
                self.at += 1;
            }
            let l = self.label();
            self.put(piece.first + self.at, &l);
            self.at += 1;
            return true;
        }
        self.scope.block_left = self.scope.block_left.saturating_sub(1);
        let kind = mix::pick(self.mix, self.rng.below(self.mix_total));
        let slot = self.slot(kind, ledger);
        self.put(piece.first + self.at, &slot);
        self.at += 1;
        true
    }

    fn branch(&mut self, label: u32) -> Slot {
        let mut s = SlotBuf(templates::COMPARE_BRANCH);
        CompareBranchMut(&mut s)
            .cmp_imm(self.rng.below(64))
            .cmp_reg(self.rng.below(8) as u8)
            .br_imm(u64::from(label));
        self.stats.branches += 1;
        s.0
    }

    /// An SBUF partition offset (< 192 KiB, 32-byte aligned) for an operand.
    fn sb_addr(&mut self) -> u32 {
        self.rng.below(0x1800) * 32
    }

    /// A wait on another engine's completion count or on a DMA queue semaphore, for the total
    /// the ledger has settled (decision D360); `None` when that semaphore has not risen yet.
    fn wait(&mut self, ledger: &Ledger) -> Option<(u8, u32)> {
        let sem = if self.rng.below(4) == 0 {
            let owner = [Engine::Sp, Engine::Pool][self.rng.below(2) as usize];
            queue_semaphore_base(owner) + self.rng.below(u32::from(QUEUE_SEMAPHORES)) as u8
        } else {
            done_semaphore(Engine::ALL[self.rng.below(5) as usize])
        };
        let total = ledger.settled(sem);
        (total > 0).then_some((sem, total))
    }

    fn compute_events(&mut self, ledger: &mut Ledger) -> EventPlan {
        let wait = if self.rng.below(8) == 0 {
            self.wait(ledger)
        } else {
            None
        };
        let inc = (self.rng.below(4) == 0).then_some(done_semaphore(self.engine));
        if let Some(sem) = inc {
            ledger.raise(sem, 1);
        }
        EventPlan { wait, inc }
    }

    fn slot(&mut self, kind: Kind, ledger: &mut Ledger) -> Slot {
        let mut s = match kind {
            Kind::LdWeights => templates::LDWEIGHTS,
            Kind::Matmul => templates::MATMUL,
            Kind::Activate => templates::ACTIVATE,
            Kind::Copy => templates::COPY,
            Kind::Cast => {
                let mut b = SlotBuf(templates::COPY);
                b.0[0] = Opcode::CAST.0;
                CopyCastMut(&mut b)
                    .in_dtype(Dtype::Float32)
                    .out_dtype(Dtype::Float16);
                b.0
            }
            Kind::Memset => {
                let mut s = templates::COPY;
                s[0] = Opcode::MEMSET.0;
                s
            }
            Kind::TensorTensor => templates::TENSOR_TENSOR,
            Kind::EventSemaphore | Kind::Nop => {
                let mut s = templates::EVENT_SEMAPHORE;
                if kind == Kind::Nop {
                    s[0] = Opcode::NOP.0;
                }
                let wait = self.wait(ledger);
                EventPlan { wait, inc: None }.put(&mut s);
                return s;
            }
            Kind::Dma => return self.dma(ledger),
            Kind::Collective => return self.collective(ledger),
        };
        self.compute_events(ledger).put(&mut s);
        self.vary_operands(kind, &mut s);
        s
    }

    /// A collective (spec 003 §7.1 template): waits `> 0` on a semaphore that has risen (or
    /// not at all), and counts its completion on the template's semaphore.
    fn collective(&mut self, ledger: &mut Ledger) -> Slot {
        self.stats.collectives += 1;
        let mut b = SlotBuf(templates::TRIGGER_COLLECTIVE);
        let mut ev = neff_isa::Events::read(&b.0).unwrap_or_default();
        match self.wait(ledger) {
            // The template's `> 0` wait, on that semaphore.
            Some((sem, _)) => ev.wait_idx = sem,
            None => (ev.wait_mode, ev.wait_idx) = (0, 0),
        }
        ledger.raise(ev.update_idx, 1);
        ev.write(&mut b.0);
        // The spec sample's tensor ids 3/4 name vars this def.json lays out otherwise.
        TriggerCollectiveMut(&mut b)
            .input_tensor_id(manifest::CC_INPUT_VAR)
            .output_tensor_id(manifest::CC_OUTPUT_VAR);
        b.0
    }

    /// New addresses for the operands of a compute template (layouts in crate::templates).
    /// Written through neff-isa's views: each tensor keeps the template's pattern and dtype and
    /// gets a new start address (decision D421).
    fn vary_operands(&mut self, kind: Kind, s: &mut Slot) {
        let mut b = SlotBuf(*s);
        let at = |t: Tensor, start_addr: u32| Tensor { start_addr, ..t };
        match kind {
            Kind::LdWeights => {
                let src = LdWeights(IsaSlot::new(s)).src();
                LdWeightsMut(&mut b).src(at(src, 0x30000 + self.sb_addr() / 4));
            }
            Kind::Matmul => {
                let src = Matmul(IsaSlot::new(s)).src();
                MatmulMut(&mut b).src(at(src, 0x30000 + self.sb_addr() / 4));
            }
            Kind::Activate => {
                let v = Activate(IsaSlot::new(s));
                let (src, dst) = (self.sb_addr(), self.sb_addr());
                ActivateMut(&mut b)
                    .src(at(v.src(), src))
                    .dst(at(v.dst(), dst));
            }
            Kind::Copy | Kind::Cast | Kind::Memset => {
                // MEMSET's dst is COPY's (+0x2C, its dtype +0x21 in COPY, +0x20 in MEMSET): the
                // COPY view writes the bytes the template has, whichever opcode byte it carries.
                let dst = CopyCast(IsaSlot::new(s)).dst();
                CopyCastMut(&mut b).dst(at(dst, self.sb_addr()));
            }
            Kind::TensorTensor => {
                let v = TensorTensor(IsaSlot::new(s));
                let (a, c, d) = (self.sb_addr(), self.sb_addr(), self.sb_addr());
                let op = [AluOp::Add, AluOp::Subtract, AluOp::Mult, AluOp::Max]
                    [self.rng.below(4) as usize];
                TensorTensorMut(&mut b)
                    .src0(at(v.src0(), a))
                    .src1(at(v.src1(), c))
                    .dst(at(v.dst(), d))
                    .op(op);
            }
            _ => return,
        }
        *s = b.0;
    }

    /// A DMA on the engine's own queue: 0xC1 naming the queue and a block id (trn1), or 0xD4
    /// completing on one of the queue's semaphores (trn2; reference §4.5 decode). What its
    /// transfer raises goes to the ledger (decision D360).
    fn dma(&mut self, ledger: &mut Ledger) -> Slot {
        let n = self.stats.dma;
        self.stats.dma += 1;
        let wait = if self.rng.below(2) == 0 {
            self.wait(ledger)
        } else {
            None
        };
        let base = queue_semaphore_base(self.engine);
        let sem = base + (n % u64::from(QUEUE_SEMAPHORES)) as u8;
        match self.target {
            SynthTarget::Sunda => {
                let mut b = SlotBuf(templates::DMA_TRIGGER);
                let name = dma_queue(self.engine, SynthTarget::Sunda).unwrap_or("qSPIO0");
                DmaTriggerMut(&mut b)
                    .queue_name(name.as_bytes())
                    .block_id((n % MAX_DMA_BLOCKS) as u32);
                let mut s = b.0;
                EventPlan { wait, inc: None }.put(&mut s);
                // The ring moves each block once per inference (D192): a trigger past the
                // engine's block count moves nothing and raises nothing.
                if n < MAX_DMA_BLOCKS {
                    ledger.raise(sem, u32::from(QUEUE_SEMAPHORES));
                }
                s
            }
            SynthTarget::Cayman => {
                let mut b = SlotBuf(templates::DIRECT2D);
                let view = DmaDirect2d(neff_isa::Slot::new(&b.0));
                // The source's DGE table entry (bytes 4-5 of its ADDR8) cycles over three.
                let src = Addr8 {
                    entry: (view.src().entry & 0xFF00) | (n % 3) as u16,
                    ..view.src()
                };
                let dst = Addr8 {
                    immediate: 0x30000 + self.sb_addr() / 4,
                    ..view.dst()
                };
                let increment = view.sem_increment();
                DmaDirect2dMut(&mut b).semaphore(sem).src(src).dst(dst);
                let mut s = b.0;
                EventPlan { wait, inc: None }.put(&mut s);
                ledger.raise(sem, u32::from(increment));
                s
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Engine `engine`'s stream of the subgraph with seeds `seed + eng_type`.
    fn stream(engine: Engine, target: SynthTarget, slots: u64, functions: u32) -> Stream {
        with_seed(engine, target, slots, functions, 42)
    }

    fn with_seed(engine: Engine, t: SynthTarget, slots: u64, functions: u32, seed: u64) -> Stream {
        let spec = SubgraphSpec {
            target: t,
            slots: [slots; 5],
            functions,
            seeds: [0, 1, 2, 3, 4].map(|k| seed + k),
        };
        let [pe, act, pool, dve, sp] = generate(&spec);
        match engine {
            Engine::Pe => pe,
            Engine::Act => act,
            Engine::Pool => pool,
            Engine::Dve => dve,
            Engine::Sp => sp,
        }
    }

    fn opcodes(bytes: &[u8]) -> Vec<u8> {
        bytes.chunks_exact(64).map(|s| s[0]).collect()
    }

    #[test]
    fn exact_size_and_real_prologue() {
        for t in [SynthTarget::Sunda, SynthTarget::Cayman] {
            for slots in [2, 3, 100, 20_000] {
                let s = stream(Engine::Pe, t, slots, 0);
                assert_eq!(s.bytes.len() as u64, slots * 64);
                let ops = opcodes(&s.bytes);
                assert_eq!(ops[0], Opcode::SET_ORDERING_MODE.0);
                if t == SynthTarget::Cayman {
                    assert_eq!(ops[1], Opcode::PSEUDO_BRANCH_LABEL.0);
                }
                assert!(s.bytes.chunks_exact(64).all(|s| s[1] == 0x10));
            }
        }
    }

    #[test]
    fn pe_is_mostly_matmul_and_ldweights() {
        let s = stream(Engine::Pe, SynthTarget::Sunda, 50_000, 0);
        let ops = opcodes(&s.bytes);
        let count = |o| ops.iter().filter(|&&x| x == o).count();
        assert!(
            count(Opcode::MATMUL.0) > 35_000,
            "{}",
            count(Opcode::MATMUL.0)
        );
        assert!(count(Opcode::LDWEIGHTS.0) > 8_000);
        assert!(count(Opcode::EVENT_SEMAPHORE.0) > 50);
    }

    #[test]
    fn branches_target_an_earlier_label_of_their_function() {
        let s = stream(Engine::Dve, SynthTarget::Cayman, 60_000, 3);
        let mut seen = Vec::new();
        for slot in s.bytes.chunks_exact(64) {
            let id = u32::from_le_bytes([slot[12], slot[13], slot[14], slot[15]]);
            match Opcode(slot[0]) {
                Opcode::PSEUDO_FUNCTION_BEGIN => seen.clear(),
                Opcode::PSEUDO_BRANCH_LABEL => seen.push(id),
                Opcode::COMPARE_BRANCH => {
                    let target =
                        u32::from_le_bytes([slot[0x30], slot[0x31], slot[0x32], slot[0x33]]);
                    assert!(seen.contains(&target), "branch to {target}");
                }
                _ => {}
            }
        }
        assert!(s.stats.branches > 0 && s.stats.labels > 5);
    }

    #[test]
    fn functions_follow_main_and_each_is_called() {
        let s = stream(Engine::Sp, SynthTarget::Sunda, 10_000, 4);
        let ops = opcodes(&s.bytes);
        let exit = ops
            .iter()
            .position(|&o| o == Opcode::PSEUDO_INST.0)
            .expect("exit");
        let begins: Vec<usize> = (0..ops.len())
            .filter(|&i| ops[i] == Opcode::PSEUDO_FUNCTION_BEGIN.0)
            .collect();
        assert_eq!(begins.len(), 4);
        assert!(begins[0] == exit + 1);
        assert_eq!(
            ops.iter()
                .filter(|&&o| o == Opcode::PSEUDO_FUNCTION_CALL.0)
                .count(),
            4
        );
        assert_eq!(
            ops.iter()
                .filter(|&&o| o == Opcode::PSEUDO_FUNCTION_RETURN.0)
                .count(),
            4
        );
        assert_eq!(*ops.last().unwrap(), Opcode::PSEUDO_FUNCTION_RETURN.0);
        assert!(
            ops[..exit]
                .iter()
                .all(|&o| o != Opcode::PSEUDO_FUNCTION_BEGIN.0)
        );
    }

    #[test]
    fn minimal_stream_with_functions_fits() {
        let s = stream(Engine::Act, SynthTarget::Cayman, 9, 2);
        assert_eq!(
            opcodes(&s.bytes),
            [0xb1, 0xcc, 0xd3, 0xd3, 0xdf, 0xd1, 0xd2, 0xd1, 0xd2]
        );
    }

    #[test]
    fn dma_block_ids_cycle_below_the_block_count() {
        let s = stream(Engine::Sp, SynthTarget::Sunda, 5_000, 0);
        let ids: Vec<u32> = s
            .bytes
            .chunks_exact(64)
            .filter(|s| s[0] == Opcode::PSEUDO_DMA_TRIGGER.0)
            .map(|s| u32::from_le_bytes([s[0x30], s[0x31], s[0x32], s[0x33]]))
            .collect();
        assert_eq!(ids.len() as u64, s.stats.dma);
        assert!(ids.iter().all(|&i| u64::from(i) < s.stats.dma_blocks()));
        let s = stream(Engine::Pool, SynthTarget::Cayman, 5_000, 0);
        for slot in s
            .bytes
            .chunks_exact(64)
            .filter(|s| s[0] == Opcode::PSEUDO_DMA_DIRECT2D.0)
        {
            assert!((24..40).contains(&slot[0x0D]));
        }
    }

    #[test]
    fn same_seed_same_bytes() {
        let a = stream(Engine::Pool, SynthTarget::Sunda, 3_000, 1);
        let b = stream(Engine::Pool, SynthTarget::Sunda, 3_000, 1);
        assert_eq!(a.bytes, b.bytes);
        let c = with_seed(Engine::Pool, SynthTarget::Sunda, 3_000, 1, 43);
        assert_ne!(a.bytes, c.bytes);
    }

    /// D360: no slot waits on or raises a semaphore the runtime keeps (`$S[0..3]`: its barriers
    /// wait `==` on `$S[2]`), and every wait asks for at most what the subgraph raises in all.
    #[test]
    fn waits_and_counts_stay_off_the_runtime_semaphores_and_within_what_is_raised() {
        for target in [SynthTarget::Sunda, SynthTarget::Cayman] {
            let spec = SubgraphSpec {
                target,
                slots: [30_000; 5],
                functions: 2,
                seeds: [5, 6, 7, 8, 9],
            };
            let streams = generate(&spec);
            let mut raised = vec![0u64; SEMAPHORES];
            let mut waits = Vec::new();
            for s in &streams {
                for slot in s.bytes.chunks_exact(SLOT_BYTES) {
                    let ev = neff_isa::Events::from_bytes(slot[4..12].try_into().unwrap());
                    if ev.wait_mode != 0 {
                        waits.push((ev.wait_idx, ev.semaphore_value));
                    }
                    if ev.update_mode != 0 {
                        raised[usize::from(ev.update_idx)] += 1;
                    }
                    if slot[0] == Opcode::PSEUDO_DMA_DIRECT2D.0 {
                        raised[usize::from(slot[0x0D])] += u64::from(slot[0x0E]);
                    }
                }
            }
            assert!(waits.len() > 1000, "{target:?}: {}", waits.len());
            for (sem, value) in waits {
                assert!(
                    sem >= crate::engine::RUNTIME_SEMAPHORES,
                    "{target:?} waits on $S[{sem}]"
                );
                if target == SynthTarget::Cayman {
                    assert!(
                        u64::from(value) <= raised[usize::from(sem)],
                        "{target:?} $S[{sem}] >= {value}"
                    );
                }
            }
            let runtime = usize::from(crate::engine::RUNTIME_SEMAPHORES);
            assert!(raised[..runtime].iter().all(|&n| n == 0), "{target:?}");
        }
    }
}
