//! The builders' records (spec 001 §2-§4; layouts of decision D52) read through the payload views
//! that share their offsets: one test per view with builder-made bytes -> typed getters -> the
//! exact text line -> the same bytes, and a property that no builder record prints an `@0x..=`
//! overlay (every byte a builder writes is a named field).

use neff_isa::builder::{
    self, AluSrc1, add_add32_reg, add_br_hint_rel_imm, add_br_rel, add_cmpne_imm_br_rel,
    add_ldr32_addr, add_nop, add_notify, add_poll_sem, add_sema_clear, add_semaphore_inc_val,
    add_semaphore_wait_eq_and_clear, add_str32_addr, add_str32_imm_addr, add_str32_imm_reg,
    add_wr32, get_event_semaphore_wait_update,
};
use neff_isa::payload::{
    AluOpInst, BranchHint, CompareBranch, EventSemaphore, Mem2d, Nop, Notify, PollSem, RangeClear,
    RegWrite,
};
use neff_isa::text::{Line, parse_line, print_slot};
use neff_isa::{AluOp, BrCmpOp, BrTargetMode, DataSrc, Dialect, Dtype, Slot, SlotBuf};
use proptest::prelude::*;

/// The one record a builder call appended.
fn record(build: impl FnOnce(&mut Vec<u8>) -> usize) -> [u8; 64] {
    let mut chunk = Vec::new();
    assert_eq!(build(&mut chunk), 64);
    chunk.try_into().expect("one 64-byte record")
}

fn text_of(b: &[u8; 64]) -> String {
    let mut s = String::new();
    print_slot(&Slot::new(b), Dialect::Semaphore8, &mut s);
    s
}

/// The record prints as `line` and `line` assembles back to the same bytes.
fn check(b: &[u8; 64], line: &str) {
    assert_eq!(text_of(b), line);
    assert_eq!(
        parse_line(line, Dialect::Semaphore8),
        Ok(Line::Slot(SlotBuf(*b)))
    );
}

#[test]
fn write_0xa5_from_add_wr32() {
    let ev = get_event_semaphore_wait_update(4, 0x16, 0, 0, 0);
    let b = record(|c| add_wr32(c, 0, 0x0000_00ff_0001_0008, 3, Some(ev)));
    let w = RegWrite::new(Slot::new(&b)).expect("0xA5 is typed");
    assert_eq!(
        (w.dtype(), w.src(), w.addr(), w.value()),
        (Ok(Dtype::Uint32), Ok(DataSrc::Immediate), 0xff_0001_0008, 3)
    );
    check(
        &b,
        "WRITE $S[22]>0 dtype=u32 src=IMM addr=0xff00010008 value=3",
    );
}

#[test]
fn notify_0xa6_from_add_notify() {
    // spec 000 §8.1: add_notify(scratch, off, 0, 3) is the execution-DONE notify.
    let b = record(|c| add_notify(c, 0, 0, 3));
    let n = Notify::new(Slot::new(&b)).expect("0xA6 is typed");
    assert_eq!((n.queue(), n.value()), (0, 3));
    check(&b, "NOTIFY queue=0 value=3");
}

#[test]
fn range_clear_0xb0_from_add_sema_clear() {
    let b = record(|c| add_sema_clear(c, 0, 5, 9, None));
    let r = RangeClear::new(Slot::new(&b)).expect("0xB0 is typed");
    assert_eq!((r.first(), r.last()), (5, 9));
    check(&b, "EVENT_SEMAPHORE_RANGE_CLEAR first=5 last=9");
}

#[test]
fn poll_sem_0xb3_from_add_poll_sem() {
    let b = record(|c| add_poll_sem(c, 0, 0x1000, 4, 2, 0x2000, None));
    let p = PollSem::new(Slot::new(&b)).expect("0xB3 is typed");
    assert_eq!(
        (p.op(), p.addr(), p.wb_addr(), p.n_read(), p.reg()),
        (Ok(AluOp::Min), 0x1000, 0x2000, 4, 2)
    );
    check(
        &b,
        "POLL_SEM op=MIN addr=0x1000 wb_addr=0x2000 n_read=4 reg=2",
    );
}

#[test]
fn nop_0xa4_from_add_nop() {
    let b = record(|c| add_nop(c, 0, Some(0x1304)));
    assert!(Nop::new(Slot::new(&b)).is_some());
    check(&b, "NOP $S[19]>0 cycle=0");
}

#[test]
fn memory_0xaa_0xab_from_ldr32_str32() {
    let b = record(|c| add_ldr32_addr(c, 0, 5, 0x10_2000_0040, None));
    let m = Mem2d::new(Slot::new(&b)).expect("0xAA is typed");
    assert_eq!(
        (
            m.dtype(),
            m.datasrc(),
            m.num_elem0(),
            m.num_elem1(),
            m.addr(),
            m.data()
        ),
        (
            Ok(Dtype::Int32),
            Ok(DataSrc::Register),
            1,
            1,
            0x10_2000_0040,
            5
        )
    );
    check(
        &b,
        "TENSOR_LOAD dtype=i32 datasrc=REG num_elem0=1 num_elem1=1 addr=0x1020000040 data=5",
    );
    check(
        &record(|c| add_str32_addr(c, 0, 6, 0x100, None)),
        "TENSOR_STORE dtype=i32 datasrc=REG num_elem0=1 num_elem1=1 addr=0x100 data=6",
    );
    check(
        &record(|c| add_str32_imm_addr(c, 0, 0xabcd, 0x200, None)),
        "TENSOR_STORE dtype=i32 datasrc=IMM num_elem0=1 num_elem1=1 addr=0x200 data=43981",
    );
    let b = record(|c| add_str32_imm_reg(c, 0, 7, 12, None));
    let m = Mem2d::new(Slot::new(&b)).expect("0xAB is typed");
    assert_eq!((m.addr(), m.data()), (0x8000_0000_0000_000c, 7));
    check(
        &b,
        "TENSOR_STORE dtype=i32 datasrc=IMM num_elem0=1 num_elem1=1 addr=0x800000000000000c data=7",
    );
}

#[test]
fn branch_forms_from_the_ctrl_br_builders() {
    let b = record(|c| add_br_rel(c, 0, 0x40, None));
    let br = CompareBranch::new(Slot::new(&b)).expect("0xA9 is typed");
    assert_eq!(br.cmp_op(), Ok(BrCmpOp::Always));
    check(
        &b,
        "COMPARE_BRANCH cmp_op=ALWAYS dtype=i32 target_mode=REL_IMM cmp_reg=0 cmp_imm=0 br_imm=64 debug_hint=2",
    );
    let b = record(|c| add_cmpne_imm_br_rel(c, 0, 1, 5, -64, None));
    assert_eq!(
        CompareBranch::new(Slot::new(&b)).map(|x| x.cmp_op()),
        Some(Ok(BrCmpOp::NeImm))
    );
    let b = record(|c| add_br_hint_rel_imm(c, 0, 0x80, None).expect("in reach"));
    let h = BranchHint::new(Slot::new(&b)).expect("0xB5 is typed");
    assert_eq!(
        (h.cmp_op(), h.dtype(), h.target_mode(), h.br_imm()),
        (
            Ok(BrCmpOp::Always),
            Ok(Dtype::Int32),
            Ok(BrTargetMode::RelativeImmediate),
            0x80
        )
    );
    check(
        &b,
        "BRANCH_PREFETCH_HINT dtype=i32 target_mode=REL_IMM br_imm=128 debug_hint=2",
    );
}

#[test]
fn alu_register_form_and_event_semaphore_blocks() {
    let b = record(|c| add_add32_reg(c, 0, 2, 1, 5, None));
    let a = AluOpInst::new(Slot::new(&b)).expect("0xA8 is typed");
    assert_eq!((a.src1(), a.imm()), (Ok(DataSrc::Register), 5));
    let b = record(|c| add_semaphore_wait_eq_and_clear(c, 0, 7, 16));
    let es = EventSemaphore::new(Slot::new(&b)).expect("0xA0").es();
    assert_eq!(
        (es.wait_idx, es.sem_wait_value, es.update_mode),
        (7, 16, 0x19)
    );
    let b = record(|c| add_semaphore_inc_val(c, 0, 3, 16));
    check(&b, "EVENT_SEMAPHORE setter=0 es=$S[3]+=16@complete");
}

/// Every record of one builder call, with operands from `seed`.
fn builder_records(pick: u8, s: [u64; 4], ev: Option<u64>) -> Vec<u8> {
    let mut c = Vec::new();
    let (a, b, r) = (s[0], s[1], s[2] as u8);
    let v = s[3] as u32;
    match pick % 16 {
        0 => add_wr32(&mut c, 0, a, v, ev),
        1 => add_notify(&mut c, 0, a as u32, v),
        2 => add_sema_clear(&mut c, 0, a as u32, v, ev),
        3 => add_poll_sem(&mut c, 0, a, v, r, b, ev),
        4 => add_nop(&mut c, 0, ev),
        5 => add_ldr32_addr(&mut c, 0, r, a, ev),
        6 => add_str32_addr(&mut c, 0, r, a, ev),
        7 => add_str32_imm_addr(&mut c, 0, v, a, ev),
        8 => add_str32_imm_reg(&mut c, 0, v, r, ev),
        9 => builder::add_alu(&mut c, 0, r, 8, r / 2, r / 3, AluSrc1::Imm(v), ev),
        10 => builder::add_cmp_imm_br_rel(&mut c, 0, r, r / 7, 8, v, v as i32, ev),
        11 => add_br_hint_rel_imm(&mut c, 0, i64::from(v as i32), ev).unwrap_or(0),
        12 => add_semaphore_inc_val(&mut c, 0, r, v),
        13 => add_semaphore_wait_eq_and_clear(&mut c, 0, r, v),
        14 => builder::add_sync_barrier(&mut c, 0, r, v),
        _ => builder::add_sema_reset(&mut c, 0, &[r, r.wrapping_add(1), (a as u8) | 1]),
    };
    c
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Random builder operands: each record prints with named fields only (no `@0x..=` overlay,
    /// no `.slot`) and assembles back to the same bytes.
    #[test]
    fn builder_records_print_typed_and_round_trip(
        pick in any::<u8>(), s in any::<[u64; 4]>(), ev in proptest::option::of(any::<u64>())
    ) {
        let bytes = builder_records(pick, s, ev);
        for rec in bytes.chunks_exact(64) {
            let b: [u8; 64] = rec.try_into().expect("64");
            let line = text_of(&b);
            prop_assert!(!line.contains("@0x") && !line.starts_with(".slot"), "{}", line);
            prop_assert_eq!(parse_line(&line, Dialect::Semaphore8), Ok(Line::Slot(SlotBuf(b))));
        }
    }
}
