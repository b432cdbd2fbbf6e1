//! The 1024-byte little-endian NEFF header (reference §1.1, verified on five real files).
//! There is no magic number: a file is identified structurally (reference §9b item 1).

use uuid::Uuid;

use crate::error::ContainerError;
use crate::feature_bits::FeatureBits;

/// Size of the header; the payload starts at this file offset (reference §1.1 `header_size`).
pub const HEADER_SIZE: usize = 0x400;

/// `pkg_version` 1: payload hashed with SHA-256 (reference §1.1, never observed).
pub const PKG_VERSION_SHA256: u64 = 1;
/// `pkg_version` 2: payload hashed with MD5, words byte-reversed (reference §1.1, all real files).
pub const PKG_VERSION_MD5: u64 = 2;

/// Byte offsets of the header fields (reference §1.1).
mod off {
    pub(super) const PKG_VERSION: usize = 0x000;
    pub(super) const HEADER_SIZE: usize = 0x008;
    pub(super) const DATA_SIZE: usize = 0x010;
    pub(super) const VERSION_MAJOR: usize = 0x018;
    pub(super) const VERSION_MINOR: usize = 0x020;
    pub(super) const BUILD_VERSION: usize = 0x028;
    pub(super) const NUM_TPB: usize = 0x0A8;
    pub(super) const HASH: usize = 0x0AC;
    pub(super) const UUID: usize = 0x0CC;
    pub(super) const NAME: usize = 0x0DC;
    pub(super) const REQUESTED_TPB_COUNT: usize = 0x1DC;
    pub(super) const TPB_PER_NODE: usize = 0x1E0;
    pub(super) const FEATURE_BITS: usize = 0x220;
    pub(super) const LNC_SIZE: usize = 0x228;
    pub(super) const PAD: usize = 0x22C;
}

/// Length of the `pad` field at 0x22C (reference §1.1: `uint8_t pad[468]`).
pub const PAD_LEN: usize = 468;

/// A fixed-width, NUL-padded text field (`name[256]`, `neff_build_version[128]`). The raw bytes
/// are kept so that bytes after the first NUL survive a round trip.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct FixedText<const N: usize>(pub [u8; N]);

impl<const N: usize> FixedText<N> {
    /// The text up to the first NUL, lossily decoded as UTF-8.
    pub fn text(&self) -> String {
        let end = self.0.iter().position(|&b| b == 0).unwrap_or(N);
        String::from_utf8_lossy(&self.0[..end]).into_owned()
    }

    /// Builds the field from text; it must leave room for a terminating NUL.
    pub fn from_text(field: &'static str, text: &str) -> Result<Self, ContainerError> {
        let bytes = text.as_bytes();
        if bytes.len() >= N || bytes.contains(&0) {
            return Err(ContainerError::HeaderField {
                field,
                reason: format!("`{text}` must be under {N} bytes with no NUL"),
            });
        }
        let mut raw = [0u8; N];
        raw[..bytes.len()].copy_from_slice(bytes);
        Ok(Self(raw))
    }
}

impl<const N: usize> Default for FixedText<N> {
    fn default() -> Self {
        Self([0; N])
    }
}

impl<const N: usize> std::fmt::Debug for FixedText<N> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.text())
    }
}

/// The typed NEFF header: every field of reference §1.1, in file order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// 0x000: packager version; selects the hash (1 = SHA-256, 2 = MD5).
    pub pkg_version: u64,
    /// 0x008: header size, always 0x400.
    pub header_size: u64,
    /// 0x010: payload size in bytes (observed == file size - 1024).
    pub data_size: u64,
    /// 0x018: NEFF format major version (1 on trn1 / neuronx-cc 2.18, 2 on trn2 / 2.23).
    pub neff_version_major: u64,
    /// 0x020: NEFF format minor version (observed 0).
    pub neff_version_minor: u64,
    /// 0x028: build version text (observed all zero).
    pub neff_build_version: FixedText<128>,
    /// 0x0A8: TPBs required (observed 1).
    pub num_tpb: u32,
    /// 0x0AC: payload hash (see [`crate::HashStatus`]).
    pub hash: [u8; 32],
    /// 0x0CC: the NEFF's UUID (observed RFC 4122 v4), stored in canonical byte order.
    pub uuid: Uuid,
    /// 0x0DC: NEFF name (observed "file.neff").
    pub name: FixedText<256>,
    /// 0x1DC: TPBs requested at compile time (observed 1).
    pub requested_tpb_count: u32,
    /// 0x1E0: TPBs per kelf node, one byte per node (observed `[1, 0, ...]`).
    pub tpb_per_node: [u8; 64],
    /// 0x220: incompatible-feature bits (reference §1.4 for the known names).
    pub feature_bits: FeatureBits,
    /// 0x228: logical core size (1 on trn1, 2 on trn2).
    pub lnc_size: u32,
    /// 0x22C: padding (observed zero); kept so unusual files round-trip.
    pub pad: [u8; PAD_LEN],
}

impl Header {
    /// Decodes the header from the first 1024 bytes of `file` and checks the structural
    /// identification of reference §9b item 1: `header_size == 0x400` and a known `pkg_version`.
    /// The payload checks (`data_size`, gzip magic) belong to [`crate::Neff::parse`].
    pub fn parse(file: &[u8]) -> Result<Self, ContainerError> {
        let raw: &[u8; HEADER_SIZE] = file
            .get(..HEADER_SIZE)
            .and_then(|h| h.try_into().ok())
            .ok_or(ContainerError::TruncatedHeader { len: file.len() })?;
        let header = Self::decode(raw);
        if header.header_size != HEADER_SIZE as u64 {
            return Err(ContainerError::BadHeaderSize {
                found: header.header_size,
            });
        }
        if !matches!(header.pkg_version, PKG_VERSION_SHA256 | PKG_VERSION_MD5) {
            return Err(ContainerError::UnsupportedPkgVersion {
                found: header.pkg_version,
            });
        }
        Ok(header)
    }

    /// Decodes every field without validating any (used by `parse` and by tools that want to
    /// show a header that fails validation).
    pub fn decode(raw: &[u8; HEADER_SIZE]) -> Self {
        Self {
            pkg_version: u64_at(raw, off::PKG_VERSION),
            header_size: u64_at(raw, off::HEADER_SIZE),
            data_size: u64_at(raw, off::DATA_SIZE),
            neff_version_major: u64_at(raw, off::VERSION_MAJOR),
            neff_version_minor: u64_at(raw, off::VERSION_MINOR),
            neff_build_version: FixedText(array_at(raw, off::BUILD_VERSION)),
            num_tpb: u32_at(raw, off::NUM_TPB),
            hash: array_at(raw, off::HASH),
            uuid: Uuid::from_bytes(array_at(raw, off::UUID)),
            name: FixedText(array_at(raw, off::NAME)),
            requested_tpb_count: u32_at(raw, off::REQUESTED_TPB_COUNT),
            tpb_per_node: array_at(raw, off::TPB_PER_NODE),
            feature_bits: FeatureBits(u64_at(raw, off::FEATURE_BITS)),
            lnc_size: u32_at(raw, off::LNC_SIZE),
            pad: array_at(raw, off::PAD),
        }
    }

    /// Encodes the header into its 1024 bytes; `decode(encode(h)) == h` for every header.
    pub fn encode(&self) -> [u8; HEADER_SIZE] {
        let mut raw = [0u8; HEADER_SIZE];
        put(&mut raw, off::PKG_VERSION, &self.pkg_version.to_le_bytes());
        put(&mut raw, off::HEADER_SIZE, &self.header_size.to_le_bytes());
        put(&mut raw, off::DATA_SIZE, &self.data_size.to_le_bytes());
        put(
            &mut raw,
            off::VERSION_MAJOR,
            &self.neff_version_major.to_le_bytes(),
        );
        put(
            &mut raw,
            off::VERSION_MINOR,
            &self.neff_version_minor.to_le_bytes(),
        );
        put(&mut raw, off::BUILD_VERSION, &self.neff_build_version.0);
        put(&mut raw, off::NUM_TPB, &self.num_tpb.to_le_bytes());
        put(&mut raw, off::HASH, &self.hash);
        put(&mut raw, off::UUID, self.uuid.as_bytes());
        put(&mut raw, off::NAME, &self.name.0);
        put(
            &mut raw,
            off::REQUESTED_TPB_COUNT,
            &self.requested_tpb_count.to_le_bytes(),
        );
        put(&mut raw, off::TPB_PER_NODE, &self.tpb_per_node);
        put(
            &mut raw,
            off::FEATURE_BITS,
            &self.feature_bits.0.to_le_bytes(),
        );
        put(&mut raw, off::LNC_SIZE, &self.lnc_size.to_le_bytes());
        put(&mut raw, off::PAD, &self.pad);
        raw
    }

    /// The name as text (up to the first NUL).
    pub fn name_text(&self) -> String {
        self.name.text()
    }

    /// Every field as (name, text) in header order (reference §1.1), as `neff info` and
    /// `neff report` show them: sizes and flags in hex, `tpb_per_node` as its non-zero prefix,
    /// the feature bits with the names reference §1.4 claims.
    pub fn text_rows(&self) -> Vec<(&'static str, String)> {
        let algorithm = if self.pkg_version == 1 {
            "sha256"
        } else {
            "md5"
        };
        vec![
            ("pkg_version", self.pkg_version.to_string()),
            ("header_size", format!("{:#x}", self.header_size)),
            ("data_size", self.data_size.to_string()),
            (
                "neff_version",
                format!("{}.{}", self.neff_version_major, self.neff_version_minor),
            ),
            (
                "build_version",
                format!("{:?}", self.neff_build_version.text()),
            ),
            ("num_tpb", self.num_tpb.to_string()),
            (
                "hash",
                format!("{} ({algorithm})", crate::hash::hex(&self.hash)),
            ),
            ("uuid", self.uuid.to_string()),
            ("name", self.name_text()),
            ("requested_tpb_count", self.requested_tpb_count.to_string()),
            ("tpb_per_node", self.tpb_per_node_text()),
            ("feature_bits", self.feature_bits_text()),
            ("lnc_size", self.lnc_size.to_string()),
        ]
    }

    /// `tpb_per_node` as its non-zero prefix and the count of zeros after it.
    pub fn tpb_per_node_text(&self) -> String {
        let tpb = &self.tpb_per_node;
        let used = tpb.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        let shown: Vec<String> = tpb[..used].iter().map(u8::to_string).collect();
        format!("[{}] then {} zeros", shown.join(", "), 64 - used)
    }

    /// The feature bits in hex with the names of reference §1.4 (marked as claimed there).
    pub fn feature_bits_text(&self) -> String {
        let names: Vec<String> = self
            .feature_bits
            .bits()
            .map(|b| match b.name {
                Some(name) => format!("{:#x} {name}", b.bit),
                None => format!("{:#x} (unnamed)", b.bit),
            })
            .collect();
        if names.is_empty() {
            format!("{:#x}", self.feature_bits.0)
        } else {
            format!(
                "{:#x} = {} [names: reference §1.4, claimed]",
                self.feature_bits.0,
                names.join(" | ")
            )
        }
    }
}

fn array_at<const N: usize>(raw: &[u8; HEADER_SIZE], at: usize) -> [u8; N] {
    let mut out = [0u8; N];
    out.copy_from_slice(&raw[at..at + N]);
    out
}

fn u64_at(raw: &[u8; HEADER_SIZE], at: usize) -> u64 {
    u64::from_le_bytes(array_at(raw, at))
}

fn u32_at(raw: &[u8; HEADER_SIZE], at: usize) -> u32 {
    u32::from_le_bytes(array_at(raw, at))
}

fn put(raw: &mut [u8; HEADER_SIZE], at: usize, bytes: &[u8]) {
    raw[at..at + bytes.len()].copy_from_slice(bytes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_offsets_tile_the_header_exactly() {
        // reference §1.1: pad[468] at 0x22C ends at 0x400.
        assert_eq!(off::PAD + PAD_LEN, HEADER_SIZE);
        assert_eq!(off::NAME + 256, off::REQUESTED_TPB_COUNT);
        assert_eq!(off::TPB_PER_NODE + 64, off::FEATURE_BITS);
    }

    #[test]
    fn decode_encode_is_identity_on_arbitrary_bytes() {
        let mut raw = [0u8; HEADER_SIZE];
        for (i, b) in raw.iter_mut().enumerate() {
            *b = (i * 7 + 3) as u8;
        }
        assert_eq!(Header::decode(&raw).encode(), raw);
    }

    #[test]
    fn short_file_is_truncated_header() {
        let err = Header::parse(&[0u8; 1023]).unwrap_err();
        assert!(matches!(err, ContainerError::TruncatedHeader { len: 1023 }));
    }
}
