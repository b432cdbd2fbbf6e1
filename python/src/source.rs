//! What a NEFF argument from Python may be: a path (`str` or `os.PathLike`) or the file's bytes
//! (`bytes`, `bytearray`). Read once, here, for `open`, `run` and `diff`.

use std::path::PathBuf;

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes};

use crate::error::{NeffIOError, raise};

/// The argument's bytes and the label errors name it by (the path as given, or `<bytes>`).
/// `wrong_type` is the TypeError's message for anything else; `context` heads an I/O error's
/// message (`"side A: "` for `diff`, empty otherwise). The file is read with the GIL released.
pub(crate) fn read_source(
    py: Python<'_>,
    source: &Bound<'_, PyAny>,
    wrong_type: &'static str,
    context: &str,
) -> PyResult<(Vec<u8>, String)> {
    if let Ok(b) = source.cast::<PyBytes>() {
        return Ok((b.as_bytes().to_vec(), "<bytes>".to_owned()));
    }
    if let Ok(b) = source.cast::<PyByteArray>() {
        return Ok((b.to_vec(), "<bytes>".to_owned()));
    }
    let Ok(path) = source.extract::<PathBuf>() else {
        return Err(PyTypeError::new_err(wrong_type));
    };
    let label = path.display().to_string();
    let bytes = py
        .detach(|| std::fs::read(&path))
        .map_err(|e| raise::<NeffIOError>(&format!("{context}reading {label}"), &e))?;
    Ok((bytes, label))
}
