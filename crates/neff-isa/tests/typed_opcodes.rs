//! One test per opcode family the issue names: bytes from the spec / reference (or the spec's
//! builder recipes) -> the exact text line -> the same bytes.

use neff_isa::text::{Line, parse_line, print_slot};
use neff_isa::{Dialect, Slot, SlotBuf};

/// A slot from its leading bytes (the rest zero).
fn slot(lead: &[u8], at: &[(usize, &[u8])]) -> [u8; 64] {
    let mut b = [0u8; 64];
    b[..lead.len()].copy_from_slice(lead);
    for (o, bytes) in at {
        b[*o..*o + bytes.len()].copy_from_slice(bytes);
    }
    b
}

fn check(b: [u8; 64], line: &str) {
    let mut s = String::new();
    print_slot(&Slot::new(&b), Dialect::Semaphore8, &mut s);
    assert_eq!(s, line);
    assert_eq!(
        parse_line(line, Dialect::Semaphore8),
        Ok(Line::Slot(SlotBuf(b)))
    );
}

/// reference §4.4 trn1 Pool.bin slot 3: NOP waiting sem 24 >= 16.
#[test]
fn nop_0xa4_real_trn1_slot() {
    check(
        slot(&[0xa4, 0x10, 0, 0, 0x05, 0x18, 0, 0, 0x10], &[]),
        "NOP $S[24]>=16 cycle=0",
    );
}

/// reference §4.1: the first slot of every real stream is SET_ORDERING_MODE, otherwise zero.
#[test]
fn set_ordering_mode_0xb1_real_first_slot() {
    check(
        slot(&[0xb1, 0x10], &[]),
        "SET_ORDERING_MODE ordering_mode=relaxed",
    );
}

/// reference §4.5 trn2 streams: PSEUDO_BRANCH_LABEL, otherwise zero.
#[test]
fn pseudo_branch_label_0xcc_real_slot() {
    check(slot(&[0xcc, 0x10], &[]), "PSEUDO_BRANCH_LABEL label=0");
    // decision D53: the label id at +0x0C.
    check(
        slot(&[0xcc, 0x10], &[(0x0C, &[7])]),
        "PSEUDO_BRANCH_LABEL label=7",
    );
}

/// reference §4.4 trn1 SP.bin slot 3: DMA trigger "qSPIO0" block 2.
#[test]
fn pseudo_dma_trigger_0xc1_real_trn1_slot() {
    check(
        slot(&[0xc1, 0x10], &[(0x0C, b"qSPIO0"), (0x30, &[2])]),
        "PSEUDO_DMA_TRIGGER qSPIO0 block_id=2",
    );
}

/// reference §4.4 trn1 Pool.bin slot 1: gated trigger, wait sem 6 >= 1.
#[test]
fn pseudo_dma_trigger_gated_real_trn1_slot() {
    check(
        slot(
            &[0xc1, 0x10, 0, 0, 0x05, 0x06, 0, 0, 0x01],
            &[(0x0C, b"qPoolIO0")],
        ),
        "PSEUDO_DMA_TRIGGER $S[6]>=1 qPoolIO0 block_id=0",
    );
}

/// spec 001 §4 add_semaphore_inc(7): CTRL_ES with events_extended update 0x15 on sem 7, value 1.
#[test]
fn event_semaphore_0xa0_add_semaphore_inc() {
    check(
        slot(&[0xa0, 0x10], &[(0x22, &[0x15, 7]), (0x28, &[1])]),
        "EVENT_SEMAPHORE setter=0 es=$S[7]+=1@complete",
    );
}

/// spec 001 §2 add_cmpgt_imm_br_rel: {GTIMM, INT32, REL_IMM}, debug_hint 2.
#[test]
fn compare_branch_0xa9_cmpgt_recipe() {
    check(
        slot(
            &[0xa9, 0x10, 0, 2],
            &[
                (0x0C, &[6, 8, 3]),
                (0x10, &[100]),
                (0x20, &[5]),
                (0x30, &[0x40]),
            ],
        ),
        "COMPARE_BRANCH cmp_op=GT_IMM dtype=i32 target_mode=REL_IMM cmp_reg=5 cmp_imm=100 br_imm=64 debug_hint=2",
    );
}

/// spec 001 §2 add_add32_imm: {ADD, INT32, IMM}.
#[test]
fn alu_op_0xa8_add32_imm_recipe() {
    check(
        slot(
            &[0xa8, 0x10],
            &[
                (0x0C, &[4, 8, 1]),
                (0x10, &[2]),
                (0x14, &[3]),
                (0x18, &[40]),
            ],
        ),
        "ALU_OP op=ADD dtype=i32 src1=IMM dst=3 src0=2 imm=40",
    );
}

/// spec 001 §2 add_br_hint_rel_imm (the 0x10b5 outlier): relative offset at +0x30.
#[test]
fn branch_prefetch_hint_0xb5() {
    check(
        slot(&[0xb5, 0x10], &[(0x0E, &[3]), (0x30, &[0x80, 1])]),
        "BRANCH_PREFETCH_HINT target_mode=REL_IMM br_imm=384",
    );
}

/// PSEUDO_FUNCTION_CALL with its 32-byte name at +12 (decision D10).
#[test]
fn pseudo_function_begin_return_call_0xd1_d3() {
    check(
        slot(&[0xd1, 0x10], &[(0x0C, b"fn_body")]),
        "PSEUDO_FUNCTION_BEGIN fn_body",
    );
    check(
        slot(&[0xd2, 0x10], &[(0x0C, b"fn_body")]),
        "PSEUDO_FUNCTION_RETURN fn_body",
    );
    check(
        slot(&[0xd3, 0x10], &[(0x0C, b"fn_body")]),
        "PSEUDO_FUNCTION_CALL fn_body",
    );
}

/// spec 000 §6.3: PSEUDO_INST with buf[O+12] == 1 is the exit.
#[test]
fn pseudo_inst_0xdf_exit_and_reload() {
    check(
        slot(&[0xdf, 0x10], &[(0x0C, &[1])]),
        "PSEUDO_INST sub_op=EXIT_EXECUTION",
    );
    check(
        slot(&[0xdf, 0x10], &[(0x0C, &[2])]),
        "PSEUDO_INST sub_op=LIBRARY_RELOAD_INDEX",
    );
    check(
        slot(&[0xdf, 0x10], &[(0x0C, &[9])]),
        "PSEUDO_INST sub_op=0x9",
    );
}

/// spec 001 §3: 0xD9 is followed by 0xDA whose byte 41 holds the DMA priority class.
#[test]
fn pseudo_trigger_collective2_0xd9_and_extension_0xda() {
    check(
        slot(&[0xd9, 0x10], &[(0x10, &[1, 2])]),
        "PSEUDO_TRIGGER_COLLECTIVE2 @0x10=0102",
    );
    check(
        slot(&[0xda, 0x10], &[(41, &[5])]),
        "PSEUDO_EXTENSION priority=5",
    );
}

/// Decisions D10/D52: zero payloads of the builder-family views print their fields; a byte no
/// field covers still survives as an overlay.
#[test]
fn range_clear_poll_sem_write_notify_zero_payloads_and_overlays() {
    check(
        slot(&[0xb0, 0x10], &[(0x0C, &[3, 0, 0, 0, 9])]),
        "EVENT_SEMAPHORE_RANGE_CLEAR first=9 last=0 @0xc=03",
    );
    check(
        slot(&[0xb3, 0x10, 0, 0, 0x05, 0x02, 0, 0, 0x01], &[]),
        "POLL_SEM $S[2]>=1 op=BYPASS addr=0x0 wb_addr=0x0 n_read=0 reg=0",
    );
    check(
        slot(&[0xa5, 0x10], &[(0x10, &[0xef, 0xbe])]),
        "WRITE dtype=invalid src=REG addr=0xbeef value=0",
    );
    check(
        slot(&[0xa6, 0x10, 0, 0, 0, 0, 0x11, 3], &[]),
        "NOTIFY $E[3]=1@complete queue=0 value=0",
    );
}

/// reference §4.5 trn2 Activation.bin slot 4: CAST-family S4D4 layout with fp32.
#[test]
fn copy_0x46_and_cast_0x47() {
    let mut b = slot(&[0x47, 0x10, 0, 0, 0x05, 0x05, 0x13, 0x04, 0x04], &[]);
    b[0x0C..0x20].copy_from_slice(&[
        0, 0, 0, 2, 1, 0, 1, 0, 1, 0, 1, 0, 0x40, 0, 1, 0, 1, 0, 1, 0,
    ]);
    b[0x20..0x23].copy_from_slice(&[0x0a, 0x07, 0x80]);
    b[0x2C..0x40].copy_from_slice(&[
        0, 0x42, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0x40, 0, 1, 0, 1, 0, 1, 0,
    ]);
    check(
        b,
        "CAST $S[5]>=4 $S[4]++@complete src=fp32@0x2000000[1,1,1,1][64,1,1,1] dst=fp16@0x4200[1,1,1,1][64,1,1,1] channels=128",
    );
}
