//! The debug info of every real fixture (../shared/fixtures/real, read in place): each member
//! decodes and writes back byte-exact, one asm record per slot, and hand-read slots pinned.

use neff_container::Neff;
use neff_debug::{DebugInfo, Layer, Source};
use neff_fixtures::{ATTN_V6, MATMUL_SMALL, MOE_V6B, REAL_NEFFS as FIXTURES};
use neff_isa::EngineType;
use prost::Message;

/// The bytes of the real fixture at `path`, or None (with a message) when it is absent and not
/// required.
fn fixture(path: &str) -> Option<Vec<u8>> {
    neff_fixtures::read(path)
}

/// Runs `f` on the loaded debug info of the fixture at `name` (skipped when absent).
fn with_debug(name: &str, f: impl FnOnce(&Neff<'_>, &DebugInfo)) {
    let Some(bytes) = fixture(name) else { return };
    let neff = Neff::parse(&bytes).unwrap();
    let info = DebugInfo::load(&neff);
    f(&neff, &info);
}

#[test]
fn every_fixture_loads_without_warnings() {
    for name in FIXTURES {
        with_debug(name, |_, info| {
            assert_eq!(info.warnings, [], "{name}");
            assert_eq!(info.graphs.len(), 2, "{name}: sg00 and sg01");
            // Penguin, HLO (absent in the profiled ones), framework and stack-frame layers.
            assert!(!info.module.is_empty(), "{name}");
        });
    }
}

#[test]
fn asm_debug_info_has_one_record_per_slot() {
    for name in FIXTURES {
        with_debug(name, |neff, info| {
            let mut mapped = 0;
            for g in &info.graphs {
                for e in EngineType::ALL {
                    let member = format!("{}/{}.bin", g.name, e.real_file_stem());
                    let slots = neff.member(&member).unwrap().len() / 64;
                    let asm = g.asm(e).unwrap();
                    assert_eq!(asm.len(), slots, "{name} {member}");
                    // The slot map is the whole decode's first parents, record by record (D782).
                    let whole = Layer::decode(&asm.member, neff.member(&asm.member).unwrap());
                    let whole = whole.unwrap();
                    assert_eq!(whole.records().len(), asm.len(), "{name} {}", asm.member);
                    for (i, r) in whole.records().iter().enumerate() {
                        assert_eq!(asm.bir_id(i), r.parents.first().copied(), "{name} {i}");
                    }
                    mapped += (0..asm.len()).filter(|&i| asm.bir_id(i).is_some()).count();
                }
            }
            assert!(mapped > 0, "{name}: no slot names a BIR instruction");
        });
    }
}

#[test]
fn every_member_writes_back_byte_exact() {
    for name in FIXTURES {
        let Some(bytes) = fixture(name) else { return };
        let neff = Neff::parse(&bytes).unwrap();
        let info = DebugInfo::load(&neff);
        // The asm layers as whole files (the load keeps only their slot maps, D782).
        let asm: Vec<Layer> = info
            .graphs
            .iter()
            .flat_map(|g| g.asm.iter().flatten())
            .map(|a| Layer::decode(&a.member, neff.member(&a.member).unwrap()).unwrap())
            .collect();
        assert!(!asm.is_empty(), "{name}");
        let backend = info.graphs.iter().flat_map(|g| &g.backend);
        let layers = asm
            .iter()
            .chain(backend.map(|b| &b.layer))
            .chain(&info.module);
        for l in layers {
            assert_eq!(
                l.file.encode_to_vec(),
                neff.member(&l.member).unwrap(),
                "{name} {}",
                l.member
            );
            assert!(
                l.file.unknown.is_empty(),
                "{name} {}: every field declared",
                l.member
            );
        }
    }
}

fn source(file: &str, line: u64, iters: &[(&str, &str)]) -> Source {
    Source {
        file: file.to_owned(),
        line,
        iters: iters
            .iter()
            .map(|(v, x)| neff_debug::Iteration {
                var: (*v).to_owned(),
                val: (*x).to_owned(),
            })
            .collect(),
    }
}

#[test]
fn matmul_small_pe_slots_read_by_hand() {
    with_debug(MATMUL_SMALL, |_, info| {
        // sg00/debug_info_asm_PE.dbg: records 0 and 1 are empty (SET_ORDERING_MODE, label),
        // record 2 names BIR id 154, record 8 id 117 (sg00/debug_info_backend_PE.dbg).
        for slot in [0, 1] {
            assert!(info.slot("sg00", EngineType::Pe, slot).bir.is_none());
        }
        let s2 = info.slot("sg00", EngineType::Pe, 2);
        assert_eq!(s2.bir.map(|b| (b.id, b.name)), Some((154, "I-87-0-wait-0")));
        assert_eq!(s2.source, None, "no kernel_line on I-87-0-wait-0");
        let s8 = info.slot("sg00", EngineType::Pe, 8);
        assert_eq!(s8.bir.map(|b| (b.id, b.name)), Some((117, "I-72-0")));
        // Penguin 72 -> HLO record 2.
        let hlo = s8.hlo.unwrap();
        assert_eq!(
            (hlo.name, hlo.op_type),
            ("%op0 = dot(%x, %y)", Some("NKIPy_Op"))
        );
        let file = "/home/ubuntu/workplace/spike-async/nkipy/spike/tests/test_spike_async.py";
        assert_eq!(s8.source, Some(source(file, 58, &[])));
        let a4 = info.slot("sg01", EngineType::Act, 4);
        assert_eq!(a4.bir.map(|b| b.name), Some("I-89-0-tc-act"));
    });
}

const MOE_FILE: &str = "/home/ubuntu/nki-moe/kernels/moe_tkg/agents/v6b_1_coalesce_down_dma.py";

#[test]
fn moe_v6b_pe_slot_3_is_inst_186_line_205_in_four_loops() {
    with_debug(MOE_V6B, |_, info| {
        // asm record 3 -> BIR 8288 "inst.186"; the KLR tree puts inst.186 at line 205 inside
        // t=0, k=0, h_t=0, gu_t=2.
        let s = info.slot("sg00", EngineType::Pe, 3);
        assert_eq!(s.bir.map(|b| (b.id, b.name)), Some((8288, "inst.186")));
        let want = source(
            MOE_FILE,
            205,
            &[("t", "0"), ("k", "0"), ("h_t", "0"), ("gu_t", "2")],
        );
        assert_eq!(s.source, Some(want.clone()));
        // The wait split off it (record 2) has the same line and loops.
        let w = info.slot("sg00", EngineType::Pe, 2);
        assert_eq!(w.bir.map(|b| b.name), Some("inst.186-wait-0"));
        assert_eq!(w.source, Some(want));
        assert_eq!(
            w.hlo.map(|h| h.op_type),
            Some(Some("xla___op_<locals>CallImpl"))
        );
    });
}

/// On the NKI fixtures every slot whose BIR instruction comes from the kernel (its Penguin parent
/// is the kernel's `parent_tensorizer_id`) has a source file and line.
#[test]
fn nki_kernel_slots_all_have_a_source_line() {
    for name in [MOE_V6B, ATTN_V6] {
        with_debug(name, |neff, info| {
            let kernel = info.kernels[0].parent_tensorizer_id.unwrap();
            let (mut from_kernel, mut sourced) = (0, 0);
            for g in &info.graphs {
                for e in EngineType::ALL {
                    let member = format!("{}/{}.bin", g.name, e.real_file_stem());
                    for slot in 0..neff.member(&member).unwrap().len() / 64 {
                        let d = info.slot(&g.name, e, slot);
                        let Some(b) = d.bir else { continue };
                        if b.record.parents.contains(&kernel) {
                            from_kernel += 1;
                            sourced += usize::from(d.source.is_some());
                            assert!(d.source.is_some(), "{name} {member} slot {slot} {}", b.name);
                        }
                    }
                }
            }
            eprintln!("{name}: {sourced} of {from_kernel} kernel slots have a source line");
            assert!(from_kernel > 1000, "{name}: {from_kernel}");
        });
    }
}

#[test]
fn rebuilt_bir_of_every_fixture_verifies() {
    for name in FIXTURES {
        with_debug(name, |_, info| {
            for g in &info.graphs {
                let rebuilt = info.rebuild_bir(&g.name).unwrap();
                let problems = neff_bir::verify(&rebuilt.program);
                assert_eq!(problems, [], "{name} {}", g.name);
                let r = &rebuilt.report;
                let records: usize = g.backend.iter().map(|b| b.layer.records().len()).sum();
                assert_eq!(r.instructions, records, "{name} {}", g.name);
                eprintln!("{name} {r:?}");
            }
        });
    }
}

#[test]
fn matmul_small_rebuilt_bir_read_by_hand() {
    with_debug(MATMUL_SMALL, |_, info| {
        let rebuilt = info.rebuild_bir("sg00").unwrap();
        let p = &rebuilt.program;
        // sg00/debug_info_backend_PE.dbg, record I-87-0 (id 106): field 4 [94, 103] kinds [4, 4]
        // (I-86-0, I-76-0), field 5 [154, 94] kinds [4, 4]: 154 = its wait I-87-0-wait-0.
        let i = p.inst(p.find("I-87-0").unwrap()).unwrap();
        assert_eq!(i.engine.name(), "PE");
        let deps: Vec<(&str, neff_bir::EdgeKind)> = i
            .schedule
            .dependencies
            .as_slice()
            .iter()
            .map(|e| (p.target_name(e.target), e.kind))
            .collect();
        use neff_bir::EdgeKind::Flow;
        assert_eq!(
            deps,
            [("I-86-0", Flow), ("I-76-0", Flow), ("I-87-0-wait-0", Flow)]
        );
        // I-72-1 (id 121): field 4 [117, 100, 138] kinds [1, 4, 4]: the first edge is Ordered.
        let j = p.inst(p.find("I-72-1").unwrap()).unwrap();
        let first = j.schedule.dependencies.as_slice().iter().next().unwrap();
        assert_eq!(
            (p.target_name(first.target), first.kind),
            ("I-72-0", neff_bir::EdgeKind::Ordered)
        );
        assert_eq!(j.schedule.debug.as_ref().unwrap()["debug_info_id"], 121);
        let r = &rebuilt.report;
        assert_eq!(
            (r.instructions, r.dependency_edges, r.sync_edges),
            (15, 14, 5)
        );
    });
}
