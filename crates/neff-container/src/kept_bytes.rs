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

/// A member's bytes: `len` of its declared size received so far.
pub(crate) struct KeptBytes {
    storage: Storage,
    len: usize,
}

enum Storage {
    Heap(Vec<u8>),
    /// The mapping, and how much of it is populated (all of it once populating failed once:
    /// the remaining pages then fault in as they are written).
    Mapped(MmapMut, usize),
}

impl KeptBytes {
    /// Room for `size` bytes (checked against the limits before this is called). An allocation
    /// the system refuses is [`ContainerError::OutOfMemory`], never an abort.
    pub(crate) fn with_size(size: u64) -> Result<KeptBytes, ContainerError> {
        let oom = || ContainerError::OutOfMemory { bytes: size };
        let n = usize::try_from(size).map_err(|_| oom())?;
        let storage = if n >= MAPPED_MIN {
            Storage::Mapped(MmapOptions::new().len(n).map_anon().map_err(|_| oom())?, 0)
        } else {
            let mut v = Vec::new();
            v.try_reserve_exact(n).map_err(|_| oom())?;
            Storage::Heap(v)
        };
        Ok(KeptBytes { storage, len: 0 })
    }

    /// Appends the next bytes of the member. The tar reader never feeds more than the declared
    /// size; more would be a bug there, so it panics rather than grow.
    pub(crate) fn extend_from_slice(&mut self, bytes: &[u8]) {
        match &mut self.storage {
            Storage::Heap(v) => {
                assert!(v.len() + bytes.len() <= v.capacity(), "member overrun");
                v.extend_from_slice(bytes);
            }
            Storage::Mapped(m, populated) => {
                let end = self.len + bytes.len();
                if end > *populated {
                    let to = end.max(*populated + POPULATE_STEP).min(m.len());
                    *populated =
                        match m.advise_range(Advice::PopulateWrite, *populated, to - *populated) {
                            Ok(()) => to,
                            Err(_) => m.len(),
                        };
                }
                m[self.len..end].copy_from_slice(bytes);
            }
        }
        self.len += bytes.len();
    }
}

impl Deref for KeptBytes {
    type Target = [u8];

    /// The bytes received so far (all of them once the member is complete).
    fn deref(&self) -> &[u8] {
        match &self.storage {
            Storage::Heap(v) => v,
            Storage::Mapped(m, _) => &m[..self.len],
        }
    }
}

impl std::fmt::Debug for KeptBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeptBytes")
            .field("len", &self.len)
            .field("mapped", &matches!(self.storage, Storage::Mapped(..)))
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
            let mut k = KeptBytes::with_size(size as u64).unwrap();
            for piece in want.chunks(1000) {
                k.extend_from_slice(piece);
            }
            assert_eq!(&*k, &want[..], "size {size}");
            assert_eq!(
                matches!(k.storage, Storage::Mapped(..)),
                size >= MAPPED_MIN,
                "size {size}"
            );
        }
    }

    /// A part-filled buffer shows only what arrived (a truncated member's bytes so far).
    #[test]
    fn a_partial_member_shows_its_prefix() {
        let mut k = KeptBytes::with_size(3 * MAPPED_MIN as u64).unwrap();
        k.extend_from_slice(b"abc");
        assert_eq!(&*k, b"abc");
    }

    /// A size no address space holds is an error, not an abort.
    #[test]
    fn an_impossible_size_is_out_of_memory() {
        let e = KeptBytes::with_size(u64::MAX / 2).unwrap_err();
        assert!(matches!(e, ContainerError::OutOfMemory { .. }), "{e:?}");
    }
}
