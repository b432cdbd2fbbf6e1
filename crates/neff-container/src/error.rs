//! The one error type of the container reader and writer. Every variant names where the problem
//! is: a byte offset in the file, a byte offset in the inflated tar, or a member path.

use std::path::PathBuf;

use crate::limits::LimitKind;

/// Everything that can go wrong reading, writing or extracting a NEFF.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ContainerError {
    /// The file is shorter than the 1024-byte header (reference §1.1).
    #[error("truncated header: the file has {len} bytes, a NEFF header needs 1024")]
    TruncatedHeader {
        /// Length of the whole file.
        len: usize,
    },
    /// `header_size` at file offset 0x008 is not 0x400 (reference §9b item 1).
    #[error("header_size at offset 0x008 is {found:#x}, expected 0x400")]
    BadHeaderSize {
        /// The value found.
        found: u64,
    },
    /// `pkg_version` at file offset 0x000 is not 1 (tgz+sha256) or 2 (tgz+md5).
    #[error("unsupported pkg_version {found} at offset 0x000 (known: 1 = sha256, 2 = md5)")]
    UnsupportedPkgVersion {
        /// The value found.
        found: u64,
    },
    /// `data_size` at 0x010 claims more payload bytes than the file holds.
    #[error(
        "data_size at offset 0x010 is {data_size}, but only {available} bytes follow the header"
    )]
    DataSizePastEnd {
        /// The declared payload size.
        data_size: u64,
        /// Bytes present after the header.
        available: u64,
    },
    /// Bytes follow the `data_size` payload (real files end exactly there, reference §1.2).
    #[error(
        "{count} trailing bytes after the payload (payload ends at file offset {payload_end:#x})"
    )]
    TrailingBytes {
        /// How many bytes follow the payload.
        count: u64,
        /// File offset where the payload ends.
        payload_end: u64,
    },
    /// The payload does not start with the gzip magic `1f 8b`.
    #[error("payload at file offset 0x400 is not gzip: found {found:02x?}, expected [1f, 8b]")]
    NotGzip {
        /// Up to two bytes found at 0x400.
        found: Vec<u8>,
    },
    /// The stored hash does not match the payload (reference §1.1).
    #[error("hash mismatch at offset 0x0AC ({algorithm}): stored {stored}, computed {computed}")]
    HashMismatch {
        /// "md5" or "sha256".
        algorithm: &'static str,
        /// Hex of the stored bytes that were compared.
        stored: String,
        /// Hex of the digest in the order the header stores it.
        computed: String,
    },
    /// The gzip stream is corrupt or truncated.
    #[error("corrupt gzip payload at payload offset {offset}: {reason}")]
    Gzip {
        /// Byte offset within the compressed payload (0 = file offset 0x400).
        offset: u64,
        /// What was wrong.
        reason: String,
    },
    /// The tar structure is malformed (bad checksum, bad number field, truncated header).
    #[error("malformed tar at inflated offset {offset}: {reason}")]
    Tar {
        /// Byte offset within the inflated tar.
        offset: u64,
        /// What was wrong.
        reason: String,
    },
    /// A member's declared size runs past the end of the inflated tar.
    #[error(
        "member `{path}` at inflated offset {offset} declares {declared} bytes, only {available} present"
    )]
    MemberTruncated {
        /// Member path.
        path: String,
        /// Offset of its tar header.
        offset: u64,
        /// Size declared by the tar header.
        declared: u64,
        /// Bytes actually present after the header.
        available: u64,
    },
    /// A member path is absolute, contains `..`, is empty or is not UTF-8.
    #[error("unsafe member path `{path}` at inflated offset {offset}: {reason}")]
    UnsafePath {
        /// The path as stored (lossy text).
        path: String,
        /// Offset of its tar header.
        offset: u64,
        /// Why it is refused.
        reason: &'static str,
    },
    /// A tar entry that is not a regular file or a directory (symlink, hard link, device, ...).
    #[error(
        "member `{path}` at inflated offset {offset} is a {kind} (typeflag {typeflag:?}); only regular files are allowed"
    )]
    UnsupportedEntry {
        /// Member path.
        path: String,
        /// Offset of its tar header.
        offset: u64,
        /// Human name of the entry kind.
        kind: &'static str,
        /// The raw typeflag byte.
        typeflag: char,
    },
    /// Two members share one path.
    #[error("duplicate member path `{path}` at inflated offset {offset}")]
    DuplicatePath {
        /// The repeated path.
        path: String,
        /// Offset of the second occurrence's tar header.
        offset: u64,
    },
    /// A configurable limit (see [`crate::Limits`]) was exceeded.
    #[error("limit exceeded: {kind} is {found}, the limit is {limit}{}", at.as_ref().map(|p| format!(" (member `{p}`)")).unwrap_or_default())]
    Limit {
        /// Which limit.
        kind: LimitKind,
        /// The value the input reached or declared.
        found: u64,
        /// The configured limit.
        limit: u64,
        /// The member concerned, when there is one.
        at: Option<String>,
    },
    /// The allocator refused a buffer the input needs (it stays within the limits, but the
    /// machine has no room for it); lower `--max-total-size` or free memory.
    #[error("cannot allocate {bytes} bytes for the inflated package (out of memory)")]
    OutOfMemory {
        /// The size of the refused allocation.
        bytes: u64,
    },
    /// A header field value cannot be represented (name too long, ...).
    #[error("header field `{field}`: {reason}")]
    HeaderField {
        /// Field name as in reference §1.1.
        field: &'static str,
        /// What is wrong with the value.
        reason: String,
    },
    /// A member path cannot be written as a ustar name (too long to split into prefix/name).
    #[error("member path `{path}` cannot be written: {reason}")]
    UnwritablePath {
        /// The path.
        path: String,
        /// Why.
        reason: &'static str,
    },
    /// A builder was asked to add a member whose path is already present.
    #[error("member `{path}` already exists")]
    MemberExists {
        /// The path.
        path: String,
    },
    /// A builder was asked to replace or remove a member that is not present.
    #[error("no member `{path}`")]
    NoSuchMember {
        /// The path.
        path: String,
    },
    /// Extraction would overwrite an existing file and `force` was not given.
    #[error("refusing to overwrite existing `{}` (use --force)", path.display())]
    WouldOverwrite {
        /// The existing file.
        path: PathBuf,
    },
    /// Extraction met a symlink or non-directory where a directory is needed.
    #[error("refusing to extract through `{}`: {reason}", path.display())]
    UnsafeTarget {
        /// The offending path on disk.
        path: PathBuf,
        /// Why.
        reason: &'static str,
    },
    /// An I/O error on a named file.
    #[error("{}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
}

impl ContainerError {
    /// Wraps an I/O error with the path it concerns.
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            path: path.into(),
            source,
        }
    }
}
