//! Issue 15 item 1 (D300): every command whose reader goes away (`neff lower x | head -1`) ends
//! quietly with exit 0: no "Broken pipe" message, no internal-error panic.

mod common;

use std::ffi::OsString;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use common::{KLR, SAMPLE, neff, stdout_of, temp_dir, temp_file};

/// Runs `neff ARGS` with `stdout` and `stdin`; returns its exit status and stderr.
fn run(args: &[OsString], stdin: &[u8], close_stdout: bool) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(assert_cmd::cargo::cargo_bin("neff"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(if close_stdout {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawning neff");
    // The read end is dropped right after the spawn: the first write finds no reader.
    drop(child.stdout.take());
    // The command may exit before reading stdin; a failed write here is not the test's concern.
    let _ = child.stdin.take().expect("stdin").write_all(stdin);
    let out = child.wait_with_output().expect("waiting for neff");
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// With its stdout closed, `neff ARGS` exits 0 and says on stderr at most what it says when its
/// output is read (a warning, say; it may stop before a closing summary), never "Broken pipe"
/// nor an internal error.
fn ends_quietly_on_closed_stdout(args: &[OsString], stdin: &[u8]) {
    let (_, usual) = run(args, stdin, false);
    let (status, stderr) = run(args, stdin, true);
    assert!(
        status.success() && usual.starts_with(&stderr),
        "neff {args:?} on a closed stdout: {status} with stderr {stderr:?}"
    );
}

fn os(args: &[&str]) -> Vec<OsString> {
    args.iter().map(OsString::from).collect()
}

fn with_path(args: &[&str], path: &Path) -> Vec<OsString> {
    let mut v = os(args);
    v.push(path.into());
    v
}

#[test]
fn every_command_ends_quietly_when_its_reader_goes_away() {
    let dir = temp_dir();
    let bin = temp_file(
        &dir,
        "pool.bin",
        neff()
            .args(["cat", SAMPLE, "sg00/pool.bin"])
            .assert()
            .success()
            .get_output()
            .stdout
            .clone(),
    );
    let asm = temp_file(&dir, "pool.asm", stdout_of(neff().arg("disasm").arg(&bin)));
    let runs: Vec<(Vec<OsString>, &[u8])> = vec![
        (os(&["ls", SAMPLE]), b""),
        (os(&["ls", "--json", SAMPLE]), b""),
        (os(&["info", SAMPLE]), b""),
        (os(&["info", "--json", SAMPLE]), b""),
        (os(&["cat", SAMPLE, "sg00/pool.bin"]), b""),
        (os(&["disasm", SAMPLE]), b""),
        (os(&["disasm", "--json", SAMPLE]), b""),
        (with_path(&["dump", "--slot", "0"], &bin), b""),
        (os(&["validate", SAMPLE]), b""),
        (os(&["kbin", SAMPLE]), b""),
        (os(&["kbin", "--json", SAMPLE]), b""),
        (os(&["load", SAMPLE]), b""),
        (os(&["load", "--json", SAMPLE]), b""),
        (os(&["lower", SAMPLE]), b""),
        (os(&["lower", "--json", SAMPLE]), b""),
        (
            os(&["ip", SAMPLE, "--engine", "pool", "--reverse"]),
            b"1\n2\n",
        ),
        (os(&["sim", SAMPLE]), b""),
        (os(&["sim", "--json", SAMPLE]), b""),
        (os(&["scan", SAMPLE]), b""),
        (
            with_path(&["report", SAMPLE, "-o"], &dir.path().join("r.html")),
            b"",
        ),
        (os(&["bir", "check", KLR]), b""),
        (os(&["bir", "fmt", KLR]), b""),
        (os(&["bir", "stats", "--json", KLR]), b""),
        (with_path(&["asm", "-o", "/dev/null"], &asm), b""),
        (with_path(&["synth", "-o"], &dir.path().join("s.neff")), b""),
        (
            with_path(&["extract", SAMPLE, "--force", "-C"], &dir.path().join("x")),
            b"",
        ),
    ];
    for (args, stdin) in &runs {
        ends_quietly_on_closed_stdout(args, stdin);
    }
}

/// `neff disasm` of input many formatting jobs long (D392: jobs formatted on every core, written
/// in order) meets the closed pipe in the middle of its writes, not at the final flush: it still
/// ends quietly, for a NEFF and for a raw `.bin`.
#[test]
fn disasm_of_many_jobs_ends_quietly_when_its_reader_goes_away() {
    let dir = temp_dir();
    let big = dir.path().join("big.neff");
    neff()
        .args(["synth", "--slots-per-engine", "20000", "--seed", "5", "-o"])
        .arg(&big)
        .assert()
        .success();
    let pe = temp_file(
        &dir,
        "pe.bin",
        neff()
            .arg("cat")
            .arg(&big)
            .arg("sg00/PE.bin")
            .assert()
            .success()
            .get_output()
            .stdout
            .clone(),
    );
    ends_quietly_on_closed_stdout(&with_path(&["disasm"], &big), b"");
    ends_quietly_on_closed_stdout(&with_path(&["disasm"], &pe), b"");
}
