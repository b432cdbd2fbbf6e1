//! `neffkit.Neff`: one parsed NEFF held by Python — the file bytes and the parsed container
//! (whose members are views into its one inflated buffer) in one self-referential cell, so
//! members, slots and loads borrow from it without copying.

use std::path::PathBuf;

use neff_container::{ContainerError, Neff as ParsedNeff, ReadOptions};
use neff_isa::{Dialect, EngineType};
use neff_kelf::{Kelf, StreamMember, select_streams};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes};
use self_cell::self_cell;

use crate::error::{
    ContainerError as PyContainerError, KelfError, NeffIOError, SelectionError, raise,
};
use crate::instruction::{Instruction, disassemble};
use crate::json::to_py;

self_cell!(
    /// The file's bytes and the container parsed from them.
    struct OwnedNeff {
        owner: Vec<u8>,
        #[covariant]
        dependent: ParsedNeff,
    }
);

/// A parsed NEFF file: header, members, engine streams; `load()` runs the runtime's load.
#[pyclass(frozen, module = "neffkit")]
pub(crate) struct Neff {
    cell: OwnedNeff,
    /// How errors name the input: the path as given, or `<bytes>`.
    label: String,
}

/// `neffkit.open(path_or_bytes, verify=True)`.
#[pyfunction]
#[pyo3(signature = (source, verify = true))]
pub(crate) fn open(py: Python<'_>, source: &Bound<'_, PyAny>, verify: bool) -> PyResult<Neff> {
    let (bytes, label) = if let Ok(b) = source.cast::<PyBytes>() {
        (b.as_bytes().to_vec(), "<bytes>".to_owned())
    } else if let Ok(b) = source.cast::<PyByteArray>() {
        (b.to_vec(), "<bytes>".to_owned())
    } else if let Ok(path) = source.extract::<PathBuf>() {
        let label = path.display().to_string();
        let bytes = py
            .detach(|| std::fs::read(&path))
            .map_err(|e| raise::<NeffIOError>(&format!("reading {label}"), &e))?;
        (bytes, label)
    } else {
        return Err(PyTypeError::new_err(
            "neffkit.open takes a path (str or os.PathLike) or the file's bytes",
        ));
    };
    let options = ReadOptions {
        verify,
        ..ReadOptions::default()
    };
    let cell = py
        .detach(|| OwnedNeff::try_new(bytes, |b| ParsedNeff::parse_with(b, &options)))
        .map_err(|e| raise::<PyContainerError>(&label, &e))?;
    Ok(Neff { cell, label })
}

impl Neff {
    /// The parsed container.
    pub(crate) fn parsed(&self) -> &ParsedNeff<'_> {
        self.cell.borrow_dependent()
    }

    /// The kelf (spec 004 §1), or the CLI's error.
    pub(crate) fn kelf(&self) -> PyResult<Kelf<'_>> {
        Kelf::from_neff(self.parsed()).map_err(|e| raise::<KelfError>(&self.label, &e))
    }

    /// The engine streams `subgraph` and `engine` select, or the CLI's error.
    fn streams(
        &self,
        subgraph: Option<&str>,
        engine: Option<EngineType>,
    ) -> PyResult<Vec<StreamMember<'_>>> {
        select_streams(self.parsed().members().map(|m| m.path), subgraph, engine)
            .map_err(|e| raise::<SelectionError>(&self.label, &e))
    }

    /// The bytes of a member the container listed.
    pub(crate) fn member_bytes(&self, path: &str) -> &[u8] {
        self.parsed().member(path).unwrap_or_default()
    }
}

/// An engine name (`pe`, `act`, `pool`, `dve`, `sp`, or `PE`, `Activation`, ...), or the CLI's
/// error for it.
pub(crate) fn parse_engine(name: &str) -> PyResult<EngineType> {
    name.parse()
        .map_err(|e| raise::<SelectionError>("", &e as &dyn std::error::Error))
}

#[pymethods]
impl Neff {
    /// The header, as `neff info --json` prints it: pkg_version, header_size, data_size,
    /// neff_version_major, neff_version_minor, num_tpb, hash (hex), uuid, name,
    /// requested_tpb_count, tpb_per_node (64 ints), feature_bits, lnc_size.
    #[getter]
    fn header(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.parsed().header().to_json())
    }

    /// Every member as `(path, size)`, in stored order.
    #[getter]
    fn members(&self) -> Vec<(String, u64)> {
        self.parsed()
            .members()
            .map(|m| (m.path.to_owned(), m.size()))
            .collect()
    }

    /// The bytes of the member at `path` (`sg00/def.json`; a leading `./` is ignored).
    fn member<'py>(&self, py: Python<'py>, path: &str) -> PyResult<Bound<'py, PyBytes>> {
        let path = path.strip_prefix("./").unwrap_or(path);
        match self.parsed().member(path) {
            Some(data) => Ok(PyBytes::new(py, data)),
            None => Err(raise::<SelectionError>(
                &self.label,
                &ContainerError::NoSuchMember {
                    path: path.to_owned(),
                },
            )),
        }
    }

    /// Disassembles the engine streams (`sgNN/<engine>.bin`) `subgraph` and `engine` select
    /// (all when None), in subgraph then engine order, one `Instruction` per 64-byte slot.
    #[pyo3(signature = (subgraph = None, engine = None, legacy_events = false))]
    fn disasm(
        &self,
        py: Python<'_>,
        subgraph: Option<&str>,
        engine: Option<&str>,
        legacy_events: bool,
    ) -> PyResult<Vec<Instruction>> {
        let engine = engine.map(parse_engine).transpose()?;
        let dialect = if legacy_events {
            Dialect::Legacy4
        } else {
            Dialect::Semaphore8
        };
        let streams = self.streams(subgraph, engine)?;
        let inputs: Vec<(StreamMember<'_>, &[u8])> = streams
            .into_iter()
            .map(|s| (s, self.member_bytes(s.path)))
            .collect();
        Ok(py.detach(|| disassemble(&inputs, dialect)))
    }

    /// Each subgraph's kbin (spec 004 §2), as `neff kbin --json` prints it:
    /// `{"subgraphs": [{"name", "target", "arch", "engines", "dma_queues", "mem_refs",
    /// "warnings"}]}`; only `subgraph`'s when given.
    #[pyo3(signature = (subgraph = None))]
    fn kbin(&self, py: Python<'_>, subgraph: Option<&str>) -> PyResult<Py<PyAny>> {
        let kelf = self.kelf()?;
        let kbins = kelf
            .kbins_of(subgraph)
            .map_err(|e| raise::<KelfError>(&self.label, &e))?;
        let subgraphs: Vec<serde_json::Value> = kbins.iter().map(|k| k.to_json()).collect();
        to_py(py, &serde_json::json!({ "subgraphs": subgraphs }))
    }

    fn __repr__(&self) -> String {
        let n = self.parsed().member_count();
        format!("<neffkit.Neff {:?}: {n} members>", self.label)
    }
}
