//! Every validation branch of the collective column (spec 001 §3; decisions D55, D285, D286):
//! each test fails if its branch changes.

mod common;

use common::var;
use neff_isa::EngineType;
use neff_isa::Events;
use neff_isa::builder::{
    add_ldr32_addr, add_mov32_imm, add_nop, add_str32_imm_addr, add_str32_imm_reg, add_wr32,
};
use neff_kelf::VarType;
use neff_load::device_model::DeviceModel;
use neff_lower::{
    EncOpClass, LowerContext, LowerErrorKind, LowerResources, LowerVar, LoweredStream, REDUCE_OPS,
    ResolvedTensor, lower_stream,
};

/// The events of every test collective: wait `$S[1] >= 5`, `$S[22]++` on complete.
const EVENTS: [u8; 8] = [0x05, 0x01, 0x13, 0x16, 5, 0, 0, 0];

/// A pointer var to `target`.
fn pointer(var_id: u32, name: &str, target: Option<u32>) -> LowerVar {
    LowerVar {
        referenced_var_id: target,
        ..var(var_id, name, VarType::Pointer, 0)
    }
}

/// A dge-table var listing `list`.
fn table(var_id: u32, name: &str, list: &[u32]) -> LowerVar {
    LowerVar {
        dge_list: Some(list.to_vec()),
        ..var(var_id, name, VarType::DgeTable, 0)
    }
}

/// Vars for every resolution branch, and one group of four ranks.
fn resources() -> LowerResources {
    LowerResources {
        vars: vec![
            var(0, "SB", VarType::StateBuffer, 0),
            var(1, "a", VarType::TmpBuf, 4096),
            var(2, "b", VarType::TmpBuf, 4096),
            pointer(3, "p", Some(1)),
            pointer(4, "loop1", Some(5)),
            pointer(5, "loop2", Some(4)),
            pointer(6, "dangling", None),
            table(7, "tbl2", &[1, 2]),
            table(8, "tbl3", &[1, 2, 1]),
            var(9, "small", VarType::TmpBuf, 64),
            table(10, "tbl2b", &[2, 3]),
            pointer(11, "p99", Some(99)),
        ],
        replica_groups: vec![vec![0, 1, 2, 3]],
        cc_streams: 1,
        arch: 2,
        ..LowerResources::default()
    }
}

/// A 0xC8 (spec 003 §6 + chaining at +0x21): ADD over `n` fp32 from tensor `input` to `output`.
fn ptc(ctype: u8, input: u32, output: u32, n: u64) -> [u8; 64] {
    let mut s = [0u8; 64];
    s[..2].copy_from_slice(&[0xC8, 0x10]);
    s[4..12].copy_from_slice(&EVENTS);
    s[0x0C] = 0x04;
    s[0x0D] = 0x0A;
    s[0x10..0x14].copy_from_slice(&input.to_le_bytes());
    s[0x14..0x18].copy_from_slice(&output.to_le_bytes());
    s[0x18..0x20].copy_from_slice(&n.to_le_bytes());
    s[0x20] = ctype;
    s
}

/// A 0xD9 + 0xDA pair (decision D55): ALL_REDUCE ADD of 8 fp32, src0 1, src1 0, dst 2.
fn ptc2() -> Vec<u8> {
    let mut s = vec![0u8; 128];
    s[..2].copy_from_slice(&[0xD9, 0x10]);
    s[4..12].copy_from_slice(&EVENTS);
    s[0x0C] = 0x04;
    s[0x0D] = 0x0A;
    for (at, var) in [(0x10, 1u16), (0x18, 0), (0x20, 2)] {
        s[at + 4..at + 6].copy_from_slice(&var.to_le_bytes());
        s[at + 7] = 0x10;
    }
    s[0x28] = 8;
    s[0x30] = 1;
    s[64..66].copy_from_slice(&[0xDA, 0x10]);
    s
}

fn lower_with<'s>(
    res: &LowerResources,
    owner: bool,
    stream: &'s [u8],
) -> Result<LoweredStream<'s>, LowerErrorKind> {
    let dev = DeviceModel::default();
    let mut ctx = LowerContext::new(res, &dev, "sg00");
    ctx.ccop_owner = owner;
    lower_stream(&ctx, EngineType::Pe, stream).map_err(|e| e.kind)
}

fn lower(stream: &[u8]) -> Result<LoweredStream<'_>, LowerErrorKind> {
    lower_with(&resources(), true, stream)
}

#[test]
fn reduce_ops_are_mask_0x350_and_map_to_subcodes() {
    for class in [EncOpClass::AllReduce, EncOpClass::ReduceScatter] {
        for alu in 0u8..=40 {
            let mut s = ptc(class as u8, 1, 2, 8);
            s[0x0C] = alu;
            let r = lower(&s);
            if alu < 32 && REDUCE_OPS & (1 << alu) != 0 {
                let want = match alu {
                    4 => 0,
                    6 => 1,
                    8 => 2,
                    _ => 3,
                };
                assert_eq!(r.unwrap().block.op_lists[0].ops[0].reduce, Some(want));
            } else {
                assert_eq!(r.unwrap_err(), LowerErrorKind::BadReduceOp { alu_op: alu });
            }
        }
    }
    assert_eq!(
        REDUCE_OPS,
        1 << 4 | 1 << 6 | 1 << 8 | 1 << 9,
        "ADD, MULT, MAX, MIN"
    );
    // Gathers do not reduce: any op byte, no subcode.
    let mut s = ptc(EncOpClass::AllGather as u8, 1, 2, 8);
    s[0x0C] = 0x33;
    assert_eq!(lower(&s).unwrap().block.op_lists[0].ops[0].reduce, None);
}

#[test]
fn more_than_one_cc_stream_is_refused() {
    for (streams, ok) in [(0, true), (1, true), (2, false)] {
        let res = LowerResources {
            cc_streams: streams,
            ..resources()
        };
        let stream = ptc(1, 1, 2, 8);
        let r = lower_with(&res, true, &stream);
        match ok {
            true => assert!(r.is_ok(), "{streams}: {r:?}"),
            false => assert_eq!(r.unwrap_err(), LowerErrorKind::MultipleStreams { streams }),
        }
    }
}

#[test]
fn rank_scaling_is_masks_0x90_and_0x81() {
    // Four ranks, 8 elements: input x4 for REDUCE_SCATTER / ALL_TO_ALL, output x4 for
    // ALL_GATHER / ALL_TO_ALL.
    let cases = [
        (EncOpClass::AllGather, 8, 32),
        (EncOpClass::AllReduce, 8, 8),
        (EncOpClass::ReduceScatter, 32, 8),
        (EncOpClass::AllToAll, 32, 32),
        (EncOpClass::Permute, 8, 8),
    ];
    for (class, inp, outp) in cases {
        let stream = ptc(class as u8, 1, 2, 8);
        let out = lower(&stream).unwrap();
        let op = &out.block.op_lists[0].ops[0];
        assert_eq!(
            (op.class, op.rank_n, op.input_elements, op.output_elements),
            (class, 4, inp, outp)
        );
    }
    // SENDRECV is PERMUTE whatever its ctype byte.
    let mut s = ptc(4, 1, 2, 8);
    s[0] = 0xCB;
    assert_eq!(
        lower(&s).unwrap().block.op_lists[0].ops[0].class,
        EncOpClass::Permute
    );
}

#[test]
fn class_chaining_and_group_are_checked() {
    assert_eq!(
        lower(&ptc(2, 1, 2, 8)).unwrap_err(),
        LowerErrorKind::UnknownCollectiveType { ctype: 2 }
    );
    let mut s = ptc(1, 1, 2, 8);
    s[0x21] = 4;
    assert_eq!(
        lower(&s).unwrap_err(),
        LowerErrorKind::BadChaining { chaining: 4 }
    );
    let mut s = ptc(1, 1, 2, 8);
    s[0x0E] = 1;
    assert_eq!(
        lower(&s).unwrap_err(),
        LowerErrorKind::UnknownReplicaGroup {
            group_id: 1,
            count: 1
        }
    );
    let mut s = ptc(1, 1, 2, 8);
    s[6] = 0x03;
    assert_eq!(
        lower(&s).unwrap_err(),
        LowerErrorKind::UpdateModeNotSemIncComplete { found: 3 }
    );
}

#[test]
fn initial_events_are_held_and_overlaid_on_the_final() {
    let mut initial = ptc(1, 1, 2, 8);
    initial[0x21] = 1;
    let mut body = ptc(1, 1, 2, 8);
    body[0x21] = 2;
    let mut fin = ptc(1, 1, 2, 8);
    fin[0x21] = 3;
    // The FINAL's own wait: $S[2] > 9; its update $S[23]++.
    fin[4..12].copy_from_slice(&[0x04, 0x02, 0x13, 0x17, 9, 0, 0, 0]);
    let stream = [initial, body, fin].concat();
    let out = lower(&stream).unwrap();
    // INITIAL and BODY ring the doorbell with no events.
    assert_eq!(&out.record(0).unwrap()[4..12], &[0; 8]);
    assert_eq!(&out.record(1).unwrap()[4..12], &[0; 8]);
    // FINAL: the INITIAL's wait mode and value, its own wait index and update.
    assert_eq!(
        &out.record(2).unwrap()[4..12],
        &[0x05, 0x02, 0x13, 0x17, 5, 0, 0, 0]
    );
    // A FINAL without an INITIAL keeps its own events.
    assert_eq!(&lower(&fin).unwrap().record(0).unwrap()[4..12], &fin[4..12]);
}

#[test]
fn ptc2_var_id_markers_are_0x10_to_0x13() {
    for (op, at) in [("src0", 0x10), ("src1", 0x18), ("dst", 0x20)] {
        for marker in 0u8..=0xFF {
            let mut s = ptc2();
            s[at + 7] = marker;
            let r = lower(&s);
            if marker & 0xFC == 0x10 {
                assert!(r.is_ok(), "{op} {marker:#x}: {r:?}");
            } else {
                assert_eq!(
                    r.unwrap_err(),
                    LowerErrorKind::BadVarIdMarker {
                        operand: op,
                        marker
                    }
                );
            }
        }
    }
}

#[test]
fn ptc2_priority_is_read_on_arch_above_2_only() {
    let mut s = ptc2();
    // spec 001 §3: "the 3-bit DMA priority class from PTC2E buf[41] & 7".
    s[64 + 41] = 0xFD;
    for (arch, want) in [(2, None), (3, Some(5)), (4, Some(5))] {
        let res = LowerResources {
            arch,
            ..resources()
        };
        let out = lower_with(&res, true, &s).unwrap();
        let op = &out.block.op_lists[0].ops[0];
        assert_eq!(op.dma_priority, want, "arch {arch}");
        assert_eq!(op.input1_tensor_id, Some(0));
    }
}

#[test]
fn pcprid_loads_4_bytes_only() {
    let dev = DeviceModel::default();
    for size in [0u8, 1, 2, 4, 8] {
        let mut s = [0u8; 64];
        s[..2].copy_from_slice(&[0xDB, 0x10]);
        s[4..12].copy_from_slice(&EVENTS);
        s[0x0C] = 7;
        s[0x0D] = size;
        let r = lower(&s);
        if size == 4 {
            let mut want = Vec::new();
            let ev = Events::read(&s).map(Events::pack);
            add_ldr32_addr(&mut want, 0, 7, dev.rank_id_addr, ev);
            assert_eq!(r.unwrap().record(0).unwrap(), &want[..]);
        } else {
            assert_eq!(r.unwrap_err(), LowerErrorKind::RankIdSize { size });
        }
    }
}

#[test]
fn gid_load_arms_by_destination_kind() {
    let dev = DeviceModel::default();
    let gid = dev.global_device_id;
    for kind in 0u8..4 {
        let mut s = [0u8; 64];
        s[..2].copy_from_slice(&[0xDC, 0x10]);
        s[4..12].copy_from_slice(&EVENTS);
        s[0x0C] = kind;
        s[0x10..0x18].copy_from_slice(&0x1234_5678u64.to_le_bytes());
        let ev = Events::read(&s).map(Events::pack);
        let mut want = Vec::new();
        match kind {
            0 => add_mov32_imm(&mut want, 0, 0x78, gid, ev),
            1 => add_str32_imm_addr(&mut want, 0, gid, 0x1234_5678, ev),
            2 => add_str32_imm_reg(&mut want, 0, gid, 0x78, ev),
            _ => {
                let e = lower(&s).unwrap_err();
                assert!(
                    matches!(e, LowerErrorKind::BadAddress { operand: "dst", .. }),
                    "{e:?}"
                );
                continue;
            }
        };
        assert_eq!(
            lower(&s).unwrap().record(0).unwrap(),
            &want[..],
            "kind {kind}"
        );
    }
}

#[test]
fn only_the_ccop_owner_rings_the_doorbell() {
    let dev = DeviceModel::default();
    let s = ptc(1, 1, 2, 8);
    let ev = Some(u64::from_le_bytes(EVENTS));
    let mut wr = Vec::new();
    add_wr32(
        &mut wr,
        0,
        dev.cc_trigger_addr(EngineType::Pe.index()).unwrap(),
        0,
        ev,
    );
    let mut nop = Vec::new();
    add_nop(&mut nop, 0, ev);
    let owner = lower_with(&resources(), true, &s).unwrap();
    assert_eq!(owner.record(0).unwrap(), &wr[..]);
    assert!(owner.block.op_lists[0].ccop_owner);
    let other = lower_with(&resources(), false, &s).unwrap();
    assert_eq!(other.record(0).unwrap(), &nop[..], "one slot, events kept");
    assert!(!other.block.op_lists[0].ccop_owner);
}

#[test]
fn tensor_ids_resolve_to_mem_refs() {
    let op = |i, o| {
        lower(&ptc(1, i, o, 8)).map(|s| {
            let op = &s.block.op_lists[0].ops[0];
            (op.input.clone(), op.output.clone())
        })
    };
    use ResolvedTensor::{List, Single};
    // A pointer resolves to its target; tables are lists.
    assert_eq!(op(3, 2).unwrap(), (Single(1), Single(2)));
    assert_eq!(op(7, 10).unwrap(), (List(vec![1, 2]), List(vec![2, 1])));
    // Ids that resolve to nothing name the id.
    let unknown = |operand, tensor_id, var_id| LowerErrorKind::UnknownTensor {
        operand,
        tensor_id,
        var_id,
        vars: 12,
    };
    assert_eq!(op(99, 2).unwrap_err(), unknown("input", 99, 99));
    assert_eq!(op(1, 99).unwrap_err(), unknown("output", 99, 99));
    assert_eq!(op(11, 2).unwrap_err(), unknown("input", 11, 99));
    assert_eq!(
        op(4, 2).unwrap_err(),
        LowerErrorKind::PointerCycle {
            operand: "input",
            tensor_id: 4
        }
    );
    assert_eq!(
        op(1, 6).unwrap_err(),
        LowerErrorKind::PointerWithoutTarget {
            operand: "output",
            tensor_id: 6,
            name: "dangling".into()
        }
    );
    // PTC2's src1 must resolve too.
    let mut s = ptc2();
    s[0x18 + 4] = 99;
    assert_eq!(lower(&s).unwrap_err(), unknown("input1", 99, 99));
}

#[test]
fn mr_lists_must_be_symmetric() {
    let asym = |i, input: &str, o, output: &str| LowerErrorKind::MrListAsymmetry {
        input_tensor_id: i,
        input: input.into(),
        output_tensor_id: o,
        output: output.into(),
    };
    assert_eq!(
        lower(&ptc(1, 7, 2, 8)).unwrap_err(),
        asym(7, "a list of 2 mem refs", 2, "one mem ref")
    );
    assert_eq!(
        lower(&ptc(1, 1, 8, 8)).unwrap_err(),
        asym(1, "one mem ref", 8, "a list of 3 mem refs")
    );
    assert_eq!(
        lower(&ptc(1, 7, 8, 8)).unwrap_err(),
        asym(7, "a list of 2 mem refs", 8, "a list of 3 mem refs")
    );
}

#[test]
fn operands_must_fit_their_vars_and_dtypes_have_sizes() {
    // 16 fp32 = 64 bytes fit `small`; 17 do not; an element offset counts.
    assert!(lower(&ptc(1, 9, 2, 16)).is_ok());
    let too_small = |need| LowerErrorKind::TensorTooSmall {
        operand: "input",
        tensor_id: 9,
        name: "small".into(),
        size: 64,
        need,
    };
    assert_eq!(lower(&ptc(1, 9, 2, 17)).unwrap_err(), too_small(68));
    let mut s = ptc(1, 9, 2, 16);
    s[0x30] = 1;
    assert_eq!(lower(&s).unwrap_err(), too_small(68));
    // The rank scaling counts: REDUCE_SCATTER over 4 ranks reads 4 x 4 elements.
    let rs = ptc(EncOpClass::ReduceScatter as u8, 9, 2, 4);
    assert!(lower(&rs).is_ok());
    let rs = ptc(EncOpClass::ReduceScatter as u8, 9, 2, 5);
    assert_eq!(lower(&rs).unwrap_err(), too_small(80));
    // A var without a size (SB) is not checked.
    assert!(lower(&ptc(1, 0, 0, 1 << 20)).is_ok());
    // A dtype without a width.
    let mut s = ptc(1, 1, 2, 8);
    s[0x0D] = 0;
    assert_eq!(
        lower(&s).unwrap_err(),
        LowerErrorKind::UnsizedDtype { dtype: 0 }
    );
    s[0x0D] = 0x30;
    assert_eq!(
        lower(&s).unwrap_err(),
        LowerErrorKind::UnsizedDtype { dtype: 0x30 }
    );
    // PTC2 offsets are byte immediates: 8 fp32 from byte 4064 fit 4096 bytes, from 4065 not.
    let mut s = ptc2();
    s[0x10..0x14].copy_from_slice(&4064u32.to_le_bytes());
    assert!(lower(&s).is_ok());
    s[0x10..0x14].copy_from_slice(&4065u32.to_le_bytes());
    assert_eq!(
        lower(&s).unwrap_err(),
        LowerErrorKind::TensorTooSmall {
            operand: "input",
            tensor_id: 1,
            name: "a".into(),
            size: 4096,
            need: 4097,
        }
    );
}
