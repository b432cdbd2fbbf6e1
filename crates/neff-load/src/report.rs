//! The JSON report of a load — `neff load --json` (and DIR/load.json) and the Python package's
//! `LoadedModel`, defined once here — and the source text of a NEFF IP that `neff ip` and
//! `LoadedModel.ip` give. The report: {"device_model" (spec|runtime), "subgraphs": [{"name",
//! "engines": [{"engine" (pe|act|pool|dve|sp, in `EngineType` order, D340), "eng_type",
//! "source_slots", "lowered_slots" (MAIN + FUNCTION slots), "image_bytes", "base", "regions":
//! {"preamble", "model_switch", "main", "postamble", "function"} each {"offset", "size",
//! "slots"} (image order; the patch rows' section names, D341), "patches": [{"offset", "count", "type" (INSERT|MODIFY|DELETE), "section"
//! (PREAMBLE|POSTAMBLE|MAIN|FUNCTION)}], "runtime": under the runtime model {"program_start",
//! "model_switch": [first, end), "preamble": [slot text], "postamble": [slot text]}, else
//! null}]}]}.

use std::fmt::Write as _;

use neff_isa::continuation::Pairing;
use neff_isa::text::print_stream_slot;
use neff_isa::{Dialect, SLOT_SHIFT};
use serde_json::{Value, json};

use crate::image::CodeRange;
use crate::ipmap::IpHit;
use crate::model::{LoadedEngine, LoadedModel};

/// A region's `{offset, size, slots}` object.
fn range(r: CodeRange) -> Value {
    json!({ "offset": r.offset, "size": r.size, "slots": slots(r) })
}

/// The 64-byte slots of a region.
fn slots(r: CodeRange) -> u64 {
    r.size >> SLOT_SHIFT
}

/// One engine of the report (the `engines` items).
pub fn engine_json(e: &LoadedEngine) -> Value {
    let img = &e.image;
    let patches: Vec<Value> = img
        .patches
        .locations()
        .iter()
        .map(|p| {
            json!({ "offset": p.offset, "count": p.count, "type": p.kind.name(),
                    "section": p.section.name() })
        })
        .collect();
    json!({
        "engine": e.engine.key(),
        "eng_type": e.engine.index(),
        "source_slots": img.source_slots,
        "lowered_slots": img.lowered_slots(),
        "image_bytes": e.block.inst_len,
        "base": e.ib_addrs.base,
        // D341: the regions carry the patch rows' section names (PatchSection::name), in image
        // order; MODEL_SWITCH is the EIB's and has no patch section.
        "regions": {
            "preamble": range(img.eib.preamble),
            "model_switch": range(img.eib.model_switch),
            "main": range(img.eib.core),
            "postamble": range(img.postamble),
            "function": range(img.functions),
        },
        "patches": patches,
        "runtime": runtime_json(e),
    })
}

/// The runtime model's slots of one engine (`null` under the spec model).
fn runtime_json(e: &LoadedEngine) -> Value {
    let Some(r) = &e.image.runtime else {
        return Value::Null;
    };
    let post = (e.image.postamble.offset >> SLOT_SHIFT) as usize;
    let text = |from: usize, n: usize| -> Vec<String> {
        r.slots(post)
            .skip(from)
            .take(n)
            .map(|t| t.to_string())
            .collect()
    };
    json!({
        "program_start": r.program_start,
        "model_switch": [r.model_switch.start, r.model_switch.end],
        "preamble": text(0, r.preamble.len()),
        "postamble": text(r.preamble.len(), r.postamble.len()),
    })
}

impl LoadedModel {
    /// The `neff load --json` / load.json document, `device_model` naming the model the images
    /// were built for, `runtime_version` the runtime whose regions they have when the model is
    /// a learned one (the built-in 2.30.51, D850, or `--like`).
    pub fn report_json(&self, device_model: &str) -> Value {
        let sgs: Vec<Value> = self
        .subgraphs
        .iter()
        .map(|sg| json!({ "name": sg.name, "engines": sg.engines_by_type().map(engine_json).collect::<Vec<_>>() }))
        .collect();
        let mut report = json!({ "device_model": device_model, "subgraphs": sgs });
        if let Some(l) = &self.device.learned {
            report["runtime_version"] = l.version.clone().into();
        }
        report
    }
}

/// The answer `neff ip` gives for device address `device_ip` of engine `e`, which maps to `hit`:
/// `{"device_ip", "neff_ip", "section", "text"}`, then what `more` adds (the CLI's debug-info
/// keys), then `"runtime_error"` when the runtime would refuse the address although neffkit maps
/// it (a section without patch rows, D291). The CLI and Python both answer through it.
pub fn ip_hit_json(
    e: &LoadedEngine,
    source: &[u8],
    device_ip: u64,
    hit: &IpHit,
    more: impl FnOnce(&mut serde_json::Map<String, Value>),
) -> Value {
    let mut obj = serde_json::Map::new();
    obj.insert("device_ip".into(), device_ip.into());
    obj.insert("neff_ip".into(), hit.neff_ip.0.into());
    obj.insert("section".into(), hit.section.name().into());
    obj.insert("text".into(), source_text(source, hit.neff_ip.0).into());
    more(&mut obj);
    if let Some(r) = e.ipmap.runtime_error(hit) {
        obj.insert("runtime_error".into(), r.to_string().into());
    }
    Value::Object(obj)
}

/// The disassembly of source slot `ip` (1-based) of the engine stream: a 0xD4 with its
/// continuation's fields, a continuation named as part of the instruction before it (D155).
pub fn source_text(source: &[u8], ip: u64) -> String {
    let mut out = String::new();
    let Some(index) = ip.checked_sub(1) else {
        return out;
    };
    if print_stream_slot(source, index as usize, Dialect::Semaphore8, &mut out)
        == Pairing::Continuation
    {
        let _ = write!(out, " (continuation of NEFF IP {})", ip - 1);
    }
    out
}
