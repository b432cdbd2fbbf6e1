//! `neff lower`: the lowered stream of each engine (spec 001): every pseudo-instruction expanded
//! into the device records the runtime emits, each output line tagged with its source slot, and
//! the IP-delta patch rows.

use std::fmt::Write as _;

use anyhow::Context;
use neff_debug::DebugInfo;
use neff_isa::continuation::Pairing;
use neff_isa::text::{print_slot, print_stream_slot};
use neff_isa::{Dialect, EngineType, Opcode, SLOT_BYTES, Slot};
use neff_load::lower::{LowerContext, LowerResources, LoweredStream, lower_stream};
use serde_json::{Value, json};

use super::device_model_arg::DeviceModelArg;
use super::input::NeffInput;

/// Lower each engine stream of each subgraph (pseudo-instructions -> device records, at the
/// addresses of the device model, docs/device-model.md; both models share them, so
/// `--device-model` changes only the report's `device_model`). Text: per engine, every output record as
/// `[src K] <disassembly>`, a pseudo's source line shown above its expansion, then the patch rows.
///
/// `--json` prints {"device_model", "subgraphs": [{"name", "engines": [{"engine", "records": [{"source_slot",
/// "text", "bir", "hlo", "source"}], "patches": [{"offset", "count", "type", "section"}]}]}]},
/// where `text` is the disassembly of the emitted record and `bir`, `hlo`, `source` are those of
/// its source slot from the NEFF's debug info, as in `neff disasm --json` (an inserted record
/// belongs to its source slot's BIR instruction).
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    input: NeffInput,
    #[command(flatten)]
    model: DeviceModelArg,
    /// Only this subgraph (e.g. sg00).
    #[arg(long)]
    subgraph: Option<String>,
    /// Only this engine (pe, act, pool, dve, sp).
    #[arg(long)]
    engine: Option<EngineType>,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Append each record's source-slot debug info to its line, as `neff disasm --source` does.
    #[arg(long)]
    source: bool,
}

/// One engine's lowering with its source stream.
struct EngineOut<'a> {
    engine: EngineType,
    source: &'a [u8],
    lowered: LoweredStream,
}

/// Runs `neff lower`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let bytes = args.input.read()?;
    let neff = args.input.parse(&bytes)?;
    let path = args.input.file.display().to_string();
    let kelf = args.input.kelf(&neff)?;
    let kbins = args.input.kbins(&kelf, args.subgraph.as_deref())?;
    let debug = if args.json || args.source {
        super::debug_info::load(&args.input.file, &neff, args.source)
    } else {
        DebugInfo::default()
    };
    let device = args.model.resolve(kelf.target, &args.input.read)?;
    let mut subgraphs = Vec::new();
    for kbin in &kbins {
        let res = LowerResources::from_kbin(kbin);
        let ctx = LowerContext::new(&res, &device, &kbin.name);
        let mut engines = Vec::new();
        for e in EngineType::ALL {
            if args.engine.is_some_and(|want| want != e) {
                continue;
            }
            let Some(slot) = kbin.engine(e) else { continue };
            let lowered = lower_stream(&ctx, e, slot.instr).with_context(|| path.clone())?;
            engines.push(EngineOut {
                engine: e,
                source: slot.instr,
                lowered,
            });
        }
        subgraphs.push((kbin.name.clone(), engines));
    }
    if args.json {
        let v: Vec<Value> = subgraphs
            .iter()
            .map(|(n, e)| subgraph_json(n, e, &debug))
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(
                &json!({ "device_model": super::capture_model::model_label(&device), "subgraphs": v })
            )?
        );
    } else {
        let mut out = String::new();
        for (name, engines) in &subgraphs {
            for e in engines {
                let at = Notes {
                    debug: &debug,
                    subgraph: name,
                    engine: e.engine,
                    on: args.source,
                };
                engine_text(name, e, &at, &mut out);
            }
        }
        print!("{out}");
    }
    Ok(())
}

/// The disassembly of one 64-byte record.
fn record_text(rec: &[u8]) -> String {
    let mut s = String::new();
    match <&[u8; SLOT_BYTES]>::try_from(rec) {
        Ok(b) => print_slot(&Slot::new(b), Dialect::Semaphore8, &mut s),
        Err(_) => s.push_str("<short record>"),
    }
    s
}

/// The text of source slot `src` of `source`: a 0xD4 with its continuation's fields on its line,
/// a continuation named as the second slot of the record before it (decision D155).
fn source_text(source: &[u8], src: u64) -> String {
    let mut s = String::new();
    if print_stream_slot(source, src as usize, Dialect::Semaphore8, &mut s) == Pairing::Continuation
    {
        let _ = write!(s, " (continuation of src {})", src - 1);
    }
    s
}

/// The `--source` comments of one engine's lines.
struct Notes<'a> {
    debug: &'a DebugInfo,
    subgraph: &'a str,
    engine: EngineType,
    on: bool,
}

impl Notes<'_> {
    /// Ends a line of source slot `src`: its debug-info comment when `--source`, then a newline.
    fn end_line(&self, src: u64, out: &mut String) {
        if self.on
            && let Some(note) = self
                .debug
                .slot(self.subgraph, self.engine, src as usize)
                .annotation()
        {
            let _ = write!(out, "  {note}");
        }
        out.push('\n');
    }
}

/// Source slots in `range` that produced no record (a consumed label, spec 001 §5: 1 -> 0, a
/// DELETE row): their source line, then what became of them.
fn deleted_text(source: &[u8], range: std::ops::Range<u64>, at: &Notes<'_>, out: &mut String) {
    for src in range {
        let _ = write!(out, "[src {src}] {}", source_text(source, src));
        at.end_line(src, out);
        let _ = writeln!(out, "[src {src}]     -> (no record: DELETE)");
    }
}

fn engine_text(subgraph: &str, e: &EngineOut<'_>, at: &Notes<'_>, out: &mut String) {
    let b = &e.lowered.block;
    let _ = writeln!(
        out,
        "== {subgraph} {} ({} source slots -> {} records)",
        e.engine,
        e.source.len() / SLOT_BYTES,
        b.record_count()
    );
    let mut shown = None;
    let mut next = 0u64;
    for (i, &src) in b.origins.iter().enumerate() {
        deleted_text(e.source, next..src, at, out);
        next = src + 1;
        let a = src as usize * SLOT_BYTES;
        let source = &e.source[a..a + 64];
        if Opcode(source[0]).is_pseudo() && shown != Some(src) {
            let _ = write!(out, "[src {src}] {}", source_text(e.source, src));
            at.end_line(src, out);
            shown = Some(src);
        }
        if shown == Some(src) {
            // An expansion record: its source line above carries the comment.
            let _ = writeln!(
                out,
                "[src {src}]     -> {}",
                record_text(&e.lowered.bytes[i * SLOT_BYTES..(i + 1) * SLOT_BYTES])
            );
        } else {
            let _ = write!(
                out,
                "[src {src}] {}",
                record_text(&e.lowered.bytes[i * SLOT_BYTES..(i + 1) * SLOT_BYTES])
            );
            at.end_line(src, out);
        }
    }
    deleted_text(
        e.source,
        next..(e.source.len() / SLOT_BYTES) as u64,
        at,
        out,
    );
    for p in b.patches.locations() {
        let _ = writeln!(
            out,
            "patch offset={:#x} count={} type={} section={}",
            p.offset, p.count, p.kind, p.section
        );
    }
}

fn subgraph_json(name: &str, engines: &[EngineOut<'_>], debug: &DebugInfo) -> Value {
    let engines: Vec<Value> = engines
        .iter()
        .map(|e| {
            let b = &e.lowered.block;
            let records: Vec<Value> = b
                .origins
                .iter()
                .enumerate()
                .map(|(i, &src)| {
                    let mut v = json!({"source_slot": src, "text": record_text(&e.lowered.bytes[i * SLOT_BYTES..(i + 1) * SLOT_BYTES])});
                    if let Some(obj) = v.as_object_mut() {
                        debug.slot(name, e.engine, src as usize).insert_json(obj);
                    }
                    v
                })
                .collect();
            let patches: Vec<Value> = b
                .patches
                .locations()
                .iter()
                .map(|p| json!({"offset": p.offset, "count": p.count, "type": p.kind.name(), "section": p.section.name()}))
                .collect();
            json!({"engine": e.engine.key(), "records": records, "patches": patches})
        })
        .collect();
    json!({"name": name, "engines": engines})
}
