//! The JSON shapes of a capture's facts and of a subgraph's summary, built once: `neff profile
//! --json` prints them and the Python package's `open_profile` returns them as dicts.

use neff_isa::EngineType;
use serde_json::{Value, json};

use crate::capture::{CaptureFacts, SoftwareVersion};
use crate::summary::SubgraphSummary;
use crate::time::{TimeBase, TimeOrigin};

/// `{"format", "runtime", "driver", "collectives", "instance_type", "neff_name", "neff_uuid",
/// "time_origin", "dma_aligned"}` of a capture read with time base `tb`.
pub fn facts_value(c: &CaptureFacts, tb: Option<TimeBase>) -> Value {
    let v = |x: &Option<SoftwareVersion>| x.as_ref().map(ToString::to_string);
    json!({
        "format": c.format.0,
        "runtime": v(&c.runtime),
        "driver": v(&c.driver),
        "collectives": v(&c.collectives),
        "instance_type": c.instance_type,
        "neff_name": c.neff_name,
        "neff_uuid": c.uuid_bytes().iter().map(|b| format!("{b:02x}")).collect::<String>(),
        "time_origin": tb.map(|t| match t.origin {
            TimeOrigin::Window => "window",
            TimeOrigin::FirstInstruction => "first_instruction",
        }),
        "dma_aligned": tb.map(|t| t.dma_aligned),
    })
}

/// `{"name", "span_ns", "neff_span_ns", "engines": [...], "queues": [...]}` of one subgraph
/// (engines that executed nothing left out).
pub fn subgraph_value(sg: &SubgraphSummary) -> Value {
    let engines: Vec<Value> = EngineType::ALL
        .iter()
        .filter(|e| sg.engines[e.index()].instructions > 0)
        .map(|e| {
            let t = sg.engines[e.index()];
            json!({"engine": e.key(), "instructions": t.instructions, "busy_ns": t.busy_ns,
                   "waiting_ns": t.waiting_ns, "idle_ns": t.idle_ns})
        })
        .collect();
    let queues: Vec<Value> = sg
        .queues
        .iter()
        .map(|q| {
            json!({"queue": q.queue, "name": q.name, "transfers": q.transfers, "bytes": q.bytes,
                   "busy_ns": q.busy_ns, "bytes_per_s": q.bandwidth()})
        })
        .collect();
    json!({
        "name": sg.name,
        "span_ns": sg.span_ns(),
        "neff_span_ns": sg.neff_span_ns,
        "engines": engines,
        "queues": queues,
    })
}
