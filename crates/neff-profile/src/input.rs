//! What a profile file is, told by its content (never by its name): a JSON report is one object
//! (first non-blank byte `{`); everything else is read as a raw capture, whose reader names what
//! is wrong (reference-ntff §1: the version byte, the metadata length), a NEFF given as a capture
//! included ([`crate::ntff::looks_like_neff`]).

use std::borrow::Cow;
use std::path::Path;

use crate::error::ProfileError;
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
        // A report is one JSON object; anything else goes to the capture reader, which names
        // what is wrong with it (an unknown version byte, a NEFF, a cut header).
        match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
            Some(b'{') | Some(b'[') => Self::Json,
            _ => Self::Capture,
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
    let (kind, out) = decompress(path, &bytes, limits)?;
    let out = match out {
        Cow::Borrowed(_) => bytes,
        Cow::Owned(inflated) => inflated,
    };
    Ok((kind, out))
}

/// Profile bytes already in memory, decompressed (gzip is told by its magic, RFC 1952) within
/// the limits, with their kind; `path` names them in errors. Plain bytes are borrowed.
pub fn decompress<'a>(
    path: &Path,
    bytes: &'a [u8],
    limits: &ReadLimits,
) -> Result<(InputKind, Cow<'a, [u8]>), ProfileError> {
    let bytes = if bytes.starts_with(&GZIP_MAGIC) {
        Cow::Owned(inflate(path, bytes, limits)?)
    } else {
        Cow::Borrowed(bytes)
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
