//! `neff disasm / asm / dump / validate` on the spec sample, the real trn2 fixture and bad input.

mod common;

use common::{SAMPLE, Value, neff, real_fixture, stdout, stdout_with_code, temp_dir, temp_file};

/// spec 003 §7 pool.bin (192 B).
fn pool_bin() -> Vec<u8> {
    let mut b = vec![0u8; 192];
    b[..2].copy_from_slice(&[0xc1, 0x10]);
    b[0x0C..0x19].copy_from_slice(b"q_gradient_in");
    b[0x40..0x46].copy_from_slice(&[0xc1, 0x10, 0, 0, 0x04, 0x16]);
    b[0x4C..0x5A].copy_from_slice(b"q_gradient_out");
    b[0x80..0x86].copy_from_slice(&[0xa0, 0x10, 0, 0, 0x04, 0x0b]);
    b
}

#[test]
fn disasm_sample_neff_prints_spec_003_7_lines() {
    let text = stdout(["disasm", SAMPLE]);
    assert!(text.contains("   0: PSEUDO_TRIGGER_COLLECTIVE $S[10]>0 $S[22]++@complete ctype=ALL_REDUCE input_tensor_id=3 output_tensor_id=4 num_elements=32 dtype=fp32 op=ADD group_id=0\n"));
    assert!(text.contains("   1: PSEUDO_DMA_TRIGGER $S[22]>0 q_gradient_out block_id=0\n"));
    insta::assert_snapshot!("disasm_sample", text);
}

#[test]
fn disasm_real_fixture_names_every_opcode() {
    let Some(real) = real_fixture() else { return };
    let text = stdout(["disasm", real]);
    assert!(!text.contains(".slot"), "{text}");
    for m in [
        "LDWEIGHTS",
        "MATMUL",
        "EVENT_SEMAPHORE",
        "SET_ORDERING_MODE",
        "PSEUDO_BRANCH_LABEL",
        "ACTIVATION_TABLE_LOAD",
        "COPY",
        "NOP",
        "PSEUDO_DMA_DIRECT2D",
    ] {
        assert!(text.contains(m), "{m} missing");
    }
    insta::assert_snapshot!("disasm_matmul_small", text);
}

#[test]
fn disasm_then_asm_gives_identical_bytes() {
    let dir = temp_dir();
    let mut bytes = pool_bin();
    bytes[0x3F] = 0x5A; // a reserved byte must survive too
    let bin = temp_file(&dir, "pool.bin", &bytes);
    let text = stdout(["disasm", bin.to_str().unwrap()]);
    let asm = temp_file(&dir, "pool.asm", &text);
    let out = dir.path().join("out.bin");
    neff()
        .args(["asm", asm.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .assert()
        .success();
    assert_eq!(std::fs::read(&out).unwrap(), bytes);
}

#[test]
fn disasm_json_and_filters() {
    let text = stdout([
        "disasm",
        SAMPLE,
        "--engine",
        "POOL",
        "--subgraph",
        "sg00",
        "--json",
    ]);
    let v: Value = serde_json::from_str(&text).unwrap();
    let s = &v["streams"][0];
    assert_eq!(s["member"], "sg00/pool.bin");
    assert_eq!(s["engine"], "pool");
    assert_eq!(s["slots"][2]["mnemonic"], "EVENT_SEMAPHORE");
    assert_eq!(s["slots"][2]["offset"], 128);
    assert_eq!(s["slots"][0]["pseudo"], true);
    assert_eq!(v["streams"].as_array().unwrap().len(), 1);
}

#[test]
fn dump_explains_every_byte() {
    let dir = temp_dir();
    let bin = temp_file(&dir, "pool.bin", pool_bin());
    let text = stdout(["dump", bin.to_str().unwrap(), "--slot", "1"]);
    assert!(text.contains("+0x00 | c1 "), "{text}");
    assert!(
        text.contains("| queue_name (positional) = q_gradient_out"),
        "{text}"
    );
    assert!(text.contains("events.wait_idx = 22"), "{text}");
    neff()
        .args(["dump", bin.to_str().unwrap(), "--slot", "3"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("slot 3 is out of range"));
}

#[test]
fn validate_reports_slot_and_offset() {
    let dir = temp_dir();
    let mut b = pool_bin();
    b[0x0C] = 0; // empty queue name on slot 0
    b[0x41] = 0x20; // slot 1 inst_word_len
    let bin = temp_file(&dir, "bad.bin", &b);
    let text = stdout_with_code(1, ["validate", bin.to_str().unwrap()]);
    assert!(
        text.contains("slot 0 (byte 0xc): PSEUDO_DMA_TRIGGER queue name is empty"),
        "{text}"
    );
    assert!(
        text.contains("slot 1 (byte 0x41): inst_word_len is 32, expected 16"),
        "{text}"
    );
    neff().args(["validate", SAMPLE]).assert().success();
    neff()
        .args(["validate", SAMPLE, "--lowered"])
        .assert()
        .code(1);
}

#[test]
fn asm_errors_name_file_and_line() {
    let dir = temp_dir();
    let asm = temp_file(&dir, "x.asm", "NOP\nNOP block_id=3\n");
    let out = dir.path().join("x.bin");
    neff()
        .args(["asm", asm.to_str().unwrap(), "-o", out.to_str().unwrap()])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("line 2: `block_id=3`"));
    assert!(!out.exists(), "no half-written output");
    neff().args(["disasm"]).assert().code(2);
}

#[test]
fn real_fixture_round_trips_and_validates() {
    let Some(real) = real_fixture() else { return };
    neff()
        .args(["validate", real, "--generation", "cayman"])
        .assert()
        .success();
    let v: Value = serde_json::from_str(&stdout(["disasm", real, "--json"])).unwrap();
    let (mut text, mut hex) = (String::new(), String::new());
    for s in v["streams"].as_array().unwrap() {
        for slot in s["slots"].as_array().unwrap() {
            text.push_str(slot["text"].as_str().unwrap());
            text.push('\n');
            hex.push_str(slot["hex"].as_str().unwrap());
        }
    }
    let dir = temp_dir();
    let (asm, bin) = (temp_file(&dir, "all.asm", text), dir.path().join("all.bin"));
    neff()
        .args(["asm", asm.to_str().unwrap(), "-o", bin.to_str().unwrap()])
        .assert()
        .success();
    let back: String = std::fs::read(&bin)
        .unwrap()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(back, hex);
    assert_eq!(hex.len(), 2 * 64 * 58, "29 slots in each of sg00 and sg01");
}

/// `disasm --json` carries each slot's typed fields from neff-isa's layout table (decision D130):
/// matmul_small sg00 PE slot 4, the MATMUL of reference §4.5.
#[test]
fn disasm_json_gives_typed_fields_of_a_real_matmul() {
    let Some(real) = real_fixture() else { return };
    let v: Value = serde_json::from_str(&stdout([
        "disasm",
        real,
        "--subgraph",
        "sg00",
        "--engine",
        "pe",
        "--json",
    ]))
    .unwrap();
    let slot = &v["streams"][0]["slots"][4];
    assert_eq!(slot["mnemonic"], "MATMUL");
    let f = &slot["fields"];
    assert_eq!(f["acc_flags"], 3);
    assert_eq!(f["transpose_mode"], "ENABLED");
    assert_eq!(f["pe_shape"], serde_json::json!([128, 128]));
    assert_eq!(f["src"]["dtype"], "fp16");
    assert_eq!(f["src"]["start_addr"], 0x37b00);
    assert_eq!(f["src"]["num"], serde_json::json!([128, 1, 1]));
    assert_eq!(f["dst"]["psum"], true);
    assert_eq!(f["dst"]["dtype"], Value::Null);
}

/// `neff dump` explains every byte of a MATMUL: the src tensor, its dtype byte shown in it, the
/// PE shape, the tile masks (decision D131).
#[test]
fn dump_explains_a_real_matmul() {
    let Some(real) = real_fixture() else { return };
    let text = stdout([
        "dump",
        real,
        "--subgraph",
        "sg00",
        "--engine",
        "pe",
        "--slot",
        "4",
    ]);
    for row in [
        "| src = fp16@0x37b00[1,0,0][128,1,1]",
        "| in_dtype (shown in its operand) = fp16",
        "| pe_shape (positional) = 128*128",
        "| acc_flags = 3",
        "| row_tiles = 15",
        "| dst = 0x2000800[1,0,0][128,1,1]",
    ] {
        assert!(text.contains(row), "{row}\n{text}");
    }
    assert!(!text.contains("NON-ZERO"), "{text}");
}
