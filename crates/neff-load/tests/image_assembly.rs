//! Image assembly (spec 000 §6-§8) of lowered blocks on generated streams with functions, calls,
//! labels and label branches, exits, collectives and DMA triggers, checked by the independent
//! checker; the error paths.

mod common;

use common::{
    branch_to, check_engine, collective, dma_trigger, exit, label, named, resources, slot,
};
use neff_isa::EngineType;
use neff_load::LoadError;
use neff_load::device_model::DeviceModel;
use neff_load::image::fixup::resolve_function_labels;
use neff_load::model::{EngineSource, LoadOptions, LoadedModel, SubgraphInput, load_streams};
use neff_lower::patch::{PatchSection, PatchType};
use neff_lower::{BranchFixup, FixupKind, ImageBuf};

fn load(engines: &[(EngineType, &[u8])], options: &LoadOptions) -> Result<LoadedModel, LoadError> {
    let res = resources();
    let sg = [SubgraphInput {
        name: "sg00",
        engines,
        resources: &res,
        content: Default::default(),
    }];
    load_streams(&sg, options)
}

fn rel_at(img: &[u8], at: usize) -> i64 {
    i64::from(i32::from_le_bytes(
        img[at + 0x30..at + 0x34].try_into().unwrap(),
    ))
}

/// MAIN: ordering, a plain slot, a label, a plain slot, a DMA trigger, a collective, a branch
/// back to the label, a call to `f`, a plain slot, exit. Function `f`: begin, plain slot, a
/// label, plain slot, a branch back to it, exit.
fn generated() -> Vec<u8> {
    [
        slot(0xB1, 1),
        slot(0xA0, 2),
        label(7),
        slot(0x41, 3),
        dma_trigger("q0", 4),
        collective(5),
        branch_to(7),
        named(0xD3, "f"),
        slot(0xA4, 6),
        exit(),
        named(0xD1, "f"),
        slot(0x46, 8),
        label(9),
        slot(0x47, 9),
        branch_to(9),
        exit(),
    ]
    .concat()
}

#[test]
fn empty_and_missing_engines_load_empty_programs_with_a_warning() {
    // spec 003 §10.5: a 0-byte stream and an engine the input does not list both load (five
    // engine slots, spec 004 §2), each with the load WARN; a stream of one slot has none.
    let one = common::slot(0xA4, 1);
    let model = load(
        &[(EngineType::Pool, &one), (EngineType::Sp, &[])],
        &LoadOptions::default(),
    )
    .unwrap();
    let sg = &model.subgraphs[0];
    let source = |e| sg.engine(e).unwrap().source;
    assert_eq!(source(EngineType::Pool), EngineSource::Stream);
    assert_eq!(source(EngineType::Sp), EngineSource::Empty);
    for e in [EngineType::Pe, EngineType::Act, EngineType::Dve] {
        assert_eq!(source(e), EngineSource::Missing, "{e}");
        assert_eq!(sg.engine(e).unwrap().image.source_slots, 0);
    }
    assert_eq!(EngineSource::Stream.warning(), None);
    assert!(
        EngineSource::Empty
            .warning()
            .unwrap()
            .contains("empty (0 bytes)")
    );
    assert!(
        EngineSource::Missing
            .warning()
            .unwrap()
            .contains("no instruction stream")
    );
}

#[test]
fn a_kbin_not_ending_with_sp_is_refused() {
    // spec 000 §2: the driver asserts the last engine is SP; the set-up order is the kbin's
    // (decision D287), so an input listing SP before Pool fails instead of being reordered.
    let e = load(
        &[(EngineType::Sp, &[]), (EngineType::Pool, &[])],
        &LoadOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(
            e,
            LoadError::EngineOrder {
                found: EngineType::Pool
            }
        ),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        "the last engine set up must be SP (eng_type 4), found pool"
    );
}

#[test]
fn generated_stream_layout_rows_and_checker() {
    let src = generated();
    let model = load(
        &[(EngineType::Pool, &src), (EngineType::Sp, &[])],
        &LoadOptions::default(),
    )
    .unwrap();
    let sg = &model.subgraphs[0];
    assert_eq!(
        sg.engines.last().unwrap().engine,
        EngineType::Sp,
        "SP set up last"
    );
    let e = sg.engine(EngineType::Pool).unwrap();
    let img = &e.image;
    // Regions in physical order: PREAMBLE(MODEL_SWITCH) MAIN POSTAMBLE FUNCTION.
    assert_eq!(img.eib.preamble.offset, 0);
    assert!(img.eib.model_switch.offset >= img.eib.preamble.offset);
    assert!(img.eib.model_switch.end() <= img.eib.preamble.end());
    assert_eq!(img.eib.core.offset, img.eib.preamble.end());
    assert_eq!(img.postamble.offset, img.eib.core.end());
    assert_eq!(img.functions.offset, img.postamble.end());
    assert_eq!(img.functions.end(), img.bytes.len() as u64);
    // MAIN has 10 source slots, 1 label deleted, 1 return-address slot inserted before the call
    // (decision D290): 10 device slots; f has 6, 1 deleted: 5.
    assert_eq!((img.eib.core.size, img.functions.size), (10 * 64, 5 * 64));
    let rows = img.patches.locations();
    assert_eq!(
        (rows[0].offset, rows[0].kind, rows[0].section),
        (0, PatchType::Insert, PatchSection::Preamble)
    );
    assert_eq!(u64::from(rows[0].count) * 64, img.eib.preamble.size);
    let post = rows
        .iter()
        .find(|r| r.section == PatchSection::Postamble)
        .unwrap();
    assert_eq!(
        (u64::from(post.offset), post.kind),
        (img.postamble.offset, PatchType::Insert)
    );
    let core = img.eib.core.offset as usize;
    let b = &img.bytes;
    // Lowering ran: the 0xC1 is a WRITE (0xA5) of the q0 tail pointer, the 0xC8 one WRITE
    // doorbell with the slot's events ($S[10]>0, SEM_INC_COMPLETE $S[22]) and an op list.
    let dev = DeviceModel::default();
    let (dma_at, cc_at) = (core + 3 * 64, core + 4 * 64);
    assert_eq!(b[dma_at], 0xA5);
    assert_eq!(
        u64::from_le_bytes(b[dma_at + 0x10..dma_at + 0x18].try_into().unwrap()),
        dev.ring_tail_addr(0, 0).unwrap()
    );
    assert_eq!(
        (b[cc_at], &b[cc_at + 4..cc_at + 8]),
        (0xA5, &[4, 10, 0x13, 0x16][..])
    );
    assert_eq!(e.op_lists.len(), 1);
    assert_eq!(e.op_lists[0].ops[0].num_elements, 32);
    // The label branches were resolved in the image: MAIN's to the 0x41 after label 7 (device
    // slot 2), f's to the 0x47 after label 9.
    let br_at = core + 5 * 64;
    assert_eq!(
        (b[br_at], br_at as i64 + rel_at(b, br_at)),
        (0xA9, (core + 2 * 64) as i64)
    );
    let fbr_at = img.functions.offset as usize + 3 * 64;
    assert_eq!(fbr_at as i64 + rel_at(b, fbr_at), fbr_at as i64 - 64);
    // The call is now its return-address slot (an ALU_OP; f never returns, so 0) and a relative
    // branch to f's entry, with an INSERT row at the first; the exits branch to the POSTAMBLE.
    let call_at = core + 7 * 64;
    assert_eq!(b[call_at - 64], 0xA8);
    assert_eq!(b[call_at], 0xA9);
    assert_eq!(
        call_at as i64 + rel_at(b, call_at),
        img.functions.offset as i64
    );
    assert!(
        rows.iter()
            .any(|r| (r.offset as usize, r.kind, r.count) == (call_at - 64, PatchType::Insert, 1))
    );
    let exit_at = core + 9 * 64;
    assert_eq!(
        exit_at as i64 + rel_at(b, exit_at),
        img.postamble.offset as i64
    );
    // No pseudo-instruction survives anywhere in the image.
    assert!(b.chunks_exact(64).all(|r| !(0xC1..=0xDF).contains(&r[0])));
    // Function-entry marker (+3 |= 1) and MODIFY rows for the rewritten placeholders.
    assert_eq!(img.bytes[img.functions.offset as usize + 3] & 1, 1);
    let modify = rows.iter().filter(|r| r.kind == PatchType::Modify).count();
    assert_eq!(modify, 4, "call, exit, begin, exit");
    // The reset branch returns to the program start.
    let br = img.postamble.end() as usize - 64;
    let rel = i32::from_le_bytes(img.bytes[br + 0x30..br + 0x34].try_into().unwrap());
    assert_eq!(br as i64 + i64::from(rel), img.program_start as i64);
    // Independent checker: every plain slot (B1 A0 41 A4 | 46 47) found and mapped back.
    assert_eq!(check_engine(&src, e), 6);
    // Function IPs continue after MAIN's: slot 13 (0x47) is NEFF IP 14.
    let r = e
        .ipmap
        .device_range(neff_load::ipmap::NeffIp(14))
        .unwrap()
        .unwrap();
    assert_eq!(r.section, PatchSection::Function);
    // Staging: aligned to 0x8000.
    assert_eq!(e.ib_addrs.base % 0x8000, 0);
    assert_eq!(e.block.name, "One block");
    assert_eq!(e.block.inst_len, img.bytes.len() as u64);
}

#[test]
fn cache_align_pads_label_blocks_with_an_insert() {
    let src = generated();
    let opts = LoadOptions {
        cache_align_labels: true,
        ..LoadOptions::default()
    };
    let model = load(&[(EngineType::Pool, &src)], &opts).unwrap();
    let e = model.subgraphs[0].engine(EngineType::Pool).unwrap();
    for p in &e.image.blocks {
        if p.block_preamble_offset.size > 0 {
            assert_eq!(p.block_offset.offset % 128, 0);
        }
    }
    assert_eq!(check_engine(&src, e), 6);
}

#[test]
fn call_to_unknown_function_is_an_error() {
    let src = [slot(0xA0, 1), named(0xD3, "nowhere")].concat();
    let err = load(&[(EngineType::Pe, &src)], &LoadOptions::default()).unwrap_err();
    assert!(
        matches!(err, LoadError::UnknownFunction { ref name, .. } if name == "nowhere"),
        "{err}"
    );
    assert!(
        err.to_string()
            .contains("calls unknown function \"nowhere\"")
    );
}

#[test]
fn branch_beyond_32_bit_reach_is_an_error() {
    let fixup = BranchFixup {
        offset: 0,
        label: 7,
        kind: FixupKind::Branch,
        source_slot: 0,
    };
    let mut buf = ImageBuf::from_vec(Vec::new());
    buf.extend_from_slice(&[0u8; 64]);
    let err =
        resolve_function_labels(EngineType::Pe, &mut buf, &[fixup], &[(7, 3 << 30)]).unwrap_err();
    assert!(matches!(err, LoadError::BranchOutOfReach { .. }), "{err}");
}

#[test]
fn branch_to_a_label_of_another_function_is_an_error() {
    // Labels are function-scoped (decision D72): f cannot branch to MAIN's label 7.
    let src = [
        label(7),
        slot(0xA0, 1),
        exit(),
        named(0xD1, "f"),
        branch_to(7),
    ]
    .concat();
    let err = load(&[(EngineType::Pe, &src)], &LoadOptions::default()).unwrap_err();
    assert!(
        matches!(err, LoadError::UnknownLabel { label: 7, .. }),
        "{err}"
    );
}

#[test]
fn image_larger_than_the_device_model_is_an_error() {
    let src: Vec<u8> = (0..4096).flat_map(|i| slot(0xA0, i)).collect();
    let opts = LoadOptions {
        device: DeviceModel {
            hbm_size: 0x10000,
            ..DeviceModel::default()
        },
        ..LoadOptions::default()
    };
    let err = load(&[(EngineType::Dve, &src)], &opts).unwrap_err();
    assert!(matches!(err, LoadError::OutOfDeviceMemory { .. }), "{err}");
}

#[test]
fn lowering_errors_name_the_member_and_slot() {
    let src = [slot(0xA0, 1), dma_trigger("nope", 2)].concat();
    let err = load(&[(EngineType::Pool, &src)], &LoadOptions::default()).unwrap_err();
    assert!(matches!(err, LoadError::Lower { .. }), "{err}");
    // D301: the error says the engine; its source, said once, names the member and slot.
    assert_eq!(err.to_string(), "pool");
    let cause = std::error::Error::source(&err).expect("the lowering error");
    assert!(
        cause.to_string().contains("sg00/pool.bin slot 1"),
        "{cause}"
    );
}
