//! The runtime model's built-in regions (decision D850): `data/runtime-2.30.51.json` is what
//! the seven shared captures teach, merged in `builtin::TEACHERS` order — learned again here and
//! held against the committed file (`NEFFKIT_BLESS=1` rewrites it) — and a runtime learned from
//! all captures but one loads the one held back as its capture shows (leave one capture out:
//! every stream's length and opcodes, the slots identical and relocated counted).
//!
//! Captures are read in place (skipped when absent unless NEFFKIT_REQUIRE_FIXTURES=1).

use std::path::Path;

use neff_container::Neff;
use neff_kelf::Kelf;
use neff_load::DeviceModel;
use neff_load::model::{LoadOptions, load};
use neff_load::runtime_model::builtin::{TEACHERS, TEXT};
use neff_load::runtime_model::{
    LearnedRuntime, Relocation, captured_streams, compare_engine, learn_capture, saved,
};
use neff_profile::{Capture, ReadLimits};

/// One shared capture and the NEFF it ran.
struct Teacher {
    name: &'static str,
    neff: Vec<u8>,
    capture: Vec<u8>,
}

/// The seven teachers, or `None` when the fixtures are absent.
fn teachers() -> Option<Vec<Teacher>> {
    TEACHERS
        .iter()
        .map(|name| {
            let stem = format!("{}/{name}", neff_fixtures::REAL_DIR);
            let neff = neff_fixtures::read(format!("{stem}.neff"))?;
            let path = format!("{stem}.ntff.gz");
            if !neff_fixtures::present(&path) {
                return None;
            }
            let (_, capture) = neff_profile::input::load(Path::new(&path), &ReadLimits::default())
                .expect("a shared capture reads");
            Some(Teacher {
                name,
                neff,
                capture,
            })
        })
        .collect()
}

impl Teacher {
    fn learn(&self) -> LearnedRuntime {
        let cap = Capture::parse(&self.capture).unwrap();
        let parsed = Neff::parse(&self.neff).unwrap();
        let kelf = Kelf::from_neff(&parsed).unwrap();
        let kbins = kelf.kbins().unwrap();
        learn_capture(&cap, &kbins).unwrap().named(self.name)
    }

    /// The NEFF loaded under `device`, held against the capture: (slots, identical, identical
    /// or relocated), and every stream's length and opcode sequence checked.
    fn compare(&self, device: &DeviceModel) -> (usize, usize, usize) {
        let parsed = Neff::parse(&self.neff).unwrap();
        let kelf = Kelf::from_neff(&parsed).unwrap();
        let options = LoadOptions {
            device: device.clone(),
            ..LoadOptions::default()
        };
        let model = load(&kelf, &options).unwrap();
        let cap = Capture::parse(&self.capture).unwrap();
        let mut totals = (0, 0, 0);
        for sg in &cap.facts.subgraphs {
            let loaded = model.subgraphs.iter().find(|s| s.name == sg.name).unwrap();
            let streams = captured_streams(&cap, sg);
            let reloc = Relocation::between(device, &streams);
            for s in &streams {
                let image = &loaded.engine(s.engine).unwrap().image.bytes;
                let c = compare_engine(image, s, &reloc);
                assert!(
                    c.opcodes_equal,
                    "{} {} {}: {} slots for the capture's {}, or another opcode",
                    self.name, sg.name, s.engine, c.model_slots, c.captured_slots
                );
                totals.0 += c.captured_slots;
                totals.1 += c.identical;
                totals.2 += c.identical + c.relocated;
            }
        }
        totals
    }
}

fn merged(teachers: &[&Teacher]) -> LearnedRuntime {
    LearnedRuntime::merged(teachers.iter().map(|t| t.learn()))
        .unwrap()
        .named("the shared 2.30.51 captures")
}

/// The committed file is what the captures teach.
#[test]
fn the_built_in_runtime_is_what_the_shared_captures_teach() {
    let Some(teachers) = teachers() else { return };
    let text = saved::to_json(&merged(&teachers.iter().collect::<Vec<_>>()));
    if std::env::var("NEFFKIT_BLESS").as_deref() == Ok("1") {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/data/runtime-2.30.51.json");
        std::fs::write(path, &text).unwrap();
        return;
    }
    assert!(
        text == TEXT,
        "data/runtime-2.30.51.json is not what the shared captures teach: rerun with \
         NEFFKIT_BLESS=1 and review the diff"
    );
}

/// Each capture, loaded under the runtime learned from the six others, has every stream's
/// length and opcodes; its slots are identical or relocated but for the environment word
/// (D800) and the zero ring base (D801).
#[test]
fn a_runtime_learned_from_six_captures_loads_the_seventh() {
    let Some(teachers) = teachers() else { return };
    let mut all = (0, 0, 0);
    for (i, held) in teachers.iter().enumerate() {
        let others: Vec<_> = (teachers.iter().enumerate())
            .filter(|&(j, _)| j != i)
            .map(|(_, t)| t)
            .collect();
        let (slots, same, reloc) = held.compare(&DeviceModel::like(merged(&others)));
        eprintln!(
            "{}: {same} of {slots} identical ({:.1}%), {reloc} after relocation ({:.1}%)",
            held.name,
            100.0 * same as f64 / slots as f64,
            100.0 * reloc as f64 / slots as f64
        );
        // At most the ten environment words and the two zero ring bases differ.
        assert!(
            slots - reloc <= 12,
            "{}: {} slots differ",
            held.name,
            slots - reloc
        );
        all = (all.0 + slots, all.1 + same, all.2 + reloc);
    }
    eprintln!(
        "leave one capture out: {} of {} identical ({:.2}%), {} after relocation ({:.2}%)",
        all.1,
        all.0,
        100.0 * all.1 as f64 / all.0 as f64,
        all.2,
        100.0 * all.2 as f64 / all.0 as f64
    );
}

/// The default model of a trn2 NEFF is the built-in runtime: each shared capture's NEFF loads
/// to its streams' lengths and opcodes.
#[test]
fn the_runtime_model_loads_each_shared_capture_as_it_ran() {
    let Some(teachers) = teachers() else { return };
    let device = DeviceModel::runtime();
    for t in &teachers {
        let (slots, same, reloc) = t.compare(&device);
        eprintln!(
            "{}: {same} of {slots} identical, {reloc} after relocation",
            t.name
        );
        assert!(
            slots - reloc <= 12,
            "{}: {} slots differ",
            t.name,
            slots - reloc
        );
    }
}

/// D851 held out: each engine's form without (with) the DGE table taken out of the built-in
/// runtime is made again from its form with (without) it — the same opcodes, the load put in
/// identical or relocated; Activation, seen only with both tables and the DGE table or with
/// neither, gets both mixed forms at the rules' lengths.
#[test]
fn an_engine_seen_one_way_gets_the_other_dge_form() {
    use neff_isa::{EngineType, SLOT_BYTES};
    use neff_load::runtime_model::builtin::runtime_2_30_51;
    use neff_load::runtime_model::compare::compare_slot;
    use neff_load::runtime_model::{RuntimeContent, RuntimeRegions, VariantKey, Verdict};

    let mut runtime = (*runtime_2_30_51()).clone();
    // The data-word rules rewrite for a NEFF's queues (D770, D771): not what is held out here.
    for v in &mut runtime.variants {
        v.confirmed.masks = false;
        v.confirmed.counts = false;
    }
    let content = |engine: EngineType, dge: bool, tables: bool| RuntimeContent {
        dge_table: dge,
        activation_function_sets: usize::from(tables && engine == EngineType::Act),
        dve_table_sets: usize::from(tables && engine == EngineType::Dve),
        ..RuntimeContent::default()
    };
    let reloc = Relocation {
        model: vec![runtime.window.clone()],
        captured: runtime.window.clone(),
    };
    for (engine, tables) in [
        (EngineType::Pe, false),
        (EngineType::Pool, false),
        (EngineType::Sp, false),
        (EngineType::Dve, true),
    ] {
        for dge in [true, false] {
            let mut held = runtime.clone();
            let at = held
                .variants
                .iter()
                .position(|v| {
                    v.engine == engine
                        && v.key.dge_table == dge
                        && v.key.static_queues == 0
                        && v.key.tables == tables
                })
                .unwrap();
            let truth = held.variants.remove(at);
            let made = held
                .variant(engine, &content(engine, dge, tables))
                .unwrap()
                .unwrap_or_else(|| panic!("{engine} dge {dge}: not made from the other form"));
            assert_eq!(
                made.preamble.len(),
                truth.preamble.len(),
                "{engine} dge {dge}"
            );
            assert_eq!(made.program_start, truth.program_start);
            // The opcodes throughout, and the load put in is the one the capture has there. (The
            // other bytes are the source form's: where they differ from the held-out form — the
            // DGE queue masks, D770, and words that follow the subgraph, sg00 and sg01 — the DGE
            // table and the subgraph are confounded in every capture.)
            let ops = |b: &[u8]| b.chunks(SLOT_BYTES).map(|s| s[0]).collect::<Vec<_>>();
            assert_eq!(
                ops(&made.preamble),
                ops(&truth.preamble),
                "{engine} dge {dge}"
            );
            if dge {
                let source = held
                    .variants
                    .iter()
                    .find(|v| {
                        v.engine == engine
                            && v.key
                                == VariantKey {
                                    dge_table: false,
                                    ..truth.key
                                }
                    })
                    .unwrap();
                let k = (made.preamble.chunks(SLOT_BYTES))
                    .zip(source.preamble.chunks(SLOT_BYTES))
                    .position(|(m, s)| m != s)
                    .unwrap();
                let slot = |b: &[u8]| b[k * SLOT_BYTES..][..SLOT_BYTES].to_vec();
                let verdict = compare_slot(&slot(&made.preamble), &slot(&truth.preamble), &reloc);
                assert!(
                    !matches!(verdict, Verdict::Differs(_)),
                    "{engine}: the load put in at PREAMBLE slot {k}: {verdict:?}"
                );
            }
        }
    }
    for (dge, tables) in [(false, true), (true, false)] {
        let c = content(EngineType::Act, dge, tables);
        let made = runtime.variant(EngineType::Act, &c).unwrap().unwrap();
        let rules = RuntimeRegions::new(EngineType::Act, &c);
        assert_eq!(
            made.preamble.len() / SLOT_BYTES,
            rules.main_start(),
            "dge {dge}"
        );
        assert_eq!(made.program_start, rules.program_start, "dge {dge}");
    }
}

/// D816: sg00 ran on core 4 and sg01 on core 5 in every capture, so an engine's form without
/// the DGE table was only ever seen on core 5. Learned in the frame core's windows (own core 4,
/// peer 5), the form made from the sg00 one (D851) is the sg01 one byte for byte but one DGE word: the words that
/// named the core (its TPB and DMA-engine windows, the peer's semaphores) were 8-13 of each
/// engine's PREAMBLE slots when the captured bytes were kept as they ran.
#[test]
fn a_form_seen_on_one_core_serves_the_other() {
    use neff_isa::{EngineType, SLOT_BYTES};
    use neff_load::runtime_model::builtin::runtime_2_30_51;
    use neff_load::runtime_model::compare::compare_slot;
    use neff_load::runtime_model::{RuntimeContent, Verdict};

    let Some(teachers) = teachers() else {
        return;
    };
    // The content of the subgraph the sg01 forms were learned from (its DGE queue masks, D770).
    let neff = Neff::parse(&teachers[0].neff).unwrap();
    let kelf = Kelf::from_neff(&neff).unwrap();
    let kbins = kelf.kbins().unwrap();
    let sg01 = kbins.iter().find(|k| k.name == "sg01").unwrap();
    let sg01 = RuntimeContent::from_kbin(sg01);
    let runtime = runtime_2_30_51();
    let reloc = Relocation {
        model: vec![runtime.window.clone()],
        captured: runtime.window.clone(),
    };
    let mut differ = Vec::new();
    for (engine, tables) in [
        (EngineType::Pe, false),
        (EngineType::Pool, false),
        (EngineType::Sp, false),
        (EngineType::Dve, true),
    ] {
        let mut held = (*runtime).clone();
        let at = (held.variants.iter())
            .position(|v| v.engine == engine && !v.key.dge_table && v.key.static_queues == 0)
            .unwrap();
        let truth = held.variants.remove(at);
        assert!(truth.subgraph.ends_with("sg01"), "{}", truth.subgraph);
        assert_eq!(truth.key.tables, tables);
        let made = held.variant(engine, &sg01).unwrap().unwrap();
        assert!(made.subgraph.ends_with("sg00"), "{}", made.subgraph);
        // The POSTAMBLE's branch back aimed from one place in both.
        let (mp, tp) = (made.postamble_at(1000), truth.postamble_at(1000));
        for (region, m, t) in [
            ("PREAMBLE", &made.preamble, &truth.preamble),
            ("POSTAMBLE", &mp, &tp),
        ] {
            assert_eq!(m.len(), t.len(), "{engine} {region}");
            for (i, (a, b)) in m.chunks(SLOT_BYTES).zip(t.chunks(SLOT_BYTES)).enumerate() {
                if let Verdict::Differs(d) = compare_slot(a, b, &reloc) {
                    differ.push(format!("{engine} {region} {i} {d:?}"));
                }
            }
        }
    }
    // One data word follows the DGE table, not the core, and D851 does not write it: Pool's WRITE
    // to `+0x14e0`, whose second word is 4 with the table (baseline_attention sg00, moe_v6b sg00)
    // and 0 without (sg01).
    let pool_word = r#"pool PREAMBLE 5 [SlotDiff { bytes: 35..36, field: "0x23" }]"#;
    assert_eq!(differ, [pool_word], "{differ:#?}");
}
