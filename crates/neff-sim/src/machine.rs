//! The run loop of one subgraph: a discrete-event simulation. Every engine issues its image in
//! order; an instruction issues when the engine is ready (the previous one's dispatch time, the
//! PE array for a streaming instruction, every earlier completion for a DRAIN) and its wait
//! holds; its `_READ` updates apply at issue, its `_COMPLETE` updates at completion; DMA
//! triggers hand transfers to their rings, whose completions raise semaphores.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use neff_isa::{EngineType, SLOT_BYTES};
use neff_load::model::LoadedSubgraph;
use neff_lower::GeneratedDescriptor;

use crate::cost::{CostModel, OpCost};
use crate::decode::EngineProgram;
use crate::dma::{Queues, Transfer};
use crate::error::SimError;
use crate::op::{Op, OpKind, Src, Target};
use crate::registers::{Registers, WordMemory, alu, branch_taken};
use crate::sync_state::{SYNC_SLOTS, SyncObject, SyncState};
use crate::time::{Busy, Ps, ps_from_ns};
use crate::update::{Effect, Update};
use crate::wait::{Cmp, Operand, Wait};

/// `u32::MAX`: an issue record index that points nowhere (recording off, or nothing before).
pub(crate) const NO_RECORD: u32 = u32::MAX;

/// Engines a waiter mask ([`Machine::note_change`]) holds.
const WAITER_BITS: usize = u64::BITS as usize;

/// Why an instruction issued when it did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cause {
    /// The first instruction of the engine.
    Start,
    /// The engine was ready: the previous instruction (a record index).
    Engine(u32),
    /// Its wait: the last change of the waited object came from this source.
    Sync(Source),
}

/// Who changed a semaphore or event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// Nobody yet (the initial value).
    Initial,
    /// An instruction (its record index).
    Op(u32),
    /// A transfer (its index).
    Transfer(u32),
}

/// One issued instruction.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Record {
    /// The engine index in the program list.
    pub engine: u8,
    /// The op index in the engine's program.
    pub op: u32,
    /// Issue time.
    pub issue: Ps,
    /// Completion time.
    pub complete: Ps,
    /// Why it issued then.
    pub cause: Cause,
}

/// One engine's run state.
#[derive(Debug, Clone)]
pub(crate) struct EngineRun {
    /// The next op.
    pub pc: usize,
    /// The earliest the next op may issue.
    pub ready: Ps,
    /// When the streaming unit (the PE array) is free.
    pub unit_free: Ps,
    /// When the descriptor generator has finished the jobs handed to it (D742).
    pub dge_free: Ps,
    /// The latest completion of an issued op.
    pub last_complete: Ps,
    /// Registers.
    pub regs: Registers,
    /// Finished (reached its stop op, or halted).
    pub done: bool,
    /// When it finished.
    pub done_at: Ps,
    /// Blocked on these objects since `blocked_since`.
    pub blocked: Option<[Option<SyncObject>; 2]>,
    /// When the current block began.
    pub blocked_since: Ps,
    /// The record of the previous issue.
    pub last_record: u32,
    /// Throttle: whether active, its busy time so far, and when the last streaming op ended (D856).
    pub throttle: (bool, Ps, Ps),
    /// When the last MATMUL's results have left the array (D813).
    pub drained: Ps,
    /// Busy time of NEFF instructions.
    pub busy: Busy,
    /// Wait time of NEFF instructions.
    pub wait: Ps,
    /// NEFF instructions executed.
    pub neff_instructions: u64,
    /// Instructions executed.
    pub instructions: u64,
}

impl EngineRun {
    fn new() -> Self {
        Self {
            pc: 0,
            ready: 0,
            unit_free: 0,
            dge_free: 0,
            last_complete: 0,
            regs: Registers::default(),
            done: false,
            done_at: 0,
            blocked: None,
            blocked_since: 0,
            last_record: NO_RECORD,
            throttle: (false, 0, 0),
            drained: 0,
            busy: Busy::default(),
            wait: 0,
            neff_instructions: 0,
            instructions: 0,
        }
    }
}

/// No pending attempt (in [`Machine::attempts`]): after every real one, whose time (2^64 ps is
/// 213 days) and sequence number are below `u64::MAX`.
const IDLE: u128 = u128::MAX;

/// A time and the sequence number that orders equal times, as one number that compares the
/// same way (D371).
#[inline]
fn key(t: Ps, seq: u64) -> u128 {
    (u128::from(t) << 64) | u128::from(seq)
}

/// The time of a [`key`].
#[inline]
fn key_time(k: u128) -> Ps {
    (k >> 64) as Ps
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event {
    /// Apply the completion updates of a record (index into `pending`).
    Complete(u32),
    /// A transfer finished (index into `transfers`).
    TransferDone(u32),
}

/// An event at its time, ordered by (time, sequence number) packed in one `u128` (D371): the
/// sequence numbers are unique, so the event itself never decides the order.
#[derive(Debug, Clone, Copy)]
struct Timed {
    key: u128,
    ev: Event,
}

impl Timed {
    fn new(t: Ps, seq: u64, ev: Event) -> Self {
        Self {
            key: key(t, seq),
            ev,
        }
    }

    fn time(&self) -> Ps {
        key_time(self.key)
    }
}

impl PartialEq for Timed {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}

impl Eq for Timed {}

impl PartialOrd for Timed {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for Timed {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.key.cmp(&o.key)
    }
}

/// Completion updates waiting for their time.
#[derive(Debug, Clone, Copy)]
struct Pending {
    updates: [Option<Update>; 2],
    source: Source,
}

/// The state of one subgraph's run.
pub(crate) struct Machine<'a> {
    /// The subgraph.
    pub subgraph: &'a LoadedSubgraph,
    /// The compiled programs, in the subgraph's engine order.
    pub programs: &'a [EngineProgram],
    /// Per program.
    pub engines: Vec<EngineRun>,
    /// Semaphores and events.
    pub sync: SyncState,
    /// The semaphores after the host started the inference.
    pub initial: SyncState,
    /// Who changed each object last.
    pub last_change: Vec<Source>,
    /// Objects NEFF instructions (or their transfers) wrote.
    pub touched: Vec<bool>,
    /// Per object, the engines blocked on it, one bit each (engine `e` is bit `e`; D370): a
    /// change wakes exactly these instead of scanning every engine's `blocked`. Used only
    /// when the subgraph has at most [`WAITER_BITS`] engines; else the scan.
    waiters: Vec<u64>,
    /// Device words.
    pub memory: WordMemory,
    /// DMA rings.
    pub queues: Queues,
    /// Every transfer.
    pub transfers: Vec<Transfer>,
    /// Issue records (when recording).
    pub records: Vec<Record>,
    /// Semaphore changes (when recording): (time, semaphore, value).
    pub sem_log: Vec<(Ps, u8, i64)>,
    /// Whether to keep records.
    pub record: bool,
    /// Instructions executed.
    pub steps: u64,
    /// First NEFF issue and last NEFF completion.
    pub main_window: (Ps, Ps),
    cost: &'a CostModel,
    max_steps: u64,
    heap: BinaryHeap<Reverse<Timed>>,
    /// Per engine when it tries to issue next, with the sequence number that orders equal
    /// times, or [`IDLE`] while blocked or done. Kept apart from the event heap (an engine has
    /// at most one pending attempt, and choosing among five is cheaper than a heap operation per
    /// instruction) and from [`EngineRun`], in one small array the run loop scans (D371).
    attempts: Vec<u128>,
    /// Per engine its DMA descriptors (the loaded engine's, found once).
    descriptors: Vec<&'a [GeneratedDescriptor]>,
    seq: u64,
    pending: Vec<Pending>,
    free_pending: Vec<u32>,
    scratch: Vec<Transfer>,
    throttle: (Ps, Ps, bool),
    /// What a MATMUL issued on a drained array adds to its latency (D815).
    matmul_idle: Ps,
}

impl<'a> Machine<'a> {
    /// A machine at time 0, every engine at its first op, the host's start gate open.
    pub(crate) fn new(
        subgraph: &'a LoadedSubgraph,
        programs: &'a [EngineProgram],
        cost: &'a CostModel,
        max_steps: u64,
        record: bool,
    ) -> Self {
        let t = &cost.table.pe_throttle;
        let mut m = Self {
            subgraph,
            programs,
            engines: programs.iter().map(|_| EngineRun::new()).collect(),
            sync: SyncState::default(),
            initial: SyncState::default(),
            last_change: vec![Source::Initial; 2 * SYNC_SLOTS],
            touched: vec![false; 2 * SYNC_SLOTS],
            waiters: vec![0; 2 * SYNC_SLOTS],
            memory: WordMemory::default(),
            queues: Queues::new(&subgraph.resources, cost),
            transfers: Vec::new(),
            records: Vec::new(),
            sem_log: Vec::new(),
            record,
            steps: 0,
            main_window: (Ps::MAX, 0),
            cost,
            max_steps,
            heap: BinaryHeap::new(),
            attempts: vec![IDLE; programs.len()],
            descriptors: (programs.iter())
                .map(|p| {
                    subgraph
                        .engine(p.engine)
                        .map_or(&[][..], |e| &e.descriptors)
                })
                .collect(),
            seq: 0,
            pending: Vec::new(),
            free_pending: Vec::new(),
            scratch: Vec::new(),
            throttle: (
                // D856: the warm-up is the array's work (7168 PE cycles in every episode), so
                // a what-if faster PE (`--engine-speed`, `--clock`) warms up in less time; the
                // idle that re-arms it is the array's rest, wall time.
                ps_from_ns(t.warm_ns * cost.knobs.time_scale(&cost.table.clocks, EngineType::Pe)),
                ps_from_ns(t.idle_reset_ns),
                t.factor > 1.0,
            ),
            matmul_idle: ps_from_ns(
                cost.table.matmul_idle_ns
                    * cost.knobs.time_scale(&cost.table.clocks, EngineType::Pe),
            ),
        };
        m.open_host_waits();
        m.initial = m.sync.clone();
        for e in 0..m.engines.len() {
            m.schedule(0, e);
        }
        m
    }

    /// The host's part (decision D193): every PREAMBLE wait on a semaphore or event that no
    /// PREAMBLE instruction and no transfer it starts can raise is one only the host (the
    /// runtime) satisfies — spec 000 §6.2 (A)'s inference-wait gate, the runtime model's `$E[4]`
    /// and `$S[1]` — so before time 0 the host raises it to the value that opens it. Only the
    /// PREAMBLE counts (D361): every engine stops at its gate, so nothing after it runs first; a
    /// MAIN whose DMA raises the gate's semaphore (a trn1 Pool queue's set holds `$S[30]`) does
    /// not open it.
    fn open_host_waits(&mut self) {
        let raised = self.raisable();
        for p in self.programs {
            for op in p.preamble_ops() {
                for w in p.waits(op) {
                    match w {
                        Wait::Sem {
                            idx,
                            cmp,
                            rhs: Operand::Imm(v),
                        } if !raised[SyncObject::Semaphore(idx).slot()] => {
                            let need = match cmp {
                                Cmp::Ge | Cmp::Eq => i64::from(v),
                                Cmp::Gt => i64::from(v) + 1,
                                Cmp::Lt | Cmp::Le => continue,
                            };
                            let s = &mut self.sync.sems[usize::from(idx)];
                            *s = (*s).max(need);
                        }
                        Wait::Event { idx, set: true, .. }
                            if !raised[SyncObject::Event(idx).slot()] =>
                        {
                            self.sync.events[usize::from(idx)] = true;
                        }
                        _ => {}
                    }
                }
            }
        }
    }

    /// Which objects some PREAMBLE instruction or its transfers can raise: semaphore
    /// increments and writes, event sets (updates and CLEAR_THEN_SET waits), and every
    /// semaphore a DMA trigger's transfers may raise.
    fn raisable(&self) -> Vec<bool> {
        let mut r = vec![false; 2 * SYNC_SLOTS];
        let queues = &self.subgraph.resources.queues;
        for (p, descs) in self.programs.iter().zip(&self.descriptors) {
            for op in p.preamble_ops() {
                for u in p.updates(op).iter().flatten() {
                    let up = !matches!(u.effect, Effect::EventClear)
                        && !matches!(u.effect, Effect::SemAdd(0) | Effect::SemSub(_));
                    r[u.object().slot()] |= up;
                }
                for w in p.waits(op) {
                    if let Wait::Event {
                        idx,
                        set: false,
                        flip: true,
                    } = w
                    {
                        r[SyncObject::Event(idx).slot()] = true;
                    }
                }
                match p.kind(op) {
                    OpKind::SemWrite { idx, .. } => r[usize::from(idx)] = true,
                    OpKind::DmaStart {
                        queue, descriptor, ..
                    } => {
                        let d = descriptor.and_then(|i| descs.get(i as usize));
                        if let Some(d) = d {
                            r[usize::from(d.semaphore)] = true;
                        } else if let Some(q) = queues.get(usize::from(queue)) {
                            let blocks = q.blocks.iter().filter_map(|b| b.semaphore);
                            for s in q.semaphores.iter().copied().chain(blocks) {
                                if let Ok(s) = u8::try_from(s) {
                                    r[usize::from(s)] = true;
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        r
    }

    fn push(&mut self, t: Ps, ev: Event) {
        self.seq += 1;
        self.heap.push(Reverse(Timed::new(t, self.seq, ev)));
    }

    /// Schedules engine `e`'s next attempt at `t`, unless one is pending or it is done.
    fn schedule(&mut self, t: Ps, e: usize) {
        if self.attempts[e] == IDLE && !self.engines[e].done {
            self.seq += 1;
            self.attempts[e] = key(t, self.seq);
        }
    }

    /// The engine with the earliest pending attempt, and that attempt's key.
    fn next_engine(&self) -> Option<(usize, u128)> {
        let mut best = (0, IDLE);
        for (e, &a) in self.attempts.iter().enumerate() {
            if a < best.1 {
                best = (e, a);
            }
        }
        (best.1 != IDLE).then_some(best)
    }

    /// The earliest thing that can happen besides engine `e`'s next attempt. Engine `e` is
    /// stepping, so its own attempt is [`IDLE`] and the minimum needs no test of the index.
    fn next_other(&self, e: usize) -> Option<Ps> {
        debug_assert_eq!(self.attempts[e], IDLE);
        let heap = self.heap.peek().map_or(IDLE, |Reverse(x)| x.key);
        let next = self.attempts.iter().fold(heap, |m, &a| m.min(a));
        (next != IDLE).then(|| key_time(next))
    }

    /// Runs until every engine is done, or nothing can move (a deadlock: some engine not done).
    pub(crate) fn run(&mut self) -> Result<(), SimError> {
        loop {
            let engine = self.next_engine();
            let event = self.heap.peek().map(|Reverse(x)| x.key);
            match (engine, event) {
                (Some((e, at)), ev) if ev.is_none_or(|ev| at < ev) => {
                    self.attempts[e] = IDLE;
                    self.step(e, key_time(at))?;
                    continue;
                }
                (_, None) => break,
                _ => {}
            }
            let Some(Reverse(x)) = self.heap.pop() else {
                break;
            };
            let t = x.time();
            match x.ev {
                Event::Complete(k) => {
                    let p = self.pending[k as usize];
                    self.free_pending.push(k);
                    for u in p.updates.iter().flatten().filter(|u| u.on_complete) {
                        self.change(t, |s| u.apply(s), p.source);
                    }
                }
                Event::TransferDone(k) => {
                    let tr = self.transfers[k as usize];
                    if let Some((s, n)) = tr.raises {
                        let raise = |st: &mut SyncState| {
                            st.sems[usize::from(s)] += n;
                            SyncObject::Semaphore(s)
                        };
                        self.change(t, raise, Source::Transfer(k));
                    }
                }
            }
        }
        Ok(())
    }

    /// Applies a change to the sync state at `t` and wakes the engines blocked on it.
    fn change(&mut self, t: Ps, f: impl FnOnce(&mut SyncState) -> SyncObject, source: Source) {
        let obj = f(&mut self.sync);
        self.note_change(t, obj, source);
    }

    fn note_change(&mut self, t: Ps, obj: SyncObject, source: Source) {
        self.last_change[obj.slot()] = source;
        if let (true, SyncObject::Semaphore(i)) = (self.record, obj) {
            self.sem_log.push((t, i, self.sync.sems[usize::from(i)]));
        }
        if self.engines.len() <= WAITER_BITS {
            // The same engines in the same (ascending) order as the scan below: the sequence
            // numbers, hence the order of equal-time attempts, do not change.
            let mut w = self.waiters[obj.slot()];
            while w != 0 {
                let e = w.trailing_zeros() as usize;
                w &= w - 1;
                self.schedule(t, e);
            }
            return;
        }
        for e in 0..self.engines.len() {
            if let Some(objs) = self.engines[e].blocked
                && objs.contains(&Some(obj))
            {
                self.schedule(t, e);
            }
        }
    }

    /// Records engine `e` as blocked on `objs` (replacing what it was blocked on), or as no
    /// longer blocked (`None`), in the waiter masks.
    fn set_blocked(&mut self, e: usize, objs: Option<[Option<SyncObject>; 2]>) {
        let old = std::mem::replace(&mut self.engines[e].blocked, objs);
        if self.engines.len() > WAITER_BITS {
            return;
        }
        let bit = 1u64 << e;
        for o in old.iter().flatten().flatten() {
            self.waiters[o.slot()] &= !bit;
        }
        for o in objs.iter().flatten().flatten() {
            self.waiters[o.slot()] |= bit;
        }
    }

    /// Issues engine `e`'s ops from time `now` while it can, scheduling its next attempt.
    fn step(&mut self, e: usize, mut now: Ps) -> Result<(), SimError> {
        let prog = &self.programs[e];
        loop {
            let run = &self.engines[e];
            if run.done {
                return Ok(());
            }
            if run.pc == prog.stop {
                let run = &mut self.engines[e];
                run.done = true;
                run.done_at = now.max(run.last_complete);
                return Ok(());
            }
            let op = &prog.ops[run.pc];
            let mut earliest = run.ready;
            if prog.price(op).cost.occupancy > 0 {
                earliest = earliest.max(run.unit_free);
            }
            if op.special().is_some() && matches!(prog.kind(op), OpKind::Drain) {
                earliest = earliest.max(run.last_complete);
            }
            if earliest > now {
                self.schedule(earliest, e);
                return Ok(());
            }
            let regs = &run.regs;
            let wait2 = prog.wait2(op);
            let wait = op.wait();
            if !(wait.holds(&self.sync, regs) && wait2.holds(&self.sync, regs)) {
                let objs = Some([wait.object(), wait2.object()]);
                let run = &mut self.engines[e];
                if run.blocked.is_none() {
                    run.blocked_since = now;
                }
                if run.blocked != objs {
                    self.set_blocked(e, objs);
                }
                return Ok(());
            }
            let op = *op;
            self.issue(e, &op, now)?;
            // Run ahead while nothing else can happen before this engine's next attempt.
            let next = self.engines[e].ready;
            match self.next_other(e) {
                Some(t) if t <= next => {
                    self.schedule(next, e);
                    return Ok(());
                }
                _ => now = next,
            }
        }
    }

    /// Issues `op` of engine `e` at `now`.
    fn issue(&mut self, e: usize, op: &Op, now: Ps) -> Result<(), SimError> {
        self.steps += 1;
        if self.steps > self.max_steps {
            return Err(SimError::StepBound {
                subgraph: self.subgraph.name.clone(),
                steps: self.max_steps,
            });
        }
        let cost = self.cost_now(e, op, now);
        let prog: &'a EngineProgram = &self.programs[e];
        let (waits, updates) = (prog.waits(op), prog.updates(op));
        let pc = self.engines[e].pc;
        let neff = self.programs[e].region(pc).is_neff();
        let glue = self.programs[e].glue.get(pc);
        let was_blocked = self.engines[e].blocked.is_some();
        if was_blocked {
            self.set_blocked(e, None);
        }
        let run = &mut self.engines[e];
        // Only a record keeps the cause.
        let cause = if !self.record {
            Cause::Start
        } else if was_blocked {
            let src = (waits.iter())
                .filter_map(Wait::object)
                .map(|o| self.last_change[o.slot()])
                .find(|s| *s != Source::Initial)
                .unwrap_or(Source::Initial);
            Cause::Sync(src)
        } else if run.last_record == NO_RECORD {
            Cause::Start
        } else {
            Cause::Engine(run.last_record)
        };
        if was_blocked && neff {
            let from = run.blocked_since.max(run.busy.end());
            run.wait += now.saturating_sub(from);
        }
        let mut complete = now + cost.latency;
        run.ready = now + cost.dispatch;
        if cost.occupancy > 0 {
            run.unit_free = now + cost.occupancy;
        }
        run.instructions += 1;
        let rec = if self.record {
            self.records.len() as u32
        } else {
            NO_RECORD
        };
        let source = Source::Op(rec);
        // Waits that flip their event on issue, then the _READ updates.
        for w in waits {
            if let Some(obj) = w.on_issue(&mut self.sync) {
                self.note_change(now, obj, source);
            }
        }
        for u in updates.iter().flatten().filter(|u| !u.on_complete) {
            self.change(now, |s| u.apply(s), source);
            self.touched[u.object().slot()] |= neff;
        }
        let mut next_pc = self.engines[e].pc + 1;
        match prog.kind(op) {
            OpKind::Plain | OpKind::Drain => {}
            OpKind::Halt => {
                let run = &mut self.engines[e];
                run.done = true;
                run.done_at = complete;
            }
            OpKind::Alu {
                op: a,
                width,
                dst,
                src0,
                src1,
            } => {
                let regs = &mut self.engines[e].regs;
                let b = match src1 {
                    Src::Reg(r) => regs.get(r),
                    Src::Imm(v) => v,
                };
                if let Some(v) = alu(a, width, regs.get(src0), b) {
                    regs.set(dst, v);
                }
            }
            OpKind::Branch {
                cmp,
                reg,
                imm,
                target,
            } => {
                let regs = &self.engines[e].regs;
                if branch_taken(cmp, regs.get(reg), imm).unwrap_or(false) {
                    let prog = &self.programs[e];
                    let to = match target {
                        Target::Offset(o) => o,
                        Target::Reg(r) => regs.get(r).wrapping_sub(prog.base) as i64,
                        Target::RelReg(r) => {
                            i64::from(prog.offset(pc)) + i64::from(regs.get(r) as u32 as i32)
                        }
                    };
                    next_pc = self.jump(e, pc, to)?;
                }
            }
            OpKind::Load { reg, addr } => {
                let a = self.src(e, addr);
                let v = self.memory.load(a);
                self.engines[e].regs.set(reg, u64::from(v));
            }
            OpKind::Store { value, addr } => {
                let (a, v) = (self.src(e, addr), self.src(e, value));
                self.memory.store(a, v as u32);
            }
            OpKind::RangeClear { first, last } => {
                for i in first..=last.max(first) {
                    self.sync.sems[usize::from(i)] = 0;
                    self.touched[usize::from(i)] |= neff;
                    self.note_change(now, SyncObject::Semaphore(i), source);
                }
            }
            OpKind::SemWrite { idx, value } => {
                self.sync.sems[usize::from(idx)] = i64::from(value);
                self.touched[usize::from(idx)] |= neff;
                self.note_change(now, SyncObject::Semaphore(idx), source);
            }
            OpKind::PollSem { reg, idx } => {
                let v = self.sync.sems[usize::from(idx)];
                self.engines[e].regs.set(reg, v as u64);
            }
            OpKind::DmaStart {
                queue,
                ring,
                count,
                descriptor,
            } => {
                let desc = descriptor.and_then(|i| self.descriptors[e].get(i as usize));
                let mut at = now;
                if desc.is_some() {
                    // The engine generates the descriptors before it issues on (D622).
                    let d = &self.cost.table.dma;
                    let gap = crate::time::ps_from_ns(d.dge_interval_ns);
                    let job =
                        crate::time::ps_from_ns(d.dge_job_ns[self.programs[e].engine.index()]);
                    let run = &mut self.engines[e];
                    run.ready = run.ready.max(now + gap);
                    if job > 0 {
                        // A generator still on earlier jobs takes this one after them: the
                        // instruction completes, and its transfers start, from then (D742).
                        at = now.max(run.dge_free);
                        run.dge_free = at + job;
                        complete = at + cost.latency;
                    }
                }
                let mut out = std::mem::take(&mut self.scratch);
                out.clear();
                self.queues
                    .trigger(at, queue, ring, count, desc, self.cost, rec, &mut out);
                for tr in out.drain(..) {
                    if let Some((s, _)) = tr.raises {
                        self.touched[usize::from(s)] |= neff;
                    }
                    let k = self.transfers.len() as u32;
                    self.transfers.push(tr);
                    self.push(tr.end, Event::TransferDone(k));
                }
                self.scratch = out;
            }
            OpKind::Collective { .. } => {
                // Single rank: the collective is a local copy; the doorbell WRITE completes
                // (and its _COMPLETE updates apply) when the copy is done (decision D194).
                let work = self.programs[e].price(op).work;
                complete = now + cost.latency.max(self.cost.collective(work));
            }
        }
        let mut on_complete = false;
        for u in updates.iter().flatten().filter(|u| u.on_complete) {
            self.touched[u.object().slot()] |= neff;
            on_complete = true;
        }
        if on_complete {
            let k = match self.free_pending.pop() {
                Some(k) => k,
                None => {
                    self.pending.push(Pending {
                        updates: [None, None],
                        source,
                    });
                    (self.pending.len() - 1) as u32
                }
            };
            self.pending[k as usize] = Pending { updates, source };
            self.push(complete, Event::Complete(k));
        }
        let run = &mut self.engines[e];
        run.last_complete = run.last_complete.max(complete);
        run.pc = next_pc;
        if neff {
            run.neff_instructions += 1;
            if !glue {
                run.busy.add(now, complete);
            }
            let w = &mut self.main_window;
            w.0 = w.0.min(now);
            w.1 = w.1.max(complete);
        }
        if self.record {
            self.engines[e].last_record = rec;
            self.records.push(Record {
                engine: e as u8,
                op: pc as u32,
                issue: now,
                complete,
                cause,
            });
        }
        Ok(())
    }

    /// The cost of `op` now: throttled or not (the PE activity throttle, [`crate::cost::Throttle`]).
    fn cost_now(&mut self, e: usize, op: &Op, now: Ps) -> OpCost {
        let (warm, idle_reset, enabled) = self.throttle;
        let price = *self.programs[e].price(op);
        if self.programs[e].engine != EngineType::Pe || price.cost.occupancy == 0 {
            return price.cost;
        }
        let run = &mut self.engines[e];
        let mut cost = price.cost;
        if enabled {
            if throttle_step(&mut run.throttle, now, warm, idle_reset) {
                cost = price.throttled;
                run.throttle.1 += cost.occupancy;
            }
            run.throttle.2 = now + cost.occupancy;
        }
        if cost.drain > 0 {
            // D815: an array with no MATMUL in flight takes longer to deliver the first.
            if now >= run.drained {
                cost.latency += self.matmul_idle;
            }
            // D813: its results leave the array after the previous MATMUL's.
            let done = (now + cost.latency).max(run.drained + cost.drain);
            cost.latency = done - now;
            run.drained = done;
        }
        cost
    }

    fn src(&self, e: usize, s: Src) -> u64 {
        match s {
            Src::Reg(r) => self.engines[e].regs.get(r),
            Src::Imm(v) => v,
        }
    }

    /// The op index at image byte `to`, which must be a slot of the image.
    fn jump(&self, e: usize, pc: usize, to: i64) -> Result<usize, SimError> {
        let prog = &self.programs[e];
        let slot = SLOT_BYTES as i64;
        let ok = to >= 0 && to % slot == 0 && ((to / slot) as usize) < prog.ops.len();
        if !ok {
            return Err(SimError::PcOutOfImage {
                subgraph: self.subgraph.name.clone(),
                engine: prog.engine,
                offset: u64::from(prog.offset(pc)),
                target: to,
            });
        }
        Ok((to / slot) as usize)
    }
}

/// The PE throttle's state at a streaming op issued at `now` (decision D195): `(active, busy,
/// last_end)`, whether an episode is on, how long the array has streamed throttled in it, when
/// the array's last streaming op ended (0: none yet). Returns whether the op runs throttled; the
/// caller adds its occupancy to `busy` when it does and sets `last_end`.
///
/// D856: an episode ends once the array has streamed `warm` in it, counted in busy time, not from
/// its start: an idle gap neither ends it nor begins a new one (baseline_bf16_s512 streams 2560
/// PE cycles throttled, idles 22.4 us, then stays throttled for 4608 more: 7168 in all, as the
/// first episodes of baseline_attention and fused_attention); an idle of `idle_reset` or more
/// after it ended begins the next.
fn throttle_step(state: &mut (bool, Ps, Ps), now: Ps, warm: Ps, idle_reset: Ps) -> bool {
    let (active, busy, last_end) = state;
    if !*active && (*last_end == 0 || now.saturating_sub(*last_end) >= idle_reset) {
        (*active, *busy) = (true, 0);
    }
    if *active && *busy >= warm {
        *active = false;
    }
    *active
}

#[cfg(test)]
mod tests {
    use super::*;

    /// D856 on baseline_bf16_s512's PE timeline (capture ns; a warm-up of 5773 ns busy and an
    /// idle reset of 10229 ns, the fitted constants): eight throttled MATMULs from 17.324 us
    /// (2.1 us busy), a 22.1 us idle, then the episode goes on throttled until its busy time
    /// reaches the warm-up; a later idle of the reset's length re-arms the warmed array, a
    /// 2.3 us one (fused_attention's) does not.
    #[test]
    fn an_idle_gap_does_not_end_an_episode_that_has_not_warmed_up() {
        let (warm, reset) = (ps_from_ns(5773.0), ps_from_ns(10229.0));
        let us = |x: f64| ps_from_ns(x * 1000.0);
        let mut st = (false, 0, 0);
        // The step as `cost_now` takes it: issue at `at`, throttled occupancy `occ` ns.
        let step = |st: &mut (bool, Ps, Ps), at: f64, occ: f64| {
            let on = throttle_step(st, us(at), warm, reset);
            if on {
                st.1 += ps_from_ns(occ);
            }
            st.2 = us(at) + ps_from_ns(if on { occ } else { occ / 2.0 });
            on
        };
        for k in 0..4 {
            assert!(step(&mut st, 17.324 + 0.427 * f64::from(k), 427.0));
        }
        for k in 0..4 {
            assert!(step(&mut st, 18.984 + 0.107 * f64::from(k), 107.0));
        }
        assert_eq!(st.1, ps_from_ns(4.0 * 427.0 + 4.0 * 107.0));
        // 22.1 us idle: the same episode, throttled, its busy time kept.
        assert!(step(&mut st, 41.704, 213.0));
        assert_eq!(st.1, ps_from_ns(2136.0 + 213.0));
        // Throttled while busy < warm-up: 17 more 213 ns MATMULs (5970 ns busy in all).
        let mut t = 41.917;
        for _ in 0..17 {
            assert!(step(&mut st, t, 213.0));
            t += 0.213;
        }
        // Warmed up (the capture's first fast MATMUL is at 45.760 us, 4.06 us in).
        assert!(!step(&mut st, t, 213.0));
        // A 2.3 us idle does not re-arm a warmed array; a 22 us one does, from zero.
        assert!(!step(&mut st, t + 2.4, 213.0));
        assert!(step(&mut st, t + 25.0, 213.0));
        assert_eq!(st.1, ps_from_ns(213.0));
    }
}
