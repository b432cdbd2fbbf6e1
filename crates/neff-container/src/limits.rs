//! Limits on what untrusted input may declare, checked before anything is allocated.
//! Defaults are decision D21.

use std::fmt;

/// Caps applied while reading a NEFF; sizes read from input are compared against these before
/// memory is reserved for them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most members (regular files) the package may hold.
    pub max_members: usize,
    /// Largest size of one member, in bytes.
    pub max_member_size: u64,
    /// Largest inflated tar, in bytes.
    pub max_total_size: u64,
    /// Largest inflated size per compressed byte (decision D21: deflate's own bound is ~1032).
    pub max_ratio: u64,
}

impl Default for Limits {
    /// decision D21: 1,000,000 members, 16 GiB per member, 64 GiB inflated, ratio 1100.
    fn default() -> Self {
        Self {
            max_members: 1_000_000,
            max_member_size: 16 << 30,
            max_total_size: 64 << 30,
            max_ratio: 1100,
        }
    }
}

impl Limits {
    /// No limits at all (for trusted input, e.g. files this process just wrote).
    pub fn unlimited() -> Self {
        Self {
            max_members: usize::MAX,
            max_member_size: u64::MAX,
            max_total_size: u64::MAX,
            max_ratio: u64::MAX,
        }
    }

    /// The inflated size the payload may reach: the smaller of `max_total_size` and
    /// `max_ratio` times the compressed length.
    pub fn inflated_cap(&self, compressed_len: u64) -> (u64, LimitKind) {
        let by_ratio = self.max_ratio.saturating_mul(compressed_len.max(1));
        if by_ratio < self.max_total_size {
            (by_ratio, LimitKind::CompressionRatio)
        } else {
            (self.max_total_size, LimitKind::TotalSize)
        }
    }
}

/// Which limit an error concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitKind {
    /// [`Limits::max_members`].
    MemberCount,
    /// [`Limits::max_member_size`].
    MemberSize,
    /// [`Limits::max_total_size`].
    TotalSize,
    /// [`Limits::max_ratio`] (expressed as a size: ratio times compressed bytes).
    CompressionRatio,
}

impl fmt::Display for LimitKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::MemberCount => "member count",
            Self::MemberSize => "member size",
            Self::TotalSize => "total inflated size",
            Self::CompressionRatio => "inflated size allowed by the compression-ratio limit",
        })
    }
}
