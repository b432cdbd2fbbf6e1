//! Reading a profile: a neuron-profile JSON report or a raw capture (`.ntff`), plain or gzip,
//! told apart by content ([`crate::input`]), bounded, typed.

use std::io::Read;
use std::path::Path;

use serde::Deserialize;

use crate::error::ProfileError;
use crate::header::NeffHeaderInfo;
use crate::input::{InputKind, load};
use crate::instruction::ProfiledInstruction;
use crate::ntff::Capture;
use crate::rows::{DmaTransfer, SemaphoreUpdate, ThrottleRow};
use crate::time::TimeBase;

/// Bounds on what a read may allocate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadLimits {
    /// The largest report, in bytes after decompression.
    pub max_json_bytes: u64,
    /// The largest gzip-compressed capture, in bytes after decompression (a plain capture is
    /// read whole: its size on disk is the bound).
    pub max_capture_bytes: u64,
}

impl Default for ReadLimits {
    /// 2 GiB of JSON (the four shared reports are 0.8-4 MB decompressed); 16 GiB of inflated
    /// capture (a big model's capture runs to gigabytes).
    fn default() -> Self {
        Self {
            max_json_bytes: 2 << 30,
            max_capture_bytes: 16 << 30,
        }
    }
}

/// The parts of a report neffkit reads.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct Profile {
    /// Every executed instruction, in report order.
    #[serde(default, rename = "instruction")]
    pub instructions: Vec<ProfiledInstruction>,
    /// The profiled NEFF's header (the report holds a one-element list).
    #[serde(default, rename = "neff_header", deserialize_with = "first_header")]
    pub neff_header: Option<NeffHeaderInfo>,
    /// The machine the report was captured on (`metadata`, a one-element list).
    #[serde(default, deserialize_with = "first_metadata")]
    pub metadata: Option<Metadata>,
    /// Every DMA transfer (`dma`).
    #[serde(default)]
    pub dma: Vec<DmaTransfer>,
    /// Every semaphore update (`semaphore_update`).
    #[serde(default)]
    pub semaphore_update: Vec<SemaphoreUpdate>,
    /// Every throttle state (`ham`).
    #[serde(default)]
    pub ham: Vec<ThrottleRow>,
    /// When read from a raw capture: what it says about itself.
    #[serde(skip)]
    pub capture: Option<crate::capture::CaptureFacts>,
    /// When read from a raw capture: how its device time became these nanoseconds.
    #[serde(skip)]
    pub time_base: Option<TimeBase>,
}

/// `metadata[0]`: the captured machine's clocks and array size.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
pub struct Metadata {
    /// The PE array clock, GHz (`pe_clock_freq`; 2.4 on the shared trn2 reports).
    #[serde(default)]
    pub pe_clock_freq: f64,
    /// The other engines' clock, GHz (`pe_clock_others`).
    #[serde(default)]
    pub pe_clock_others: f64,
    /// PE array rows.
    #[serde(default)]
    pub pe_num_rows: u32,
    /// PE array columns.
    #[serde(default)]
    pub pe_num_cols: u32,
}

fn first_metadata<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Metadata>, D::Error> {
    let v: Vec<Metadata> = Vec::deserialize(d)?;
    Ok(v.into_iter().next())
}

/// `neff_header` is a list of one object in the reports seen; a bare object is accepted too.
fn first_header<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<NeffHeaderInfo>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum OneOrMany {
        Many(Vec<NeffHeaderInfo>),
        One(NeffHeaderInfo),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::Many(v) => v.into_iter().next(),
        OneOrMany::One(h) => Some(h),
    })
}

/// The gzip magic (RFC 1952).
pub const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];

impl Profile {
    /// Reads a profile file: a JSON report or a raw capture, gzip-compressed or not (told by
    /// its first bytes).
    pub fn read(path: &Path, limits: &ReadLimits) -> Result<Self, ProfileError> {
        let (kind, bytes) = load(path, limits)?;
        Self::from_input(path, kind, &bytes)
    }

    /// Parses profile bytes (`path` names them in errors).
    pub fn parse(path: &Path, bytes: &[u8], limits: &ReadLimits) -> Result<Self, ProfileError> {
        let (kind, bytes) = crate::input::decompress(path, bytes, limits)?;
        Self::from_input(path, kind, &bytes)
    }

    /// Reads decompressed bytes of a known kind.
    fn from_input(path: &Path, kind: InputKind, bytes: &[u8]) -> Result<Self, ProfileError> {
        match kind {
            InputKind::Capture => {
                let cap = Capture::parse(bytes).map_err(|source| ProfileError::Ntff {
                    path: path.into(),
                    source,
                })?;
                Ok(Self::from_capture(&cap).0)
            }
            InputKind::Json => {
                let mut de = serde_json::Deserializer::from_slice(bytes);
                decode(&mut de).map_err(|what| ProfileError::Json {
                    path: path.into(),
                    what,
                })
            }
        }
    }

    /// The NEFF instructions of `subgraph` (those with a `compiler_pc`), on every engine.
    pub fn neff_instructions<'a>(
        &'a self,
        subgraph: &'a str,
    ) -> impl Iterator<Item = &'a ProfiledInstruction> + 'a {
        self.instructions
            .iter()
            .filter(move |i| i.subgraph == subgraph && i.compiler_pc.is_some())
    }

    /// The measured span of `subgraph`: from the issue of its first NEFF instruction to the end
    /// of its last, on any engine (`None` when it executed none) — the figure `neff sim`
    /// predicts.
    pub fn span_ns(&self, subgraph: &str) -> Option<u64> {
        let lo = self
            .neff_instructions(subgraph)
            .map(|i| i.timestamp)
            .min()?;
        let hi = self.neff_instructions(subgraph).map(|i| i.end()).max()?;
        Some(hi - lo)
    }

    /// The name of the DMA queue a transfer of `subgraph` on (`dma_engine`, `dma_queue`) ran
    /// on, from a raw capture's queue table (a JSON report has none: `None`).
    pub fn dma_queue_name(&self, subgraph: &str, dma_engine: u64, dma_queue: u64) -> Option<&str> {
        (self.capture.as_ref())?
            .subgraphs
            .iter()
            .find(|f| f.name == subgraph)?
            .queue_name(dma_engine, dma_queue)
    }

    /// The instructions of one subgraph and engine.
    pub fn instructions_of<'a>(
        &'a self,
        subgraph: &'a str,
        engine: neff_isa::EngineType,
    ) -> impl Iterator<Item = &'a ProfiledInstruction> + 'a {
        self.instructions
            .iter()
            .filter(move |i| i.subgraph == subgraph && i.engine() == Some(engine))
    }
}

/// Decodes and, on failure, says where: serde_json's line and column.
fn decode(
    de: &mut serde_json::Deserializer<serde_json::de::SliceRead<'_>>,
) -> Result<Profile, String> {
    let p = Profile::deserialize(&mut *de).map_err(|e| e.to_string())?;
    de.end().map_err(|e| e.to_string())?;
    Ok(p)
}

/// Inflates a gzip report or capture, refusing more than the larger limit (the kind is known
/// only after; a JSON report is then held to its own limit).
pub(crate) fn inflate(
    path: &Path,
    bytes: &[u8],
    limits: &ReadLimits,
) -> Result<Vec<u8>, ProfileError> {
    let max = limits.max_json_bytes.max(limits.max_capture_bytes);
    let mut out = Vec::new();
    let mut reader = flate2::read::MultiGzDecoder::new(bytes).take(max.saturating_add(1));
    reader
        .read_to_end(&mut out)
        .map_err(|source| ProfileError::Gzip {
            path: path.into(),
            source,
        })?;
    let limit = match InputKind::detect(&out) {
        InputKind::Json => limits.max_json_bytes,
        InputKind::Capture => limits.max_capture_bytes,
    };
    if out.len() as u64 > limit {
        return Err(ProfileError::TooLarge {
            path: path.into(),
            limit,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: &str = r#"{"neff_header":[{"uuid":"ab","hash":"cd","network_name":"n"}],
        "instruction":[{"subgraph":"sg00","label":"Sync","opcode":"DRAIN","pc":25,"operands":""},
        {"subgraph":"sg00","label":"Sync","opcode":"NOP","pc":50,"compiler_pc":0}],"other":1}"#;

    #[test]
    fn reads_plain_and_gzip() {
        let p = Profile::parse(Path::new("x"), SMALL.as_bytes(), &ReadLimits::default()).unwrap();
        assert_eq!(p.instructions.len(), 2);
        assert_eq!(p.instructions[1].neff_ip(), Some(1));
        assert_eq!(p.instructions[0].compiler_pc, None);
        assert_eq!(p.neff_header.as_ref().unwrap().hash, "cd");
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        std::io::Write::write_all(&mut gz, SMALL.as_bytes()).unwrap();
        let z = gz.finish().unwrap();
        assert_eq!(
            Profile::parse(Path::new("x"), &z, &ReadLimits::default()).unwrap(),
            p
        );
    }

    #[test]
    fn span_is_first_neff_issue_to_last_neff_end() {
        let text = r#"{"instruction":[
            {"subgraph":"sg00","label":"Sync","opcode":"DRAIN","pc":3,"timestamp":10,"duration":8},
            {"subgraph":"sg00","label":"TensorMatrix","opcode":"MATMUL","pc":70,"compiler_pc":4,
             "timestamp":100,"duration":50},
            {"subgraph":"sg00","label":"Scalar","opcode":"COPY","pc":68,"compiler_pc":2,
             "timestamp":120,"duration":100}]}"#;
        let p = Profile::parse(Path::new("x"), text.as_bytes(), &ReadLimits::default()).unwrap();
        // The runtime's DRAIN at 10 has no compiler_pc: not counted.
        assert_eq!(p.span_ns("sg00"), Some(220 - 100));
        assert_eq!(p.span_ns("sg01"), None);
        assert_eq!(p.instructions[1].end(), 150);
    }

    #[test]
    fn limits_and_bad_json_are_errors_naming_the_file() {
        let tiny = ReadLimits {
            max_json_bytes: 10,
            ..Default::default()
        };
        let e = Profile::parse(Path::new("p.json"), SMALL.as_bytes(), &tiny).unwrap_err();
        assert!(matches!(e, ProfileError::TooLarge { .. }), "{e}");
        let e = Profile::parse(
            Path::new("p.json"),
            b"{\"instruction\":[{\"pc\":\"x\"}]}",
            &ReadLimits::default(),
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("p.json: "), "{e}");
    }
}
