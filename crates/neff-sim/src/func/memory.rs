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

/// Bytes of padding the model keeps after each partition's storage (never addressed): with
/// partitions a power of two apart (256 KiB, 16 KiB), the 128 elements of a per-partition column
/// share one set of every cache and the store buffer's 4 KiB alias check, and each access misses;
/// one page and one cache line more puts each partition's element in a set of its own (D828).
pub(crate) const PARTITION_PAD: usize = 4096 + 64;

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

    /// Bytes from one partition's storage to the next's in the model's memory: the partition
    /// size and [`PARTITION_PAD`] (D828).
    pub(crate) fn stride(self) -> usize {
        self.partition_bytes() + PARTITION_PAD
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

/// Runs of bytes an instruction read or wrote (one, or a per-partition column's): what the race detector and the tracer see
/// ([`super::race`], [`super::trace`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Touch {
    /// The memory.
    pub(crate) mem: Mem,
    /// The first byte (flat index in the memory; for SBUF and PSUM the address space's).
    pub(crate) start: usize,
    /// Bytes.
    pub(crate) len: usize,
    /// Runs: `len` bytes at `start + i * stride` for `i` below `count` (1 but for a
    /// per-partition column, one run per partition recorded as one touch, D829).
    pub(crate) count: usize,
    /// Bytes from one run to the next (when `count` > 1).
    pub(crate) stride: usize,
    /// A write (else a read).
    pub(crate) write: bool,
    /// The element type of the access.
    pub(crate) dtype: Dtype,
}

impl Touch {
    /// The runs `(start, end)`, in order.
    pub(crate) fn runs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..self.count).map(|i| {
            let s = self.start + i * self.stride;
            (s, s + self.len)
        })
    }
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
                        count: 1,
                        stride: 0,
                        write,
                        dtype,
                    }),
            );
        }
    }

    /// Records `count` runs of `len` bytes of `mem`, `stride` apart from `start` (a
    /// per-partition column) as one touch: one entry, not one per partition (D829).
    pub(crate) fn record_strided(&self, mem: Mem, write: bool, dtype: Dtype, run: [usize; 4]) {
        let [start, len, count, stride] = run;
        if let Some(log) = &self.0
            && len > 0
            && count > 0
        {
            log.borrow_mut().push(Touch {
                mem,
                start,
                len,
                count,
                stride,
                write,
                dtype,
            });
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

/// Sorts `runs` (start, len) and merges the overlapping and adjacent ones, in place (no second
/// vector: an operand's walk calls this for every slot, D827).
pub(crate) fn coalesce(runs: &mut Vec<(usize, usize)>) {
    if runs.windows(2).any(|w| w[1].0 < w[0].0) {
        runs.sort_unstable();
    }
    let mut k = 0usize;
    for i in 0..runs.len() {
        let (s, l) = runs[i];
        match k.checked_sub(1).map(|j| &mut runs[j]) {
            Some(last) if s <= last.0 + last.1 => last.1 = last.1.max(s + l - last.0),
            _ => {
                runs[k] = (s, l);
                k += 1;
            }
        }
    }
    runs.truncate(k);
}

/// SBUF and PSUM of one core, zero at the start of a run.
///
/// Two flat forms: the address space's (partition `p` at `p * SBUF_PARTITION_BYTES`, the form a
/// DMA's `SB` var offsets address and every [`Touch`] records) and the storage's (partition `p`
/// at `p * Space::stride()`, padded, D828). [`Self::flat_pieces`] maps the first to the second.
pub(crate) struct OnChip {
    /// SBUF storage, partition-major, `Space::Sbuf.stride()` bytes per partition.
    pub(crate) sbuf: Backing,
    /// PSUM storage, partition-major, `Space::Psum.stride()` bytes per partition.
    pub(crate) psum: Backing,
    /// The bytes the executing instruction touched (SBUF, PSUM and, for a DMA, DRAM).
    pub(crate) touches: Touches,
}

impl Default for OnChip {
    /// SBUF and PSUM in vectors (4 KiB pages mapped on first touch): the unit tests' memories.
    fn default() -> Self {
        Self::new(false)
    }
}

impl OnChip {
    /// Zeroed SBUF and PSUM; `huge_pages` as [`super::RunOptions::huge_pages`] (D825).
    pub(crate) fn new(huge_pages: bool) -> Self {
        Self {
            sbuf: Backing::zeroed(PARTITIONS * Space::Sbuf.stride(), huge_pages),
            psum: Backing::zeroed(PARTITIONS * Space::Psum.stride(), huge_pages),
            touches: Touches::default(),
        }
    }
}

/// The size of a transparent huge page on x86-64 Linux (2 MiB; the granule `MADV_HUGEPAGE`
/// ranges are backed in).
const HUGE_PAGE: usize = 2 << 20;

/// The zeroed storage of an on-chip memory.
pub(crate) enum Backing {
    /// A vector: the kernel maps each 4 KiB page on first touch.
    Heap(Vec<u8>),
    /// An anonymous mapping advised to take transparent huge pages, already faulted in; the
    /// memory is `map[at..at + len]` (`at` 2 MiB aligned).
    Mapped {
        /// The mapping (2 MiB longer than the memory rounded up to 2 MiB, for the alignment).
        map: memmap2::MmapMut,
        /// The memory's first byte in `map`.
        at: usize,
        /// The memory's bytes.
        len: usize,
    },
}

impl Backing {
    /// `len` zero bytes. With `huge` (D825), on Linux: an anonymous mapping, its 2 MiB-aligned
    /// part advised `MADV_HUGEPAGE` and faulted in here by a write of each 2 MiB page's first
    /// byte: SBUF is 17 faults at the start of the run rather than one per 4 KiB page an op or
    /// a DMA touches first (~1.4 us each in this sandbox, D822). When the mapping or the advice
    /// is refused (not Linux, THP compiled out) the memory is a vector; when the kernel gives
    /// 4 KiB pages anyway (THP `never`, no free 2 MiB block) the writes fault 17 of them and
    /// the rest fault on first touch, as a vector's do.
    pub(crate) fn zeroed(len: usize, huge: bool) -> Self {
        if huge && let Some(b) = Self::huge(len) {
            return b;
        }
        Backing::Heap(vec![0; len])
    }

    #[cfg(target_os = "linux")]
    fn huge(len: usize) -> Option<Self> {
        use memmap2::{Advice, MmapOptions};
        let whole = len.div_ceil(HUGE_PAGE) * HUGE_PAGE;
        let mut map = MmapOptions::new()
            .len(whole.checked_add(HUGE_PAGE)?)
            .map_anon()
            .ok()?;
        let at = (HUGE_PAGE - map.as_ptr() as usize % HUGE_PAGE) % HUGE_PAGE;
        map.advise_range(Advice::HugePage, at, whole).ok()?;
        // The stores are to memory the compiler knows nothing of (the kernel's mapping), so
        // they stay; each faults in its 2 MiB page (zeroed by the kernel).
        for i in (at..at + whole).step_by(HUGE_PAGE) {
            map[i] = 0;
        }
        Some(Backing::Mapped { map, at, len })
    }

    #[cfg(not(target_os = "linux"))]
    fn huge(_len: usize) -> Option<Self> {
        None
    }
}

impl std::ops::Deref for Backing {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Backing::Heap(v) => v,
            Backing::Mapped { map, at, len } => &map[*at..*at + *len],
        }
    }
}

impl std::ops::DerefMut for Backing {
    fn deref_mut(&mut self) -> &mut [u8] {
        match self {
            Backing::Heap(v) => v,
            Backing::Mapped { map, at, len } => &mut map[*at..*at + *len],
        }
    }
}

#[cfg(test)]
impl PartialEq for Backing {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
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

    /// The storage pieces `(index, len)` of the address-space run `start..start + len` of
    /// `space` (split where it crosses into the next partition), or `None` when the run ends
    /// past the last partition.
    pub(crate) fn flat_pieces(
        space: Space,
        start: usize,
        len: usize,
    ) -> Option<impl Iterator<Item = (usize, usize)>> {
        let part = space.partition_bytes();
        if start.checked_add(len)? > PARTITIONS * part {
            return None;
        }
        let (mut at, end) = (start, start + len);
        Some(std::iter::from_fn(move || {
            if at >= end {
                return None;
            }
            let (p, o) = (at / part, at % part);
            let n = (part - o).min(end - at);
            at += n;
            Some((p * space.stride() + o, n))
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An address-space run inside a partition is one storage piece; one across a partition's
    /// end is two, the second at the next partition's padded start (D828); one past the last
    /// partition is refused.
    #[test]
    fn flat_runs_map_to_padded_storage() {
        let pieces = |space, o, n| OnChip::flat_pieces(space, o, n).map(|p| p.collect::<Vec<_>>());
        let (sb, ps) = (Space::Sbuf.stride(), Space::Psum.stride());
        assert_eq!(pieces(Space::Sbuf, 0x10, 8), Some(vec![(0x10, 8)]));
        assert_eq!(
            pieces(Space::Sbuf, 0x4_0000 + 0x20, 4),
            Some(vec![(sb + 0x20, 4)])
        );
        assert_eq!(
            pieces(Space::Sbuf, 0x3_fffe, 0x4_0004),
            Some(vec![(0x3_fffe, 2), (sb, 0x4_0000), (2 * sb, 2)])
        );
        assert_eq!(
            pieces(Space::Psum, 0x3ffc, 8),
            Some(vec![(0x3ffc, 4), (ps, 4)])
        );
        let end = PARTITIONS * SBUF_PARTITION_BYTES;
        assert_eq!(
            pieces(Space::Sbuf, end - 4, 4),
            Some(vec![(127 * sb + 0x3_fffc, 4)])
        );
        assert_eq!(pieces(Space::Sbuf, end - 4, 5), None);
        assert_eq!(pieces(Space::Sbuf, usize::MAX, 2), None);
        assert_eq!(pieces(Space::Sbuf, 0, 0), Some(vec![]));
    }

    /// Huge-page storage and a vector hold the same zeroed bytes, and the storage is as long
    /// as asked whichever it is (D825).
    #[test]
    fn both_storages_are_zeroed_and_sized() {
        for huge in [false, true] {
            let len = 3 * HUGE_PAGE + 12_345;
            let mut b = Backing::zeroed(len, huge);
            assert_eq!(b.len(), len);
            assert!(b.iter().step_by(4093).all(|&x| x == 0));
            b[len - 1] = 7;
            assert_eq!(b[len - 1], 7);
        }
    }
}
