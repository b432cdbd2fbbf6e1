//! An op's wait and update packed into 12 bytes (D369): the run loop streams the ops and decoding
//! writes each to fresh memory, so bytes per op are the cost (docs/performance.md `sim_rate`).
//! [`Wait`] and [`Update`] are 12 bytes each as enums (a tag, an index, a 32-bit value, each
//! aligned); packed, they share one tag byte each and keep their 32-bit values.

use crate::update::{Effect, Update};
use crate::wait::{Cmp, Operand, Wait};

/// A wait and an update, packed. [`Self::new`] and [`Self::wait`] / [`Self::update`] round-trip
/// every value (a unit test checks each form).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackedSync {
    /// 0: none; 1-5: semaphore against an immediate, `Cmp` by [`CMPS`] order; 6-10: the same
    /// against a register; 11-14: event, `set` in bit 0 and `flip` in bit 1 of `tag - 11`.
    wait_tag: u8,
    wait_idx: u8,
    /// 0: none; else `1 + 2 * effect + on_complete`, effects in [`Self::update`]'s order.
    update_tag: u8,
    update_idx: u8,
    /// The wait's immediate, or its register.
    wait_value: u32,
    /// The update's operand (0 for the event effects).
    update_value: u32,
}

/// The comparisons in tag order.
const CMPS: [Cmp; 5] = [Cmp::Eq, Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge];

impl PackedSync {
    /// Packs `wait` and `update`.
    pub fn new(wait: Wait, update: Option<Update>) -> Self {
        let (wait_tag, wait_idx, wait_value) = match wait {
            Wait::None => (0, 0, 0),
            Wait::Sem { idx, cmp, rhs } => {
                let c = CMPS.iter().position(|&k| k == cmp).unwrap_or(0) as u8;
                match rhs {
                    Operand::Imm(v) => (1 + c, idx, v),
                    Operand::Reg(r) => (6 + c, idx, u32::from(r)),
                }
            }
            Wait::Event { idx, set, flip } => (11 + u8::from(set) + 2 * u8::from(flip), idx, 0),
        };
        let (update_tag, update_idx, update_value) = match update {
            None => (0, 0, 0),
            Some(u) => {
                let (effect, v) = match u.effect {
                    Effect::EventSet => (0, 0),
                    Effect::EventClear => (1, 0),
                    Effect::SemAdd(v) => (2, v),
                    Effect::SemSub(v) => (3, v),
                    Effect::SemWrite(v) => (4, v),
                };
                (1 + 2 * effect + u8::from(u.on_complete), u.idx, v)
            }
        };
        Self {
            wait_tag,
            wait_idx,
            update_tag,
            update_idx,
            wait_value,
            update_value,
        }
    }

    /// The wait.
    #[inline]
    pub fn wait(&self) -> Wait {
        let idx = self.wait_idx;
        match self.wait_tag {
            0 => Wait::None,
            t @ 1..=5 => Wait::Sem {
                idx,
                cmp: CMPS[usize::from(t - 1)],
                rhs: Operand::Imm(self.wait_value),
            },
            t @ 6..=10 => Wait::Sem {
                idx,
                cmp: CMPS[usize::from(t - 6)],
                rhs: Operand::Reg(self.wait_value as u8),
            },
            t => Wait::Event {
                idx,
                set: (t - 11) & 1 != 0,
                flip: (t - 11) & 2 != 0,
            },
        }
    }

    /// The update.
    #[inline]
    pub fn update(&self) -> Option<Update> {
        let t = self.update_tag.checked_sub(1)?;
        let v = self.update_value;
        let effect = match t / 2 {
            0 => Effect::EventSet,
            1 => Effect::EventClear,
            2 => Effect::SemAdd(v),
            3 => Effect::SemSub(v),
            _ => Effect::SemWrite(v),
        };
        Some(Update {
            idx: self.update_idx,
            effect,
            on_complete: t & 1 != 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every wait mode and every update mode neff-isa names, with a few indices and values,
    /// packs and unpacks to itself.
    #[test]
    fn every_wait_and_update_round_trips() {
        let mut waits = Vec::new();
        let mut updates = vec![None];
        for mode in 0..=u8::MAX {
            for (idx, value) in [(0, 0), (7, 5), (255, u32::MAX), (31, 0x80)] {
                waits.extend(Wait::compile(mode, idx, value));
                if let Ok(u) = Update::compile(mode, idx, value) {
                    updates.push(u);
                }
            }
        }
        // 15 wait modes and 15 update modes (NONE included), 4 operand sets each.
        assert_eq!((waits.len(), updates.len()), (15 * 4, 1 + 15 * 4));
        for &w in &waits {
            for &u in &updates {
                let p = PackedSync::new(w, u);
                assert_eq!((p.wait(), p.update()), (w, u), "{w:?} {u:?}");
            }
        }
    }
}
