//! The update half of the events block (spec 003 §1.2 (b); every [`UpdateMode`] of neff-isa):
//! applied when the instruction reads its inputs (the `_READ` forms, at issue) or when it
//! completes (the `_COMPLETE` forms, `+16`; spec 003 §7.1 `$S[22]++@complete`).

use neff_isa::UpdateMode;

use crate::sync_state::{SyncObject, SyncState};

/// What an update does to its object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Set the event.
    EventSet,
    /// Clear the event.
    EventClear,
    /// `sem += n`. The operands are the 32-bit `semaphore_value` at its width (a compiled op
    /// stays small: the run loop streams millions of them), so subtraction is its own effect.
    SemAdd(u32),
    /// `sem -= n` (the decrements and subtractions).
    SemSub(u32),
    /// `sem = n`.
    SemWrite(u32),
}

/// A compiled update.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Update {
    /// The semaphore index or event index.
    pub idx: u8,
    /// What it does.
    pub effect: Effect,
    /// Whether it applies at completion (else at issue).
    pub on_complete: bool,
}

impl Update {
    /// Compiles an update mode byte: `Ok(None)` for NONE, `Err(())` for a byte neff-isa does
    /// not name.
    #[allow(clippy::result_unit_err)] // the caller names the byte and the slot
    pub fn compile(mode: u8, idx: u8, value: u32) -> Result<Option<Self>, ()> {
        let m = UpdateMode::from_u8(mode).ok_or(())?;
        let effect = match m {
            UpdateMode::None => return Ok(None),
            UpdateMode::EvtSetRead | UpdateMode::EvtSetComplete => Effect::EventSet,
            UpdateMode::EvtClrRead | UpdateMode::EvtClrComplete => Effect::EventClear,
            UpdateMode::SemIncRead | UpdateMode::SemIncComplete => Effect::SemAdd(1),
            UpdateMode::SemDecRead | UpdateMode::SemDecComplete => Effect::SemSub(1),
            UpdateMode::SemAddImmRead | UpdateMode::SemAddImmComplete => Effect::SemAdd(value),
            UpdateMode::SemSubImmRead | UpdateMode::SemSubImmComplete => Effect::SemSub(value),
            UpdateMode::SemWrImmRead | UpdateMode::SemWrImmComplete => Effect::SemWrite(value),
        };
        Ok(Some(Self {
            idx,
            effect,
            on_complete: m.on_complete(),
        }))
    }

    /// The object written.
    pub fn object(&self) -> SyncObject {
        match self.effect {
            Effect::EventSet | Effect::EventClear => SyncObject::Event(self.idx),
            Effect::SemAdd(_) | Effect::SemSub(_) | Effect::SemWrite(_) => {
                SyncObject::Semaphore(self.idx)
            }
        }
    }

    /// Applies the update.
    #[inline]
    pub fn apply(&self, st: &mut SyncState) -> SyncObject {
        let i = usize::from(self.idx);
        match self.effect {
            Effect::EventSet => st.events[i] = true,
            Effect::EventClear => st.events[i] = false,
            Effect::SemAdd(n) => st.sems[i] += i64::from(n),
            Effect::SemSub(n) => st.sems[i] -= i64::from(n),
            Effect::SemWrite(n) => st.sems[i] = i64::from(n),
        }
        self.object()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every update mode, read and complete forms, on a semaphore at 10 with value 3.
    #[test]
    fn every_update_mode() {
        // (read mode, expected after)
        let sems = [(3u8, 11i64), (4, 9), (5, 13), (7, 7), (9, 3)];
        for (mode, want) in sems {
            for (m, complete) in [(mode, false), (mode + 16, true)] {
                let u = Update::compile(m, 2, 3).unwrap().unwrap();
                assert_eq!(u.on_complete, complete, "mode {m:#x}");
                let mut st = SyncState::default();
                st.sems[2] = 10;
                assert_eq!(u.apply(&mut st), SyncObject::Semaphore(2));
                assert_eq!(st.sems[2], want, "mode {m:#x}");
            }
        }
        for (mode, want) in [(1u8, true), (2, false)] {
            for m in [mode, mode + 16] {
                let u = Update::compile(m, 4, 0).unwrap().unwrap();
                let mut st = SyncState::default();
                st.events[4] = !want;
                assert_eq!(u.apply(&mut st), SyncObject::Event(4));
                assert_eq!(st.events[4], want);
            }
        }
    }

    /// spec 003 §7.1: `13 16` is `$S[22]++@complete`.
    #[test]
    fn sample_inc_on_complete() {
        let u = Update::compile(0x13, 0x16, 0).unwrap().unwrap();
        assert!(u.on_complete);
        assert_eq!(u.effect, Effect::SemAdd(1));
        assert_eq!(u.idx, 22);
        assert_eq!(Update::compile(0, 0, 0), Ok(None));
        assert_eq!(Update::compile(6, 0, 0), Err(()));
    }
}
