//! `neffkit.Instruction`: one 64-byte slot of an engine stream with its text — exactly the
//! `neff disasm` line without the slot prefix (neff-isa's `print_slot`) — and its typed fields
//! (neff-isa's layout table, read generically).

use std::sync::Arc;

use neff_isa::continuation::record_boundary;
use neff_isa::layout::{FieldKind, FieldValue, ImmForm};
use neff_isa::text::{layout_for_dialect, text_lines};
use neff_isa::{Dialect, EngineType, SLOT_BYTES, Slot};
use neff_kelf::StreamMember;
use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use rayon::prelude::*;

/// One instruction of an engine stream: one line of `neff disasm` (one 64-byte slot, or a
/// PSEUDO_DMA_DIRECT2D with its continuation slot, decision D155).
#[pyclass(frozen, module = "neffkit")]
pub(crate) struct Instruction {
    /// The member it was read from (`sg00/pool.bin`).
    member: Arc<str>,
    /// The subgraph (`sg00`).
    subgraph: Arc<str>,
    /// The engine.
    engine: EngineType,
    /// Index of its (first) slot in the stream (0-based, the `neff disasm` prefix).
    slot: u64,
    /// The slot's bytes.
    bytes: [u8; SLOT_BYTES],
    /// The continuation slot's bytes, for a two-slot record.
    continuation: Option<[u8; SLOT_BYTES]>,
    /// The text form.
    text: String,
    /// The events dialect the text and fields use.
    dialect: Dialect,
}

/// Slots per parallel piece: large enough that a thread's start-up is noise.
const PIECE_SLOTS: usize = 16 * 1024;

/// Every line of each stream as an `Instruction`, text printed in parallel over pieces cut
/// between records (lines print independently, spec 003 §7). A partial trailing slot is not an
/// instruction.
pub(crate) fn disassemble(
    streams: &[(StreamMember<'_>, &[u8])],
    dialect: Dialect,
) -> Vec<Instruction> {
    let mut out = Vec::new();
    for (s, bytes) in streams {
        let member: Arc<str> = Arc::from(s.path);
        let subgraph: Arc<str> = Arc::from(s.subgraph);
        let whole = &bytes[..bytes.len() / SLOT_BYTES * SLOT_BYTES];
        let pieces: Vec<Vec<Instruction>> = pieces(whole)
            .into_par_iter()
            .map(|(start, end)| {
                let first = (start / SLOT_BYTES) as u64;
                text_lines(&whole[start..end])
                    .map(|line| {
                        let mut text = String::new();
                        line.print(dialect, &mut text);
                        Instruction {
                            member: member.clone(),
                            subgraph: subgraph.clone(),
                            engine: s.engine,
                            slot: first + u64::from(line.index.0),
                            bytes: *line.head.bytes(),
                            continuation: line.continuation.map(|c| *c.bytes()),
                            text,
                            dialect,
                        }
                    })
                    .collect()
            })
            .collect();
        out.extend(pieces.into_iter().flatten());
    }
    out
}

/// `[start, end)` byte ranges covering `stream`, about [`PIECE_SLOTS`] slots each, never
/// separating a head from its continuation.
fn pieces(stream: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < stream.len() {
        let end = record_boundary(stream, (start + PIECE_SLOTS * SLOT_BYTES).min(stream.len()))
            .min(stream.len());
        out.push((start, end));
        start = end;
    }
    out
}

impl Instruction {
    fn view(&self) -> Option<Slot<'_>> {
        Slot::from_slice(&self.bytes)
    }
}

#[pymethods]
impl Instruction {
    /// Index of its (first) slot in the stream (0-based; the number `neff disasm` prints before
    /// the colon).
    #[getter]
    fn slot(&self) -> u64 {
        self.slot
    }

    /// Byte offset of the slot in its stream.
    #[getter]
    fn offset(&self) -> u64 {
        self.slot * SLOT_BYTES as u64
    }

    /// The member the slot was read from (`sg00/pool.bin`).
    #[getter]
    fn member(&self) -> &str {
        &self.member
    }

    /// The subgraph (`sg00`).
    #[getter]
    fn subgraph(&self) -> &str {
        &self.subgraph
    }

    /// The engine (`pe`, `act`, `pool`, `dve` or `sp`).
    #[getter]
    fn engine(&self) -> &'static str {
        self.engine.key()
    }

    /// The opcode byte.
    #[getter]
    fn opcode(&self) -> u8 {
        self.bytes[0]
    }

    /// The opcode's mnemonic (`EVENT_SEMAPHORE`), None for an unknown opcode.
    #[getter]
    fn mnemonic(&self) -> Option<&'static str> {
        self.view().and_then(|s| s.opcode().mnemonic())
    }

    /// Whether the opcode is a pseudo-instruction the loader lowers.
    #[getter]
    fn pseudo(&self) -> bool {
        self.view().is_some_and(|s| s.opcode().is_pseudo())
    }

    /// The text form: exactly the `neff disasm` line without its `N: ` slot prefix.
    #[getter]
    fn text(&self) -> &str {
        &self.text
    }

    /// The instruction's bytes: its 64-byte slot, or 128 bytes for a PSEUDO_DMA_DIRECT2D with
    /// its continuation (decision D155).
    #[getter]
    fn bytes<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        match &self.continuation {
            Some(next) => PyBytes::new(py, &[&self.bytes[..], &next[..]].concat()),
            None => PyBytes::new(py, &self.bytes),
        }
    }

    /// The payload fields of the (first) slot's layout (neff-isa's one table), in text order: ints;
    /// enum names (an unknown value stays an int); names as str; tensors, ADDR8 and extended
    /// events as dicts; arrays as lists. Empty for an opcode without a layout.
    #[getter]
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        let Some(slot) = self.view() else {
            return Ok(dict);
        };
        if let Some(layout) = layout_for_dialect(slot.opcode(), self.dialect) {
            for f in layout.fields {
                dict.set_item(f.name, field_value(py, f.kind, &f.read(&slot))?)?;
            }
        }
        Ok(dict)
    }

    fn __repr__(&self) -> String {
        format!(
            "<neffkit.Instruction {}:{} {}>",
            self.member, self.slot, self.text
        )
    }
}

/// A dtype code's name (`fp32`, `bfloat16`), or its number in hex when unnamed.
fn dtype_name(code: u8) -> String {
    neff_isa::DTYPE
        .name_of(code)
        .map_or_else(|| format!("{code:#x}"), str::to_owned)
}

/// One field value as a Python object.
fn field_value(py: Python<'_>, kind: FieldKind, v: &FieldValue) -> PyResult<Py<PyAny>> {
    match *v {
        FieldValue::Int(n) => match kind {
            FieldKind::Enum(t) | FieldKind::Lo(t) | FieldKind::Hi(t) => {
                match u8::try_from(n).ok().and_then(|b| t.name_of(b)) {
                    Some(name) => name.into_py_any(py),
                    None => n.into_py_any(py),
                }
            }
            FieldKind::F32 => f32::from_bits(n as u32).into_py_any(py),
            _ => n.into_py_any(py),
        },
        FieldValue::Name(raw, width) => {
            let raw = &raw[..usize::from(width)];
            let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
            match std::str::from_utf8(&raw[..end]) {
                Ok(s) => s.into_py_any(py),
                Err(_) => PyBytes::new(py, raw).into_py_any(py),
            }
        }
        FieldValue::Tensor(t) => {
            let d = PyDict::new(py);
            let dims = usize::from(t.dims).min(4);
            d.set_item("start_addr", t.start_addr)?;
            d.set_item("dims", t.dims)?;
            d.set_item("step", t.step[..dims].to_vec())?;
            d.set_item("num", t.num[..dims].to_vec())?;
            d.set_item("dtype", t.dtype.map(dtype_name))?;
            d.into_py_any(py)
        }
        FieldValue::Pattern(p) => {
            let d = PyDict::new(py);
            let dims = usize::from(p.dims).min(4);
            d.set_item("step", p.step[..dims].to_vec())?;
            d.set_item("num", p.num[..dims].to_vec())?;
            d.into_py_any(py)
        }
        FieldValue::Ptr(addr, dtype) => {
            let d = PyDict::new(py);
            d.set_item("addr", addr)?;
            d.set_item("dtype", dtype.map(dtype_name))?;
            d.into_py_any(py)
        }
        FieldValue::Operand { bits, ptr, dtype } => {
            let d = PyDict::new(py);
            d.set_item("ptr", ptr)?;
            match (ptr, kind) {
                (false, FieldKind::Operand(op)) if op.imm == ImmForm::F32 => {
                    d.set_item("value", f32::from_bits(bits))?
                }
                _ => d.set_item("value", bits)?,
            }
            d.set_item("dtype", dtype.map(dtype_name))?;
            d.into_py_any(py)
        }
        FieldValue::Addr8(a) => {
            let d = PyDict::new(py);
            d.set_item("immediate", a.immediate)?;
            d.set_item("entry", a.entry)?;
            d.set_item("b6", a.b6)?;
            d.set_item("mode", a.mode)?;
            d.into_py_any(py)
        }
        FieldValue::Ints(values, n) => values[..usize::from(n).min(4)].to_vec().into_py_any(py),
        FieldValue::EventsExt(e) => {
            let d = PyDict::new(py);
            d.set_item("wait_mode", e.wait_mode)?;
            d.set_item("wait_idx", e.wait_idx)?;
            d.set_item("update_mode", e.update_mode)?;
            d.set_item("update_idx", e.update_idx)?;
            d.set_item("sem_wait_value", e.sem_wait_value)?;
            d.set_item("sem_update_value", e.sem_update_value)?;
            d.into_py_any(py)
        }
    }
}
