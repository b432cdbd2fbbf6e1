//! `neff profile CAPTURE [--neff NEFF]`: a raw device capture (`.ntff`, or a neuron-profile JSON
//! report) summarised — span per subgraph, per engine busy / waiting / idle, DMA per queue, the
//! top instructions by time with their NEFF slot (and, given the NEFF, disassembly and source
//! line) — or its events as JSON lines or a Chrome trace (issue 28 item 3).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::Context;
use neff_debug::DebugInfo;
use neff_isa::text::print_slot;
use neff_isa::{Dialect, EngineType, SLOT_BYTES, Slot};
use neff_profile::input::{InputKind, load};
use neff_profile::parquet::ParquetRows;
use neff_profile::perfetto::PerfettoWriter;
use neff_profile::{
    Capture, CaptureFacts, Profile, ProfileError, ProfiledInstruction, ReadLimits, RowSink,
    SubgraphSummary, SummaryBuilder, TimeBase, TimeOrigin,
};
use serde_json::{Value, json};

use super::input::{ReadFlags, parse_neff, read_file};
use super::pending_file::PendingFile;
use super::profile_rows::{ChromeTrace, JsonLines, instruction_row};

/// Summarise a device profile: a raw capture (.ntff, plain or .gz) or a neuron-profile JSON report.
///
/// `--json` prints {"capture": {"format", "runtime", "driver", "collectives", "instance_type",
/// "neff_name", "neff_uuid", "time_origin", "dma_aligned"} | null, "subgraphs": [{"name",
/// "span_ns", "neff_span_ns", "engines": [{"engine", "instructions", "busy_ns", "waiting_ns",
/// "idle_ns"}], "queues": [{"queue", "name", "transfers", "bytes", "busy_ns",
/// "bytes_per_s"}]}], "top": [{"subgraph", "engine", "pc", "neff_slot", "opcode",
/// "timestamp", "duration", "text"?, "source"?}]}. `--jsonl` prints one row per event instead,
/// `kind` = instruction | dma | semaphore | throttle, with the vendor report's field names.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    /// The capture (`.ntff`, `.ntff.gz`) or report (`.json`, `.json.gz`); told apart by content.
    capture: PathBuf,
    /// The NEFF the capture is of: checked against the capture's uuid; adds disassembly and
    /// source lines to the top instructions.
    #[arg(long, value_name = "NEFF")]
    neff: Option<PathBuf>,
    #[command(flatten)]
    read: ReadFlags,
    /// Print the summary as JSON.
    #[arg(long)]
    json: bool,
    /// Print every event as one JSON object per line instead of the summary.
    #[arg(long)]
    jsonl: bool,
    /// Write a Chrome trace-event JSON (chrome://tracing, https://ui.perfetto.dev).
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// Write a Perfetto protobuf trace (https://ui.perfetto.dev; for captures too large for
    /// JSON traces): a track per engine and DMA queue, streamed.
    #[arg(long, value_name = "FILE")]
    perfetto: Option<PathBuf>,
    /// Write every row (as --jsonl: one schema, a column per field, null where a kind has
    /// none) as Parquet, streamed.
    #[arg(long, value_name = "FILE")]
    parquet: Option<PathBuf>,
    /// How many instructions the top list shows.
    #[arg(long, value_name = "N", default_value_t = 10)]
    top: usize,
}

/// What the NEFF adds: its engine streams and debug info.
struct NeffView {
    streams: Vec<(String, EngineType, Vec<u8>)>,
    debug: DebugInfo,
}

impl NeffView {
    fn text(&self, i: &ProfiledInstruction) -> Option<String> {
        let (sg, e, slot) = (i.subgraph.as_str(), i.engine()?, i.compiler_pc? as usize);
        let (_, _, bytes) = self.streams.iter().find(|(s, x, _)| s == sg && *x == e)?;
        let slot = Slot::from_slice(bytes.get(slot * SLOT_BYTES..)?)?;
        let mut s = String::new();
        print_slot(&slot, Dialect::Semaphore8, &mut s);
        Some(s.trim().to_string())
    }

    fn source(&self, i: &ProfiledInstruction) -> Option<String> {
        let d = self
            .debug
            .slot(&i.subgraph, i.engine()?, i.compiler_pc? as usize);
        d.source.map(|s| format!("{}:{}", s.file, s.line))
    }
}

/// A profile read: a capture (borrowing its bytes) or a report's rows (both boxed: each is a
/// few hundred bytes).
enum Source<'a> {
    Capture(Box<Capture<'a>>),
    Report(Box<Profile>),
}

impl Source<'_> {
    /// Streams the rows into `sink`.
    fn rows(&self, sink: &mut impl RowSink) {
        match self {
            Self::Capture(c) => {
                c.rows(sink);
            }
            Self::Report(p) => p.rows(sink),
        }
    }

    /// What the uuid check needs: the capture's facts or the report's header.
    fn header(&self) -> Profile {
        match self {
            Self::Capture(c) => Profile {
                capture: Some(c.facts.clone()),
                ..Profile::default()
            },
            Self::Report(p) => Profile {
                neff_header: p.neff_header.clone(),
                ..Profile::default()
            },
        }
    }
}

/// Runs `neff profile`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let (kind, bytes) = load(&args.capture, &ReadLimits::default())?;
    let source = match kind {
        InputKind::Capture => {
            Source::Capture(Box::new(Capture::parse(&bytes).map_err(|source| {
                ProfileError::Ntff {
                    path: args.capture.clone(),
                    source,
                }
            })?))
        }
        InputKind::Json => Source::Report(Box::new(Profile::parse(
            &args.capture,
            &bytes,
            &ReadLimits::default(),
        )?)),
    };
    let view = match &args.neff {
        Some(p) => Some(neff_view(&args, p, &source.header())?),
        None => None,
    };
    if let Some(t) = &args.trace {
        let f = PendingFile::create(t)?;
        let mut w = ChromeTrace::new(f.writer()?);
        source.rows(&mut w);
        w.finish().with_context(|| f.context())?;
        f.persist()?;
    }
    if let Some(t) = &args.perfetto {
        let f = PendingFile::create(t)?;
        let mut w = PerfettoWriter::new(f.writer()?);
        source.rows(&mut w);
        w.finish().with_context(|| f.context())?;
        f.persist()?;
    }
    if let Some(t) = &args.parquet {
        let f = PendingFile::create(t)?;
        let mut w = ParquetRows::new(f.writer()?).with_context(|| f.context())?;
        source.rows(&mut w);
        w.finish().with_context(|| f.context())?;
        f.persist()?;
    }
    if args.jsonl {
        let out = std::io::BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
        let mut w = JsonLines::new(out);
        source.rows(&mut w);
        w.finish()?;
        return Ok(());
    }
    // The summary streams too: a capture's rows are summarised as they decode.
    let (facts, tb) = match &source {
        Source::Capture(c) => (Some(&c.facts), Some(c.time_base())),
        Source::Report(_) => (None, None),
    };
    let mut b = SummaryBuilder::new(args.top, facts);
    source.rows(&mut b);
    let (summary, top) = b.finish();
    let about = About { facts, tb };
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&summary_json(&about, &summary, &top, view.as_ref()))?
        );
    } else {
        print!(
            "{}",
            summary_text(&args, &about, &summary, &top, view.as_ref())
        );
    }
    Ok(())
}

/// What a capture says about itself (nothing for a report).
struct About<'a> {
    facts: Option<&'a CaptureFacts>,
    tb: Option<TimeBase>,
}

fn neff_view(args: &Args, path: &Path, profile: &Profile) -> anyhow::Result<NeffView> {
    let bytes = read_file(path)?;
    let neff = parse_neff(path, &bytes, &args.read)?;
    let h = neff.header();
    neff_load::profile_check::check_profile_header(profile, h.uuid.as_bytes(), &h.hash)
        .with_context(|| {
            format!(
                "{} is not a profile of {}",
                args.capture.display(),
                path.display()
            )
        })?;
    let kelf = neff_kelf::Kelf::from_neff(&neff).with_context(|| path.display().to_string())?;
    let mut streams = Vec::new();
    for k in kelf.kbins().with_context(|| path.display().to_string())? {
        for e in EngineType::ALL {
            if let Some(s) = k.engine(e) {
                streams.push((k.name.clone(), e, s.instr.to_vec()));
            }
        }
    }
    let debug = super::debug_info::load(path, &neff, false);
    Ok(NeffView { streams, debug })
}

fn pct(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

fn summary_text(
    args: &Args,
    about: &About<'_>,
    summary: &[SubgraphSummary],
    top: &[ProfiledInstruction],
    view: Option<&NeffView>,
) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "{}", args.capture.display());
    if let Some(c) = about.facts {
        let v = |x: &Option<neff_profile::SoftwareVersion>| {
            x.as_ref().map_or("?".to_string(), |v| v.to_string())
        };
        let _ = writeln!(
            s,
            "  capture format {}, runtime {}, driver {}, collectives {}, {}",
            c.format.0,
            v(&c.runtime),
            v(&c.driver),
            v(&c.collectives),
            c.instance_type.as_deref().unwrap_or("instance ?")
        );
        let uuid: String = c.uuid_bytes().iter().map(|b| format!("{b:02x}")).collect();
        let _ = writeln!(s, "  NEFF {} uuid {uuid}", c.neff_name);
        if let Some(tb) = &about.tb {
            if tb.origin == TimeOrigin::FirstInstruction {
                let _ = writeln!(
                    s,
                    "  time origin: the first instruction (no execution window in this format; D402)"
                );
            }
            if !tb.dma_aligned {
                let _ = writeln!(
                    s,
                    "  DMA times are on the DMA clock, not aligned with the engines (trn1; D403)"
                );
            }
        }
    }
    for sg in summary {
        let _ = writeln!(
            s,
            "\n{}: span {} ns ({} .. {}), NEFF instructions {} ns",
            sg.name,
            sg.span_ns(),
            sg.start_ns,
            sg.end_ns,
            sg.neff_span_ns.map_or("-".into(), |n| n.to_string())
        );
        let _ = writeln!(
            s,
            "  {:<6} {:>7} {:>10} {:>6} {:>11} {:>10}",
            "engine", "instr", "busy_ns", "busy%", "waiting_ns", "idle_ns"
        );
        for e in EngineType::ALL {
            let t = sg.engines[e.index()];
            if t.instructions == 0 {
                continue;
            }
            let _ = writeln!(
                s,
                "  {:<6} {:>7} {:>10} {:>5.1}% {:>11} {:>10}",
                e.key(),
                t.instructions,
                t.busy_ns,
                pct(t.busy_ns, sg.span_ns()),
                t.waiting_ns,
                t.idle_ns
            );
        }
        if !sg.queues.is_empty() {
            let _ = writeln!(
                s,
                "  {:<5} {:<16} {:>9} {:>12} {:>10} {:>8}",
                "queue", "name", "transfers", "bytes", "busy_ns", "GB/s"
            );
            for q in &sg.queues {
                let _ = writeln!(
                    s,
                    "  {:<5} {:<16} {:>9} {:>12} {:>10} {:>8}",
                    q.queue,
                    q.name.as_deref().unwrap_or("-"),
                    q.transfers,
                    q.bytes,
                    q.busy_ns,
                    q.bandwidth()
                        .map_or("-".into(), |b| format!("{:.2}", b / 1e9))
                );
            }
        }
    }
    let _ = writeln!(s, "\ntop {} instructions by duration:", top.len());
    for i in top {
        let slot = i
            .compiler_pc
            .map_or("runtime".into(), |c| format!("slot {c}"));
        let _ = write!(
            s,
            "  {} {:<4} pc {:<5} {:<10} {:>8} ns at {:>8}  {}",
            i.subgraph,
            i.engine().map_or("?", EngineType::key),
            i.pc,
            slot,
            i.duration,
            i.timestamp,
            i.opcode
        );
        if let Some(v) = view {
            if let Some(t) = v.text(i) {
                let _ = write!(s, "  | {t}");
            }
            if let Some(src) = v.source(i) {
                let _ = write!(s, "  @ {src}");
            }
        }
        s.push('\n');
    }
    s
}

fn summary_json(
    about: &About<'_>,
    summary: &[SubgraphSummary],
    top: &[ProfiledInstruction],
    view: Option<&NeffView>,
) -> Value {
    let capture = about
        .facts
        .map(|c| neff_profile::summary_json::facts_value(c, about.tb));
    let subgraphs: Vec<Value> = summary
        .iter()
        .map(neff_profile::summary_json::subgraph_value)
        .collect();
    let top: Vec<Value> = top
        .iter()
        .map(|i| {
            let mut row = instruction_row(&i.view());
            if let Some(v) = view {
                row["text"] = json!(v.text(i));
                row["source"] = json!(v.source(i));
            }
            row
        })
        .collect();
    json!({"capture": capture, "subgraphs": subgraphs, "top": top})
}
