//! Support shared by every CLI test file (`mod common;`): the real `neff` binary as an assert_cmd
//! [`Command`], the spec sample and the real fixture with the skip rule of the brief, and
//! temporary inputs.
//!
//! Each test file is its own crate and uses only part of this module, hence the `dead_code`
//! allowance below.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

pub(crate) use assert_cmd::Command;
pub(crate) use serde_json::Value;

/// The spec sample NEFF (spec 003 §7; examples/sample.neff).
pub(crate) const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sample.neff");

/// The KLR example of BIR JSON (neff-bir's fixture).
pub(crate) const KLR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../neff-bir/tests/fixtures/klr_tensor_scalar.json"
);

/// The real trn2 compiler output (reference-real-neff.md), read in place, never copied.
pub(crate) const REAL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/fixtures/real/matmul_small.neff"
);

/// Every real compiler output the shared fixtures hold: the three of `fixtures/real/` and the
/// four profiled trn2 NEFFs of `fixtures/real/profiled/` (read in place, never copied).
pub(crate) const REAL_ALL: [&str; 7] = [
    REAL,
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/fixtures/real/moe_v6b.neff"
    ),
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/fixtures/real/attn_v6.neff"
    ),
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/fixtures/real/profiled/baseline_attention.neff"
    ),
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/fixtures/real/profiled/baseline_bf16_s512.neff"
    ),
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/fixtures/real/profiled/fused_attention.neff"
    ),
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/fixtures/real/profiled/fused_fp32_s512.neff"
    ),
];

/// The folder of the four profiled trn2 NEFFs and their neuron-profile reports (read in place).
pub(crate) const PROFILED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/fixtures/real/profiled"
);

/// The profiled pairs: `<name>.neff` and `<name>.profile.json.gz` in [`PROFILED`].
pub(crate) const PROFILED_NAMES: [&str; 4] = [
    "baseline_attention",
    "fused_attention",
    "baseline_bf16_s512",
    "fused_fp32_s512",
];

/// (NEFF, profile) paths of one profiled pair, or `None` (skipped, see [`fixture_present`]).
pub(crate) fn profiled_pair(name: &str) -> Option<(String, String)> {
    let n = format!("{PROFILED}/{name}.neff");
    let p = format!("{PROFILED}/{name}.profile.json.gz");
    (fixture_present(&n) && fixture_present(&p)).then_some((n, p))
}

/// The `neff` binary built by this package.
pub(crate) fn neff() -> Command {
    Command::cargo_bin("neff").expect("the neff binary")
}

/// Whether the fixture at `path` is there. When it is absent the test is skipped with a printed
/// message, unless `NEFFKIT_REQUIRE_FIXTURES=1`, where a missing fixture fails the test.
pub(crate) fn fixture_present(path: &str) -> bool {
    if Path::new(path).exists() {
        return true;
    }
    assert!(
        std::env::var("NEFFKIT_REQUIRE_FIXTURES").as_deref() != Ok("1"),
        "required fixture {path} is missing (NEFFKIT_REQUIRE_FIXTURES=1)"
    );
    eprintln!("skipping: fixture {path} not available");
    false
}

/// The real fixture's path, or `None` (test skipped, see [`fixture_present`]).
pub(crate) fn real_fixture() -> Option<&'static str> {
    fixture_present(REAL).then_some(REAL)
}

/// The stdout of `neff ARGS`, which must succeed.
pub(crate) fn stdout<I, S>(args: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    stdout_of(neff().args(args))
}

/// The stdout of `cmd`, which must succeed.
pub(crate) fn stdout_of(cmd: &mut Command) -> String {
    let out = cmd.assert().success().get_output().stdout.clone();
    String::from_utf8(out).expect("UTF-8 stdout")
}

/// The stdout of `neff ARGS`, which must exit with `code`.
pub(crate) fn stdout_with_code<I, S>(code: i32, args: I) -> String
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let out = neff().args(args).assert().code(code).get_output().clone();
    String::from_utf8(out.stdout).expect("UTF-8 stdout")
}

/// The JSON printed by `neff ARGS`, which must succeed.
pub(crate) fn json<I, S>(args: I) -> Value
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    json_of(neff().args(args))
}

/// The JSON printed by `cmd`, which must succeed.
pub(crate) fn json_of(cmd: &mut Command) -> Value {
    let out = cmd.assert().success().get_output().stdout.clone();
    serde_json::from_slice(&out).expect("JSON stdout")
}

/// A fresh temporary folder, removed when dropped.
pub(crate) fn temp_dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("a temporary folder")
}

/// Writes `bytes` to `dir/name` and returns the path.
pub(crate) fn temp_file(dir: &tempfile::TempDir, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).expect("writing a test input");
    path
}
