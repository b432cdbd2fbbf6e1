//! The on-chip memories of one NeuronCore: SBUF (128 partitions) and PSUM (128 partitions of
//! fp32 accumulators), addressed as the ADDR4 operands address them (reference §4.6: bit 25
//! selects PSUM; below it partition `addr >> 18`, byte offset `addr & 0x3FFFF`; decision D130).

use std::cell::RefCell;

use neff_isa::Dtype;
use neff_isa::layout::{PARTITION_SHIFT, PSUM_BIT};

/// Partitions of SBUF and PSUM.
pub const PARTITIONS: usize = 128;

/// SBUF bytes per partition the model holds: the partition stride of the address space
/// (0x40000, the DMA `to_steps` of reference §3.3), so every address an ADDR4 can name below
/// the next partition is backed (decision D482).
pub const SBUF_PARTITION_BYTES: usize = 1 << PARTITION_SHIFT;

/// PSUM bytes per partition: 16 KiB (8 banks of 2 KiB; the highest PSUM byte the corpus
/// touches is 0x3FFF, decision D482).
pub const PSUM_PARTITION_BYTES: usize = 16 * 1024;

/// Which memory an ADDR4 names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Space {
    /// The state buffer.
    Sbuf,
    /// The matmul accumulators.
    Psum,
}

impl Space {
    /// Bytes per partition.
    pub(crate) fn partition_bytes(self) -> usize {
        match self {
            Space::Sbuf => SBUF_PARTITION_BYTES,
            Space::Psum => PSUM_PARTITION_BYTES,
        }
    }

    /// `sbuf` / `psum`.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Space::Sbuf => "SBUF",
            Space::Psum => "PSUM",
        }
    }
}

/// An ADDR4 split into memory, partition and byte offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Addr {
    /// SBUF or PSUM.
    pub(crate) space: Space,
    /// The first partition.
    pub(crate) partition: usize,
    /// Byte offset in the partition.
    pub(crate) offset: usize,
}

impl Addr {
    /// Splits an immediate ADDR4 (`PARTITION_OFFSET`).
    pub(crate) fn of(addr: u32) -> Self {
        let space = if addr & PSUM_BIT != 0 {
            Space::Psum
        } else {
            Space::Sbuf
        };
        let a = addr & !PSUM_BIT;
        Self {
            space,
            partition: (a >> PARTITION_SHIFT) as usize,
            offset: (a & ((1 << PARTITION_SHIFT) - 1)) as usize,
        }
    }
}

/// A memory an instruction touches: the core's SBUF or PSUM, or a DRAM buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Mem {
    /// SBUF (flat, partition-major).
    Sbuf,
    /// PSUM (flat, partition-major).
    Psum,
    /// DRAM buffer `i` ([`super::hbm::Hbm::buffers`]).
    Dram(usize),
}

impl From<Space> for Mem {
    fn from(s: Space) -> Self {
        match s {
            Space::Sbuf => Mem::Sbuf,
            Space::Psum => Mem::Psum,
        }
    }
}

/// One run of bytes an instruction read or wrote: what the race detector and the tracer see
/// ([`super::race`], [`super::trace`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Touch {
    /// The memory.
    pub(crate) mem: Mem,
    /// The first byte (flat index in the memory).
    pub(crate) start: usize,
    /// Bytes.
    pub(crate) len: usize,
    /// A write (else a read).
    pub(crate) write: bool,
    /// The element type of the access.
    pub(crate) dtype: Dtype,
}

/// The touches of the instruction executing, when a run records them (interior mutability:
/// the operands' readers hold the memory shared).
#[derive(Debug, Default)]
pub(crate) struct Touches(Option<RefCell<Vec<Touch>>>);

impl Touches {
    /// A log that records.
    pub(crate) fn recording() -> Self {
        Self(Some(RefCell::new(Vec::new())))
    }

    /// Whether touches are recorded.
    pub(crate) fn on(&self) -> bool {
        self.0.is_some()
    }

    /// Records the runs `runs` (byte ranges, sorted or not) of `mem`.
    pub(crate) fn record(
        &self,
        mem: Mem,
        write: bool,
        dtype: Dtype,
        runs: impl IntoIterator<Item = (usize, usize)>,
    ) {
        if let Some(log) = &self.0 {
            let mut log = log.borrow_mut();
            log.extend(
                runs.into_iter()
                    .filter(|r| r.1 > 0)
                    .map(|(start, len)| Touch {
                        mem,
                        start,
                        len,
                        write,
                        dtype,
                    }),
            );
        }
    }

    /// The touches recorded since the last call.
    #[cfg(test)]
    pub(crate) fn take(&self) -> Vec<Touch> {
        let mut v = Vec::new();
        self.swap_into(&mut v);
        v
    }

    /// Moves the touches recorded since the last call into `buf` (cleared first), leaving
    /// `buf`'s old storage to the log: the run loop passes one buffer back and forth, so a
    /// 128-partition operand's touches do not grow a fresh vector each slot (D824).
    pub(crate) fn swap_into(&self, buf: &mut Vec<Touch>) {
        buf.clear();
        if let Some(l) = &self.0 {
            std::mem::swap(&mut *l.borrow_mut(), buf);
        }
    }
}

/// Sorts `runs` (start, len) and merges the overlapping and adjacent ones.
pub(crate) fn coalesce(runs: &mut Vec<(usize, usize)>) {
    if runs.windows(2).any(|w| w[1].0 < w[0].0) {
        runs.sort_unstable();
    }
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(runs.len().min(1024));
    for &(s, l) in runs.iter() {
        match out.last_mut() {
            Some(last) if s <= last.0 + last.1 => last.1 = last.1.max(s + l - last.0),
            _ => out.push((s, l)),
        }
    }
    *runs = out;
}

/// SBUF and PSUM of one core, zero at the start of a run.
pub(crate) struct OnChip {
    /// SBUF, partition-major (partition `p` at `p * SBUF_PARTITION_BYTES`): the flat form a
    /// DMA's `SB` var offsets address (partition stride 0x40000).
    pub(crate) sbuf: Vec<u8>,
    /// PSUM, partition-major.
    pub(crate) psum: Vec<u8>,
    /// The bytes the executing instruction touched (SBUF, PSUM and, for a DMA, DRAM).
    pub(crate) touches: Touches,
}

impl Default for OnChip {
    fn default() -> Self {
        Self {
            sbuf: vec![0; PARTITIONS * SBUF_PARTITION_BYTES],
            psum: vec![0; PARTITIONS * PSUM_PARTITION_BYTES],
            touches: Touches::default(),
        }
    }
}

impl OnChip {
    /// The bytes of `space`.
    pub(crate) fn bytes(&self, space: Space) -> &[u8] {
        match space {
            Space::Sbuf => &self.sbuf,
            Space::Psum => &self.psum,
        }
    }

    /// The bytes of `space`, writable.
    pub(crate) fn bytes_mut(&mut self, space: Space) -> &mut [u8] {
        match space {
            Space::Sbuf => &mut self.sbuf,
            Space::Psum => &mut self.psum,
        }
    }
}
