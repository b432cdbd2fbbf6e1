//! The real trn2 NEFF (reference §3.2, nkipy matmul_small): both subgraphs, every var and queue,
//! and every manifest written back value-equal.

mod common;

use neff_container::Neff;
use neff_kelf::{EngineType, Kelf, Target, VarType};
use serde_json::Value;

/// The fixture's bytes, or None (with a message) when it is absent and not required.
fn fixture() -> Option<Vec<u8>> {
    neff_fixtures::read(neff_fixtures::MATMUL_SMALL)
}

#[test]
fn both_subgraphs_with_every_engine_var_and_queue() {
    let Some(bytes) = fixture() else { return };
    let neff = Neff::parse(&bytes).unwrap();
    let kelf = Kelf::from_neff(&neff).unwrap();
    assert_eq!(kelf.descriptor_member, "kelf-0.json");
    assert_eq!((kelf.target, kelf.target.arch()), (Target::Cayman, 3));
    let kbins = kelf.kbins().unwrap();
    let names: Vec<&str> = kbins.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["sg00", "sg01"]);
    for k in &kbins {
        // reference §4.3: Activation 320 B, DVE 128, PE 768, Pool 448 (sg00), SP 192.
        let slots: Vec<(&str, EngineType, u32)> = k
            .engines
            .iter()
            .map(|s| (s.name.as_str(), s.eng_type, s.ninstr))
            .collect();
        let pool = if k.name == "sg00" {
            7
        } else {
            k.engine(EngineType::Pool).unwrap().ninstr
        };
        assert_eq!(
            slots,
            [
                ("act", EngineType::Act, 5),
                ("dve", EngineType::Dve, 2),
                ("pe", EngineType::Pe, 12),
                ("pool", EngineType::Pool, pool),
                ("sp", EngineType::Sp, 3),
            ]
        );
        assert_eq!(
            k.engine(EngineType::Pe).unwrap().member,
            format!("{}/PE.bin", k.name)
        );
        // Every slot starts with SET_ORDERING_MODE (reference §4.1).
        assert!(k.engines.iter().all(|s| s.instr[0] == 0xb1));
        let vars: Vec<(u32, &str, VarType, u64)> = k
            .mem_refs
            .iter()
            .map(|m| (m.var_id, m.name.as_str(), m.ty, m.size))
            .collect();
        assert_eq!(
            vars,
            [
                (0, "SB", VarType::StateBuffer, 0),
                (1, "x", VarType::Input, 65536),
                (2, "y", VarType::Input, 65536),
                (3, "output0", VarType::Output, 32768),
                (4, "identity_82_sg0000", VarType::File, 32768),
                (5, "DGETable0", VarType::DgeTable, 0),
            ]
        );
        assert_eq!(
            k.mem_ref(5).unwrap().var.list.as_deref(),
            Some(&[1, 2, 3][..])
        );
        let queues = common::queue_rows(k);
        assert_eq!(
            queues,
            [
                (
                    "qPoolDynamic",
                    Some(EngineType::Pool),
                    "dynamic",
                    (24..40).collect(),
                    0
                ),
                (
                    "qSPDynamicHW",
                    Some(EngineType::Sp),
                    "dynamic",
                    (8..24).collect(),
                    0
                ),
            ]
        );
        let d2d = k.direct2d("qSPDynamicHW").unwrap();
        assert_eq!(d2d.dge_table.map(|m| m.name.as_str()), Some("DGETable0"));
        let act = k.act_function_sets.as_ref().unwrap();
        assert_eq!(
            (act.sets.as_slice(), act.semaphore),
            (&["exp_and_others".to_owned()][..], Some(12))
        );
        assert_eq!(k.dve_tables[0].tables().len(), 4);
        assert_eq!(k.sb_carveouts[0].offset, Some(229368));
        assert_eq!(
            k.fp8_conversion_config.as_ref().unwrap().emax_fp8_e5m2,
            Some(15)
        );
        assert_eq!(k.cc_num_streams, 0);
        assert!(k.warnings.is_empty(), "{:?}", k.warnings);
    }
}

#[test]
fn every_manifest_re_serializes_value_equal() {
    let Some(bytes) = fixture() else { return };
    let neff = Neff::parse(&bytes).unwrap();
    let kelf = Kelf::from_neff(&neff).unwrap();
    let original = |m: &str| serde_json::from_slice::<Value>(neff.member(m).unwrap()).unwrap();
    let check = |member: &str, v: Value| {
        assert_eq!(v, original(member), "{member}");
        // to_string -> parse is the same value again.
        let again: Value = serde_json::from_str(&v.to_string()).unwrap();
        assert_eq!(again, v, "{member}");
    };
    check("kelf-0.json", kelf.descriptor.to_value());
    let mut checked = 1;
    for g in kelf.graphs() {
        check(&g.def_member, g.def.to_value());
        checked += 1;
        for p in &g.engines {
            check(
                p.json_member.as_deref().unwrap(),
                p.json.as_ref().unwrap().to_value(),
            );
            checked += 1;
        }
    }
    assert_eq!(checked, 1 + 2 * 6);
    // And re-parsing the written-back def.json gives the same typed value.
    let g = &kelf.graphs()[0];
    let text = g.def.to_value().to_string();
    assert_eq!(
        neff_kelf::DefJson::parse(&g.def_member, text.as_bytes()).unwrap(),
        g.def
    );
}
