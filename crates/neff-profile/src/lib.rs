//! neuron-profile reports (`neuron-profile view --output-format json`), read once for every user
//! in neffkit: `neff ip --profile`, the simulator's comparison, the tests.
//!
//! A report is one JSON object (often gzip-compressed); neffkit reads the parts it checks
//! against a NEFF and ignores the rest:
//! - [`ProfiledInstruction`]: every executed instruction, with its engine queue, the device `pc`
//!   (slot index in the engine's image) and, for instructions that come from the NEFF, the
//!   `compiler_pc` (slot index in the engine's `.bin`, 0-based);
//! - [`NeffHeaderInfo`]: the profiled NEFF's header (`uuid`, `hash`), which says whether a
//!   NEFF and a profile belong together.
//!
//! The vocabulary of the profiler (queue labels, mnemonics) is mapped to neffkit's in one place
//! each: [`queue`] for engines, [`mnemonic`] for instruction names.

pub mod capture;
pub mod decode;
pub mod error;
pub mod event;
mod from_capture;
pub mod header;
pub mod input;
pub mod instruction;
pub mod mnemonic;
pub mod ntff;
pub mod ntff_error;
#[cfg(feature = "parquet")]
pub mod parquet;
pub mod perfetto;
pub mod queue;
pub mod read;
pub mod row_stream;
pub mod rows;
pub mod slot_map;
pub mod stream;
pub mod summary;
pub mod summary_json;
pub mod time;
pub mod trace;
pub mod wire;
pub mod writer;

pub use capture::{CaptureFacts, FormatVersion, SoftwareVersion, SubgraphFacts, Window};
pub use decode::DecodeStats;
pub use error::ProfileError;
pub use event::{
    CaptureEvents, DmaEvent, EventSink, InstructionEvent, SemaphoreEvent, ThrottleEvent,
};
pub use header::NeffHeaderInfo;
pub use input::InputKind;
pub use instruction::ProfiledInstruction;
pub use ntff::Capture;
pub use ntff_error::NtffError;
pub use read::{Metadata, Profile, ReadLimits};
pub use row_stream::{DmaView, InstructionView, RowSink, SemaphoreView, ThrottleView};
pub use rows::{DmaTransfer, SemaphoreUpdate, ThrottleRow};
pub use stream::{LoadedStream, RuntimeSegment};
pub use summary::{EngineTime, QueueTime, SubgraphSummary, SummaryBuilder};
pub use time::{TimeBase, TimeOrigin};
pub use trace::{BufferKind, Record, TraceBuffer};
