//! The wait half of the events block (spec 003 §1.2 (b); every [`WaitMode`] of neff-isa),
//! compiled once per instruction so the run loop only compares numbers.

use neff_isa::WaitMode;

use crate::registers::Registers;
use crate::sync_state::{SyncObject, SyncState};

/// A semaphore comparison (`sem[idx] OP value`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cmp {
    /// `==`.
    Eq,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

impl Cmp {
    pub(crate) fn holds(self, a: i64, b: i64) -> bool {
        match self {
            Self::Eq => a == b,
            Self::Lt => a < b,
            Self::Le => a <= b,
            Self::Gt => a > b,
            Self::Ge => a >= b,
        }
    }

    fn symbol(self) -> &'static str {
        match self {
            Self::Eq => "==",
            Self::Lt => "<",
            Self::Le => "<=",
            Self::Gt => ">",
            Self::Ge => ">=",
        }
    }
}

/// What the right-hand side of a semaphore comparison is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operand {
    /// The immediate `semaphore_value` (the `_IMM` modes; a 32-bit field, kept at its width
    /// so a compiled op stays small: the run loop streams millions of them).
    Imm(u32),
    /// The register named by `semaphore_value` (the `_REG` modes, `| 0x80`).
    Reg(u8),
}

/// A compiled wait condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// No wait.
    None,
    /// `sem[idx] cmp operand`.
    Sem {
        /// The semaphore.
        idx: u8,
        /// The comparison.
        cmp: Cmp,
        /// The right-hand side.
        rhs: Operand,
    },
    /// Event `idx` must be `set` (and, with `flip`, is then cleared; or the reverse).
    Event {
        /// The event.
        idx: u8,
        /// The state waited for.
        set: bool,
        /// Whether issuing flips it (SET_THEN_CLEAR / CLEAR_THEN_SET).
        flip: bool,
    },
}

impl Wait {
    /// Compiles a wait mode byte with its index and value; `None` for a byte neff-isa does not
    /// name.
    pub fn compile(mode: u8, idx: u8, value: u32) -> Option<Self> {
        let sem = |cmp, rhs| Wait::Sem { idx, cmp, rhs };
        let imm = Operand::Imm(value);
        let reg = Operand::Reg(value as u8);
        let event = |set, flip| Wait::Event { idx, set, flip };
        Some(match WaitMode::from_u8(mode)? {
            WaitMode::None => Wait::None,
            WaitMode::SemEqImm => sem(Cmp::Eq, imm),
            WaitMode::SemLtImm => sem(Cmp::Lt, imm),
            WaitMode::SemLeImm => sem(Cmp::Le, imm),
            WaitMode::SemGtImm => sem(Cmp::Gt, imm),
            WaitMode::SemGeImm => sem(Cmp::Ge, imm),
            WaitMode::EvtSet => event(true, false),
            WaitMode::EvtSetThenClear => event(true, true),
            WaitMode::EvtClear => event(false, false),
            WaitMode::EvtClearThenSet => event(false, true),
            WaitMode::SemEqReg => sem(Cmp::Eq, reg),
            WaitMode::SemLtReg => sem(Cmp::Lt, reg),
            WaitMode::SemLeReg => sem(Cmp::Le, reg),
            WaitMode::SemGtReg => sem(Cmp::Gt, reg),
            WaitMode::SemGeReg => sem(Cmp::Ge, reg),
        })
    }

    /// Whether the condition holds now.
    #[inline]
    pub fn holds(&self, st: &SyncState, regs: &Registers) -> bool {
        match *self {
            Wait::None => true,
            Wait::Sem { idx, cmp, rhs } => {
                let b = match rhs {
                    Operand::Imm(v) => i64::from(v),
                    Operand::Reg(r) => regs.get(r) as u32 as i64,
                };
                cmp.holds(st.sems[usize::from(idx)], b)
            }
            Wait::Event { idx, set, .. } => st.events[usize::from(idx)] == set,
        }
    }

    /// What issuing does to the waited object (SET_THEN_CLEAR clears, CLEAR_THEN_SET sets).
    #[inline]
    pub fn on_issue(&self, st: &mut SyncState) -> Option<SyncObject> {
        match *self {
            Wait::Event {
                idx,
                set,
                flip: true,
            } => {
                st.events[usize::from(idx)] = !set;
                Some(SyncObject::Event(idx))
            }
            _ => None,
        }
    }

    /// The object the wait reads.
    pub fn object(&self) -> Option<SyncObject> {
        match *self {
            Wait::None => None,
            Wait::Sem { idx, .. } => Some(SyncObject::Semaphore(idx)),
            Wait::Event { idx, .. } => Some(SyncObject::Event(idx)),
        }
    }

    /// The condition as text, e.g. `$S[10] > 0` or `$E[4] set`.
    pub fn describe(&self, regs: &Registers) -> String {
        match *self {
            Wait::None => "nothing".into(),
            Wait::Sem { idx, cmp, rhs } => match rhs {
                Operand::Imm(v) => format!("$S[{idx}] {} {v}", cmp.symbol()),
                Operand::Reg(r) => format!(
                    "$S[{idx}] {} $R[{r}] (= {})",
                    cmp.symbol(),
                    regs.get(r) as u32
                ),
            },
            Wait::Event { idx, set, .. } => {
                format!("$E[{idx}] {}", if set { "set" } else { "clear" })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(sem: u8, v: i64) -> SyncState {
        let mut st = SyncState::default();
        st.sems[usize::from(sem)] = v;
        st
    }

    /// Every semaphore mode, immediate and register forms, at the boundary value.
    #[test]
    fn every_semaphore_wait_mode() {
        let regs = {
            let mut r = Registers::default();
            r.set(3, 5);
            r
        };
        // (mode, holds at sem == 5 against 5, holds at sem == 6 against 5)
        let cases = [
            (1u8, true, false),
            (2, false, false),
            (3, true, false),
            (4, false, true),
            (5, true, true),
        ];
        for (mode, at5, at6) in cases {
            let imm = Wait::compile(mode, 7, 5).unwrap();
            let reg = Wait::compile(mode | 0x80, 7, 3).unwrap();
            for w in [imm, reg] {
                assert_eq!(w.holds(&state(7, 5), &regs), at5, "mode {mode:#x} at 5");
                assert_eq!(w.holds(&state(7, 6), &regs), at6, "mode {mode:#x} at 6");
            }
            assert_eq!(imm.object(), Some(SyncObject::Semaphore(7)));
        }
        // `<` holds below.
        assert!(Wait::compile(2, 7, 5).unwrap().holds(&state(7, 4), &regs));
    }

    /// spec 003 §7.1: `04 0a` is `$S[10]>0`.
    #[test]
    fn sample_gt_wait() {
        let w = Wait::compile(4, 10, 0).unwrap();
        let regs = Registers::default();
        assert!(!w.holds(&state(10, 0), &regs));
        assert!(w.holds(&state(10, 1), &regs));
        assert_eq!(w.describe(&regs), "$S[10] > 0");
    }

    #[test]
    fn every_event_wait_mode() {
        let regs = Registers::default();
        let mut st = SyncState::default();
        let set = Wait::compile(6, 4, 0).unwrap();
        let set_clear = Wait::compile(7, 4, 0).unwrap();
        let clear = Wait::compile(14, 4, 0).unwrap();
        let clear_set = Wait::compile(15, 4, 0).unwrap();
        assert!(!set.holds(&st, &regs) && clear.holds(&st, &regs));
        assert!(clear_set.holds(&st, &regs));
        assert_eq!(clear_set.on_issue(&mut st), Some(SyncObject::Event(4)));
        assert!(st.events[4], "CLEAR_THEN_SET sets on issue");
        assert!(set.holds(&st, &regs) && set_clear.holds(&st, &regs));
        assert_eq!(set.on_issue(&mut st), None, "plain SET does not flip");
        set_clear.on_issue(&mut st);
        assert!(!st.events[4], "SET_THEN_CLEAR clears on issue");
    }

    #[test]
    fn unknown_mode_is_none() {
        assert_eq!(Wait::compile(0x42, 0, 0), None);
        assert_eq!(Wait::compile(0, 9, 9), Some(Wait::None));
    }
}
