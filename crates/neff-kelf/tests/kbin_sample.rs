//! gen_kbin over the spec's sg00 sample (spec 000 §9, spec 003 §7, spec 004 §2).

mod common;

use neff_kelf::{EngineType, KbinDtype, Kelf, Target, VarType, gen_kbin};
use serde_json::Value;

#[test]
fn engine_slots_are_alphabetical_and_keep_their_eng_type() {
    let m = common::sample();
    let kelf = Kelf::from_members(&m).unwrap();
    let kbin = gen_kbin(&kelf, "sg00").unwrap();
    let slots: Vec<(usize, &str, u8, u32)> = kbin
        .engines
        .iter()
        .map(|s| (s.slot, s.name.as_str(), s.eng_type as u8, s.ninstr))
        .collect();
    // spec 004 §2 GOTCHA: slots 0..4 = act, dve, pe, pool, sp; eng_types 1, 3, 0, 2, 4.
    assert_eq!(
        slots,
        [
            (0, "act", 1, 0),
            (1, "dve", 3, 0),
            (2, "pe", 0, 1),
            (3, "pool", 2, 3),
            (4, "sp", 4, 0)
        ]
    );
    let pe = kbin.engine(EngineType::Pe).unwrap();
    assert_eq!(
        (pe.size, pe.instr, pe.member.as_str()),
        (64, &common::PE_BIN[..], "sg00/pe.bin")
    );
    assert_eq!(pe.record(0).unwrap()[0], 0xc8);
    assert_eq!(kbin.engine_by_name("Pool").unwrap().size, 192);
    // The stage-side invariant: the last slot is SP.
    assert_eq!(kbin.engines.last().unwrap().eng_type, EngineType::Sp);
    assert_eq!(kbin.target, Target::Sunda);
    assert!(kbin.warnings.is_empty(), "{:?}", kbin.warnings);
}

#[test]
fn dma_queues_rings_and_trigger_lookup() {
    let m = common::sample();
    let kelf = Kelf::from_members(&m).unwrap();
    let kbin = gen_kbin(&kelf, "sg00").unwrap();
    let queues = common::queue_rows(&kbin);
    assert_eq!(
        queues,
        [
            ("q_gradient_in", Some(EngineType::Pool), "in", vec![10], 1),
            ("q_gradient_out", Some(EngineType::Pool), "out", vec![11], 1),
        ]
    );
    // pool.bin slot 0: PSEUDO_DMA_TRIGGER q_gradient_in block_id=0 (spec 003 §7.2).
    let t = kbin.dma_trigger("q_gradient_in", 0).unwrap();
    assert_eq!(
        (t.queue_index, t.ring_index, t.ring.name.as_str()),
        (0, 0, "q_gradient_in")
    );
    assert_eq!(
        (t.block.engine, t.block.semaphore, t.block.ndesc),
        (EngineType::Pool, Some(10), 1)
    );
    let d = &t.ring.descs[t.block.first_desc];
    assert_eq!((d.from_var_id, d.to_var_id), (Some(0), Some(3)));
    assert_eq!(d.from_dtype, Some(KbinDtype::Float32));
    assert_eq!(t.block.at.to_string(), "sg00/pool.json#/dma/0");
    let t = kbin.dma_trigger("q_gradient_out", 0).unwrap();
    assert_eq!(t.ring.descs[0].to_var_id, Some(2));
    assert!(kbin.dma_trigger("q_gradient_out", 1).is_none());
    assert!(kbin.dma_trigger("nope", 0).is_none());
}

#[test]
fn mem_refs_are_indexed_by_var_id() {
    let m = common::sample();
    let kelf = Kelf::from_members(&m).unwrap();
    let kbin = gen_kbin(&kelf, "sg00").unwrap();
    let refs: Vec<(u32, &str, VarType, u64)> = kbin
        .mem_refs
        .iter()
        .map(|r| (r.var_id, r.name.as_str(), r.ty, r.size))
        .collect();
    assert_eq!(
        refs,
        [
            (0, "input", VarType::Input, 128),
            (1, "SB", VarType::StateBuffer, 0),
            (2, "output", VarType::Output, 128),
            (3, "gradient_in", VarType::TmpBuf, 128),
            (4, "gradient_out", VarType::TmpBuf, 128),
        ]
    );
    assert_eq!(kbin.mem_ref(3).unwrap().name, "gradient_in");
    assert_eq!(kbin.mem_ref_named("output").unwrap().var_id, 2);
}

#[test]
fn inline_members_of_the_sample() {
    let m = common::sample();
    let kelf = Kelf::from_members(&m).unwrap();
    let kbin = gen_kbin(&kelf, "sg00").unwrap();
    // replica_groups = [[]]: one trivial group, group_id 0 (spec 003 §7.1).
    assert_eq!(kbin.replica_group(0), Some(&[][..]));
    assert_eq!(kbin.replica_group(1), None);
    // cc_streams absent -> construct_kbin's seed, 1.
    assert_eq!(kbin.cc_num_streams, 1);
    assert!(kbin.act_function_sets.is_none() && kbin.fp8_conversion_config.is_none());
    let all = kelf.kbins().unwrap();
    assert_eq!(all.len(), 1);
    assert_eq!(all[0], kbin);
}

#[test]
fn every_manifest_writes_back_value_equal() {
    let m = common::sample();
    let kelf = Kelf::from_members(&m).unwrap();
    let json = |member: &str| serde_json::from_slice::<Value>(&m[member]).unwrap();
    assert_eq!(kelf.descriptor.to_value(), json("kelf-a.json"));
    let g = &kelf.graphs()[0];
    assert_eq!(g.def.to_value(), json("sg00/def.json"));
    for p in &g.engines {
        let member = p.json_member.as_deref().unwrap();
        assert_eq!(
            p.json.as_ref().unwrap().to_value(),
            json(member),
            "{member}"
        );
    }
}

#[test]
fn trailing_bytes_are_copied_but_not_counted_with_a_warning() {
    let mut m = common::sample();
    m.get_mut("sg00/pe.bin")
        .unwrap()
        .extend_from_slice(&[0xAA; 10]);
    let kelf = Kelf::from_members(&m).unwrap();
    let kbin = gen_kbin(&kelf, "sg00").unwrap();
    let pe = kbin.engine(EngineType::Pe).unwrap();
    assert_eq!((pe.ninstr, pe.size, pe.instr.len()), (1, 74, 74));
    assert_eq!(kbin.warnings.len(), 1);
    assert!(kbin.warnings[0].starts_with("sg00/pe.bin: 74 bytes is not a multiple of 64"));
}

#[test]
fn instr_falls_back_to_def_json_eng_instr() {
    let mut m = common::sample();
    common::edit(&mut m, "sg00/def.json", |t| {
        t.replace(r#""sp":"sp.json","#, r#""sp_instr":"sp.bin","#)
    });
    let kelf = Kelf::from_members(&m).unwrap();
    let sp = kelf.graphs()[0].engine(EngineType::Sp).unwrap();
    assert_eq!(
        (sp.json.is_none(), sp.instr_member.as_str()),
        (true, "sg00/sp.bin")
    );
    assert_eq!(sp.instr_named_at.to_string(), "sg00/def.json#/sp_instr");
}

#[test]
fn a_remote_variable_binds_to_the_other_subgraph() {
    let mut m = common::sample();
    common::edit(&mut m, "kelf-a.json", |t| {
        t.replace(
            r#"}]}"#,
            r#"},{"name":"sg01","definition":"sg01/def.json"}]}"#,
        )
    });
    let sg0: Vec<(String, Vec<u8>)> = m
        .iter()
        .filter(|(k, _)| k.starts_with("sg00/"))
        .map(|(k, v)| (k.replacen("sg00", "sg01", 1), v.clone()))
        .collect();
    m.extend(sg0);
    common::edit(&mut m, "sg00/def.json", |t| {
        t.replace(r#""replica_groups""#, r#""remote":1,"replica_groups""#).replace(
            r#""gradient_out":{"type":"tmp-buf","var_id":4,"size":128}"#,
            r#""gradient_out":{"type":"tmp-buf","var_id":4,"size":128},"output_sg1":{"type":"remote-variable","var_id":5,"size":128}"#,
        )
    });
    let kelf = Kelf::from_members(&m).unwrap();
    let kbins = kelf.kbins().unwrap();
    let names: Vec<&str> = kbins.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["sg00", "sg01"]);
    let b = kbins[0].mem_ref(5).unwrap().remote.clone().unwrap();
    assert_eq!(
        (
            b.subgraph,
            b.subgraph_name.as_str(),
            b.var_id,
            b.name.as_str()
        ),
        (1, "sg01", 2, "output")
    );
    // Unknown keys ("remote") survive the write-back.
    let g = &kelf.graphs()[0];
    assert_eq!(g.def.extra.get("remote"), Some(&Value::from(1)));
    // A remote var naming a subgraph that does not exist fails with the runtime's message.
    common::edit(&mut m, "sg00/def.json", |t| {
        t.replace("output_sg1", "output_sg7")
    });
    let kelf = Kelf::from_members(&m).unwrap();
    let e = kelf.kbins().unwrap_err().to_string();
    assert!(
        e.starts_with(
            "Failed to resolve remote variables for subgraphs 0 to 1: `output_sg7` in sg00"
        ),
        "{e}"
    );
}
