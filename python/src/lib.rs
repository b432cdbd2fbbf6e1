//! `neffkit._native`: the extension module behind `import neffkit` (issue 18). It has no logic
//! of its own beyond conversion: every answer comes from the library crates, every `dict` is
//! the shape of the matching `neff ... --json`, every error message is the CLI's.

use pyo3::prelude::*;

mod bir;
mod diff;
mod error;
mod instruction;
mod json;
mod loaded;
mod neff;
mod profile;
mod run;
mod scan;
mod source;

/// The module: `open`, the classes and the `NeffError` hierarchy.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(neff::open, m)?)?;
    m.add_function(wrap_pyfunction!(diff::diff, m)?)?;
    m.add_function(wrap_pyfunction!(run::run_npy, m)?)?;
    m.add_function(wrap_pyfunction!(profile::open_profile_native, m)?)?;
    m.add_function(wrap_pyfunction!(scan::scan_one, m)?)?;
    m.add_function(wrap_pyfunction!(scan::scan_schema, m)?)?;
    m.add_class::<neff::Neff>()?;
    m.add_class::<instruction::Instruction>()?;
    m.add_class::<loaded::LoadedModel>()?;
    m.add_class::<loaded::Subgraph>()?;
    m.add_class::<loaded::Engine>()?;
    m.add_submodule(&bir::module(m.py())?)?;
    error::register(m)?;
    Ok(())
}
