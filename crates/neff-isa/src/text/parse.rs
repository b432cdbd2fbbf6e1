//! The assembler: reads exactly what the disassembler prints (decision D4), plus slot-index
//! prefixes (`12:`), comments (`#` or `//` to end of line), blank lines, an optional trailing `;`
//! (spec 003 §7 prints one), `.slot <hex>` (one raw 64-byte slot), `.bytes <hex>` (raw trailing
//! bytes of a stream) and `.sp` / SP mnemonics in an SP stream.

use super::continuation::{SEPARATOR, parse_continuation};
use super::events_syntax::{EventToken, parse_event};
use super::number::{parse_hex_bytes, parse_i64, parse_u64};
use super::print::layout_for;
use crate::events::{Dialect, EventsExtended};
use crate::layout::{Addr8, FieldKind, FieldValue, Layout, Show, Tensor};
use crate::opcode::Opcode;
use crate::slot::{SLOT_BYTES, SlotBuf};

/// A text-form error: the 1-based line, the offending token and what was expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: `{token}`: {message}")]
pub struct ParseError {
    /// 1-based line number (1 for a single-line parse).
    pub line: usize,
    /// The token that failed.
    pub token: String,
    /// What was expected.
    pub message: String,
}

pub(crate) fn err(token: &str, message: impl Into<String>) -> ParseError {
    ParseError {
        line: 1,
        token: token.to_owned(),
        message: message.into(),
    }
}

/// What one source line holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// Nothing (blank or comment).
    Empty,
    /// One 64-byte slot.
    Slot(SlotBuf),
    /// A 128-byte record: a PSEUDO_DMA_DIRECT2D and its continuation (decision D155).
    Pair(SlotBuf, SlotBuf),
    /// Raw bytes (`.bytes`): a stream's trailing remainder.
    Bytes(Vec<u8>),
}

impl Line {
    /// Appends the bytes the line stands for to a stream being assembled.
    pub fn append_to(&self, out: &mut Vec<u8>) {
        match self {
            Line::Empty => {}
            Line::Slot(s) => out.extend_from_slice(&s.0),
            Line::Pair(head, cont) => {
                out.extend_from_slice(&head.0);
                out.extend_from_slice(&cont.0);
            }
            Line::Bytes(b) => out.extend_from_slice(b),
        }
    }
}

/// Splits a line into tokens: whitespace-separated, `"..."` kept whole (also inside `k="..."`),
/// comments dropped, one trailing `;` dropped.
pub(crate) fn tokenize(line: &str) -> Result<Vec<&str>, ParseError> {
    let b = line.as_bytes();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if b[i] == b'#' || (b[i] == b'/' && b.get(i + 1) == Some(&b'/')) {
            break;
        }
        let start = i;
        let mut in_quote = false;
        while i < b.len() && (in_quote || !b[i].is_ascii_whitespace()) {
            match b[i] {
                b'\\' if in_quote => i += 1,
                b'"' => in_quote = !in_quote,
                _ => {}
            }
            i += 1;
        }
        if in_quote {
            return Err(err(&line[start..], "unterminated string"));
        }
        toks.push(&line[start..i.min(b.len())]);
    }
    if let Some(last) = toks.last_mut() {
        if *last == ";" {
            toks.pop();
        } else if let Some(t) = last.strip_suffix(';') {
            *last = t;
        }
    }
    Ok(toks)
}

/// Assembles one line of TPB text in `dialect`.
pub fn parse_line(line: &str, dialect: Dialect) -> Result<Line, ParseError> {
    let toks = tokenize(line)?;
    let mut toks = toks.as_slice();
    if let Some(first) = toks.first()
        && first.ends_with(':')
        && parse_u64(&first[..first.len() - 1]).is_some()
    {
        toks = &toks[1..];
    }
    let Some((&mnemonic, rest)) = toks.split_first() else {
        return Ok(Line::Empty);
    };
    match mnemonic {
        ".slot" => parse_raw_slot(rest).map(Line::Slot),
        ".bytes" => match rest {
            [hex] => parse_hex_bytes(hex)
                .map(Line::Bytes)
                .ok_or_else(|| err(hex, "hex bytes")),
            _ => Err(err(".bytes", "one hex argument")),
        },
        _ => match rest.iter().position(|t| *t == SEPARATOR) {
            None => parse_instruction(mnemonic, rest, dialect).map(Line::Slot),
            Some(bar) => {
                let head = parse_instruction(mnemonic, &rest[..bar], dialect)?;
                if head.0[0] != Opcode::PSEUDO_DMA_DIRECT2D.0 {
                    return Err(err(
                        mnemonic,
                        "PSEUDO_DMA_DIRECT2D before `|` (decision D155)",
                    ));
                }
                Ok(Line::Pair(head, parse_continuation(&rest[bar + 1..])?))
            }
        },
    }
}

fn parse_raw_slot(rest: &[&str]) -> Result<SlotBuf, ParseError> {
    let [hex] = rest else {
        return Err(err(".slot", "one argument of 128 hex digits"));
    };
    let bytes = parse_hex_bytes(hex).ok_or_else(|| err(hex, "hex digits"))?;
    let arr: [u8; SLOT_BYTES] = bytes
        .try_into()
        .map_err(|_| err(hex, "exactly 64 bytes (128 hex digits)"))?;
    Ok(SlotBuf(arr))
}

/// Events gathered from `$` tokens and explicit keys.
#[derive(Default)]
struct EventsAcc {
    bytes: [u8; 8],
    wait_value: Option<u32>,
    update_value: Option<u32>,
}

fn parse_instruction(
    mnemonic: &str,
    rest: &[&str],
    dialect: Dialect,
) -> Result<SlotBuf, ParseError> {
    let op = Opcode::from_mnemonic(mnemonic)
        .ok_or_else(|| err(mnemonic, "an instruction mnemonic, `.slot` or `.bytes`"))?;
    let layout = layout_for(op, dialect).ok_or_else(|| err(mnemonic, "a known opcode"))?;
    let mut buf = SlotBuf::new(op);
    let mut ev = EventsAcc::default();
    let mut overlays: Vec<(usize, Vec<u8>)> = Vec::new();
    for &tok in rest {
        if tok.starts_with('$') {
            if dialect != Dialect::Semaphore8 {
                return Err(err(tok, "no `$` events in the legacy 4-byte dialect"));
            }
            add_event(&mut ev, tok)?;
        } else if let Some(o) = tok.strip_prefix('@') {
            overlays.push(parse_overlay(tok, o)?);
        } else if let Some((k, v)) = split_key(tok) {
            set_key(&mut buf, &mut ev, layout, dialect, k, v, tok)?;
        } else {
            let f = layout
                .fields
                .iter()
                .find(|f| f.show == Show::Positional)
                .ok_or_else(|| err(tok, "a `key=value`, `$` event or `@0xOFF=HEX` token"))?;
            let v = parse_value(f.kind, tok).ok_or_else(|| err(tok, "a name"))?;
            f.write(&mut buf, &v)
                .map_err(|()| err(tok, "a name of at most 32 bytes"))?;
        }
    }
    if dialect == Dialect::Semaphore8 {
        let mut e = ev.bytes;
        if let Some(v) = ev.wait_value.or(ev.update_value) {
            e[4..8].copy_from_slice(&v.to_le_bytes());
        }
        buf.0[4..12].copy_from_slice(&e);
    }
    for (o, bytes) in overlays {
        buf.0[o..o + bytes.len()].copy_from_slice(&bytes);
    }
    Ok(buf)
}

/// `key=value` split, unless the `=` sits inside a quoted name.
fn split_key(tok: &str) -> Option<(&str, &str)> {
    if tok.starts_with('"') {
        return None;
    }
    tok.split_once('=')
}

fn add_event(ev: &mut EventsAcc, tok: &str) -> Result<(), ParseError> {
    let t = parse_event(tok).ok_or_else(|| err(tok, "an event like `$S[3]>=16` or `$S[3]++`"))?;
    let (slot, value, uses) = match t {
        EventToken::Wait(m, i, v) => {
            ev.bytes[0] = m;
            ev.bytes[1] = i;
            let uses = crate::events::WaitMode::from_u8(m).is_some_and(|w| w.uses_value());
            (&mut ev.wait_value, v, uses)
        }
        EventToken::Update(m, i, v) => {
            ev.bytes[2] = m;
            ev.bytes[3] = i;
            let uses = crate::events::UpdateMode::from_u8(m).is_some_and(|u| u.uses_value());
            (&mut ev.update_value, v, uses)
        }
    };
    if uses {
        *slot = Some(value);
    }
    match (ev.wait_value, ev.update_value) {
        (Some(a), Some(b)) if a != b => Err(err(
            tok,
            "the wait and the update share one semaphore_value; they differ",
        )),
        _ => Ok(()),
    }
}

pub(crate) fn parse_overlay(tok: &str, o: &str) -> Result<(usize, Vec<u8>), ParseError> {
    let (off, hex) = o.split_once('=').ok_or_else(|| err(tok, "`@0xOFF=HEX`"))?;
    let off = parse_u64(off).ok_or_else(|| err(tok, "an offset"))? as usize;
    let bytes = parse_hex_bytes(hex).ok_or_else(|| err(tok, "hex bytes"))?;
    if off
        .checked_add(bytes.len())
        .is_none_or(|end| end > SLOT_BYTES)
        || bytes.is_empty()
    {
        return Err(err(tok, "bytes inside the 64-byte slot"));
    }
    Ok((off, bytes))
}

fn set_key(
    buf: &mut SlotBuf,
    ev: &mut EventsAcc,
    layout: &Layout,
    dialect: Dialect,
    k: &str,
    v: &str,
    tok: &str,
) -> Result<(), ParseError> {
    let int = |max: u64| {
        parse_u64(v)
            .filter(|x| *x <= max)
            .ok_or_else(|| err(tok, format!("a number <= {max}")))
    };
    let header = |i: usize| -> Option<usize> { Some(i) };
    let byte_at = match (k, dialect) {
        ("len", _) => header(1),
        ("debug_cmd", _) => header(2),
        ("debug_hint", _) => header(3),
        ("wait_mode", Dialect::Semaphore8) | ("wait_event_mode", Dialect::Legacy4) => header(4),
        ("wait_idx", Dialect::Semaphore8) | ("wait_event_idx", Dialect::Legacy4) => header(5),
        ("update_mode", Dialect::Semaphore8) | ("set_event_mode", Dialect::Legacy4) => header(6),
        ("update_idx", Dialect::Semaphore8) | ("set_event_idx", Dialect::Legacy4) => header(7),
        _ => None,
    };
    if let Some(i) = byte_at {
        let x = int(0xFF)? as u8;
        if (4..8).contains(&i) && dialect == Dialect::Semaphore8 {
            ev.bytes[i - 4] = x;
        } else {
            buf.0[i] = x;
        }
        return Ok(());
    }
    if k == "sem_value" && dialect == Dialect::Semaphore8 {
        let x = int(u32::MAX.into())? as u32;
        ev.wait_value = Some(x);
        ev.update_value = None;
        return Ok(());
    }
    let key = if k == "count" { "block_id" } else { k };
    let f = layout
        .field(key)
        .ok_or_else(|| err(tok, format!("a field of {}", layout.name)))?;
    let value = parse_value(f.kind, v).ok_or_else(|| err(tok, "a value of the field's kind"))?;
    f.write(buf, &value)
        .map_err(|()| err(tok, "a value that fits the field"))
}

/// Parses a field value in the form `push_value` prints.
pub(crate) fn parse_value(kind: FieldKind, s: &str) -> Option<FieldValue> {
    Some(match kind {
        FieldKind::Enum(t) | FieldKind::Lo(t) | FieldKind::Hi(t) => {
            FieldValue::Int(t.value_of(s).map(u64::from).or_else(|| parse_u64(s))?)
        }
        FieldKind::U8
        | FieldKind::U16
        | FieldKind::U32
        | FieldKind::U64
        | FieldKind::Hex32
        | FieldKind::Hex64 => FieldValue::Int(parse_u64(s)?),
        FieldKind::Name(n) => {
            let bytes = parse_name(s)?;
            if bytes.len() > n as usize {
                return None;
            }
            let mut b = [0u8; 32];
            b[..bytes.len()].copy_from_slice(&bytes);
            FieldValue::Name(b, n)
        }
        FieldKind::Tensor(d) => FieldValue::Tensor(parse_tensor(s, d)?),
        FieldKind::Addr8 => {
            let mut it = s.split(':');
            let a = Addr8 {
                immediate: u32::try_from(parse_u64(it.next()?)?).ok()?,
                entry: u16::try_from(parse_u64(it.next()?)?).ok()?,
                b6: u8::try_from(parse_u64(it.next()?)?).ok()?,
                mode: u8::try_from(parse_u64(it.next()?)?).ok()?,
            };
            if it.next().is_some() {
                return None;
            }
            FieldValue::Addr8(a)
        }
        FieldKind::U32s(n) | FieldKind::U16s(n) => {
            let mut v = [0u32; 4];
            let mut count = 0;
            for (i, part) in s.split(',').enumerate() {
                *v.get_mut(i)? = u32::try_from(parse_u64(part)?).ok()?;
                count += 1;
            }
            if count != n as usize {
                return None;
            }
            FieldValue::Ints(v, n)
        }
        FieldKind::EventsExt => FieldValue::EventsExt(parse_events_ext(s)?),
    })
}

/// Parses a bare name or a `"..."` name with `\xNN`, `\\`, `\"` escapes.
fn parse_name(s: &str) -> Option<Vec<u8>> {
    let Some(inner) = s.strip_prefix('"') else {
        return Some(s.as_bytes().to_vec());
    };
    let inner = inner.strip_suffix('"')?;
    let b = inner.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' {
            match b.get(i + 1)? {
                b'x' => {
                    out.push(parse_hex_bytes(inner.get(i + 2..i + 4)?)?[0]);
                    i += 4;
                }
                c @ (b'\\' | b'"') => {
                    out.push(*c);
                    i += 2;
                }
                _ => return None,
            }
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    Some(out)
}

fn parse_tensor(s: &str, dims: u8) -> Option<Tensor> {
    let (addr, rest) = s.split_once('[')?;
    let body = rest.strip_suffix(']')?;
    let mut t = Tensor {
        start_addr: u32::try_from(parse_u64(addr)?).ok()?,
        dims,
        ..Tensor::default()
    };
    let mut count = 0;
    for (i, pair) in body.split(',').enumerate() {
        let (step, num) = pair.split_once(':')?;
        if i >= dims as usize {
            return None;
        }
        t.step[i] = i16::try_from(parse_i64(step)?).ok()?;
        t.num[i] = u16::try_from(parse_u64(num)?).ok()?;
        count += 1;
    }
    (count == dims as usize).then_some(t)
}

fn parse_events_ext(s: &str) -> Option<EventsExtended> {
    if let Some(hex) = s.strip_prefix("raw:") {
        let b: [u8; 12] = parse_hex_bytes(hex)?.try_into().ok()?;
        return Some(EventsExtended::from_bytes(&b));
    }
    let mut e = EventsExtended::default();
    for part in s.split(',') {
        match parse_event(part)? {
            EventToken::Wait(m, i, v) => {
                (e.wait_mode, e.wait_idx, e.sem_wait_value) = (m, i, v);
            }
            EventToken::Update(m, i, v) => {
                (e.update_mode, e.update_idx, e.sem_update_value) = (m, i, v);
            }
        }
    }
    Some(e)
}
