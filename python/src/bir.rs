//! `neffkit.bir`: BIR JSON, the compiler's instruction IR (neff-bir): `read(path)` gives the
//! program with the verifier's problems, as `neff bir check` finds them.

use std::path::PathBuf;

use neff_bir::{Stats, verify};
use pyo3::prelude::*;

use crate::error::{BirError, NeffIOError, raise};
use crate::json::to_py;

/// A BIR program read from a file, with the verifier's findings.
#[pyclass(frozen, module = "neffkit.bir")]
pub(crate) struct Program {
    program: neff_bir::Program,
    problems: Vec<serde_json::Value>,
}

/// `neffkit.bir.read(path)`: reads and verifies a BIR JSON file. Raises BirError (not BIR JSON:
/// the JSON pointer of the offending value) or NeffIOError, with `neff bir check`'s message.
#[pyfunction]
pub(crate) fn read(py: Python<'_>, path: PathBuf) -> PyResult<Program> {
    let (program, problems) = py
        .detach(|| {
            let program = neff_bir::json::read_path(&path)?;
            let problems = verify(&program).iter().map(|p| p.to_json()).collect();
            Ok::<_, neff_bir::json::ReadError>((program, problems))
        })
        .map_err(|e| match e {
            neff_bir::json::ReadError::Io { .. } => raise::<NeffIOError>("", &e),
            neff_bir::json::ReadError::Json { .. } => raise::<BirError>("", &e),
        })?;
    Ok(Program { program, problems })
}

#[pymethods]
impl Program {
    /// The verifier's problems, `[{"kind", "inst", "pointer", "message"}]` (`neff bir check
    /// --json`); empty for a sound program.
    #[getter]
    fn problems(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        to_py(py, &serde_json::Value::Array(self.problems.clone()))
    }

    /// Number of functions.
    #[getter]
    fn functions(&self) -> usize {
        self.program.functions.len()
    }

    /// Number of instructions.
    #[getter]
    fn instructions(&self) -> usize {
        self.program.len()
    }

    /// Number of dependency edges.
    #[getter]
    fn edges(&self) -> usize {
        self.program.edge_count()
    }

    /// The statistics `neff bir stats --json` prints.
    fn stats(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let v = serde_json::to_value(Stats::of(&self.program)).unwrap_or_default();
        to_py(py, &v)
    }

    fn __repr__(&self) -> String {
        format!(
            "<neffkit.bir.Program {} functions, {} instructions, {} edges, {} problems>",
            self.functions(),
            self.instructions(),
            self.edges(),
            self.problems.len()
        )
    }
}

/// The `neffkit.bir` submodule.
pub(crate) fn module(py: Python<'_>) -> PyResult<Bound<'_, PyModule>> {
    let m = PyModule::new(py, "bir")?;
    m.add_function(wrap_pyfunction!(read, &m)?)?;
    m.add_class::<Program>()?;
    Ok(m)
}
