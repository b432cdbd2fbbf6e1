//! The bytes of one member the streaming scan keeps (decision D391): a buffer of the size the
//! member's tar header declared, filled in order as the inflated stream goes by.
//!
//! A large member lives in an anonymous mapping whose pages the kernel fills a few MiB at a time
//! (`MADV_POPULATE_WRITE`, just ahead of the bytes being copied in) instead of one page fault per
//! 4 KiB at the first write: on this project's VMs first-touch faults are the largest cost of
//! holding engine streams (0.16-0.20 s of system time for issue 20's 192 MB), and populating the
//! same pages costs about a third less (D389's measurement, repeated in D391). Populating in
//! steps, not the whole member at once, keeps the reader taking the inflater's windows at an even
//! pace. Small members stay in a `Vec`, where a mapping's system calls would cost more than the
//! faults they save.

use std::ops::Deref;

use memmap2::{Advice, MmapMut, MmapOptions};

use crate::error::ContainerError;

/// Members of at least this many bytes are held in a populated mapping (below it, a `Vec`).
pub(crate) const MAPPED_MIN: usize = 1 << 20;

/// Bytes of a mapping populated per call: ~1 ms of the kernel's work, about as long as the
/// inflater takes to fill its windows.
const POPULATE_STEP: usize = 2 << 20;

/// A member's bytes: as much of its declared size as has been received.
pub(crate) enum KeptBytes {
    /// A small member, reserved at its declared size.
    Heap(Vec<u8>),
    /// A large member: the mapping, the bytes received (`len`), and how much of the mapping is
    /// populated (all of it once populating failed once: the remaining pages then fault in as
    /// they are written).
    Mapped {
        map: MmapMut,
        len: usize,
        populated: usize,
    },
}

/// An empty `Vec` with room for `size` bytes (sizes were checked against the limits; the
/// allocator may still refuse, which is [`ContainerError::OutOfMemory`], never an abort).
pub(crate) fn reserve(size: u64) -> Result<Vec<u8>, ContainerError> {
    let oom = || ContainerError::OutOfMemory { bytes: size };
    let n = usize::try_from(size).map_err(|_| oom())?;
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| oom())?;
    Ok(v)
}

impl KeptBytes {
    /// Room for `size` bytes (checked against the limits before this is called); a mapping only
    /// when `map` allows one (`ReadOptions::map_memory`, D780). An allocation the system refuses
    /// is [`ContainerError::OutOfMemory`], never an abort.
    pub(crate) fn with_size(size: u64, map: bool) -> Result<KeptBytes, ContainerError> {
        let oom = || ContainerError::OutOfMemory { bytes: size };
        let n = usize::try_from(size).map_err(|_| oom())?;
        if !map || n < MAPPED_MIN {
            return reserve(size).map(KeptBytes::Heap);
        }
        let map = MmapOptions::new().len(n).map_anon().map_err(|_| oom())?;
        Ok(KeptBytes::Mapped {
            map,
            len: 0,
            populated: 0,
        })
    }

    /// Appends the next bytes of the member. The tar reader never feeds more than the declared
    /// size; more would be a bug there, so it panics rather than grow.
    pub(crate) fn extend_from_slice(&mut self, bytes: &[u8]) {
        match self {
            KeptBytes::Heap(v) => {
                assert!(v.len() + bytes.len() <= v.capacity(), "member overrun");
                v.extend_from_slice(bytes);
            }
            KeptBytes::Mapped {
                map,
                len,
                populated,
            } => {
                let end = *len + bytes.len();
                if end > *populated {
                    let to = end.max(*populated + POPULATE_STEP).min(map.len());
                    let advised =
                        map.advise_range(Advice::PopulateWrite, *populated, to - *populated);
                    *populated = if advised.is_ok() { to } else { map.len() };
                }
                map[*len..end].copy_from_slice(bytes);
                *len = end;
            }
        }
    }
}

impl Deref for KeptBytes {
    type Target = [u8];

    /// The bytes received so far (all of them once the member is complete).
    fn deref(&self) -> &[u8] {
        match self {
            KeptBytes::Heap(v) => v,
            KeptBytes::Mapped { map, len, .. } => &map[..*len],
        }
    }
}

impl std::fmt::Debug for KeptBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeptBytes")
            .field("len", &self.len())
            .field("mapped", &matches!(self, KeptBytes::Mapped { .. }))
            .finish()
    }
}

impl PartialEq for KeptBytes {
    fn eq(&self, other: &KeptBytes) -> bool {
        **self == **other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both storages give back exactly the bytes fed, in pieces of any size.
    #[test]
    fn heap_and_mapped_hold_what_was_fed() {
        for size in [
            0usize,
            1,
            4095,
            MAPPED_MIN - 1,
            MAPPED_MIN,
            MAPPED_MIN + 4097,
        ] {
            let want: Vec<u8> = (0..size).map(|i| (i * 7 + i / 251) as u8).collect();
            for map in [true, false] {
                let mut k = KeptBytes::with_size(size as u64, map).unwrap();
                for piece in want.chunks(1000) {
                    k.extend_from_slice(piece);
                }
                assert_eq!(&*k, &want[..], "size {size}, map {map}");
                // Without `map_memory` nothing is mapped, however large (D780).
                assert_eq!(
                    matches!(k, KeptBytes::Mapped { .. }),
                    map && size >= MAPPED_MIN,
                    "size {size}, map {map}"
                );
            }
        }
    }

    /// A part-filled buffer shows only what arrived (a truncated member's bytes so far).
    #[test]
    fn a_partial_member_shows_its_prefix() {
        let mut k = KeptBytes::with_size(3 * MAPPED_MIN as u64, true).unwrap();
        k.extend_from_slice(b"abc");
        assert_eq!(&*k, b"abc");
    }

    /// A size no address space holds is an error, not an abort.
    #[test]
    fn an_impossible_size_is_out_of_memory() {
        let e = KeptBytes::with_size(u64::MAX / 2, true).unwrap_err();
        assert!(matches!(e, ContainerError::OutOfMemory { .. }), "{e:?}");
    }
}
