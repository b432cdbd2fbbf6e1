//! JSON values (the CLI's `--json` documents, built once in the library crates) as Python
//! objects: objects -> dict (key order kept), arrays -> list, numbers -> int or float.

use pyo3::IntoPyObjectExt;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;

/// `v` as a Python object.
pub(crate) fn to_py(py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
    match v {
        Value::Null => Ok(py.None()),
        Value::Bool(b) => b.into_py_any(py),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into_py_any(py),
            (None, Some(i)) => i.into_py_any(py),
            _ => n.as_f64().unwrap_or(f64::NAN).into_py_any(py),
        },
        Value::String(s) => s.into_py_any(py),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(to_py(py, item)?)?;
            }
            Ok(list.into_any().unbind())
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, item) in map {
                dict.set_item(k, to_py(py, item)?)?;
            }
            Ok(dict.into_any().unbind())
        }
    }
}
