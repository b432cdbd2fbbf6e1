//! `neffkit.scan_one(path_or_bytes)`: one row of `neff scan` (neff-scan; docs/json.md "neff scan
//! rows") as a dict — what a Ray Data `map` calls per file (examples/ray_scan.py) — and
//! `neffkit.scan_schema()`, the Parquet schema of those rows.

use std::path::PathBuf;

use neff_container::ReadOptions;
use neff_scan::parquet::ParquetRowWriter;
use neff_scan::{ScanOptions, ScanRow, scan_bytes, scan_file};
use pyo3::exceptions::{PyRuntimeError, PyTypeError};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes};

use crate::json::to_py;

/// `neffkit.scan_one(source, path=None, verify=True, load=True, sim=False)`: never raises for a
/// broken file (the row carries `error_stage` and `error`), only for a source that is neither a
/// path nor bytes.
#[pyfunction]
#[pyo3(signature = (source, path = None, verify = true, load = true, sim = false))]
pub(crate) fn scan_one(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    path: Option<String>,
    verify: bool,
    load: bool,
    sim: bool,
) -> PyResult<Py<PyAny>> {
    let options = ScanOptions {
        read: ReadOptions {
            verify,
            ..ReadOptions::default()
        },
        load,
        sim,
    };
    let label = |default: &str| path.clone().unwrap_or_else(|| default.to_owned());
    let row: ScanRow = if let Ok(b) = source.cast::<PyBytes>() {
        let bytes = b.as_bytes();
        let label = label("<bytes>");
        py.detach(|| scan_bytes(&label, bytes, &options))
    } else if let Ok(b) = source.cast::<PyByteArray>() {
        let bytes = b.to_vec();
        let label = label("<bytes>");
        py.detach(|| scan_bytes(&label, &bytes, &options))
    } else if let Ok(file) = source.extract::<PathBuf>() {
        let mut row = py.detach(|| scan_file(&file, &options));
        if let Some(p) = &path {
            row.path.clone_from(p);
        }
        row
    } else {
        return Err(PyTypeError::new_err(
            "neffkit.scan_one takes a path (str or os.PathLike) or the file's bytes",
        ));
    };
    let value = serde_json::to_value(&row)
        .map_err(|e| PyTypeError::new_err(format!("scan row as JSON: {e}")))?;
    to_py(py, &value)
}

/// `neffkit.scan_schema()`: a Parquet file of no rows whose schema is `neff scan --parquet`'s
/// (`pyarrow.parquet.read_schema(pyarrow.BufferReader(...))`), so that rows scanned elsewhere
/// (Ray Data) are written with the same column types.
#[pyfunction]
pub(crate) fn scan_schema(py: Python<'_>) -> PyResult<Py<PyBytes>> {
    let empty = ParquetRowWriter::new(Vec::new())
        .and_then(ParquetRowWriter::finish)
        .map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok(PyBytes::new(py, &empty).unbind())
}
