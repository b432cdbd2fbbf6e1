//! The text syntax of events (decision D4): `$S[i]` names semaphore `i`, `$E[i]` event `i`.
//!
//! | mode | wait token | | mode | update token |
//! |---|---|---|---|---|
//! | SEM_EQ_IMM 1 | `$S[i]==v` | | EVT_SET 1 | `$E[i]=1` |
//! | SEM_LT_IMM 2 | `$S[i]<v` | | EVT_CLR 2 | `$E[i]=0` |
//! | SEM_LE_IMM 3 | `$S[i]<=v` | | SEM_INC 3 | `$S[i]++` |
//! | SEM_GT_IMM 4 | `$S[i]>v` | | SEM_DEC 4 | `$S[i]--` |
//! | SEM_GE_IMM 5 | `$S[i]>=v` | | SEM_ADD_IMM 5 | `$S[i]+=v` |
//! | EVT_SET 6 | `$E[i]?set` | | SEM_SUB_IMM 7 | `$S[i]-=v` |
//! | EVT_SET_THEN_CLEAR 7 | `$E[i]?set+clear` | | SEM_WR_IMM 9 | `$S[i]=v` |
//! | EVT_CLEAR 14 | `$E[i]?clear` | | `_COMPLETE` (+16) | suffix `@complete` |
//! | EVT_CLEAR_THEN_SET 15 | `$E[i]?clear+set` | | | |
//! | `_REG` (+0x80) | value written `rN` (register N) | | | |
//!
//! A wait token is recognised by its comparison (`==`, `<`, `<=`, `>`, `>=`, `?`), an update by
//! its assignment (`++`, `--`, `+=`, `-=`, `=`), so the order of the two tokens is free.

use super::number::parse_u64;
use super::sink::{TextSink, with_window};
use super::window::Window;
use crate::events::{UpdateMode, WaitMode};

/// One parsed event token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EventToken {
    /// A wait: mode byte, index, value (0 when the mode has none).
    Wait(u8, u8, u32),
    /// An update: mode byte, index, value (0 when the mode has none).
    Update(u8, u8, u32),
}

/// Whether `(mode, idx, value)` prints canonically as a wait token.
pub(crate) fn wait_canonical(mode: u8, idx: u8, value: u32) -> bool {
    match WaitMode::from_u8(mode) {
        None => false,
        // A `None` wait prints as nothing, so it is canonical only when idx and value are zero.
        Some(WaitMode::None) => idx == 0 && value == 0,
        Some(w) => w.uses_value() || value == 0,
    }
}

/// Whether `(mode, idx, value)` prints canonically as an update token.
pub(crate) fn update_canonical(mode: u8, idx: u8, value: u32) -> bool {
    match UpdateMode::from_u8(mode) {
        None => false,
        // A `None` update prints as nothing, so it is canonical only when idx and value are zero.
        Some(UpdateMode::None) => idx == 0 && value == 0,
        Some(u) => u.uses_value() || value == 0,
    }
}

/// The room of an event token: `$S[255]`, the longest operator (`?clear+set`), `r` and 10 digits,
/// `@complete`, and a number's word of slack.
const EVENT_ROOM: usize = 64;

/// Writes `$S[i]` or `$E[i]`.
#[inline(always)]
fn write_idx(w: &mut Window<'_>, sigil: &[u8; 3], idx: u8) {
    w.bytes(sigil);
    w.dec(idx.into());
    w.byte(b']');
}

/// Appends the wait token of a canonical, non-`None` wait.
pub(crate) fn push_wait<W: TextSink + ?Sized>(out: &mut W, mode: u8, idx: u8, value: u32) {
    with_window!(out, EVENT_ROOM, write_wait, (mode, idx, value));
}

/// Writes [`push_wait`]'s token. Needs [`EVENT_ROOM`].
#[inline(always)]
fn write_wait(out: &mut Window<'_>, (mode, idx, value): (u8, u8, u32)) {
    let Some(w) = WaitMode::from_u8(mode) else {
        return;
    };
    let (sigil, op): (&[u8; 3], &str) = match w {
        WaitMode::None => return,
        WaitMode::SemEqImm | WaitMode::SemEqReg => (b"$S[", "=="),
        WaitMode::SemLtImm | WaitMode::SemLtReg => (b"$S[", "<"),
        WaitMode::SemLeImm | WaitMode::SemLeReg => (b"$S[", "<="),
        WaitMode::SemGtImm | WaitMode::SemGtReg => (b"$S[", ">"),
        WaitMode::SemGeImm | WaitMode::SemGeReg => (b"$S[", ">="),
        WaitMode::EvtSet => (b"$E[", "?set"),
        WaitMode::EvtSetThenClear => (b"$E[", "?set+clear"),
        WaitMode::EvtClear => (b"$E[", "?clear"),
        WaitMode::EvtClearThenSet => (b"$E[", "?clear+set"),
    };
    write_idx(out, sigil, idx);
    out.ascii(op.as_bytes());
    if w.uses_value() {
        if mode & 0x80 != 0 {
            out.byte(b'r');
        }
        out.dec(value.into());
    }
}

/// Appends the update token of a canonical, non-`None` update.
pub(crate) fn push_update<W: TextSink + ?Sized>(out: &mut W, mode: u8, idx: u8, value: u32) {
    with_window!(out, EVENT_ROOM, write_update, (mode, idx, value));
}

/// Writes [`push_update`]'s token. Needs [`EVENT_ROOM`].
#[inline(always)]
fn write_update(out: &mut Window<'_>, (mode, idx, value): (u8, u8, u32)) {
    let Some(u) = UpdateMode::from_u8(mode) else {
        return;
    };
    let (sigil, op): (&[u8; 3], &str) = match u {
        UpdateMode::None => return,
        UpdateMode::EvtSetRead | UpdateMode::EvtSetComplete => (b"$E[", "=1"),
        UpdateMode::EvtClrRead | UpdateMode::EvtClrComplete => (b"$E[", "=0"),
        UpdateMode::SemIncRead | UpdateMode::SemIncComplete => (b"$S[", "++"),
        UpdateMode::SemDecRead | UpdateMode::SemDecComplete => (b"$S[", "--"),
        UpdateMode::SemAddImmRead | UpdateMode::SemAddImmComplete => (b"$S[", "+="),
        UpdateMode::SemSubImmRead | UpdateMode::SemSubImmComplete => (b"$S[", "-="),
        UpdateMode::SemWrImmRead | UpdateMode::SemWrImmComplete => (b"$S[", "="),
    };
    write_idx(out, sigil, idx);
    out.ascii(op.as_bytes());
    if u.uses_value() {
        out.dec(value.into());
    }
    if u.on_complete() {
        out.bytes(b"@complete");
    }
}

/// Parses one event token (`$S[10]>0`, `$S[22]++@complete`, `$E[3]?set`, ...).
pub(crate) fn parse_event(tok: &str) -> Option<EventToken> {
    let (is_sem, rest) = if let Some(r) = tok.strip_prefix("$S[") {
        (true, r)
    } else {
        (false, tok.strip_prefix("$E[")?)
    };
    let close = rest.find(']')?;
    let idx = u8::try_from(parse_u64(&rest[..close])?).ok()?;
    let mut op = &rest[close + 1..];
    let complete = match op.strip_suffix("@complete") {
        Some(o) => {
            op = o;
            16
        }
        None => 0,
    };
    if is_sem {
        parse_sem_op(op, idx, complete)
    } else {
        parse_evt_op(op, idx, complete)
    }
}

fn parse_sem_op(op: &str, idx: u8, complete: u8) -> Option<EventToken> {
    const WAITS: [(&str, u8); 5] = [("==", 1), ("<=", 3), (">=", 5), ("<", 2), (">", 4)];
    if complete == 0 {
        for (p, mode) in WAITS {
            if let Some(v) = op.strip_prefix(p) {
                let (reg, v) = match v.strip_prefix('r') {
                    Some(r) => (0x80, r),
                    None => (0, v),
                };
                let value = u32::try_from(parse_u64(v)?).ok()?;
                return Some(EventToken::Wait(mode | reg, idx, value));
            }
        }
    }
    let (mode, v) = match op {
        "++" => (3, None),
        "--" => (4, None),
        _ => {
            if let Some(v) = op.strip_prefix("+=") {
                (5, Some(v))
            } else if let Some(v) = op.strip_prefix("-=") {
                (7, Some(v))
            } else {
                (9, Some(op.strip_prefix('=')?))
            }
        }
    };
    let value = match v {
        Some(v) => u32::try_from(parse_u64(v)?).ok()?,
        None => 0,
    };
    Some(EventToken::Update(mode + complete, idx, value))
}

fn parse_evt_op(op: &str, idx: u8, complete: u8) -> Option<EventToken> {
    let wait = match op {
        "?set" => Some(6),
        "?set+clear" => Some(7),
        "?clear" => Some(14),
        "?clear+set" => Some(15),
        _ => None,
    };
    match (wait, complete, op) {
        (Some(m), 0, _) => Some(EventToken::Wait(m, idx, 0)),
        (None, c, "=1") => Some(EventToken::Update(1 + c, idx, 0)),
        (None, c, "=0") => Some(EventToken::Update(2 + c, idx, 0)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_named_mode_round_trips() {
        for w in WaitMode::ALL.iter().filter(|w| **w != WaitMode::None) {
            let v = if w.uses_value() { 7 } else { 0 };
            let mut s = String::new();
            push_wait(&mut s, *w as u8, 9, v);
            assert_eq!(
                parse_event(&s),
                Some(EventToken::Wait(*w as u8, 9, v)),
                "{s}"
            );
        }
        for u in UpdateMode::ALL.iter().filter(|u| **u != UpdateMode::None) {
            let v = if u.uses_value() { 16 } else { 0 };
            let mut s = String::new();
            push_update(&mut s, *u as u8, 22, v);
            assert_eq!(
                parse_event(&s),
                Some(EventToken::Update(*u as u8, 22, v)),
                "{s}"
            );
        }
    }

    /// spec 003 §7: `$S[10]>0` is wait mode 4 on sem 10, `$S[22]++@complete` update 0x13.
    #[test]
    fn sample_tokens() {
        assert_eq!(parse_event("$S[10]>0"), Some(EventToken::Wait(4, 10, 0)));
        assert_eq!(
            parse_event("$S[22]++@complete"),
            Some(EventToken::Update(0x13, 22, 0))
        );
        assert_eq!(
            parse_event("$S[9]>=r16"),
            Some(EventToken::Wait(0x85, 9, 16))
        );
        assert_eq!(parse_event("$S[300]>0"), None);
    }
}
