//! The on-chip memories of one NeuronCore: SBUF (128 partitions) and PSUM (128 partitions of
//! fp32 accumulators), addressed as the ADDR4 operands address them (reference §4.6: bit 25
//! selects PSUM; below it partition `addr >> 18`, byte offset `addr & 0x3FFFF`; decision D130).

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

/// SBUF and PSUM of one core, zero at the start of a run.
pub(crate) struct OnChip {
    /// SBUF, partition-major (partition `p` at `p * SBUF_PARTITION_BYTES`): the flat form a
    /// DMA's `SB` var offsets address (partition stride 0x40000).
    pub(crate) sbuf: Vec<u8>,
    /// PSUM, partition-major.
    pub(crate) psum: Vec<u8>,
}

impl Default for OnChip {
    fn default() -> Self {
        Self {
            sbuf: vec![0; PARTITIONS * SBUF_PARTITION_BYTES],
            psum: vec![0; PARTITIONS * PSUM_PARTITION_BYTES],
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
