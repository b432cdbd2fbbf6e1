//! `neffkit.Instruction`: one 64-byte slot of an engine stream with its text — exactly the
//! `neff disasm` line without the slot prefix (neff-isa's `print_slot`) — and its typed fields
//! (neff-isa's layout table, read generically).

use std::sync::Arc;

use neff_isa::continuation::record_boundary;
use neff_isa::layout::SlotFields;
use neff_isa::text::{layout_for_dialect, text_lines};
use neff_isa::{Dialect, EngineType, SLOT_BYTES, Slot};
use neff_kelf::StreamMember;
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

    /// The payload fields of the (first) slot's layout (neff-isa's one table), in text order:
    /// the objects `neff disasm --json` gives as `"fields"` for the same slot, converted from the
    /// same typed struct (decision D423): ints; enum names (an unknown value stays an int); names
    /// as str; tensors, DMA patterns, ADDR8, operands and extended events as dicts; arrays as
    /// lists. Empty for an opcode without a layout (the CLI's `null`).
    #[getter]
    fn fields<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let Some(slot) = self.view() else {
            return Ok(PyDict::new(py));
        };
        let Some(layout) = layout_for_dialect(slot.opcode(), self.dialect) else {
            return Ok(PyDict::new(py));
        };
        let value = serde_json::to_value(SlotFields::new(slot, layout))
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
        let obj = crate::json::to_py(py, &value)?;
        Ok(obj.into_bound(py).cast_into::<PyDict>()?)
    }

    fn __repr__(&self) -> String {
        format!(
            "<neffkit.Instruction {}:{} {}>",
            self.member, self.slot, self.text
        )
    }
}
