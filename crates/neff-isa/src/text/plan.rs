//! The print plan of a layout: what the printer needs of a [`Layout`]'s field list, worked out
//! once per layout (on first use, kept in the layout itself: no second table) instead of per
//! printed slot (issue 20): the `key=a,b` groups, each token's ` key=` text as one string, and
//! the bytes the fields cover.

use std::sync::OnceLock;

use super::print::field_mask;
use crate::layout::{Field, Layout, Show};

/// The lazily built [`PrintPlan`] a [`Layout`] carries.
#[derive(Debug, Default)]
pub struct PlanCell(OnceLock<PrintPlan>);

impl PlanCell {
    /// Not built yet (what every layout static starts with).
    pub const fn new() -> PlanCell {
        PlanCell(OnceLock::new())
    }
}

/// A layout's fields as the printer walks them.
#[derive(Debug)]
pub(crate) struct PrintPlan {
    /// Bit i set = byte i is covered by some field (shown or not).
    pub(crate) covered: u64,
    /// The tokens in text order.
    pub(crate) tokens: Box<[Token]>,
}

/// One text token: a field, or a run of fields sharing a key (`ops=MULTIPLY,BYPASS`).
#[derive(Debug)]
pub(crate) struct Token {
    /// The field(s), in order; never empty.
    pub(crate) fields: &'static [Field],
    /// What precedes the value: ` key=`, or ` ` for a positional field.
    pub(crate) key: Box<str>,
    /// ` key_ptr=` for an operand whose address form the profiler spells with `_ptr` (D130).
    pub(crate) ptr_key: Box<str>,
    /// No field of the token can be hidden.
    pub(crate) always: bool,
    /// Every field of the token is shown by another token (a dtype byte: [`Show::Joined`]).
    pub(crate) never: bool,
}

impl Layout {
    /// The print plan of this layout, built on first use.
    #[inline]
    pub(crate) fn print_plan(&self) -> &PrintPlan {
        self.text_plan.0.get_or_init(|| PrintPlan::of(self.fields))
    }
}

impl PrintPlan {
    fn of(fields: &'static [Field]) -> PrintPlan {
        let covered = fields.iter().fold(0, |m, f| m | field_mask(f));
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < fields.len() {
            let n = group_len(fields, i);
            tokens.push(Token::of(&fields[i..i + n]));
            i += n;
        }
        PrintPlan {
            covered,
            tokens: tokens.into_boxed_slice(),
        }
    }
}

impl Token {
    fn of(fields: &'static [Field]) -> Token {
        let f = &fields[0];
        let key = if fields.len() == 1 && f.show == Show::Positional {
            " ".to_string()
        } else {
            format!(" {}=", f.key)
        };
        Token {
            fields,
            key: key.into_boxed_str(),
            ptr_key: format!(" {}_ptr=", f.key).into_boxed_str(),
            always: fields
                .iter()
                .all(|f| matches!(f.show, Show::Always | Show::Positional)),
            never: fields.iter().all(|f| f.show == Show::Joined),
        }
    }

    /// The single field of a token that is not a group.
    #[inline]
    pub(crate) fn single(&self) -> Option<&'static Field> {
        match self.fields {
            [f] => Some(f),
            _ => None,
        }
    }
}

/// How many fields from `i` on share field `i`'s text key (a `key=a,b` group).
pub(crate) fn group_len(fields: &[Field], i: usize) -> usize {
    let key = fields[i].key;
    1 + fields[i + 1..].iter().take_while(|f| f.key == key).count()
}
