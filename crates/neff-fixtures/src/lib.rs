//! The shared fixtures (`../shared` beside the checkout: real compiler outputs and the hardware
//! profiles), read in place by the workspace's tests and examples, never copied.
//!
//! One rule for a fixture that is not there (the developers' guide): the test is skipped with a
//! message, unless `NEFFKIT_REQUIRE_FIXTURES=1` (CI sets it), where it fails. Every test crate
//! takes the paths and the rule from here, as a dev-dependency (decision D373).

use std::path::Path;

/// `path` under the shared folder, as a `&'static str` built at compile time.
macro_rules! shared {
    ($path:literal) => {
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared", $path)
    };
}

/// The shared folder itself (`../shared` of the checkout).
pub const SHARED_DIR: &str = shared!("");

/// The real compiler outputs (reference-real-neff.md).
pub const REAL_DIR: &str = shared!("/fixtures/real");

/// The four profiled trn2 NEFFs beside their neuron-profile reports.
pub const PROFILED_DIR: &str = shared!("/fixtures/real/profiled");

/// The nkipy matmul_small trn2 NEFF (reference §1.2, §3.2): the one most tests read.
pub const MATMUL_SMALL: &str = shared!("/fixtures/real/matmul_small.neff");

/// The moe_v6b NEFF: DIRECT2D records (D155) and KLR source maps.
pub const MOE_V6B: &str = shared!("/fixtures/real/moe_v6b.neff");

/// The attn_v6 NEFF (KLR source maps).
pub const ATTN_V6: &str = shared!("/fixtures/real/attn_v6.neff");

/// The moe_megakernel NEFF (a larger NKI MoE token-generation program, fixtures README).
pub const MOE_MEGAKERNEL: &str = shared!("/fixtures/real/moe_megakernel.neff");

/// Every real NEFF the shared fixtures hold: the three of `fixtures/real/` and the four
/// profiled ones of `fixtures/real/profiled/`.
pub const REAL_NEFFS: [&str; 7] = [
    MATMUL_SMALL,
    MOE_V6B,
    ATTN_V6,
    shared!("/fixtures/real/profiled/baseline_attention.neff"),
    shared!("/fixtures/real/profiled/baseline_bf16_s512.neff"),
    shared!("/fixtures/real/profiled/fused_attention.neff"),
    shared!("/fixtures/real/profiled/fused_fp32_s512.neff"),
];

/// The capture every shared run's image is learned from when a test times what the hardware
/// ran (`--like`, decision D620): runtime 2.30.51, the runtime of all seven shared captures.
pub const REFERENCE_CAPTURE: &str = shared!("/fixtures/real/profiled/baseline_attention.ntff.gz");

/// The NEFF [`REFERENCE_CAPTURE`] ran.
pub const REFERENCE_CAPTURE_NEFF: &str = shared!("/fixtures/real/profiled/baseline_attention.neff");

/// The profiled pairs' names: `<name>.neff` and `<name>.profile.json.gz` in [`PROFILED_DIR`].
pub const PROFILED_NAMES: [&str; 4] = [
    "baseline_attention",
    "fused_attention",
    "baseline_bf16_s512",
    "fused_fp32_s512",
];

/// Whether a missing fixture fails the test (`NEFFKIT_REQUIRE_FIXTURES=1`) instead of skipping it.
pub fn required() -> bool {
    std::env::var("NEFFKIT_REQUIRE_FIXTURES").as_deref() == Ok("1")
}

/// Whether the fixture at `path` (file or folder) is there. When it is not, prints that the test
/// is skipped, or panics under [`required`].
pub fn present(path: impl AsRef<Path>) -> bool {
    let path = path.as_ref();
    if path.exists() {
        return true;
    }
    assert!(
        !required(),
        "required fixture {} is missing (NEFFKIT_REQUIRE_FIXTURES=1)",
        path.display()
    );
    eprintln!("skipping: fixture {} not available", path.display());
    false
}

/// The bytes of the fixture at `path`, or `None` when it is absent (see [`present`]). A fixture
/// that is there but unreadable always fails.
pub fn read(path: impl AsRef<Path>) -> Option<Vec<u8>> {
    let path = path.as_ref();
    if !present(path) {
        return None;
    }
    match std::fs::read(path) {
        Ok(bytes) => Some(bytes),
        Err(e) => panic!("fixture {} is there but unreadable: {e}", path.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_lie_under_the_shared_folder() {
        for p in REAL_NEFFS {
            assert!(p.starts_with(REAL_DIR) && p.ends_with(".neff"), "{p}");
        }
        assert!(PROFILED_DIR.starts_with(REAL_DIR));
        assert!(REAL_DIR.starts_with(SHARED_DIR));
    }

    #[test]
    fn an_absent_fixture_is_skipped_or_fails_by_the_switch() {
        let missing = format!("{SHARED_DIR}/no/such/fixture.neff");
        if required() {
            assert!(std::panic::catch_unwind(|| present(&missing)).is_err());
        } else {
            assert!(!present(&missing));
            assert_eq!(read(&missing), None);
        }
    }

    #[test]
    fn the_real_fixtures_read_when_present() {
        for p in REAL_NEFFS {
            if let Some(bytes) = read(p) {
                // Every NEFF starts with its 0x400-byte header (reference §1.2).
                assert!(bytes.len() > 1024, "{p}");
            }
        }
    }
}
