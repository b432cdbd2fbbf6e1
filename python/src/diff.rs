//! `neffkit.diff(a, b, time=True, max_fields=1000)`: what changed between two NEFFs (neff-diff),
//! as the dict of `neff diff --json` (docs/json.md). `a` and `b` are paths or bytes; a side
//! that cannot be read raises with the CLI's message, which names the side (A or B) and where.

use neff_diff::{DiffError, DiffOptions, Input, Side};
use pyo3::prelude::*;

use crate::error::{ContainerError, KelfError, NeffError, raise};
use crate::json::to_py;
use crate::source::read_source;

/// The bytes and label of one side.
fn side(py: Python<'_>, s: Side, source: &Bound<'_, PyAny>) -> PyResult<(Vec<u8>, String)> {
    read_source(
        py,
        source,
        "neffkit.diff takes two paths (str or os.PathLike) or the files' bytes",
        &format!("side {s}: "),
    )
}

fn to_err(e: &DiffError) -> PyErr {
    match e {
        DiffError::Container { .. } => raise::<ContainerError>("", e),
        DiffError::Kelf { .. } => raise::<KelfError>("", e),
        _ => raise::<NeffError>("", e),
    }
}

/// `neffkit.diff(a, b, time=True, max_fields=1000)`.
#[pyfunction]
#[pyo3(signature = (a, b, time = true, max_fields = 1000))]
pub(crate) fn diff(
    py: Python<'_>,
    a: &Bound<'_, PyAny>,
    b: &Bound<'_, PyAny>,
    time: bool,
    max_fields: usize,
) -> PyResult<Py<PyAny>> {
    let (ba, la) = side(py, Side::A, a)?;
    let (bb, lb) = side(py, Side::B, b)?;
    let mut options = DiffOptions::default();
    if !time {
        options.time = None;
    }
    // The error is boxed: DiffError carries both sides' locations (clippy's result_large_err).
    let value = py.detach(|| -> Result<serde_json::Value, Box<DiffError>> {
        let na = Input::parse(Side::A, &la, &ba, &options.read).map_err(Box::new)?;
        let nb = Input::parse(Side::B, &lb, &bb, &options.read).map_err(Box::new)?;
        let ia = Input::new(Side::A, &la, &na).map_err(Box::new)?;
        let ib = Input::new(Side::B, &lb, &nb).map_err(Box::new)?;
        let d = neff_diff::diff(&ia, &ib, &options);
        Ok(neff_diff::json::to_json(&d, max_fields))
    });
    to_py(py, &value.map_err(|e| to_err(&e))?)
}
