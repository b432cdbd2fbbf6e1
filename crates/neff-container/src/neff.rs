//! Reading a NEFF: header, integrity, payload, member index (issue 3 "Reading"; reference §9b
//! items 1-3).

use crate::error::ContainerError;
use crate::hash::HashStatus;
use crate::header::{HEADER_SIZE, Header};
use crate::limits::Limits;
use crate::member::Member;
use crate::read_pipeline::verify_and_inflate;
use crate::tar_read::{Entry, TarIndex, index_tar};

/// How to read a NEFF.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// Check the header hash against the payload; a mismatch is then an error. When false,
    /// nothing is computed and the status is [`HashStatus::NotChecked`].
    pub verify: bool,
    /// Caps on what the input may declare.
    pub limits: Limits,
    /// May the read use one helper thread beside the caller's (the hash, the CRC-32s and the
    /// first touch of the output pages run there: decisions D112, D380)? `false` keeps every
    /// step on the caller's thread, for hosts that forbid or meter threads; the outcome is the
    /// same either way (decision D780).
    pub threads: bool,
    /// May [`crate::scan`] hold a large kept member (1 MiB or more) in an anonymous memory
    /// mapping (decision D391)? `false` keeps every member in an ordinary heap buffer, for hosts
    /// without `mmap`; the bytes are the same either way (decision D780).
    pub map_memory: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            verify: true,
            limits: Limits::default(),
            threads: true,
            map_memory: true,
        }
    }
}

/// A parsed NEFF: the typed header, the stored payload (borrowed from the input) and the members,
/// which are views into one inflated buffer owned here.
#[derive(Debug)]
pub struct Neff<'a> {
    header: Header,
    hash_status: HashStatus,
    /// `None` once the input was freed after inflation ([`Neff::parse_owned`], decision D831).
    payload: Option<&'a [u8]>,
    tar: Vec<u8>,
    index: TarIndex,
}

impl<'a> Neff<'a> {
    /// Parses `bytes` with the default options (verify on, default limits).
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ContainerError> {
        Self::parse_with(bytes, &ReadOptions::default())
    }

    /// Parses `bytes`: header checks, `data_size` bounds and trailing bytes, gzip magic, hash,
    /// inflate within the limits, then the tar index.
    pub fn parse_with(bytes: &'a [u8], options: &ReadOptions) -> Result<Self, ContainerError> {
        let header = Header::parse(bytes)?;
        let payload = payload_of(&header, bytes)?;
        let (hash_status, tar) = verify_and_inflate(&header, payload, options);
        let (hash_status, tar) = (hash_status?, tar?);
        let index = index_tar(&tar, &options.limits)?;
        Ok(Self {
            header,
            hash_status,
            payload: Some(payload),
            tar,
            index,
        })
    }

    /// [`parse_with`](Self::parse_with) of a file the caller hands over, which is freed as soon
    /// as it is inflated (decision D831): nothing after the read needs the compressed bytes
    /// (2.2 MB of a 15 MB package on issue 34's real-shaped NEFF), so they are not held beside
    /// the package and what is built from it. [`payload`](Self::payload) is then `None`.
    pub fn parse_owned(
        bytes: Vec<u8>,
        options: &ReadOptions,
    ) -> Result<Neff<'static>, ContainerError> {
        let Neff {
            header,
            hash_status,
            tar,
            index,
            ..
        } = Neff::parse_with(&bytes, options)?;
        drop(bytes);
        Ok(Neff {
            header,
            hash_status,
            payload: None,
            tar,
            index,
        })
    }

    /// The typed header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The integrity outcome.
    pub fn hash_status(&self) -> HashStatus {
        self.hash_status
    }

    /// The stored (compressed) payload, `data_size` bytes from file offset 0x400; `None` for a
    /// NEFF read by [`parse_owned`](Self::parse_owned), which freed it once inflated (D831).
    pub fn payload(&self) -> Option<&'a [u8]> {
        self.payload
    }

    /// The inflated tar.
    pub fn tar_bytes(&self) -> &[u8] {
        &self.tar
    }

    /// Members in stored order.
    pub fn members(&self) -> impl ExactSizeIterator<Item = Member<'_>> + '_ {
        self.index.entries.iter().map(|e| Member {
            path: &e.path,
            offset: e.data_offset,
            data: self.entry_bytes(e),
        })
    }

    /// Number of members.
    pub fn member_count(&self) -> usize {
        self.index.entries.len()
    }

    /// The bytes of the member at `path` (normalized form, e.g. `sg00/def.json`).
    pub fn member(&self, path: &str) -> Option<&[u8]> {
        let entry = &self.index.entries[*self.index.by_path.get(path)?];
        Some(self.entry_bytes(entry))
    }

    /// Sum of member sizes.
    pub fn total_member_size(&self) -> u64 {
        self.index.entries.iter().map(|e| e.size).sum()
    }

    /// An entry's bytes (the index checked that they lie inside the buffer).
    fn entry_bytes(&self, e: &Entry) -> &[u8] {
        let start = e.data_offset as usize;
        &self.tar[start..start + e.size as usize]
    }
}

/// The gzip magic the payload starts with (RFC 1952 §2.3; reference §9b item 1).
const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

/// How many leading bytes of a file [`is_neff`] looks at: the header and the gzip magic.
pub const IDENTIFY_LEN: usize = HEADER_SIZE + GZIP_MAGIC.len();

/// Whether a file is a NEFF by its content, whatever its name (decision D302): the structural
/// identification of reference §9b item 1 — `header_size` 0x400, a known `pkg_version` and the
/// gzip magic at 0x400. `prefix` is the file or at least its first [`IDENTIFY_LEN`] bytes.
pub fn is_neff(prefix: &[u8]) -> bool {
    Header::parse(prefix).is_ok()
        && prefix
            .get(HEADER_SIZE..)
            .is_some_and(|p| p.starts_with(&GZIP_MAGIC))
}

/// The payload slice: `data_size` bytes at 0x400, nothing after it, starting with gzip magic
/// (reference §9b item 1; trailing bytes are an error, issue 3).
pub(crate) fn payload_of<'a>(header: &Header, bytes: &'a [u8]) -> Result<&'a [u8], ContainerError> {
    let available = (bytes.len() - HEADER_SIZE) as u64;
    if header.data_size > available {
        return Err(ContainerError::DataSizePastEnd {
            data_size: header.data_size,
            available,
        });
    }
    if header.data_size < available {
        return Err(ContainerError::TrailingBytes {
            count: available - header.data_size,
            payload_end: HEADER_SIZE as u64 + header.data_size,
        });
    }
    let payload = &bytes[HEADER_SIZE..];
    if !payload.starts_with(&GZIP_MAGIC) {
        return Err(ContainerError::NotGzip {
            found: payload.iter().take(2).copied().collect(),
        });
    }
    Ok(payload)
}
