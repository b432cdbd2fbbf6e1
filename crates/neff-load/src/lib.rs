//! The load pipeline (specs 000 and 001): lowering, image assembly, patches, staging and IP maps.

pub mod error;
pub mod ipmap;
pub mod patch;
pub mod program;
