//! Each op's NEFF slot, as runs (D835): a slot per op was 4 bytes for every slot of every image,
//! held beside the package while the images decode; the slots of an image are almost all
//! consecutive (MAIN copied 1 -> 1, spec 001 §1), so a run is one entry for thousands of ops.

use crate::op::NO_SLOT;

/// Op index -> NEFF slot (or none), built in op order.
#[derive(Debug, Clone, Default)]
pub struct SlotRuns {
    /// Per run its first op and the NEFF slot of that op ([`NO_SLOT`]: a run of ops with none);
    /// the ops of a run with slots have consecutive slots. Ascending by first op.
    runs: Vec<(u32, u32)>,
    /// The ops pushed.
    len: u32,
    /// The slot the next op would have to continue the last run.
    next: u32,
}

impl SlotRuns {
    /// Appends the next op's slot ([`NO_SLOT`] for none).
    pub(crate) fn push(&mut self, slot: u32) {
        let continues = match self.runs.last() {
            None => false,
            Some(&(_, NO_SLOT)) => slot == NO_SLOT,
            Some(_) => slot != NO_SLOT && slot == self.next,
        };
        if !continues {
            self.runs.push((self.len, slot));
        }
        self.next = slot.wrapping_add(1);
        self.len += 1;
    }

    /// The NEFF slot of op `i` (`None` for an op with none, or past the last op).
    pub fn get(&self, i: usize) -> Option<u32> {
        let i = u32::try_from(i).ok().filter(|&i| i < self.len)?;
        let k = self
            .runs
            .partition_point(|&(first, _)| first <= i)
            .checked_sub(1)?;
        let (first, slot) = self.runs[k];
        (slot != NO_SLOT).then(|| slot + (i - first))
    }

    /// How many ops.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many runs the ops make.
    pub fn runs(&self) -> usize {
        self.runs.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every op reads back the slot it was pushed with, and consecutive slots share a run.
    #[test]
    fn slots_read_back_as_pushed() {
        let pushed = [
            NO_SLOT, NO_SLOT, 0, 1, 2, 2, 2, NO_SLOT, 3, 4, 9, 10, NO_SLOT,
        ];
        let mut r = SlotRuns::default();
        for &s in &pushed {
            r.push(s);
        }
        assert_eq!(r.len(), pushed.len());
        for (i, &s) in pushed.iter().enumerate() {
            assert_eq!(r.get(i), (s != NO_SLOT).then_some(s), "op {i}");
        }
        assert_eq!(r.get(pushed.len()), None);
        // [NO NO] [0 1 2] [2] [2] [NO] [3 4] [9 10] [NO]
        assert_eq!(r.runs(), 8);
    }
}
