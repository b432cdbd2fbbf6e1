//! A profile's rows streamed to a sink, borrowed, one at a time (issue 28 item 3): what
//! `neff profile --jsonl / --trace / --perfetto / --parquet` and the streaming summary consume,
//! so that a capture of gigabytes never has every row in memory. The capture path is the same
//! code [`Profile::from_capture`] collects, so the repository test of the rows against the
//! vendor's reports checks it (reference-ntff §3, §5; D402-D405).

use neff_isa::{EngineType, SLOT_SHIFT, Slot};

use crate::capture::CaptureFacts;
use crate::decode::DecodeStats;
use crate::event::{DmaEvent, EventSink, InstructionEvent, SemaphoreEvent, ThrottleEvent};
use crate::instruction::ProfiledInstruction;
use crate::mnemonic::profiler_name;
use crate::ntff::Capture;
use crate::queue::label_of;
use crate::read::Profile;
use crate::rows::{DmaTransfer, SemaphoreUpdate, ThrottleRow};
use crate::slot_map::neff_slot;
use crate::time::TimeBase;

/// One executed instruction, with the vendor's names and nanoseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InstructionView<'a> {
    /// The subgraph.
    pub subgraph: &'a str,
    /// The engine, when the row names one.
    pub engine: Option<EngineType>,
    /// The vendor's queue label (`TensorMatrix`).
    pub label: &'a str,
    /// The vendor's mnemonic (empty when the loaded slot does not decode).
    pub opcode: &'a str,
    /// Slot index in the engine's loaded stream.
    pub pc: u64,
    /// Slot index in the NEFF's engine stream (`compiler_pc`); `None` for the runtime's code.
    pub neff_slot: Option<u64>,
    /// Start, ns.
    pub timestamp: u64,
    /// Start to end, ns.
    pub duration: u64,
    /// Time waited on events, ns.
    pub evt_wait_time: Option<u64>,
    /// The end record's crc in.
    pub crc_in: Option<u64>,
    /// The end record's crc out.
    pub crc_out: Option<u64>,
    /// A report's operand text (empty from a capture: it holds the slot, not the vendor's
    /// decoding).
    pub operands: &'a str,
    /// A report's `compiler_opcode`.
    pub compiler_opcode: Option<&'a str>,
    /// A report's `compiler_operands`.
    pub compiler_operands: Option<&'a str>,
}

/// One DMA transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DmaView<'a> {
    /// The subgraph.
    pub subgraph: &'a str,
    /// The DMA engine id.
    pub dma_engine: u64,
    /// The queue.
    pub dma_queue: u64,
    /// Transfer size, bytes.
    pub size: u64,
    /// Start, ns (DMA clock units when not aligned: D403).
    pub timestamp: u64,
    /// Start to data done, ns.
    pub duration: u64,
    /// The transfer's crc.
    pub crc: Option<u64>,
}

/// One semaphore update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SemaphoreView<'a> {
    /// The subgraph.
    pub subgraph: &'a str,
    /// The semaphore's index.
    pub index: u64,
    /// The new value.
    pub value: i64,
    /// When, ns.
    pub timestamp: u64,
}

/// One throttle state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThrottleView<'a> {
    /// The subgraph.
    pub subgraph: &'a str,
    /// The vendor's `k`.
    pub k: u64,
    /// The vendor's `type`.
    pub kind: u64,
    /// The vendor's `n`.
    pub n: u64,
    /// Start, ns.
    pub timestamp: u64,
    /// Until the next state, ns.
    pub duration: u64,
}

/// What a row stream hands each row to.
pub trait RowSink {
    /// An instruction row.
    fn instruction(&mut self, r: &InstructionView<'_>);
    /// A DMA row.
    fn dma(&mut self, r: &DmaView<'_>);
    /// A semaphore row.
    fn semaphore(&mut self, r: &SemaphoreView<'_>);
    /// A throttle row.
    fn throttle(&mut self, r: &ThrottleView<'_>);
}

/// Finds the earliest instruction start (the origin of a capture without a window, D402).
#[derive(Default)]
struct FirstStart(Option<u64>);

impl EventSink for FirstStart {
    fn instruction(&mut self, e: InstructionEvent) {
        self.0 = Some(self.0.map_or(e.start_ps, |f| f.min(e.start_ps)));
    }
    fn dma(&mut self, _: DmaEvent) {}
    fn semaphore(&mut self, _: SemaphoreEvent) {}
    fn throttle(&mut self, _: ThrottleEvent) {}
}

impl Capture<'_> {
    /// The capture's time base: from the window when it has one, else (v4, v5) from a first
    /// pass over the instruction records (D402).
    pub fn time_base(&self) -> TimeBase {
        if self.facts.window.is_some() {
            return TimeBase::of(&self.facts, None);
        }
        let mut first = FirstStart::default();
        self.decode(&mut first);
        TimeBase::of(&self.facts, first.0)
    }

    /// Streams the capture's rows, as the vendor names and times them, into `sink` in one pass
    /// over the records (two when the capture has no window).
    pub fn rows(&self, sink: &mut impl RowSink) -> (TimeBase, DecodeStats) {
        let tb = self.time_base();
        let mut rows = Rows::new(self, tb, sink);
        let stats = self.decode(&mut rows);
        rows.finish();
        (tb, stats)
    }
}

/// Streams already decoded events of `cap` as rows (the time base from their first start, as a
/// decode would find it).
pub(crate) fn replay_rows(
    cap: &Capture<'_>,
    ev: &crate::event::CaptureEvents,
    sink: &mut impl RowSink,
) -> TimeBase {
    let first = ev.instructions.iter().map(|i| i.start_ps).min();
    let tb = TimeBase::of(&cap.facts, first);
    let mut rows = Rows::new(cap, tb, sink);
    ev.instructions.iter().for_each(|&e| rows.instruction(e));
    ev.dmas.iter().for_each(|&e| rows.dma(e));
    ev.semaphores.iter().for_each(|&e| rows.semaphore(e));
    ev.throttles.iter().for_each(|&e| rows.throttle(e));
    rows.finish();
    tb
}

/// The decoder's events turned into rows: the vendor's filters (start >= T0, end <= T1), names
/// and nanoseconds.
struct Rows<'c, 'f, S> {
    cap: &'c Capture<'f>,
    tb: TimeBase,
    sink: &'c mut S,
    /// Subgraph names by index; the last is for records of no known subgraph.
    names: Vec<String>,
    /// Per subgraph (same index): the pending throttle record and the last kept instruction end.
    pending: Vec<Option<ThrottleEvent>>,
    last_end: Vec<Option<u64>>,
}

impl<'c, 'f, S: RowSink> Rows<'c, 'f, S> {
    fn new(cap: &'c Capture<'f>, tb: TimeBase, sink: &'c mut S) -> Self {
        let mut names: Vec<String> = cap.facts.subgraphs.iter().map(|s| s.name.clone()).collect();
        // Records of a core without a subgraph (decode gives them u16::MAX).
        names.push(format!("core{}", u16::MAX));
        let n = names.len();
        Self {
            cap,
            tb,
            sink,
            names,
            pending: vec![None; n],
            last_end: vec![None; n],
        }
    }

    fn at(&self, sg: u16) -> usize {
        usize::from(sg).min(self.names.len() - 1)
    }

    /// The pending throttle rows of every subgraph, each until its subgraph's last kept
    /// instruction end (D405).
    fn finish(&mut self) {
        for i in 0..self.names.len() {
            if let (Some(t), Some(end)) = (self.pending[i].take(), self.last_end[i]) {
                self.throttle_row(i, t, end);
            }
        }
    }

    fn throttle_row(&mut self, i: usize, t: ThrottleEvent, end: u64) {
        if !self.tb.keeps(t.ts, end) {
            return;
        }
        self.sink.throttle(&ThrottleView {
            subgraph: &self.names[i],
            k: u64::from(t.k),
            kind: u64::from(t.kind),
            n: u64::from(t.n),
            timestamp: self.tb.ns(t.ts),
            duration: TimeBase::duration_ns(t.ts, end),
        });
    }
}

/// The vendor's mnemonic of the loaded slot at `pc` ("" when it does not decode).
fn mnemonic_at(cap: &Capture<'_>, facts: &CaptureFacts, e: &InstructionEvent) -> &'static str {
    facts
        .subgraphs
        .get(usize::from(e.subgraph))
        .and_then(|s| s.stream(e.engine))
        .and_then(|s| {
            let at = (e.pc as usize) << SLOT_SHIFT;
            Slot::from_slice(cap.stream_bytes(s).get(at..)?)
        })
        .and_then(|s| s.opcode().mnemonic())
        .map(profiler_name)
        .unwrap_or("")
}

impl<S: RowSink> EventSink for Rows<'_, '_, S> {
    fn instruction(&mut self, e: InstructionEvent) {
        if !self.tb.keeps(e.start_ps, e.end_ps) {
            return;
        }
        let i = self.at(e.subgraph);
        self.last_end[i] = Some(self.last_end[i].map_or(e.end_ps, |l| l.max(e.end_ps)));
        let facts = &self.cap.facts;
        let stream = facts
            .subgraphs
            .get(usize::from(e.subgraph))
            .and_then(|s| s.stream(e.engine));
        let opcode = mnemonic_at(self.cap, facts, &e);
        self.sink.instruction(&InstructionView {
            subgraph: &self.names[i],
            engine: Some(e.engine),
            label: label_of(e.engine, opcode),
            opcode,
            pc: u64::from(e.pc),
            neff_slot: stream.and_then(|s| neff_slot(s, u64::from(e.pc))),
            timestamp: self.tb.ns(e.start_ps),
            duration: TimeBase::duration_ns(e.start_ps, e.end_ps),
            evt_wait_time: Some(self.tb.wait_ns(e.wait_cycles)),
            crc_in: Some(u64::from(e.crc_in)),
            crc_out: Some(u64::from(e.crc_out)),
            operands: "",
            compiler_opcode: None,
            compiler_operands: None,
        });
    }

    fn dma(&mut self, d: DmaEvent) {
        let tb = self.tb;
        if tb.dma_aligned && !tb.keeps(d.start, d.end) {
            return;
        }
        let i = self.at(d.subgraph);
        self.sink.dma(&DmaView {
            subgraph: &self.names[i],
            dma_engine: u64::from(d.dma_engine),
            dma_queue: u64::from(d.queue),
            size: u64::from(d.size),
            // Not aligned (trn1, D403): the DMA clock's own units, not a guess at ns.
            timestamp: if tb.dma_aligned {
                tb.ns(d.start)
            } else {
                d.start
            },
            duration: TimeBase::duration_ns(d.start, d.end),
            crc: Some(u64::from(d.crc)),
        });
    }

    fn semaphore(&mut self, s: SemaphoreEvent) {
        if !s.is_semaphore || !self.tb.keeps(s.ts_ps, s.ts_ps) {
            return;
        }
        let i = self.at(s.subgraph);
        self.sink.semaphore(&SemaphoreView {
            subgraph: &self.names[i],
            index: u64::from(s.index),
            value: i64::from(s.value),
            timestamp: self.tb.ns(s.ts_ps),
        });
    }

    /// A throttle state lasts until the next of its subgraph (reference §3): emitted when that
    /// next one arrives.
    fn throttle(&mut self, t: ThrottleEvent) {
        let i = self.at(t.subgraph);
        if let Some(prev) = self.pending[i].replace(t) {
            self.throttle_row(i, prev, t.ts);
        }
    }
}

impl ProfiledInstruction {
    /// The row as a borrowed view.
    pub fn view(&self) -> InstructionView<'_> {
        InstructionView {
            subgraph: &self.subgraph,
            engine: self.engine(),
            label: &self.label,
            opcode: &self.opcode,
            pc: self.pc,
            neff_slot: self.compiler_pc,
            timestamp: self.timestamp,
            duration: self.duration,
            evt_wait_time: self.evt_wait_time,
            crc_in: self.crc_in,
            crc_out: self.crc_out,
            operands: &self.operands,
            compiler_opcode: self.compiler_opcode.as_deref(),
            compiler_operands: self.compiler_operands.as_deref(),
        }
    }
}

impl Profile {
    /// Streams the rows this profile holds (a report's, or a collected capture's) into `sink`:
    /// instructions, then DMA, semaphores, throttle.
    pub fn rows(&self, sink: &mut impl RowSink) {
        for i in &self.instructions {
            sink.instruction(&i.view());
        }
        for d in &self.dma {
            sink.dma(&DmaView {
                subgraph: &d.subgraph,
                dma_engine: d.dma_engine,
                dma_queue: d.dma_queue,
                size: d.size,
                timestamp: d.timestamp,
                duration: d.duration,
                crc: d.crc,
            });
        }
        for s in &self.semaphore_update {
            sink.semaphore(&SemaphoreView {
                subgraph: &s.subgraph,
                index: s.index,
                value: s.value,
                timestamp: s.timestamp,
            });
        }
        for h in &self.ham {
            sink.throttle(&ThrottleView {
                subgraph: &h.subgraph,
                k: h.k,
                kind: h.kind,
                n: h.n,
                timestamp: h.timestamp,
                duration: h.duration,
            });
        }
    }
}

/// The rows collected as the vendor-named [`Profile`] rows.
#[derive(Default)]
pub(crate) struct Collect {
    pub(crate) instructions: Vec<ProfiledInstruction>,
    pub(crate) dma: Vec<DmaTransfer>,
    pub(crate) semaphore_update: Vec<SemaphoreUpdate>,
    pub(crate) ham: Vec<ThrottleRow>,
}

/// An instruction row, owned.
pub(crate) fn owned(r: &InstructionView<'_>) -> ProfiledInstruction {
    ProfiledInstruction {
        subgraph: r.subgraph.to_string(),
        label: r.label.to_string(),
        opcode: r.opcode.to_string(),
        pc: r.pc,
        compiler_pc: r.neff_slot,
        operands: r.operands.to_string(),
        compiler_opcode: r.compiler_opcode.map(str::to_string),
        compiler_operands: r.compiler_operands.map(str::to_string),
        timestamp: r.timestamp,
        duration: r.duration,
        evt_wait_time: r.evt_wait_time,
        crc_in: r.crc_in,
        crc_out: r.crc_out,
    }
}

impl RowSink for Collect {
    fn instruction(&mut self, r: &InstructionView<'_>) {
        self.instructions.push(owned(r));
    }
    fn dma(&mut self, r: &DmaView<'_>) {
        self.dma.push(DmaTransfer {
            subgraph: r.subgraph.to_string(),
            dma_engine: r.dma_engine,
            dma_queue: r.dma_queue,
            size: r.size,
            timestamp: r.timestamp,
            duration: r.duration,
            crc: r.crc,
        });
    }
    fn semaphore(&mut self, r: &SemaphoreView<'_>) {
        self.semaphore_update.push(SemaphoreUpdate {
            subgraph: r.subgraph.to_string(),
            index: r.index,
            value: r.value,
            timestamp: r.timestamp,
        });
    }
    fn throttle(&mut self, r: &ThrottleView<'_>) {
        self.ham.push(ThrottleRow {
            subgraph: r.subgraph.to_string(),
            k: r.k,
            kind: r.kind,
            n: r.n,
            timestamp: r.timestamp,
            duration: r.duration,
        });
    }
}
