//! The 3-bit dependency kind tag (spec 002 §5: `EdgeKind = {Invalid 0, Ordered 1, Anti 2, Output 3,
//! Flow 4}`, recovered from `EdgeKind2string`).

use crate::error::EdgeKindError;

/// The kind tag of a dependency edge: the low 3 bits of the spec's `PointerIntPair<Instruction*, 3>`
/// (spec 002 §5). The tag is per edge; normal vs loop-carried is per list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum EdgeKind {
    /// 0: the zero tag; never a meaningful dependency (the verifier reports it).
    Invalid = 0,
    /// 1: ordering-only dependency.
    Ordered = 1,
    /// 2: write-after-read.
    Anti = 2,
    /// 3: write-after-write.
    Output = 3,
    /// 4: read-after-write (true data dependency).
    Flow = 4,
}

impl EdgeKind {
    /// Every kind, in tag order.
    pub const ALL: [EdgeKind; 5] = [
        EdgeKind::Invalid,
        EdgeKind::Ordered,
        EdgeKind::Anti,
        EdgeKind::Output,
        EdgeKind::Flow,
    ];

    /// The name `EdgeKind2string` gives (spec 002 §5), used as the JSON `"kind"` value.
    pub fn name(self) -> &'static str {
        match self {
            EdgeKind::Invalid => "Invalid",
            EdgeKind::Ordered => "Ordered",
            EdgeKind::Anti => "Anti",
            EdgeKind::Output => "Output",
            EdgeKind::Flow => "Flow",
        }
    }

    /// Parses an `EdgeKind2string` name.
    pub fn from_name(name: &str) -> Option<EdgeKind> {
        EdgeKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The 3-bit tag value.
    pub fn bits(self) -> u8 {
        self as u8
    }

    /// Decodes a tag. Values with bits above the low 3 are "Integer too large for field" (the
    /// `PointerIntPair` assert of spec 002 §5); 5..=7 fit the field but name no kind.
    pub fn from_bits(bits: u8) -> Result<EdgeKind, EdgeKindError> {
        if bits & 0xF8 != 0 {
            return Err(EdgeKindError::TooLarge(bits));
        }
        EdgeKind::ALL
            .get(usize::from(bits))
            .copied()
            .ok_or(EdgeKindError::Unnamed(bits))
    }
}

impl std::fmt::Display for EdgeKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_match_spec_002_section_5() {
        let tags: Vec<u8> = EdgeKind::ALL.iter().map(|k| k.bits()).collect();
        assert_eq!(tags, [0, 1, 2, 3, 4]);
        assert_eq!(EdgeKind::from_bits(4), Ok(EdgeKind::Flow));
        assert_eq!(EdgeKind::from_bits(8), Err(EdgeKindError::TooLarge(8)));
        assert_eq!(EdgeKind::from_bits(5), Err(EdgeKindError::Unnamed(5)));
        assert_eq!(EdgeKind::from_name("Anti"), Some(EdgeKind::Anti));
        assert_eq!(EdgeKind::from_name("flow"), None);
    }
}
