//! The timeline as Chrome trace-event JSON (the format chrome://tracing and Perfetto open):
//! one process per subgraph; one track per engine and per DMA queue — an engine's instructions
//! overlap (pipelining), so each track is split into as many lanes (`pe`, `pe #2`, ...) as it
//! has instructions in flight at once; every semaphore as a counter; each slice named by its
//! NEFF slot and disassembly.

use serde_json::{Value, json};

use neff_sim::{SimResult, SubgraphResult, Timeline};

/// Lanes per track (the tid space of one engine or queue).
const LANES: usize = 64;

/// Assigns each `(start, end)` to the first lane free at its start; returns the lane per item.
fn lanes(items: impl Iterator<Item = (f64, f64)>) -> Vec<usize> {
    let mut free_at: Vec<f64> = Vec::new();
    items
        .map(|(s, e)| {
            let lane = match free_at.iter().position(|&f| f <= s) {
                Some(l) => l,
                None if free_at.len() < LANES => {
                    free_at.push(0.0);
                    free_at.len() - 1
                }
                None => LANES - 1,
            };
            free_at[lane] = free_at[lane].max(e);
            lane
        })
        .collect()
}

fn us(ns: f64) -> f64 {
    ns / 1000.0
}

fn thread_name(pid: usize, tid: usize, name: String) -> Value {
    json!({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}})
}

fn thread_sort(pid: usize, tid: usize) -> Value {
    json!({"name": "thread_sort_index", "ph": "M", "pid": pid, "tid": tid,
           "args": {"sort_index": tid}})
}

/// Appends one subgraph's events.
fn subgraph(pid: usize, sg: &SubgraphResult, tl: &Timeline, ev: &mut Vec<Value>) {
    ev.push(json!({"name": "process_name", "ph": "M", "pid": pid, "args": {"name": sg.name}}));
    let mut named = std::collections::BTreeSet::new();
    for (e, engine) in neff_isa::EngineType::ALL.iter().enumerate() {
        let mine: Vec<_> = tl.slices.iter().filter(|s| s.engine == *engine).collect();
        let lane = lanes(mine.iter().map(|s| (s.start_ns, s.start_ns + s.dur_ns)));
        for (s, l) in mine.iter().zip(lane) {
            let tid = e * LANES + l;
            if named.insert(tid) {
                let n = if l == 0 {
                    engine.key().to_string()
                } else {
                    format!("{} #{}", engine.key(), l + 1)
                };
                ev.push(thread_name(pid, tid, n));
                ev.push(thread_sort(pid, tid));
            }
            let name = match s.slot {
                Some(slot) => format!("[{slot}] {}", s.text),
                None => format!("[{:?} +{:#x}] {}", s.region, s.offset, s.text),
            };
            ev.push(json!({"name": name, "cat": s.class.name(), "ph": "X",
                "ts": us(s.start_ns), "dur": us(s.dur_ns), "pid": pid, "tid": tid,
                "args": {"slot": s.slot, "offset": s.offset, "region": s.region}}));
        }
    }
    let mut queues: Vec<&str> = tl.transfers.iter().map(|t| t.queue.as_str()).collect();
    queues.sort_unstable();
    queues.dedup();
    for (qi, q) in queues.iter().enumerate() {
        let mine: Vec<_> = tl.transfers.iter().filter(|t| t.queue == *q).collect();
        let lane = lanes(mine.iter().map(|t| (t.start_ns, t.start_ns + t.dur_ns)));
        for (t, l) in mine.iter().zip(lane) {
            let tid = (neff_isa::EngineType::COUNT + qi) * LANES + l;
            if named.insert(tid) {
                ev.push(thread_name(pid, tid, format!("queue {q}")));
                ev.push(thread_sort(pid, tid));
            }
            ev.push(
                json!({"name": format!("{} bytes", t.bytes), "cat": "DMA", "ph": "X",
                "ts": us(t.start_ns), "dur": us(t.dur_ns), "pid": pid, "tid": tid,
                "args": {"ring": t.ring, "bytes": t.bytes, "semaphore": t.semaphore}}),
            );
        }
    }
    for s in &tl.semaphores {
        ev.push(
            json!({"name": format!("$S[{}]", s.semaphore), "ph": "C", "ts": us(s.t_ns),
            "pid": pid, "args": {"value": s.value}}),
        );
    }
}

/// The trace of every recorded subgraph (a subgraph simulated without
/// [`crate::SimOptions::record`] contributes only its name).
pub fn chrome_trace(r: &SimResult) -> String {
    let mut ev = Vec::new();
    let empty = Timeline::default();
    for (pid, sg) in r.subgraphs.iter().enumerate() {
        subgraph(pid, sg, sg.timeline.as_ref().unwrap_or(&empty), &mut ev);
    }
    let doc = json!({"traceEvents": ev, "displayTimeUnit": "ns"});
    serde_json::to_string(&doc).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_slices_get_separate_lanes() {
        let l = lanes([(0.0, 10.0), (5.0, 8.0), (9.0, 12.0), (10.0, 11.0)].into_iter());
        assert_eq!(l, vec![0, 1, 1, 0]);
    }
}
