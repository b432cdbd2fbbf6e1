//! Race detection (decision D680): a write that the semaphores and events do not order against
//! a read or a write of the same bytes by another engine or DMA queue.
//!
//! Happens-before is tracked with vector clocks. Each agent — an engine's instruction stream, or
//! a DMA queue (an engine's DIRECT2D ring, a named trigger queue), of any core — has a clock; an
//! instruction ticks its engine's clock once for its reads and once for its writes. An update
//! releases the engine's clock into the semaphore or event it writes (a `_READ` update before
//! the instruction's writes, a `_COMPLETE` one after); a wait that holds acquires (joins) the
//! clock of the object it reads. A DMA is its queue's: the transfer is ordered after the
//! instruction that issued it and after the queue's earlier transfers (a ring moves its
//! descriptors in order, D192), and its completion releases the queue's clock into the semaphore
//! it raises. Every access is checked against the shadow state of its bytes ([`super::shadow`]).
//!
//! The clocks are joined over every release a semaphore ever had, so a wait acquires more than
//! the one increment it needed: a race is reported only when no semaphore chain could order the
//! two accesses in the order the run took (no false report from the over-join; a race that only
//! another legal order exposes may be missed).

use std::collections::{BTreeMap, HashMap};

use neff_isa::EngineType;
use serde::Serialize;

use super::core::Core;
use super::error::SlotAt;
use super::hbm::Hbm;
use super::memory::{Mem, PSUM_PARTITION_BYTES, SBUF_PARTITION_BYTES, Touch};
use super::shadow::{Conflict, Shadow, Tag};
use crate::sync_state::SyncObject;

/// Races kept in full; further ones are counted (`RaceReport::more`).
pub const MAX_RACES: usize = 64;

/// A vector clock: one epoch per agent (missing agents are at 0).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Clock(Vec<u32>);

impl Clock {
    /// The epoch of `agent`.
    pub(crate) fn get(&self, agent: u32) -> u32 {
        self.0.get(agent as usize).copied().unwrap_or(0)
    }

    /// Sets the epoch of `agent`.
    pub(crate) fn set(&mut self, agent: u32, epoch: u32) {
        let a = agent as usize;
        if self.0.len() <= a {
            self.0.resize(a + 1, 0);
        }
        self.0[a] = epoch;
    }

    /// The pointwise maximum with `o`.
    fn join(&mut self, o: &Clock) {
        if self.0.len() < o.0.len() {
            self.0.resize(o.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a = (*a).max(*b);
        }
    }

    fn tick(&mut self, agent: u32) -> u32 {
        let e = self.get(agent) + 1;
        self.set(agent, e);
        e
    }
}

/// Who accessed memory.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Agent {
    /// An engine's instruction stream.
    Engine {
        /// The subgraph.
        subgraph: String,
        /// The engine.
        #[serde(serialize_with = "crate::engine_name::serialize")]
        engine: EngineType,
    },
    /// A DMA queue: an engine's DIRECT2D ring (`<engine> dge`) or a trigger queue by name.
    Queue {
        /// The subgraph.
        subgraph: String,
        /// The queue.
        queue: String,
    },
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Agent::Engine { subgraph, engine } => write!(f, "{subgraph}/{engine}"),
            Agent::Queue { subgraph, queue } => write!(f, "{subgraph} DMA queue `{queue}`"),
        }
    }
}

/// What the two accesses of a race are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RaceKind {
    /// Two writes.
    WriteWrite,
    /// A read, then an unordered write.
    ReadWrite,
    /// A write, then an unordered read.
    WriteRead,
}

impl RaceKind {
    fn text(self) -> &'static str {
        match self {
            RaceKind::WriteWrite => "write / write",
            RaceKind::ReadWrite => "read / write",
            RaceKind::WriteRead => "write / read",
        }
    }
}

/// One access of a race: who, and which instruction (a DMA's: the slot that issued it).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RaceAccess {
    /// The engine or queue.
    pub agent: Agent,
    /// The instruction.
    pub at: SlotAt,
}

/// Two accesses of the same bytes that no semaphore or event orders.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Race {
    /// Write / write, read / write, or write / read (first access / second, in the run's order).
    pub kind: RaceKind,
    /// The access the run made first.
    pub first: RaceAccess,
    /// The access the run made second.
    pub second: RaceAccess,
    /// `SBUF`, `PSUM` (of the subgraph) or the DRAM var's name.
    pub memory: String,
    /// The subgraph of an SBUF or PSUM memory (`None` for DRAM).
    pub subgraph: Option<String>,
    /// The first and one past the last byte both touched (for SBUF / PSUM: flat,
    /// partition-major; [`Race::partitions`] gives the partitions).
    pub bytes: [u64; 2],
    /// For SBUF / PSUM: the first and last partition of the range.
    pub partitions: Option<[u64; 2]>,
}

impl std::fmt::Display for Race {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "race ({}) on ", self.kind.text())?;
        match (&self.subgraph, self.partitions) {
            (Some(sg), Some([p0, p1])) => {
                let pb = if self.memory == "PSUM" {
                    PSUM_PARTITION_BYTES
                } else {
                    SBUF_PARTITION_BYTES
                } as u64;
                write!(
                    f,
                    "{sg} {} partitions {p0}..={p1} bytes {:#x}..{:#x} of the partition",
                    self.memory,
                    self.bytes[0] % pb,
                    (self.bytes[1] - 1) % pb + 1
                )?;
            }
            _ => write!(
                f,
                "`{}` bytes {}..{}",
                self.memory, self.bytes[0], self.bytes[1]
            )?,
        }
        write!(
            f,
            ": {} by {} then {} by {}, not ordered by a semaphore or event",
            self.first.at, self.first.agent, self.second.at, self.second.agent
        )
    }
}

/// Every race a run found.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RaceReport {
    /// The races, one per instruction pair and kind (byte ranges joined), in the order found.
    pub races: Vec<Race>,
    /// Further races not kept (past [`MAX_RACES`]).
    pub more: u64,
    /// The byte runs the shadow state held at the end, every memory together (its size:
    /// decision D680's bound).
    pub shadow_runs: u64,
}

/// A memory of a run, by core for the on-chip ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Place {
    OnChip(usize, Mem),
    Dram(usize),
}

/// The race detector of a run.
#[derive(Debug, Default)]
pub(crate) struct Detector {
    agents: Vec<Agent>,
    clocks: Vec<Clock>,
    engine_agent: HashMap<(usize, usize), u32>,
    queue_agent: HashMap<(usize, String), u32>,
    /// Per core, the clock released into each semaphore / event ([`SyncObject::slot`]).
    sync: HashMap<(usize, usize), Clock>,
    /// Instructions named by tags: (core, engine, slot).
    insts: Vec<(usize, usize, usize)>,
    inst_ids: HashMap<(usize, usize, usize), u32>,
    shadow: HashMap<Place, Shadow>,
    /// Races by (first inst, second inst, kind, place), index into `report.races`.
    seen: BTreeMap<(u32, u32, RaceKind, u64), usize>,
    report: RaceReport,
}

impl Detector {
    fn agent(&mut self, key: Agent) -> u32 {
        let id = self.agents.len() as u32;
        self.agents.push(key);
        self.clocks.push(Clock::default());
        id
    }

    /// The agent of engine `e` of core `c`.
    fn engine(&mut self, cores: &[Core<'_>], c: usize, e: usize) -> u32 {
        if let Some(&a) = self.engine_agent.get(&(c, e)) {
            return a;
        }
        let a = self.agent(Agent::Engine {
            subgraph: cores[c].name.clone(),
            engine: cores[c].engines[e].engine,
        });
        self.engine_agent.insert((c, e), a);
        a
    }

    fn queue(&mut self, cores: &[Core<'_>], c: usize, queue: &str) -> u32 {
        if let Some(&a) = self.queue_agent.get(&(c, queue.to_string())) {
            return a;
        }
        let a = self.agent(Agent::Queue {
            subgraph: cores[c].name.clone(),
            queue: queue.to_string(),
        });
        self.queue_agent.insert((c, queue.to_string()), a);
        a
    }

    /// A wait of engine `e` that held acquires what was released into `obj`.
    pub(crate) fn acquire(&mut self, cores: &[Core<'_>], c: usize, e: usize, obj: SyncObject) {
        let a = self.engine(cores, c, e) as usize;
        if let Some(k) = self.sync.get(&(c, obj.slot())) {
            self.clocks[a].join(k);
        }
    }

    /// Engine `e`'s update of `obj` releases its clock.
    pub(crate) fn release(&mut self, cores: &[Core<'_>], c: usize, e: usize, obj: SyncObject) {
        let a = self.engine(cores, c, e);
        self.release_agent(c, a, obj);
    }

    fn release_agent(&mut self, c: usize, a: u32, obj: SyncObject) {
        let k = self.sync.entry((c, obj.slot())).or_default();
        k.join(&self.clocks[a as usize]);
    }

    /// Ticks engine `e`'s clock (the start of an instruction's reads, or of its writes).
    pub(crate) fn tick(&mut self, cores: &[Core<'_>], c: usize, e: usize) {
        let a = self.engine(cores, c, e);
        self.clocks[a as usize].tick(a);
    }

    fn inst(&mut self, c: usize, e: usize, pc: usize) -> u32 {
        if let Some(&i) = self.inst_ids.get(&(c, e, pc)) {
            return i;
        }
        let i = self.insts.len() as u32;
        self.insts.push((c, e, pc));
        self.inst_ids.insert((c, e, pc), i);
        i
    }

    /// Checks and records the touches of slot `pc` of engine `e` (ticked twice: reads at the
    /// epoch before the current one, writes at the current one).
    pub(crate) fn engine_touches(
        &mut self,
        cores: &[Core<'_>],
        hbm: &Hbm,
        c: usize,
        e: usize,
        pc: usize,
        touches: &[Touch],
    ) {
        let a = self.engine(cores, c, e);
        let now = self.clocks[a as usize].get(a);
        self.check(cores, hbm, c, (e, pc), a, now, touches);
    }

    /// Checks and records a DMA's touches on `queue`, issued by slot `pc` of engine `e`; the
    /// semaphore its completion raises (if any) gets the queue's clock.
    #[allow(clippy::too_many_arguments)] // one DMA completion, every part named
    pub(crate) fn dma_touches(
        &mut self,
        cores: &[Core<'_>],
        hbm: &Hbm,
        c: usize,
        (e, pc): (usize, usize),
        queue: &str,
        touches: &[Touch],
        raise: Option<u8>,
    ) {
        let issuer = self.engine(cores, c, e) as usize;
        let q = self.queue(cores, c, queue);
        let k = self.clocks[issuer].clone();
        let clock = &mut self.clocks[q as usize];
        clock.join(&k);
        // Two ticks, as an instruction's: its reads, then its writes.
        clock.tick(q);
        let now = clock.tick(q);
        self.check(cores, hbm, c, (e, pc), q, now, touches);
        if let Some(s) = raise {
            self.release_agent(c, q, SyncObject::Semaphore(s));
        }
    }

    #[allow(clippy::too_many_arguments)] // the access's every coordinate
    fn check(
        &mut self,
        cores: &[Core<'_>],
        hbm: &Hbm,
        c: usize,
        (e, pc): (usize, usize),
        agent: u32,
        now: u32,
        touches: &[Touch],
    ) {
        let inst = self.inst(c, e, pc);
        let clock = self.clocks[agent as usize].clone();
        let mut found = Vec::new();
        // Reads first (the earlier epoch), then writes.
        for t in touches
            .iter()
            .filter(|t| !t.write)
            .chain(touches.iter().filter(|t| t.write))
        {
            let place = match t.mem {
                Mem::Dram(i) => Place::Dram(i),
                m => Place::OnChip(c, m),
            };
            let epoch = if t.write { now } else { now - 1 };
            let tag = Tag { agent, epoch, inst };
            let shadow = self.shadow.entry(place).or_default();
            // A per-partition column's runs in partition order: the accesses its touches were
            // one by one before D829.
            for (start, end) in t.runs() {
                let mut out: Vec<Conflict> = Vec::new();
                shadow.access(start, end, t.write, tag, &clock, &mut out);
                found.extend(out.into_iter().map(|x| (place, t.write, x)));
            }
        }
        for (place, write, x) in found {
            self.note(cores, hbm, place, inst, agent, write, x);
        }
    }

    #[allow(clippy::too_many_arguments)] // one conflict with its context
    fn note(
        &mut self,
        cores: &[Core<'_>],
        hbm: &Hbm,
        place: Place,
        inst: u32,
        agent: u32,
        write: bool,
        x: Conflict,
    ) {
        let kind = match (x.prior_write, write) {
            (true, true) => RaceKind::WriteWrite,
            (false, true) => RaceKind::ReadWrite,
            _ => RaceKind::WriteRead,
        };
        let place_key = match place {
            Place::OnChip(c, Mem::Sbuf) => (c as u64) << 2,
            Place::OnChip(c, _) => ((c as u64) << 2) | 1,
            Place::Dram(i) => ((i as u64) << 2) | 2,
        };
        let key = (x.prior.inst, inst, kind, place_key);
        if let Some(&i) = self.seen.get(&key) {
            let r = &mut self.report.races[i];
            r.bytes = [r.bytes[0].min(x.start as u64), r.bytes[1].max(x.end as u64)];
            if let (Some(p), "SBUF" | "PSUM") = (&mut r.partitions, r.memory.as_str()) {
                let pb = partition_bytes(&r.memory);
                *p = [r.bytes[0] / pb, (r.bytes[1] - 1) / pb];
            }
            return;
        }
        if self.report.races.len() >= MAX_RACES {
            self.report.more += 1;
            return;
        }
        let access = |d: &Self, inst: u32, agent: u32| {
            let (c, e, pc) = d.insts[inst as usize];
            RaceAccess {
                agent: d.agents[agent as usize].clone(),
                at: cores[c].at(e, pc),
            }
        };
        let (memory, subgraph) = match place {
            Place::OnChip(c, m) => (
                if m == Mem::Psum { "PSUM" } else { "SBUF" }.to_string(),
                Some(cores[c].name.clone()),
            ),
            Place::Dram(i) => (hbm.buffers[i].name.clone(), None),
        };
        let partitions = subgraph.as_ref().map(|_| {
            let pb = partition_bytes(&memory);
            [x.start as u64 / pb, (x.end as u64 - 1) / pb]
        });
        let race = Race {
            kind,
            first: access(self, x.prior.inst, x.prior.agent),
            second: access(self, inst, agent),
            memory,
            subgraph,
            bytes: [x.start as u64, x.end as u64],
            partitions,
        };
        self.seen.insert(key, self.report.races.len());
        self.report.races.push(race);
    }

    /// The races found.
    pub(crate) fn finish(self) -> RaceReport {
        let mut r = self.report;
        r.shadow_runs = self.shadow.values().map(|s| s.len() as u64).sum();
        r
    }
}

fn partition_bytes(memory: &str) -> u64 {
    if memory == "PSUM" {
        PSUM_PARTITION_BYTES as u64
    } else {
        SBUF_PARTITION_BYTES as u64
    }
}

#[cfg(test)]
mod tests {
    use neff_isa::payload::CopyCastMut;
    use neff_isa::{Dtype, EngineType, Events, Opcode, SlotBuf, UpdateMode, WaitMode};

    use super::super::core::Core;
    use super::super::hbm::Hbm;
    use super::super::testing::{direct2d, dram, fill, read, row, run_races, slot, vars};
    use super::*;

    const F32: Dtype = Dtype::Float32;

    /// COPY of 4 fp32 per partition over 2 partitions, SBUF `from` -> `to`, with `events`.
    fn copy(from: u32, to: u32, events: Events) -> SlotBuf {
        let mut s = slot(Opcode::COPY, |b| {
            CopyCastMut(b)
                .src(row(from, 4, F32))
                .dst(row(to, 4, F32))
                .channels(2);
        });
        s.set_events(events);
        s
    }

    fn update(mode: UpdateMode) -> Events {
        Events {
            update_mode: mode as u8,
            update_idx: 5,
            semaphore_value: 1,
            ..Events::NONE
        }
    }

    /// Wait for `$S[idx] >= 1`.
    fn wait(idx: u8) -> Events {
        Events {
            wait_mode: WaitMode::SemGeImm as u8,
            wait_idx: idx,
            semaphore_value: 1,
            ..Events::NONE
        }
    }

    /// ACT runs `act`, then DVE runs `dve` (the loop's engine order); SBUF 0x100 holds 1..8.
    fn two_engines(act: &[SlotBuf], dve: &[SlotBuf]) -> (RaceReport, Vec<f64>) {
        let (a, d) = (
            super::super::testing::stream(act),
            super::super::testing::stream(dve),
        );
        let streams = [(EngineType::Act, &a[..]), (EngineType::Dve, &d[..])];
        let mut c = Core::new(
            "sg00".into(),
            None,
            &streams,
            Vec::new(),
            Vec::new(),
            Default::default(),
        );
        fill(
            &mut c,
            0x100,
            2,
            F32,
            &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0],
        );
        let r = run_races(&mut c, &mut Hbm::default()).unwrap();
        (r, read(&c, 0x800, 2, 4, F32))
    }

    /// ACT writes SBUF 0x400 (both partitions), DVE reads it with nothing ordering the two:
    /// one write / read race on exactly those bytes, naming both slots.
    #[test]
    fn an_unordered_read_of_another_engines_write_is_a_race() {
        let (r, _) = two_engines(
            &[copy(0x100, 0x400, Events::NONE)],
            &[copy(0x400, 0x800, Events::NONE)],
        );
        assert_eq!(r.races.len(), 1, "{:?}", r.races);
        let race = &r.races[0];
        assert_eq!(race.kind, RaceKind::WriteRead);
        assert_eq!(race.memory, "SBUF");
        assert_eq!(race.first.at.engine, EngineType::Act);
        assert_eq!(race.second.at.engine, EngineType::Dve);
        assert_eq!((race.first.at.slot, race.second.at.slot), (0, 0));
        assert_eq!(race.partitions, Some([0, 1]));
        assert_eq!(race.bytes, [0x400, 0x40000 + 0x410]);
        let text = race.to_string();
        assert!(
            text.contains("partitions 0..=1 bytes 0x400..0x410"),
            "{text}"
        );
        assert!(text.contains("sg00/act slot 0 (COPY)"), "{text}");
    }

    /// The fixed twin: ACT's COPY raises `$S[5]` at completion, DVE waits for it: no race, and
    /// DVE copies ACT's values.
    #[test]
    fn a_completion_semaphore_orders_the_two_engines() {
        let (r, got) = two_engines(
            &[copy(0x100, 0x400, update(UpdateMode::SemIncComplete))],
            &[copy(0x400, 0x800, wait(5))],
        );
        assert_eq!(r.races, []);
        assert_eq!(got, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    }

    /// A `_READ` update is released when the instruction has read its operands, before its
    /// writes: the reader waiting on it still races with the write.
    #[test]
    fn a_read_update_does_not_order_the_write() {
        let (r, _) = two_engines(
            &[copy(0x100, 0x400, update(UpdateMode::SemIncRead))],
            &[copy(0x400, 0x800, wait(5))],
        );
        assert_eq!(r.races.len(), 1);
        assert_eq!(r.races[0].kind, RaceKind::WriteRead);
    }

    /// ACT reads 0x400 while DVE overwrites it, unordered: a read / write race; two engines
    /// writing adjacent bytes (0x400.. and 0x410..) do not race.
    #[test]
    fn an_unordered_overwrite_is_a_race_and_adjacent_bytes_are_not() {
        let (r, _) = two_engines(
            &[copy(0x400, 0x800, Events::NONE)],
            &[copy(0x100, 0x400, Events::NONE)],
        );
        assert_eq!(r.races.len(), 1);
        assert_eq!(r.races[0].kind, RaceKind::ReadWrite);
        let (r, _) = two_engines(
            &[copy(0x100, 0x400, Events::NONE)],
            &[copy(0x100, 0x410, Events::NONE)],
        );
        assert_eq!(r.races, []);
    }

    /// A DMA runs on its queue, not on the engine that issued it: the issuing engine's own next
    /// instruction reading the destination races with it unless it waits for the DMA's
    /// semaphore ($S[3]).
    #[test]
    fn a_dma_is_ordered_by_its_semaphore_not_by_its_issuer() {
        let go = |events: Events| {
            let bytes = super::super::testing::stream(&[
                direct2d(0, [4, 16], [4, 0x40000], [4, 2]),
                copy(0, 0x800, events),
            ]);
            let mut c = Core::new(
                "sg00".into(),
                None,
                &[(EngineType::Sp, &bytes[..])],
                vars(),
                Vec::new(),
                Default::default(),
            );
            let mut hbm = dram(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
            let r = run_races(&mut c, &mut hbm).unwrap();
            (r, read(&c, 0x800, 2, 4, F32))
        };
        let (r, _) = go(Events::NONE);
        assert_eq!(r.races.len(), 1, "{:?}", r.races);
        let race = &r.races[0];
        assert_eq!(race.kind, RaceKind::WriteRead);
        assert_eq!(
            race.first.agent,
            Agent::Queue {
                subgraph: "sg00".into(),
                queue: "sp DIRECT2D".into()
            }
        );
        assert_eq!(race.first.at.opcode, "PSEUDO_DMA_DIRECT2D");
        let (r, got) = go(wait(3));
        assert_eq!(r.races, []);
        assert_eq!(got, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    }
}
