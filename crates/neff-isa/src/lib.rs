//! The 64-byte TPB instruction word and the 8-byte SP word (spec 003): decode, encode, text,
//! validation, and the runtime's micro-op builders (spec 001 §2, §4).

pub mod builder;
mod engine;

pub use engine::{EngineType, UnknownEngine};
