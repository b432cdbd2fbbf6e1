//! The arch gate (spec 001 contract and §1; decision D288): v2 and v3 demuxes, the v3 pseudo set,
//! the SUNDA -> CAYMAN down-translation, and the real trn2 fixtures through the v3 demux.

mod common;

use common::{collective, dma_trigger, resources, slot};
use neff_isa::EngineType;
use neff_isa::SlotBuf;
use neff_isa::payload::{DgeOp, DmaDirect2dMut};
use neff_kelf::Target;
use neff_load::device_model::DeviceModel;
use neff_lower::{
    ArchGate, Demux, LowerContext, LowerErrorKind, LowerResources, LoweredStream, lower_stream,
};

fn lower_on(
    arch: u32,
    device: Option<Target>,
    cc_top: bool,
    stream: &[u8],
) -> Result<LoweredStream<'_>, LowerErrorKind> {
    let res = LowerResources {
        arch,
        ..resources()
    };
    let dev = DeviceModel {
        arch: device,
        ..DeviceModel::default()
    };
    let mut ctx = LowerContext::new(&res, &dev, "sg00");
    ctx.ccop_owner = cc_top;
    lower_stream(&ctx, EngineType::Pool, stream).map_err(|e| e.kind)
}

#[test]
fn the_device_generation_picks_the_demux() {
    let gate = |arch, device| ArchGate::new(arch, device);
    assert_eq!(gate(2, None).unwrap().demux, Demux::V2);
    assert_eq!(gate(3, None).unwrap().demux, Demux::V3);
    assert_eq!(gate(4, None).unwrap().demux, Demux::V3);
    // A sunda NEFF on a cayman / mariana device: v3, down-translated.
    for dev in [Target::Cayman, Target::Mariana] {
        let g = gate(2, Some(dev)).unwrap();
        assert_eq!((g.demux, g.down_translates()), (Demux::V3, true));
    }
    assert!(!gate(3, None).unwrap().down_translates());
    assert!(!gate(3, Some(Target::Mariana)).unwrap().down_translates());
    // No demux for other arch numbers; no up-translation.
    for arch in [0, 1, 5] {
        assert_eq!(gate(arch, None), Err(LowerErrorKind::UnknownArch { arch }));
    }
    assert_eq!(
        gate(3, Some(Target::Sunda)),
        Err(LowerErrorKind::TargetNewerThanDevice {
            target: "cayman",
            device: "sunda"
        })
    );
    let e = lower_on(4, Some(Target::Cayman), true, &dma_trigger("q0", 1)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "a mariana NEFF cannot be lowered for a cayman device: only sunda input is down-translated (spec 001 §1)"
    );
}

#[test]
fn jpeg_decode_is_v3_and_cc_top_only_and_has_no_recipe() {
    let jpeg = slot(0xD7, 0);
    let v2 = lower_on(2, None, true, &jpeg).unwrap_err();
    assert_eq!(
        v2.to_string(),
        "PSEUDO_JPEG_DECODE is unsupported on this generation (sunda, arch 2): a v3 \
         (cayman/mariana) pseudo the v2 demux has no arm for"
    );
    let v3 = lower_on(3, None, true, &jpeg).unwrap_err();
    assert_eq!(
        v3.to_string(),
        "PSEUDO_JPEG_DECODE is unsupported on this generation (cayman, arch 3): the v3 demux \
         recognises it but spec 001 gives no recipe"
    );
    let not_top = lower_on(4, None, false, &jpeg).unwrap_err();
    assert!(
        not_top
            .to_string()
            .ends_with("on the CC-top core (device_tpb_idx 0) only"),
        "{not_top}"
    );
}

/// A DIRECT2D with `dge_op`, followed by the continuation it requires (decision D155).
fn dge(op: DgeOp) -> Vec<u8> {
    let mut d = SlotBuf::from(slot(0xD4, 0));
    DmaDirect2dMut(&mut d).dge_op(op);
    let mut ext = [0u8; 64];
    ext[0] = 0xDA;
    [*d.bytes(), ext].concat()
}

#[test]
fn the_dge_transpose_family_is_v3_and_has_no_recipe() {
    for op in [DgeOp::Transpose, DgeOp::GatherTranspose] {
        for (arch, device, why) in [
            (2, "sunda, arch 2", "the v2 demux has no arm"),
            (3, "cayman, arch 3", "spec 001 gives no recipe"),
        ] {
            let e = lower_on(arch, None, true, &dge(op)).unwrap_err();
            let text = e.to_string();
            assert!(
                matches!(
                    e,
                    LowerErrorKind::UnsupportedOnGeneration { opcode: 0xD4, .. }
                ),
                "{e:?}"
            );
            assert!(
                text.contains("DGE transpose family") && text.contains(device),
                "{text}"
            );
            assert!(text.contains(why), "{text}");
        }
    }
}

#[test]
fn down_translation_keeps_the_bytes_and_reads_the_device_arch() {
    // SUNDA input through the v3 demux lowers to the bytes the v2 demux gives (decision D288).
    let stream = [dma_trigger("q0", 1), collective(2), slot(0xA0, 3)].concat();
    let v2 = lower_on(2, None, true, &stream).unwrap();
    let v3 = lower_on(2, Some(Target::Cayman), true, &stream).unwrap();
    assert_eq!(v2.bytes, v3.bytes);
    assert_eq!(v2.block.patches, v3.block.patches);
    // The PTC2 priority follows the device: read on the cayman device, not on sunda.
    let mut ptc2 = vec![0u8; 128];
    ptc2[..8].copy_from_slice(&[0xD9, 0x10, 0, 0, 0, 0, 0x13, 0x05]);
    ptc2[0x0C] = 0x04;
    ptc2[0x0D] = 0x0A;
    for (at, var) in [(0x10, 3u8), (0x18, 0), (0x20, 4)] {
        ptc2[at + 4] = var;
        ptc2[at + 7] = 0x10;
    }
    ptc2[0x28] = 8;
    ptc2[0x30] = 1;
    ptc2[64] = 0xDA;
    ptc2[64 + 1] = 0x10;
    ptc2[64 + 41] = 6;
    let prio =
        |device| lower_on(2, device, true, &ptc2).unwrap().block.op_lists[0].ops[0].dma_priority;
    assert_eq!(prio(None), None);
    assert_eq!(prio(Some(Target::Cayman)), Some(6));
}

#[test]
fn real_trn2_fixtures_lower_through_the_v3_demux() {
    use neff_container::Neff;
    use neff_kelf::Kelf;
    use neff_load::model::{LoadOptions, load};
    for name in ["matmul_small", "attn_v6", "moe_v6b"] {
        let path = format!("{}/{name}.neff", neff_fixtures::REAL_DIR);
        let Some(bytes) = neff_fixtures::read(&path) else {
            continue;
        };
        let neff = Neff::parse(&bytes).unwrap();
        let kelf = Kelf::from_neff(&neff).unwrap();
        assert_eq!(kelf.target, Target::Cayman);
        for k in kelf.kbins().unwrap() {
            let gate = ArchGate::new(k.target.arch(), None).unwrap();
            assert_eq!(gate.demux, Demux::V3, "{name}");
        }
        let model = load(&kelf, &LoadOptions::default());
        assert!(model.is_ok(), "{name}: {:?}", model.err());
    }
}

/// README's list of the pseudo-instructions lowering refuses (issue 15 item 8): the paragraph
/// that starts "Pseudo-instructions that spec 001 gives no recipe for" names exactly the opcodes
/// both demuxes refuse for want of a recipe, so the claim cannot drift from the code.
#[test]
fn readme_lists_exactly_the_pseudos_without_a_recipe() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README.md");
    let start = readme
        .find("Pseudo-instructions that spec 001 gives no recipe for")
        .expect("README lists the unsupported pseudos");
    let paragraph = readme[start..].split("\n\n").next().unwrap();
    let listed: std::collections::BTreeSet<&str> = paragraph
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("PSEUDO_") && *w != "PSEUDO_DMA_DIRECT2D")
        .collect();
    assert!(
        paragraph.contains("PSEUDO_DMA_DIRECT2D` in its DGE transpose forms"),
        "{paragraph}"
    );
    for arch in [2, 3] {
        let refused: std::collections::BTreeSet<&str> = neff_isa::OPCODES
            .iter()
            .filter(|info| info.is_pseudo())
            .filter(|info| {
                matches!(
                    lower_on(arch, None, true, &slot(info.value, 0)),
                    Err(LowerErrorKind::Unsupported { .. }
                        | LowerErrorKind::UnsupportedOnGeneration { .. })
                )
            })
            .map(|info| info.mnemonic)
            .collect();
        assert_eq!(listed, refused, "arch {arch}");
    }
}
