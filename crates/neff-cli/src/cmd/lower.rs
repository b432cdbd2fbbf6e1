//! `neff lower`: the lowered stream of each engine (spec 001): every pseudo-instruction expanded
//! into the device records the runtime emits, each output line tagged with its source slot, and
//! the IP-delta patch rows.

use std::fmt::Write as _;
use std::io::{BufWriter, Write};

use anyhow::Context;
use neff_debug::{DebugInfo, SlotDebug};
use neff_isa::continuation::Pairing;
use neff_isa::text::{TextBuf, TextSink, print_slot, print_stream_slot};
use neff_isa::{Dialect, EngineType, Opcode, SLOT_BYTES, Slot};
use neff_lower::patch::PatchLocation;
use neff_lower::{LowerContext, LowerResources, LoweredStream, lower_stream};
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
    lowered: LoweredStream<'a>,
}

/// Runs `neff lower`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let neff = args.input.open()?;
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
        let mut ctx = LowerContext::new(&res, &device, &kbin.name);
        // D816: the records of a subgraph on another core than the frame's, moved there (the
        // subgraph's place in the kelf, whichever `--subgraph` shows).
        let index = kelf.graphs().iter().position(|g| g.name == kbin.name);
        ctx.core = index.and_then(|i| device.core_of(i));
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
        let mut out = TextOut::new(std::io::stdout().lock());
        for (name, engines) in &subgraphs {
            for e in engines {
                let at = Notes {
                    debug: &debug,
                    subgraph: name,
                    engine: e.engine,
                    on: args.source,
                };
                engine_text(name, e, &at, &mut out)?;
            }
        }
        out.finish()?;
    }
    Ok(())
}

/// Appends the disassembly of one 64-byte record.
fn record_text(rec: &[u8], out: &mut TextBuf) {
    match <&[u8; SLOT_BYTES]>::try_from(rec) {
        Ok(b) => print_slot(&Slot::new(b), Dialect::Semaphore8, out),
        Err(_) => out.push_str("<short record>"),
    }
}

/// The disassembly of one 64-byte record, as a JSON `text`.
fn record_string(rec: &[u8]) -> String {
    let mut s = String::new();
    match <&[u8; SLOT_BYTES]>::try_from(rec) {
        Ok(b) => print_slot(&Slot::new(b), Dialect::Semaphore8, &mut s),
        Err(_) => s.push_str("<short record>"),
    }
    s
}

/// The text output: lines are formatted into one [`TextBuf`] (the fast path of the text
/// printers, no `String` per record) and handed to the writer in chunks, so a stream of any size
/// is printed in bounded memory.
struct TextOut<W: Write> {
    buf: TextBuf,
    w: W,
}

/// Text gathered before it is written: 128 KiB, a few hundred writes for the 21 MB of the
/// real-shaped conv2d (no measurable time over 1 MiB chunks) and 0.9 MiB less of the peak RSS
/// the issue 34 goal counts (decision D832).
const TEXT_CHUNK: usize = 128 << 10;

impl<W: Write> TextOut<W> {
    fn new(w: W) -> Self {
        TextOut {
            buf: TextBuf::with_capacity(TEXT_CHUNK + 4096),
            w,
        }
    }

    /// Ends a line; writes the gathered text once a chunk is full.
    fn newline(&mut self) -> std::io::Result<()> {
        self.buf.push('\n');
        if self.buf.len() >= TEXT_CHUNK {
            self.w.write_all(self.buf.as_bytes())?;
            self.buf.clear();
        }
        Ok(())
    }

    /// `[src K] `, the tag every line starts with.
    fn src_tag(&mut self, src: u64) {
        self.buf.push_str("[src ");
        self.buf.push_dec(src);
        self.buf.push_str("] ");
    }

    fn finish(mut self) -> std::io::Result<()> {
        self.w.write_all(self.buf.as_bytes())?;
        self.w.flush()
    }
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
    fn end_line<W: Write>(&self, src: u64, out: &mut TextOut<W>) -> std::io::Result<()> {
        if self.on
            && let Some(note) = self
                .debug
                .slot(self.subgraph, self.engine, src as usize)
                .annotation()
        {
            out.buf.push_str("  ");
            out.buf.push_str(&note);
        }
        out.newline()
    }
}

/// Source slots in `range` that produced no record (a consumed label, spec 001 §5: 1 -> 0, a
/// DELETE row): their source line, then what became of them.
fn deleted_text<W: Write>(
    source: &[u8],
    range: std::ops::Range<u64>,
    at: &Notes<'_>,
    out: &mut TextOut<W>,
) -> std::io::Result<()> {
    for src in range {
        out.src_tag(src);
        out.buf.push_str(&source_text(source, src));
        at.end_line(src, out)?;
        out.src_tag(src);
        out.buf.push_str("    -> (no record: DELETE)");
        out.newline()?;
    }
    Ok(())
}

fn engine_text<W: Write>(
    subgraph: &str,
    e: &EngineOut<'_>,
    at: &Notes<'_>,
    out: &mut TextOut<W>,
) -> std::io::Result<()> {
    let b = &e.lowered.block;
    out.buf.push_str(&format!(
        "== {subgraph} {} ({} source slots -> {} records)",
        e.engine,
        e.source.len() / SLOT_BYTES,
        b.record_count()
    ));
    out.newline()?;
    let mut shown = None;
    let mut next = 0u64;
    // The records are walked part by part: most are views of the source stream (D830).
    for (&src, record) in b.origins.iter().zip(e.lowered.records()) {
        deleted_text(e.source, next..src, at, out)?;
        next = src + 1;
        let a = src as usize * SLOT_BYTES;
        let source = &e.source[a..a + 64];
        if Opcode(source[0]).is_pseudo() && shown != Some(src) {
            out.src_tag(src);
            out.buf.push_str(&source_text(e.source, src));
            at.end_line(src, out)?;
            shown = Some(src);
        }
        out.src_tag(src);
        if shown == Some(src) {
            // An expansion record: its source line above carries the comment.
            out.buf.push_str("    -> ");
            record_text(record, &mut out.buf);
            out.newline()?;
        } else {
            record_text(record, &mut out.buf);
            at.end_line(src, out)?;
        }
    }
    deleted_text(
        e.source,
        next..(e.source.len() / SLOT_BYTES) as u64,
        at,
        out,
    )?;
    for p in b.patches.locations() {
        out.buf.push_str(&format!(
            "patch offset={:#x} count={} type={} section={}",
            p.offset, p.count, p.kind, p.section
        ));
        out.newline()?;
    }
    Ok(())
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
            text: record_string(e.lowered.record(i).unwrap_or_default()),
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
