//! The `neffkit.NeffError` hierarchy and the one way errors become exceptions: the message is
//! the CLI's (`neff` prints `error: <message>`), i.e. the context the CLI adds (the file name,
//! `loading <file>`) followed by each error of the source chain, joined by `": "` as anyhow's
//! `{:#}` joins them.

use std::error::Error;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;

create_exception!(
    neffkit,
    NeffError,
    PyException,
    "Base of every error neffkit raises; the message is the `neff` CLI's."
);
create_exception!(
    neffkit,
    NeffIOError,
    NeffError,
    "A file could not be read (the message names it)."
);
create_exception!(
    neffkit,
    ContainerError,
    NeffError,
    "The NEFF file itself is malformed: header, hash, gzip, tar, members or limits."
);
create_exception!(
    neffkit,
    KelfError,
    NeffError,
    "A manifest (kelf, def.json, engine JSON) is malformed or inconsistent."
);
create_exception!(
    neffkit,
    SelectionError,
    NeffError,
    "A subgraph, engine or member the call names is not in the NEFF (or not a name at all)."
);
create_exception!(
    neffkit,
    LoadError,
    NeffError,
    "Lowering, assembling or staging an engine image failed."
);
create_exception!(
    neffkit,
    IpError,
    NeffError,
    "A device address or NEFF IP does not map (the runtime's message)."
);
create_exception!(
    neffkit,
    BirError,
    NeffError,
    "A BIR JSON file does not read."
);

create_exception!(
    neffkit,
    RunError,
    NeffError,
    "`neffkit.run` stopped: a missing, extra or mis-shaped input (named with the expected dtype \
     and shape), an operation without semantics (its subgraph, engine and slot), a DMA outside \
     a tensor, a deadlock."
);
create_exception!(
    neffkit,
    ProfileError,
    NeffError,
    "A device profile (raw capture or JSON report) does not read: the message names the byte \
     offset, metadata field or JSON pointer."
);

/// Registers the hierarchy on the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("NeffError", py.get_type::<NeffError>())?;
    m.add("NeffIOError", py.get_type::<NeffIOError>())?;
    m.add("ContainerError", py.get_type::<ContainerError>())?;
    m.add("KelfError", py.get_type::<KelfError>())?;
    m.add("SelectionError", py.get_type::<SelectionError>())?;
    m.add("LoadError", py.get_type::<LoadError>())?;
    m.add("IpError", py.get_type::<IpError>())?;
    m.add("BirError", py.get_type::<BirError>())?;
    m.add("RunError", py.get_type::<RunError>())?;
    m.add("ProfileError", py.get_type::<ProfileError>())?;
    Ok(())
}

/// `context: error: its source: ...`, the CLI's `{:#}` of an error with context.
pub(crate) fn message(context: &str, err: &dyn Error) -> String {
    let mut text = String::from(context);
    let mut next: Option<&dyn Error> = Some(err);
    while let Some(e) = next {
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&e.to_string());
        next = e.source();
    }
    text
}

/// An exception of type `E` with the CLI's message for `err` under `context`.
pub(crate) fn raise<E: pyo3::PyTypeInfo>(context: &str, err: &dyn Error) -> PyErr {
    PyErr::new::<E, _>(message(context, err))
}
