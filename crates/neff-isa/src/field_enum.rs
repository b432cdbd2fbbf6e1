//! The declarative form of a one-byte field enum: a Rust enum plus its [`EnumTable`] (value ->
//! text name) read by the printer, the parser and the explainer.

/// The names of one field enum, for text and explanations. Unknown values print as hex numbers.
#[derive(Debug)]
pub struct EnumTable {
    /// The enum's name, e.g. `Dtype`.
    pub name: &'static str,
    /// `(value, text name)` pairs.
    pub entries: &'static [(u8, &'static str)],
    /// For each byte value, the index of its entry, [`EnumTable::UNNAMED`] for none: built at
    /// compile time from `entries` ([`EnumTable::new`]), so a name is one look-up (the
    /// disassembler asks per enum field, issue 20).
    by_value: [u8; 256],
}

impl EnumTable {
    /// `by_value` of a value without an entry.
    const UNNAMED: u8 = u8::MAX;

    /// The table of `entries` (at most 255; the first entry of a value names it).
    pub const fn new(name: &'static str, entries: &'static [(u8, &'static str)]) -> EnumTable {
        assert!(
            entries.len() < EnumTable::UNNAMED as usize,
            "too many entries"
        );
        let mut by_value = [EnumTable::UNNAMED; 256];
        let mut i = entries.len();
        // Backwards, so that the first entry of a value wins.
        while i > 0 {
            i -= 1;
            by_value[entries[i].0 as usize] = i as u8;
        }
        EnumTable {
            name,
            entries,
            by_value,
        }
    }

    /// The text name of `v`, if named.
    #[inline]
    pub fn name_of(&self, v: u8) -> Option<&'static str> {
        let i = self.by_value[usize::from(v)];
        self.entries.get(usize::from(i)).map(|&(_, n)| n)
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
            const TABLE: $crate::field_enum::EnumTable = $crate::field_enum::EnumTable::new(
                stringify!($name),
                &[$(($value, $text),)*],
            );
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
