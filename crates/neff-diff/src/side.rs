//! The two sides of a diff, named as diff(1) names them: A (the old file) and B (the new one).

use std::fmt;

use serde::Serialize;

/// Which of the two inputs something belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Side {
    /// The first file (`neff diff A B`): what `-` lines show.
    A,
    /// The second file: what `+` lines show.
    B,
}

impl Side {
    /// `A` or `B`.
    pub const fn name(self) -> &'static str {
        match self {
            Side::A => "A",
            Side::B => "B",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
