//! When a waiting instruction was released (decision D741): a capture times an instruction
//! from the moment it reaches the head of its engine's queue, so the duration of one that
//! waits on a semaphore includes the wait (baseline_attention sg00: Pool's `$S[2]==2` barrier
//! step is stamped at 7894 ns, lasts 1542 ns, and `$S[2]` reaches 2 at 9405 ns, 31 ns before it
//! ends). The capture's semaphore records say when the waited value arrived; from there on the
//! instruction costs what the simulator prices (the simulator issues a waiting op only when its
//! wait holds).

use std::collections::BTreeMap;

use neff_profile::{Profile, ProfiledInstruction};

use crate::wait::{Operand, Wait};

/// Per semaphore index: its recorded values, in time order (ns, value).
pub(super) struct SemRecords(BTreeMap<u8, Vec<(u64, i64)>>);

impl SemRecords {
    /// The semaphore records of `subgraph` in `profile` (none for a report without them).
    pub(super) fn of(profile: &Profile, subgraph: &str) -> Self {
        let mut by: BTreeMap<u8, Vec<(u64, i64)>> = BTreeMap::new();
        for u in profile
            .semaphore_update
            .iter()
            .filter(|u| u.subgraph == subgraph)
        {
            if let Ok(idx) = u8::try_from(u.index) {
                by.entry(idx).or_default().push((u.timestamp, u.value));
            }
        }
        for v in by.values_mut() {
            v.sort_by_key(|x| x.0);
        }
        Self(by)
    }

    /// When the semaphore wait `w` of an instruction stamped `start` and ending at `end` was
    /// released: the start of the run of records before `end` that all satisfy it, or `start`
    /// when it held already. `None` when the records cannot say (no record of the semaphore,
    /// the last one before `end` does not satisfy it, or a register operand).
    fn released(&self, w: &Wait, start: u64, end: u64) -> Option<u64> {
        let Wait::Sem {
            idx,
            cmp,
            rhs: Operand::Imm(v),
        } = *w
        else {
            return None;
        };
        let recs = self.0.get(&idx)?;
        let upto = recs.partition_point(|r| r.0 <= end);
        let holds = |r: &(u64, i64)| cmp.holds(r.1, i64::from(v));
        if upto == 0 || !holds(&recs[upto - 1]) {
            return None;
        }
        let first = (0..upto).rev().take_while(|&k| holds(&recs[k])).last()?;
        Some(recs[first].0.max(start))
    }

    /// When instruction `i` with waits `waits` was released: `Some(i.timestamp)` when it waits
    /// on nothing, the latest release of its semaphore waits, `None` when any wait's release is
    /// unknown (an event wait: captures record no events).
    pub(super) fn release_of(&self, i: &ProfiledInstruction, waits: &[Wait]) -> Option<u64> {
        let (start, end) = (i.timestamp, i.timestamp + i.duration);
        let mut at = start;
        for w in waits.iter().filter(|w| !matches!(w, Wait::None)) {
            at = at.max(self.released(w, start, end)?);
        }
        Some(at)
    }
}
