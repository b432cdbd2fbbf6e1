//! Runtime 2.30.51 as the shared captures show it (decision D850): the regions learned from the
//! seven raw captures of `../shared/fixtures/real` ([`TEACHERS`], in that order), merged
//! ([`LearnedRuntime::merged`]) and kept in `crates/neff-load/data/runtime-2.30.51.json`
//! ([`super::saved`]). The `runtime` device model loads with them, so a trn2 NEFF gets the
//! runtime's own PREAMBLE / POSTAMBLE bytes without a capture at hand; `--like CAPTURE` still
//! replaces them with another capture's.
//!
//! The file is derived data: the test `builtin_runtime` learns it again from the captures and
//! fails when the two differ (`NEFFKIT_BLESS=1` rewrites it).

use std::sync::{Arc, OnceLock};

use super::learned::LearnedRuntime;

/// The captures the built-in runtime is learned from, relative to the shared fixtures' `real/`
/// folder, in merge order: where two show one content key, the first one's bytes are kept
/// (decision D850: the four profiled captures first).
pub const TEACHERS: [&str; 7] = [
    "profiled/baseline_attention",
    "profiled/baseline_bf16_s512",
    "profiled/fused_attention",
    "profiled/fused_fp32_s512",
    "attn_v6",
    "moe_v6b",
    "moe_megakernel",
];

/// The built-in runtime's file, as committed.
pub const TEXT: &str = include_str!("../../data/runtime-2.30.51.json");

/// The built-in runtime 2.30.51, read once.
pub fn runtime_2_30_51() -> Arc<LearnedRuntime> {
    static BUILT_IN: OnceLock<Arc<LearnedRuntime>> = OnceLock::new();
    BUILT_IN
        .get_or_init(|| {
            // The file is a constant of the build, read back by this crate's tests.
            Arc::new(super::saved::from_json(TEXT).expect("the built-in runtime file reads"))
        })
        .clone()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_built_in_runtime_reads() {
        let r = super::runtime_2_30_51();
        assert_eq!(r.version, super::super::rules::RULES_RUNTIME);
        assert!(!r.variants.is_empty());
    }
}
