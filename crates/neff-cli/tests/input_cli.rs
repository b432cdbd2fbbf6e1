//! Issue 15 item 4 (D302): a NEFF is told by its header, not its name, and `-` reads standard
//! input wherever a file is read.

mod common;

use common::{KLR, SAMPLE, neff, stdout, stdout_of, temp_dir, temp_file};

fn sample_bytes() -> Vec<u8> {
    std::fs::read(SAMPLE).expect("the sample")
}

#[test]
fn a_neff_named_bin_is_read_as_a_neff() {
    let dir = temp_dir();
    let disguised = temp_file(&dir, "model.bin", sample_bytes());
    let want = stdout(["disasm", SAMPLE]);
    assert_eq!(stdout_of(neff().arg("disasm").arg(&disguised)), want);
    assert_eq!(
        stdout_of(neff().arg("validate").arg(&disguised)),
        stdout(["validate", SAMPLE]).replace(SAMPLE, disguised.to_str().unwrap())
    );
}

#[test]
fn a_broken_file_named_neff_is_an_error_not_a_stream() {
    let dir = temp_dir();
    let broken = temp_file(&dir, "broken.neff", vec![0u8; 4096]);
    neff().arg("disasm").arg(&broken).assert().code(1);
}

#[test]
fn dash_reads_a_neff_from_standard_input() {
    for command in ["ls", "info", "kbin", "load", "lower", "disasm", "validate"] {
        let want = stdout([command, SAMPLE]).replace(SAMPLE, "-");
        let got = stdout_of(neff().args([command, "-"]).write_stdin(sample_bytes()));
        assert_eq!(got, want, "neff {command} -");
    }
}

#[test]
fn dash_reads_an_engine_stream_from_standard_input() {
    let pool = neff()
        .args(["cat", SAMPLE, "sg00/pool.bin"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let dir = temp_dir();
    let bin = temp_file(&dir, "pool.bin", &pool);
    let want = stdout_of(neff().arg("disasm").arg(&bin));
    let got = stdout_of(neff().args(["disasm", "-"]).write_stdin(pool));
    assert_eq!(got, want);
    let out = dir.path().join("again.bin");
    neff()
        .args(["asm", "-", "-o"])
        .arg(&out)
        .write_stdin(want)
        .assert()
        .success();
    assert_eq!(std::fs::read(&out).unwrap(), std::fs::read(&bin).unwrap());
}

#[test]
fn dash_reads_bir_json_from_standard_input() {
    let got = stdout_of(
        neff()
            .args(["bir", "check", "-"])
            .write_stdin(std::fs::read(KLR).unwrap()),
    );
    assert!(got.contains("1 functions, 1 instructions"), "{got}");
}
