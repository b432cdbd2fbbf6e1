//! `neff disasm --json` and `--jsonl`: typed output structs serialized while they are made
//! (decision D424). `--json` writes the one pretty document slot by slot, never holding a tree;
//! `--jsonl` writes one compact object per slot, its stream's keys first, formatted on every core
//! and written in order (D392's writer).

use std::io::Write;

use neff_debug::{DebugInfo, SlotDebug};
use neff_isa::continuation::Pairing;
use neff_isa::layout::SlotFields;
use neff_isa::sp::{SP_WORD_BYTES, SpWord, sp_words};
use neff_isa::text::{layout_for_dialect, print_stream_slot};
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

/// The `--json` document: `{"file", "streams": [...]}`.
pub(crate) struct Document<'a> {
    /// The input path as given.
    pub(crate) file: String,
    /// The streams, in print order.
    pub(crate) streams: &'a [Stream<'a>],
    /// How slots are read.
    pub(crate) opts: JsonOptions<'a>,
}

impl Serialize for Document<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("file", &self.file)?;
        let streams = Each(self.streams.iter().map(|st| StreamJson(st, self.opts)));
        m.serialize_entry("streams", &streams)?;
        m.end()
    }
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

/// One stream: `{"member", "subgraph", "engine", "slots", "trailing_hex"}`.
struct StreamJson<'a>(&'a Stream<'a>, JsonOptions<'a>);

impl Serialize for StreamJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (st, opts) = (self.0, self.1);
        let mut m = s.serialize_map(Some(5))?;
        serialize_stream_keys(&mut m, st)?;
        let trailing = if opts.sp {
            let words = Each(
                sp_words(st.bytes)
                    .enumerate()
                    .filter_map(|w| SpJson::new(None, w)),
            );
            m.serialize_entry("slots", &words)?;
            sp_words(st.bytes).remainder()
        } else {
            let n = st.bytes.len() / SLOT_BYTES;
            let items = Each((0..n).map(|i| SlotJson::new(st, i, opts, false)));
            m.serialize_entry("slots", &items)?;
            slots(st.bytes).remainder()
        };
        let trailing = (!trailing.is_empty()).then_some(Hex(trailing));
        m.serialize_entry("trailing_hex", &trailing)?;
        m.end()
    }
}

/// `"member"`, `"subgraph"`, `"engine"` of a stream (each null for a `.bin`).
fn serialize_stream_keys<M: SerializeMap>(m: &mut M, st: &Stream<'_>) -> Result<(), M::Error> {
    m.serialize_entry("member", &st.member)?;
    m.serialize_entry("subgraph", &st.subgraph)?;
    m.serialize_entry("engine", &st.engine.map(|e| e.key()))
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

/// One 64-byte slot: `{"index", "offset", "opcode", "mnemonic", "pseudo", "text", "hex",
/// "fields", "bir", "hlo", "source", "continuation_of"?}`, after its stream's keys in `--jsonl`.
pub(crate) struct SlotJson<'a> {
    stream: &'a Stream<'a>,
    index: usize,
    text: String,
    pairing: Pairing,
    dialect: Dialect,
    debug: Option<SlotDebug<'a>>,
    with_stream: bool,
}

impl<'a> SlotJson<'a> {
    /// Slot `index` of `stream` (`with_stream`: the stream's keys lead, for `--jsonl`).
    pub(crate) fn new(
        stream: &'a Stream<'a>,
        index: usize,
        opts: JsonOptions<'a>,
        with_stream: bool,
    ) -> Self {
        let mut text = String::new();
        let pairing = print_stream_slot(stream.bytes, index, opts.dialect, &mut text);
        let debug = (|| Some(opts.debug?.slot(stream.subgraph?, stream.engine?, index)))();
        Self {
            stream,
            index,
            text,
            pairing,
            dialect: opts.dialect,
            debug,
            with_stream,
        }
    }
}

impl Serialize for SlotJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let at = self.index * SLOT_BYTES;
        let Some(slot) = Slot::from_slice(&self.stream.bytes[at..]) else {
            return s.serialize_none();
        };
        let op = slot.opcode();
        // A continuation's bytes are its head's DmaExtension, not the 0xDA row's (D155).
        let layout = match self.pairing {
            Pairing::Continuation => Some(&neff_isa::payload::DMA_EXTENSION),
            _ => layout_for_dialect(op, self.dialect),
        };
        let mut m = s.serialize_map(None)?;
        if self.with_stream {
            serialize_stream_keys(&mut m, self.stream)?;
        }
        let index = SlotIndex(self.index as u32);
        m.serialize_entry("index", &index.0)?;
        m.serialize_entry("offset", &index.byte_offset().0)?;
        m.serialize_entry("opcode", &op.0)?;
        m.serialize_entry("mnemonic", &op.mnemonic())?;
        m.serialize_entry("pseudo", &op.is_pseudo())?;
        m.serialize_entry("text", &self.text)?;
        m.serialize_entry("hex", &Hex(slot.bytes()))?;
        m.serialize_entry("fields", &layout.map(|l| SlotFields::new(slot, l)))?;
        let d = self.debug.clone().unwrap_or_default();
        m.serialize_entry("bir", &d.bir_name())?;
        m.serialize_entry("hlo", &d.hlo)?;
        m.serialize_entry("source", &d.source)?;
        if self.pairing == Pairing::Continuation {
            m.serialize_entry("continuation_of", &(self.index - 1))?;
        }
        m.end()
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

/// Writes slots `range` of stream `st` as JSON lines into `out` (`--jsonl`).
pub(crate) fn write_slot_lines(
    st: &Stream<'_>,
    range: std::ops::Range<usize>,
    opts: JsonOptions<'_>,
    out: &mut Vec<u8>,
) {
    for i in range.start / SLOT_BYTES..range.end / SLOT_BYTES {
        // Writing into a Vec cannot fail; a serializer error would be a bug of these impls.
        let _ = serde_json::to_writer(&mut *out, &SlotJson::new(st, i, opts, true));
        out.push(b'\n');
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
