//! Why a simulation could not run to an answer. A deadlock is not an error: it is a result
//! ([`crate::Deadlock`]).

use neff_isa::EngineType;

/// A simulation that stopped without a timeline.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// The image of an engine was not kept by the load (`LoadOptions::drop_image_bytes`).
    #[error(
        "{subgraph}/{engine}: the loaded model has no image bytes (load without drop_image_bytes)"
    )]
    NoImage {
        /// The subgraph.
        subgraph: String,
        /// The engine.
        engine: EngineType,
    },
    /// An image with 2^31 ops or more that do more than take time: more than an op's index of
    /// them can name (D834; such an image would be 128 GiB).
    #[error("{subgraph}/{engine}: too many control ops for one image (2^31 or more)")]
    TooLarge {
        /// The subgraph.
        subgraph: String,
        /// The engine.
        engine: EngineType,
    },
    /// A slot carries a wait or update mode byte neff-isa does not name.
    #[error("{subgraph}/{engine}: image byte {offset:#x}: unknown {what} mode {mode:#04x}")]
    UnknownMode {
        /// The subgraph.
        subgraph: String,
        /// The engine.
        engine: EngineType,
        /// Image byte offset of the slot.
        offset: u64,
        /// `wait` or `update`.
        what: &'static str,
        /// The raw byte.
        mode: u8,
    },
    /// A branch or a fall-through left the engine's image.
    #[error(
        "{subgraph}/{engine}: image byte {offset:#x}: control leaves the image (target {target:#x})"
    )]
    PcOutOfImage {
        /// The subgraph.
        subgraph: String,
        /// The engine.
        engine: EngineType,
        /// Image byte offset of the instruction that jumped.
        offset: u64,
        /// The target, image-relative (may be negative, shown as two's complement).
        target: i64,
    },
    /// The step bound was reached: a runaway loop, or a bound set too low.
    #[error(
        "{subgraph}: stopped after {steps} instructions (the step bound, --max-steps); the program may loop forever"
    )]
    StepBound {
        /// The subgraph.
        subgraph: String,
        /// Instructions executed.
        steps: u64,
    },
}
