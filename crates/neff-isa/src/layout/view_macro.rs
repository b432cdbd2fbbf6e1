//! The `view!` macro and its helpers: one field list becomes a [`Layout`](super::Layout) static,
//! a zero-copy view with a getter per field and a writer with a setter per field.

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
    ($(#[$d:meta])* $f:ident, $off:literal, hex8) => {
        $(#[$d])* #[inline] pub fn $f(&self) -> u8 { self.0.u8_at($off) }
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
    ($(#[$d:meta])* $f:ident, $off:literal, f32) => {
        $(#[$d])* #[inline] pub fn $f(&self) -> f32 { f32::from_bits(self.0.u32_at($off)) }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, ptr $(($($a:tt)*))?) => {
        $(#[$d])* #[doc = "The address."]
        #[inline] pub fn $f(&self) -> u32 { self.0.u32_at($off) }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, operand($($a:tt)*)) => {
        $(#[$d])* #[doc = "The raw 4 bytes (an immediate or an address, see the layout)."]
        #[inline] pub fn $f(&self) -> u32 { self.0.u32_at($off) }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, shape) => {
        $(#[$d])* #[inline] pub fn $f(&self) -> [u8; 2] { [self.0.u8_at($off), self.0.u8_at($off + 1)] }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, pattern($n:literal)) => {
        // Read at the declared offset, not looked up by name: lowering reads these per slot.
        $(#[$d])* #[inline] pub fn $f(&self) -> $crate::layout::Pattern {
            $crate::layout::read_pattern(&self.0, $off, $n)
        }
    };
    // Read at the declared offset, not looked up by name (as a pattern): the functional model
    // reads two or three operands per element-wise slot, and the name search was a fifth of a
    // 128-element op's time (decision D826).
    ($(#[$d:meta])* $f:ident, $off:literal, tensor($n:literal, $p:ident @ $at:literal)) => {
        $(#[$d])* #[inline] pub fn $f(&self) -> $crate::layout::Tensor {
            let at = $crate::layout::DtypeAt { offset: $at, part: $crate::layout::Part::$p };
            $crate::layout::tensor_at(&self.0, $off, $n, Some(at))
        }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, tensor($n:literal)) => {
        $(#[$d])* #[inline] pub fn $f(&self) -> $crate::layout::Tensor {
            $crate::layout::tensor_at(&self.0, $off, $n, None)
        }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, addr8) => {
        $(#[$d])* #[inline] pub fn $f(&self) -> $crate::layout::Addr8 {
            $crate::layout::read_addr8(&self.0, $off)
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
    ($(#[$d:meta])* $f:ident, $off:literal, hex8) => {
        $(#[$d])* #[inline] pub fn $f(&mut self, v: u8) -> &mut Self { self.0.put_u8($off, v); self }
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
    ($(#[$d:meta])* $f:ident, $off:literal, f32) => {
        $(#[$d])* #[inline] pub fn $f(&mut self, v: f32) -> &mut Self { self.0.put_u32($off, v.to_bits()); self }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, ptr $(($($a:tt)*))?) => {
        $(#[$d])* #[doc = "Writes the address (not its dtype)."]
        #[inline] pub fn $f(&mut self, v: u32) -> &mut Self { self.0.put_u32($off, v); self }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, operand($($a:tt)*)) => {
        $(#[$d])* #[doc = "Writes the raw 4 bytes (not the source byte)."]
        #[inline] pub fn $f(&mut self, v: u32) -> &mut Self { self.0.put_u32($off, v); self }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, shape) => {
        $(#[$d])* #[inline] pub fn $f(&mut self, v: [u8; 2]) -> &mut Self {
            self.0.put_u8($off, v[0]);
            self.0.put_u8($off + 1, v[1]);
            self
        }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, pattern($n:literal)) => {
        $(#[$d])* #[doc = "Writes the field's own number of dimensions."]
        #[inline] pub fn $f(&mut self, v: $crate::layout::Pattern) -> &mut Self {
            let p = $crate::layout::Pattern { dims: $n, ..v };
            $crate::layout::write_pattern(self.0, $off, &p);
            self
        }
    };
    ($(#[$d:meta])* $f:ident, $off:literal, tensor($n:literal, $p:ident @ $at:literal)) => {
        $(#[$d])* #[doc = "Writes the field's own number of dimensions, and the dtype when given."]
        #[inline] pub fn $f(&mut self, v: $crate::layout::Tensor) -> &mut Self {
            let t = $crate::layout::Tensor { dims: $n, ..v };
            $crate::layout::write_tensor(self.0, $off, &t);
            if let Some(d) = t.dtype {
                let at = $crate::layout::DtypeAt { offset: $at, part: $crate::layout::Part::$p };
                let _ = at.write(&mut self.0 .0, d);
            }
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
            $crate::layout::write_addr8(self.0, $off, &v);
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
    (hex8) => {
        $crate::layout::FieldKind::Hex8
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
    (f32) => {
        $crate::layout::FieldKind::F32
    };
    (shape) => {
        $crate::layout::FieldKind::Shape
    };
    (pattern($n:literal)) => {
        $crate::layout::FieldKind::Pattern($n)
    };
    (ptr) => {
        $crate::layout::FieldKind::Ptr(None)
    };
    (ptr($p:ident @ $at:literal)) => {
        $crate::layout::FieldKind::Ptr(Some($crate::layout::kind_of!(@dt $p $at)))
    };
    (operand($src:literal, $when:ident, $imm:ident, $suffix:literal $(, $p:ident @ $at:literal)?)) => {
        $crate::layout::FieldKind::Operand($crate::layout::Operand {
            src_at: $src,
            ptr_when: $crate::layout::PtrWhen::$when,
            imm: $crate::layout::ImmForm::$imm,
            ptr_suffix: $suffix,
            dtype: $crate::layout::kind_of!(@opt $($p $at)?),
        })
    };
    (tensor($n:literal, $p:ident @ $at:literal)) => {
        $crate::layout::FieldKind::Tensor($n, Some($crate::layout::kind_of!(@dt $p $at)))
    };
    (@dt $p:ident $at:literal) => {
        $crate::layout::DtypeAt { offset: $at, part: $crate::layout::Part::$p }
    };
    (@opt) => {
        None
    };
    (@opt $p:ident $at:literal) => {
        Some($crate::layout::kind_of!(@dt $p $at))
    };
    (tensor($n:literal)) => {
        $crate::layout::FieldKind::Tensor($n, None)
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

/// The [`Show`](crate::layout::Show) of a show token.
macro_rules! show_of {
    ($s:ident) => {
        $crate::layout::Show::$s
    };
    ($s:ident($v:literal)) => {
        $crate::layout::Show::$s($v)
    };
}

/// The text key of a field: its `as "key"`, else its name.
macro_rules! key_of {
    ($f:ident) => {
        stringify!($f)
    };
    ($f:ident $key:literal) => {
        $key
    };
}

/// Defines a payload layout constant, its typed view and its writer from one field list:
/// `View / Writer = LAYOUT "SPEC_NAME" { field: kind @ offset, Show; ... }`.
macro_rules! view {
    (
        $(#[$doc:meta])*
        $view:ident / $writer:ident = $layout:ident $sname:literal {
            $($(#[$fdoc:meta])* $f:ident : $k:ident $(($($karg:tt)*))? @ $off:literal
                $(as $key:literal)?, $show:ident $(($sarg:literal))?;)*
        }
    ) => {
        #[doc = concat!("The field list of `", $sname, "`.")]
        pub static $layout: $crate::layout::Layout = {
            const FIELDS: &[$crate::layout::Field] = &[$($crate::layout::Field {
                name: stringify!($f),
                key: $crate::layout::key_of!($f $($key)?),
                offset: $off,
                kind: $crate::layout::kind_of!($k $(($($karg)*))?),
                show: $crate::layout::show_of!($show $(($sarg))?),
            },)*];
            /// The fields' tokens in order, each printed by the one token printer with the
            /// token known at compile time (decision D374).
            fn print(
                slot: &$crate::slot::Slot<'_>,
                out: &mut $crate::text::TextBuf,
            ) {
                const SPANS: [u8; FIELDS.len()] = $crate::text::token_spans(FIELDS);
                let mut _i = 0;
                $(
                    if SPANS[_i] != 0 {
                        $crate::text::print_token(
                            &FIELDS[_i.._i + SPANS[_i] as usize],
                            concat!(" ", $crate::layout::key_of!($f $($key)?), "="),
                            concat!(" ", $crate::layout::key_of!($f $($key)?), "_ptr="),
                            slot,
                            out,
                        );
                    }
                    _i += 1;
                )*
            }
            $crate::layout::Layout {
                name: $sname,
                fields: FIELDS,
                text_plan: $crate::text::PlanCell::compiled($crate::text::Compiled {
                    covered: $crate::text::Covered::new($crate::text::covered(FIELDS)),
                    print,
                }),
            }
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

            /// Reads a field by name as a [`crate::layout::FieldValue`].
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

pub(crate) use {key_of, kind_of, show_of, view, view_getter, view_setter};
