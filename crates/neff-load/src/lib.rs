//! The load pipeline (specs 000 and 001): lowering, image assembly, patches, staging and IP maps.

pub mod device;
pub mod device_model;
pub mod error;
pub mod image;
pub mod ipmap;
pub mod lower;
pub mod model;
pub mod patch;
pub mod program;
pub mod report;
pub mod runtime_model;
pub mod setup;
