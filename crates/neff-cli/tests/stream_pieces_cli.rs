//! `neff validate` / `neff disasm` read a `.bin` in pieces (2 MiB) and print each piece's halves
//! on two threads: slot indexes, byte offsets and the trailing-bytes warning must come out as
//! if the stream had been handled whole.

mod common;

use common::{neff, stdout, stdout_with_code, temp_dir, temp_file};

/// spec 003 §7 pool.bin slot 2 (`a0 10 .. 04 0b`), a valid slot.
fn slot() -> [u8; 64] {
    let mut s = [0u8; 64];
    s[..6].copy_from_slice(&[0xa0, 0x10, 0, 0, 0x04, 0x0b]);
    s
}

/// 40,000 slots (past the first 32,768-slot piece), slot 35,000 with inst_word_len 32, then
/// 5 trailing bytes.
fn stream() -> Vec<u8> {
    let mut b: Vec<u8> = std::iter::repeat_n(slot(), 40_000).flatten().collect();
    b[35_000 * 64 + 1] = 0x20;
    b.extend_from_slice(&[1, 2, 3, 4, 5]);
    b
}

#[test]
fn validate_reports_absolute_positions_across_pieces() {
    let dir = temp_dir();
    let bin = temp_file(&dir, "long.bin", stream());
    let text = stdout_with_code(1, ["validate", bin.to_str().unwrap()]);
    // 35,000 * 64 + 1 = 0x222e01; 40,000 * 64 = 0x271000.
    assert!(
        text.contains("slot 35000 (byte 0x222e01): inst_word_len is 32, expected 16"),
        "{text}"
    );
    assert!(
        text.contains("slot 40000 (byte 0x271000): 5 trailing bytes"),
        "{text}"
    );
    assert_eq!(text.lines().count(), 2, "{text}");
}

#[test]
fn disasm_numbers_every_line_across_pieces_and_round_trips() {
    let dir = temp_dir();
    let bytes = stream();
    let bin = temp_file(&dir, "long.bin", &bytes);
    let text = stdout(["disasm", bin.to_str().unwrap()]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 40_001);
    for (k, line) in lines[..40_000].iter().enumerate() {
        assert!(line.trim_start().starts_with(&format!("{k}: ")), "{line}");
    }
    assert_eq!(lines[40_000], ".bytes 0102030405");
    let txt = temp_file(&dir, "long.txt", &text);
    let back = dir.path().join("back.bin");
    neff()
        .args(["asm", txt.to_str().unwrap(), "-o", back.to_str().unwrap()])
        .assert()
        .success();
    assert_eq!(std::fs::read(&back).unwrap(), bytes);
}
