//! Lowering the spec's sample streams (spec 003 §7) and the bad inputs of issue 5.

mod common;

use neff_isa::{EngineType, SlotIndex};
use neff_load::device_model::DeviceModel;
use neff_lower::patch::{PatchSection, PatchType};
use neff_lower::{
    EncOpClass, LowerContext, LowerErrorKind, LowerQueue, LowerResources, lower_stream,
    translate_block,
};

/// pe.bin of the sample (spec 003 §7.1).
fn pe_bin() -> Vec<u8> {
    common::collective(0).to_vec()
}

/// pool.bin of the sample (spec 003 §7.2).
fn pool_bin() -> Vec<u8> {
    let mut s = vec![0u8; 192];
    s[0..2].copy_from_slice(&[0xc1, 0x10]);
    s[0x0c..0x0c + 13].copy_from_slice(b"q_gradient_in");
    s[0x40..0x42].copy_from_slice(&[0xc1, 0x10]);
    s[0x44..0x46].copy_from_slice(&[0x04, 0x16]);
    s[0x4c..0x4c + 14].copy_from_slice(b"q_gradient_out");
    s[0x80..0x86].copy_from_slice(&[0xa0, 0x10, 0, 0, 0x04, 0x0b]);
    s
}

/// The sample's def.json (spec 000 §9): two pool queues, sems 10 and 11, one trivial group.
fn resources() -> LowerResources {
    let q = |name: &str, sem| LowerQueue {
        name: name.into(),
        owner: Some(EngineType::Pool),
        ty: "in".into(),
        semaphores: vec![sem],
        rings: 1,
        blocks: vec![],
    };
    LowerResources {
        queues: vec![q("q_gradient_in", 10), q("q_gradient_out", 11)],
        vars: common::sample_vars(),
        replica_groups: vec![vec![]],
        arch: 2,
        ..LowerResources::default()
    }
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

#[test]
fn pool_dma_triggers_become_tail_pointer_writes() {
    let (res, dev) = (resources(), DeviceModel::default());
    let ctx = LowerContext::new(&res, &dev, "sg00");
    let pool = pool_bin();
    let out = lower_stream(&ctx, EngineType::Pool, &pool).unwrap();
    assert_eq!(out.block.record_count(), 3);
    assert_eq!(out.block.origins, [0, 1, 2]);
    assert!(out.block.patches.is_empty(), "1 -> 1 everywhere: no rows");
    let r0 = out.record(0).unwrap();
    assert_eq!(&r0[0..12], &[0xa5, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    assert_eq!(u64_at(r0, 0x10), dev.ring_tail_addr(0, 0).unwrap());
    let r1 = out.record(1).unwrap();
    assert_eq!(r1[0], 0xa5);
    assert_eq!(&r1[4..8], &[0x04, 0x16, 0, 0], "keeps its $S[22]>0 wait");
    assert_eq!(u64_at(r1, 0x10), dev.ring_tail_addr(1, 0).unwrap());
    assert_eq!(
        out.record(2).unwrap(),
        &pool[0x80..0xc0],
        "0xA0 passes through"
    );
}

#[test]
fn pe_collective_becomes_one_trigger_and_an_op_list() {
    let (res, dev) = (resources(), DeviceModel::default());
    let ctx = LowerContext::new(&res, &dev, "sg00");
    let pe = pe_bin();
    let out = lower_stream(&ctx, EngineType::Pe, &pe).unwrap();
    assert_eq!(
        out.block.record_count(),
        1,
        "decision D51: exactly one trigger record"
    );
    assert!(out.block.patches.is_empty());
    let r = out.record(0).unwrap();
    assert_eq!(r[0], 0xa5, "WR32 doorbell");
    assert_eq!(
        &r[4..12],
        &[0x04, 0x0a, 0x13, 0x16, 0, 0, 0, 0],
        "$S[10]>0, $S[22]++@complete"
    );
    assert_eq!(u64_at(r, 0x10), dev.cc_trigger_addr(0).unwrap());
    let list = &out.block.op_lists[0];
    assert_eq!(list.ops.len(), 1);
    let op = &list.ops[0];
    assert_eq!(op.class, EncOpClass::AllReduce);
    assert_eq!(
        (op.reduce, op.alu_op, op.dtype, op.elem_size),
        (Some(0), 0x04, 0x0a, 4)
    );
    assert_eq!((op.input_tensor_id, op.output_tensor_id), (3, 4));
    assert_eq!(
        (
            op.num_elements,
            op.input_elements,
            op.output_elements,
            op.rank_n
        ),
        (32, 32, 32, 1)
    );

    let mut nop_ctx = ctx.clone();
    nop_ctx.options.dbg_cc_nop = true;
    let pe = pe_bin();
    let out = lower_stream(&nop_ctx, EngineType::Pe, &pe).unwrap();
    assert_eq!(
        out.record(0).unwrap()[..12],
        [0xa4, 0x10, 0, 0, 0x04, 0x0a, 0x13, 0x16, 0, 0, 0, 0]
    );
}

#[test]
fn label_is_deleted_and_branch_resolved() {
    let (res, dev) = (resources(), DeviceModel::default());
    let ctx = LowerContext::new(&res, &dev, "");
    // slot0 SET_ORDERING_MODE, slot1 label 7, slot2 NOP, slot3 branch REL_IMM to label 7.
    let mut s = vec![0u8; 256];
    s[0..2].copy_from_slice(&[0xb1, 0x10]);
    s[64..66].copy_from_slice(&[0xcc, 0x10]);
    s[64 + 0x0c] = 7;
    s[128..130].copy_from_slice(&[0xa4, 0x10]);
    s[192..194].copy_from_slice(&[0xa9, 0x10]);
    s[192 + 0x0e] = 3;
    s[192 + 0x30] = 7;
    let out = lower_stream(&ctx, EngineType::Pe, &s).unwrap();
    assert_eq!(out.block.origins, [0, 2, 3]);
    assert_eq!(out.block.labels, [(7, 64)]);
    let rows = out.block.patches.locations();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (rows[0].offset, rows[0].count, rows[0].kind, rows[0].section),
        (64, 1, PatchType::Delete, PatchSection::Main)
    );
    // branch at 128 -> label at 64: rel -64 as u32, zero-extended.
    assert_eq!(
        u64_at(out.record(2).unwrap(), 0x30),
        u64::from((-64i32) as u32)
    );
}

#[test]
fn sync_barrier_inserts_and_rows_are_relative_to_the_window() {
    let (res, dev) = (resources(), DeviceModel::default());
    let ctx = LowerContext::new(&res, &dev, "");
    let mut s = vec![0u8; 192];
    s[0..2].copy_from_slice(&[0xb1, 0x10]);
    s[64..66].copy_from_slice(&[0xd5, 0x10]);
    s[64 + 0x0c] = 30;
    s[64 + 0x10] = 4;
    s[128..130].copy_from_slice(&[0xd3, 0x10]);
    s[128 + 12..128 + 15].copy_from_slice(b"foo");
    let (_, out) = translate_block(
        &ctx,
        EngineType::Act,
        &s,
        64..192,
        0,
        PatchSection::Function,
    )
    .unwrap();
    assert_eq!(out.origins, [1, 1, 2]);
    let r = &out.patches.locations()[0];
    assert_eq!(
        (r.offset, r.count, r.kind, r.section),
        (0, 1, PatchType::Insert, PatchSection::Function)
    );
    assert_eq!(out.specials.len(), 1);
    assert_eq!(
        (
            out.specials[0].offset,
            out.specials[0].source_slot,
            out.specials[0].name.as_str()
        ),
        (128, 2, "foo")
    );
}

fn err_of(engine: EngineType, stream: &[u8]) -> (String, u64, LowerErrorKind) {
    let (res, dev) = (resources(), DeviceModel::default());
    let ctx = LowerContext::new(&res, &dev, "sg00");
    let e = lower_stream(&ctx, engine, stream).unwrap_err();
    assert!(
        e.to_string()
            .starts_with(&format!("{} slot {}: ", e.member, e.slot.0))
    );
    (e.member, u64::from(e.slot.0), e.kind)
}

#[test]
fn bad_inputs_name_member_and_slot() {
    // DMA trigger with an unknown queue name.
    let mut pool = pool_bin();
    pool[0x4c..0x4c + 14].copy_from_slice(b"q_gradient_xyz");
    let (m, slot, k) = err_of(EngineType::Pool, &pool);
    assert_eq!((m.as_str(), slot), ("sg00/pool.bin", 1));
    assert_eq!(
        k,
        LowerErrorKind::UnknownQueue {
            queue: "q_gradient_xyz".into()
        }
    );
    // ... and with an empty one.
    let mut pool = pool_bin();
    pool[0x0c..0x2c].fill(0);
    assert_eq!(
        err_of(EngineType::Pool, &pool),
        ("sg00/pool.bin".into(), 0, LowerErrorKind::EmptyQueueName)
    );
    // A collective whose update mode is not SEM_INC_COMPLETE.
    let mut pe = pe_bin();
    pe[6] = 0x03;
    let (_, slot, k) = err_of(EngineType::Pe, &pe);
    assert_eq!(
        (slot, k),
        (0, LowerErrorKind::UpdateModeNotSemIncComplete { found: 3 })
    );
    // PTC2 without its 0xDA extension.
    let mut s = vec![0u8; 128];
    s[0..2].copy_from_slice(&[0xd9, 0x10]);
    s[64..66].copy_from_slice(&[0xa0, 0x10]);
    let (_, slot, k) = err_of(EngineType::Pe, &s);
    assert_eq!(slot, 0);
    assert!(
        matches!(k, LowerErrorKind::MissingPtc2Extension { .. }),
        "{k:?}"
    );
    // A branch to a missing label.
    let mut s = vec![0u8; 128];
    s[0..2].copy_from_slice(&[0xb1, 0x10]);
    s[64..66].copy_from_slice(&[0xa9, 0x10]);
    s[64 + 0x0e] = 3;
    s[64 + 0x30] = 9;
    assert_eq!(
        err_of(EngineType::Dve, &s),
        (
            "sg00/dve.bin".into(),
            1,
            LowerErrorKind::MissingLabel { label: 9 }
        )
    );
    // An unsupported pseudo.
    let mut s = vec![0u8; 64];
    s[0..2].copy_from_slice(&[0xc6, 0x10]);
    let (_, _, k) = err_of(EngineType::Act, &s);
    assert_eq!(
        k.to_string(),
        "unsupported pseudo-instruction 0xc6 (PSEUDO_LOAD_ACT_FUNC_SET)"
    );
}

#[test]
fn ptc2_with_extension_lowers_to_one_record_and_a_delete() {
    let (res, dev) = (resources(), DeviceModel::default());
    let ctx = LowerContext::new(&res, &dev, "sg00");
    let mut s = vec![0u8; 128];
    s[0..8].copy_from_slice(&[0xd9, 0x10, 0, 0, 0, 0, 0x13, 0x05]);
    s[0x0c] = 0x04;
    s[0x0d] = 0x0a;
    for at in [0x10, 0x18, 0x20] {
        s[at + 7] = 0x10;
    }
    s[0x14] = 3;
    s[0x24] = 4;
    s[0x28] = 32;
    s[0x30] = 1;
    s[64..66].copy_from_slice(&[0xda, 0x10]);
    let out = lower_stream(&ctx, EngineType::Pe, &s).unwrap();
    assert_eq!(out.block.origins, [0]);
    let r = &out.block.patches.locations()[0];
    assert_eq!((r.offset, r.count, r.kind), (64, 1, PatchType::Delete));
    assert_eq!(
        (
            out.block.op_lists[0].ops[0].input_tensor_id,
            out.block.op_lists[0].ops[0].output_tensor_id
        ),
        (3, 4)
    );
    // Partition offset with bit 25 set.
    s[64 + 0x0c..64 + 0x10].copy_from_slice(&(1u32 << 25).to_le_bytes());
    let e = lower_stream(&ctx, EngineType::Pe, &s).unwrap_err();
    assert_eq!(
        e.kind,
        LowerErrorKind::BadPartitionOffset { value: 1 << 25 }
    );
}

/// moe_v6b sg00/Pool.bin slots 9 and 10 (decision D155): a 0xD4 reading DGE-table entry 1 plus
/// offset register 31, and its 0xDA continuation (src_bound_size_bytes = 256 MiB).
fn moe_direct2d_record() -> Vec<u8> {
    let mut s = vec![0u8; 128];
    s[..16].copy_from_slice(&[0xd4, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x0c, 0x10, 0]);
    s[0x10..0x18].copy_from_slice(&[0x1f, 0, 0, 0, 0x01, 0, 0, 0x28]);
    s[0x18..0x28].copy_from_slice(&[0, 4, 0, 0, 1, 0, 0, 0, 0x80, 0, 1, 0, 0, 4, 0xbd, 0]);
    s[0x28..0x30].copy_from_slice(&[0, 0x40, 0, 0, 0, 0, 0, 0x10]);
    s[0x30..0x40].copy_from_slice(&[0, 0, 4, 0, 1, 0, 0, 0, 0x80, 0, 1, 0, 0, 4, 6, 6]);
    s[64] = 0xda;
    s[64 + 0x0f] = 0x10;
    s
}

/// The moe_v6b vars and queue the record names: SB (0), input3 (4, DGE entry 1), DGETable0.
fn moe_resources() -> LowerResources {
    use neff_kelf::VarType;
    use neff_lower::LowerVar;
    let var = |var_id, name: &str, dge_list: Option<Vec<u32>>| LowerVar {
        var_id,
        name: name.into(),
        ty: match var_id {
            0 => VarType::StateBuffer,
            8 => VarType::DgeTable,
            _ => VarType::Input,
        },
        size: [0, 0, 0, 134_217_728, 268_435_456, 4096, 0, 0, 0][var_id as usize],
        placement: [0, 0, 0, 0, 134_217_728, 402_653_184, 0, 0, 0][var_id as usize],
        referenced_var_id: None,
        dge_list,
    };
    LowerResources {
        queues: vec![LowerQueue {
            name: "qPoolDynamic".into(),
            owner: Some(EngineType::Pool),
            ty: "dynamic".into(),
            semaphores: (8..24).collect(),
            rings: 16,
            blocks: vec![],
        }],
        vars: vec![
            var(0, "SB", None),
            var(3, "input2", None),
            var(4, "input3", None),
            var(5, "input4", None),
            var(8, "DGETable0", Some(vec![5, 4, 3])),
        ],
        replica_groups: vec![vec![]],
        arch: 3,
        ..LowerResources::default()
    }
}

#[test]
fn direct2d_with_continuation_is_one_record_and_a_delete() {
    let (res, dev) = (moe_resources(), DeviceModel::default());
    let ctx = LowerContext::new(&res, &dev, "sg00");
    let mut s = moe_direct2d_record();
    s.extend_from_slice(&common::slot(0xa4, 0));
    let out = lower_stream(&ctx, EngineType::Pool, &s).unwrap();
    // Two source slots -> one WRITE; the continuation's row is a DELETE right after it.
    assert_eq!(out.block.origins, [0, 2]);
    assert_eq!(out.record(0).unwrap()[0], 0xa5);
    let rows: Vec<_> = out
        .block
        .patches
        .locations()
        .iter()
        .map(|r| (r.offset, r.count, r.kind))
        .collect();
    assert_eq!(rows, [(64, 1, PatchType::Delete)]);
    let d = &out.block.descriptors[0];
    assert_eq!(
        (d.src.var_id, d.src.offset, d.src.offset_reg),
        (4, 0, Some(31))
    );
    assert_eq!((d.dst.var_id, d.dst.offset), (0, 0x4000));
}

#[test]
fn broken_pairs_name_their_slot() {
    let (res, dev) = (moe_resources(), DeviceModel::default());
    let ctx = LowerContext::new(&res, &dev, "sg00");
    // The 0xD4 alone at the end of the stream.
    let s = moe_direct2d_record();
    let e = lower_stream(&ctx, EngineType::Pool, &s[..64]).unwrap_err();
    assert_eq!(e.slot, SlotIndex(0));
    assert!(matches!(e.kind, LowerErrorKind::Pairing(_)), "{e}");
    assert!(e.to_string().contains("the stream ends"), "{e}");
    // A stray continuation after a NOP.
    let mut t = common::slot(0xa4, 0).to_vec();
    t.extend_from_slice(&s[64..]);
    let e = lower_stream(&ctx, EngineType::Pool, &t).unwrap_err();
    assert_eq!(e.slot, SlotIndex(1));
    assert!(e.to_string().contains("follows neither"), "{e}");
}

/// moe_v6b sg00/Pool.bin slot 11 (decision D157): PSEUDO_TENSOR_LOAD of u32 SB[0x17300] into
/// register 61.
fn moe_tensor_load() -> [u8; 64] {
    let mut s = [0u8; 64];
    s[..4].copy_from_slice(&[0xce, 0x10, 0, 0]);
    s[0x0c..0x10].copy_from_slice(&[9, 0, 1, 1]);
    s[0x14..0x18].copy_from_slice(&0x17300u32.to_le_bytes());
    s[0x18] = 1;
    s[0x1c] = 8;
    s[0x20] = 0x3d;
    s
}

#[test]
fn tensor_load_becomes_a_real_tensor_load_of_the_sb_address() {
    let (res, dev) = (moe_resources(), DeviceModel::default());
    let ctx = LowerContext::new(&res, &dev, "sg00");
    let mut s = moe_tensor_load();
    s[4..8].copy_from_slice(&[0x05, 0x18, 0, 0]); // slot 6's wait: $S[24] >= 16
    s[8] = 16;
    let mut stream = s.to_vec();
    stream.extend_from_slice(&common::slot(0xa8, 0));
    let out = lower_stream(&ctx, EngineType::Pool, &stream).unwrap();
    // One record per slot, no IP-delta row (spec 000 §5: 1 -> 1).
    assert_eq!(out.block.origins, [0, 1]);
    assert!(out.block.patches.is_empty());
    let r = out.record(0).unwrap();
    let mut want = s;
    want[0] = 0xaa;
    want[0x10..0x18].copy_from_slice(&(0x8020_0000_0000u64 + 0x17300).to_le_bytes());
    assert_eq!(r, want);
    // The HBM var of a store: tensor_base + its placement + offset, opcode TENSOR_STORE.
    let mut st = moe_tensor_load();
    st[0] = 0xcd;
    st[0x10] = 4;
    st[0x14..0x18].copy_from_slice(&0x40u32.to_le_bytes());
    let out = lower_stream(&ctx, EngineType::Pool, &st).unwrap();
    let r = out.record(0).unwrap();
    assert_eq!(r[0], 0xab);
    assert_eq!(u64_at(r, 0x10), 0x8000_0000_0000 + 134_217_728 + 0x40);
}

#[test]
fn tensor_load_of_a_missing_var_or_past_its_end_names_the_slot() {
    let (res, dev) = (moe_resources(), DeviceModel::default());
    let ctx = LowerContext::new(&res, &dev, "sg00");
    let mut s = moe_tensor_load();
    s[0x10] = 9;
    let e = lower_stream(&ctx, EngineType::Pool, &s).unwrap_err();
    assert_eq!(
        (e.slot, e.kind),
        (SlotIndex(0), LowerErrorKind::UnknownVar { var_id: 9 })
    );
    s[0x10] = 5;
    s[0x14..0x18].copy_from_slice(&4096u32.to_le_bytes());
    let e = lower_stream(&ctx, EngineType::Pool, &s).unwrap_err();
    assert_eq!(
        e.to_string(),
        "sg00/pool.bin slot 0: offset 0x1000 is outside var `input4` (4096 bytes)"
    );
}

/// A long run of real opcodes is kept as a view of the source stream, not copied (decision
/// D830); the records around it are owned, and the whole reads as the flat lowering.
#[test]
fn a_long_verbatim_run_is_borrowed_from_the_stream() {
    let (res, dev) = (resources(), DeviceModel::default());
    let ctx = LowerContext::new(&res, &dev, "");
    // slot 0 label 7 (deleted), then 40 NOPs, then a branch to label 7.
    let mut s = vec![0u8; 42 * 64];
    s[0..2].copy_from_slice(&[0xcc, 0x10]);
    s[0x0c] = 7;
    for slot in s.chunks_exact_mut(64).skip(1).take(40) {
        slot[0..2].copy_from_slice(&[0xa4, 0x10]);
    }
    let br = 41 * 64;
    s[br..br + 2].copy_from_slice(&[0xa9, 0x10]);
    s[br + 0x0e] = 3;
    s[br + 0x30] = 7;
    let out = lower_stream(&ctx, EngineType::Pe, &s).unwrap();
    assert_eq!(out.bytes.borrowed_len(), 40 * 64);
    let flat = out.bytes.to_vec();
    assert_eq!(&flat[..40 * 64], &s[64..41 * 64]);
    assert_eq!(out.records().count(), 41);
    assert_eq!(out.record(40).unwrap(), &flat[40 * 64..]);
}
