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

/// A slot from 128 hex digits (real bytes copied from the fixtures).
fn hex_slot(hex: &str) -> [u8; 64] {
    let v: Vec<u8> = (0..64)
        .map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).expect("hex"))
        .collect();
    v.try_into().expect("64 bytes")
}

/// Issue 12, decision D131: fused_attention sg00 PE.bin slot 3; the profiler printed
/// `fp32_mode=LOW transpose_mode=ENABLED src=fp32@0x369f4[-1,0,0][128,1,1] 128*128`.
#[test]
fn ldweights_0x01_real_profiled_slot() {
    check(
        hex_slot(
            "01100000050800001000000000000000f4690300ffff000000008000010001000a01010000008080000000000f0f000000000000000000000000000000000000",
        ),
        "LDWEIGHTS $S[8]>=16 fp32_mode=LOW transpose_mode=ENABLED src=fp32@0x369f4[-1,0,0][128,1,1] 128*128",
    );
}

/// D131: baseline_attention sg00 PE.bin slot 4; profiler `acc_flags=1 fp32_mode=LOW_HIGH
/// src=fp32@0x36ff8[1,0,0][512,1,1] dst=0x2000800[1,0,0][512,1,1] 128*128`.
#[test]
fn matmul_0x02_real_profiled_slot() {
    check(
        hex_slot(
            "02100000000000000000000000000000f86f03000100000000000002010001000a03000000008080000000010f0f000000080002010000000000000201000100",
        ),
        "MATMUL acc_flags=1 fp32_mode=LOW_HIGH src=fp32@0x36ff8[1,0,0][512,1,1] dst=0x2000800[1,0,0][512,1,1] 128*128",
    );
}

/// D133: fused_attention sg00 Activation.bin slot 4 (profiled `EXP bias_ptr=fp32@0x4810 ...
/// scale=1.000000 imm=0.000000 accumulator_cmd=IDLE`), and the two corpus modes: attn_v6 slot 4
/// (an fp32 bias immediate 1e-6), moe_v6b slot 44 (the scale from an SBUF pointer in partition 32).
#[test]
fn activate_0x21_real_slots_in_three_modes() {
    check(
        hex_slot(
            "2110000005061304050000000000000000200002010001000100000201000100aa0a80070000803f104800000000000020480000010001000100000201000100",
        ),
        "ACTIVATE $S[6]>=5 $S[4]++@complete EXP bias_ptr=fp32@0x4810 src=fp32@0x2002000[1,1,1][512,1,1] dst=fp32@0x4820[1,1,1][512,1,1] channels=128 scale=1.000000 imm=0.000000 accumulator_cmd=IDLE",
    );
    check(
        hex_slot(
            "2110000005041304010000000100000140410000010001000100010001000100aa0a80800000803fbd3786350000000048410000010001000100010001000100",
        ),
        "ACTIVATE $S[4]>=1 $S[4]++@complete COPY bias=fp32@0.000001 src=fp32@0x4140[1,1,1][1,1,1] dst=fp32@0x4148[1,1,1][1,1,1] channels=128 scale=1.000000 imm=0.000000 accumulator_cmd=IDLE bias_src=IMM",
    );
    check(
        hex_slot(
            "2110000005191304100000000101000170800000010001000100800001000100aa0a018000728100000000000000000070880000010001000100800001000100",
        ),
        "ACTIVATE $S[25]>=16 $S[4]++@complete COPY bias=fp32@0.000000 src=fp32@0x8070[1,1,1][128,1,1] dst=fp32@0x8870[1,1,1][128,1,1] channels=1 scale_ptr=0x817200 imm=0.000000 accumulator_cmd=IDLE bias_src=IMM scale_src=PTR",
    );
}

/// D133: attn_v6 sg00 Activation.bin slot 16 selects the second function set.
#[test]
fn activation_table_load_0x23_real_slot() {
    check(
        hex_slot(
            "23100000000000000000000000000000000000000000000000000000000000000000000100000000000000000000000000000000000000000000000000000000",
        ),
        "ACTIVATION_TABLE_LOAD table_sel=1",
    );
}

/// D134: fused_attention sg00 DVE.bin slots 6 (profiled `op=MAX dim=X negated=1 ...`) and 13
/// (RECIPROCAL, the COPY layout).
#[test]
fn tensor_reduce_0x42_and_reciprocal_0x48_real_profiled_slots() {
    check(
        hex_slot(
            "42100000050613060400000000480000010001000100010001000400010001000a0a800108020000000000001048000001000100010001000400010001000100",
        ),
        "TENSOR_REDUCE_ARITH_OP $S[6]>=4 $S[6]++@complete op=MAX dim=X negated=1 src=fp32@0x4800[1,1,1,1][1,4,1,1] dst=fp32@0x4810[1,1,1,1][4,1,1,1] channels=128",
    );
    check(
        hex_slot(
            "48100000050613060b00000030680000010001000100010004000100010001000a0a800000000000000000004068000001000100010001000400010001000100",
        ),
        "RECIPROCAL $S[6]>=11 $S[6]++@complete src=fp32@0x6830[1,1,1,1][4,1,1,1] dst=fp32@0x6840[1,1,1,1][4,1,1,1] channels=128",
    );
}

/// D135: fused_attention sg00 DVE.bin slot 15; profiler `ops=MULTIPLY,BYPASS imm=0x6840,0
/// imm_src=PTR,INSTRUCTION src=... dst=... channels=128`.
#[test]
fn tensor_scalar_0x43_real_profiled_slot() {
    check(
        hex_slot(
            "43100000050513061c00000000000000002000020100010001008000010001000a0a800106000000406800000000000050880000010001000100800001000100",
        ),
        "TENSOR_SCALAR_ARITH_OP $S[5]>=28 $S[6]++@complete ops=MULTIPLY,BYPASS imm=0x6840,0 imm_src=PTR,INSTRUCTION src=fp32@0x2002000[1,1,1][128,1,1] dst=fp32@0x8850[1,1,1][128,1,1] channels=128",
    );
}

/// D136: attn_v6 sg00 DVE.bin slot 10 (MEMSET of -1e9), Pool.bin slots 4 (MOVE) and 5
/// (TENSOR_SCALAR_AFFINE_SELECT, its predicate decoded by D600).
#[test]
fn memset_move_affine_select_real_slots() {
    check(
        hex_slot(
            "49100000000013060000000000000000000000000000000000000000020000000a00800000000000286b6eceb841000001000100010001000200010001000100",
        ),
        "MEMSET $S[6]++@complete value=0xce6e6b28 dst=fp32@0x41b8[1,1,1,1][2,1,1,1] channels=128 num_elem=2",
    );
    check(
        hex_slot(
            "a710000000000000000000000109010000000000000000003d000000000000000000803f00000000000000000000000000000000000000000000000000000000",
        ),
        "MOVE dtype=u32 src=IMM reg=61 imm=0x3f800000 @0xc=01",
    );
    check(
        hex_slot(
            "92100000050613030800000080aa033d0000000001000100010001008000010001000100a85800000100010080000100a85800000100010080000100ffffffff",
        ),
        "TENSOR_SCALAR_AFFINE_SELECT $S[6]>=8 $S[3]++@complete src=fp32@0x58a8[1,1][128,1] dst=fp32@0x58a8[1,1][128,1] channels=128 cmp_op=3 fill_reg=61 offset=0x0 step=1,1,1,1 num=128,1,1,1 channel_multiplier=0xffffffff",
    );
}
