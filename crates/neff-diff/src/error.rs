//! The one error of a diff: a side that could not be read, naming the side and, through the
//! reader's own error (its `source`, shown after it as anyhow's `{:#}` does), where (member,
//! slot, byte offset or JSON pointer).

use crate::side::Side;

/// Why a diff could not be made.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    /// The container of one side is damaged (its source names the byte offset or member).
    #[error("side {side} ({file})")]
    Container {
        /// Which input.
        side: Side,
        /// Its file name, as the caller gave it.
        file: String,
        /// The container reader's error.
        source: neff_container::ContainerError,
    },
    /// The manifests of one side are damaged (its source names the member and JSON pointer).
    #[error("side {side} ({file})")]
    Kelf {
        /// Which input.
        side: Side,
        /// Its file name.
        file: String,
        /// The kelf reader's error.
        source: neff_kelf::KelfError,
    },
    /// A stream longer than the aligner can index (2^31 - 1 slots, far past any limit).
    #[error("side {side} ({file}): {member} has {slots} slots, more than the diff can align")]
    TooLong {
        /// Which input.
        side: Side,
        /// Its file name.
        file: String,
        /// The stream member.
        member: String,
        /// Its slot count.
        slots: u64,
    },
}

impl DiffError {
    /// The side the error is about.
    pub fn side(&self) -> Side {
        match self {
            DiffError::Container { side, .. }
            | DiffError::Kelf { side, .. }
            | DiffError::TooLong { side, .. } => *side,
        }
    }
}
