//! Errors reading a profile, each naming where (the file, the JSON pointer).

use std::path::PathBuf;

/// A profile that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ProfileError {
    /// The file could not be opened or read.
    #[error("{path}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The gzip stream is corrupt.
    #[error("{path}: gzip")]
    Gzip {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The (decompressed) report is larger than the limit.
    #[error("{path}: the report is larger than {limit} bytes (raise --max-profile-size)")]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// The limit in bytes.
        limit: u64,
    },
    /// The JSON is malformed or a field has the wrong type; the message names the line and
    /// column, or the JSON pointer of the field.
    #[error("{path}: {what}")]
    Json {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where.
        what: String,
    },
    /// A raw capture that cannot be read; the error names the byte offset or metadata field.
    #[error("{path}")]
    Ntff {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where.
        source: crate::ntff_error::NtffError,
    },
}
