//! The package members (spec 004 §1), by path: added, removed, changed by size and SHA-256.
//! Equal members are told by comparing bytes; only a member that differs is hashed.

use std::collections::BTreeMap;

use neff_container::Neff;
use serde::Serialize;
use sha2::{Digest, Sha256};

/// What happened to a member.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MemberStatus {
    /// Only in B.
    Added,
    /// Only in A.
    Removed,
    /// In both, other bytes.
    Changed,
}

/// One member that is not the same on both sides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemberChange {
    /// The member path.
    pub path: String,
    /// Added, removed or changed.
    pub status: MemberStatus,
    /// Its size in A, bytes.
    pub size_a: Option<u64>,
    /// Its size in B.
    pub size_b: Option<u64>,
    /// SHA-256 of A's bytes, hex.
    pub sha256_a: Option<String>,
    /// SHA-256 of B's bytes.
    pub sha256_b: Option<String>,
}

/// How the member lists differ.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct MembersDiff {
    /// Members byte-identical on both sides.
    pub unchanged: u64,
    /// The others, by path.
    pub changes: Vec<MemberChange>,
}

fn sha256(bytes: &[u8]) -> String {
    neff_container::hash::hex(&Sha256::digest(bytes))
}

/// A member's bytes on each side (`None` where the side lacks it).
type Sides<'a> = (Option<&'a [u8]>, Option<&'a [u8]>);

/// Compares the members of two NEFFs by path.
pub fn diff_members(a: &Neff<'_>, b: &Neff<'_>) -> MembersDiff {
    let mut paths: BTreeMap<&str, Sides<'_>> = BTreeMap::new();
    for m in a.members() {
        paths.entry(m.path).or_default().0 = Some(m.data);
    }
    for m in b.members() {
        paths.entry(m.path).or_default().1 = Some(m.data);
    }
    let mut out = MembersDiff::default();
    for (path, (da, db)) in paths {
        let status = match (da, db) {
            (Some(x), Some(y)) if x == y => {
                out.unchanged += 1;
                continue;
            }
            (Some(_), Some(_)) => MemberStatus::Changed,
            (Some(_), None) => MemberStatus::Removed,
            _ => MemberStatus::Added,
        };
        out.changes.push(MemberChange {
            path: path.to_owned(),
            status,
            size_a: da.map(|d| d.len() as u64),
            size_b: db.map(|d| d.len() as u64),
            sha256_a: da.map(sha256),
            sha256_b: db.map(sha256),
        });
    }
    out
}
