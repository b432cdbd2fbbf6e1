//! `neff disasm`: print engine instruction streams as text (spec 003 §7 syntax; decision D4).
//!
//! Input is a raw engine stream (`.bin`) or a NEFF, whose `sgNN/<engine>.bin` members are printed
//! in subgraph then engine order (PE, ACT, POOL, DVE, SP; both spellings of decision D3), each
//! headed by its member path. Every line starts with the slot index; `neff asm` reads the output
//! of a `.bin` back to identical bytes.

use neff_debug::{DebugInfo, SlotDebug};
use neff_isa::continuation::record_boundary;
use neff_isa::sp::disassemble_sp;
use neff_isa::text::{DisasmOptions, TextBuf, TextSink, disassemble_at, json};
use neff_isa::{Dialect, SLOT_BYTES, SLOT_SHIFT, slots};
use std::io::{BufWriter, Write};

use super::disasm_json::{
    JsonOptions, Part, StreamKeys, write_document_part, write_empty_document, write_slot_lines,
    write_sp_lines, write_trailing_line,
};
use super::ordered_text::JobBuf;
use super::stream_input::{Stream, StreamInput};

/// Disassemble a `.bin` engine stream or every engine stream of a `.neff`.
///
/// `--json` prints one object: `{"file", "streams": [{"member", "subgraph", "engine", "slots":
/// [{"index", "offset", "opcode", "mnemonic", "pseudo", "text", "hex", "fields", "bir", "hlo",
/// "source", "continuation_of"?}], "trailing_hex"}]}` (`member`, `subgraph`, `engine` are null for a `.bin`;
/// `mnemonic` is null for an unknown opcode; with `--sp` each slot is an 8-byte word with `opcode`
/// (7 bits) and `phase`). From the NEFF's debug info: `bir` is the BIR instruction name, `hlo`
/// `{"name", "op_type"}` the HLO op, `source` `{"file", "line", "iters": [{"var", "val"}]}` the
/// source line and enclosing NKI loop iterations; each null when unknown. A 0xD4's `text` includes
/// its continuation's; the continuation slot has `continuation_of`, the head's index, and its own
/// part as `text` (decision D155). `fields` is the slot's typed payload from neff-isa's layout
/// table, `{name: value}` (enums by name, tensors as `{"dtype", "start_addr", "psum", "partition",
/// "partition_offset", "step", "num"}`; decision D130); null for an unknown opcode. The document is
/// written while it is made (decision D424).
///
/// `--jsonl` prints one compact slot object per line, each led by its stream's `member`,
/// `subgraph` and `engine`; a stream's bytes after its last whole slot are one line `{"member",
/// "subgraph", "engine", "trailing_hex"}`.
#[derive(clap::Args, Debug)]
pub(crate) struct Args {
    #[command(flatten)]
    pub(crate) input: StreamInput,
    /// Decode as 8-byte SP sequencer words (spec 003 §3.2) instead of 64-byte TPB slots.
    #[arg(long)]
    pub(crate) sp: bool,
    /// Use the legacy 4-byte events dialect (decision D2).
    #[arg(long)]
    pub(crate) legacy_events: bool,
    /// Print JSON (format above) instead of text.
    #[arg(long, conflicts_with = "jsonl")]
    pub(crate) json: bool,
    /// Print JSON lines, one object per slot (format above), instead of text.
    #[arg(long)]
    pub(crate) jsonl: bool,
    /// Append to each line, from the NEFF's debug info, `# <BIR instruction> <file>:<line>
    /// [<loop var>=<value>, ...] <HLO op>` (the file's last path component; `--json` has it all).
    #[arg(long)]
    pub(crate) source: bool,
}

/// Runs `neff disasm`.
pub(crate) fn run(args: Args) -> anyhow::Result<()> {
    let dialect = if args.legacy_events {
        Dialect::Legacy4
    } else {
        Dialect::Semaphore8
    };
    let opts = DisasmOptions {
        dialect,
        index_prefix: true,
    };
    let mut out = BufWriter::with_capacity(OUT_BUFFER, std::io::stdout().lock());
    let json = args.json || args.jsonl;
    if !args.input.is_neff()? && !args.sp && !json && !args.source {
        print_bin(args.input.bin_path()?, opts, &mut out)?;
        return Ok(out.flush()?);
    }
    let want_debug = (json || args.source).then_some(args.source);
    args.input
        .with_streams_and_debug(want_debug, |streams, debug| {
            print_streams(&args, streams, debug, opts, &mut out)
        })?;
    Ok(out.flush()?)
}

/// Prints the streams of a NEFF (or a `.bin` read whole: `--sp`, `--json`, `--source`) in the
/// form `args` asks for.
fn print_streams(
    args: &Args,
    streams: &[Stream<'_>],
    debug: Option<&DebugInfo>,
    opts: DisasmOptions,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let dialect = opts.dialect;
    if args.source && !args.input.is_neff()? {
        eprintln!(
            "warning: {}: --source: a .bin stream has no debug info",
            args.input.file.display()
        );
    }
    let json_opts = JsonOptions {
        dialect,
        sp: args.sp,
        debug,
    };
    if args.json {
        let file = args.input.file.display().to_string();
        return print_json(&file, streams, json_opts, out);
    }
    if args.jsonl {
        return print_jsonl(streams, json_opts, out);
    }
    if !args.sp && !args.source {
        let jobs = streams
            .iter()
            .enumerate()
            .flat_map(|(k, s)| pieces(s.bytes, JOB_BYTES).map(move |range| (k, s, range)));
        let format = |(k, s, range): (usize, &Stream<'_>, std::ops::Range<usize>),
                      text: &mut TextBuf| {
            if range.start == 0 {
                push_member_heading(k, s, text);
            }
            let first = (range.start / SLOT_BYTES) as u64;
            disassemble_at(&s.bytes[range], first, opts, text);
        };
        super::ordered_text::write_in_order(jobs, format, 2 * JOB_BYTES, out)?;
        return Ok(());
    }
    for (k, s) in streams.iter().enumerate() {
        let mut heading = TextBuf::default();
        push_member_heading(k, s, &mut heading);
        out.write_all(heading.as_bytes())?;
        if args.sp {
            let mut text = String::new();
            disassemble_sp(s.bytes, true, &mut text);
            out.write_all(text.as_bytes())?;
        } else {
            print_with_source(s, opts, debug, out)?;
        }
    }
    Ok(())
}

/// Slot bytes per formatting job (8,192 slots, ~0.8 MB of text): small enough that the cores
/// finish their jobs close together and the three text buffers in flight stay small against the
/// streams (peak RSS 1.21x the streams on issue 20's input; 1 MiB jobs gave 1.24x), large enough
/// that claiming one costs nothing.
const JOB_BYTES: usize = 512 << 10;

/// A stream cut into formatting jobs of about `job_bytes`, never between a 0xD4 and its
/// continuation (decision D155); an empty stream is one empty job (its heading is still printed).
fn pieces(bytes: &[u8], job_bytes: usize) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
    let mut next = Some(0);
    std::iter::from_fn(move || {
        let at = next?;
        let end = record_boundary(bytes, (at + job_bytes).min(bytes.len()));
        next = (end < bytes.len()).then_some(end);
        Some(at..end)
    })
}

/// `# sg00/PE.bin` above a NEFF member's text, after a blank line from the previous one.
fn push_member_heading(k: usize, s: &Stream<'_>, text: &mut TextBuf) {
    if let Some(m) = &s.member {
        if k > 0 {
            text.push('\n');
        }
        text.push_str("# ");
        text.push_str(m);
        text.push('\n');
    }
}

/// stdout buffer for the small writes (`--sp`, `--source` lines). Smaller than a job's text
/// (~0.8 MB), so `BufWriter` hands each job's buffer straight to the kernel instead of copying it
/// first (the copy was 1.3% of `neff disasm`'s samples: 296 MB moved once more for nothing).
const OUT_BUFFER: usize = 64 << 10;

/// Prints a raw `.bin` stream read piece by piece (never held whole: a stream may be larger than
/// memory), the pieces formatted on every core and written in order (D392). A read error ends
/// the text where it happened and is returned.
fn print_bin(
    path: &std::path::Path,
    opts: DisasmOptions,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let mut pieces = super::bin_chunks::Pieces::open(path)?;
    let mut failed = None;
    let jobs = std::iter::from_fn(|| match pieces.next_piece() {
        Ok(piece) => piece,
        Err(e) => {
            failed = Some(e);
            None
        }
    });
    let format = |(at, piece): (u64, Vec<u8>), text: &mut TextBuf| {
        disassemble_at(&piece, at >> SLOT_SHIFT, opts, text);
    };
    super::ordered_text::write_in_order(jobs, format, 2 * super::bin_chunks::PIECE, out)?;
    failed.map_or(Ok(()), Err)
}

/// Prints stream `s` with each slot's debug-info comment appended (one line per slot, spec 003
/// §7; a trailing `.bytes` line gets none).
fn print_with_source(
    s: &Stream,
    opts: DisasmOptions,
    debug: Option<&DebugInfo>,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    let mut text = String::new();
    disassemble_at(s.bytes, 0, opts, &mut text);
    for line in text.lines() {
        out.write_all(line.as_bytes())?;
        // Lines are instructions, not slots (a 128-byte record is one line, decision D155): the
        // slot index is the line's prefix; the trailing `.bytes` line has none.
        let index = line
            .split_once(':')
            .and_then(|(n, _)| n.trim().parse::<usize>().ok());
        if let Some(i) = index
            && let Some(note) = slot_debug(s, debug, i).and_then(|d| d.annotation())
        {
            write!(out, "  {note}")?;
        }
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// `--jsonl`: slot lines formatted on every core and written in order (D392's writer), each
/// stream's trailing bytes after its slots; SP words on one core.
fn print_jsonl(
    streams: &[Stream<'_>],
    opts: JsonOptions<'_>,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    if opts.sp {
        for s in streams {
            write_sp_lines(s, out)?;
        }
        return Ok(());
    }
    for s in streams {
        let keys = StreamKeys::new(s);
        let format = |range: std::ops::Range<usize>, text: &mut TextBuf| {
            write_slot_lines(s, &keys, range, opts, text);
        };
        let jobs = pieces(s.bytes, JSON_JOB_BYTES);
        super::ordered_text::write_in_order(jobs, format, JSON_JOB_ROOM, out)?;
        write_trailing_line(s, slots(s.bytes).remainder(), out)?;
    }
    Ok(())
}

/// Slot bytes per JSON job (2,048 slots): a slot's JSON is ~6x its text (~800 B compact), so a
/// quarter of a text job's slots keeps the buffers in flight as small against the streams.
const JSON_JOB_BYTES: usize = JOB_BYTES / 4;

/// Room of a JSON job's buffer: ~1.6 MB of compact JSON, ~2.3 MB pretty (buffers grow past it
/// when a job needs more).
const JSON_JOB_ROOM: usize = 2 << 20;

/// `--json`: the document in parts (a stream piece each, the document's and streams' heads and
/// tails with them; the whole stream for `--sp`), each written compact and indented by
/// [`json::Pretty`] on every core, written in order (D392's writer).
fn print_json(
    file: &str,
    streams: &[Stream<'_>],
    opts: JsonOptions<'_>,
    out: &mut impl Write,
) -> anyhow::Result<()> {
    if streams.is_empty() {
        let mut job = PrettyJob::with_capacity(0);
        write_empty_document(file, &mut job.compact);
        job.indent(0);
        out.write_all(job.as_bytes())?;
        return Ok(out.write_all(b"\n")?);
    }
    let jobs = streams.iter().enumerate().flat_map(|(k, s)| {
        let whole = std::iter::once(0..s.bytes.len());
        let ranges: Box<dyn Iterator<Item = _> + Send> = if opts.sp {
            Box::new(whole)
        } else {
            Box::new(pieces(s.bytes, JSON_JOB_BYTES))
        };
        ranges.map(move |range| Part {
            file,
            streams,
            k,
            range,
        })
    });
    let format = |part: Part<'_>, job: &mut PrettyJob| {
        let depth = write_document_part(&part, opts, &mut job.compact);
        job.indent(depth);
    };
    super::ordered_text::write_in_order(jobs, format, JSON_JOB_ROOM, out)?;
    Ok(out.write_all(b"\n")?)
}

/// A `--json` job's buffers: its part written compact, then indented.
struct PrettyJob {
    compact: TextBuf,
    pretty: TextBuf,
}

impl PrettyJob {
    /// Indents the compact part, whose first byte is `depth` containers deep, into `pretty`.
    fn indent(&mut self, depth: usize) {
        json::Pretty::at_depth(depth).write(self.compact.as_bytes(), &mut self.pretty);
    }
}

impl JobBuf for PrettyJob {
    fn with_capacity(capacity: usize) -> Self {
        Self {
            compact: TextBuf::with_capacity(capacity),
            pretty: TextBuf::with_capacity(capacity + capacity / 2),
        }
    }
    fn clear(&mut self) {
        self.compact.clear();
        self.pretty.clear();
    }
    fn as_bytes(&self) -> &[u8] {
        self.pretty.as_bytes()
    }
}

/// The debug info of slot `index` of stream `s`, when it is a NEFF member and debug info was read.
fn slot_debug<'a>(s: &Stream, debug: Option<&'a DebugInfo>, index: usize) -> Option<SlotDebug<'a>> {
    Some(debug?.slot(s.subgraph?, s.engine?, index))
}

/// Lowercase hex of `b`.
pub(crate) fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
