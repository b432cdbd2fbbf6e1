//! kelf -> kbin (spec 004): a NEFF's JSON manifests and raw blobs, parsed and lowered into the
//! runtime's kbin model.
//!
//! The pipeline (spec 004 §1-§2):
//!
//! 1. [`Kelf::from_members`] (or [`Kelf::from_neff`]) — PARSE: the kelf descriptor
//!    (`kelf-a.json`, or the `kelf-0.json` neff.json names), then per subgraph `def.json`, the
//!    engine JSONs and their `.bin` streams. Every manifest key of reference §3.3 is typed;
//!    unknown keys are kept, so each manifest's `to_value()` equals the member it came from.
//! 2. [`gen_kbin`] / [`Kelf::kbins`] — EMIT: one [`Kbin`] per subgraph: engine slots in the
//!    runtime's alphabetical order (act, dve, pe, pool, sp) with the true `eng_type` in each,
//!    `ninstr = size >> 6`; DMA queues -> rings -> descriptors; the mem_ref_set indexed by var_id;
//!    the inline members; the target last. [`Kelf::kbins`] also runs the remote-variable rebind.
//! 3. Lowering consumers resolve triggers with [`Kbin::dma_trigger`], [`Kbin::direct2d`],
//!    [`Kbin::replica_group`], [`Kbin::mem_ref`].
//!
//! ```
//! use std::collections::BTreeMap;
//! use neff_kelf::{Kelf, gen_kbin};
//!
//! let mut m: BTreeMap<String, Vec<u8>> = BTreeMap::new();
//! m.insert("kelf-a.json".into(), br#"{"version":"0.5","target":"sunda","graphs":[{"name":"sg00","definition":"sg00/def.json"}]}"#.to_vec());
//! m.insert("sg00/def.json".into(), br#"{"pe":"pe.json","var":{"SB":{"type":"state-buffer","var_id":0}}}"#.to_vec());
//! m.insert("sg00/pe.json".into(), br#"{"dma":[],"instr":"pe.bin","name":"pe_array_json"}"#.to_vec());
//! m.insert("sg00/pe.bin".into(), vec![0; 64]);
//! let kelf = Kelf::from_members(&m).unwrap();
//! let kbin = gen_kbin(&kelf, "sg00").unwrap();
//! assert_eq!((kbin.engines[0].name.as_str(), kbin.engines[0].ninstr), ("pe", 1));
//! assert_eq!(kbin.target.arch(), 2);
//! ```

mod def_json;
mod descriptor;
mod dma_block;
mod dma_queue;
mod dtype;
mod engine_json;
mod engine_json_direct;
mod engine_slot;
mod engine_stream;
mod error;
mod gen_kbin;
mod json_reader;
mod kbin;
mod kbin_dma;
mod kbin_json;
mod kelf;
mod mem_ref;
mod problems;
mod remote_var;
mod source;
mod target;
mod var;

pub use def_json::{CcStreams, DefJson, EngineRefs, Fp8ConversionConfig, SbReservation};
pub use descriptor::{GraphRef, KelfDescriptor, NEFF_JSON, SPEC_DESCRIPTOR, locate_descriptor};
pub use dma_block::{DmaBlock, DmaDesc, DmaDescRare, pattern_pieces};
pub use dma_queue::{DmaQueue, DynamicDma, ring_named};
pub use dtype::{KbinDtype, STR_TO_DTYPE};
pub use engine_json::{DveTables, EngineJson};
pub use engine_slot::EngineSlot;
pub use engine_stream::{NoStreamSelected, StreamMember, select_streams};
pub use error::{KelfError, Location, Result};
pub use gen_kbin::{KbinCheck, gen_kbin};
pub use kbin::{ActFunctionSets, Direct2dTarget, DmaTriggerTarget, Kbin};
pub use kbin_dma::{
    DmaBlockRef, DmaRing, KbinDmaDesc, KbinDmaQueue, MAX_SEMAPHORES_PER_QUEUE_SET, build_dma,
};
pub use kelf::{EngineProgram, Graph, Kelf};
pub use mem_ref::{MemRef, RemoteBinding, build_mem_refs};
pub use neff_isa::EngineType;
pub use problems::kelf_problems;
pub use remote_var::{resolve_remote_variables, split_remote_name};
pub use source::MemberSource;
pub use target::Target;
pub use var::{Var, VarType};
