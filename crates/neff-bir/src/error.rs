//! Error types of the crate. JSON errors carry the RFC 6901 pointer of the offending value.

use crate::ids::InstId;

/// A 3-bit kind tag that names no edge kind (spec 002 §5 `PointerIntPair` asserts).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EdgeKindError {
    /// Bits above the low three are set: "Integer too large for field".
    #[error("edge kind {0} does not fit the 3-bit tag (Integer too large for field)")]
    TooLarge(u8),
    /// 5..=7: fits the field but `EdgeKind2string` names no kind.
    #[error("edge kind {0} names no EdgeKind (Invalid 0, Ordered 1, Anti 2, Output 3, Flow 4)")]
    Unnamed(u8),
}

/// An edit of the model the spec's constructors or `addDependency` refuse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// The spec's constructor check (spec 002 §1, §3, sic).
    #[error("instruction {name:?}: Id has already been initialzed (unique_id {id})")]
    IdAlreadyInitialised {
        /// Instruction name.
        name: String,
        /// The id it already has.
        id: u32,
    },
    /// `assert(this != former)` of `addDependency` (spec 002 §5).
    #[error("instruction {0:?} cannot depend on itself")]
    SelfEdge(String),
    /// An [`InstId`] outside the arena.
    #[error("no instruction #{} in this program", .0.0)]
    NoSuchInstruction(InstId),
    /// A bad kind tag.
    #[error(transparent)]
    Kind(#[from] EdgeKindError),
    /// The arena is full (`u32` indices).
    #[error("too many instructions/blocks (limit {0})")]
    TooMany(usize),
}

/// A document that is not BIR JSON, with the JSON pointer of the offending value.
#[derive(Debug, thiserror::Error)]
#[error("{pointer}: {message}")]
pub struct JsonError {
    /// RFC 6901 pointer to the offending value ("" = the document); for syntax errors the
    /// deepest value entered before the error.
    pub pointer: String,
    /// What was wrong (serde_json's message, with line and column where it has them).
    pub message: String,
}

/// Escapes one JSON pointer reference token (RFC 6901: `~` -> `~0`, `/` -> `~1`).
pub fn escape_pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}
