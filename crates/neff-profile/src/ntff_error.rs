//! Why bytes are not a readable capture: each error names the byte offset and, inside the
//! metadata, the field path (`4.4.1[1].4[2].8`).

use crate::wire::WireError;

/// A capture that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NtffError {
    /// No bytes at all.
    #[error("the file is empty: no capture or report in it")]
    Empty,
    /// Shorter than its fixed header (0x80 bytes, reference-ntff §1).
    #[error("the capture is {len} bytes, shorter than its 128-byte header")]
    ShortHeader {
        /// Bytes present.
        len: u64,
    },
    /// Byte 0 is not a format version neffkit reads.
    #[error(
        "byte 0: format version {version} is not one neffkit reads (4, 5, 6), and the file is no JSON report"
    )]
    UnknownVersion {
        /// The byte.
        version: u8,
    },
    /// The bytes are a NEFF (a 1024-byte header and a gzip package), not a capture.
    #[error("this is a NEFF file, not a capture (.ntff)")]
    NeffNotCapture,
    /// The metadata length (bytes 1..5) runs past the file.
    #[error(
        "bytes 1..5: metadata length {length} runs past the end: {available} bytes follow the header"
    )]
    MetadataPastEnd {
        /// The length read.
        length: u64,
        /// Bytes after the 0x80-byte header.
        available: u64,
    },
    /// The metadata is not a protobuf message.
    #[error("metadata field {path}")]
    Wire {
        /// The field path of the message being read.
        path: String,
        /// What is wrong, with its absolute offset.
        source: WireError,
    },
    /// A field has the wrong wire type or value.
    #[error("byte {offset}: metadata field {path}: {what}")]
    Field {
        /// The field path.
        path: String,
        /// Absolute offset of the field's key.
        offset: u64,
        /// What was expected.
        what: String,
    },
    /// An offset and size in the metadata point outside the data area.
    #[error(
        "byte {offset}: metadata field {path}: bytes {start}..{end} of the data area lie outside its {data_len} bytes"
    )]
    OutsideData {
        /// The field path.
        path: String,
        /// Absolute offset of the field's key.
        offset: u64,
        /// Start in the data area.
        start: u64,
        /// End in the data area.
        end: u64,
        /// The data area's size.
        data_len: u64,
    },
    /// A trace buffer's size is not a whole number of 16-byte records.
    #[error("byte {offset}: metadata field {path}: buffer size {size} is not a multiple of 16")]
    RecordSize {
        /// The field path.
        path: String,
        /// Absolute offset of the field's key.
        offset: u64,
        /// The size.
        size: u64,
    },
}
