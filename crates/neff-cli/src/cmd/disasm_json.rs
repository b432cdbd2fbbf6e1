//! `neff disasm --json` and `--jsonl`, written while they are made (decision D424). A slot's
//! object is written straight into the job's buffer by [`write_slot`] (its fields by neff-isa's
//! `SlotFields::write_json`, the bytes of their `Serialize`; decision D660). `--jsonl` writes one
//! compact object per slot, its stream's keys first; `--json` writes the document in compact parts
//! that [`json::Pretty`] indents as serde_json's pretty printer would. Both are formatted on every
//! core and written in order (D392's writer).

use std::io::Write;

use neff_debug::DebugInfo;
use neff_isa::continuation::Pairing;
use neff_isa::layout::SlotFields;
use neff_isa::sp::{SP_WORD_BYTES, SpWord, sp_words};
use neff_isa::text::{TextBuf, TextSink, json, layout_for_dialect, print_stream_slot};
use neff_isa::{Dialect, SLOT_BYTES, Slot, SlotIndex, slots};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

use super::stream_input::Stream;

/// What every slot object of one run depends on besides its stream.
#[derive(Clone, Copy)]
pub(crate) struct JsonOptions<'a> {
    /// The events dialect of the text and the fields.
    pub(crate) dialect: Dialect,
    /// 8-byte SP words instead of 64-byte slots.
    pub(crate) sp: bool,
    /// The NEFF's debug info, when read.
    pub(crate) debug: Option<&'a DebugInfo>,
}

/// A sequence serialized from an iterator as it runs (the iterator is cloned, never collected);
/// `lower --json` writes its records with it too.
pub(crate) struct Each<I>(pub(crate) I);

impl<I: Iterator + Clone> Serialize for Each<I>
where
    I::Item: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(None)?;
        for x in self.0.clone() {
            seq.serialize_element(&x)?;
        }
        seq.end()
    }
}

/// `"member"`, `"subgraph"`, `"engine"` of a stream (each null for a `.bin`).
fn serialize_stream_keys<M: SerializeMap>(m: &mut M, st: &Stream<'_>) -> Result<(), M::Error> {
    m.serialize_entry("member", &st.member)?;
    m.serialize_entry("subgraph", &st.subgraph)?;
    m.serialize_entry("engine", &st.engine.map(|e| e.key()))
}

/// A stream's `"member":..,"subgraph":..,"engine":..`, made once per stream (serde_json's bytes
/// of [`serialize_stream_keys`]): the keys that lead each of its `--jsonl` lines and its `--json`
/// object.
pub(crate) struct StreamKeys(Vec<u8>);

impl StreamKeys {
    /// The keys of `st`.
    pub(crate) fn new(st: &Stream<'_>) -> Self {
        struct Keys<'a>(&'a Stream<'a>);
        impl Serialize for Keys<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let mut m = s.serialize_map(Some(3))?;
                serialize_stream_keys(&mut m, self.0)?;
                m.end()
            }
        }
        // Serializing into a Vec cannot fail; the object's braces are dropped.
        let object = serde_json::to_vec(&Keys(st)).unwrap_or_default();
        Self(
            object
                .get(1..object.len().saturating_sub(1))
                .unwrap_or_default()
                .to_vec(),
        )
    }
}

/// Appends slot `index` of `st` as one compact object `{"index", "offset", "opcode",
/// "mnemonic", "pseudo", "text", "hex", "fields", "bir", "hlo", "source",
/// "continuation_of"?}`, after the stream's `keys` when given (`--jsonl`). Written straight into
/// the job's buffer: no `String` per slot, keys as literals, the text printed in place and
/// escaped only if it holds a byte to escape (decision D660).
pub(crate) fn write_slot(
    st: &Stream<'_>,
    keys: Option<&StreamKeys>,
    index: usize,
    opts: JsonOptions<'_>,
    out: &mut TextBuf,
) {
    let Some(slot) = st
        .bytes
        .get(index * SLOT_BYTES..)
        .and_then(Slot::from_slice)
    else {
        return json::null(out);
    };
    out.push('{');
    if let Some(keys) = keys {
        out.extend_from_slice(&keys.0);
        out.push(',');
    }
    let op = slot.opcode();
    let at = SlotIndex(index as u32);
    json::key(out, "index");
    out.push_dec(at.0.into());
    json::key_next(out, "offset");
    out.push_dec(at.byte_offset().0);
    json::key_next(out, "opcode");
    out.push_dec(op.0.into());
    json::key_next(out, "mnemonic");
    json::opt_string(out, op.mnemonic());
    json::key_next(out, "pseudo");
    json::boolean(out, op.is_pseudo());
    json::key_next(out, "text");
    out.push('"');
    let from = out.len();
    let pairing = print_stream_slot(st.bytes, index, opts.dialect, out);
    json::escape_from(out, from);
    out.push('"');
    json::key_next(out, "hex");
    json::hex(out, slot.bytes());
    json::key_next(out, "fields");
    // A continuation's bytes are its head's DmaExtension, not the 0xDA row's (D155).
    let layout = match pairing {
        Pairing::Continuation => Some(&neff_isa::payload::DMA_EXTENSION),
        _ => layout_for_dialect(op, opts.dialect),
    };
    match layout {
        Some(l) => SlotFields::new(slot, l).write_json(out),
        None => json::null(out),
    }
    write_debug(st, index, opts.debug, out);
    if pairing == Pairing::Continuation {
        json::key_next(out, "continuation_of");
        out.push_dec(index as u64 - 1);
    }
    out.push('}');
}

/// `,"bir":..,"hlo":..,"source":..` of slot `index` of `st` from the NEFF's debug info (each
/// null when unknown; the objects in serde_json's bytes of their `Serialize`).
fn write_debug(st: &Stream<'_>, index: usize, debug: Option<&DebugInfo>, out: &mut TextBuf) {
    let d = (|| Some(debug?.slot(st.subgraph?, st.engine?, index)))().unwrap_or_default();
    json::key_next(out, "bir");
    json::opt_string(out, d.bir_name());
    json::key_next(out, "hlo");
    serde_or_null(d.hlo.as_ref(), out);
    json::key_next(out, "source");
    serde_or_null(d.source.as_ref(), out);
}

/// Appends `v`'s compact serde_json bytes, or `null`.
fn serde_or_null<T: Serialize>(v: Option<&T>, out: &mut TextBuf) {
    match v {
        // Serializing into a Vec cannot fail.
        Some(v) => out.extend_from_slice(&serde_json::to_vec(v).unwrap_or_default()),
        None => json::null(out),
    }
}

/// Appends slots `range` (bytes) of stream `st` as JSON lines led by its `keys` (`--jsonl`).
pub(crate) fn write_slot_lines(
    st: &Stream<'_>,
    keys: &StreamKeys,
    range: std::ops::Range<usize>,
    opts: JsonOptions<'_>,
    out: &mut TextBuf,
) {
    for i in range.start / SLOT_BYTES..range.end / SLOT_BYTES {
        write_slot(st, Some(keys), i, opts, out);
        out.push('\n');
    }
}

/// Which part of the `--json` document a job writes: slots `range` (bytes) of stream `k` of the
/// document's streams.
pub(crate) struct Part<'d> {
    /// The input path as given (the document's `file`).
    pub(crate) file: &'d str,
    /// Every stream of the document.
    pub(crate) streams: &'d [Stream<'d>],
    /// The stream.
    pub(crate) k: usize,
    /// Its slot bytes this part holds (the whole stream for `--sp`).
    pub(crate) range: std::ops::Range<usize>,
}

/// Appends part `p` of the `--json` document `{"file", "streams": [{"member", "subgraph",
/// "engine", "slots": [...], "trailing_hex"}]}` as compact JSON: the document's head before the
/// first stream, a stream's head before its first slot, its tail after its last; the parts in
/// order are the whole document. Returns the depth its first byte is at, for [`json::Pretty`].
pub(crate) fn write_document_part(p: &Part<'_>, opts: JsonOptions<'_>, out: &mut TextBuf) -> usize {
    let st = &p.streams[p.k];
    let depth = match (p.k, p.range.start) {
        (0, 0) => 0,
        (_, 0) => 2,
        _ => 4,
    };
    if p.range.start == 0 {
        if p.k == 0 {
            json::key_first(out, "file");
            json::string(out, p.file);
            json::key_next(out, "streams");
            out.push('[');
        } else {
            out.push(',');
        }
        out.push('{');
        out.extend_from_slice(&StreamKeys::new(st).0);
        json::key_next(out, "slots");
        out.push('[');
    }
    let trailing = if opts.sp {
        for (n, w) in sp_words(st.bytes).enumerate() {
            if let Some(word) = SpJson::new(None, (n, w)) {
                if n > 0 {
                    out.push(',');
                }
                serde_or_null(Some(&word), out);
            }
        }
        sp_words(st.bytes).remainder()
    } else {
        for i in p.range.start / SLOT_BYTES..p.range.end / SLOT_BYTES {
            if i > 0 {
                out.push(',');
            }
            write_slot(st, None, i, opts, out);
        }
        slots(st.bytes).remainder()
    };
    if opts.sp || p.range.end == st.bytes.len() {
        out.push(']');
        json::key_next(out, "trailing_hex");
        if trailing.is_empty() {
            json::null(out);
        } else {
            json::hex(out, trailing);
        }
        out.push('}');
        if p.k + 1 == p.streams.len() {
            out.push_ascii(b"]}");
        }
    }
    depth
}

/// The `--json` document of no streams.
pub(crate) fn write_empty_document(file: &str, out: &mut TextBuf) {
    json::key_first(out, "file");
    json::string(out, file);
    json::key_next(out, "streams");
    out.push_ascii(b"[]}");
}

/// Lowercase hex of a byte string, written without an intermediate `String` per byte.
pub(crate) struct Hex<'a>(pub(crate) &'a [u8]);

impl Serialize for Hex<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut small = [0u8; 2 * SLOT_BYTES];
        let mut big = Vec::new();
        let buf: &mut [u8] = if self.0.len() <= SLOT_BYTES {
            &mut small[..2 * self.0.len()]
        } else {
            big.resize(2 * self.0.len(), 0);
            &mut big
        };
        for (pair, b) in buf.chunks_exact_mut(2).zip(self.0) {
            pair[0] = DIGITS[usize::from(b >> 4)];
            pair[1] = DIGITS[usize::from(b & 0xF)];
        }
        // Hex digits are ASCII.
        s.serialize_str(std::str::from_utf8(buf).unwrap_or_default())
    }
}

/// One 8-byte SP word: `{"index", "offset", "opcode", "phase", "mnemonic", "text", "hex"}`.
struct SpJson<'a> {
    /// The stream, whose keys lead in `--jsonl`.
    stream: Option<&'a Stream<'a>>,
    index: usize,
    word: &'a [u8; SP_WORD_BYTES],
}

impl<'a> SpJson<'a> {
    fn new(stream: Option<&'a Stream<'a>>, (index, w): (usize, &'a [u8])) -> Option<Self> {
        Some(Self {
            stream,
            index,
            word: w.try_into().ok()?,
        })
    }
}

impl Serialize for SpJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let word = SpWord(self.word);
        let mut text = String::new();
        word.print(&mut text);
        let mut m = s.serialize_map(None)?;
        if let Some(st) = self.stream {
            serialize_stream_keys(&mut m, st)?;
        }
        m.serialize_entry("index", &self.index)?;
        m.serialize_entry("offset", &(self.index * SP_WORD_BYTES))?;
        m.serialize_entry("opcode", &word.opcode())?;
        m.serialize_entry("phase", &word.phase())?;
        m.serialize_entry("mnemonic", &word.mnemonic())?;
        m.serialize_entry("text", &text)?;
        m.serialize_entry("hex", &Hex(self.word))?;
        m.end()
    }
}

/// Writes the SP words of `st` as JSON lines (`--sp --jsonl`), then its trailing bytes if any.
pub(crate) fn write_sp_lines(st: &Stream<'_>, out: &mut impl Write) -> std::io::Result<()> {
    let mut words = sp_words(st.bytes);
    for item in words
        .by_ref()
        .enumerate()
        .filter_map(|w| SpJson::new(Some(st), w))
    {
        serde_json::to_writer(&mut *out, &item)?;
        out.write_all(b"\n")?;
    }
    write_trailing_line(st, words.remainder(), out)
}

/// A stream's bytes after its last whole slot or word as one line `{"member", "subgraph",
/// "engine", "trailing_hex"}` (`--jsonl`; nothing when there are none).
pub(crate) fn write_trailing_line(
    st: &Stream<'_>,
    trailing: &[u8],
    out: &mut impl Write,
) -> std::io::Result<()> {
    if trailing.is_empty() {
        return Ok(());
    }
    struct Trailing<'a>(&'a Stream<'a>, &'a [u8]);
    impl Serialize for Trailing<'_> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(Some(4))?;
            serialize_stream_keys(&mut m, self.0)?;
            m.serialize_entry("trailing_hex", &Hex(self.1))?;
            m.end()
        }
    }
    serde_json::to_writer(&mut *out, &Trailing(st, trailing))?;
    out.write_all(b"\n")
}
