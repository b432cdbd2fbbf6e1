//! Payload layouts: the declarative field list of each typed opcode (its offsets, kinds and text
//! policy), read generically by the printer, parser, explainer and proptests. The `view!` macro
//! turns one list into both a [`Layout`] and a typed zero-copy view with one getter per field.

use crate::events::EventsExtended;
use crate::field_enum::EnumTable;
use crate::slot::{SLOT_BYTES, Slot, SlotBuf};

/// How a field is shown in text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Show {
    /// Printed bare, without `key=` (the DMA queue name of spec 003 §7.2).
    Positional,
    /// Always printed as `key=value` (`block_id=0`, spec 003 §7.2).
    Always,
    /// Printed as `key=value` only when its bytes are not all zero.
    NonZero,
}

/// The binary shape of a field.
#[derive(Debug, Clone, Copy)]
pub enum FieldKind {
    /// `u8`, decimal.
    U8,
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
    /// A one-byte enum.
    Enum(&'static EnumTable),
    /// The low nibble of a byte, an enum (`DTYPE_PAIR.dtype_lo`, reference §4.6).
    Lo(&'static EnumTable),
    /// The high nibble of a byte, an enum (`DTYPE_PAIR.dtype_hi`).
    Hi(&'static EnumTable),
    /// A NUL-padded ASCII name of this many bytes (spec 003 §5 `RT_MAX_NAME` = 32).
    Name(u8),
    /// `TENSOR{N}D`: `{ADDR4 start; i16 step_elem[N]; u16 num_elem[N]}` (reference §4.6).
    Tensor(u8),
    /// `ADDR8`: `{u32 immediate; u16 entry; u8 b6; u8 mode}` (reference §4.5).
    Addr8,
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
            Self::U8 | Self::Enum(_) | Self::Lo(_) | Self::Hi(_) => 1,
            Self::U16 => 2,
            Self::U32 | Self::Hex32 => 4,
            Self::U64 | Self::Hex64 | Self::Addr8 => 8,
            Self::Name(n) => n as usize,
            Self::Tensor(d) => 4 + 4 * d as usize,
            Self::U32s(n) => 4 * n as usize,
            Self::U16s(n) => 2 * n as usize,
            Self::EventsExt => 12,
        }
    }
}

/// One field of a payload layout.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// The text key (`block_id`), also the typed view's getter name.
    pub name: &'static str,
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
}

impl Layout {
    /// Finds a field by text key.
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// A 64-bit mask per 8 bytes... simpler: a `[bool; 64]` of the bytes the fields cover.
    pub fn coverage(&self) -> [bool; SLOT_BYTES] {
        let mut m = [false; SLOT_BYTES];
        for f in self.fields {
            let o = f.offset as usize;
            m[o..o + f.kind.size()].iter_mut().for_each(|b| *b = true);
        }
        m
    }
}

/// A tensor access pattern `TENSOR{N}D` (reference §4.6): steps in elements, innermost first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tensor {
    /// `start_addr` (ADDR4: partition offset, bit 25 = PSUM; or a register marker).
    pub start_addr: u32,
    /// Number of dimensions (2..=4).
    pub dims: u8,
    /// `step_elem[N]`.
    pub step: [i16; 4],
    /// `num_elem[N]`.
    pub num: [u16; 4],
}

/// `ADDR8` of the DMA family (reference §4.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Addr8 {
    /// Bytes 0-3: the immediate (address or offset).
    pub immediate: u32,
    /// Bytes 4-5: DGE table entry / physical var id.
    pub entry: u16,
    /// Byte 6.
    pub b6: u8,
    /// Byte 7: mode (0x10 physical var-id, 0x20 immediate/DGE, 0x28 offset register).
    pub mode: u8,
}

/// A decoded field value, the common currency of text, explanation and proptests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldValue {
    /// Any integer or enum byte (enums keep the raw value so unknown ones survive).
    Int(u64),
    /// A name field: all of its raw bytes (up to 32) and its width.
    Name([u8; 32], u8),
    /// A tensor pattern.
    Tensor(Tensor),
    /// An ADDR8.
    Addr8(Addr8),
    /// Up to four integers of a `U32s` / `U16s` array.
    Ints([u32; 4], u8),
    /// A CTRL_ES `events_extended` block.
    EventsExt(EventsExtended),
}

impl Field {
    /// Reads the field from a slot.
    pub fn read(&self, s: &Slot<'_>) -> FieldValue {
        let o = self.offset as usize;
        match self.kind {
            FieldKind::U8 | FieldKind::Enum(_) => FieldValue::Int(s.u8_at(o).into()),
            FieldKind::Lo(_) => FieldValue::Int((s.u8_at(o) & 0xF).into()),
            FieldKind::Hi(_) => FieldValue::Int((s.u8_at(o) >> 4).into()),
            FieldKind::U16 => FieldValue::Int(s.u16_at(o).into()),
            FieldKind::U32 | FieldKind::Hex32 => FieldValue::Int(s.u32_at(o).into()),
            FieldKind::U64 | FieldKind::Hex64 => FieldValue::Int(s.u64_at(o)),
            FieldKind::Name(n) => {
                let mut b = [0u8; 32];
                b[..n as usize].copy_from_slice(&s.bytes()[o..o + n as usize]);
                FieldValue::Name(b, n)
            }
            FieldKind::Tensor(d) => FieldValue::Tensor(read_tensor(s, o, d)),
            FieldKind::Addr8 => FieldValue::Addr8(Addr8 {
                immediate: s.u32_at(o),
                entry: s.u16_at(o + 4),
                b6: s.u8_at(o + 6),
                mode: s.u8_at(o + 7),
            }),
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
                let mut b = [0u8; 12];
                b.copy_from_slice(&s.bytes()[o..o + 12]);
                FieldValue::EventsExt(EventsExtended::from_bytes(&b))
            }
        }
    }

    /// Writes `v` into the field of `buf`. A value of the wrong shape or too wide for the field
    /// is refused with `Err(())` (the parser reports it with the key and line).
    #[allow(clippy::result_unit_err)]
    pub fn write(&self, buf: &mut SlotBuf, v: &FieldValue) -> Result<(), ()> {
        let o = self.offset as usize;
        match (self.kind, v) {
            (FieldKind::U8 | FieldKind::Enum(_), FieldValue::Int(x)) => buf.put_u8(o, narrow(*x)?),
            (FieldKind::Lo(_), FieldValue::Int(x)) if *x < 16 => {
                buf.0[o] = (buf.0[o] & 0xF0) | *x as u8
            }
            (FieldKind::Hi(_), FieldValue::Int(x)) if *x < 16 => {
                buf.0[o] = (buf.0[o] & 0x0F) | ((*x as u8) << 4)
            }
            (FieldKind::U16, FieldValue::Int(x)) => buf.put_u16(o, narrow(*x)?),
            (FieldKind::U32 | FieldKind::Hex32, FieldValue::Int(x)) => buf.put_u32(o, narrow(*x)?),
            (FieldKind::U64 | FieldKind::Hex64, FieldValue::Int(x)) => buf.put_u64(o, *x),
            (FieldKind::Name(n), FieldValue::Name(b, m)) if *m <= n => {
                buf.0[o..o + n as usize].fill(0);
                buf.0[o..o + *m as usize].copy_from_slice(&b[..*m as usize]);
            }
            (FieldKind::Tensor(d), FieldValue::Tensor(t)) if t.dims == d => write_tensor(buf, o, t),
            (FieldKind::Addr8, FieldValue::Addr8(a)) => {
                buf.put_u32(o, a.immediate);
                buf.put_u16(o + 4, a.entry);
                buf.put_u8(o + 6, a.b6);
                buf.put_u8(o + 7, a.mode);
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

fn narrow<T: TryFrom<u64>>(x: u64) -> Result<T, ()> {
    T::try_from(x).map_err(|_| ())
}

fn read_tensor(s: &Slot<'_>, o: usize, dims: u8) -> Tensor {
    let mut t = Tensor {
        start_addr: s.u32_at(o),
        dims,
        ..Tensor::default()
    };
    let d = dims as usize;
    for i in 0..d {
        t.step[i] = s.u16_at(o + 4 + 2 * i) as i16;
        t.num[i] = s.u16_at(o + 4 + 2 * d + 2 * i);
    }
    t
}

/// Writes a `TENSOR{N}D` at `o` (`t.dims` dimensions).
pub(crate) fn write_tensor(buf: &mut SlotBuf, o: usize, t: &Tensor) {
    let d = t.dims as usize;
    buf.put_u32(o, t.start_addr);
    for i in 0..d {
        buf.put_u16(o + 4 + 2 * i, t.step[i] as u16);
        buf.put_u16(o + 4 + 2 * d + 2 * i, t.num[i]);
    }
}

/// The getter of one field kind in a typed view.
macro_rules! view_getter {
    ($(#[$d:meta])* $f:ident, $off:literal, u8) => {
        $(#[$d])* #[inline] pub fn $f(&self) -> u8 { self.0.u8_at($off) }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, u16) => {
        $(#[$d])* #[inline] pub fn $f(&self) -> u16 { self.0.u16_at($off) }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, u32) => {
        $(#[$d])* #[inline] pub fn $f(&self) -> u32 { self.0.u32_at($off) }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, u64) => {
        $(#[$d])* #[inline] pub fn $f(&self) -> u64 { self.0.u64_at($off) }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, hex32) => {
        $(#[$d])* #[inline] pub fn $f(&self) -> u32 { self.0.u32_at($off) }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, hex64) => {
        $(#[$d])* #[inline] pub fn $f(&self) -> u64 { self.0.u64_at($off) }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, name($n:literal)) => {
        $(#[$d])* #[inline] pub fn $f(&self) -> &'a [u8] {
            let field = &self.0.bytes()[$off..$off + $n];
            let end = field.iter().position(|&c| c == 0).unwrap_or($n);
            &field[..end]
        }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, enum($t:ident)) => {
        $(#[$d])* #[doc = "`Err(raw)` when the byte is not a named value."]
        #[inline] pub fn $f(&self) -> Result<$t, u8> {
            let v = self.0.u8_at($off);
            $t::from_u8(v).ok_or(v)
        }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, lo($t:ident)) => {
        $(#[$d])* #[inline] pub fn $f(&self) -> Result<$t, u8> {
            let v = self.0.u8_at($off) & 0xF;
            $t::from_u8(v).ok_or(v)
        }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, hi($t:ident)) => {
        $(#[$d])* #[inline] pub fn $f(&self) -> Result<$t, u8> {
            let v = self.0.u8_at($off) >> 4;
            $t::from_u8(v).ok_or(v)
        }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, tensor($n:literal)) => {
        $(#[$d])* #[inline] pub fn $f(&self) -> $crate::layout::Tensor {
            match self.field(stringify!($f)) {
                $crate::layout::FieldValue::Tensor(t) => t,
                _ => $crate::layout::Tensor::default(),
            }
        }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, addr8) => {
        $(#[$d])* #[inline] pub fn $f(&self) -> $crate::layout::Addr8 {
            match self.field(stringify!($f)) {
                $crate::layout::FieldValue::Addr8(a) => a,
                _ => $crate::layout::Addr8::default(),
            }
        }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, u32s($n:literal)) => {
        $(#[$d])* #[inline] pub fn $f(&self) -> [u32; $n] {
            let mut v = [0u32; $n];
            for (i, x) in v.iter_mut().enumerate() { *x = self.0.u32_at($off + 4 * i); }
            v
        }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, u16s($n:literal)) => {
        $(#[$d])* #[inline] pub fn $f(&self) -> [u16; $n] {
            let mut v = [0u16; $n];
            for (i, x) in v.iter_mut().enumerate() { *x = self.0.u16_at($off + 2 * i); }
            v
        }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, events_ext) => {
        $(#[$d])* #[inline] pub fn $f(&self) -> $crate::events::EventsExtended {
            let mut b = [0u8; 12];
            b.copy_from_slice(&self.0.bytes()[$off..$off + 12]);
            $crate::events::EventsExtended::from_bytes(&b)
        }
    };
}

/// The setter of one field kind in a view's writer: it writes at the field's one offset, so the
/// builders (spec 001 §2, §4) and the view share a single definition of every byte position.
macro_rules! view_setter {
    ($(#[$d:meta])* $f:ident, $off:literal, u8) => {
        $(#[$d])* #[inline] pub fn $f(&mut self, v: u8) -> &mut Self { self.0.put_u8($off, v); self }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, u16) => {
        $(#[$d])* #[inline] pub fn $f(&mut self, v: u16) -> &mut Self { self.0.put_u16($off, v); self }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, u32) => {
        $(#[$d])* #[inline] pub fn $f(&mut self, v: u32) -> &mut Self { self.0.put_u32($off, v); self }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, hex32) => {
        $(#[$d])* #[inline] pub fn $f(&mut self, v: u32) -> &mut Self { self.0.put_u32($off, v); self }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, u64) => {
        $(#[$d])* #[inline] pub fn $f(&mut self, v: u64) -> &mut Self { self.0.put_u64($off, v); self }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, hex64) => {
        $(#[$d])* #[inline] pub fn $f(&mut self, v: u64) -> &mut Self { self.0.put_u64($off, v); self }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, name($n:literal)) => {
        $(#[$d])* #[doc = "A longer name is cut to the field's width."]
        #[inline] pub fn $f(&mut self, v: &[u8]) -> &mut Self { self.0.put_name($off, $n, v); self }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, enum($t:ident)) => {
        $(#[$d])* #[doc = "Takes the enum or any raw byte (unknown values survive)."]
        #[inline] pub fn $f(&mut self, v: impl Into<u8>) -> &mut Self {
            self.0.put_u8($off, v.into());
            self
        }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, lo($t:ident)) => {
        $(#[$d])* #[doc = "Only the low 4 bits of `v` are kept."]
        #[inline] pub fn $f(&mut self, v: impl Into<u8>) -> &mut Self {
            self.0 .0[$off] = (self.0 .0[$off] & 0xF0) | (v.into() & 0xF);
            self
        }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, hi($t:ident)) => {
        $(#[$d])* #[doc = "Only the low 4 bits of `v` are kept."]
        #[inline] pub fn $f(&mut self, v: impl Into<u8>) -> &mut Self {
            self.0 .0[$off] = (self.0 .0[$off] & 0x0F) | (v.into() << 4);
            self
        }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, tensor($n:literal)) => {
        $(#[$d])* #[doc = "Writes the field's own number of dimensions."]
        #[inline] pub fn $f(&mut self, v: $crate::layout::Tensor) -> &mut Self {
            let t = $crate::layout::Tensor { dims: $n, ..v };
            $crate::layout::write_tensor(self.0, $off, &t);
            self
        }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, addr8) => {
        $(#[$d])* #[inline] pub fn $f(&mut self, v: $crate::layout::Addr8) -> &mut Self {
            self.0.put_u32($off, v.immediate);
            self.0.put_u16($off + 4, v.entry);
            self.0.put_u8($off + 6, v.b6);
            self.0.put_u8($off + 7, v.mode);
            self
        }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, u32s($n:literal)) => {
        $(#[$d])* #[inline] pub fn $f(&mut self, v: [u32; $n]) -> &mut Self {
            for (i, x) in v.iter().enumerate() { self.0.put_u32($off + 4 * i, *x); }
            self
        }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, u16s($n:literal)) => {
        $(#[$d])* #[inline] pub fn $f(&mut self, v: [u16; $n]) -> &mut Self {
            for (i, x) in v.iter().enumerate() { self.0.put_u16($off + 2 * i, *x); }
            self
        }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, events_ext) => {
        $(#[$d])* #[inline] pub fn $f(&mut self, v: $crate::events::EventsExtended) -> &mut Self {
            self.0 .0[$off..$off + 12].copy_from_slice(&v.to_bytes());
            self
        }
    };
}

/// The [`FieldKind`] of a getter kind token.
macro_rules! kind_of {
    (u8) => {
        $crate::layout::FieldKind::U8
    };
    (u16) => {
        $crate::layout::FieldKind::U16
    };
    (u32) => {
        $crate::layout::FieldKind::U32
    };
    (u64) => {
        $crate::layout::FieldKind::U64
    };
    (hex32) => {
        $crate::layout::FieldKind::Hex32
    };
    (hex64) => {
        $crate::layout::FieldKind::Hex64
    };
    (name($n:literal)) => {
        $crate::layout::FieldKind::Name($n)
    };
    (enum($t:ident)) => {
        $crate::layout::FieldKind::Enum(&<$t as $crate::layout::HasTable>::TABLE)
    };
    (lo($t:ident)) => {
        $crate::layout::FieldKind::Lo(&<$t as $crate::layout::HasTable>::TABLE)
    };
    (hi($t:ident)) => {
        $crate::layout::FieldKind::Hi(&<$t as $crate::layout::HasTable>::TABLE)
    };
    (tensor($n:literal)) => {
        $crate::layout::FieldKind::Tensor($n)
    };
    (addr8) => {
        $crate::layout::FieldKind::Addr8
    };
    (u32s($n:literal)) => {
        $crate::layout::FieldKind::U32s($n)
    };
    (u16s($n:literal)) => {
        $crate::layout::FieldKind::U16s($n)
    };
    (events_ext) => {
        $crate::layout::FieldKind::EventsExt
    };
}

/// Links a field enum to its [`EnumTable`] for `view!`.
pub trait HasTable {
    /// The enum's text table.
    const TABLE: EnumTable;
}

/// Defines a payload layout constant, its typed view and its writer from one field list:
/// `View / Writer = LAYOUT "SPEC_NAME" { field: kind @ offset, Show; ... }`.
macro_rules! view {
    (
        $(#[$doc:meta])*
        $view:ident / $writer:ident = $layout:ident $sname:literal {
            $($(#[$fdoc:meta])* $f:ident : $k:ident $(($($karg:tt)*))? @ $off:literal, $show:ident;)*
        }
    ) => {
        #[doc = concat!("The field list of `", $sname, "`.")]
        pub static $layout: $crate::layout::Layout = $crate::layout::Layout {
            name: $sname,
            fields: &[$($crate::layout::Field {
                name: stringify!($f),
                offset: $off,
                kind: $crate::layout::kind_of!($k $(($($karg)*))?),
                show: $crate::layout::Show::$show,
            },)*],
        };

        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub struct $view<'a>(pub $crate::slot::Slot<'a>);

        impl<'a> $view<'a> {
            /// Views `slot` as this layout if its opcode's table row uses it.
            pub fn new(slot: $crate::slot::Slot<'a>) -> Option<Self> {
                let info = slot.opcode().info()?;
                std::ptr::eq(info.layout, &$layout).then_some(Self(slot))
            }

            /// The events block at +4 (8-byte dialect).
            #[inline]
            pub fn events(&self) -> $crate::events::Events {
                self.0.events()
            }

            /// Reads a field by text key as a [`crate::layout::FieldValue`].
            pub fn field(&self, name: &str) -> $crate::layout::FieldValue {
                $layout
                    .field(name)
                    .map(|f| f.read(&self.0))
                    .unwrap_or($crate::layout::FieldValue::Int(0))
            }

            $($crate::layout::view_getter!($(#[$fdoc])* $f, $off, $k $(($($karg)*))?);)*
        }

        #[doc = concat!("Writes the fields of `", $sname, "` into a slot buffer, one chained setter")]
        #[doc = concat!("per field at the offsets of [`", stringify!($layout), "`]: the builders' only")]
        #[doc = "way to place these fields, so each offset is defined once."]
        #[derive(Debug)]
        pub struct $writer<'b>(pub &'b mut $crate::slot::SlotBuf);

        impl $writer<'_> {
            $($crate::layout::view_setter!($(#[$fdoc])* $f, $off, $k $(($($karg)*))?);)*
        }
    };
}

pub(crate) use {kind_of, view, view_getter, view_setter};
