//! The slots of an image a run may still have to show after the image is gone (D834).
//!
//! A program compiled from a viewing load's images ([`crate::compile_views`]) outlives them: the
//! views borrow the package, which is freed before the run. Two readers of an image's bytes come
//! after decoding: the slices' disassembly (`SimOptions::slice_text`, the trace), which shows every
//! instruction, so then every record is kept; and the deadlock report, which shows the instruction
//! each blocked engine stopped at. An engine stops only at an op whose wait does not hold
//! (`Machine::step`), so otherwise the records of the ops with a wait are the only ones kept: on the
//! real-shaped conv2d about 22,100 of the 176,000 source slots carry one (`neff disasm`).

use neff_isa::SLOT_BYTES;

/// Records per chunk of [`KeptSlots`] (64 KiB).
const CHUNK: usize = 1024;

/// The 64-byte records of some ops of one image, by op index (ascending). The records are stored
/// in chunks of [`CHUNK`], never reallocated: a growing `Vec` would hold up to twice the records
/// while it grows, and this is built while the package is still held, at the run's peak (D834).
#[derive(Debug, Clone, Default)]
pub struct KeptSlots {
    /// The op indices, ascending.
    at: Vec<u32>,
    /// Their records, in the same order, [`CHUNK`] per chunk.
    chunks: Vec<Vec<[u8; SLOT_BYTES]>>,
}

impl KeptSlots {
    /// Keeps `record`, the record of op `i` (ops are pushed in ascending order). A record that is
    /// not 64 bytes long, or an index past `u32`, is not kept (no slot is shown for it).
    pub(crate) fn push(&mut self, i: usize, record: &[u8]) {
        let (Ok(i), Ok(r)) = (u32::try_from(i), <[u8; SLOT_BYTES]>::try_from(record)) else {
            return;
        };
        if self.chunks.last().is_none_or(|c| c.len() == CHUNK) {
            self.chunks.push(Vec::with_capacity(CHUNK));
        }
        if let Some(c) = self.chunks.last_mut() {
            c.push(r);
            self.at.push(i);
        }
    }

    /// The record of op `i`, if it was kept.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        let i = u32::try_from(i).ok()?;
        let k = self.at.binary_search(&i).ok()?;
        self.chunks.get(k / CHUNK)?.get(k % CHUNK).map(|r| &r[..])
    }

    /// How many records are kept.
    pub fn len(&self) -> usize {
        self.at.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kept records are found by op index; others, and short records, are not.
    #[test]
    fn kept_records_are_found_by_op() {
        let mut k = KeptSlots::default();
        k.push(3, &[3; SLOT_BYTES]);
        k.push(9, &[9; SLOT_BYTES]);
        k.push(10, &[1; 8]);
        assert_eq!(k.len(), 2);
        for i in 11..(11 + 2 * CHUNK) {
            k.push(i, &[i as u8; SLOT_BYTES]);
        }
        assert_eq!(
            k.get(11 + CHUNK + 5),
            Some(&[(11 + CHUNK + 5) as u8; SLOT_BYTES][..])
        );
        assert_eq!(k.get(3), Some(&[3; SLOT_BYTES][..]));
        assert_eq!(k.get(9), Some(&[9; SLOT_BYTES][..]));
        assert_eq!((k.get(4), k.get(10)), (None, None));
    }
}
