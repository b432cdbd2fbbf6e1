//! The contiguous runs a transfer moves (decision D810): the shared DMA path starts a burst's
//! records about 1 ns per run of 256 bytes or more apart beyond their bytes, and 7-9 ns per run
//! of at most 8 bytes (`scripts/dma_bursts.py` on the shared captures), so a transfer's cost
//! on the path counts its runs, not only its bytes.

use neff_lower::{DescriptorEnd, GeneratedDescriptor};

/// How a transfer's bytes are cut into contiguous pieces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Runs {
    /// Contiguous pieces (at least 1).
    pub count: u64,
    /// Bytes of each piece (the transfer's bytes over `count`, rounded down).
    pub bytes: u64,
}

impl Runs {
    /// `bytes` cut into `count` equal runs (`count` at least 1).
    fn new(bytes: u64, count: u64) -> Self {
        let count = count.max(1);
        Self {
            count,
            bytes: bytes / count,
        }
    }

    /// `take` of a static block's `ndesc` descriptors, moving `bytes` between them, when the
    /// whole block moves `runs` pieces (decision D836): their share of the pieces, at least one.
    pub fn of_block(bytes: u64, runs: u64, take: u32, ndesc: u32) -> Self {
        let share = u128::from(runs) * u128::from(take) / u128::from(ndesc.max(1));
        Self::new(bytes, u64::try_from(share).unwrap_or(u64::MAX))
    }

    /// The runs of a DIRECT2D: each end's pattern cut where its addresses jump, the transfer
    /// cut as finely as its finer end (a gather into partitions has one run per partition row
    /// whatever its source does).
    pub fn of_direct2d(d: &GeneratedDescriptor) -> Self {
        Self::new(d.dst.bytes(), end_runs(&d.src).max(end_runs(&d.dst)))
    }
}

/// The contiguous pieces of one end: its element (`elem_size` bytes) repeated over its two
/// dimensions, element counts stepped in bytes (reference §4.5), read as a pattern of
/// [`neff_kelf::pattern_pieces`] (a count of 0 read as 1).
fn end_runs(e: &DescriptorEnd) -> u64 {
    let [n0, n1] = e.nums.map(|n| u64::from(n).max(1));
    let [s0, s1] = e.steps.map(i64::from);
    neff_kelf::pattern_pieces(&[u64::from(e.elem_size), n0, n1], &[1, s0, s1]).unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn end(elem: u16, steps: [u32; 2], nums: [u16; 2]) -> DescriptorEnd {
        DescriptorEnd {
            var_id: 0,
            offset: 0,
            offset_reg: None,
            steps,
            nums,
            elem_size: elem,
            dtype: 0,
        }
    }

    fn d2d(src: DescriptorEnd, dst: DescriptorEnd) -> GeneratedDescriptor {
        GeneratedDescriptor {
            source_slot: 0,
            queue: 0,
            ring: 0,
            tail_addr: 0,
            src,
            dst,
            semaphore: 0,
            sem_increment: 16,
        }
    }

    /// The shared NEFFs' shapes (patterns as `neff disasm` prints them, `[steps][nums]`).
    #[test]
    fn runs_of_the_shared_neffs_direct2d_shapes() {
        let partitions = || end(256, [262_144, 1], [128, 1]);
        // (what, source, destination, runs, bytes a run)
        let cases = [
            (
                "attn_v6 / moe: 256-byte rows 4 KiB apart into 128 partitions",
                end(256, [4096, 1], [128, 1]),
                partitions(),
                128,
                256,
            ),
            (
                "baseline: one contiguous 256 KiB source into 128 partitions of 2 KiB",
                end(2048, [2048, 1], [128, 1]),
                end(2048, [262_144, 1], [128, 1]),
                128,
                2048,
            ),
            (
                "attn_v6 SP: one 8-byte element broadcast (step 0) to 128 partitions",
                end(8, [0, 1], [128, 1]),
                end(8, [262_144, 1], [128, 1]),
                128,
                8,
            ),
            (
                "baseline's store: two adjacent 2 KiB elements a partition, each its own piece \
                 on the DRAM side",
                end(2048, [2048, 262_144], [2, 128]),
                end(2048, [262_144, 2048], [2, 128]),
                256,
                2048,
            ),
            (
                "a fully contiguous copy",
                end(4, [4, 512], [128, 2]),
                end(4, [4, 512], [128, 2]),
                1,
                1024,
            ),
        ];
        for (what, src, dst, count, bytes) in cases {
            assert_eq!(
                Runs::of_direct2d(&d2d(src, dst)),
                Runs { count, bytes },
                "{what}"
            );
        }
    }
}
