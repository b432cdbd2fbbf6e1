//! Errors of the generator.

use neff_container::ContainerError;

/// Why a synthetic NEFF could not be made.
#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    /// An option out of range.
    #[error("invalid synth option `{field}`: {reason}")]
    InvalidOption {
        /// The option (field of [`crate::SynthOptions`]).
        field: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// The container writer refused (a member path, an I/O error writing the file).
    #[error(transparent)]
    Container(#[from] ContainerError),
}
