//! `neff run --deny-races` (D681): on a race-free NEFF (matmul_small, D680: all shared NEFFs
//! run race-free) the run succeeds and writes its outputs. The racy-NEFF half (exit 1, stderr
//! naming the race, no output) is not written yet: see /work/notes/issue32-note-r4b.md.

mod common;

use common::*;
use neff_sim::func::HostTensor;

#[test]
fn deny_races_on_a_race_free_neff_writes_the_outputs() {
    let Some(m) = real_fixture() else { return };
    let dir = temp_dir();
    let out = dir.path().join("out");
    let a = neff()
        .args(["run", m, "--deny-races", "--random-inputs", "1", "-o"])
        .arg(&out)
        .assert()
        .success();
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(!err.contains("race"), "unexpected race report: {err}");
    let t = HostTensor::from_npy(&std::fs::read(out.join("output0.npy")).unwrap()).unwrap();
    assert_eq!(t.shape, [128, 128]);
}
