//! Turns a finished [`Machine`] into its [`SubgraphResult`]: engine totals over the MAIN span,
//! queue totals, per-class means, the critical path, the timeline.

use std::collections::BTreeMap;

use crate::machine::{Cause, Machine, NO_RECORD, Record, Source};
use crate::result::{
    ClassResult, CriticalStep, EngineResult, QueueResult, SemaphoreSample, Slice, SubgraphResult,
    Timeline, TransferRecord,
};
use crate::time::Busy;
use crate::time::{Ps, ns, ns_f64};

/// The result of one subgraph's run; `timeline`: whether to build the timeline (with recording
/// on, D760); `slice_text`: whether its slices get their disassembly.
pub(crate) fn summarize(
    m: &Machine<'_>,
    deadlocked: bool,
    timeline_wanted: bool,
    slice_text: bool,
) -> SubgraphResult {
    let (lo, hi) = if m.main_window.0 <= m.main_window.1 {
        m.main_window
    } else {
        (0, 0)
    };
    let span = hi - lo;
    let mut engines: Vec<EngineResult> = m
        .programs
        .iter()
        .zip(&m.engines)
        .map(|(p, r)| {
            let busy = r.busy.total();
            EngineResult {
                engine: p.engine,
                busy_ns: ns(busy),
                wait_ns: ns(r.wait),
                idle_ns: ns(span.saturating_sub(busy + r.wait)),
                instructions: r.neff_instructions,
                total_instructions: r.instructions,
            }
        })
        .collect();
    // Engines in `EngineType` order, as every command prints them (D340); the programs are in
    // the kbin's slot order.
    engines.sort_by_key(|e| e.engine);
    let total = m
        .engines
        .iter()
        .map(|r| r.done_at.max(r.last_complete))
        .chain(m.transfers.iter().map(|t| t.end))
        .max()
        .unwrap_or(0);
    SubgraphResult {
        name: m.subgraph.name.clone(),
        span_ns: ns(span),
        main_start_ns: ns(lo),
        total_ns: ns(total),
        engines,
        queues: queues(m),
        classes: classes(m),
        critical_path: critical_path(m),
        deadlocked,
        timeline: (m.record && timeline_wanted).then(|| timeline(m, slice_text)),
    }
}

fn queues(m: &Machine<'_>) -> Vec<QueueResult> {
    // Per queue its transfers' intervals, in start order for `Busy`: a ring moves its transfers
    // one after another, so a one-ring queue's are in order already and only a queue whose rings
    // interleave is sorted (the union does not depend on the order of equal starts).
    #[derive(Default)]
    struct Tally {
        transfers: u64,
        bytes: u64,
        spans: Vec<(Ps, Ps)>,
    }
    let mut per: BTreeMap<u16, Tally> = BTreeMap::new();
    for t in &m.transfers {
        let e = per.entry(t.queue).or_default();
        e.transfers += 1;
        e.bytes += t.bytes;
        e.spans.push((t.start, t.end));
    }
    per.into_iter()
        .map(
            |(
                q,
                Tally {
                    transfers,
                    bytes,
                    mut spans,
                },
            )| {
                if !spans.is_sorted_by_key(|s| s.0) {
                    spans.sort_unstable_by_key(|s| s.0);
                }
                let mut busy = Busy::default();
                for (s, e) in spans {
                    busy.add(s, e);
                }
                QueueResult {
                    name: m.subgraph.resources.queues[usize::from(q)].name.clone(),
                    transfers,
                    bytes,
                    busy_ns: ns(busy.total()),
                }
            },
        )
        .collect()
}

/// Per (engine, class) NEFF instruction counts and mean durations, from the records.
fn classes(m: &Machine<'_>) -> Vec<ClassResult> {
    let mut per: BTreeMap<(u8, crate::cost::CostClass), (u64, Ps)> = BTreeMap::new();
    for r in &m.records {
        let p = &m.programs[usize::from(r.engine)];
        if !p.region(r.op as usize).is_neff() {
            continue;
        }
        let e = per
            .entry((r.engine, p.class(&p.ops[r.op as usize])))
            .or_default();
        e.0 += 1;
        e.1 += r.complete - r.issue;
    }
    let mut classes: Vec<ClassResult> = per
        .into_iter()
        .map(|((e, class), (n, sum))| ClassResult {
            engine: m.programs[usize::from(e)].engine,
            class,
            count: n,
            mean_ns: ns_f64(sum) / n as f64,
        })
        .collect();
    classes.sort_by_key(|c| c.engine); // stable: classes keep their order within an engine (D340)
    classes
}

/// One link of the raw critical chain.
enum Link {
    Op(u32),
    Transfer(u32),
}

/// Walks back from the NEFF instruction that completed last: each instruction to what made it
/// issue when it did (the previous instruction of its engine, or the change it waited for),
/// each transfer to its trigger; then merges consecutive links of one engine.
fn critical_path(m: &Machine<'_>) -> Vec<CriticalStep> {
    let last = m
        .records
        .iter()
        .enumerate()
        .filter(|(_, r)| {
            m.programs[usize::from(r.engine)]
                .region(r.op as usize)
                .is_neff()
        })
        .max_by_key(|(_, r)| r.complete)
        .map(|(i, _)| i as u32);
    let mut chain = Vec::new();
    let mut cur = last.map(Link::Op);
    while let Some(link) = cur.take() {
        let next = match link {
            Link::Op(i) => match m.records[i as usize].cause {
                Cause::Start => None,
                Cause::Engine(p) => Some(Link::Op(p)),
                Cause::Sync(Source::Op(p)) if p != NO_RECORD => Some(Link::Op(p)),
                Cause::Sync(Source::Transfer(t)) => Some(Link::Transfer(t)),
                Cause::Sync(_) => None,
            },
            Link::Transfer(t) => {
                let trig = m.transfers[t as usize].trigger;
                (trig != NO_RECORD).then_some(Link::Op(trig))
            }
        };
        chain.push(link);
        cur = next;
    }
    chain.reverse();
    merge(m, &chain)
}

fn merge(m: &Machine<'_>, chain: &[Link]) -> Vec<CriticalStep> {
    let mut out: Vec<CriticalStep> = Vec::new();
    let mut counts: Vec<BTreeMap<&'static str, u64>> = Vec::new();
    for link in chain {
        let (on, s, e, slot, what) = match *link {
            Link::Op(i) => {
                let r: &Record = &m.records[i as usize];
                let p = &m.programs[usize::from(r.engine)];
                let op = &p.ops[r.op as usize];
                (
                    p.engine.key().to_string(),
                    r.issue,
                    r.complete,
                    p.slot(r.op as usize),
                    p.class(op).name(),
                )
            }
            Link::Transfer(t) => {
                let tr = &m.transfers[t as usize];
                let q = &m.subgraph.resources.queues[usize::from(tr.queue)].name;
                (format!("queue {q}"), tr.start, tr.end, None, "DMA")
            }
        };
        match out.last_mut() {
            Some(last) if last.on == on && !on.starts_with("queue ") => {
                last.end_ns = last.end_ns.max(ns(e));
                last.instructions += 1;
                if slot.is_some() {
                    last.first_slot = last.first_slot.or(slot);
                    last.last_slot = slot;
                }
                *counts
                    .last_mut()
                    .expect("one per step")
                    .entry(what)
                    .or_default() += 1;
            }
            _ => {
                out.push(CriticalStep {
                    on,
                    start_ns: ns(s),
                    end_ns: ns(e),
                    instructions: 1,
                    first_slot: slot,
                    last_slot: slot,
                    what: what.to_string(),
                });
                counts.push(BTreeMap::from([(what, 1)]));
            }
        }
    }
    for (step, c) in out.iter_mut().zip(counts) {
        if let Some((w, _)) = c.into_iter().max_by_key(|(_, n)| *n) {
            step.what = w.to_string();
        }
    }
    out
}

fn timeline(m: &Machine<'_>, slice_text: bool) -> Timeline {
    let slices = m
        .records
        .iter()
        .map(|r| {
            let p = &m.programs[usize::from(r.engine)];
            let op = &p.ops[r.op as usize];
            Slice {
                engine: p.engine,
                start_ns: ns_f64(r.issue),
                dur_ns: ns_f64(r.complete - r.issue),
                offset: p.offset(r.op as usize),
                slot: p.slot(r.op as usize),
                region: p.region(r.op as usize),
                class: p.class(op),
                text: if slice_text {
                    crate::deadlock::disassemble(m, usize::from(r.engine), p.offset(r.op as usize))
                } else {
                    String::new()
                },
            }
        })
        .collect();
    let transfers = m
        .transfers
        .iter()
        .map(|t| TransferRecord {
            queue: m.subgraph.resources.queues[usize::from(t.queue)]
                .name
                .clone(),
            ring: t.ring,
            bytes: t.bytes,
            start_ns: ns_f64(t.start),
            dur_ns: ns_f64(t.end - t.start),
            semaphore: t.raises.map(|r| r.0),
        })
        .collect();
    let semaphores = m
        .sem_log
        .iter()
        .map(|&(t, s, v)| SemaphoreSample {
            t_ns: ns_f64(t),
            semaphore: s,
            value: v,
        })
        .collect();
    Timeline {
        slices,
        transfers,
        semaphores,
    }
}
