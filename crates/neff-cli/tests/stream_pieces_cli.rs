//! `neff validate` / `neff disasm` read a `.bin` in pieces (2 MiB), and `neff disasm` formats the
//! pieces on every core and writes them in order (decision D392): slot indexes, byte offsets and
//! the trailing-bytes warning must come out as if the stream had been handled whole.

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

/// A 128-byte DIRECT2D record (decision D155; moe_v6b Pool slots 9-10: source marker 0x28, the
/// continuation's src_bound_size_bytes = 256 MiB).
fn dma_record() -> [[u8; 64]; 2] {
    let mut head = [0u8; 64];
    head[..2].copy_from_slice(&[0xd4, 0x10]);
    head[0x0d..0x0f].copy_from_slice(&[0x0c, 0x10]);
    head[0x10] = 0x1f;
    head[0x14] = 1;
    head[0x17] = 0x28;
    head[0x2f] = 0x10;
    let mut ext = [0u8; 64];
    ext[0] = 0xda;
    ext[0x0f] = 0x10;
    [head, ext]
}

/// Records whose two slots straddle the 32,768-slot piece boundary and the half-piece thread
/// split (16,384) are still judged and printed whole.
#[test]
fn records_across_piece_and_thread_boundaries_stay_whole() {
    let mut slots = vec![slot(); 40_000];
    for head in [16_383, 32_767] {
        let [h, e] = dma_record();
        slots[head] = h;
        slots[head + 1] = e;
    }
    let bytes: Vec<u8> = slots.concat();
    let dir = temp_dir();
    let bin = temp_file(&dir, "pairs.bin", &bytes);
    let text = stdout(["validate", bin.to_str().unwrap()]);
    assert!(text.ends_with(": ok (1 streams, 40000 slots)\n"), "{text}");
    let text = stdout(["disasm", bin.to_str().unwrap()]);
    assert_eq!(text.lines().count(), 39_998);
    for head in ["16383: ", "32767: "] {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(head))
            .unwrap();
        assert!(
            line.ends_with("| PSEUDO_EXTENSION src_bound_size_bytes=268435456"),
            "{line}"
        );
    }
    let txt = temp_file(&dir, "pairs.txt", &text);
    let back = dir.path().join("back.bin");
    neff()
        .args(["asm", txt.to_str().unwrap(), "-o", back.to_str().unwrap()])
        .assert()
        .success();
    assert_eq!(std::fs::read(&back).unwrap(), bytes);
}
