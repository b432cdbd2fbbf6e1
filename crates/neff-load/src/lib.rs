//! The load pipeline (spec 000, with spec 001's lowering from neff-lower): image assembly,
//! patches, staging and IP maps.
//!
//! Load a NEFF the way the Neuron runtime does: identify each engine's functions and blocks,
//! lower every pseudo-instruction, assemble PREAMBLE / MODEL_SWITCH / MAIN / POSTAMBLE /
//! FUNCTION with their patch rows, stage each image into a device-memory model and index the
//! device IP <-> NEFF IP map.
//!
//! # What users need, at the crate root
//!
//! * [`load`] (a parsed [`neff_kelf::Kelf`]) and [`load_streams`] (raw engine streams), with
//!   [`LoadOptions`] (the [`DeviceModel`], [`LowerOptions`], [`RegionModel`]); progress-reporting
//!   forms [`load_with_progress`], [`load_streams_with_progress`].
//! * The result: [`LoadedModel`] -> [`LoadedSubgraph`] -> [`LoadedEngine`] (its [`EngineImage`],
//!   its [`EnginePatches`] of [`PatchType`] / [`PatchSection`] rows, its [`IpMap`]).
//! * Device IP <-> NEFF IP: [`IpMap::neff_ip`] answers an [`IpHit`]; [`NeffIp`] and
//!   [`DeviceAddr`] are the two index spaces.
//! * Errors: [`LoadError`] (assembly and staging, naming engine, slot and image offset),
//!   [`IpError`] (IP translation), [`LowerError`] (lowering, naming member and source slot).
//! * The JSON report of `neff load --json`: [`report::engine_json`].
//!
//! The stages other crates drive stay reachable as modules ([`image`], [`ipmap`],
//! [`runtime_model`], [`device_model`], [`report`], [`profile_check`]); function identification,
//! staging and the setup order are `load`'s own steps, whose types ([`Program`], [`DeviceMemory`],
//! [`InstBlock`], [`IbAddrs`]) are named at the root (decision D781). Lowering and the patch rows are
//! [`neff_lower`]'s (`neff_lower::patch`): import them from there (decision D740).
//!
//! # Example
//!
//! ```
//! use neff_isa::EngineType;
//! use neff_load::{DeviceAddr, LoadOptions, NeffIp, PatchSection, load};
//!
//! // The specification's sample (spec 000 §9): pe's MAIN is one collective trigger.
//! let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sample.neff");
//! let bytes = std::fs::read(path)?;
//! let neff = neff_container::Neff::parse(&bytes)?;
//! let kelf = neff_kelf::Kelf::from_neff(&neff)?;
//! let model = load(&kelf, &LoadOptions::default())?;
//!
//! let pe = model.subgraphs[0].engine(EngineType::Pe).expect("the sample has pe");
//! assert_eq!(pe.image.lowered_slots(), 1);
//! // The first device address of MAIN is NEFF instruction 1.
//! let main = pe.ib_addrs.base + pe.image.eib.core.offset;
//! let hit = pe.ipmap.neff_ip(DeviceAddr(main))?;
//! assert_eq!((hit.neff_ip, hit.section), (NeffIp(1), PatchSection::Main));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod device;
pub mod device_model;
mod error;
pub mod image;
pub mod ipmap;
pub mod model;
pub use neff_lower::physical_core;
pub mod profile_check;
mod program;
pub mod report;
pub mod runtime_model;
mod setup;

// Lowering (spec 001) and its patch rows are the crate neff-lower (D560); the stages here name
// them by these paths. Other crates import neff_lower itself (D740): one path per item.
use neff_lower as lower;
use neff_lower::patch;

// The staging (`device`), function identification (`program`) and setup-order (`setup`) steps
// are internal to `load` (decision D781); the types of theirs that public fields and the image
// stage's signatures carry are named here.
pub use device::{Allocation, DeviceMemory, IbAddrs, InstBlock};
pub use device_model::{DeviceModel, RegionModel};
pub use error::{IpError, LoadError};
pub use image::EngineImage;
pub use ipmap::{DeviceAddr, IpHit, IpMap, NeffIp};
pub use lower::{LowerError, LowerOptions};
pub use model::{
    EngineSource, LoadOptions, LoadedEngine, LoadedModel, LoadedSubgraph, SubgraphInput, load,
    load_kbins_viewing, load_kbins_with_progress, load_streams, load_streams_with_progress,
    load_with_progress,
};
pub use patch::{EnginePatches, PatchSection, PatchType};
pub use program::{Block, Function, Program};
