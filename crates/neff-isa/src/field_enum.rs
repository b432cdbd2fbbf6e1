//! The declarative form of a one-byte field enum: a Rust enum plus its [`EnumTable`] (value ->
//! text name) read by the printer, the parser and the explainer.

/// The names of one field enum, for text and explanations. Unknown values print as hex numbers.
#[derive(Debug)]
pub struct EnumTable {
    /// The enum's name, e.g. `Dtype`.
    pub name: &'static str,
    /// `(value, text name)` pairs.
    pub entries: &'static [(u8, &'static str)],
}

impl EnumTable {
    /// The text name of `v`, if named.
    #[inline]
    pub fn name_of(&self, v: u8) -> Option<&'static str> {
        // Most tables number their entries 0, 1, 2, ... in order: entry `v` is then `v`'s own
        // (one look instead of a search; the disassembler asks per enum field, issue 20).
        match self.entries.get(usize::from(v)) {
            Some(&(x, n)) if x == v => Some(n),
            _ => self.entries.iter().find(|(x, _)| *x == v).map(|(_, n)| *n),
        }
    }

    /// The value named `name`, if any.
    pub fn value_of(&self, name: &str) -> Option<u8> {
        self.entries
            .iter()
            .find(|(_, n)| *n == name)
            .map(|(v, _)| *v)
    }
}

/// Defines `pub enum $name: u8` with `from_u8`, `text`, and `pub static $TABLE: EnumTable`.
macro_rules! field_enum {
    ($(#[$doc:meta])* $name:ident / $table:ident {
        $($(#[$vdoc:meta])* $variant:ident = $value:literal => $text:literal,)*
    }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum $name {
            $($(#[$vdoc])* $variant = $value,)*
        }

        impl $crate::layout::HasTable for $name {
            const TABLE: $crate::field_enum::EnumTable = $crate::field_enum::EnumTable {
                name: stringify!($name),
                entries: &[$(($value, $text),)*],
            };
        }

        impl From<$name> for u8 {
            /// The raw byte (what a builder stamps).
            #[inline]
            fn from(v: $name) -> u8 {
                v as u8
            }
        }

        #[doc = concat!("The text names of [`", stringify!($name), "`].")]
        pub static $table: $crate::field_enum::EnumTable =
            <$name as $crate::layout::HasTable>::TABLE;

        impl $name {
            /// The value named by byte `v`, if any.
            #[inline]
            pub const fn from_u8(v: u8) -> Option<Self> {
                match v {
                    $($value => Some(Self::$variant),)*
                    _ => None,
                }
            }

            /// The text form.
            pub const fn text(self) -> &'static str {
                match self {
                    $(Self::$variant => $text,)*
                }
            }
        }
    };
}

pub(crate) use field_enum;
