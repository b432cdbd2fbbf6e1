//! A borrowed view of one package member.

/// One regular file of the package, borrowed from the inflated buffer of its [`crate::Neff`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member<'a> {
    /// Path inside the package (normalized: no leading `./`).
    pub path: &'a str,
    /// Offset of the member's data in the inflated tar (its tar header is 512 bytes earlier,
    /// or more when a GNU long-name or pax entry precedes it).
    pub offset: u64,
    /// The member's bytes.
    pub data: &'a [u8],
}

impl Member<'_> {
    /// Size in bytes.
    pub fn size(&self) -> u64 {
        self.data.len() as u64
    }
}
