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
    let reloc = within_window(&runtime);
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
    let reloc = within_window(&runtime);
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

/// The built-in runtime with the data-word rules (D770, D771) off: what the derivations below
/// hold out is the regions, not the words those rules write for a NEFF's queues.
fn builtin_unrewritten() -> LearnedRuntime {
    let mut runtime = (*neff_load::runtime_model::builtin::runtime_2_30_51()).clone();
    for v in &mut runtime.variants {
        v.confirmed.masks = false;
        v.confirmed.counts = false;
    }
    runtime
}

fn opcodes(b: &[u8]) -> Vec<u8> {
    b.chunks(neff_isa::SLOT_BYTES).map(|s| s[0]).collect()
}

/// The relocation of two forms of one learned runtime: both in its window.
fn within_window(runtime: &LearnedRuntime) -> Relocation {
    Relocation {
        model: vec![runtime.window.clone()],
        captured: runtime.window.clone(),
    }
}

/// `content` with `engine` owning the static queues `qs`, in that order.
fn with_queues(
    content: &mut neff_load::runtime_model::RuntimeContent,
    engine: neff_isa::EngineType,
    qs: &[neff_load::runtime_model::queue_block::StaticQueue],
) {
    let i = engine.index();
    content.static_queues[i] = qs.len() as u8;
    content.data_queues[i] = qs.iter().filter(|q| q.data).count() as u8;
    for (k, q) in qs.iter().enumerate() {
        content.static_queue_list[i][k] = Some(*q);
    }
}

/// `made`'s PREAMBLE has the rules' length, program start and MODEL_SWITCH.
fn rules_shape(
    made: &neff_load::runtime_model::LearnedVariant,
    rules: &neff_load::runtime_model::RuntimeRegions,
    what: &str,
) {
    let slots = made.preamble.len() / neff_isa::SLOT_BYTES;
    assert_eq!(slots, rules.main_start(), "{what}");
    assert_eq!(made.program_start, rules.program_start, "{what}");
    assert_eq!(made.model_switch, rules.model_switch, "{what}");
}

/// Both regions of `made` have `truth`'s opcode sequence.
fn same_opcodes(
    made: &neff_load::runtime_model::LearnedVariant,
    truth: &neff_load::runtime_model::LearnedVariant,
    what: &str,
) {
    assert_eq!(opcodes(&made.preamble), opcodes(&truth.preamble), "{what}");
    assert_eq!(
        opcodes(&made.postamble),
        opcodes(&truth.postamble),
        "{what}"
    );
}

/// D582 / D857: each learned one-queue form (Pool and SP of moe_v6b, DVE of attn_v6) taken out
/// of the built-in runtime is made again from the queue-less form and one built block: the same
/// lengths and opcodes, every slot identical or relocated but the teacher's environment word
/// (D800) and the ring base the runtime left 0 (D801). An engine owning two or three static
/// queues gets one block per queue in def.json order, the rules' lengths (13 PREAMBLE slots per
/// queue, 15 for `data`; 1 POSTAMBLE slot, 3 for `data`), each block its queue's registers and
/// the first the learned block of that queue.
#[test]
fn an_engine_with_several_static_queues_gets_a_block_per_queue() {
    use neff_isa::{EngineType, SLOT_BYTES};
    use neff_load::runtime_model::compare::compare_slot;
    use neff_load::runtime_model::queue_block::{self, StaticQueue};
    use neff_load::runtime_model::{RuntimeContent, RuntimeRegions, Verdict};

    let runtime = builtin_unrewritten();
    let reloc = within_window(&runtime);
    let content = |engine: EngineType, qs: &[StaticQueue]| {
        let mut c = RuntimeContent {
            dge_table: true,
            dve_table_sets: 1,
            ..RuntimeContent::default()
        };
        with_queues(&mut c, engine, qs);
        c
    };
    let q = |index: u8, data: bool, blocks: u16| StaticQueue {
        index,
        data,
        blocks,
    };
    // The teachers' queues (moe_v6b sg00 qPoolIO0, qSPIO0; attn_v6 sg00 qDVESpillReload0).
    for (engine, taught) in [
        (EngineType::Pool, q(1, false, 16)),
        (EngineType::Sp, q(2, false, 9)),
        (EngineType::Dve, q(0, true, 20)),
    ] {
        let mut held = runtime.clone();
        let at = (held.variants.iter())
            .position(|v| v.engine == engine && v.key.static_queues == 1)
            .unwrap();
        let truth = held.variants.remove(at);
        let made = held
            .variant(engine, &content(engine, &[taught]))
            .unwrap()
            .unwrap();
        same_opcodes(&made, &truth, &format!("{engine}"));
        assert_eq!(made.program_start, truth.program_start, "{engine}");
        let differs: Vec<usize> = (made.preamble.chunks(SLOT_BYTES))
            .zip(truth.preamble.chunks(SLOT_BYTES))
            .enumerate()
            .filter(|(_, (m, t))| matches!(compare_slot(m, t, &reloc), Verdict::Differs(_)))
            .map(|(i, _)| i)
            .collect();
        // What differs is data: a TENSOR_STORE's ring base the runtime left 0 (D801), or the
        // data word of a control-bank WRITE (the DGE masks D770 follow each NEFF's dynamic
        // queues, off here; the environment words of D583 / D800 the teacher's).
        for &i in &differs {
            let (m, t) = (
                &made.preamble[i * SLOT_BYTES..][..SLOT_BYTES],
                &truth.preamble[i * SLOT_BYTES..][..SLOT_BYTES],
            );
            let bytes: Vec<usize> = (0..SLOT_BYTES).filter(|&k| m[k] != t[k]).collect();
            let data = match m[0] {
                0xab => 32..SLOT_BYTES,
                0xa5 => 32..40,
                _ => 0..0,
            };
            assert!(
                bytes.iter().all(|k| data.contains(k)),
                "{engine}: PREAMBLE slot {i}, bytes {bytes:?}"
            );
        }
        eprintln!(
            "{engine}: one queue's block built, PREAMBLE slots differing in data {differs:?}"
        );
        assert!(differs.len() <= 6, "{engine}: {differs:?}");

        // Another queue of the same kind (index, blocks): the learned form with that queue's
        // block in place of the teacher's (D857: a block holds its own queue's registers).
        let other = q(taught.index + 3, taught.data, taught.blocks + 1);
        let made = runtime
            .variant(engine, &content(engine, &[other]))
            .unwrap()
            .unwrap();
        same_opcodes(&made, &truth, &format!("{engine}"));
        let taught_at = truth.queue_block.as_ref().unwrap().preamble.clone();
        assert_eq!(queue_block::locate(&made.preamble, &other), Some(taught_at));
        assert_eq!(queue_block::locate(&made.preamble, &taught), None);

        // Two queues more after the taught one, one `in`, one `data`.
        let qs = [taught, q(3, false, 4), q(5, true, 7)];
        let made = runtime
            .variant(engine, &content(engine, &qs))
            .unwrap()
            .unwrap();
        let rules = RuntimeRegions::new(engine, &content(engine, &qs));
        rules_shape(&made, &rules, &format!("{engine}"));
        assert_eq!(
            made.postamble.len() / SLOT_BYTES,
            rules.postamble.len(),
            "{engine}"
        );
        let (k, m) = (made.key.static_queues, made.key.data_queues);
        assert_eq!((k, m), (3, 1 + u8::from(taught.data)), "{engine}");
        // The queue-less form with the three blocks at PREAMBLE slot 2, their POSTAMBLE blocks
        // before the last two slots, in def.json order.
        let bare = (runtime.variants.iter())
            .find(|v| v.engine == engine && v.key.static_queues == 0 && v.key.dge_table)
            .unwrap();
        let mut at = 2;
        for x in &qs {
            let n = queue_block::preamble_block(0, x).len() / SLOT_BYTES;
            assert_eq!(
                queue_block::locate(&made.preamble, x),
                Some(at..at + n),
                "{engine} queue {}",
                x.index
            );
            at += n;
        }
        let mut ops = opcodes(&bare.preamble);
        let blocks: Vec<u8> = qs
            .iter()
            .flat_map(|x| opcodes(&queue_block::preamble_block(0, x)))
            .collect();
        ops.splice(2..2, blocks);
        assert_eq!(opcodes(&made.preamble), ops, "{engine}");
        let mut ops = opcodes(&bare.postamble);
        let tail = ops.len() - 2;
        let blocks: Vec<u8> = qs
            .iter()
            .flat_map(|x| opcodes(&queue_block::postamble_block(x)))
            .collect();
        ops.splice(tail..tail, blocks);
        assert_eq!(opcodes(&made.postamble), ops, "{engine}");
        // The first block is the learned one of that queue, relocated.
        let block = |v: &neff_load::runtime_model::LearnedVariant| {
            let r = queue_block::locate(&v.preamble, &taught).unwrap();
            v.preamble[r.start * SLOT_BYTES..r.end * SLOT_BYTES].to_vec()
        };
        let (mine, learned) = (block(&made), block(&truth));
        let same = (mine.chunks(SLOT_BYTES).zip(learned.chunks(SLOT_BYTES)))
            .filter(|(m, t)| !matches!(compare_slot(m, t, &reloc), Verdict::Differs(_)))
            .count();
        assert!(same + 1 >= learned.len() / SLOT_BYTES, "{engine}: {same}");
    }
}

/// D858: Activation, seen with tables and without, confirms its table block (ten slots before
/// the program start); its form with tables (made without the DGE table by D851) with the block
/// cut is its learned form without either, slot for slot (identical or relocated: the words of
/// the core each was captured on, sg00's 4 and sg01's 5, are in one frame since D816). DVE, seen only
/// with tables, gets the form without at the rules' lengths, with Activation's opcodes.
#[test]
fn an_engine_seen_with_tables_only_gets_its_table_block_cut() {
    use neff_isa::{EngineType, SLOT_BYTES};
    use neff_load::runtime_model::compare::compare_slot;
    use neff_load::runtime_model::{RuntimeContent, RuntimeRegions, Verdict, table_block};

    let runtime = builtin_unrewritten();
    let reloc = within_window(&runtime);
    let bare = RuntimeContent::default();
    let truth = (runtime.variants.iter())
        .find(|v| v.engine == EngineType::Act && !v.key.tables)
        .unwrap();
    let with = runtime
        .variant(
            EngineType::Act,
            &RuntimeContent {
                activation_function_sets: 1,
                ..bare
            },
        )
        .unwrap()
        .unwrap();
    let cut = table_block::without_tables(&runtime.variants, &with).unwrap();
    assert_eq!(with.program_start - cut.program_start, 10);
    assert_eq!(cut.preamble.len(), truth.preamble.len());
    assert_eq!(cut.program_start, truth.program_start);
    assert_eq!(cut.model_switch, truth.model_switch);
    // The DGE masks (D770) as the NEFF's, here none.
    let masked = |b: &[u8]| {
        bare.dge_queues
            .rewrite(EngineType::Act, b)
            .unwrap_or(b.to_vec())
    };
    let (c, t) = (masked(&cut.preamble), masked(&truth.preamble));
    for (i, (m, t)) in c.chunks(SLOT_BYTES).zip(t.chunks(SLOT_BYTES)).enumerate() {
        let verdict = compare_slot(m, t, &reloc);
        assert!(
            !matches!(verdict, Verdict::Differs(_)),
            "PREAMBLE slot {i}: {verdict:?}"
        );
    }
    assert_eq!(opcodes(&cut.postamble), opcodes(&truth.postamble));

    for dge in [true, false] {
        let c = RuntimeContent {
            dge_table: dge,
            ..bare
        };
        let dve = runtime.variant(EngineType::Dve, &c).unwrap().unwrap();
        let rules = RuntimeRegions::new(EngineType::Dve, &c);
        assert!(!dve.key.tables);
        rules_shape(&dve, &rules, &format!("dge {dge}"));
        let act = runtime.variant(EngineType::Act, &c).unwrap().unwrap();
        same_opcodes(&dve, &act, &format!("dge {dge}"));
    }
}

/// The spec sample (examples/sample.neff) owns two static queues on Pool (`in`, `out`) and no
/// DVE tables: under the runtime model both engines get learned regions (D857, D858), at the
/// rules' lengths, no placeholder.
#[test]
fn the_sample_gets_learned_regions_for_two_pool_queues_and_a_table_less_dve() {
    use neff_isa::{EngineType, SLOT_BYTES};
    use neff_load::runtime_model::RuntimeContent;
    use neff_load::runtime_model::RuntimeRegions;

    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sample.neff");
    let bytes = std::fs::read(path).unwrap();
    let parsed = Neff::parse(&bytes).unwrap();
    let kelf = Kelf::from_neff(&parsed).unwrap();
    let kbins = kelf.kbins().unwrap();
    let content = RuntimeContent::from_kbin(&kbins[0]);
    assert_eq!(content.static_queues_of(EngineType::Pool).len(), 2);
    let options = LoadOptions {
        device: DeviceModel::runtime(),
        ..LoadOptions::default()
    };
    let model = load(&kelf, &options).unwrap();
    for engine in [EngineType::Pool, EngineType::Dve] {
        let e = model.subgraphs[0].engine(engine).unwrap();
        let regions = e.image.runtime.as_ref().unwrap();
        let (pre, post) = regions.learned_bytes.as_ref().expect("learned regions");
        let rules = RuntimeRegions::new(engine, &content);
        assert_eq!(pre.len() / SLOT_BYTES, rules.main_start(), "{engine}");
        assert_eq!(post.len() / SLOT_BYTES, rules.postamble.len(), "{engine}");
        assert_eq!(regions.program_start, rules.program_start, "{engine}");
        // The learned bytes are in the image.
        assert_eq!(&e.image.bytes[..pre.len()], &pre[..], "{engine}");
    }
}

/// Every content key of every engine gets learned or derived regions from the built-in runtime
/// (D468, D582, D851, D857, D858), none the rules' placeholders: tables (Activation, DVE) or
/// none, DGE table or none, zero to three static queues of either kind in def.json order; each
/// at the rules' lengths, program start and MODEL_SWITCH.
#[test]
fn every_content_key_gets_the_runtimes_regions() {
    use neff_isa::{EngineType, SLOT_BYTES};
    use neff_load::runtime_model::queue_block::StaticQueue;
    use neff_load::runtime_model::{RuntimeContent, RuntimeRegions};

    let runtime = neff_load::runtime_model::builtin::runtime_2_30_51();
    let q = |index: u8, data: bool| StaticQueue {
        index,
        data,
        blocks: 8,
    };
    let queue_sets: [&[StaticQueue]; 6] = [
        &[],
        &[q(1, false)],
        &[q(0, true)],
        &[q(1, false), q(2, false)],
        &[q(0, true), q(3, false)],
        &[q(2, false), q(4, true), q(5, false)],
    ];
    let mut made = 0;
    for engine in EngineType::ALL {
        for tables in [false, true] {
            if tables && ![EngineType::Act, EngineType::Dve].contains(&engine) {
                continue;
            }
            for dge_table in [false, true] {
                for qs in queue_sets {
                    let mut c = RuntimeContent {
                        dge_table,
                        activation_function_sets: usize::from(tables),
                        dve_table_sets: usize::from(tables),
                        ..RuntimeContent::default()
                    };
                    with_queues(&mut c, engine, qs);
                    let at = format!("{engine} tables {tables} dge {dge_table} queues {qs:?}");
                    let v = runtime
                        .variant(engine, &c)
                        .unwrap()
                        .unwrap_or_else(|| panic!("{at}: the rules' placeholders"));
                    let rules = RuntimeRegions::new(engine, &c);
                    assert_eq!(v.preamble.len() / SLOT_BYTES, rules.main_start(), "{at}");
                    assert_eq!(
                        v.postamble.len() / SLOT_BYTES,
                        rules.postamble.len(),
                        "{at}"
                    );
                    assert_eq!(v.program_start, rules.program_start, "{at}");
                    assert_eq!(v.model_switch, rules.model_switch, "{at}");
                    made += 1;
                }
            }
        }
    }
    assert_eq!(made, 84);
}
