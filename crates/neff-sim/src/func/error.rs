//! Why a functional run stopped without outputs: every variant names where (tensor, subgraph,
//! engine, slot, operand, descriptor) so the message alone locates the problem.

use neff_isa::EngineType;

/// Where an instruction is: subgraph, engine and 0-based slot of its `.bin`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SlotAt {
    /// The subgraph (`sg00`).
    pub subgraph: String,
    /// The engine.
    #[serde(serialize_with = "crate::engine_name::serialize")]
    pub engine: EngineType,
    /// The slot index in the engine's `.bin`.
    pub slot: usize,
    /// The opcode's mnemonic (or its byte in hex).
    pub opcode: String,
}

impl std::fmt::Display for SlotAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}/{} slot {} ({})",
            self.subgraph, self.engine, self.slot, self.opcode
        )
    }
}

/// A functional run that could not produce outputs.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RunError {
    /// The NEFF's manifests do not give what the run needs (a member, a key, a var).
    #[error("{member}: {reason}")]
    Manifest {
        /// The member (`neff.json`, `sg00/def.json`, ...).
        member: String,
        /// What is missing or wrong.
        reason: String,
    },
    /// An input the NEFF declares was not given.
    #[error("input `{name}` is missing (expected {dtype} of shape {shape:?})")]
    MissingInput {
        /// The tensor.
        name: String,
        /// Its dtype.
        dtype: String,
        /// Its shape.
        shape: Vec<u64>,
    },
    /// An input the NEFF does not declare was given.
    #[error("input `{name}` is not an input of this NEFF (its inputs: {known})")]
    ExtraInput {
        /// The name given.
        name: String,
        /// The declared inputs, comma-separated.
        known: String,
    },
    /// An input has the wrong shape or element type.
    #[error("input `{name}`: expected {dtype} of shape {shape:?}, got {got}")]
    BadInput {
        /// The tensor.
        name: String,
        /// The expected dtype.
        dtype: String,
        /// The expected shape.
        shape: Vec<u64>,
        /// What was given (`float32 of shape [3]`).
        got: String,
    },
    /// An instruction the model has no semantics for, or a field value it does not know.
    #[error("{at}: {reason}")]
    Unsupported {
        /// The instruction.
        at: SlotAt,
        /// What has no semantics.
        reason: String,
    },
    /// An instruction's operand leaves its memory (SBUF or PSUM partition, or a tensor).
    #[error("{at}: {operand}: {reason}")]
    OutOfBounds {
        /// The instruction.
        at: SlotAt,
        /// `src`, `dst`, `weights`, `descriptor 2 from`, ...
        operand: String,
        /// Which bytes, against which size.
        reason: String,
    },
    /// A tensor to trace is not a DRAM var of the NEFF.
    #[error("--trace `{name}`: not a DRAM tensor of this NEFF (its tensors: {known})")]
    UnknownTrace {
        /// The name given.
        name: String,
        /// The DRAM vars, comma-separated.
        known: String,
    },
    /// No engine can issue and some are not done.
    #[error("deadlock: {blocked}")]
    Deadlock {
        /// Each blocked engine with its slot and the wait it is stuck on.
        blocked: String,
    },
    /// The step bound was reached (a program that loops forever, or a bound set too low).
    #[error("stopped after {steps} instructions (the step bound); the program may loop forever")]
    StepBound {
        /// Instructions executed.
        steps: u64,
    },
}
