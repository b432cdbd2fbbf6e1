//! The assembler: reads exactly what the disassembler prints (decision D4), plus slot-index
//! prefixes (`12:`), comments (`#` or `//` to end of line), blank lines, an optional trailing `;`
//! (spec 003 §7 prints one), `.slot <hex>` (one raw 64-byte slot), `.bytes <hex>` (raw trailing
//! bytes of a stream) and `.sp` / SP mnemonics in an SP stream.

use super::continuation::{SEPARATOR, parse_continuation};
use super::events_syntax::{EventToken, parse_event};
use super::number::{parse_hex_bytes, parse_i64, parse_u64};
use super::print::layout_for;
use crate::dtype::DTYPE;
use crate::events::{Dialect, EventsExtended};
use crate::layout::{
    ADDR8_OFFSET_REG, ADDR8_TABLE, ADDR8_VAR, Addr8, Field, FieldKind, FieldValue, ImmForm, Layout,
    Pattern, Show, Tensor,
};
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
    // Bit k set = field k of the layout was given by a token.
    let mut set: u64 = 0;
    for &tok in rest {
        if tok.starts_with('$') {
            if dialect != Dialect::Semaphore8 {
                return Err(err(tok, "no `$` events in the legacy 4-byte dialect"));
            }
            add_event(&mut ev, tok)?;
        } else if let Some(o) = tok.strip_prefix('@') {
            overlays.push(parse_overlay(tok, o)?);
        } else if let Some((k, v)) = split_key(tok) {
            set |= set_key(&mut buf, &mut ev, layout, dialect, k, v, tok)?;
        } else {
            set |= set_positional(&mut buf, layout, set, tok)?;
        }
    }
    if dialect == Dialect::Semaphore8 {
        let mut e = ev.bytes;
        if let Some(v) = ev.wait_value.or(ev.update_value) {
            e[4..8].copy_from_slice(&v.to_le_bytes());
        }
        buf.0[4..12].copy_from_slice(&e);
    }
    fill_defaults(&mut buf, layout, set);
    for (o, bytes) in overlays {
        buf.0[o..o + bytes.len()].copy_from_slice(&bytes);
    }
    Ok(buf)
}

/// The bit of field `f` in a layout's `set` mask.
fn bit(layout: &Layout, f: &Field) -> u64 {
    layout
        .fields
        .iter()
        .position(|g| std::ptr::eq(g, f))
        .map_or(0, |k| 1 << k)
}

/// A bare token: the first positional field not yet given whose form it reads as.
fn set_positional(
    buf: &mut SlotBuf,
    layout: &Layout,
    set: u64,
    tok: &str,
) -> Result<u64, ParseError> {
    for f in layout.fields.iter().filter(|f| f.show == Show::Positional) {
        let b = bit(layout, f);
        if set & b != 0 {
            continue;
        }
        if let Some(v) = parse_value(f.kind, tok) {
            f.write(buf, &v)
                .map_err(|()| err(tok, "a value that fits the field"))?;
            return Ok(b);
        }
    }
    Err(err(
        tok,
        "a `key=value`, `$` event, `@0xOFF=HEX` token or a positional operand",
    ))
}

/// Fields a line may leave out: `Unless(v)` means `v`, `Mirror(at)` a copy of byte `at`.
fn fill_defaults(buf: &mut SlotBuf, layout: &Layout, set: u64) {
    for (k, f) in layout.fields.iter().enumerate() {
        if set & (1 << k) != 0 {
            continue;
        }
        match f.show {
            Show::Unless(v) => buf.0[f.offset as usize] = v,
            Show::Mirror(at) => buf.0[f.offset as usize] = buf.0[at as usize],
            _ => {}
        }
    }
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
) -> Result<u64, ParseError> {
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
        return Ok(0);
    }
    if k == "sem_value" && dialect == Dialect::Semaphore8 {
        let x = int(u32::MAX.into())? as u32;
        ev.wait_value = Some(x);
        ev.update_value = None;
        return Ok(0);
    }
    let key = if k == "count" { "block_id" } else { k };
    let fields = layout.keyed(key);
    if let [f] = fields {
        let value =
            parse_value(f.kind, v).ok_or_else(|| err(tok, "a value of the field's kind"))?;
        f.write(buf, &value)
            .map_err(|()| err(tok, "a value that fits the field"))?;
        return Ok(bit(layout, f));
    }
    if !fields.is_empty() {
        return set_group(buf, layout, fields, v, tok);
    }
    if let Some(b) = set_ptr_operand(buf, layout, key, v, tok)? {
        return Ok(b);
    }
    set_addr8_part(buf, layout, key, v, tok)
}

/// `key=a,b` for a group of fields sharing the key.
fn set_group(
    buf: &mut SlotBuf,
    layout: &Layout,
    fields: &[Field],
    v: &str,
    tok: &str,
) -> Result<u64, ParseError> {
    let parts: Vec<&str> = v.split(',').collect();
    if parts.len() != fields.len() {
        return Err(err(tok, format!("{} comma-separated values", fields.len())));
    }
    let mut set = 0;
    for (f, part) in fields.iter().zip(parts) {
        let value =
            parse_value(f.kind, part).ok_or_else(|| err(tok, "a value of the field's kind"))?;
        f.write(buf, &value)
            .map_err(|()| err(tok, "a value that fits the field"))?;
        set |= bit(layout, f);
    }
    Ok(set)
}

/// `<key>_ptr=[dtype@]0xADDR`: the address form of an operand field printed with a suffix.
fn set_ptr_operand(
    buf: &mut SlotBuf,
    layout: &Layout,
    key: &str,
    v: &str,
    tok: &str,
) -> Result<Option<u64>, ParseError> {
    let Some(base) = key.strip_suffix("_ptr") else {
        return Ok(None);
    };
    let Some(f) = layout
        .keyed(base)
        .iter()
        .find(|f| matches!(f.kind, FieldKind::Operand(op) if op.ptr_suffix))
    else {
        return Ok(None);
    };
    let (dtype, addr) = split_dtype(v).ok_or_else(|| err(tok, "a dtype"))?;
    let bits = parse_u64(addr)
        .and_then(|x| u32::try_from(x).ok())
        .ok_or_else(|| err(tok, "a 32-bit address"))?;
    let value = FieldValue::Operand {
        bits,
        ptr: true,
        dtype,
    };
    f.write(buf, &value)
        .map_err(|()| err(tok, "a value that fits the field"))?;
    Ok(Some(bit(layout, f)))
}

/// `<field>_var_id=`, `<field>_table_index=`, ...: one part of an ADDR8 (decision D132). The
/// `var_*` keys set mode 0x10, the `table_*` keys mode 0x20; `mode=` sets it explicitly.
fn set_addr8_part(
    buf: &mut SlotBuf,
    layout: &Layout,
    key: &str,
    v: &str,
    tok: &str,
) -> Result<u64, ParseError> {
    let found = layout.fields.iter().find_map(|f| {
        let part = key.strip_prefix(f.key)?.strip_prefix('_')?;
        matches!(f.kind, FieldKind::Addr8).then_some((f, part))
    });
    let Some((f, part)) = found else {
        return Err(err(tok, format!("a field of {}", layout.name)));
    };
    let FieldValue::Addr8(mut a) = f.read(&buf.view()) else {
        return Err(err(tok, "an ADDR8 field"));
    };
    let x = parse_u64(v).ok_or_else(|| err(tok, "a number"))?;
    if !set_addr8_key(&mut a, part, x).ok_or_else(|| err(tok, "a smaller number"))? {
        return Err(err(tok, format!("a field of {}", layout.name)));
    }
    f.write(buf, &FieldValue::Addr8(a))
        .map_err(|()| err(tok, "an ADDR8 part"))?;
    Ok(bit(layout, f))
}

/// Splits `fp32@0x10` into the dtype code and the rest; no `@` means no dtype.
fn split_dtype(s: &str) -> Option<(Option<u8>, &str)> {
    match s.split_once('@') {
        None => Some((None, s)),
        Some((d, rest)) => {
            let code = DTYPE
                .value_of(d)
                .or_else(|| parse_u64(d).and_then(|x| u8::try_from(x).ok()))?;
            Some((Some(code), rest))
        }
    }
}

/// Parses an fp32 in the forms `push_f32` prints (`1.000000`, `1e-6` style decimals,
/// `bits:0x..`); the result is the bits.
fn parse_f32(s: &str) -> Option<u32> {
    if let Some(b) = s.strip_prefix("bits:") {
        return parse_u64(b).and_then(|x| u32::try_from(x).ok());
    }
    let ok = s
        .bytes()
        .all(|c| c.is_ascii_digit() || matches!(c, b'.' | b'-' | b'+' | b'e' | b'E'));
    ok.then(|| s.parse::<f32>().ok().map(f32::to_bits))?
}

/// Parses a field value in the form `push_value` prints.
pub(crate) fn parse_value(kind: FieldKind, s: &str) -> Option<FieldValue> {
    Some(match kind {
        FieldKind::Enum(t) | FieldKind::Lo(t) | FieldKind::Hi(t) => {
            FieldValue::Int(t.value_of(s).map(u64::from).or_else(|| parse_u64(s))?)
        }
        FieldKind::U8
        | FieldKind::Hex8
        | FieldKind::U16
        | FieldKind::U32
        | FieldKind::U64
        | FieldKind::Hex32
        | FieldKind::Hex64 => FieldValue::Int(parse_u64(s)?),
        FieldKind::F32 => FieldValue::Int(parse_f32(s)?.into()),
        FieldKind::Name(n) => {
            let bytes = parse_name(s)?;
            if bytes.len() > n as usize {
                return None;
            }
            let mut b = [0u8; 32];
            b[..bytes.len()].copy_from_slice(&bytes);
            FieldValue::Name(b, n)
        }
        FieldKind::Tensor(d, at) => {
            let (dtype, rest) = split_dtype(s)?;
            if dtype.is_some() != at.is_some() {
                return None;
            }
            FieldValue::Tensor(Tensor {
                dtype,
                ..parse_tensor(rest, d)?
            })
        }
        FieldKind::Pattern(d) => FieldValue::Pattern(parse_pattern(s, d)?),
        FieldKind::Addr8 => FieldValue::Addr8(parse_addr8(s)?),
        FieldKind::Ptr(at) => {
            let (dtype, rest) = split_dtype(s)?;
            if dtype.is_some() != at.is_some() {
                return None;
            }
            FieldValue::Ptr(u32::try_from(parse_u64(rest)?).ok()?, dtype)
        }
        FieldKind::Operand(op) => {
            let (dtype, rest) = split_dtype(s)?;
            if dtype.is_some() != op.dtype.is_some() {
                return None;
            }
            let bits = match op.imm {
                ImmForm::F32 => parse_f32(rest)?,
                ImmForm::U32 => u32::try_from(parse_u64(rest)?).ok()?,
            };
            FieldValue::Operand {
                bits,
                ptr: false,
                dtype,
            }
        }
        FieldKind::Shape => {
            let (r, c) = s.split_once('*')?;
            FieldValue::Ints(
                [
                    u8::try_from(parse_u64(r)?).ok()?.into(),
                    u8::try_from(parse_u64(c)?).ok()?.into(),
                    0,
                    0,
                ],
                2,
            )
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

/// Parses the value-column form of an ADDR8 (`var_id=5 var_offset=0 shape_reg=0`).
fn parse_addr8(s: &str) -> Option<Addr8> {
    let mut a = Addr8::default();
    for part in s.split_whitespace() {
        let (k, v) = part.split_once('=')?;
        if !set_addr8_key(&mut a, k, parse_u64(v)?)? {
            return None;
        }
    }
    Some(a)
}

/// Sets one key of an ADDR8's text (decision D132): the `var_*` keys select mode 0x10, the
/// `table_*` keys 0x20, `offset_reg` adds 0x08 (keeping the other mode bits), `mode` sets it
/// whole. `Some(false)` for an unknown key, `None` for a value too wide.
fn set_addr8_key(a: &mut Addr8, key: &str, x: u64) -> Option<bool> {
    let keep_reg = a.mode & ADDR8_OFFSET_REG;
    match key {
        "var_id" => (a.entry, a.mode) = (u16::try_from(x).ok()?, ADDR8_VAR | keep_reg),
        "var_offset" => (a.immediate, a.mode) = (u32::try_from(x).ok()?, ADDR8_VAR | keep_reg),
        "table_index" => (a.entry, a.mode) = (u16::try_from(x).ok()?, ADDR8_TABLE | keep_reg),
        "table_offset_imm" => {
            (a.immediate, a.mode) = (u32::try_from(x).ok()?, ADDR8_TABLE | keep_reg)
        }
        "offset_reg" => (a.immediate, a.mode) = (u32::try_from(x).ok()?, a.mode | ADDR8_OFFSET_REG),
        "entry" => a.entry = u16::try_from(x).ok()?,
        "imm" => a.immediate = u32::try_from(x).ok()?,
        "shape_reg" => a.b6 = u8::try_from(x).ok()?,
        "mode" => a.mode = u8::try_from(x).ok()?,
        _ => return Some(false),
    }
    Some(true)
}

/// Parses `[s0,s1,..][n0,n1,..]` with exactly `dims` entries in each list: the steps (signed)
/// and the counts of a tensor or DMA pattern, no allocation.
fn parse_step_num(s: &str, dims: u8) -> Option<([i64; 4], [u16; 4])> {
    let (steps, nums) = s.strip_prefix('[')?.strip_suffix(']')?.split_once("][")?;
    let d = dims as usize;
    let (mut step, mut num) = ([0i64; 4], [0u16; 4]);
    let (mut ks, mut kn) = (0, 0);
    for part in steps.split(',') {
        *step.get_mut(ks).filter(|_| ks < d)? = parse_i64(part)?;
        ks += 1;
    }
    for part in nums.split(',') {
        *num.get_mut(kn).filter(|_| kn < d)? = u16::try_from(parse_u64(part)?).ok()?;
        kn += 1;
    }
    (ks == d && kn == d).then_some((step, num))
}

fn parse_pattern(s: &str, dims: u8) -> Option<Pattern> {
    let (step, num) = parse_step_num(s, dims)?;
    let mut p = Pattern {
        dims,
        num,
        ..Pattern::default()
    };
    for (to, from) in p.step.iter_mut().zip(step) {
        *to = u32::try_from(from).ok()?;
    }
    Some(p)
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
    let (addr, lists) = s.split_at(s.find('[')?);
    let (step, num) = parse_step_num(lists, dims)?;
    let mut t = Tensor {
        start_addr: u32::try_from(parse_u64(addr)?).ok()?,
        dims,
        num,
        ..Tensor::default()
    };
    for (to, from) in t.step.iter_mut().zip(step) {
        *to = i16::try_from(from).ok()?;
    }
    Some(t)
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
