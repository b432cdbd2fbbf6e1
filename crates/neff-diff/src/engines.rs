//! The instruction streams, paired by (subgraph, engine) and aligned ([`crate::align`]).

use neff_debug::DebugInfo;
use neff_isa::{EngineType, SLOT_BYTES};
use neff_kelf::Kelf;
use serde::Serialize;

use crate::align::{Alignment, Key, align};

/// What the second alignment pass keyed slots by (decision D501).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AlignedBy {
    /// BIR instruction name and source line: both NEFFs carry debug info for the stream.
    DebugInfo,
    /// Opcode.
    Opcode,
}

/// The diff of one engine stream of one subgraph.
#[derive(Debug, Clone, Serialize)]
pub struct EngineDiff<'a> {
    /// The subgraph (`sg00`).
    pub subgraph: String,
    /// The engine.
    #[serde(serialize_with = "engine_key")]
    pub engine: EngineType,
    /// A's stream member, if A has the stream.
    pub member_a: Option<String>,
    /// B's.
    pub member_b: Option<String>,
    /// How changed slots were paired.
    pub aligned_by: AlignedBy,
    /// Counts and edit runs.
    #[serde(flatten)]
    pub alignment: Alignment,
    /// Bytes after A's last whole slot.
    pub trailing_a: u64,
    /// Bytes after B's last whole slot.
    pub trailing_b: u64,
    /// Whether those trailing bytes differ.
    pub trailing_differs: bool,
    /// A's stream bytes (empty when A lacks it).
    #[serde(skip)]
    pub stream_a: &'a [u8],
    /// B's stream bytes.
    #[serde(skip)]
    pub stream_b: &'a [u8],
}

fn engine_key<S: serde::Serializer>(e: &EngineType, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(e.key())
}

impl EngineDiff<'_> {
    /// Whether the two streams are identical.
    pub fn is_same(&self) -> bool {
        self.alignment.ops.is_empty()
            && self.alignment.slots_a == self.alignment.slots_b
            && !self.trailing_differs
    }
}

/// One side's view of the streams.
pub(crate) struct Streams<'k, 'a> {
    pub(crate) kelf: &'k Kelf<'a>,
    pub(crate) debug: &'k DebugInfo,
}

impl<'a> Streams<'_, 'a> {
    fn stream(&self, sg: &str, e: EngineType) -> Option<(&'a [u8], &str)> {
        let g = self.kelf.graphs().iter().find(|g| g.name == sg)?;
        let p = g.engines.iter().find(|p| p.eng_type == e)?;
        Some((p.instr, p.instr_member.as_str()))
    }

    /// Whether the debug info maps slots of this stream to BIR instructions.
    fn has_debug(&self, sg: &str, e: EngineType) -> bool {
        self.debug.graph(sg).is_some_and(|g| g.asm(e).is_some())
    }

    /// The second-pass key of slot `i` of a stream with debug info.
    fn key(&self, sg: &str, e: EngineType, bytes: &[u8], i: u32) -> Key {
        let d = self.debug.slot(sg, e, i as usize);
        match d.bir {
            Some(b) => Key::Bir(b.name.to_owned(), d.source.map(|s| (s.file, s.line))),
            None => Key::Opcode(bytes[i as usize * SLOT_BYTES]),
        }
    }
}

/// The bytes after a stream's last whole slot.
fn tail(s: &[u8]) -> &[u8] {
    &s[s.len() / SLOT_BYTES * SLOT_BYTES..]
}

/// Subgraph names of both sides: A's order, then B's new ones.
fn subgraph_names(a: &Kelf<'_>, b: &Kelf<'_>) -> Vec<String> {
    let mut names: Vec<String> = a.graphs().iter().map(|g| g.name.clone()).collect();
    for g in b.graphs() {
        if !names.contains(&g.name) {
            names.push(g.name.clone());
        }
    }
    names
}

/// Aligns every (subgraph, engine) stream either side has.
pub(crate) fn diff_engines<'a>(a: &Streams<'_, 'a>, b: &Streams<'_, 'a>) -> Vec<EngineDiff<'a>> {
    let mut out = Vec::new();
    for sg in subgraph_names(a.kelf, b.kelf) {
        for e in EngineType::ALL {
            let (sa, sb) = (a.stream(&sg, e), b.stream(&sg, e));
            if sa.is_none() && sb.is_none() {
                continue;
            }
            let bytes_a = sa.map_or(&[][..], |s| s.0);
            let bytes_b = sb.map_or(&[][..], |s| s.0);
            let debug = a.has_debug(&sg, e) && b.has_debug(&sg, e);
            let alignment = if debug {
                align(
                    bytes_a,
                    bytes_b,
                    |i| a.key(&sg, e, bytes_a, i),
                    |i| b.key(&sg, e, bytes_b, i),
                )
            } else {
                align(
                    bytes_a,
                    bytes_b,
                    |i| bytes_a[i as usize * SLOT_BYTES],
                    |i| bytes_b[i as usize * SLOT_BYTES],
                )
            };
            out.push(EngineDiff {
                subgraph: sg.clone(),
                engine: e,
                member_a: sa.map(|s| s.1.to_owned()),
                member_b: sb.map(|s| s.1.to_owned()),
                aligned_by: if debug {
                    AlignedBy::DebugInfo
                } else {
                    AlignedBy::Opcode
                },
                alignment,
                trailing_a: tail(bytes_a).len() as u64,
                trailing_b: tail(bytes_b).len() as u64,
                trailing_differs: tail(bytes_a) != tail(bytes_b),
                stream_a: bytes_a,
                stream_b: bytes_b,
            });
        }
    }
    out
}
