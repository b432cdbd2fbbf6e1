//! `neffkit._native.run_npy(source, inputs, verify=True, random_seed=None)`: `neff run` for
//! Python. Tensors cross as `.npy` bytes (parsed and written by the same code as the CLI's
//! files); `neffkit.run` (python/neffkit/__init__.py) turns numpy arrays into them and back.

use std::collections::BTreeMap;

use neff_container::{Neff, ReadOptions};
use neff_kelf::Kelf;
use neff_sim::func::{self, HostTensor, RunOptions};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use crate::error::{ContainerError, KelfError, RunError, raise};
use crate::source::read_source;

/// Runs the NEFF at `source` (a path or its bytes) on `inputs` (name -> `.npy` bytes; ignored
/// when `random_seed` is given) and returns name -> `.npy` bytes of every output.
#[pyfunction]
#[pyo3(signature = (source, inputs, verify = true, random_seed = None))]
pub(crate) fn run_npy<'py>(
    py: Python<'py>,
    source: &Bound<'py, PyAny>,
    inputs: &Bound<'py, PyDict>,
    verify: bool,
    random_seed: Option<u64>,
) -> PyResult<Bound<'py, PyDict>> {
    let (bytes, label) = read_source(
        py,
        source,
        "neffkit.run takes a path (str or os.PathLike) or the file's bytes",
        "",
    )?;
    let mut host = BTreeMap::new();
    for (k, v) in inputs.iter() {
        let name: String = k.extract()?;
        let npy: Vec<u8> = v.extract()?;
        let t = HostTensor::from_npy(&npy)
            .map_err(|e| raise::<RunError>(&format!("{label}: input `{name}`"), &e))?;
        host.insert(name, t);
    }
    let options = ReadOptions {
        verify,
        ..ReadOptions::default()
    };
    let outputs = py.detach(|| -> Result<_, PyErr> {
        let neff =
            Neff::parse_with(&bytes, &options).map_err(|e| raise::<ContainerError>(&label, &e))?;
        let kelf = Kelf::from_neff(&neff).map_err(|e| raise::<KelfError>(&label, &e))?;
        match random_seed {
            Some(seed) => func::run_random(&neff, &kelf, seed, &RunOptions::default()),
            None => func::run_owned(&neff, &kelf, host, &RunOptions::default()),
        }
        .map_err(|e| raise::<RunError>(&label, &e))
    })?;
    let out = PyDict::new(py);
    for (name, t) in &outputs.outputs {
        out.set_item(name, PyBytes::new(py, &t.to_npy()))?;
    }
    Ok(out)
}
