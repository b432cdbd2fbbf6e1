//! Problems found in debug info: never fatal (issue 21: bad or absent debug info is a warning for
//! every command that does not need it).

use std::fmt;

/// A problem with a debug-info member, naming it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DebugWarning {
    /// The member (or `sgNN/def.json` key) concerned.
    pub member: String,
    /// What is wrong.
    pub message: String,
}

impl DebugWarning {
    /// A warning about `member`.
    pub fn new(member: impl Into<String>, message: impl Into<String>) -> DebugWarning {
        DebugWarning {
            member: member.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for DebugWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.member, self.message)
    }
}
