//! Building NEFF bytes: members + header fields -> tar -> gzip -> hash -> header (issue 3
//! "Writing"; reference §2, §9b item 6), and the read -> edit -> write API.

use std::borrow::Cow;
use std::io::Write;
use std::path::Path;

use flate2::{Compression, GzBuilder};
use uuid::Uuid;

use crate::atomic::write_atomic;
use crate::error::ContainerError;
use crate::feature_bits::FeatureBits;
use crate::hash;
use crate::header::{FixedText, HEADER_SIZE, Header, PAD_LEN, PKG_VERSION_MD5};
use crate::neff::Neff;
use crate::tar_write;

/// The order members are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MemberOrder {
    /// Sorted by path bytes, as neuronx-cc 2.18 writes them (reference §2).
    #[default]
    Sorted,
    /// The order the members were added (a NEFF read by [`NeffBuilder::from_neff`] keeps its
    /// stored order, e.g. `neff.json` last as neuronx-cc 2.23 writes it).
    Insertion,
}

/// The compiler pads the gzip payload with zeros to a multiple of this (decision D26).
pub const PAYLOAD_ALIGN: usize = 10240;

/// gzip "operating system" byte the compiler writes (3 = Unix, reference §1.2 notes).
const GZIP_OS_UNIX: u8 = 3;

/// Builds NEFF bytes from members and header fields. Deterministic: the same builder state gives
/// the same bytes (mtime 0 in tar and gzip, fixed owner, fixed order).
#[derive(Debug, Clone)]
pub struct NeffBuilder<'a> {
    header: Header,
    members: Vec<(String, Cow<'a, [u8]>)>,
    order: MemberOrder,
    level: u32,
}

impl Default for NeffBuilder<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> NeffBuilder<'a> {
    /// An empty NEFF with the compiler's header defaults (reference §9b item 6; decision D24):
    /// pkg_version 2, neff_version 1.0, num_tpb 1, requested_tpb_count 1, tpb_per_node [1, 0...],
    /// lnc_size 1, feature_bits 0, name "file.neff", a random v4 uuid.
    pub fn new() -> Self {
        let mut tpb_per_node = [0u8; 64];
        tpb_per_node[0] = 1;
        let header = Header {
            pkg_version: PKG_VERSION_MD5,
            header_size: HEADER_SIZE as u64,
            data_size: 0,
            neff_version_major: 1,
            neff_version_minor: 0,
            neff_build_version: FixedText::default(),
            num_tpb: 1,
            hash: [0; 32],
            uuid: Uuid::new_v4(),
            name: FixedText::from_text("name", "file.neff").unwrap_or_default(),
            requested_tpb_count: 1,
            tpb_per_node,
            feature_bits: FeatureBits(0),
            lnc_size: 1,
            pad: [0; PAD_LEN],
        };
        Self {
            header,
            members: Vec::new(),
            order: MemberOrder::Sorted,
            level: 6,
        }
    }

    /// Starts from an existing NEFF: its header fields and its members (borrowed, in stored
    /// order, written in that order).
    pub fn from_neff(neff: &'a Neff<'_>) -> Self {
        let members = neff
            .members()
            .map(|m| (m.path.to_owned(), Cow::Borrowed(m.data)))
            .collect();
        Self {
            header: neff.header().clone(),
            members,
            order: MemberOrder::Insertion,
            level: 6,
        }
    }

    /// The header template; `header_size`, `data_size` and `hash` are recomputed by
    /// [`build`](Self::build), every other field is written as set here.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Mutable access to the header template (uuid, name, lnc_size, feature_bits, ...).
    pub fn header_mut(&mut self) -> &mut Header {
        &mut self.header
    }

    /// Sets the NEFF name (header 0x0DC, under 256 bytes).
    pub fn set_name(&mut self, name: &str) -> Result<&mut Self, ContainerError> {
        self.header.name = FixedText::from_text("name", name)?;
        Ok(self)
    }

    /// Sets the uuid (header 0x0CC).
    pub fn set_uuid(&mut self, uuid: Uuid) -> &mut Self {
        self.header.uuid = uuid;
        self
    }

    /// Chooses the member order.
    pub fn set_order(&mut self, order: MemberOrder) -> &mut Self {
        self.order = order;
        self
    }

    /// Sets the deflate level, 0-9 (default 6).
    pub fn set_compression_level(&mut self, level: u32) -> &mut Self {
        self.level = level.min(9);
        self
    }

    /// Paths of the members, in the order they were added.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.members.iter().map(|(p, _)| p.as_str())
    }

    /// Adds a member; the path must be a normalized relative path not yet present.
    pub fn add(
        &mut self,
        path: &str,
        data: impl Into<Cow<'a, [u8]>>,
    ) -> Result<&mut Self, ContainerError> {
        check_path(path)?;
        if self.position(path).is_some() {
            return Err(ContainerError::MemberExists {
                path: path.to_owned(),
            });
        }
        self.members.push((path.to_owned(), data.into()));
        Ok(self)
    }

    /// Replaces the bytes of an existing member, keeping its position.
    pub fn replace(
        &mut self,
        path: &str,
        data: impl Into<Cow<'a, [u8]>>,
    ) -> Result<&mut Self, ContainerError> {
        let at = self
            .position(path)
            .ok_or_else(|| ContainerError::NoSuchMember {
                path: path.to_owned(),
            })?;
        self.members[at].1 = data.into();
        Ok(self)
    }

    /// Removes a member and returns its bytes.
    pub fn remove(&mut self, path: &str) -> Result<Cow<'a, [u8]>, ContainerError> {
        let at = self
            .position(path)
            .ok_or_else(|| ContainerError::NoSuchMember {
                path: path.to_owned(),
            })?;
        Ok(self.members.remove(at).1)
    }

    fn position(&self, path: &str) -> Option<usize> {
        self.members.iter().position(|(p, _)| p == path)
    }

    /// The NEFF bytes: header (with data_size and hash computed) followed by the gzip payload.
    pub fn build(&self) -> Result<Vec<u8>, ContainerError> {
        let payload = self.payload()?;
        let mut header = self.header.clone();
        header.header_size = HEADER_SIZE as u64;
        header.data_size = payload.len() as u64;
        header.hash = hash::compute(header.pkg_version, &payload);
        let mut out = Vec::with_capacity(HEADER_SIZE + payload.len());
        out.extend_from_slice(&header.encode());
        out.extend_from_slice(&payload);
        Ok(out)
    }

    /// Builds and writes atomically to `path` (temporary file in the same folder, then rename).
    pub fn write_to(&self, path: &Path) -> Result<(), ContainerError> {
        write_atomic(path, &self.build()?)
    }

    /// The uncompressed tar, members in the chosen order.
    pub fn tar(&self) -> Result<Vec<u8>, ContainerError> {
        let mut order: Vec<&(String, Cow<'a, [u8]>)> = self.members.iter().collect();
        if self.order == MemberOrder::Sorted {
            order.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        }
        let mut tar = Vec::with_capacity(tar_write::tar_len(order.iter().map(|(_, d)| d.len())));
        for (path, data) in order {
            tar_write::append_member(&mut tar, path, data)?;
        }
        tar_write::finish(&mut tar);
        Ok(tar)
    }

    /// gzip of the tar with mtime 0 and OS = Unix (reference §1.2 notes), zero-padded to a
    /// multiple of 10240 bytes like every real file (decision D26).
    fn payload(&self) -> Result<Vec<u8>, ContainerError> {
        let tar = self.tar()?;
        let sink = Vec::with_capacity(tar.len() / 3 + 64);
        let mut gz = GzBuilder::new()
            .mtime(0)
            .operating_system(GZIP_OS_UNIX)
            .write(sink, Compression::new(self.level));
        let io = |e| ContainerError::io("<in-memory gzip>", e);
        gz.write_all(&tar).map_err(io)?;
        let mut payload = gz.finish().map_err(io)?;
        payload.resize(payload.len().next_multiple_of(PAYLOAD_ALIGN), 0);
        Ok(payload)
    }
}

/// Refuses paths that would not read back unchanged.
fn check_path(path: &str) -> Result<(), ContainerError> {
    match crate::tar_read::normalize_path(path.as_bytes(), 0) {
        Ok(normal) if normal == path => Ok(()),
        _ => Err(ContainerError::UnwritablePath {
            path: path.to_owned(),
            reason: "not a normalized relative path (no `..`, no leading `/` or `./`)",
        }),
    }
}
