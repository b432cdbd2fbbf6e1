//! The spec 003 §7 lines, both directions, and typed-opcode text round trips.

use super::*;
use crate::slot::{Slot, SlotBuf};

fn line_of(b: &[u8; 64]) -> String {
    let mut s = String::new();
    print_slot(&Slot::new(b), Dialect::Semaphore8, &mut s);
    s
}

fn bytes_of(line: &str) -> [u8; 64] {
    match parse_line(line, Dialect::Semaphore8) {
        Ok(Line::Slot(SlotBuf(b))) => b,
        other => panic!("{line}: {other:?}"),
    }
}

/// spec 003 §7.1 pe.bin (64 B).
pub(crate) const PE_BIN: [u8; 64] = [
    0xc8, 0x10, 0, 0, 0x04, 0x0a, 0x13, 0x16, 0, 0, 0, 0, 0x04, 0x0a, 0, 0, //
    3, 0, 0, 0, 4, 0, 0, 0, 0x20, 0, 0, 0, 0, 0, 0, 0, //
    1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
];

/// spec 003 §7.2 pool.bin (192 B).
pub(crate) fn pool_bin() -> Vec<u8> {
    let mut b = vec![0u8; 192];
    b[..2].copy_from_slice(&[0xc1, 0x10]);
    b[0x0C..0x19].copy_from_slice(b"q_gradient_in");
    b[0x40..0x46].copy_from_slice(&[0xc1, 0x10, 0, 0, 0x04, 0x16]);
    b[0x4C..0x5A].copy_from_slice(b"q_gradient_out");
    b[0x80..0x86].copy_from_slice(&[0xa0, 0x10, 0, 0, 0x04, 0x0b]);
    b
}

const PE_LINE: &str = "PSEUDO_TRIGGER_COLLECTIVE $S[10]>0 $S[22]++@complete ctype=ALL_REDUCE input_tensor_id=3 output_tensor_id=4 num_elements=32 dtype=fp32 op=ADD group_id=0";
const POOL_LINES: [&str; 3] = [
    "PSEUDO_DMA_TRIGGER q_gradient_in block_id=0",
    "PSEUDO_DMA_TRIGGER $S[22]>0 q_gradient_out block_id=0",
    "EVENT_SEMAPHORE $S[11]>0",
];

#[test]
fn pe_slot0_prints_spec_003_7_1_line() {
    assert_eq!(line_of(&PE_BIN), PE_LINE);
}

#[test]
fn pe_line_assembles_to_spec_bytes() {
    assert_eq!(bytes_of(PE_LINE), PE_BIN);
    // The spec's pe.asm ends the line with `;` (spec 003 §7.1): accepted.
    assert_eq!(bytes_of(&format!("{PE_LINE};")), PE_BIN);
}

/// The spec's lines, plus the `setter=0` the profiler prints on every EVENT_SEMAPHORE (decision
/// D137); the spec's own text still assembles to the same bytes (next test).
#[test]
fn pool_slots_print_spec_003_7_2_lines() {
    let mut out = String::new();
    disassemble(&pool_bin(), DisasmOptions::default(), &mut out);
    let mut expect = POOL_LINES.map(str::to_owned);
    expect[2].push_str(" setter=0");
    assert_eq!(out.lines().collect::<Vec<_>>(), expect);
}

#[test]
fn pool_lines_assemble_to_spec_bytes() {
    let text = POOL_LINES.join("\n");
    assert_eq!(assemble(&text, Dialect::Semaphore8), Ok(pool_bin()));
}

#[test]
fn index_prefixes_comments_and_remainder_round_trip() {
    let mut bytes = pool_bin();
    bytes.extend_from_slice(&[1, 2, 3]);
    let mut out = String::new();
    disassemble(
        &bytes,
        DisasmOptions {
            index_prefix: true,
            ..Default::default()
        },
        &mut out,
    );
    assert!(
        out.starts_with("   0: PSEUDO_DMA_TRIGGER q_gradient_in block_id=0\n"),
        "{out}"
    );
    assert!(out.ends_with(".bytes 010203\n"));
    let commented = format!("# pool.bin\n{out}// end\n\n");
    assert_eq!(assemble(&commented, Dialect::Semaphore8), Ok(bytes));
}

#[test]
fn unknown_opcode_prints_raw_slot() {
    let mut b = [0u8; 64];
    b[0] = 0x50;
    b[1] = 0x10;
    b[63] = 0xff;
    let line = line_of(&b);
    assert!(line.starts_with(".slot 5010"), "{line}");
    assert_eq!(bytes_of(&line), b);
}

#[test]
fn reserved_bytes_print_as_overlays() {
    let mut b = pool_bin()[..64].try_into().expect("64");
    let b: &mut [u8; 64] = &mut b;
    b[0x3F] = 0xAB;
    b[0x2C] = 1;
    let line = line_of(b);
    assert_eq!(
        line,
        "PSEUDO_DMA_TRIGGER q_gradient_in use_raw_count=1 block_id=0 @0x3f=ab"
    );
    assert_eq!(bytes_of(&line), *b);
}

#[test]
fn odd_names_are_quoted_losslessly() {
    let mut b = [0u8; 64];
    b[..2].copy_from_slice(&[0xd3, 0x10]);
    b[0x0C..0x12].copy_from_slice(b"a b\"c\\");
    b[0x20] = 0x7f;
    let line = line_of(&b);
    assert_eq!(
        line,
        r#"PSEUDO_FUNCTION_CALL "a b\x22c\x5c\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x7f""#
    );
    assert_eq!(bytes_of(&line), b);
}

#[test]
fn non_canonical_events_print_as_keys() {
    let mut b = [0u8; 64];
    b[..12].copy_from_slice(&[0xa4, 0x10, 0, 0, 0x33, 1, 0, 2, 9, 0, 0, 0]);
    let line = line_of(&b);
    assert_eq!(
        line,
        "NOP wait_mode=0x33 wait_idx=1 update_idx=2 sem_value=9 cycle=0"
    );
    assert_eq!(bytes_of(&line), b);
}

#[test]
fn real_trn1_dve_add_prints_typed() {
    let b = crate::payload::tests_support::DVE_SLOT1;
    let line = line_of(&b);
    assert_eq!(
        line,
        "TENSOR_TENSOR_ARITH_OP $S[9]>=16 $S[6]++@complete op=ADD src0=fp32@0x2c180[1,1,1][1000,1,1] src1=fp32@0x2e0c0[1,1,1][1000,1,1] dst=fp32@0x4000[1,1,1][1000,1,1] channels=128"
    );
    assert_eq!(bytes_of(&line), b);
}

#[test]
fn real_trn2_direct2d_prints_typed() {
    let b = crate::payload::tests_support::POOL_DIRECT2D;
    let line = line_of(&b);
    assert_eq!(
        line,
        "PSEUDO_DMA_DIRECT2D dge_op=DIRECT2D semaphore=24 sem_increment=16 src_elem_size=512 dst_elem_size=512 src_pattern=[512,1][128,1] dst_pattern=[262144,1][128,1] src_table_offset_imm=0 src_table_index=0 src_shape_reg=0 dst_var_id=0 dst_var_offset=228352 dst_shape_reg=0 src_dtype=fp16 dst_dtype=fp16"
    );
    assert_eq!(bytes_of(&line), b);
}

#[test]
fn legacy_dialect_reads_name_at_8() {
    let mut b = [0u8; 64];
    b[..8].copy_from_slice(&[0xc1, 0x10, 0, 0, 1, 2, 0, 0]);
    b[0x08..0x0B].copy_from_slice(b"q_a");
    b[0x2C] = 5;
    let mut s = String::new();
    print_slot(&Slot::new(&b), Dialect::Legacy4, &mut s);
    assert_eq!(
        s,
        "PSEUDO_DMA_TRIGGER wait_event_mode=1 wait_event_idx=2 q_a block_id=5"
    );
    assert_eq!(parse_line(&s, Dialect::Legacy4), Ok(Line::Slot(SlotBuf(b))));
}

#[test]
fn parse_errors_name_line_and_token() {
    let e = assemble("NOP\nFROB x=1\n", Dialect::Semaphore8).unwrap_err();
    assert_eq!((e.line, e.token.as_str()), (2, "FROB"));
    let e = assemble("PSEUDO_DMA_TRIGGER block_id=x", Dialect::Semaphore8).unwrap_err();
    assert_eq!(e.token, "block_id=x");
    let e = assemble("NOP $S[1]>3 $S[2]+=4", Dialect::Semaphore8).unwrap_err();
    assert_eq!(e.token, "$S[2]+=4");
}

/// D155: moe_v6b Pool slots 9-10, a 0xD4 with an offset-register source and its 0xDA
/// continuation, print as one line and assemble back to the same 128 bytes.
#[test]
fn dma_record_with_continuation_is_one_line() {
    use crate::continuation::tests::{MOE_POOL_SLOT9, MOE_POOL_SLOT10};
    let mut bytes = MOE_POOL_SLOT9.to_vec();
    bytes.extend_from_slice(&MOE_POOL_SLOT10);
    bytes.extend_from_slice(&pool_bin()[0x80..0xC0]);
    let opts = DisasmOptions {
        index_prefix: true,
        ..Default::default()
    };
    let mut text = String::new();
    disassemble_at(&bytes, 9, opts, &mut text);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    assert!(lines[0].starts_with("   9: PSEUDO_DMA_DIRECT2D "), "{text}");
    assert!(
        lines[0].ends_with(" | PSEUDO_EXTENSION src_bound_size_bytes=268435456"),
        "{text}"
    );
    assert_eq!(lines[1], "  11: EVENT_SEMAPHORE $S[11]>0 setter=0");
    assert_eq!(assemble(&text, Dialect::Semaphore8), Ok(bytes));
}

#[test]
fn continuation_text_keeps_unnamed_bytes_and_rejects_other_heads() {
    use crate::continuation::tests::MOE_POOL_SLOT9;
    let mut ext = [0u8; 64];
    ext[0] = 0xda;
    ext[1] = 0x05; // flags
    ext[30] = 0x77; // reserved1
    let mut bytes = MOE_POOL_SLOT9.to_vec();
    bytes.extend_from_slice(&ext);
    let mut text = String::new();
    disassemble(&bytes, DisasmOptions::default(), &mut text);
    assert!(
        text.trim_end()
            .ends_with("| PSEUDO_EXTENSION flags=5 @0x1e=77"),
        "{text}"
    );
    assert_eq!(assemble(&text, Dialect::Semaphore8), Ok(bytes));
    let e = parse_line("NOP | PSEUDO_EXTENSION", Dialect::Semaphore8).unwrap_err();
    assert!(e.message.contains("PSEUDO_DMA_DIRECT2D"), "{e}");
    let d4 = {
        let mut s = String::new();
        print_slot(&Slot::new(&MOE_POOL_SLOT9), Dialect::Semaphore8, &mut s);
        s
    };
    for bad in [
        format!("{d4} |"),
        format!("{d4} | NOP"),
        format!("{d4} | PSEUDO_EXTENSION len=3"),
    ] {
        assert!(parse_line(&bad, Dialect::Semaphore8).is_err(), "{bad}");
    }
}
