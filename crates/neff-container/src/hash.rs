//! The payload hash at header 0x0AC (reference §1.1): pkg_version 2 stores the MD5 of the
//! stored (compressed) payload with each 32-bit word byte-reversed, then 16 zero bytes;
//! pkg_version 1 stores SHA-256. An unswapped MD5 is accepted as a legacy variant (decision D20).

use md5::{Digest, Md5};
use sha2::Sha256;

use crate::error::ContainerError;
use crate::header::{Header, PKG_VERSION_MD5, PKG_VERSION_SHA256};

/// The outcome of checking the header hash against the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashStatus {
    /// The hash matches in the order real files use (word-swapped MD5, or SHA-256).
    Verified,
    /// pkg_version 2 and the MD5 matches in plain digest order (the older "kaena-tools"
    /// order reported by reference §1.1; decision D20).
    VerifiedLegacyOrder,
    /// The hash does not match (only returned by [`check`]; the reader turns it into an error
    /// unless verification is off).
    Mismatch,
    /// Verification was turned off; nothing was computed.
    NotChecked,
}

impl HashStatus {
    /// True for the two verified states.
    pub fn is_ok(self) -> bool {
        matches!(self, Self::Verified | Self::VerifiedLegacyOrder)
    }

    /// The JSON spelling (`neff info --json` `hash_status`, `neff scan` rows).
    pub const fn name(self) -> &'static str {
        match self {
            Self::Verified => "verified",
            Self::VerifiedLegacyOrder => "verified_legacy_order",
            Self::Mismatch => "mismatch",
            Self::NotChecked => "not_checked",
        }
    }
}

/// The 32 hash bytes a writer stores for `payload` under `pkg_version` (reference §1.1).
pub fn compute(pkg_version: u64, payload: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    if pkg_version == PKG_VERSION_SHA256 {
        out.copy_from_slice(&Sha256::digest(payload));
    } else {
        out[..16].copy_from_slice(&swap_words(Md5::digest(payload).into()));
    }
    out
}

/// Compares the stored hash with the payload's digest.
pub fn check(header: &Header, payload: &[u8]) -> HashStatus {
    let mut hasher = PayloadHasher::new(header);
    hasher.update(payload);
    hasher.finish(header)
}

/// The payload digest computed piece by piece, so that the two-thread reader can interleave it
/// with its other work (decision D112).
pub(crate) enum PayloadHasher {
    /// pkg_version 2 (reference §1.1).
    Md5(Md5),
    /// pkg_version 1.
    Sha256(Sha256),
}

impl PayloadHasher {
    /// The hasher `header.pkg_version` calls for (same choice as [`check`]).
    pub(crate) fn new(header: &Header) -> Self {
        match header.pkg_version {
            PKG_VERSION_MD5 => Self::Md5(Md5::new()),
            _ => Self::Sha256(Sha256::new()),
        }
    }

    /// Feeds the next bytes of the payload.
    pub(crate) fn update(&mut self, bytes: &[u8]) {
        match self {
            Self::Md5(h) => h.update(bytes),
            Self::Sha256(h) => h.update(bytes),
        }
    }

    /// Compares the digest with the stored hash, like [`check`].
    pub(crate) fn finish(self, header: &Header) -> HashStatus {
        match self {
            Self::Md5(h) => {
                let digest: [u8; 16] = h.finalize().into();
                let stored = &header.hash[..16];
                if stored == swap_words(digest) {
                    HashStatus::Verified
                } else if stored == digest {
                    HashStatus::VerifiedLegacyOrder
                } else {
                    HashStatus::Mismatch
                }
            }
            Self::Sha256(h) => {
                if header.hash[..] == h.finalize()[..] {
                    HashStatus::Verified
                } else {
                    HashStatus::Mismatch
                }
            }
        }
    }
}

/// `status` as a result: a mismatch becomes [`ContainerError::HashMismatch`] naming both values
/// (the digest is computed again for the message; only a corrupt file pays it).
pub(crate) fn status_result(
    header: &Header,
    payload: &[u8],
    status: HashStatus,
) -> Result<HashStatus, ContainerError> {
    if status != HashStatus::Mismatch {
        return Ok(status);
    }
    let (algorithm, stored, computed) = if header.pkg_version == PKG_VERSION_MD5 {
        (
            "md5",
            &header.hash[..16],
            compute(PKG_VERSION_MD5, payload)[..16].to_vec(),
        )
    } else {
        (
            "sha256",
            &header.hash[..],
            compute(PKG_VERSION_SHA256, payload).to_vec(),
        )
    };
    Err(ContainerError::HashMismatch {
        algorithm,
        stored: hex(stored),
        computed: hex(&computed),
    })
}

/// Reverses the bytes of each 32-bit word (reference §1.1: md5 `efe9b3bc ...` stored `bc b3 e9 ef ...`).
fn swap_words(digest: [u8; 16]) -> [u8; 16] {
    let mut out = digest;
    for word in out.chunks_exact_mut(4) {
        word.reverse();
    }
    out
}

/// Lower-case hex of `bytes`.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swap_matches_reference_example() {
        // reference §1.1: md5 efe9b3bc 98163077 b94c8bcd acf51f47 -> bc b3 e9 ef 77 30 16 98 ...
        let digest = [
            0xef, 0xe9, 0xb3, 0xbc, 0x98, 0x16, 0x30, 0x77, 0xb9, 0x4c, 0x8b, 0xcd, 0xac, 0xf5,
            0x1f, 0x47,
        ];
        assert_eq!(hex(&swap_words(digest)), "bcb3e9ef77301698cd8b4cb9471ff5ac");
    }
}
