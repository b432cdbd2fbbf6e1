//! `neff lower`: the lowered stream of each engine (spec 001): every pseudo-instruction expanded
//! into the device records the runtime emits, each output line tagged with its source slot, and
//! the IP-delta patch rows.

use std::fmt::Write as _;
use std::io::{BufWriter, Write};

use anyhow::Context;
use neff_debug::{DebugInfo, SlotDebug};
use neff_isa::continuation::Pairing;
use neff_isa::text::{print_slot, print_stream_slot};
use neff_isa::{Dialect, EngineType, Opcode, SLOT_BYTES, Slot};
use neff_load::lower::{LowerContext, LowerResources, LoweredStream, lower_stream};
use neff_load::patch::PatchLocation;
use serde::ser::{Serialize, SerializeMap, Serializer};

use super::device_model_arg::DeviceModelArg;
use super::disasm_json::Each;
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
/// belongs to its source slot's BIR instruction). The document is written while it is made
/// (decision D424).
///
/// `--jsonl` prints one compact object per line: first `{"device_model"}`, then per engine each
/// record as `{"subgraph", "engine", "source_slot", "text", "bir", "hlo", "source"}` and each patch
/// row as `{"subgraph", "engine", "patch": {"offset", "count", "type", "section"}}`.
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
    #[arg(long, conflicts_with = "jsonl")]
    json: bool,
    /// Print JSON lines, one object per record and per patch row (format above).
    #[arg(long)]
    jsonl: bool,
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
    let debug = if args.json || args.jsonl || args.source {
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
    if args.json || args.jsonl {
        let mut out = BufWriter::new(std::io::stdout().lock());
        let label = super::capture_model::model_label(&device);
        if args.json {
            let doc = LowerDoc {
                device_model: &label,
                subgraphs: &subgraphs,
                debug: &debug,
            };
            serde_json::to_writer_pretty(&mut out, &doc)?;
            out.write_all(b"\n")?;
        } else {
            write_jsonl(&label, &subgraphs, &debug, &mut out)?;
        }
        out.flush()?;
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

/// The `--json` document, serialized as it is walked.
struct LowerDoc<'a> {
    device_model: &'a str,
    subgraphs: &'a [(String, Vec<EngineOut<'a>>)],
    debug: &'a DebugInfo,
}

impl Serialize for LowerDoc<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("device_model", self.device_model)?;
        let subgraphs = Each(self.subgraphs.iter().map(|(name, engines)| SubgraphJson {
            name,
            engines,
            debug: self.debug,
        }));
        m.serialize_entry("subgraphs", &subgraphs)?;
        m.end()
    }
}

/// `{"name", "engines": [...]}`.
struct SubgraphJson<'a> {
    name: &'a str,
    engines: &'a [EngineOut<'a>],
    debug: &'a DebugInfo,
}

impl Serialize for SubgraphJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("name", self.name)?;
        let engines = Each(self.engines.iter().map(|e| EngineJson {
            subgraph: self.name,
            e,
            debug: self.debug,
        }));
        m.serialize_entry("engines", &engines)?;
        m.end()
    }
}

/// `{"engine", "records": [...], "patches": [...]}`.
struct EngineJson<'a> {
    subgraph: &'a str,
    e: &'a EngineOut<'a>,
    debug: &'a DebugInfo,
}

impl Serialize for EngineJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let b = &self.e.lowered.block;
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("engine", self.e.engine.key())?;
        let records = Each((0..b.origins.len()).map(|i| self.record(i, None)));
        m.serialize_entry("records", &records)?;
        m.serialize_entry(
            "patches",
            &Each(b.patches.locations().iter().map(PatchJson)),
        )?;
        m.end()
    }
}

impl<'a> EngineJson<'a> {
    /// Record `i` (`lead`: the subgraph and engine keys first, for `--jsonl`).
    fn record(&self, i: usize, lead: Option<(&'a str, EngineType)>) -> RecordJson<'a> {
        let e = self.e;
        let src = e.lowered.block.origins[i];
        RecordJson {
            lead,
            source_slot: src,
            text: record_text(&e.lowered.bytes[i * SLOT_BYTES..(i + 1) * SLOT_BYTES]),
            debug: self.debug.slot(self.subgraph, e.engine, src as usize),
        }
    }
}

/// `{"source_slot", "text", "bir", "hlo", "source"}` of one emitted record.
struct RecordJson<'a> {
    lead: Option<(&'a str, EngineType)>,
    source_slot: u64,
    text: String,
    debug: SlotDebug<'a>,
}

impl Serialize for RecordJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        if let Some((subgraph, engine)) = self.lead {
            m.serialize_entry("subgraph", subgraph)?;
            m.serialize_entry("engine", engine.key())?;
        }
        m.serialize_entry("source_slot", &self.source_slot)?;
        m.serialize_entry("text", &self.text)?;
        m.serialize_entry("bir", &self.debug.bir_name())?;
        m.serialize_entry("hlo", &self.debug.hlo)?;
        m.serialize_entry("source", &self.debug.source)?;
        m.end()
    }
}

/// `{"offset", "count", "type", "section"}` of one patch row.
struct PatchJson<'a>(&'a PatchLocation);

impl Serialize for PatchJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let p = self.0;
        let mut m = s.serialize_map(Some(4))?;
        m.serialize_entry("offset", &p.offset)?;
        m.serialize_entry("count", &p.count)?;
        m.serialize_entry("type", p.kind.name())?;
        m.serialize_entry("section", p.section.name())?;
        m.end()
    }
}

/// `--jsonl`: the device model, then each engine's records and patch rows, one object a line.
fn write_jsonl(
    device_model: &str,
    subgraphs: &[(String, Vec<EngineOut<'_>>)],
    debug: &DebugInfo,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    #[derive(serde::Serialize)]
    struct Model<'a> {
        device_model: &'a str,
    }
    #[derive(serde::Serialize)]
    struct Patch<'a> {
        subgraph: &'a str,
        engine: &'static str,
        patch: PatchJson<'a>,
    }
    serde_json::to_writer(&mut *out, &Model { device_model })?;
    out.write_all(b"\n")?;
    for (name, engines) in subgraphs {
        for e in engines {
            let ej = EngineJson {
                subgraph: name,
                e,
                debug,
            };
            for i in 0..e.lowered.block.origins.len() {
                serde_json::to_writer(&mut *out, &ej.record(i, Some((name, e.engine))))?;
                out.write_all(b"\n")?;
            }
            for p in e.lowered.block.patches.locations() {
                let line = Patch {
                    subgraph: name,
                    engine: e.engine.key(),
                    patch: PatchJson(p),
                };
                serde_json::to_writer(&mut *out, &line)?;
                out.write_all(b"\n")?;
            }
        }
    }
    Ok(())
}
