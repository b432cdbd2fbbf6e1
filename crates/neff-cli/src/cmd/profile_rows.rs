//! The streamed outputs of `neff profile`: JSON lines and a Chrome trace, each a
//! [`RowSink`] writing rows as they arrive (issue 28 item 3: memory bounded whatever the
//! capture's size). A write error is kept and returned by `finish` (a closed pipe ends quietly,
//! D300).

use std::io::{self, Write};

use neff_isa::EngineType;
use neff_profile::{DmaView, InstructionView, RowSink, SemaphoreView, ThrottleView};
use serde_json::{Value, json};

/// The `--jsonl` row of an instruction (also the `top` rows of `--json`).
pub(crate) fn instruction_row(i: &InstructionView<'_>) -> Value {
    json!({
        "kind": "instruction",
        "subgraph": i.subgraph,
        "engine": i.engine.map(EngineType::key),
        "label": i.label,
        "opcode": i.opcode,
        "pc": i.pc,
        "neff_slot": i.neff_slot,
        "timestamp": i.timestamp,
        "duration": i.duration,
        "evt_wait_time": i.evt_wait_time,
        "crc_in": i.crc_in,
        "crc_out": i.crc_out,
    })
}

/// Writes `row` and a newline unless an earlier write failed.
fn put(out: &mut impl Write, error: &mut Option<io::Error>, row: &Value) {
    if error.is_some() {
        return;
    }
    let r = serde_json::to_writer(&mut *out, row)
        .map_err(io::Error::from)
        .and_then(|()| out.write_all(b"\n"));
    if let Err(e) = r {
        *error = Some(e);
    }
}

/// One JSON object per row, `kind` = instruction | dma | semaphore | throttle.
pub(crate) struct JsonLines<W: Write> {
    out: W,
    error: Option<io::Error>,
}

impl<W: Write> JsonLines<W> {
    pub(crate) fn new(out: W) -> Self {
        Self { out, error: None }
    }

    pub(crate) fn finish(mut self) -> io::Result<W> {
        match self.error {
            Some(e) => Err(e),
            None => self.out.flush().map(|()| self.out),
        }
    }
}

impl<W: Write> RowSink for JsonLines<W> {
    fn instruction(&mut self, r: &InstructionView<'_>) {
        put(&mut self.out, &mut self.error, &instruction_row(r));
    }
    fn dma(&mut self, d: &DmaView<'_>) {
        let row = json!({"kind": "dma", "subgraph": d.subgraph, "dma_engine": d.dma_engine,
            "dma_queue": d.dma_queue, "size": d.size, "timestamp": d.timestamp,
            "duration": d.duration, "crc": d.crc});
        put(&mut self.out, &mut self.error, &row);
    }
    fn semaphore(&mut self, s: &SemaphoreView<'_>) {
        let row = json!({"kind": "semaphore", "subgraph": s.subgraph, "index": s.index,
            "value": s.value, "timestamp": s.timestamp});
        put(&mut self.out, &mut self.error, &row);
    }
    fn throttle(&mut self, h: &ThrottleView<'_>) {
        let row = json!({"kind": "throttle", "subgraph": h.subgraph, "k": h.k, "type": h.kind,
            "n": h.n, "timestamp": h.timestamp, "duration": h.duration});
        put(&mut self.out, &mut self.error, &row);
    }
}

/// Chrome trace events: a process per subgraph (numbered in order of appearance), a thread per
/// engine and per DMA queue, times in microseconds. Written as one JSON object, event by event.
pub(crate) struct ChromeTrace<W: Write> {
    out: W,
    error: Option<io::Error>,
    subgraphs: Vec<String>,
    first: bool,
}

impl<W: Write> ChromeTrace<W> {
    pub(crate) fn new(mut out: W) -> Self {
        let error = out.write_all(b"{\"traceEvents\":[\n").err();
        Self {
            out,
            error,
            subgraphs: Vec::new(),
            first: true,
        }
    }

    pub(crate) fn finish(mut self) -> io::Result<W> {
        if self.error.is_none() {
            self.error = self
                .out
                .write_all(b"\n],\"displayTimeUnit\":\"ns\"}\n")
                .err();
        }
        match self.error {
            Some(e) => Err(e),
            None => self.out.flush().map(|()| self.out),
        }
    }

    fn event(&mut self, v: &Value) {
        if !self.first && self.error.is_none() {
            self.error = self.out.write_all(b",\n").err();
        }
        self.first = false;
        if self.error.is_none() {
            self.error = serde_json::to_writer(&mut self.out, v)
                .map_err(io::Error::from)
                .err();
        }
    }

    /// The pid of `sg`, with its process and thread names on first sight.
    fn pid(&mut self, sg: &str) -> usize {
        if let Some(p) = self.subgraphs.iter().position(|s| s == sg) {
            return p;
        }
        let pid = self.subgraphs.len();
        self.subgraphs.push(sg.to_string());
        self.event(&json!({"ph": "M", "name": "process_name", "pid": pid, "args": {"name": sg}}));
        for e in EngineType::ALL {
            self.event(&json!({"ph": "M", "name": "thread_name", "pid": pid,
                "tid": e.index(), "args": {"name": e.key()}}));
        }
        pid
    }
}

fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

impl<W: Write> RowSink for ChromeTrace<W> {
    fn instruction(&mut self, i: &InstructionView<'_>) {
        let pid = self.pid(i.subgraph);
        let tid = i.engine.map_or(EngineType::COUNT, EngineType::index);
        self.event(&json!({"ph": "X", "name": i.opcode, "pid": pid, "tid": tid,
            "ts": us(i.timestamp), "dur": us(i.duration),
            "args": {"pc": i.pc, "neff_slot": i.neff_slot}}));
    }
    fn dma(&mut self, d: &DmaView<'_>) {
        let pid = self.pid(d.subgraph);
        self.event(
            &json!({"ph": "X", "name": format!("dma {}B", d.size), "pid": pid,
            "tid": format!("dma q{}", d.dma_queue), "ts": us(d.timestamp), "dur": us(d.duration),
            "args": {"dma_engine": d.dma_engine}}),
        );
    }
    fn semaphore(&mut self, _: &SemaphoreView<'_>) {}
    fn throttle(&mut self, _: &ThrottleView<'_>) {}
}
