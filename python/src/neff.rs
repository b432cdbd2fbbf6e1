//! `neffkit.Neff`: one parsed NEFF held by Python — the file bytes and the parsed container
//! (whose members are views into its one inflated buffer) in one self-referential cell, so
//! members, slots and loads borrow from it without copying.

use neff_container::{ContainerError, Neff as ParsedNeff, ReadOptions};
use neff_isa::{Dialect, EngineType, SLOT_BYTES};
use neff_kelf::{Kelf, StreamMember, select_streams};
use neff_load::device_model::{DeviceModel, RegionModel};
use neff_load::model::{LoadOptions, load};
use neff_lower::LowerOptions;
use neff_sim::{SimOptions, simulate};
use pyo3::exceptions::PyImportError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use self_cell::self_cell;

use crate::error::{
    ContainerError as PyContainerError, KelfError, LoadError as PyLoadError, SelectionError, raise,
};
use crate::instruction::{Instruction, disassemble};
use crate::json::to_py;
use crate::loaded::{Loaded, LoadedModel};
use crate::source::read_source;

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
    let (bytes, label) = read_source(
        py,
        source,
        "neffkit.open takes a path (str or os.PathLike) or the file's bytes",
        "",
    )?;
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

    /// How errors name the input: the path as given, or `<bytes>`.
    pub(crate) fn label(&self) -> &str {
        &self.label
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

    /// The (n, 64) uint8 numpy array of the whole slots of one engine stream, without copying:
    /// the array views the NEFF's own buffer (read-only) and keeps this Neff alive. Needs numpy.
    fn slots<'py>(
        slf: &Bound<'py, Self>,
        subgraph: &str,
        engine: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let neff = slf.get();
        let stream = neff.streams(Some(subgraph), Some(parse_engine(engine)?))?[0];
        let bytes = neff.member_bytes(stream.path);
        let view = SlotView {
            _owner: slf.clone().unbind(),
            addr: bytes.as_ptr() as usize,
            rows: bytes.len() / SLOT_BYTES,
        };
        let numpy = py.import("numpy").map_err(|e| {
            PyImportError::new_err(format!("Neff.slots needs numpy (pip install numpy): {e}"))
        })?;
        numpy.call_method1("asarray", (view,))
    }

    /// Loads the NEFF the way the runtime does (neff-load): every subgraph's engines lowered,
    /// assembled and staged. `device_model` is `"spec"` or `"runtime"` (`neff load
    /// --device-model`; default: runtime for trn2 NEFFs, spec for the others). The GIL is
    /// released while it runs.
    #[pyo3(signature = (device_model = None))]
    fn load(slf: &Bound<'_, Self>, device_model: Option<&str>) -> PyResult<LoadedModel> {
        let py = slf.py();
        let neff = slf.get();
        let kelf = neff.kelf()?;
        let options = load_options(&kelf, device_model)?;
        let kbins = kelf
            .kbins()
            .map_err(|e| raise::<KelfError>(&neff.label, &e))?;
        let sources = kbins
            .iter()
            .map(|k| {
                let engines = k.engines.iter().map(|e| (e.eng_type, e.member.clone()));
                (k.name.clone(), engines.collect())
            })
            .collect();
        let model = py
            .detach(|| load(&kelf, &options))
            .map_err(|e| raise::<PyLoadError>(&format!("loading {}", neff.label), &e))?;
        Ok(LoadedModel::new(Loaded {
            model,
            device_model: options.device.name(),
            neff: slf.clone().unbind(),
            sources,
        }))
    }

    /// Simulates the loaded program on a model of the NeuronCore (neff-sim) and returns the
    /// `neff sim --json` document: per subgraph the span, per-engine busy / wait / idle time,
    /// queues, instruction classes and critical path, plus `deadlock` (None, or the wait cycle)
    /// and `warnings`. The GIL is released while it runs.
    #[pyo3(signature = (device_model = None, subgraph = None, max_steps = neff_sim::DEFAULT_MAX_STEPS))]
    fn sim(
        &self,
        py: Python<'_>,
        device_model: Option<&str>,
        subgraph: Option<&str>,
        max_steps: u64,
    ) -> PyResult<Py<PyAny>> {
        let kelf = self.kelf()?;
        let mut options = load_options(&kelf, device_model)?;
        options.lower = LowerOptions::default();
        let model = py
            .detach(|| load(&kelf, &options))
            .map_err(|e| raise::<PyLoadError>(&format!("loading {}", self.label), &e))?;
        if let Some(sg) = subgraph
            && !model.subgraphs.iter().any(|s| s.name == sg)
        {
            let known = model.subgraphs.iter().map(|s| s.name.clone()).collect();
            let err = neff_kelf::KelfError::NoSuchSubgraph {
                name: sg.to_owned(),
                known,
            };
            return Err(raise::<KelfError>(&self.label, &err));
        }
        let sim_options = SimOptions {
            cost: neff_sim::cost::CostModel::for_target(kelf.target),
            max_steps,
            record: true,
            subgraphs: subgraph.iter().map(|s| (*s).to_owned()).collect(),
            ..SimOptions::default()
        };
        let result = py
            .detach(|| simulate(&model, &sim_options))
            .map_err(|e| raise::<PyLoadError>(&format!("simulating {}", self.label), &e))?;
        to_py(py, &result.report_json())
    }

    fn __repr__(&self) -> String {
        let n = self.parsed().member_count();
        format!("<neffkit.Neff {:?}: {n} members>", self.label)
    }
}

/// The load options of `neff load` (report only: no DMA descriptors kept) for `device_model`.
fn load_options(kelf: &Kelf<'_>, device_model: Option<&str>) -> PyResult<LoadOptions> {
    let device = match device_model {
        Some(name) => {
            let m: RegionModel = name
                .parse()
                .map_err(|e| raise::<SelectionError>("", &e as &dyn std::error::Error))?;
            DeviceModel::with_regions(m)
        }
        None => DeviceModel::default_for(kelf.target),
    };
    Ok(LoadOptions {
        device,
        lower: LowerOptions {
            skip_descriptors: true,
            ..LowerOptions::default()
        },
        ..LoadOptions::default()
    })
}

/// An (n, 64) read-only uint8 view of engine stream bytes for numpy's `__array_interface__`
/// protocol (zero-copy, no unsafe code: numpy reads the address; this object, which numpy keeps
/// as the array's base, keeps the Neff that owns the bytes alive and the bytes never move).
#[pyclass(frozen, module = "neffkit")]
struct SlotView {
    _owner: Py<Neff>,
    addr: usize,
    rows: usize,
}

#[pymethods]
impl SlotView {
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("shape", (self.rows, SLOT_BYTES))?;
        d.set_item("typestr", "|u1")?;
        d.set_item("data", (self.addr, true))?;
        d.set_item("version", 3)?;
        Ok(d)
    }
}
