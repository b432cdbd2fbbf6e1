//! `neffkit.LoadedModel`: a NEFF loaded the way the runtime loads it (neff-load), its subgraphs
//! and engines with their images, regions and patch rows (the `neff load --json` report), and the
//! IP maps both ways (the answers of `neff ip`).

use neff_load::DeviceAddr;
use std::sync::Arc;

use neff_isa::EngineType;
use neff_kelf::KelfError as KelfFailure;
use neff_load::ipmap::NeffIp;
use neff_load::model::{LoadedEngine, LoadedModel as Model};
use neff_load::report::{engine_json, ip_hit_json, source_text};
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use serde_json::{Value, json};

use crate::error::{IpError, KelfError, raise};
use crate::json::to_py;
use crate::neff::{Neff, parse_engine};

/// What a load keeps: the model, the name of its device model, the NEFF it came from and, per
/// subgraph, each engine's source stream member (for the text of an IP's instruction).
pub(crate) struct Loaded {
    pub(crate) model: Model,
    pub(crate) device_model: &'static str,
    pub(crate) neff: Py<Neff>,
    pub(crate) sources: Vec<(String, Vec<(EngineType, String)>)>,
}

impl Loaded {
    /// Subgraph `name`, or the first when None; the kelf's error otherwise.
    fn subgraph(&self, name: Option<&str>) -> PyResult<usize> {
        let found = match name {
            Some(n) => self.model.subgraphs.iter().position(|s| s.name == n),
            None => (!self.model.subgraphs.is_empty()).then_some(0),
        };
        found.ok_or_else(|| {
            let known = self
                .model
                .subgraphs
                .iter()
                .map(|s| s.name.clone())
                .collect();
            let err = KelfFailure::NoSuchSubgraph {
                name: name.unwrap_or_default().to_owned(),
                known,
            };
            raise::<KelfError>(self.neff.get().label(), &err)
        })
    }

    /// Engine `engine` of subgraph `sg` and its source stream.
    fn engine(&self, sg: usize, engine: EngineType) -> PyResult<(&LoadedEngine, &[u8])> {
        let sub = &self.model.subgraphs[sg];
        let e = sub.engine(engine).ok_or_else(|| {
            PyErr::new::<crate::error::SelectionError, _>(format!(
                "subgraph {} has no {engine}",
                sub.name
            ))
        })?;
        let source = self.sources[sg]
            .1
            .iter()
            .find(|(t, _)| *t == engine)
            .map_or(&[][..], |(_, path)| self.neff.get().member_bytes(path));
        Ok((e, source))
    }
}

/// A loaded NEFF (from `Neff.load()`).
#[pyclass(frozen, module = "neffkit")]
pub(crate) struct LoadedModel {
    inner: Arc<Loaded>,
}

impl LoadedModel {
    pub(crate) fn new(loaded: Loaded) -> Self {
        Self {
            inner: Arc::new(loaded),
        }
    }
}

#[pymethods]
impl LoadedModel {
    /// The device model the images were built for: `spec` or `runtime`.
    #[getter]
    fn device_model(&self) -> &'static str {
        self.inner.device_model
    }

    /// Every subgraph, in the NEFF's order.
    #[getter]
    fn subgraphs(&self) -> Vec<Subgraph> {
        (0..self.inner.model.subgraphs.len())
            .map(|sg| Subgraph {
                inner: self.inner.clone(),
                sg,
            })
            .collect()
    }

    /// The whole report, as `neff load --json` prints it.
    fn report(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &self.inner.model.report_json(self.inner.device_model))
    }

    /// The NEFF instruction at device address `device_addr` of `engine` (subgraph `subgraph`,
    /// the first by default): `{"device_ip", "neff_ip" (1-based), "section" (MAIN|FUNCTION),
    /// "text"}` plus `"runtime_error"` when the runtime would refuse the address (the section has no
    /// patch row: `IpMap::runtime_error`), the answer `neff ip` prints. Raises IpError with the runtime's message when the
    /// address maps to no NEFF instruction.
    #[pyo3(signature = (engine, device_addr, subgraph = None))]
    fn ip(
        &self,
        py: Python<'_>,
        engine: &str,
        device_addr: u64,
        subgraph: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        let (e, source) = self
            .inner
            .engine(self.inner.subgraph(subgraph)?, parse_engine(engine)?)?;
        let hit = e
            .ipmap
            .neff_ip(DeviceAddr(device_addr))
            .map_err(|err| raise::<IpError>("", &err))?;
        to_py(py, &ip_hit_json(e, source, device_addr, &hit, |_| {}))
    }

    /// The device address range of NEFF instruction `neff_ip` (1-based) of `engine`:
    /// `{"neff_ip", "section", "device_start", "device_end", "text"}`, or `{"neff_ip",
    /// "deleted": True, "text"}` when lowering deleted it — the answer of `neff ip --reverse`.
    #[pyo3(signature = (engine, neff_ip, subgraph = None))]
    fn ip_reverse(
        &self,
        py: Python<'_>,
        engine: &str,
        neff_ip: u64,
        subgraph: Option<&str>,
    ) -> PyResult<Py<PyAny>> {
        let (e, source) = self
            .inner
            .engine(self.inner.subgraph(subgraph)?, parse_engine(engine)?)?;
        let range = e
            .ipmap
            .device_range(NeffIp(neff_ip))
            .map_err(|err| raise::<IpError>("", &err))?;
        let text = source_text(source, neff_ip);
        let v = match range {
            Some(r) => json!({
                "neff_ip": neff_ip,
                "section": r.section.name(),
                "device_start": r.start.0,
                "device_end": r.end.0,
                "text": text,
            }),
            None => json!({ "neff_ip": neff_ip, "deleted": true, "text": text }),
        };
        to_py(py, &v)
    }

    fn __repr__(&self) -> String {
        let names: Vec<&str> = self
            .inner
            .model
            .subgraphs
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        format!(
            "<neffkit.LoadedModel {} ({})>",
            names.join(", "),
            self.inner.device_model
        )
    }
}

/// One loaded subgraph.
#[pyclass(frozen, module = "neffkit")]
pub(crate) struct Subgraph {
    inner: Arc<Loaded>,
    sg: usize,
}

#[pymethods]
impl Subgraph {
    /// The subgraph name (`sg00`).
    #[getter]
    fn name(&self) -> &str {
        &self.inner.model.subgraphs[self.sg].name
    }

    /// Its engines, in `EngineType` order (PE, ACT, POOL, DVE, SP), as every report shows them
    /// (decision D340).
    #[getter]
    fn engines(&self) -> Vec<Engine> {
        let sg = &self.inner.model.subgraphs[self.sg];
        neff_isa::EngineType::ALL
            .into_iter()
            .filter_map(|t| sg.engines.iter().position(|x| x.engine == t))
            .map(|e| Engine {
                inner: self.inner.clone(),
                sg: self.sg,
                e,
            })
            .collect()
    }

    fn __repr__(&self) -> String {
        format!("<neffkit.Subgraph {}>", self.name())
    }
}

/// One engine of a loaded subgraph: its staged image and the `neff load --json` facts.
#[pyclass(frozen, module = "neffkit")]
pub(crate) struct Engine {
    inner: Arc<Loaded>,
    sg: usize,
    e: usize,
}

impl Engine {
    fn loaded(&self) -> &LoadedEngine {
        &self.inner.model.subgraphs[self.sg].engines[self.e]
    }

    /// One key of the engine's report.
    fn report_key(&self, py: Python<'_>, key: &str) -> PyResult<Py<PyAny>> {
        to_py(
            py,
            engine_json(self.loaded()).get(key).unwrap_or(&Value::Null),
        )
    }
}

#[pymethods]
impl Engine {
    /// The engine: `pe`, `act`, `pool`, `dve` or `sp`.
    #[getter]
    fn engine(&self) -> &'static str {
        self.loaded().engine.key()
    }

    /// The runtime's engine number (PE=0, ACT=1, POOL=2, DVE=3, SP=4).
    #[getter]
    fn eng_type(&self) -> usize {
        self.loaded().engine.index()
    }

    /// Source slots in the NEFF's stream.
    #[getter]
    fn source_slots(&self) -> u64 {
        self.loaded().image.source_slots as u64
    }

    /// The staged image's bytes (PREAMBLE, MAIN, POSTAMBLE, FUNCTION), exactly what
    /// `neff load --out` writes.
    #[getter]
    fn image<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.loaded().image.bytes)
    }

    /// The device address the image is staged at.
    #[getter]
    fn base(&self) -> u64 {
        self.loaded().ib_addrs.base
    }

    /// `{"preamble", "model_switch", "core", "functions"}`, each `{"offset", "size"}` in bytes.
    #[getter]
    fn regions(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.report_key(py, "regions")
    }

    /// The patch rows: `[{"offset", "count", "type" (INSERT|MODIFY|DELETE), "section"}]`.
    #[getter]
    fn patches(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        self.report_key(py, "patches")
    }

    /// The engine's whole `neff load --json` entry (with `runtime`, null under the spec model).
    fn report(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &engine_json(self.loaded()))
    }

    fn __repr__(&self) -> String {
        let e = self.loaded();
        format!(
            "<neffkit.Engine {} {} bytes at {:#x}>",
            e.engine,
            e.image.bytes.len(),
            e.ib_addrs.base
        )
    }
}
