//! The header (reference §1.1), field by field as `neff info` shows it, and the feature bits
//! (reference §1.4) one by one.

use neff_container::Header;
use serde::Serialize;

/// One header field that differs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HeaderChange {
    /// The field (`uuid`, `hash`, `feature_bits`, ..., `pad` for the reserved tail).
    pub field: String,
    /// A's value as `neff info` prints it.
    pub a: String,
    /// B's value.
    pub b: String,
}

/// A feature bit set on one side only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FeatureBitChange {
    /// The bit (a power of two).
    pub bit: u64,
    /// Its name from reference §1.4 (claimed there), if it has one.
    pub name: Option<&'static str>,
}

/// How two headers differ.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct HeaderDiff {
    /// The fields that differ, in header order.
    pub changed: Vec<HeaderChange>,
    /// Feature bits B sets and A does not.
    pub feature_bits_added: Vec<FeatureBitChange>,
    /// Feature bits A sets and B does not.
    pub feature_bits_removed: Vec<FeatureBitChange>,
}

impl HeaderDiff {
    /// Whether the two headers are byte-identical.
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty()
    }
}

/// Compares two headers: every field of [`Header::text_rows`], then the reserved tail bytes
/// (bytes are the truth: two headers whose fields print alike may still differ there).
pub fn diff_headers(a: &Header, b: &Header) -> HeaderDiff {
    let mut changed: Vec<HeaderChange> = a
        .text_rows()
        .into_iter()
        .zip(b.text_rows())
        .filter(|((_, va), (_, vb))| va != vb)
        .map(|((field, va), (_, vb))| HeaderChange {
            field: field.to_owned(),
            a: va,
            b: vb,
        })
        .collect();
    if a.pad != b.pad {
        changed.push(HeaderChange {
            field: "pad".into(),
            a: neff_container::hash::hex(&a.pad),
            b: neff_container::hash::hex(&b.pad),
        });
    }
    let only = |x: u64, y: u64| {
        neff_container::FeatureBits(x & !y)
            .bits()
            .map(|f| FeatureBitChange {
                bit: f.bit,
                name: f.name,
            })
            .collect()
    };
    HeaderDiff {
        changed,
        feature_bits_added: only(b.feature_bits.0, a.feature_bits.0),
        feature_bits_removed: only(a.feature_bits.0, b.feature_bits.0),
    }
}
