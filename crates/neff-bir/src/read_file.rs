//! Reading a BIR JSON file from disk with the error `neff bir` and the Python package's
//! `neffkit.bir.read` report: the file named, then the I/O error or the JSON pointer.

use std::path::{Path, PathBuf};

use crate::error::JsonError;
use crate::program::Program;

/// A BIR file that does not read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be read.
    #[error("reading {}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The bytes are not BIR JSON.
    #[error("{}: not BIR JSON at {}: {}", path.display(), at(&error.pointer), error.message)]
    Json {
        /// The file.
        path: PathBuf,
        /// Where and what.
        error: JsonError,
    },
}

/// The pointer, or `(document)` for the whole document.
fn at(pointer: &str) -> &str {
    if pointer.is_empty() {
        "(document)"
    } else {
        pointer
    }
}

/// Reads and parses the BIR JSON file at `path`.
pub fn read_path(path: &Path) -> Result<Program, ReadError> {
    let bytes = std::fs::read(path).map_err(|source| ReadError::Io {
        path: path.to_owned(),
        source,
    })?;
    read_bytes(path, &bytes)
}

/// Parses the BIR JSON `bytes` read from `path` (standard input, say); the error names `path`.
pub fn read_bytes(path: &Path, bytes: &[u8]) -> Result<Program, ReadError> {
    crate::json_read::from_slice(bytes).map_err(|error| ReadError::Json {
        path: path.to_owned(),
        error,
    })
}
