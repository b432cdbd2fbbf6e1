//! neuron-profile reports (`neuron-profile view --output-format json`), read once for every user
//! in neffkit: `neff ip --profile`, the simulator's comparison, the tests.
//!
//! A report is one JSON object (often gzip-compressed); neffkit reads the parts it checks
//! against a NEFF and ignores the rest:
//! - [`ProfiledInstruction`]: every executed instruction, with its engine queue, the device `pc`
//!   (slot index in the engine's image) and, for instructions that come from the NEFF, the
//!   `compiler_pc` (slot index in the engine's `.bin`, 0-based);
//! - [`NeffHeaderInfo`]: the profiled NEFF's header (`uuid`, `hash`), which says whether a
//!   NEFF and a profile belong together.
//!
//! The vocabulary of the profiler (queue labels, mnemonics) is mapped to neffkit's in one place
//! each: [`queue`] for engines, [`mnemonic`] for instruction names.

pub mod check;
pub mod error;
pub mod header;
pub mod instruction;
pub mod mnemonic;
pub mod queue;
pub mod read;

pub use check::{Disagreement, Mismatch, ProfileCheck, check_header, check_profile};
pub use error::ProfileError;
pub use header::NeffHeaderInfo;
pub use instruction::ProfiledInstruction;
pub use read::{Metadata, Profile, ReadLimits};
