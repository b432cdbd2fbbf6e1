//! Image assembly (spec 000 §6-§8) on generated streams with functions, calls, labels, exits,
//! collectives and DMA triggers, checked by the independent checker; the error paths.

mod common;

use common::{check_engine, exit, label, named, slot};
use neff_isa::EngineType;
use neff_load::error::LoadError;
use neff_load::image::fixup::resolve_labels;
use neff_load::image::function::Assembly;
use neff_load::model::{LoadOptions, LoadedModel, SubgraphInput, load_streams};
use neff_load::patch::{PatchSection, PatchType};
use neff_load::setup::{BlockTranslator, PassThrough};

fn load(engines: &[(EngineType, &[u8])], options: &LoadOptions) -> Result<LoadedModel, LoadError> {
    let sg = [SubgraphInput {
        name: "sg00",
        engines,
    }];
    let tr = |_: &str| -> Result<Box<dyn BlockTranslator>, LoadError> { Ok(Box::new(PassThrough)) };
    load_streams(&sg, &tr, options)
}

/// MAIN: ordering, two plain slots, a label, a DMA trigger, a collective, a call to `f`, a plain
/// slot, exit. Function `f`: begin, plain slots, a label, exit.
fn generated() -> Vec<u8> {
    [
        slot(0xB1, 1),
        slot(0xA0, 2),
        label(7),
        slot(0x41, 3),
        slot(0xC1, 4),
        slot(0xC8, 5),
        named(0xD3, "f"),
        slot(0xA4, 6),
        exit(),
        named(0xD1, "f"),
        slot(0x46, 8),
        label(9),
        slot(0x47, 9),
        exit(),
    ]
    .concat()
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
    // MAIN has 9 source slots, 1 label deleted: 8 device slots; f has 5, 1 deleted: 4.
    assert_eq!((img.eib.core.size, img.functions.size), (8 * 64, 4 * 64));
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
    // The call is now a relative branch to f's entry; the exits branch to the POSTAMBLE.
    let call_at = (img.eib.core.offset + 5 * 64) as usize;
    assert_eq!(img.bytes[call_at], 0xA9);
    let rel = i32::from_le_bytes(
        img.bytes[call_at + 0x30..call_at + 0x34]
            .try_into()
            .unwrap(),
    );
    assert_eq!(call_at as i64 + i64::from(rel), img.functions.offset as i64);
    let exit_at = (img.eib.core.offset + 7 * 64) as usize;
    let rel = i32::from_le_bytes(
        img.bytes[exit_at + 0x30..exit_at + 0x34]
            .try_into()
            .unwrap(),
    );
    assert_eq!(exit_at as i64 + i64::from(rel), img.postamble.offset as i64);
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
    // Function IPs continue after MAIN's: slot 13 (0x47) is NEFF IP 13.
    let r = e
        .ipmap
        .device_range(neff_load::ipmap::NeffIp(13))
        .unwrap()
        .unwrap();
    assert_eq!(r.section, PatchSection::Funcation);
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
    let model = load(&[(EngineType::Act, &src)], &opts).unwrap();
    let e = model.subgraphs[0].engine(EngineType::Act).unwrap();
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
    let mut asm = Assembly::default();
    asm.labels.insert((0, 7), 3 << 30);
    asm.branches.push((0, 0, 7));
    let mut buf = vec![0u8; 64];
    let err = resolve_labels(EngineType::Pe, &mut buf, &asm).unwrap_err();
    assert!(matches!(err, LoadError::BranchOutOfReach { .. }), "{err}");
}

#[test]
fn image_larger_than_the_device_model_is_an_error() {
    let src: Vec<u8> = (0..4096).flat_map(|i| slot(0xA0, i)).collect();
    let opts = LoadOptions {
        hbm_size: 0x10000,
        ..LoadOptions::default()
    };
    let err = load(&[(EngineType::Dve, &src)], &opts).unwrap_err();
    assert!(matches!(err, LoadError::OutOfDeviceMemory { .. }), "{err}");
}
