//! The NEFF file container (spec 004 §1 "The Staging Model"; reference §1, §2, §9b): the
//! 1024-byte little-endian header followed by a gzip-compressed POSIX tar package.
//!
//! Read with [`Neff::parse`] (zero-copy members over one inflated buffer) or stream through it
//! with [`scan()`] (a small window, limits applied per header, chosen members kept), write with
//! [`NeffBuilder`] (deterministic, compiler-shaped), edit by [`NeffBuilder::from_neff`], extract
//! with [`extract()`], write files with [`write_atomic`].
//!
//! # What the container asks of its host, and how to decline
//!
//! * **A second thread.** [`Neff::parse_with`] and [`scan()`] hash and CRC on a helper thread
//!   beside the inflater (D112, D380); [`ReadOptions::threads`] `= false` keeps everything on the
//!   caller's thread. Nothing else in the crate spawns.
//! * **Anonymous mappings.** [`scan()`] keeps a member of 1 MiB or more in a populated anonymous
//!   mapping (D391); [`ReadOptions::map_memory`] `= false` keeps it on the heap. No file is
//!   ever mapped.
//! * **Temporary files.** Only [`write_atomic`] (and [`NeffBuilder::write_to`] and [`extract()`],
//!   which use it) creates one, in the destination's own folder, renamed over the target;
//!   [`NeffBuilder::build`] returns the bytes for a caller who writes them itself.
//!
//! Either choice gives the same bytes, members and hash status (decision D780).
//!
//! ```
//! use neff_container::{Neff, NeffBuilder};
//! let mut b = NeffBuilder::new();
//! b.add("kelf-0.json", &b"{}"[..]).unwrap();
//! let bytes = b.build().unwrap();
//! let neff = Neff::parse(&bytes).unwrap();
//! assert_eq!(neff.member("kelf-0.json"), Some(&b"{}"[..]));
//! assert!(neff.hash_status().is_ok());
//! ```

mod atomic;
mod error;
mod extract;
mod feature_bits;
mod gzip_stream;
pub mod hash;
mod header;
mod header_json;
mod inflate;
mod kept_bytes;
mod limit_watch;
mod limits;
mod member;
mod neff;
mod read_pipeline;
mod scan;
mod tar_read;
mod tar_stream;
mod tar_write;
mod writer;

pub use atomic::write_atomic;
pub use error::ContainerError;
pub use extract::{ExtractOptions, extract};
pub use feature_bits::{FeatureBit, FeatureBits, KNOWN_FEATURE_BITS};
pub use hash::HashStatus;
pub use header::{FixedText, HEADER_SIZE, Header, PAD_LEN, PKG_VERSION_MD5, PKG_VERSION_SHA256};
pub use limits::{LimitKind, Limits};
pub use member::Member;
pub use neff::{IDENTIFY_LEN, Neff, ReadOptions, is_neff};
pub use scan::{SCAN_WINDOW, Scan, ScannedMember, scan};
pub use writer::{MemberOrder, NeffBuilder, PAYLOAD_ALIGN};
