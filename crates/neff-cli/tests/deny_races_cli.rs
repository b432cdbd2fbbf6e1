//! `neff run --deny-races` (D681), both ways: on a race-free NEFF (matmul_small, D680: all shared
//! NEFFs run race-free) the run succeeds and writes its outputs; with the Activation COPY that reads
//! PE's PSUM result stripped of its `$S[5]>=2` wait, the run reports the race and, under
//! `--deny-races`, exits 1 without writing an output (without the flag: a warning, exit 0).

mod common;

use common::*;
use neff_isa::{Events, SLOT_BYTES};
use neff_sim::func::HostTensor;

/// The Activation stream of matmul_small, and the slot of its first COPY (`COPY $S[5]>=2 ...`
/// in `neff disasm`: it reads PSUM 0x2000800, which PE's MATMUL at slot 4 writes).
const ACT: &str = "sg00/Activation.bin";
const COPY_SLOT: usize = 3;

/// matmul_small with that COPY's wait cleared: nothing orders its PSUM read after the MATMUL.
fn racy(dir: &tempfile::TempDir, real: &str) -> std::path::PathBuf {
    let bytes = std::fs::read(real).unwrap();
    let neff = neff_container::Neff::parse(&bytes).unwrap();
    let mut act = neff
        .member(ACT)
        .expect("matmul_small has an Activation stream")
        .to_vec();
    let slot = &mut act[COPY_SLOT * SLOT_BYTES..(COPY_SLOT + 1) * SLOT_BYTES];
    let ev = Events::read(slot).unwrap();
    // The slot is the one the test means: a wait on $S[5] (mode byte non-zero, index 5).
    assert_eq!((ev.wait_idx, ev.wait_mode != 0), (5, true), "{ev:?}");
    Events {
        wait_mode: 0,
        wait_idx: 0,
        ..ev
    }
    .write(slot)
    .unwrap();
    let mut b = neff_container::NeffBuilder::from_neff(&neff);
    b.replace(ACT, act).unwrap();
    temp_file(dir, "racy.neff", b.build().unwrap())
}

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

#[test]
fn deny_races_fails_a_racy_neff_and_writes_nothing() {
    let Some(m) = real_fixture() else { return };
    let dir = temp_dir();
    let neff_path = racy(&dir, m);
    let out = dir.path().join("out");
    let a = neff()
        .args(["run"])
        .arg(&neff_path)
        .args(["--deny-races", "--random-inputs", "1", "-o"])
        .arg(&out)
        .assert()
        .code(1);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(err.contains("race"), "no race named: {err}");
    assert!(!out.join("output0.npy").exists(), "an output was written");

    // Without the flag the same race is a warning and the outputs are written (D681).
    let out2 = dir.path().join("out2");
    let a = neff()
        .args(["run"])
        .arg(&neff_path)
        .args(["--random-inputs", "1", "-o"])
        .arg(&out2)
        .assert()
        .success();
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(err.contains("warning: race"), "no race warning: {err}");
    assert!(out2.join("output0.npy").exists());
}
