//! `neff scan`: one row per NEFF over folders of them — the questions a compile cache raises
//! ("which NEFFs were built by compiler X", "which fail to load", "how much DMA does each kernel
//! describe") answered in one pass (issue 19).
//!
//! * [`scan_bytes`] / [`scan_file`]: one file -> one [`ScanRow`] (header fields, compiler
//!   build, target, subgraphs, per-engine instruction counts, opcode histogram, DMA queues and
//!   the bytes their descriptors describe, the runtime load's result). A broken or hostile file
//!   is a row with its error ([`Stage`] and message), never a panic.
//! * [`expand_paths`]: folders (recursive, `*.neff`), globs and files -> the files to scan.
//! * [`scan_files_ordered`]: many files on a rayon pool, rows in input order, bounded memory.
//! * [`jsonl`] and (feature `parquet`) [`parquet`]: the two row formats of docs/json.md.
//!
//! ```
//! use neff_scan::{ScanOptions, scan_bytes};
//! let sample = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sample.neff")).unwrap();
//! let row = scan_bytes("sample.neff", &sample, &ScanOptions::default());
//! assert!(row.load_ok, "{:?}", row.error);
//! assert_eq!((row.target.as_deref(), row.instr_pool), (Some("sunda"), Some(3)));
//! let broken = scan_bytes("cut.neff", &sample[..600], &ScanOptions::default());
//! assert_eq!(broken.error_stage.map(|s| s.name()), Some("header"));
//! ```

mod capture_row;
mod histogram;
pub mod jsonl;
mod options;
mod ordered;
#[cfg(feature = "parquet")]
pub mod parquet;
mod row;
mod scan_one;
mod stage_times;
mod walk;

pub use histogram::OpcodeHistogram;
pub use options::ScanOptions;
pub use ordered::{ParallelOptions, ScanError, WORKER_THREAD_PREFIX, scan_files_ordered};
pub use row::{DmaQueueRow, OpcodeCount, RowKind, ScanRow, Stage};
pub use scan_one::{scan_bytes, scan_bytes_timed, scan_file};
pub use stage_times::StageTimes;
pub use walk::{WalkError, expand_paths};
