//! Payload layouts: the declarative field list of each typed opcode (its offsets, kinds and text
//! policy), read generically by the printer, parser, explainer, validator and proptests. The
//! `view!` macro turns one list into both a [`Layout`] and a typed zero-copy view with one getter
//! per field (and a writer with one setter per field).

#[cfg(feature = "serde")]
mod fields_json;
mod value;
mod view_macro;

#[cfg(feature = "serde")]
pub use fields_json::{FieldJson, SlotFields};
pub use value::{
    ADDR8_FLAGS, ADDR8_OFFSET_REG, ADDR8_TABLE, ADDR8_VAR, Addr8, DtypeAt, ImmForm, Operand,
    PARTITION_SHIFT, PSUM_BIT, Part, Pattern, PtrWhen, Tensor,
};
pub(crate) use view_macro::{key_of, kind_of, show_of, view, view_getter, view_setter};

use crate::events::EventsExtended;
use crate::field_enum::EnumTable;
use crate::slot::{SLOT_BYTES, Slot, SlotBuf};
use crate::text::PlanCell;

/// How a field is shown in text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Show {
    /// Printed bare, without `key=` (the DMA queue name of spec 003 §7.2, `EXP`, `128*128`).
    Positional,
    /// Always printed as `key=value` (`block_id=0`, spec 003 §7.2).
    Always,
    /// Printed as `key=value` only when its bytes are not all zero.
    NonZero,
    /// Never printed on its own: another field's token shows it (a dtype as the `fp32@` prefix
    /// of a tensor, decision D130). The parser sets it through that token.
    Joined,
    /// Printed only when its byte differs from this value; a line without it means this value.
    Unless(u8),
    /// Printed only when its byte differs from the byte at this offset; a line without it means
    /// a copy of that byte (decision D133).
    Mirror(u8),
}

/// The binary shape of a field.
#[derive(Debug, Clone, Copy)]
pub enum FieldKind {
    /// `u8`, decimal.
    U8,
    /// `u8`, printed in hex (bit fields).
    Hex8,
    /// Little-endian `u16`, decimal.
    U16,
    /// Little-endian `u32`, decimal.
    U32,
    /// Little-endian `u64`, decimal.
    U64,
    /// Little-endian `u32`, printed in hex (addresses).
    Hex32,
    /// Little-endian `u64`, printed in hex (64-bit device addresses of the builder records,
    /// decision D52).
    Hex64,
    /// Little-endian IEEE `f32`, printed `%.6f` when that is exact (decision D130).
    F32,
    /// A one-byte enum.
    Enum(&'static EnumTable),
    /// The low nibble of a byte, an enum (`DTYPE_PAIR.dtype_lo`, reference §4.6).
    Lo(&'static EnumTable),
    /// The high nibble of a byte, an enum (`DTYPE_PAIR.dtype_hi`).
    Hi(&'static EnumTable),
    /// A NUL-padded ASCII name of this many bytes (spec 003 §5 `RT_MAX_NAME` = 32).
    Name(u8),
    /// `TENSOR{N}D`, with the place of its dtype byte if it has one (reference §4.6).
    Tensor(u8, Option<DtypeAt>),
    /// A DMA `[step][num]` pattern of this many dimensions (`u32` steps, `u16` counts).
    Pattern(u8),
    /// `ADDR8`: `{u32 immediate; u16 entry; u8 shape_reg; u8 mode}` (reference §4.5), printed as
    /// the profiler's `<name>_var_id= <name>_var_offset= <name>_shape_reg=` keys (D132).
    Addr8,
    /// A 32-bit address with the place of its dtype (`bias_ptr=fp32@0x4810`).
    Ptr(Option<DtypeAt>),
    /// An immediate-or-address operand (see [`Operand`]).
    Operand(Operand),
    /// Two `u8` printed `RxC` (`128*128`, the active PE rows and columns).
    Shape,
    /// This many little-endian `u32`s.
    U32s(u8),
    /// This many little-endian `u16`s.
    U16s(u8),
    /// The 12-byte CTRL_ES `events_extended` block (spec 001 §4).
    EventsExt,
}

impl FieldKind {
    /// Bytes covered by the field.
    pub const fn size(self) -> usize {
        match self {
            Self::U8 | Self::Hex8 | Self::Enum(_) | Self::Lo(_) | Self::Hi(_) => 1,
            Self::U16 | Self::Shape => 2,
            Self::U32 | Self::Hex32 | Self::F32 | Self::Ptr(_) | Self::Operand(_) => 4,
            Self::U64 | Self::Hex64 | Self::Addr8 => 8,
            Self::Name(n) => n as usize,
            Self::Tensor(d, _) => 4 + 4 * d as usize,
            Self::Pattern(d) => 6 * d as usize,
            Self::U32s(n) => 4 * n as usize,
            Self::U16s(n) => 2 * n as usize,
            Self::EventsExt => 12,
        }
    }
}

/// One field of a payload layout.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// The field's name: the typed view's getter and the `neff dump` row.
    pub name: &'static str,
    /// The text key; consecutive fields with the same key print as one `key=a,b` token
    /// (`ops=MULTIPLY,BYPASS`, decision D130).
    pub key: &'static str,
    /// Byte offset in the 64-byte slot (8-byte events dialect).
    pub offset: u8,
    /// The binary shape.
    pub kind: FieldKind,
    /// The text policy.
    pub show: Show,
}

/// The payload layout of one opcode family: the spec struct name and its fields in text order.
#[derive(Debug)]
pub struct Layout {
    /// The struct name of the spec (`PSEUDO_DMA_TRIGGER`, `CTRL_BR`, `S3S3D3_TT`, ...).
    pub name: &'static str,
    /// The fields, in the order the text form prints them.
    pub fields: &'static [Field],
    /// How the printer walks `fields`, built on first use ([`PlanCell::new`] in every static).
    pub text_plan: PlanCell,
}

impl Layout {
    /// Finds a field by name.
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The fields printed under text key `key` (one, or a `key=a,b` group), in order.
    pub fn keyed(&self, key: &str) -> &'static [Field] {
        let Some(start) = self.fields.iter().position(|f| f.key == key) else {
            return &[];
        };
        let n = self.fields[start..]
            .iter()
            .take_while(|f| f.key == key)
            .count();
        &self.fields[start..start + n]
    }

    /// A `[bool; 64]` of the bytes the fields cover.
    pub fn coverage(&self) -> [bool; SLOT_BYTES] {
        let mut m = [false; SLOT_BYTES];
        for f in self.fields {
            let o = f.offset as usize;
            m[o..o + f.kind.size()].iter_mut().for_each(|b| *b = true);
        }
        m
    }
}

/// A decoded field value, the common currency of text, explanation and proptests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldValue {
    /// Any integer or enum byte (enums keep the raw value so unknown ones survive); the bits of
    /// an `F32`.
    Int(u64),
    /// A name field: all of its raw bytes (up to 32) and its width.
    Name([u8; 32], u8),
    /// A tensor pattern.
    Tensor(Tensor),
    /// A DMA `[step][num]` pattern.
    Pattern(Pattern),
    /// An ADDR8.
    Addr8(Addr8),
    /// An address and its dtype code (when the field names one).
    Ptr(u32, Option<u8>),
    /// An operand: its 4 bytes, whether they are an address, the dtype of an address.
    Operand {
        /// The 4 bytes, little-endian.
        bits: u32,
        /// The source byte says "address".
        ptr: bool,
        /// The dtype code printed before an address.
        dtype: Option<u8>,
    },
    /// Up to four integers of a `U32s` / `U16s` array, or the two bytes of a `Shape`.
    Ints([u32; 4], u8),
    /// A CTRL_ES `events_extended` block.
    EventsExt(EventsExtended),
}

impl Field {
    /// The value of an integer field (every kind whose [`FieldValue`] is `Int`: integers, hex,
    /// enums and nibbles, the bits of an `F32`); `None` for the other kinds.
    #[inline(always)]
    pub fn read_int(&self, s: &Slot<'_>) -> Option<u64> {
        let o = self.offset as usize;
        Some(match self.kind {
            FieldKind::U8 | FieldKind::Hex8 | FieldKind::Enum(_) => s.u8_at(o).into(),
            FieldKind::Lo(_) => (s.u8_at(o) & 0xF).into(),
            FieldKind::Hi(_) => (s.u8_at(o) >> 4).into(),
            FieldKind::U16 => s.u16_at(o).into(),
            FieldKind::U32 | FieldKind::Hex32 | FieldKind::F32 => s.u32_at(o).into(),
            FieldKind::U64 | FieldKind::Hex64 => s.u64_at(o),
            _ => return None,
        })
    }

    /// Reads the field from a slot.
    pub fn read(&self, s: &Slot<'_>) -> FieldValue {
        let o = self.offset as usize;
        let b = s.bytes();
        match self.kind {
            FieldKind::Name(n) => {
                let mut v = [0u8; 32];
                v[..n as usize].copy_from_slice(&b[o..o + n as usize]);
                FieldValue::Name(v, n)
            }
            FieldKind::Tensor(d, dt) => FieldValue::Tensor(tensor_at(s, o, d, dt)),
            FieldKind::Pattern(d) => FieldValue::Pattern(read_pattern(s, o, d)),
            FieldKind::Addr8 => FieldValue::Addr8(read_addr8(s, o)),
            FieldKind::Ptr(dt) => FieldValue::Ptr(s.u32_at(o), dt.map(|at| at.read(b))),
            FieldKind::Operand(op) => FieldValue::Operand {
                bits: s.u32_at(o),
                ptr: op.is_ptr(b),
                dtype: op.dtype.map(|at| at.read(b)),
            },
            FieldKind::Shape => FieldValue::Ints([b[o].into(), b[o + 1].into(), 0, 0], 2),
            FieldKind::U32s(n) => {
                let mut v = [0u32; 4];
                (0..n as usize).for_each(|i| v[i] = s.u32_at(o + 4 * i));
                FieldValue::Ints(v, n)
            }
            FieldKind::U16s(n) => {
                let mut v = [0u32; 4];
                (0..n as usize).for_each(|i| v[i] = s.u16_at(o + 2 * i).into());
                FieldValue::Ints(v, n)
            }
            FieldKind::EventsExt => {
                let mut e = [0u8; 12];
                e.copy_from_slice(&b[o..o + 12]);
                FieldValue::EventsExt(EventsExtended::from_bytes(&e))
            }
            // The integer kinds (`read_int` reads every one of them).
            _ => FieldValue::Int(self.read_int(s).unwrap_or_default()),
        }
    }

    /// Writes `v` into the field of `buf` (and into the dtype byte a tensor, pointer or operand
    /// names). A value of the wrong shape or too wide for the field is refused with `Err(())`
    /// (the parser reports it with the key and line). An operand's `ptr` is not written: its
    /// source byte is a field of its own.
    #[allow(clippy::result_unit_err)]
    pub fn write(&self, buf: &mut SlotBuf, v: &FieldValue) -> Result<(), ()> {
        let o = self.offset as usize;
        match (self.kind, v) {
            (FieldKind::U8 | FieldKind::Hex8 | FieldKind::Enum(_), FieldValue::Int(x)) => {
                buf.put_u8(o, narrow(*x)?)
            }
            (FieldKind::Lo(_), FieldValue::Int(x)) if *x < 16 => {
                buf.0[o] = (buf.0[o] & 0xF0) | *x as u8
            }
            (FieldKind::Hi(_), FieldValue::Int(x)) if *x < 16 => {
                buf.0[o] = (buf.0[o] & 0x0F) | ((*x as u8) << 4)
            }
            (FieldKind::U16, FieldValue::Int(x)) => buf.put_u16(o, narrow(*x)?),
            (FieldKind::U32 | FieldKind::Hex32 | FieldKind::F32, FieldValue::Int(x)) => {
                buf.put_u32(o, narrow(*x)?)
            }
            (FieldKind::U64 | FieldKind::Hex64, FieldValue::Int(x)) => buf.put_u64(o, *x),
            (FieldKind::Name(n), FieldValue::Name(b, m)) if *m <= n => {
                buf.0[o..o + n as usize].fill(0);
                buf.0[o..o + *m as usize].copy_from_slice(&b[..*m as usize]);
            }
            (FieldKind::Tensor(d, dt), FieldValue::Tensor(t)) if t.dims == d => {
                write_dtype(buf, dt, t.dtype)?;
                write_tensor(buf, o, t)
            }
            (FieldKind::Pattern(d), FieldValue::Pattern(p)) if p.dims == d => {
                write_pattern(buf, o, p)
            }
            (FieldKind::Addr8, FieldValue::Addr8(a)) => write_addr8(buf, o, a),
            (FieldKind::Ptr(dt), FieldValue::Ptr(x, t)) => {
                write_dtype(buf, dt, *t)?;
                buf.put_u32(o, *x)
            }
            (FieldKind::Operand(op), FieldValue::Operand { bits, dtype, .. }) => {
                write_dtype(buf, op.dtype, *dtype)?;
                buf.put_u32(o, *bits)
            }
            (FieldKind::Shape, FieldValue::Ints(v, 2)) => {
                buf.put_u8(o, narrow(v[0].into())?);
                buf.put_u8(o + 1, narrow(v[1].into())?);
            }
            (FieldKind::U32s(n), FieldValue::Ints(v, m)) if *m == n => {
                (0..n as usize).for_each(|i| buf.put_u32(o + 4 * i, v[i]));
            }
            (FieldKind::U16s(n), FieldValue::Ints(v, m)) if *m == n => {
                for (i, x) in v.iter().take(n as usize).enumerate() {
                    buf.put_u16(o + 2 * i, narrow(u64::from(*x))?);
                }
            }
            (FieldKind::EventsExt, FieldValue::EventsExt(e)) => {
                buf.0[o..o + 12].copy_from_slice(&e.to_bytes())
            }
            _ => return Err(()),
        }
        Ok(())
    }
}

/// Writes a dtype code where `at` says; a value without a place (or a place without a value)
/// leaves the byte alone, a code too wide for a nibble is refused.
fn write_dtype(buf: &mut SlotBuf, at: Option<DtypeAt>, v: Option<u8>) -> Result<(), ()> {
    match (at, v) {
        (Some(at), Some(v)) => at.write(&mut buf.0, v).ok_or(()),
        _ => Ok(()),
    }
}

fn narrow<T: TryFrom<u64>>(x: u64) -> Result<T, ()> {
    T::try_from(x).map_err(|_| ())
}

/// Reads a `TENSOR{N}D` at `o` with the dtype `dt` names (the value of a `Tensor` field).
#[inline(always)]
pub(crate) fn tensor_at(s: &Slot<'_>, o: usize, dims: u8, dt: Option<DtypeAt>) -> Tensor {
    let mut t = Tensor {
        start_addr: s.u32_at(o),
        dims,
        dtype: dt.map(|at| at.read(s.bytes())),
        ..Tensor::default()
    };
    let d = dims as usize;
    for i in 0..d {
        t.step[i] = s.u16_at(o + 4 + 2 * i) as i16;
        t.num[i] = s.u16_at(o + 4 + 2 * d + 2 * i);
    }
    t
}

/// Writes a `TENSOR{N}D` at `o` (`t.dims` dimensions; the dtype is not written here).
pub(crate) fn write_tensor(buf: &mut SlotBuf, o: usize, t: &Tensor) {
    let d = t.dims as usize;
    buf.put_u32(o, t.start_addr);
    for i in 0..d {
        buf.put_u16(o + 4 + 2 * i, t.step[i] as u16);
        buf.put_u16(o + 4 + 2 * d + 2 * i, t.num[i]);
    }
}

/// Reads a DMA `[step][num]` pattern of `dims` dimensions at `o`.
#[inline(always)]
pub(crate) fn read_pattern(s: &Slot<'_>, o: usize, dims: u8) -> Pattern {
    let mut p = Pattern {
        dims,
        ..Pattern::default()
    };
    let d = dims as usize;
    for i in 0..d {
        p.step[i] = s.u32_at(o + 4 * i);
        p.num[i] = s.u16_at(o + 4 * d + 2 * i);
    }
    p
}

/// Writes a DMA `[step][num]` pattern at `o`.
pub(crate) fn write_pattern(buf: &mut SlotBuf, o: usize, p: &Pattern) {
    let d = p.dims as usize;
    for i in 0..d {
        buf.put_u32(o + 4 * i, p.step[i]);
        buf.put_u16(o + 4 * d + 2 * i, p.num[i]);
    }
}

/// Reads an ADDR8 at `o`.
#[inline(always)]
pub(crate) fn read_addr8(s: &Slot<'_>, o: usize) -> Addr8 {
    Addr8 {
        immediate: s.u32_at(o),
        entry: s.u16_at(o + 4),
        b6: s.u8_at(o + 6),
        mode: s.u8_at(o + 7),
    }
}

/// Writes an ADDR8 at `o`.
pub(crate) fn write_addr8(buf: &mut SlotBuf, o: usize, a: &Addr8) {
    buf.put_u32(o, a.immediate);
    buf.put_u16(o + 4, a.entry);
    buf.put_u8(o + 6, a.b6);
    buf.put_u8(o + 7, a.mode);
}

/// Links a field enum to its [`EnumTable`] for `view!`.
pub trait HasTable {
    /// The enum's text table.
    const TABLE: EnumTable;
}
