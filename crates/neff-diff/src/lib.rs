//! What changed between two NEFFs, and what it costs (issue 33).
//!
//! [`diff`] compares two NEFFs the way their reader thinks of them: the header and its feature
//! bits ([`header`]), the members by size and hash ([`members`]), the manifests structured by
//! key ([`manifest`]: kelf, def.json vars and DMA queues, engine JSON), every engine stream as
//! an instruction diff aligned the way a person reads a listing ([`align`]: identical slots
//! first, then the rest paired by BIR instruction and source line from the debug info, or by
//! opcode) with changed operands field by field ([`operands`]), and the simulated time of both
//! sides per subgraph, engine and source line ([`time`]). [`text`] prints it like diff(1);
//! the [`NeffDiff`] value serializes to the JSON of `neff diff --json` (docs/json.md).
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use neff_diff::{DiffOptions, Input, Side, diff};
//! let (a, b) = (std::fs::read("a.neff")?, std::fs::read("b.neff")?);
//! let options = DiffOptions::default();
//! let na = Input::parse(Side::A, "a.neff", &a, &options.read)?;
//! let nb = Input::parse(Side::B, "b.neff", &b, &options.read)?;
//! let (ia, ib) = (Input::new(Side::A, "a.neff", &na)?, Input::new(Side::B, "b.neff", &nb)?);
//! let d = diff(&ia, &ib, &options);
//! println!("same: {}", d.same);
//! # Ok(()) }
//! ```

pub mod align;
pub mod capture;
pub mod engines;
mod error;
pub mod header;
pub mod json;
pub mod manifest;
pub mod members;
pub mod operands;
mod side;
pub mod text;
pub mod time;

pub use engines::{AlignedBy, EngineDiff};
pub use error::DiffError;
pub use side::Side;

use neff_container::{Neff, ReadOptions};
use neff_debug::DebugInfo;
use neff_isa::Dialect;
use neff_kelf::Kelf;
use serde::Serialize;

use crate::engines::{Streams, diff_engines};
use crate::header::{HeaderDiff, diff_headers};
use crate::manifest::{ManifestChange, diff_manifests};
use crate::members::{MembersDiff, diff_members};
use crate::time::{TimeDiff, TimeOptions, diff_time};

/// How a diff is made.
#[derive(Debug, Clone)]
pub struct DiffOptions {
    /// How each NEFF is read (hash check, limits).
    pub read: ReadOptions,
    /// The events dialect of the instruction text and fields (decision D2).
    pub dialect: Dialect,
    /// Simulate both sides (`None`: no time).
    pub time: Option<TimeOptions>,
}

impl Default for DiffOptions {
    fn default() -> Self {
        Self {
            read: ReadOptions::default(),
            dialect: Dialect::Semaphore8,
            time: Some(TimeOptions::default()),
        }
    }
}

/// One side, read: the NEFF, its kelf and debug info, and the name errors use.
pub struct Input<'a> {
    /// Which side.
    pub side: Side,
    /// The file name shown in headings and errors.
    pub file: String,
    /// The NEFF.
    pub neff: &'a Neff<'a>,
    /// Its kelf (spec 004 §1).
    pub kelf: Kelf<'a>,
    /// Its debug info (empty when it has none; problems are in its `warnings`).
    pub debug: DebugInfo,
}

impl<'a> Input<'a> {
    /// Parses one side's bytes; the error names the side and the file.
    pub fn parse(
        side: Side,
        file: &str,
        bytes: &'a [u8],
        read: &ReadOptions,
    ) -> Result<Neff<'a>, DiffError> {
        Neff::parse_with(bytes, read).map_err(|source| DiffError::Container {
            side,
            file: file.to_owned(),
            source,
        })
    }

    /// Reads the kelf and debug info of a parsed NEFF; the error names the side, the file and
    /// (through neff-kelf) the member and JSON pointer.
    pub fn new(side: Side, file: &str, neff: &'a Neff<'a>) -> Result<Self, DiffError> {
        let kelf = Kelf::from_neff(neff).map_err(|source| DiffError::Kelf {
            side,
            file: file.to_owned(),
            source,
        })?;
        check_lengths(side, file, &kelf)?;
        Ok(Self {
            side,
            file: file.to_owned(),
            neff,
            kelf,
            debug: DebugInfo::load(neff),
        })
    }
}

/// The aligner indexes slots with `u32` below `i32::MAX` (imara-diff's bound).
fn check_lengths(side: Side, file: &str, kelf: &Kelf<'_>) -> Result<(), DiffError> {
    for g in kelf.graphs() {
        for e in &g.engines {
            let slots = (e.instr.len() / neff_isa::SLOT_BYTES) as u64;
            if slots >= i32::MAX as u64 {
                return Err(DiffError::TooLong {
                    side,
                    file: file.to_owned(),
                    member: e.instr_member.clone(),
                    slots,
                });
            }
        }
    }
    Ok(())
}

/// What changed between two NEFFs (the `neff diff --json` document, docs/json.md).
#[derive(Debug, Clone, Serialize)]
pub struct NeffDiff<'a> {
    /// A's file name.
    pub a: String,
    /// B's file name.
    pub b: String,
    /// Whether nothing differs: header, members, manifests and instructions alike.
    pub same: bool,
    /// The header.
    pub header: HeaderDiff,
    /// The members.
    pub members: MembersDiff,
    /// The manifests, by key.
    pub manifests: Vec<ManifestChange>,
    /// Every (subgraph, engine) stream either side has.
    pub engines: Vec<EngineDiff<'a>>,
    /// The simulated time of both sides, when asked for.
    pub time: Option<TimeDiff>,
    /// The events dialect instructions are shown in.
    #[serde(skip)]
    pub dialect: Dialect,
}

/// Compares two read NEFFs.
pub fn diff<'a>(a: &'a Input<'a>, b: &'a Input<'a>, options: &DiffOptions) -> NeffDiff<'a> {
    let header = diff_headers(a.neff.header(), b.neff.header());
    let members = diff_members(a.neff, b.neff);
    let manifests = diff_manifests(&a.kelf, &b.kelf);
    let engines = diff_engines(
        &Streams {
            kelf: &a.kelf,
            debug: &a.debug,
        },
        &Streams {
            kelf: &b.kelf,
            debug: &b.debug,
        },
    );
    let time = options
        .time
        .as_ref()
        .map(|t| diff_time((&a.kelf, &a.debug), (&b.kelf, &b.debug), t));
    let same = header.is_empty()
        && members.changes.is_empty()
        && manifests.is_empty()
        && engines.iter().all(EngineDiff::is_same);
    NeffDiff {
        a: a.file.clone(),
        b: b.file.clone(),
        same,
        header,
        members,
        manifests,
        engines,
        time,
        dialect: options.dialect,
    }
}
