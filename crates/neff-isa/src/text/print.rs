//! The disassembler: one line per 64-byte slot (spec 003 §7 syntax; decision D4), written into
//! a caller's reused `String`.
//!
//! Line grammar: `MNEMONIC [events] [fields] [len=N] [debug_cmd=X] [debug_hint=N] [@0xOFF=HEX]*`
//! or `.slot <128 hex digits>` for an opcode the table does not know. Bytes no shown field covers
//! and that are not zero print as `@0xOFF=HEX` overlays, so every slot assembles back exactly.

use super::events_syntax::{push_update, push_wait, update_canonical, wait_canonical};
use super::number::{push_dec, push_hex, push_hex_bytes, push_hex_digits};
use crate::events::Dialect;
use crate::layout::{Field, FieldKind, FieldValue, Layout, Show};
use crate::opcode::Opcode;
use crate::payload;
use crate::slot::{INST_NWORDS, SLOT_BYTES, Slot};

/// The layout the text form uses for `op` in `dialect` (decision D2: in the legacy dialect only
/// PSEUDO_DMA_TRIGGER has a pinned layout, spec 003 §5; the rest are generic).
pub(crate) fn layout_for(op: Opcode, dialect: Dialect) -> Option<&'static Layout> {
    let info = op.info()?;
    Some(match dialect {
        Dialect::Semaphore8 => info.layout,
        Dialect::Legacy4 if op == Opcode::PSEUDO_DMA_TRIGGER => &payload::DMA_TRIGGER_LEGACY,
        Dialect::Legacy4 => &payload::GENERIC,
    })
}

/// Appends the text of one slot (no index prefix, no newline) to `out`.
pub fn print_slot(slot: &Slot<'_>, dialect: Dialect, out: &mut String) {
    let b = slot.bytes();
    let Some(layout) = layout_for(slot.opcode(), dialect) else {
        out.push_str(".slot ");
        push_hex_bytes(out, b);
        return;
    };
    out.push_str(slot.opcode().mnemonic().unwrap_or_default());
    let ev_end = match dialect {
        Dialect::Semaphore8 => {
            print_events(slot, out);
            12
        }
        Dialect::Legacy4 => {
            print_legacy_events(slot, out);
            8
        }
    };
    // Bit i set = byte i is shown by the header, the events or a field.
    let mut covered: u64 = (1u64 << ev_end) - 1;
    for f in layout.fields {
        covered |= (((1u128 << f.kind.size()) - 1) as u64) << f.offset;
        print_field(f, slot, out);
    }
    print_header_extras(slot, out);
    if nonzero_mask(b) & !covered != 0 {
        print_overlays(b, covered, out);
    }
}

/// Bit i set = byte i is not zero; eight bytes at a time (SWAR), the hot path of every line.
#[inline]
fn nonzero_mask(b: &[u8; SLOT_BYTES]) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let mut mask = 0u64;
    for (k, chunk) in b.chunks_exact(8).enumerate() {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        let w = u64::from_le_bytes(w);
        // High bit of each byte set iff the byte is non-zero.
        let high = (w | ((w & LOW7) + LOW7)) & !LOW7;
        // Gather the eight high bits into one byte (bit j = byte j).
        let bits = ((high >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56;
        mask |= bits << (8 * k);
    }
    mask
}

fn print_header_extras(slot: &Slot<'_>, out: &mut String) {
    if slot.inst_word_len() != INST_NWORDS {
        out.push_str(" len=");
        push_dec(out, slot.inst_word_len().into());
    }
    if slot.debug_cmd() != 0 {
        out.push_str(" debug_cmd=");
        push_hex(out, slot.debug_cmd().into());
    }
    if slot.debug_hint() != 0 {
        out.push_str(" debug_hint=");
        push_dec(out, slot.debug_hint().into());
    }
}

fn print_events(slot: &Slot<'_>, out: &mut String) {
    let e = slot.events();
    if e.is_none() {
        return;
    }
    let v = e.semaphore_value;
    let wait_uses = e.wait().is_some_and(|w| w.uses_value());
    let update_uses = e.update().is_some_and(|u| u.uses_value());
    let canonical = wait_canonical(e.wait_mode, e.wait_idx, if update_uses { 0 } else { v })
        && update_canonical(e.update_mode, e.update_idx, if wait_uses { 0 } else { v })
        && (v == 0 || wait_uses || update_uses);
    if canonical {
        if e.wait_mode != 0 {
            out.push(' ');
            push_wait(out, e.wait_mode, e.wait_idx, v);
        }
        if e.update_mode != 0 {
            out.push(' ');
            push_update(out, e.update_mode, e.update_idx, v);
        }
        return;
    }
    let pairs = [
        ("wait_mode", u64::from(e.wait_mode), true),
        ("wait_idx", u64::from(e.wait_idx), false),
        ("update_mode", u64::from(e.update_mode), true),
        ("update_idx", u64::from(e.update_idx), false),
        ("sem_value", u64::from(v), false),
    ];
    push_pairs(out, &pairs);
}

fn push_pairs(out: &mut String, pairs: &[(&str, u64, bool)]) {
    for &(k, x, hex) in pairs.iter().filter(|p| p.1 != 0) {
        out.push(' ');
        out.push_str(k);
        out.push('=');
        if hex {
            push_hex(out, x)
        } else {
            push_dec(out, x)
        }
    }
}

fn print_legacy_events(slot: &Slot<'_>, out: &mut String) {
    let e = slot.legacy_events();
    let pairs = [
        ("wait_event_mode", u64::from(e.wait_event_mode), false),
        ("wait_event_idx", u64::from(e.wait_event_idx), false),
        ("set_event_mode", u64::from(e.set_event_mode), false),
        ("set_event_idx", u64::from(e.set_event_idx), false),
    ];
    push_pairs(out, &pairs);
}

fn is_zero(slot: &Slot<'_>, f: &Field) -> bool {
    let o = f.offset as usize;
    match f.kind {
        FieldKind::Lo(_) => slot.u8_at(o) & 0xF == 0,
        FieldKind::Hi(_) => slot.u8_at(o) >> 4 == 0,
        k => slot.bytes()[o..o + k.size()].iter().all(|&c| c == 0),
    }
}

fn print_field(f: &Field, slot: &Slot<'_>, out: &mut String) {
    if f.show == Show::NonZero && is_zero(slot, f) {
        return;
    }
    out.push(' ');
    if f.show != Show::Positional {
        out.push_str(f.name);
        out.push('=');
    }
    push_value(f.kind, &f.read(slot), out);
}

/// Appends a field value in its text form (the parser's `parse_value` reads it back).
pub(crate) fn push_value(kind: FieldKind, v: &FieldValue, out: &mut String) {
    match (kind, v) {
        (FieldKind::Enum(t) | FieldKind::Lo(t) | FieldKind::Hi(t), FieldValue::Int(x)) => {
            match u8::try_from(*x).ok().and_then(|b| t.name_of(b)) {
                Some(n) => out.push_str(n),
                None => push_hex(out, *x),
            }
        }
        (FieldKind::Hex32 | FieldKind::Hex64, FieldValue::Int(x)) => push_hex(out, *x),
        (_, FieldValue::Int(x)) => push_dec(out, *x),
        (_, FieldValue::Name(b, n)) => push_name(&b[..*n as usize], out),
        (_, FieldValue::Tensor(t)) => {
            push_hex(out, t.start_addr.into());
            out.push('[');
            for i in 0..t.dims as usize {
                if i > 0 {
                    out.push(',');
                }
                if t.step[i] < 0 {
                    out.push('-');
                }
                push_dec(out, u64::from(t.step[i].unsigned_abs()));
                out.push(':');
                push_dec(out, t.num[i].into());
            }
            out.push(']');
        }
        (_, FieldValue::Addr8(a)) => {
            push_hex(out, a.immediate.into());
            out.push(':');
            push_dec(out, a.entry.into());
            out.push(':');
            push_dec(out, a.b6.into());
            out.push(':');
            push_hex(out, a.mode.into());
        }
        (_, FieldValue::Ints(v, n)) => {
            for (i, x) in v.iter().take(*n as usize).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_dec(out, (*x).into());
            }
        }
        (_, FieldValue::EventsExt(e)) => {
            let canonical = wait_canonical(e.wait_mode, e.wait_idx, e.sem_wait_value)
                && update_canonical(e.update_mode, e.update_idx, e.sem_update_value);
            if !canonical {
                out.push_str("raw:");
                push_hex_bytes(out, &e.to_bytes());
                return;
            }
            push_wait(out, e.wait_mode, e.wait_idx, e.sem_wait_value);
            if e.wait_mode != 0 && e.update_mode != 0 {
                out.push(',');
            }
            push_update(out, e.update_mode, e.update_idx, e.sem_update_value);
        }
    }
}

/// Whether a name prints bare: non-empty, `[A-Za-z0-9_.-]` only, and all bytes after the first
/// NUL are zero.
fn bare_name(field: &[u8]) -> Option<&[u8]> {
    let end = field.iter().position(|&c| c == 0).unwrap_or(field.len());
    let (name, tail) = field.split_at(end);
    let ok = !name.is_empty()
        && name
            .iter()
            .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-'))
        && tail.iter().all(|&c| c == 0);
    ok.then_some(name)
}

/// Appends a name field: bare when safe, else quoted with `\xNN` escapes up to its last non-zero
/// byte (so interior NULs and trailing garbage survive).
fn push_name(field: &[u8], out: &mut String) {
    if let Some(name) = bare_name(field) {
        out.extend(name.iter().map(|&c| c as char));
        return;
    }
    let end = field.iter().rposition(|&c| c != 0).map_or(0, |p| p + 1);
    out.push('"');
    for &c in &field[..end] {
        if (0x20..0x7f).contains(&c) && c != b'"' && c != b'\\' {
            out.push(c as char);
        } else {
            out.push_str("\\x");
            push_hex_bytes(out, &[c]);
        }
    }
    out.push('"');
}

/// Appends `@0xOFF=HEX` for each run of non-zero uncovered bytes (runs joined across gaps of up
/// to 3 zero bytes to keep lines short).
pub(crate) fn print_overlays(b: &[u8; SLOT_BYTES], covered: u64, out: &mut String) {
    let covered: [bool; SLOT_BYTES] = std::array::from_fn(|i| covered >> i & 1 != 0);
    let mut i = 0;
    while i < SLOT_BYTES {
        if covered[i] || b[i] == 0 {
            i += 1;
            continue;
        }
        let start = i;
        let mut end = i + 1;
        let mut j = end;
        while j < SLOT_BYTES && !covered[j] && j - end <= 3 {
            if b[j] != 0 {
                end = j + 1;
            }
            j += 1;
        }
        out.push_str(" @0x");
        push_hex_digits(out, start as u64);
        out.push('=');
        push_hex_bytes(out, &b[start..end]);
        i = end;
    }
}

#[cfg(test)]
mod tests {
    use super::nonzero_mask;

    #[test]
    fn nonzero_mask_matches_bytes() {
        let mut b = [0u8; 64];
        for (i, x) in [(0usize, 1u8), (7, 0x80), (8, 0xff), (33, 0x7f), (63, 2)] {
            b[i] = x;
        }
        let expect = (1u64 << 0) | (1 << 7) | (1 << 8) | (1 << 33) | (1 << 63);
        assert_eq!(nonzero_mask(&b), expect);
        assert_eq!(nonzero_mask(&[0xff; 64]), u64::MAX);
    }
}
