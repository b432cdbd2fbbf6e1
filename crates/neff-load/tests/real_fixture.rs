//! The independent checker on real inputs, with lowering on: the spec sample (and its spec 000 §9
//! walk-through), the real trn2 fixture (both subgraphs; skipped with a message when absent
//! unless NEFFKIT_REQUIRE_FIXTURES=1) and generated NEFFs (neff-synth: functions, calls,
//! labels and label branches, collectives, DMA triggers).

mod common;

use neff_container::Neff;
use neff_isa::EngineType;
use neff_kelf::Kelf;
use neff_load::DeviceAddr;
use neff_load::ipmap::NeffIp;
use neff_load::model::{LoadOptions, LoadedModel, load};
use neff_lower::patch::PatchSection;
use neff_lower::{EncOpClass, ResolvedTensor};
use neff_synth::{SynthOptions, SynthTarget};

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sample.neff");
const REAL: &str = neff_fixtures::MATMUL_SMALL;

/// Loads a NEFF's bytes and runs the checker on every engine of every subgraph; also asserts no
/// pseudo-instruction survives in any image. Returns (model, slots checked).
fn check_bytes(bytes: &[u8]) -> (LoadedModel, usize) {
    let neff = Neff::parse(bytes).unwrap();
    let kelf = Kelf::from_neff(&neff).unwrap();
    let model = load(&kelf, &LoadOptions::default()).unwrap();
    let kbins = kelf.kbins().unwrap();
    let mut checked = 0;
    for (sg, kbin) in model.subgraphs.iter().zip(&kbins) {
        for slot in &kbin.engines {
            let e = sg.engine(slot.eng_type).unwrap();
            checked += common::check_engine(slot.instr, e);
            let pseudo = e
                .image
                .bytes
                .chunks_exact(64)
                .position(|r| (0xC1..=0xDF).contains(&r[0]));
            assert_eq!(
                pseudo, None,
                "{} {:?}: pseudo in the image",
                sg.name, e.engine
            );
        }
    }
    (model, checked)
}

fn check_file(path: &str) -> usize {
    check_bytes(&std::fs::read(path).unwrap()).1
}

#[test]
fn checker_on_the_spec_sample() {
    // pool.bin slot 3 (0xA0 EVENT_SEMAPHORE) is the sample's one plain slot (spec 000 §9).
    assert_eq!(check_file(SAMPLE), 1);
}

#[test]
fn sample_walk_through_with_lowering() {
    // spec 000 §9 on examples/sample.neff, lowering on.
    let (model, _) = check_bytes(&std::fs::read(SAMPLE).unwrap());
    let sg = &model.subgraphs[0];
    let pe = sg.engine(EngineType::Pe).unwrap();
    let img = &pe.image;
    // pe's 0xC8: one trigger record (decision D51), a WRITE with the slot's events, and its op
    // list: ALL_REDUCE ADD of 32 fp32.
    assert_eq!(img.eib.core.size, 64);
    let at = img.eib.core.offset as usize;
    assert_eq!(
        &img.bytes[at..at + 8],
        &[0xA5, 0x10, 0, 0, 0x04, 0x0A, 0x13, 0x16]
    );
    let op = &pe.op_lists[0].ops[0];
    assert_eq!(
        (op.class, op.reduce, op.num_elements, op.elem_size),
        (EncOpClass::AllReduce, Some(0), 32, 4)
    );
    // Tensor ids 3 and 4 resolve to gradient_in / gradient_out, one mem ref each (D285).
    assert_eq!(
        (&op.input, &op.output),
        (&ResolvedTensor::Single(3), &ResolvedTensor::Single(4))
    );
    // A device PC inside the trigger record is NEFF IP 1, in MAIN.
    let hit = pe
        .ipmap
        .neff_ip(DeviceAddr(pe.ib_addrs.base + img.eib.core.offset + 8))
        .unwrap();
    assert_eq!((hit.neff_ip, hit.section), (NeffIp(1), PatchSection::Main));
    // pool's two 0xC1 are WRITEs (0xA5); its 0xA0 is unchanged; no rows in MAIN (all 1 -> 1).
    let pool = sg.engine(EngineType::Pool).unwrap();
    let core = pool.image.eib.core.offset as usize;
    let ops: Vec<u8> = (0..3).map(|k| pool.image.bytes[core + 64 * k]).collect();
    assert_eq!(ops, [0xA5, 0xA5, 0xA0]);
    assert!(
        pool.image
            .patches
            .locations()
            .iter()
            .all(|p| p.section != PatchSection::Main)
    );
}

#[test]
fn checker_on_generated_neffs() {
    // Two subgraphs with two functions each, both generations: every pass-through slot found.
    for (seed, target) in [(1, SynthTarget::Sunda), (2, SynthTarget::Cayman)] {
        let opts = SynthOptions {
            subgraphs: 2,
            slots_per_engine: 400,
            functions: 2,
            seed,
            target,
        };
        let bytes = neff_synth::generate(&opts).unwrap();
        let (model, checked) = check_bytes(&bytes);
        assert!(checked > 1000, "{checked}");
        let engines = || model.subgraphs.iter().flat_map(|sg| &sg.engines);
        assert!(
            engines().map(|e| e.op_lists.len()).sum::<usize>() > 0,
            "collectives lowered"
        );
        let e = model.subgraphs[0].engine(EngineType::Pe).unwrap();
        assert!(e.image.functions.size > 0, "functions assembled");
        assert!(
            e.image
                .patches
                .locations()
                .iter()
                .any(|p| p.section == PatchSection::Function)
        );
    }
}

/// The real fixture's bytes, or `None` (skipped, see [`neff_fixtures::read`]).
fn real_fixture() -> Option<Vec<u8>> {
    neff_fixtures::read(REAL)
}

#[test]
fn checker_on_the_real_fixture_both_subgraphs() {
    let Some(bytes) = real_fixture() else { return };
    assert!(check_bytes(&bytes).1 > 10);
}

#[test]
fn real_fixture_descriptors_move_whole_vars() {
    // reference §3.2: x (65536 B) is read whole by each subgraph's Pool DIRECT2Ds; the lnc-2
    // halves write output0 (32768 B) half each, casting 32768 source bytes to 16384 each.
    let Some(bytes) = real_fixture() else { return };
    let neff = Neff::parse(&bytes).unwrap();
    let kelf = Kelf::from_neff(&neff).unwrap();
    let model = load(&kelf, &LoadOptions::default()).unwrap();
    let kbins = kelf.kbins().unwrap();
    let mut written_to_output = 0;
    for (sg, k) in model.subgraphs.iter().zip(&kbins) {
        let var = |name: &str| k.mem_ref_named(name).unwrap().var_id;
        let descs: Vec<_> = sg.engines.iter().flat_map(|e| &e.descriptors).collect();
        let read_x: u64 = descs
            .iter()
            .filter(|d| d.src.var_id == var("x"))
            .map(|d| d.src.bytes())
            .sum();
        assert_eq!(read_x, 65536, "{}", sg.name);
        let out: Vec<_> = descs
            .iter()
            .filter(|d| d.dst.var_id == var("output0"))
            .collect();
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].src.bytes(), out[0].dst.bytes()), (32768, 16384));
        written_to_output += out[0].dst.bytes();
    }
    assert_eq!(written_to_output, 32768);
}
