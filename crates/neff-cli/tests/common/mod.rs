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

/// The real compiler outputs (read in place, never copied) and the skip-or-fail rule for them:
/// one place for the workspace (neff-fixtures). `REAL` is matmul_small (reference-real-neff.md),
/// `REAL_ALL` every real NEFF, `PROFILED` the four profiled trn2 NEFFs with their reports. Each
/// test file uses part of them, like the rest of this module.
#[allow(unused_imports)]
pub(crate) use neff_fixtures::{
    MATMUL_SMALL as REAL, MOE_V6B as MOE, PROFILED_DIR as PROFILED, PROFILED_NAMES, REAL_DIR,
    REAL_NEFFS as REAL_ALL, present as fixture_present,
};

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

/// Runs `neff synth -o DIR/NAME ARGS` (which must succeed) and returns the output path.
pub(crate) fn synth(dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let path = dir.join(name);
    neff()
        .arg("synth")
        .arg("-o")
        .arg(&path)
        .args(args)
        .assert()
        .success();
    path
}
