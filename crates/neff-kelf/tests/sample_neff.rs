//! examples/sample.neff (the spec's sg00 sample, written by the container's generator) through
//! neff-container -> Kelf -> gen_kbin.

use neff_container::Neff;
use neff_kelf::{EngineType, Kelf, Target, VarType, gen_kbin};

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sample.neff");

#[test]
fn sample_neff_kbin_matches_spec_000_9() {
    let bytes = std::fs::read(SAMPLE).expect("examples/sample.neff is committed");
    let neff = Neff::parse(&bytes).unwrap();
    let kelf = Kelf::from_neff(&neff).unwrap();
    assert_eq!(kelf.descriptor_member, "kelf-a.json");
    let kbin = gen_kbin(&kelf, "sg00").unwrap();
    let slots: Vec<(&str, u8, u32, u32)> = kbin
        .engines
        .iter()
        .map(|s| (s.name.as_str(), s.eng_type as u8, s.ninstr, s.size))
        .collect();
    assert_eq!(
        slots,
        [
            ("act", 1, 0, 0),
            ("dve", 3, 0, 0),
            ("pe", 0, 1, 64),
            ("pool", 2, 3, 192),
            ("sp", 4, 0, 0)
        ]
    );
    assert_eq!(kbin.engine(EngineType::Pe).unwrap().instr[0], 0xc8);
    assert_eq!(kbin.target, Target::Sunda);
    let q: Vec<(&str, Vec<u32>)> = kbin
        .dma_queues
        .iter()
        .map(|q| (q.name.as_str(), q.semaphores.clone()))
        .collect();
    assert_eq!(
        q,
        [("q_gradient_in", vec![10]), ("q_gradient_out", vec![11])]
    );
    assert!(kbin.dma_trigger("q_gradient_in", 0).is_some());
    assert!(kbin.dma_trigger("q_gradient_out", 0).is_some());
    let vars: Vec<(u32, &str, VarType)> = kbin
        .mem_refs
        .iter()
        .map(|m| (m.var_id, m.name.as_str(), m.ty))
        .collect();
    assert_eq!(
        vars,
        [
            (0, "input", VarType::Input),
            (1, "SB", VarType::StateBuffer),
            (2, "output", VarType::Output),
            (3, "gradient_in", VarType::TmpBuf),
            (4, "gradient_out", VarType::TmpBuf),
        ]
    );
    assert_eq!(kbin.replica_group(0), Some(&[][..]));
    assert!(kbin.warnings.is_empty());
}

#[test]
fn sample_descriptors_move_their_128_byte_vars() {
    // spec 000 §9: each queue copies one 128-byte var (`from_sizes: [128]`, innermost in bytes).
    let bytes = std::fs::read(SAMPLE).expect("examples/sample.neff is committed");
    let neff = Neff::parse(&bytes).unwrap();
    let kelf = Kelf::from_neff(&neff).unwrap();
    let kbin = gen_kbin(&kelf, "sg00").unwrap();
    for q in &kbin.dma_queues {
        let moved: Vec<Option<u64>> = q
            .rings
            .iter()
            .flat_map(|r| &r.descs)
            .map(|d| d.desc.bytes())
            .collect();
        assert_eq!(moved, [Some(128)], "{}", q.name);
    }
}
