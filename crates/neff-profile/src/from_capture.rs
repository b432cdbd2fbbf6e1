//! A capture's events as the vendor's rows (reference-ntff §3, §5): the same [`Profile`] the
//! JSON reader fills, with the vendor's names and nanoseconds, computed as the vendor does.

use neff_isa::{SLOT_SHIFT, Slot};

use crate::capture::CaptureFacts;
use crate::decode::DecodeStats;
use crate::event::{CaptureEvents, InstructionEvent};
use crate::header::NeffHeaderInfo;
use crate::instruction::ProfiledInstruction;
use crate::mnemonic::profiler_name;
use crate::ntff::Capture;
use crate::queue::label_of;
use crate::read::Profile;
use crate::rows::{DmaTransfer, SemaphoreUpdate, ThrottleRow};
use crate::slot_map::neff_slot;
use crate::time::TimeBase;

impl Profile {
    /// The rows of a capture, decoded in one pass, with what the decode saw.
    pub fn from_capture(cap: &Capture<'_>) -> (Self, DecodeStats) {
        let (ev, stats) = cap.events();
        (Self::from_events(cap, &ev), stats)
    }

    /// The rows of already decoded events of `cap`.
    pub fn from_events(cap: &Capture<'_>, ev: &CaptureEvents) -> Self {
        let facts = &cap.facts;
        let first = ev.instructions.iter().map(|i| i.start_ps).min();
        let tb = TimeBase::of(facts, first);
        let sg_name = |i: u16| {
            facts
                .subgraphs
                .get(usize::from(i))
                .map_or_else(|| format!("core{i}"), |s| s.name.clone())
        };
        let instructions = ev
            .instructions
            .iter()
            .filter(|i| tb.keeps(i.start_ps, i.end_ps))
            .map(|i| instruction_row(cap, &tb, i, sg_name(i.subgraph)))
            .collect();
        let dma = ev
            .dmas
            .iter()
            .filter(|d| !tb.dma_aligned || tb.keeps(d.start, d.end))
            .map(|d| DmaTransfer {
                subgraph: sg_name(d.subgraph),
                dma_engine: u64::from(d.dma_engine),
                dma_queue: u64::from(d.queue),
                size: u64::from(d.size),
                timestamp: if tb.dma_aligned {
                    tb.ns(d.start)
                } else {
                    d.start
                },
                duration: TimeBase::duration_ns(d.start, d.end),
                crc: Some(u64::from(d.crc)),
            })
            .collect();
        let semaphore_update = ev
            .semaphores
            .iter()
            .filter(|s| s.is_semaphore && tb.keeps(s.ts_ps, s.ts_ps))
            .map(|s| SemaphoreUpdate {
                subgraph: sg_name(s.subgraph),
                index: u64::from(s.index),
                value: i64::from(s.value),
                timestamp: tb.ns(s.ts_ps),
            })
            .collect();
        Self {
            instructions,
            neff_header: Some(header_of(facts)),
            metadata: None,
            dma,
            semaphore_update,
            ham: throttle_rows(ev, &tb, &sg_name),
            capture: Some(facts.clone()),
            time_base: Some(tb),
        }
    }
}

/// Throttle rows: each lasts until the next of its subgraph (reference §3); the last one of a
/// subgraph until the end of the subgraph's last kept instruction (D405).
fn throttle_rows(
    ev: &CaptureEvents,
    tb: &TimeBase,
    sg_name: &dyn Fn(u16) -> String,
) -> Vec<ThrottleRow> {
    let t = &ev.throttles;
    let mut out = Vec::with_capacity(t.len());
    let last_end = |sg: u16| {
        ev.instructions
            .iter()
            .filter(|i| i.subgraph == sg && tb.keeps(i.start_ps, i.end_ps))
            .map(|i| i.end_ps)
            .max()
    };
    for (i, r) in t.iter().enumerate() {
        let next = t[i + 1..]
            .iter()
            .find(|n| n.subgraph == r.subgraph)
            .map(|n| n.ts)
            .or_else(|| last_end(r.subgraph));
        let Some(end) = next else { continue };
        if !tb.keeps(r.ts, end) {
            continue;
        }
        out.push(ThrottleRow {
            subgraph: sg_name(r.subgraph),
            k: u64::from(r.k),
            kind: u64::from(r.kind),
            n: u64::from(r.n),
            timestamp: tb.ns(r.ts),
            duration: TimeBase::duration_ns(r.ts, end),
        });
    }
    out
}

fn instruction_row(
    cap: &Capture<'_>,
    tb: &TimeBase,
    i: &InstructionEvent,
    subgraph: String,
) -> ProfiledInstruction {
    let stream = cap
        .facts
        .subgraphs
        .get(usize::from(i.subgraph))
        .and_then(|s| s.stream(i.engine));
    let mnemonic = stream
        .and_then(|s| {
            let bytes = cap.stream_bytes(s);
            let at = (i.pc as usize) << SLOT_SHIFT;
            Slot::from_slice(bytes.get(at..)?)
        })
        .and_then(|s| s.opcode().mnemonic())
        .map(profiler_name)
        .unwrap_or("");
    ProfiledInstruction {
        subgraph,
        label: label_of(i.engine, mnemonic).to_string(),
        opcode: mnemonic.to_string(),
        pc: u64::from(i.pc),
        compiler_pc: stream.and_then(|s| neff_slot(s, u64::from(i.pc))),
        operands: String::new(),
        compiler_opcode: None,
        compiler_operands: None,
        timestamp: tb.ns(i.start_ps),
        duration: TimeBase::duration_ns(i.start_ps, i.end_ps),
        evt_wait_time: Some(tb.wait_ns(i.wait_cycles)),
        crc_in: Some(u64::from(i.crc_in)),
        crc_out: Some(u64::from(i.crc_out)),
    }
}

/// The capture's NEFF as a report's `neff_header`: the uuid bytes present, hex; no hash (a
/// capture carries none).
fn header_of(facts: &CaptureFacts) -> NeffHeaderInfo {
    NeffHeaderInfo {
        uuid: facts
            .uuid_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
        hash: String::new(),
        network_name: facts.neff_name.clone(),
    }
}
