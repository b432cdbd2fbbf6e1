//! Synthetic NEFFs shaped like real compiler output, for tests and benchmarks (issue 8).
//!
//! A synthetic NEFF has the members, manifests and instruction mix of the real files of
//! reference §2-§4: `kelf-0.json`, `neff.json` with the `__kelf` node, per subgraph `def.json`
//! with `dma_queue` and `var`, and five engine streams `{PE,Activation,Pool,DVE,SP}.{bin,json}`
//! whose slots are real instruction words (templates from reference §4.4/§4.5) with varied
//! addresses and semaphores, in the proportions of reference §4.3: MATMUL/LDWEIGHTS on PE,
//! ACTIVATE or COPY/CAST on ACT, TENSOR_TENSOR/MEMSET on DVE, DMA triggers (trn1 0xC1 with DMA
//! blocks in the engine JSON, trn2 0xD4 with dynamic queues and a `dge-table` var) on SP and
//! Pool, EVENT_SEMAPHOREs everywhere, label-headed blocks with COMPARE_BRANCHes back to their
//! label, rare collectives, and with `functions > 0` calls, an exit and callable functions.
//!
//! Every wait is one the subgraph's own increments and transfers satisfy, in an order that cannot
//! deadlock, so `neff sim` runs every synthetic NEFF to the end (decision D360).
//!
//! Everything is drawn from one seed (neff-isa's [`neff_isa::SplitMix64`]): equal [`SynthOptions`] give equal bytes.
//!
//! ```
//! use neff_synth::{SynthOptions, SynthTarget, generate};
//! let opts = SynthOptions { slots_per_engine: 100, target: SynthTarget::Cayman, ..SynthOptions::default() };
//! let bytes = generate(&opts).unwrap();
//! let neff = neff_container::Neff::parse(&bytes).unwrap();
//! assert_eq!(neff.member("sg00/PE.bin").unwrap().len(), 100 * 64);
//! assert_eq!(bytes, generate(&opts).unwrap());
//! ```

mod debug_info;
pub mod engine;
mod error;
pub mod manifest;
pub mod mix;
mod options;
mod package;
mod shape;
pub mod stream;
pub mod templates;

pub use error::SynthError;
pub use options::{MAX_FUNCTIONS, MAX_STREAM_BYTES, MAX_SUBGRAPHS, SynthOptions, SynthTarget};
pub use package::{COMPRESSION_LEVEL, Package, Summary, generate, write_shaped, write_to};
pub use shape::{MAX_DESCS_PER_BLOCK, MAX_EXTRA_VARS, Shape};
