//! The disassembler: one line per 64-byte slot (spec 003 §7 syntax; decision D4), written into
//! a caller's reused `String`.
//!
//! Line grammar: `MNEMONIC [events] [fields] [len=N] [debug_cmd=X] [debug_hint=N] [@0xOFF=HEX]*`
//! or `.slot <128 hex digits>` for an opcode the table does not know. Operands print in
//! neuron-profile's spelling (decision D130): `src=fp32@0x36ff8[1,0,0][512,1,1]`, `ops=A,B`. Bytes no shown field covers
//! and that are not zero print as `@0xOFF=HEX` overlays, so every slot assembles back exactly.

use super::events_syntax::{push_update, push_wait, update_canonical, wait_canonical};
use super::number::{push_hex, push_hex_bytes};
use super::plan::{Covered, always_shown, never_shown, token_key};
use super::sink::{TextSink, dec_digits, with_window};
use super::window::Window;
use crate::dtype::{DTYPE, Dtype};
use crate::events::Dialect;
use crate::field_enum::EnumTable;
use crate::layout::{
    ADDR8_OFFSET_REG, ADDR8_TABLE, ADDR8_VAR, Addr8, DtypeAt, Field, FieldKind, FieldValue,
    HasTable, ImmForm, Layout, Operand, Show, Tensor, tensor_at,
};
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
pub fn print_slot<W: TextSink + ?Sized>(slot: &Slot<'_>, dialect: Dialect, out: &mut W) {
    let b = slot.bytes();
    let Some(layout) = layout_for(slot.opcode(), dialect) else {
        out.push_str(".slot ");
        push_hex_bytes(out, b);
        return;
    };
    out.push_str(slot.opcode().mnemonic().unwrap_or_default());
    // The header and the events (8 or 12 bytes) are shown whatever the layout.
    const SHOWN_8: Covered = Covered::new((1 << 12) - 1);
    const SHOWN_4: Covered = Covered::new((1 << 8) - 1);
    let shown = match dialect {
        Dialect::Semaphore8 => {
            print_events(slot, out);
            &SHOWN_8
        }
        Dialect::Legacy4 => {
            print_legacy_events(slot, out);
            &SHOWN_4
        }
    };
    let fields_covered = match (layout.compiled_printer(), out.as_text_buf()) {
        (Some(c), Some(buf)) => {
            (c.print)(slot, buf);
            &c.covered
        }
        _ => {
            let plan = layout.print_plan();
            for t in plan.tokens.iter() {
                print_token(t.fields, &t.key, &t.ptr_key, slot, out);
            }
            &plan.covered
        }
    };
    let covered = fields_covered.or(shown);
    print_header_extras(slot, out);
    if covered.misses(b) {
        print_overlays(b, covered.bits, out);
    }
}

/// The bytes a field covers, as a mask (bit i = byte i).
#[inline]
pub(crate) const fn field_mask(f: &Field) -> u64 {
    (((1u128 << f.kind.size()) - 1) as u64) << f.offset
}

fn print_header_extras<W: TextSink + ?Sized>(slot: &Slot<'_>, out: &mut W) {
    if slot.inst_word_len() != INST_NWORDS {
        out.push_str(" len=");
        out.push_dec(slot.inst_word_len().into());
    }
    if slot.debug_cmd() != 0 {
        out.push_str(" debug_cmd=");
        push_hex(out, slot.debug_cmd().into());
    }
    if slot.debug_hint() != 0 {
        out.push_str(" debug_hint=");
        out.push_dec(slot.debug_hint().into());
    }
}

fn print_events<W: TextSink + ?Sized>(slot: &Slot<'_>, out: &mut W) {
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

fn push_pairs<W: TextSink + ?Sized>(out: &mut W, pairs: &[(&str, u64, bool)]) {
    for &(k, x, hex) in pairs.iter().filter(|p| p.1 != 0) {
        out.push(' ');
        out.push_str(k);
        out.push('=');
        if hex {
            push_hex(out, x)
        } else {
            out.push_dec(x)
        }
    }
}

fn print_legacy_events<W: TextSink + ?Sized>(slot: &Slot<'_>, out: &mut W) {
    let e = slot.legacy_events();
    let pairs = [
        ("wait_event_mode", u64::from(e.wait_event_mode), false),
        ("wait_event_idx", u64::from(e.wait_event_idx), false),
        ("set_event_mode", u64::from(e.set_event_mode), false),
        ("set_event_idx", u64::from(e.set_event_idx), false),
    ];
    push_pairs(out, &pairs);
}

/// Whether field `f` of `b` is zero (one load and compare for a field of 1, 2 or 4 bytes).
#[inline(always)]
fn is_zero(b: &[u8; SLOT_BYTES], f: &Field) -> bool {
    let o = f.offset as usize;
    match f.kind {
        FieldKind::Lo(_) => b[o] & 0xF == 0,
        FieldKind::Hi(_) => b[o] >> 4 == 0,
        k => match k.size() {
            1 => b[o] == 0,
            2 => u16::from_le_bytes([b[o], b[o + 1]]) == 0,
            4 => u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]) == 0,
            n => b[o..o + n].iter().all(|&c| c == 0),
        },
    }
}

/// Whether a field's show policy hides it on this slot.
#[inline(always)]
fn hidden(f: &Field, slot: &Slot<'_>) -> bool {
    let b = slot.bytes();
    match f.show {
        Show::Joined => true,
        Show::NonZero => is_zero(b, f),
        Show::Unless(v) => b[f.offset as usize] == v,
        Show::Mirror(at) => b[f.offset as usize] == b[at as usize],
        Show::Positional | Show::Always => false,
    }
}

/// Prints one token: a field, or a group of fields sharing a key as `key=a,b` (shown when any
/// member is); `key` and `ptr_key` are its ` key=` and ` key_ptr=` texts. The plan walk and the
/// compiled printers of `view!` (decision D374) both print through it, the latter with every
/// argument but the slot known at compile time.
#[inline(always)]
pub(crate) fn print_token<W: TextSink + ?Sized>(
    fields: &'static [Field],
    key: &str,
    ptr_key: &str,
    slot: &Slot<'_>,
    out: &mut W,
) {
    if never_shown(fields) {
        return;
    }
    let always = always_shown(fields);
    let [f] = fields else {
        if !always && fields.iter().all(|f| hidden(f, slot)) {
            return;
        }
        out.push_str(key);
        for (k, f) in fields.iter().enumerate() {
            if k > 0 {
                out.push(',');
            }
            push_field(f, slot, out);
        }
        return;
    };
    if !always && hidden(f, slot) {
        return;
    }
    match f.kind {
        FieldKind::Addr8 => {
            if let FieldValue::Addr8(a) = f.read(slot) {
                push_addr8(Some(f.key), &a, out);
            }
            return;
        }
        FieldKind::Operand(op) if op.ptr_suffix && op.is_ptr(slot.bytes()) => out.push_str(ptr_key),
        _ => out.push_str(token_key(fields, key)),
    }
    push_field(f, slot, out);
}

/// Appends what `push_value(f.kind, &f.read(slot))` appends, reading the kinds of most lines
/// straight from the slot instead of through a [`FieldValue`] (issue 20: building and matching
/// it was a fifth of the formatting time).
#[inline(always)]
fn push_field<W: TextSink + ?Sized>(f: &Field, slot: &Slot<'_>, out: &mut W) {
    let b = slot.bytes();
    let o = f.offset as usize;
    if let Some(x) = f.read_int(slot) {
        return push_int(f.kind, x, out);
    }
    match f.kind {
        FieldKind::Name(n) => push_name(&b[o..o + n as usize], out),
        FieldKind::Tensor(3, dt) => push_tensor_of::<W, 3>(slot, o, dt, out),
        FieldKind::Tensor(4, dt) => push_tensor_of::<W, 4>(slot, o, dt, out),
        FieldKind::Tensor(d, dt) => push_tensor(&tensor_at(slot, o, d, dt), out),
        FieldKind::Operand(op) => push_operand(
            op,
            slot.u32_at(o),
            op.is_ptr(b),
            op.dtype.map(|at| at.read(b)),
            out,
        ),
        FieldKind::Shape => push_shape(b[o], b[o + 1], out),
        _ => push_value(f.kind, &f.read(slot), out),
    }
}

/// Appends the value `x` of an integer field of kind `kind` (what [`Field::read_int`] reads):
/// enums by name, hex kinds in hex, an `F32` from its bits, the rest in decimal. The one writer of
/// these kinds for [`push_field`] (from the slot) and [`push_value`] (from a [`FieldValue`]).
#[inline(always)]
fn push_int<W: TextSink + ?Sized>(kind: FieldKind, x: u64, out: &mut W) {
    match kind {
        FieldKind::Enum(t) | FieldKind::Lo(t) | FieldKind::Hi(t) => match u8::try_from(x) {
            Ok(b) => push_enum(t, b, out),
            Err(_) => push_hex(out, x),
        },
        FieldKind::Hex8 | FieldKind::Hex32 | FieldKind::Hex64 => push_hex(out, x),
        FieldKind::F32 => push_f32(x as u32, out),
        _ => out.push_dec(x),
    }
}

/// Appends an enum byte by name, in hex when the table has none.
#[inline]
fn push_enum<W: TextSink + ?Sized>(t: &EnumTable, x: u8, out: &mut W) {
    match t.name_of(x) {
        Some(n) => out.push_str(n),
        None => push_hex(out, x.into()),
    }
}

/// [`push_tensor`] of the `D`-dimensional tensor field at `o`: one routine per dimension count,
/// its loops unrolled.
#[inline(never)]
fn push_tensor_of<W: TextSink + ?Sized, const D: u8>(
    slot: &Slot<'_>,
    o: usize,
    dt: Option<DtypeAt>,
    out: &mut W,
) {
    push_tensor(&tensor_at(slot, o, D, dt), out)
}

/// The room a tensor's text needs: `<dtype>@` (a 16-byte copy), `0x` and 8 digits, per dimension
/// `-32768,` and `65535,`, the brackets, and a number's word of slack.
const TENSOR_ROOM: usize = 128;

/// Appends a tensor as `fp32@0x36ff8[1,0,0][512,1,1]` (decision D130), through one window.
#[inline(always)]
fn push_tensor<W: TextSink + ?Sized>(t: &Tensor, out: &mut W) {
    with_window!(out, TENSOR_ROOM, write_tensor, t);
}

/// Writes [`push_tensor`]'s text. Needs [`TENSOR_ROOM`].
#[inline(always)]
fn write_tensor(w: &mut Window<'_>, t: &Tensor) {
    if let Some(d) = t.dtype {
        dtype_prefix(w, d);
    }
    w.bytes(b"0x");
    w.hex(t.start_addr.into());
    w.byte(b'[');
    let d = usize::from(t.dims).min(t.step.len());
    for (i, s) in t.step[..d].iter().enumerate() {
        if i > 0 {
            w.byte(b',');
        }
        if *s < 0 {
            w.byte(b'-');
        }
        w.dec(s.unsigned_abs().into());
    }
    w.bytes(b"][");
    for (i, n) in t.num[..d].iter().enumerate() {
        if i > 0 {
            w.byte(b',');
        }
        w.dec((*n).into());
    }
    w.byte(b']');
}

/// Appends an operand: `<dtype>@0xADDR` for an address, else its immediate.
#[inline]
fn push_operand<W: TextSink + ?Sized>(
    op: Operand,
    bits: u32,
    ptr: bool,
    dtype: Option<u8>,
    out: &mut W,
) {
    push_dtype_prefix(dtype, out);
    match (ptr, op.imm) {
        (true, _) => push_hex(out, bits.into()),
        (false, ImmForm::F32) => push_f32(bits, out),
        (false, ImmForm::U32) => out.push_dec(bits.into()),
    }
}

/// Appends the active PE rows and columns, `128*128`.
#[inline]
fn push_shape<W: TextSink + ?Sized>(rows: u8, cols: u8, out: &mut W) {
    out.push_dec(rows.into());
    out.push('*');
    out.push_dec(cols.into());
}

/// Appends an ADDR8 in the keys of neuron-profile's `compiler_operands` (decision D132): by mode,
/// `var_id= var_offset=` (0x10), `table_offset_imm= table_index=` (0x20), `var_id= / table_index=
/// offset_reg=` (0x18 / 0x28: the immediate names the register, D155), else the raw parts; then
/// `shape_reg=`. With a prefix each key is ` <prefix>_<key>=`; without, keys are joined by
/// spaces (the `neff dump` value column).
pub(crate) fn push_addr8<W: TextSink + ?Sized>(prefix: Option<&str>, a: &Addr8, out: &mut W) {
    let key = |out: &mut W, k: &str| {
        match prefix {
            Some(p) => {
                out.push(' ');
                out.push_str(p);
                out.push('_');
            }
            None if out.last_byte().is_some_and(|c| c != b' ') => out.push(' '),
            None => {}
        }
        out.push_str(k);
        out.push('=');
    };
    match a.mode {
        ADDR8_VAR => {
            key(out, "var_id");
            out.push_dec(a.entry.into());
            key(out, "var_offset");
            out.push_dec(a.immediate.into());
        }
        ADDR8_TABLE => {
            key(out, "table_offset_imm");
            out.push_dec(a.immediate.into());
            key(out, "table_index");
            out.push_dec(a.entry.into());
        }
        m if m == ADDR8_VAR | ADDR8_OFFSET_REG || m == ADDR8_TABLE | ADDR8_OFFSET_REG => {
            key(
                out,
                if m & ADDR8_VAR != 0 {
                    "var_id"
                } else {
                    "table_index"
                },
            );
            out.push_dec(a.entry.into());
            key(out, "offset_reg");
            out.push_dec(a.immediate.into());
        }
        m => {
            key(out, "mode");
            push_hex(out, m.into());
            key(out, "imm");
            push_hex(out, a.immediate.into());
            key(out, "entry");
            out.push_dec(a.entry.into());
        }
    }
    key(out, "shape_reg");
    out.push_dec(a.b6.into());
}

/// `<name>@` of each dtype code below 16, from the one [`DTYPE`] table, the length in the
/// last byte (0: no name): a tensor's prefix is one 16-byte copy (decision D374).
const DTYPE_AT: [[u8; 16]; 16] = at_prefixes(&<Dtype as HasTable>::TABLE);

const fn at_prefixes(t: &EnumTable) -> [[u8; 16]; 16] {
    let mut out = [[0u8; 16]; 16];
    let mut e = 0;
    while e < t.entries.len() {
        let (v, name) = t.entries[e];
        let name = name.as_bytes();
        // Every name fits a prefix (and so `DTYPE_ROOM`), checked at compile time.
        assert!(name.len() < 15, "a dtype name of 15 bytes or more");
        if (v as usize) < out.len() {
            let p = &mut out[v as usize];
            let mut i = 0;
            while i < name.len() {
                p[i] = name[i];
                i += 1;
            }
            p[i] = b'@';
            p[15] = i as u8 + 1;
        }
        e += 1;
    }
    out
}

/// The room of `<dtype>@`: a 16-byte copy.
const DTYPE_ROOM: usize = 16;

/// Appends `<dtype>@` for an operand that names its dtype.
#[inline(always)]
fn push_dtype_prefix<W: TextSink + ?Sized>(dtype: Option<u8>, out: &mut W) {
    if let Some(d) = dtype {
        with_window!(out, DTYPE_ROOM, dtype_prefix, d);
    }
}

/// Writes `<dtype>@` of code `d` (its name, else its code in hex). Needs [`DTYPE_ROOM`].
#[inline(always)]
fn dtype_prefix(w: &mut Window<'_>, d: u8) {
    match DTYPE_AT.get(usize::from(d)) {
        Some(p) if p[15] != 0 => w.ascii16(p, usize::from(p[15])),
        _ => {
            let (p, n) = other_dtype_prefix(d);
            w.ascii16(&p, n);
        }
    }
}

/// `<dtype>@` of a code [`DTYPE_AT`] does not name, and its length: out of line and pure, so
/// that the window of the common path stays in registers.
#[cold]
#[inline(never)]
fn other_dtype_prefix(d: u8) -> ([u8; 16], usize) {
    let mut text = String::new();
    match DTYPE.name_of(d) {
        Some(n) => text.push_str(n),
        None => push_hex(&mut text, d.into()),
    }
    text.push('@');
    let mut p = [0u8; 16];
    // A name is shorter than 15 bytes (checked by `at_prefixes`), `0xff@` is 5.
    let n = text.len().min(16);
    p[..n].copy_from_slice(&text.as_bytes()[..n]);
    (p, n)
}

/// Appends `[a,b,c]`.
fn push_list<W: TextSink + ?Sized>(out: &mut W, items: impl Iterator<Item = (bool, u64)>) {
    out.push('[');
    for (i, (neg, x)) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        if neg {
            out.push('-');
        }
        out.push_dec(x);
    }
    out.push(']');
}

/// Appends an fp32 as neuron-profile prints it, `%.6f` (`1.000000`), when that text reads back
/// to the same bits; else the shortest exact decimal; non-finite values as `bits:0x..`.
pub(crate) fn push_f32<W: TextSink + ?Sized>(bits: u32, out: &mut W) {
    if let Some(n) = whole_f32(bits) {
        return with_window!(out, WHOLE_ROOM, write_whole, (bits >> 31 != 0, n));
    }
    let f = f32::from_bits(bits);
    if push_f32_exact6(f, out) {
        return;
    }
    if f.is_finite() {
        for text in [format!("{f:.6}"), format!("{f}")] {
            if text.parse::<f32>().is_ok_and(|g| g.to_bits() == bits) {
                out.push_str(&text);
                return;
            }
        }
    }
    out.push_str("bits:");
    push_hex(out, bits.into());
}

/// The room of [`write_whole`]: a sign, 7 digits and `.000000`, and a number's word of slack.
const WHOLE_ROOM: usize = 40;

/// The magnitude of an fp32 that is +0 or a whole number below 2^23, from its bits alone (the
/// scales and immediates of most lines: `scale=1.000000 imm=0.000000`); `None` for the rest
/// (-0.0 included), which [`push_f32_exact6`] or `fmt` print.
#[inline(always)]
fn whole_f32(bits: u32) -> Option<u64> {
    if bits == 0 {
        return Some(0);
    }
    let exp = (bits >> 23) & 0xFF;
    // 1 <= |f| < 2^23: the value is the significand shifted right by 150 - exp (1..=23) bits,
    // whole when those bits are zero.
    let shift = 150u32.checked_sub(exp).filter(|s| (1..=23).contains(s))?;
    let significand = (bits & 0x7F_FFFF) | 0x80_0000;
    (significand & ((1 << shift) - 1) == 0).then_some(u64::from(significand >> shift))
}

/// Writes a whole fp32's `%.6f` text: `-`, the digits, `.000000`. Needs [`WHOLE_ROOM`].
#[inline(always)]
fn write_whole(w: &mut Window<'_>, (negative, n): (bool, u64)) {
    if negative {
        w.byte(b'-');
    }
    w.dec(n);
    w.bytes(b".000000");
}

/// The `%.6f` text of `f` without `fmt`, when that text is `f` exactly (so it reads back to the
/// same bits with no check): `f * 1e6` is an integer. The product is exact in f64 (24 significant
/// bits of f32 times the 14 odd bits of 1e6 = 2^6 x 15625 fit in 53), so `fract() == 0` decides
/// it. Covers the scales, bounds and steps programs use (1.0, 0.5, 0.125, -3.0); the rest and
/// -0.0 take the `fmt` path. Returns whether it wrote.
fn push_f32_exact6<W: TextSink + ?Sized>(f: f32, out: &mut W) -> bool {
    let x = f64::from(f) * 1e6;
    if x.fract() != 0.0 || x.abs() >= 1e18 || (x == 0.0 && f.is_sign_negative()) {
        return false;
    }
    if x < 0.0 {
        out.push('-');
    }
    let n = x.abs() as u64;
    out.push_dec(n / 1_000_000);
    match n % 1_000_000 {
        // Whole numbers (`scale=1.000000` of every ACTIVATE).
        0 => out.push_str(".000000"),
        frac => {
            // The six digits with their leading zeros: those of 1_000_000 + frac after the `1`.
            let mut digits = [0; 20];
            let text = dec_digits(1_000_000 + frac, &mut digits);
            out.push('.');
            out.push_ascii(&text[1..]);
        }
    }
    true
}

/// Appends a field value in its text form (the parser's `parse_value` reads it back).
pub(crate) fn push_value<W: TextSink + ?Sized>(kind: FieldKind, v: &FieldValue, out: &mut W) {
    match (kind, v) {
        (_, FieldValue::Int(x)) => push_int(kind, *x, out),
        (_, FieldValue::Name(b, n)) => push_name(&b[..*n as usize], out),
        (_, FieldValue::Tensor(t)) => push_tensor(t, out),
        (_, FieldValue::Pattern(p)) => {
            let d = p.dims as usize;
            push_list(out, p.step[..d].iter().map(|s| (false, u64::from(*s))));
            push_list(out, p.num[..d].iter().map(|n| (false, u64::from(*n))));
        }
        (_, FieldValue::Addr8(a)) => push_addr8(None, a, out),
        (_, FieldValue::Ptr(x, dtype)) => {
            push_dtype_prefix(*dtype, out);
            push_hex(out, (*x).into());
        }
        (FieldKind::Operand(op), FieldValue::Operand { bits, ptr, dtype }) => {
            push_operand(op, *bits, *ptr, *dtype, out)
        }
        (_, FieldValue::Operand { bits, .. }) => push_hex(out, (*bits).into()),
        (FieldKind::Shape, FieldValue::Ints(v, _)) => push_shape(v[0] as u8, v[1] as u8, out),
        (_, FieldValue::Ints(v, n)) => {
            for (i, x) in v.iter().take(*n as usize).enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_dec((*x).into());
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

/// The bytes a bare name may hold: `[A-Za-z0-9_.-]`.
const BARE: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-');
        c += 1;
    }
    t
};

/// Whether a name prints bare: non-empty, `[A-Za-z0-9_.-]` only, and all bytes after the first
/// NUL are zero. The NUL and the tail are found from the field's non-zero byte mask, eight bytes
/// at a time (a 32-byte queue name is mostly padding).
fn bare_name(field: &[u8]) -> Option<&[u8]> {
    let Some(nonzero) = nonzero_bytes(field) else {
        let end = field.iter().position(|&c| c == 0).unwrap_or(field.len());
        let (name, tail) = field.split_at(end);
        let ok = tail.iter().all(|&c| c == 0);
        return (ok && !name.is_empty() && name.iter().all(|&c| BARE[usize::from(c)]))
            .then_some(name);
    };
    let end = nonzero.trailing_ones() as usize;
    let name = &field[..end.min(field.len())];
    let ok = end > 0
        && nonzero.checked_shr(end as u32).unwrap_or(0) == 0
        && name.iter().all(|&c| BARE[usize::from(c)]);
    ok.then_some(name)
}

/// Bit i set = byte i of `field` is not zero, for a field of whole words up to 64 bytes.
#[inline]
fn nonzero_bytes(field: &[u8]) -> Option<u64> {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    if field.len() > 64 || !field.len().is_multiple_of(8) {
        return None;
    }
    let mut mask = 0u64;
    for (k, chunk) in field.chunks_exact(8).enumerate() {
        let mut w = [0u8; 8];
        w.copy_from_slice(chunk);
        let w = u64::from_le_bytes(w);
        // High bit of each byte set iff the byte is non-zero; then the eight gathered into one.
        let high = (w | ((w & LOW7) + LOW7)) & !LOW7;
        mask |= (((high >> 7).wrapping_mul(0x0102_0408_1020_4080)) >> 56) << (8 * k);
    }
    Some(mask)
}

/// Appends a name field: bare when safe, else quoted with `\xNN` escapes up to its last non-zero
/// byte (so interior NULs and trailing garbage survive).
fn push_name<W: TextSink + ?Sized>(field: &[u8], out: &mut W) {
    if let Some(name) = bare_name(field) {
        out.push_ascii(name);
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
pub(crate) fn print_overlays<W: TextSink + ?Sized>(
    b: &[u8; SLOT_BYTES],
    covered: u64,
    out: &mut W,
) {
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
        out.push_hex_digits(start as u64);
        out.push('=');
        push_hex_bytes(out, &b[start..end]);
        i = end;
    }
}

#[cfg(test)]
mod tests {
    use super::push_f32_exact6;
    use proptest::prelude::*;

    /// Whether the fast path wrote `fmt`'s `{:.6}` text (when it wrote at all).
    fn exact6_matches_fmt(f: f32) -> Result<bool, TestCaseError> {
        let mut fast = String::new();
        if !push_f32_exact6(f, &mut fast) {
            return Ok(false);
        }
        prop_assert_eq!(&fast, &format!("{f:.6}"), "bits {:#x}", f.to_bits());
        prop_assert_eq!(fast.parse::<f32>().map(f32::to_bits), Ok(f.to_bits()));
        Ok(true)
    }

    #[test]
    fn exact6_covers_the_usual_values() {
        for f in [
            1.0f32,
            0.5,
            0.125,
            -3.0,
            0.0,
            16_777_216.0,
            2.5e11,
            -0.015625,
        ] {
            assert!(exact6_matches_fmt(f).unwrap(), "{f}");
        }
        for f in [-0.0f32, 0.1, 1e-6, 3e20, f32::NAN, f32::INFINITY] {
            assert!(!exact6_matches_fmt(f).unwrap(), "{f}");
        }
    }

    /// What the bit-level whole-number path writes is `fmt`'s `{:.6}` text.
    fn whole_matches_fmt(bits: u32) -> Result<(), TestCaseError> {
        let mut fast = String::new();
        super::push_f32(bits, &mut fast);
        if super::whole_f32(bits).is_some() {
            prop_assert_eq!(
                &fast,
                &format!("{:.6}", f32::from_bits(bits)),
                "bits {:#x}",
                bits
            );
        }
        Ok(())
    }

    #[test]
    fn whole_covers_the_usual_values() {
        for (f, whole) in [
            (1.0f32, true),
            (0.0, true),
            (-3.0, true),
            (8_388_607.0, true),
        ] {
            assert_eq!(super::whole_f32(f.to_bits()).is_some(), whole, "{f}");
            whole_matches_fmt(f.to_bits()).unwrap();
        }
        for f in [-0.0f32, 0.5, 8_388_608.0, 1e-6, f32::NAN, f32::INFINITY] {
            assert!(super::whole_f32(f.to_bits()).is_none(), "{f}");
        }
    }

    proptest! {
        #[test]
        fn whole_is_fmt(bits in any::<u32>(), k in -9_000_000i32..9_000_000) {
            whole_matches_fmt(bits)?;
            whole_matches_fmt((k as f32).to_bits())?;
        }

        #[test]
        fn exact6_is_fmt_or_declines(bits in any::<u32>(), k in -2_000_000i64..2_000_000, shift in 0u32..7) {
            exact6_matches_fmt(f32::from_bits(bits))?;
            exact6_matches_fmt(k as f32 / (1u32 << shift) as f32)?;
        }
    }
}
