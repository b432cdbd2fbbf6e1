//! What a profile file is, told by its content (never by its name): a raw capture starts with
//! a known format version and a metadata length that fits the file (reference-ntff §1); a JSON
//! report is everything else (the JSON reader then says what is wrong with it). A NEFF given as a
//! capture is recognised and named ([`crate::ntff::looks_like_neff`]).

use std::path::Path;

use crate::error::ProfileError;
use crate::ntff::{looks_like_capture, looks_like_neff};
use crate::read::{GZIP_MAGIC, ReadLimits, inflate};

/// The two kinds of profile input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InputKind {
    /// A neuron-profile JSON report.
    Json,
    /// A raw device capture (`.ntff`).
    Capture,
}

impl InputKind {
    /// The kind of decompressed `bytes`. A NEFF counts as a capture, so that the capture reader
    /// names it.
    pub fn detect(bytes: &[u8]) -> Self {
        let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
        match first {
            Some(b'{') | Some(b'[') => Self::Json,
            _ if looks_like_capture(bytes) || looks_like_neff(bytes) => Self::Capture,
            // A short or cut capture: a known version byte and no JSON start.
            Some(&b) if crate::capture::FormatVersion::KNOWN.contains(&b) => Self::Capture,
            _ => Self::Json,
        }
    }
}

/// Reads a profile file whole, inflating gzip within the limits; returns its kind and bytes.
///
/// A plain file is read with one `read` of its size (decision D401: file mappings need
/// `unsafe`, which the workspace forbids); a gzip file inflates into memory within
/// [`ReadLimits`].
pub fn load(path: &Path, limits: &ReadLimits) -> Result<(InputKind, Vec<u8>), ProfileError> {
    let bytes = std::fs::read(path).map_err(|source| ProfileError::Io {
        path: path.into(),
        source,
    })?;
    let bytes = if bytes.starts_with(&GZIP_MAGIC) {
        inflate(path, &bytes, limits)?
    } else {
        bytes
    };
    let kind = InputKind::detect(&bytes);
    if kind == InputKind::Json && bytes.len() as u64 > limits.max_json_bytes {
        return Err(ProfileError::TooLarge {
            path: path.into(),
            limit: limits.max_json_bytes,
        });
    }
    Ok((kind, bytes))
}
