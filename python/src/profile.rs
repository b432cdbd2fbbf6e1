//! `neffkit._native.open_profile_native(source)`: a raw capture (`.ntff`, plain or gzip) or a
//! neuron-profile JSON report, told by content (neff-profile), read in one streaming pass. Its
//! events come back as packed little-endian records, one buffer per kind, which
//! `neffkit.open_profile` (python/neffkit/profile.py) views as numpy structured arrays without a
//! Python object per row (decision D641). Text fields are codes into `names` lists.

use std::collections::HashMap;
use std::path::Path;

use neff_isa::EngineType;
use neff_profile::input::{InputKind, decompress};
use neff_profile::summary_json::{facts_value, subgraph_value};
use neff_profile::{
    Capture, DmaView, InstructionView, Profile, ReadLimits, RowSink, SemaphoreView, SummaryBuilder,
    ThrottleView,
};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyDict, PyList};
use serde_json::Value;

use crate::error::{ProfileError, raise};
use crate::json::to_py;
use crate::source::read_source;

/// A field's numpy type: `<u4` codes, `<u8` counts and ns, `<i8` where -1 is "none".
type Fields = &'static [(&'static str, &'static str)];

/// The record layouts, in the order each sink method writes them (`--jsonl`'s field names).
const INSTRUCTION: Fields = &[
    ("subgraph", "<u4"),
    ("engine", "<i8"),
    ("label", "<u4"),
    ("opcode", "<u4"),
    ("pc", "<u8"),
    ("neff_slot", "<i8"),
    ("timestamp", "<u8"),
    ("duration", "<u8"),
    ("evt_wait_time", "<i8"),
    ("crc_in", "<i8"),
    ("crc_out", "<i8"),
];
const DMA: Fields = &[
    ("subgraph", "<u4"),
    ("dma_engine", "<u8"),
    ("dma_queue", "<u8"),
    ("size", "<u8"),
    ("timestamp", "<u8"),
    ("duration", "<u8"),
    ("crc", "<i8"),
];
const SEMAPHORE: Fields = &[
    ("subgraph", "<u4"),
    ("index", "<u8"),
    ("value", "<i8"),
    ("timestamp", "<u8"),
];
const THROTTLE: Fields = &[
    ("subgraph", "<u4"),
    ("k", "<u8"),
    ("type", "<u8"),
    ("n", "<u8"),
    ("timestamp", "<u8"),
    ("duration", "<u8"),
];

/// The kinds, their record layouts and the attribute names `open_profile` gives them.
const KINDS: [(&str, Fields); 4] = [
    ("instructions", INSTRUCTION),
    ("dma", DMA),
    ("semaphores", SEMAPHORE),
    ("throttle", THROTTLE),
];

/// Distinct texts of one field, each given the next code.
#[derive(Default)]
struct Names {
    codes: HashMap<String, u32>,
    names: Vec<String>,
}

impl Names {
    fn code(&mut self, s: &str) -> u32 {
        if let Some(&c) = self.codes.get(s) {
            return c;
        }
        let c = self.names.len() as u32;
        self.codes.insert(s.to_owned(), c);
        self.names.push(s.to_owned());
        c
    }
}

/// Packed records of one kind.
#[derive(Default)]
struct Records {
    bytes: Vec<u8>,
    count: u64,
}

impl Records {
    fn u4(&mut self, v: u32) -> &mut Self {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn u8(&mut self, v: u64) -> &mut Self {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }
    fn i8(&mut self, v: i64) -> &mut Self {
        self.bytes.extend_from_slice(&v.to_le_bytes());
        self
    }
    /// A nullable number: -1 for none (every such field holds values below 2^63: ns, slots,
    /// 32-bit crcs).
    fn opt(&mut self, v: Option<u64>) -> &mut Self {
        self.i8(v.map_or(-1, |v| i64::try_from(v).unwrap_or(i64::MAX)))
    }
    fn end(&mut self) {
        self.count += 1;
    }
}

/// The sink: records per kind, the text codes, and the summary of the same rows.
struct Columns {
    kinds: [Records; 4],
    subgraph: Names,
    label: Names,
    opcode: Names,
    summary: SummaryBuilder,
}

impl RowSink for Columns {
    fn instruction(&mut self, r: &InstructionView<'_>) {
        self.summary.instruction(r);
        let (sg, label, op) = (
            self.subgraph.code(r.subgraph),
            self.label.code(r.label),
            self.opcode.code(r.opcode),
        );
        let engine = r.engine.map_or(-1, |e| e.index() as i64);
        self.kinds[0]
            .u4(sg)
            .i8(engine)
            .u4(label)
            .u4(op)
            .u8(r.pc)
            .opt(r.neff_slot)
            .u8(r.timestamp)
            .u8(r.duration)
            .opt(r.evt_wait_time)
            .opt(r.crc_in)
            .opt(r.crc_out)
            .end();
    }
    fn dma(&mut self, d: &DmaView<'_>) {
        self.summary.dma(d);
        let sg = self.subgraph.code(d.subgraph);
        self.kinds[1]
            .u4(sg)
            .u8(d.dma_engine)
            .u8(d.dma_queue)
            .u8(d.size)
            .u8(d.timestamp)
            .u8(d.duration)
            .opt(d.crc)
            .end();
    }
    fn semaphore(&mut self, s: &SemaphoreView<'_>) {
        let sg = self.subgraph.code(s.subgraph);
        self.kinds[2]
            .u4(sg)
            .u8(s.index)
            .i8(s.value)
            .u8(s.timestamp)
            .end();
    }
    fn throttle(&mut self, t: &ThrottleView<'_>) {
        let sg = self.subgraph.code(t.subgraph);
        self.kinds[3]
            .u4(sg)
            .u8(t.k)
            .u8(t.kind)
            .u8(t.n)
            .u8(t.timestamp)
            .u8(t.duration)
            .end();
    }
}

/// What one read gives back before conversion.
struct Read {
    kind: &'static str,
    facts: Value,
    summary: Vec<Value>,
    columns: Columns,
}

fn read(label: &str, bytes: &[u8]) -> Result<Read, neff_profile::ProfileError> {
    let path = Path::new(label);
    let limits = ReadLimits::default();
    let (kind, bytes) = decompress(path, bytes, &limits)?;
    let columns = |facts| Columns {
        kinds: Default::default(),
        subgraph: Names::default(),
        label: Names::default(),
        opcode: Names::default(),
        summary: SummaryBuilder::new(0, facts),
    };
    let (kind, facts, mut cols) = match kind {
        InputKind::Capture => {
            let c = Capture::parse(&bytes).map_err(|source| neff_profile::ProfileError::Ntff {
                path: path.into(),
                source,
            })?;
            let mut cols = columns(Some(&c.facts));
            let (tb, _) = c.rows(&mut cols);
            ("capture", facts_value(&c.facts, Some(tb)), cols)
        }
        InputKind::Json => {
            let p = Profile::parse(path, &bytes, &limits)?;
            let mut cols = columns(None);
            p.rows(&mut cols);
            let header = p.neff_header.as_ref().map(|h| {
                serde_json::json!({"neff_uuid": h.uuid, "neff_hash": h.hash,
                                   "neff_name": h.network_name})
            });
            ("report", header.unwrap_or(Value::Null), cols)
        }
    };
    let summary = std::mem::take(&mut cols.summary).finish().0;
    Ok(Read {
        kind,
        facts,
        summary: summary.iter().map(subgraph_value).collect(),
        columns: cols,
    })
}

/// Reads the profile at `source` (a path or the file's bytes) and returns `{"kind", "facts",
/// "summary", "names": {field: [text]}, "tables": {kind: (bytearray, rows, [(field, numpy
/// type)])}}`. Raises `neffkit.ProfileError` with the CLI's message.
#[pyfunction]
pub(crate) fn open_profile_native<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyDict>> {
    let (bytes, label) = read_source(
        py,
        source,
        "neffkit.open_profile takes a path (str or os.PathLike) or the file's bytes",
        "",
    )?;
    let r = py
        .detach(|| read(&label, &bytes))
        .map_err(|e| raise::<ProfileError>("", &e))?;
    let out = PyDict::new(py);
    out.set_item("kind", r.kind)?;
    out.set_item("facts", to_py(py, &r.facts)?)?;
    out.set_item("summary", to_py(py, &Value::from(r.summary))?)?;
    let names = PyDict::new(py);
    names.set_item("subgraph", PyList::new(py, &r.columns.subgraph.names)?)?;
    let engines: Vec<&str> = EngineType::ALL.iter().map(|e| e.key()).collect();
    names.set_item("engine", PyList::new(py, engines)?)?;
    names.set_item("label", PyList::new(py, &r.columns.label.names)?)?;
    names.set_item("opcode", PyList::new(py, &r.columns.opcode.names)?)?;
    out.set_item("names", names)?;
    let tables = PyDict::new(py);
    for ((name, fields), rec) in KINDS.iter().zip(&r.columns.kinds) {
        let dtype = PyList::new(py, fields.iter())?;
        let buf = PyByteArray::new(py, &rec.bytes);
        tables.set_item(*name, (buf, rec.count, dtype))?;
    }
    out.set_item("tables", tables)?;
    Ok(out)
}
