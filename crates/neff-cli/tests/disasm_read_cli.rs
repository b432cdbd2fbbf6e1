//! `neff disasm` / `neff validate` of a NEFF stream through the package and keep only the
//! selected engine streams (decision D380). No text may reach stdout unless the whole read
//! succeeded (header hash of the stored payload, deflate stream, CRC-32, tar), and the text must
//! be that of the buffered reader's members disassembled one by one.

mod common;

use std::path::{Path, PathBuf};

use common::{REAL_ALL, fixture_present, neff, stdout, synth, temp_dir, temp_file};
use neff_container::{HEADER_SIZE, Header, Neff, hash};

/// A synthetic NEFF whose payload (~1.7 MB) is over the 1 MiB from which the streaming read
/// runs on two threads.
fn two_thread_neff(dir: &tempfile::TempDir) -> PathBuf {
    let args = [
        "--subgraphs",
        "2",
        "--slots-per-engine",
        "20000",
        "--seed",
        "7",
    ];
    let path = synth(dir.path(), "two.neff", &args);
    let len = std::fs::metadata(&path).unwrap().len() as usize;
    assert!(len - HEADER_SIZE > 1 << 20, "payload of {len} bytes");
    path
}

/// `neff ARGS` must fail with nothing on stdout; returns its stderr.
fn fails_silently(args: &[&str]) -> String {
    let out = neff().args(args).assert().failure().get_output().clone();
    assert!(
        out.stdout.is_empty(),
        "{} bytes on stdout",
        out.stdout.len()
    );
    String::from_utf8(out.stderr).unwrap()
}

/// The NEFF `bytes` with its payload replaced by `payload`, header size and hash made right.
fn with_payload(bytes: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut header = Header::decode(bytes[..HEADER_SIZE].try_into().unwrap());
    header.data_size = payload.len() as u64;
    header.hash = hash::compute(header.pkg_version, payload);
    [&header.encode()[..], payload].concat()
}

#[test]
fn a_corrupt_stored_payload_prints_no_text() {
    let dir = temp_dir();
    let mut bytes = std::fs::read(two_thread_neff(&dir)).unwrap();
    let mid = HEADER_SIZE + (bytes.len() - HEADER_SIZE) / 2;
    bytes[mid] ^= 0x55;
    let bad = temp_file(&dir, "bad.neff", &bytes);
    let bad = bad.to_str().unwrap();
    for cmd in ["disasm", "validate"] {
        let err = fails_silently(&[cmd, bad]);
        assert!(err.contains("hash mismatch"), "{cmd}: {err}");
        // Without the hash check the damaged deflate data is still refused, text unprinted.
        // (The decoder fails on the damaged block, or the CRC-32 at the end catches it, or the
        // tar reader the garbage after it.)
        let err = fails_silently(&[cmd, "--no-verify", bad]);
        assert!(
            err.contains("bad.neff")
                && (err.contains("corrupt gzip payload") || err.contains("malformed tar")),
            "{cmd} --no-verify: {err}"
        );
    }
}

#[test]
fn a_truncated_deflate_stream_under_a_valid_hash_prints_no_text() {
    let dir = temp_dir();
    let bytes = std::fs::read(two_thread_neff(&dir)).unwrap();
    let payload = &bytes[HEADER_SIZE..];
    let cut = with_payload(&bytes, &payload[..payload.len() * 3 / 4]);
    let cut = temp_file(&dir, "cut.neff", cut);
    let err = fails_silently(&["disasm", cut.to_str().unwrap()]);
    assert!(err.contains("truncated payload"), "{err}");
    assert!(err.contains("cut.neff"), "{err}");
}

/// The text of every selected stream of `path` read by the buffered reader (the whole tar
/// inflated, `Neff::parse`), each member disassembled on its own as a `.bin`: the `# member`
/// heads, a blank line between streams.
fn buffered_text(dir: &tempfile::TempDir, path: &Path, selection: &[&str]) -> String {
    let bytes = std::fs::read(path).unwrap();
    let neff = Neff::parse(&bytes).unwrap();
    let pick = |flag: &str| {
        let at = selection.iter().position(|&a| a == flag)?;
        selection.get(at + 1).copied()
    };
    let engine = pick("--engine").map(|e| e.parse().unwrap());
    let streams =
        neff_kelf::select_streams(neff.members().map(|m| m.path), pick("--subgraph"), engine)
            .unwrap();
    let mut text = String::new();
    for (k, s) in streams.iter().enumerate() {
        if k > 0 {
            text.push('\n');
        }
        text += &format!("# {}\n", s.path);
        let bin = temp_file(dir, "member.bin", neff.member(s.path).unwrap());
        text += &stdout(["disasm", bin.to_str().unwrap()]);
    }
    text
}

fn assert_streamed_is_buffered(dir: &tempfile::TempDir, path: &Path, selection: &[&str]) {
    let streamed = stdout(
        ["disasm"]
            .iter()
            .chain(selection)
            .copied()
            .chain([path.to_str().unwrap()]),
    );
    let buffered = buffered_text(dir, path, selection);
    assert!(
        streamed == buffered,
        "{} {selection:?}: streamed and buffered text differ",
        path.display()
    );
}

#[test]
fn streamed_text_is_the_buffered_text_on_every_real_neff() {
    let dir = temp_dir();
    for f in REAL_ALL.into_iter().filter(|p| fixture_present(p)) {
        assert_streamed_is_buffered(&dir, Path::new(f), &[]);
    }
}

#[test]
fn streamed_text_is_the_buffered_text_on_two_threads_and_selections() {
    let dir = temp_dir();
    let path = two_thread_neff(&dir);
    for selection in [
        &[][..],
        &["--subgraph", "sg01"],
        &["--engine", "pool"],
        &["--subgraph", "sg00", "--engine", "act"],
    ] {
        assert_streamed_is_buffered(&dir, &path, selection);
    }
}
