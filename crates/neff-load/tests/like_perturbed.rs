//! `--like` from perturbed teachers (decisions D840-D843): a shared capture's streams changed as
//! another runtime version's might be — slots inserted or removed in a block the learner copies,
//! a queue block moved, the PREAMBLE split into two segments, a layout the learner cannot read —
//! and the learned runtime either reproduces the change on another NEFF (lengths and opcode
//! sequence) or stops with an error naming where. Captures are read in place (skipped when
//! absent unless NEFFKIT_REQUIRE_FIXTURES=1).

use neff_container::Neff;
use neff_isa::{EngineType, SLOT_BYTES};
use neff_kelf::Kelf;
use neff_load::DeviceModel;
use neff_load::LoadError;
use neff_load::model::{LoadOptions, LoadedModel, load};
use neff_load::runtime_model::taught_forms::pseudo_opcodes;
use neff_load::runtime_model::teacher_check::check_stream;
use neff_load::runtime_model::{
    CapturedSegment, CapturedStream, LearnError, LearnedRuntime, RuntimeContent, UnlearnedWhy,
    captured_streams,
};
use neff_profile::{Capture, ReadLimits};

/// Every perturbation of the copied PREAMBLE stays below the smallest program start of the
/// shared captures (SP's 21), so no branch needs re-aiming.
const LOWEST_PROGRAM_START: usize = 21;

/// One captured stream, owned, so that a test can change it.
#[derive(Debug, Clone)]
struct Stream {
    engine: EngineType,
    device_base: u64,
    core: Option<neff_load::physical_core::PhysicalCore>,
    bytes: Vec<u8>,
    segments: Vec<CapturedSegment>,
}

impl Stream {
    fn view(&self) -> CapturedStream<'_> {
        CapturedStream {
            engine: self.engine,
            device_base: self.device_base,
            core: self.core,
            bytes: &self.bytes,
            segments: self.segments.clone(),
        }
    }

    /// `k` copies of slot `at` put in before it, inside the PREAMBLE.
    fn insert(&mut self, at: usize, k: usize) {
        assert!(at < LOWEST_PROGRAM_START);
        let slot = self.bytes[at * SLOT_BYTES..][..SLOT_BYTES].to_vec();
        let copies = slot.repeat(k);
        self.bytes.splice(at * SLOT_BYTES..at * SLOT_BYTES, copies);
        self.shift_segments(at, k as isize);
    }

    /// Slots `at..at + k` taken out of the PREAMBLE.
    fn remove(&mut self, at: usize, k: usize) {
        assert!(at + k <= LOWEST_PROGRAM_START);
        self.bytes.drain(at * SLOT_BYTES..(at + k) * SLOT_BYTES);
        self.shift_segments(at, -(k as isize));
    }

    /// The segment holding `at` grows by `by` slots, every later one moves.
    fn shift_segments(&mut self, at: usize, by: isize) {
        for s in &mut self.segments {
            if s.first_slot > at {
                s.first_slot = s.first_slot.saturating_add_signed(by);
            } else if s.first_slot + s.count > at {
                s.count = s.count.saturating_add_signed(by);
            }
        }
    }

    /// Slots `block` moved to start `by` slots later (the `by` slots after it come first).
    fn move_block(&mut self, block: std::ops::Range<usize>, by: usize) {
        let (a, b) = (block.start * SLOT_BYTES, (block.end + by) * SLOT_BYTES);
        self.bytes[a..b].rotate_right(by * SLOT_BYTES);
    }

    fn opcode(&self, slot: usize) -> u8 {
        self.bytes[slot * SLOT_BYTES]
    }
}

/// A capture's subgraphs: name, the NEFF's content, the streams.
type Subgraphs = Vec<(String, RuntimeContent, Vec<Stream>)>;

/// The NEFF `STEM.neff` and its capture's streams, or `None` when absent.
fn read(stem: &str) -> Option<(Vec<u8>, Subgraphs)> {
    let neff = neff_fixtures::read(format!("{stem}.neff"))?;
    let path = format!("{stem}.ntff.gz");
    if !neff_fixtures::present(&path) {
        return None;
    }
    let (_, bytes) =
        neff_profile::input::load(std::path::Path::new(&path), &ReadLimits::default()).unwrap();
    let cap = Capture::parse(&bytes).unwrap();
    let parsed = Neff::parse(&neff).unwrap();
    let kelf = Kelf::from_neff(&parsed).unwrap();
    let kbins = kelf.kbins().unwrap();
    let subgraphs = cap
        .facts
        .subgraphs
        .iter()
        .map(|sg| {
            let k = kbins.iter().find(|k| k.name == sg.name).unwrap();
            let streams = captured_streams(&cap, sg)
                .into_iter()
                .map(|s| Stream {
                    engine: s.engine,
                    device_base: s.device_base,
                    core: s.core,
                    bytes: s.bytes.to_vec(),
                    segments: s.segments,
                })
                .collect();
            (sg.name.clone(), RuntimeContent::from_kbin(k), streams)
        })
        .collect();
    Some((neff, subgraphs))
}

fn profiled(name: &str) -> String {
    format!("{}/{name}", neff_fixtures::PROFILED_DIR)
}

fn real(name: &str) -> String {
    format!("{}/{name}", neff_fixtures::REAL_DIR)
}

/// Learns from `teacher` as runtime `version`.
fn learn(version: &str, teacher: &Subgraphs) -> Result<LearnedRuntime, LearnError> {
    LearnedRuntime::learn(
        version,
        teacher
            .iter()
            .map(|(n, c, s)| (n.clone(), *c, s.iter().map(Stream::view).collect())),
    )
    .map(|l| l.named("teacher"))
}

/// Loads `neff` as `learned`.
fn load_like(neff: &[u8], learned: LearnedRuntime) -> Result<LoadedModel, LoadError> {
    let parsed = Neff::parse(neff).unwrap();
    let kelf = Kelf::from_neff(&parsed).unwrap();
    let options = LoadOptions {
        device: DeviceModel::like(learned),
        ..LoadOptions::default()
    };
    load(&kelf, &options)
}

/// Every stream of `expected` is the model's to its length and opcode sequence.
fn assert_reproduced(model: &LoadedModel, expected: &Subgraphs) {
    for (name, _, streams) in expected {
        let sg = model.subgraphs.iter().find(|s| &s.name == name).unwrap();
        for s in streams {
            let image = &sg.engine(s.engine).unwrap().image.bytes;
            if let Err(e) = check_stream("expected", name, image, &s.view()) {
                panic!("{e}");
            }
        }
    }
}

/// Applies `f` to every stream.
fn each(subgraphs: &mut Subgraphs, f: impl Fn(&mut Stream)) {
    subgraphs
        .iter_mut()
        .flat_map(|(_, _, s)| s.iter_mut())
        .for_each(f);
}

/// Learning from a capture and loading its own NEFF gives its streams back (D843's check).
#[test]
fn a_teacher_reproduces_its_own_streams() {
    for stem in [
        profiled("baseline_attention"),
        real("attn_v6"),
        real("moe_v6b"),
    ] {
        let Some((neff, teacher)) = read(&stem) else {
            return;
        };
        let model = load_like(&neff, learn("2.30.51", &teacher).unwrap()).unwrap();
        assert_reproduced(&model, &teacher);
    }
}

/// Slots inserted into and removed from the copied PREAMBLE (before the program start) come
/// out in another NEFF's images, in a runtime version the rules know nothing of.
#[test]
fn inserted_and_removed_preamble_slots_are_reproduced_on_another_neff() {
    let (Some((_, mut teacher)), Some((neff, mut other))) = (
        read(&profiled("baseline_attention")),
        read(&profiled("fused_attention")),
    ) else {
        return;
    };
    let perturb = |s: &mut Stream| {
        s.insert(5, 3);
        s.remove(12, 2);
    };
    each(&mut teacher, perturb);
    each(&mut other, perturb);
    let model = load_like(&neff, learn("2.27.0", &teacher).unwrap()).unwrap();
    assert_reproduced(&model, &other);
    let pe = model.subgraphs[1].engine(EngineType::Pe).unwrap();
    // sg01 PE: 66 slots before MAIN under 2.30.51, 67 here.
    assert_eq!(pe.image.eib.preamble.size / SLOT_BYTES as u64, 67);
}

/// Blocks of the copied PREAMBLE in another order (slots 2-4 after 5-8) come out in that order.
#[test]
fn preamble_blocks_in_another_order_are_reproduced_on_another_neff() {
    let (Some((_, mut teacher)), Some((neff, mut other))) = (
        read(&profiled("baseline_attention")),
        read(&profiled("fused_attention")),
    ) else {
        return;
    };
    let reorder = |s: &mut Stream| s.move_block(2..5, 4);
    each(&mut teacher, reorder);
    each(&mut other, reorder);
    let model = load_like(&neff, learn("2.27.0", &teacher).unwrap()).unwrap();
    assert_reproduced(&model, &other);
}

/// The PREAMBLE written as two segments (a start block of its own) is learned whole.
#[test]
fn a_preamble_of_two_segments_is_learned_whole() {
    let (Some((_, mut teacher)), Some((neff, other))) = (
        read(&profiled("baseline_attention")),
        read(&profiled("fused_attention")),
    ) else {
        return;
    };
    each(&mut teacher, |s| {
        let first = s.segments[0];
        s.segments[0].count = 30;
        s.segments.insert(
            1,
            CapturedSegment {
                first_slot: 30,
                count: first.count - 30,
                inner: false,
            },
        );
    });
    let model = load_like(&neff, learn("2.27.0", &teacher).unwrap()).unwrap();
    assert_reproduced(&model, &other);
}

/// The static-queue block moved within the PREAMBLE (another block order) is found where it is
/// and taken out for a NEFF whose engines own no static queue (D468 by D840); the teacher's own
/// NEFF gets it back where the teacher had it.
#[test]
fn a_moved_queue_block_is_found_and_taken_out() {
    let (Some((moe_neff, mut teacher)), Some((neff, other))) =
        (read(&real("moe_v6b")), read(&profiled("fused_attention")))
    else {
        return;
    };
    for (name, _, streams) in &mut teacher {
        for s in streams.iter_mut().filter(|_| name == "sg00") {
            if matches!(s.engine, EngineType::Pool | EngineType::Sp) {
                // The 13-slot block at 2 (a WRITE, 12 ring stores) now after three other slots.
                assert_eq!((s.opcode(2), s.opcode(3)), (0xA5, 0xAB));
                s.move_block(2..15, 3);
                assert_eq!((s.opcode(5), s.opcode(6)), (0xA5, 0xAB));
            }
        }
    }
    let learned = learn("2.27.0", &teacher).unwrap();
    assert_reproduced(&load_like(&neff, learned.clone()).unwrap(), &other);
    assert_reproduced(&load_like(&moe_neff, learned).unwrap(), &teacher);
}

/// A queue block whose re-arm WRITE the learner does not recognize cannot be taken out: under
/// another version the load stops naming the subgraph, engine and capture; under 2.30.51 the
/// rules stand in.
#[test]
fn an_unrecognized_queue_block_is_an_error_naming_where() {
    let (Some((_, mut teacher)), Some((neff, _))) =
        (read(&real("moe_v6b")), read(&profiled("fused_attention")))
    else {
        return;
    };
    let sg00 = &mut teacher[0];
    assert_eq!(sg00.0, "sg00");
    let pool = sg00
        .2
        .iter_mut()
        .find(|s| s.engine == EngineType::Pool)
        .unwrap();
    // The re-arm WRITE pair's first register moved off the queue's page.
    pool.bytes[2 * SLOT_BYTES + 0x11] ^= 0x40;
    let err = load_like(&neff, learn("2.27.0", &teacher).unwrap()).unwrap_err();
    let text = LoadError::with_causes(&err);
    assert!(text.contains("sg00"), "{text}");
    assert!(text.contains("teacher (runtime 2.27.0)"), "{text}");
    assert!(text.contains("pool"), "{text}");
    assert!(text.contains("re-arm registers"), "{text}");
    let LoadError::Unlearned { source, .. } = find_unlearned(&err) else {
        unreachable!()
    };
    assert!(matches!(source.why, UnlearnedWhy::NoBlockToCut { .. }));
    assert!(load_like(&neff, learn("2.30.51", &teacher).unwrap()).is_ok());
}

/// A content key the teacher never shows is an error under another version (the rules are
/// 2.30.51's), the rules' regions under 2.30.51.
#[test]
fn an_unseen_key_is_an_error_under_another_version() {
    let (Some((_, teacher)), Some((neff, _))) = (
        read(&profiled("baseline_attention")),
        read(&profiled("fused_attention")),
    ) else {
        return;
    };
    // sg01 only: no table load, no DGE table.
    let sg01: Subgraphs = teacher.into_iter().filter(|(n, ..)| n == "sg01").collect();
    let err = load_like(&neff, learn("2.27.0", &sg01).unwrap()).unwrap_err();
    let text = LoadError::with_causes(&err);
    assert!(text.contains("DGE table yes"), "{text}");
    assert!(text.contains("DGE table no"), "{text}");
    assert!(load_like(&neff, learn("2.30.51", &sg01).unwrap()).is_ok());
}

/// A queue block to build where the teacher shows none of that kind: an error under another
/// version, D582's block under 2.30.51.
#[test]
fn a_queue_block_never_seen_is_not_built_for_another_version() {
    let (Some((_, teacher)), Some((neff, _))) = (
        read(&profiled("baseline_attention")),
        read(&real("moe_v6b")),
    ) else {
        return;
    };
    let text =
        LoadError::with_causes(&load_like(&neff, learn("2.27.0", &teacher).unwrap()).unwrap_err());
    assert!(
        text.contains("needs its PREAMBLE / POSTAMBLE blocks built"),
        "{text}"
    );
    assert!(load_like(&neff, learn("2.30.51", &teacher).unwrap()).is_ok());
}

/// Two streams with one key and different PREAMBLE lengths: the key misses a fact of this
/// runtime, said with both subgraphs.
#[test]
fn one_key_two_lengths_is_a_conflict_naming_both_streams() {
    let Some((_, teacher)) = read(&profiled("baseline_attention")) else {
        return;
    };
    let mut sg01 = teacher.into_iter().find(|(n, ..)| n == "sg01").unwrap();
    let mut other = sg01.clone();
    other.0 = "sg01b".to_owned();
    other.2.iter_mut().for_each(|s| s.insert(5, 1));
    sg01.2.truncate(1);
    other.2.truncate(1);
    let err = learn("2.27.0", &vec![sg01, other]).unwrap_err();
    assert!(matches!(err, LearnError::Conflict { .. }));
    let text = err.to_string();
    assert!(text.contains("sg01 and sg01b"), "{text}");
}

/// Two streams with one key and one length but another opcode: refused, with the slot.
#[test]
fn one_key_two_opcode_sequences_is_a_conflict_naming_the_slot() {
    let Some((_, teacher)) = read(&profiled("baseline_attention")) else {
        return;
    };
    let mut sg01 = teacher.into_iter().find(|(n, ..)| n == "sg01").unwrap();
    sg01.2.truncate(1);
    let mut other = sg01.clone();
    other.0 = "sg01b".to_owned();
    other.2[0].bytes[7 * SLOT_BYTES] = 0x00;
    let err = learn("2.27.0", &vec![sg01, other]).unwrap_err();
    assert!(
        matches!(
            err,
            LearnError::OpcodeConflict {
                slot: 7,
                region: "PREAMBLE",
                ..
            }
        ),
        "{err}"
    );
}

/// A POSTAMBLE whose last slot is no branch back, and a PREAMBLE segment shorter than the
/// runtime's (the rest read as the NEFF's): the first is refused when learning, the second by
/// the teacher's own check (D843), with the slot.
#[test]
fn unreadable_layouts_are_refused_with_their_slot() {
    let Some((neff, teacher)) = read(&profiled("baseline_attention")) else {
        return;
    };
    let mut broken = teacher.clone();
    let s = &mut broken[1].2[0];
    let last = s.bytes.len() / SLOT_BYTES - 1;
    let drain = s.bytes[(last - 1) * SLOT_BYTES..last * SLOT_BYTES].to_vec();
    s.bytes[last * SLOT_BYTES..].copy_from_slice(&drain);
    let err = learn("2.27.0", &broken).unwrap_err();
    assert!(
        matches!(&err, LearnError::NoBranchBack { subgraph, slot, .. } if subgraph == "sg01" && *slot == last),
        "{err}"
    );
    let mut short = teacher.clone();
    each(&mut short, |s| s.segments[0].count = 40);
    let model = load_like(&neff, learn("2.27.0", &short).unwrap()).unwrap();
    let (name, _, streams) = &teacher[0];
    let sg = model.subgraphs.iter().find(|s| &s.name == name).unwrap();
    let s = &streams[0];
    let e = check_stream(
        "teacher",
        name,
        &sg.engine(s.engine).unwrap().image.bytes,
        &s.view(),
    )
    .unwrap_err();
    assert_eq!(e.region, "PREAMBLE");
    assert!(e.to_string().contains("does not understand"), "{e}");
}

fn find_unlearned(e: &LoadError) -> &LoadError {
    match e {
        LoadError::Engines(all) => all
            .iter()
            .find(|e| matches!(e, LoadError::Unlearned { .. }))
            .unwrap(),
        e => e,
    }
}

/// The moe capture's Pool and SP blocks are confirmed both ways (D844): the builder makes them,
/// and cut out they leave sg01's queue-less opcodes.
#[test]
fn the_moe_blocks_are_confirmed_by_builder_and_by_the_queue_less_stream() {
    let Some((_, teacher)) = read(&real("moe_v6b")) else {
        return;
    };
    let learned = learn("2.27.0", &teacher).unwrap();
    for e in [EngineType::Pool, EngineType::Sp] {
        let v = learned
            .variants
            .iter()
            .find(|v| v.engine == e && v.key.static_queues == 1)
            .unwrap();
        let b = v.queue_block.as_ref().unwrap();
        assert_eq!((b.preamble.clone(), b.builder_confirmed), (2..15, true));
        assert_eq!(b.cut_confirmed, Some(true), "{e}");
    }
}

/// A block whose cut leaves a slot the queue-less stream does not have (the block one slot
/// longer than its registers show) is refused under another version (D844).
#[test]
fn a_cut_the_queue_less_stream_contradicts_is_refused() {
    let (Some((_, mut teacher)), Some((neff, _))) =
        (read(&real("moe_v6b")), read(&profiled("fused_attention")))
    else {
        return;
    };
    let pool = teacher[0]
        .2
        .iter_mut()
        .find(|s| s.engine == EngineType::Pool)
        .unwrap();
    // A slot no register of the queue names, right after the block.
    pool.insert(15, 1);
    let text =
        LoadError::with_causes(&load_like(&neff, learn("2.27.0", &teacher).unwrap()).unwrap_err());
    assert!(text.contains("13-slot static-queue block"), "{text}");
    assert!(text.contains("leaves other opcodes"), "{text}");
}

/// A count of table sets the capture does not show is refused under another version (D844):
/// attn_v6's Activation has two sets, baseline_attention's one; under 2.30.51 D467 holds.
#[test]
fn an_unseen_count_of_table_sets_is_refused_under_another_version() {
    let (Some((_, teacher)), Some((neff, _))) = (
        read(&profiled("baseline_attention")),
        read(&real("attn_v6")),
    ) else {
        return;
    };
    let text =
        LoadError::with_causes(&load_like(&neff, learn("2.27.0", &teacher).unwrap()).unwrap_err());
    assert!(
        text.contains("with [1] table set(s) only and this NEFF has 2"),
        "{text}"
    );
    assert!(load_like(&neff, learn("2.30.51", &teacher).unwrap()).is_ok());
}

/// A pseudo-instruction kind the capture's NEFF never uses is named, with its first slot, for
/// a capture of another version (D845); never for 2.30.51.
#[test]
fn pseudo_kinds_the_teachers_neff_lacks_are_named() {
    let Some((neff, teacher)) = read(&profiled("baseline_attention")) else {
        return;
    };
    let parsed = Neff::parse(&neff).unwrap();
    let kelf = Kelf::from_neff(&parsed).unwrap();
    let kbins = kelf.kbins().unwrap();
    let programs = || kbins.iter().flat_map(|k| k.engines.iter());
    let all = pseudo_opcodes(programs().map(|e| e.instr));
    assert!(!all.is_empty());
    let mut learned = learn("2.27.0", &teacher).unwrap();
    learned.taught_pseudos = Some(all[1..].to_vec());
    let untaught = |l: &LearnedRuntime| -> Vec<_> {
        kbins
            .iter()
            .flat_map(|k| {
                k.engines
                    .iter()
                    .flat_map(|e| l.untaught_forms(&k.name, e.eng_type, e.instr))
            })
            .collect()
    };
    let found = untaught(&learned);
    assert!(!found.is_empty());
    assert!(found.iter().all(|u| u.opcode.0 == all[0]), "{found:?}");
    assert!(found[0].to_string().contains("never uses"), "{}", found[0]);
    learned.version = "2.30.51".to_owned();
    assert!(untaught(&learned).is_empty());
}

/// Two static queues on one engine (D857): their blocks are built one after the other under
/// 2.30.51 (whose rules say where), refused under another version (no capture shows two).
#[test]
fn two_static_queues_on_one_engine_are_built_only_under_the_rules_runtime() {
    use neff_load::runtime_model::RuntimeContent;
    use neff_load::runtime_model::queue_block::StaticQueue;

    let Some((_, teacher)) = read(&real("moe_v6b")) else {
        return;
    };
    let mut content = RuntimeContent {
        dge_table: true,
        ..RuntimeContent::default()
    };
    let pool = EngineType::Pool.index();
    content.static_queues[pool] = 2;
    for (k, index) in [1, 3].into_iter().enumerate() {
        content.static_queue_list[pool][k] = Some(StaticQueue {
            index,
            data: false,
            blocks: 16,
        });
    }
    let other = learn("2.27.0", &teacher).unwrap();
    let why = other.variant(EngineType::Pool, &content).unwrap_err().why;
    assert!(
        matches!(why, UnlearnedWhy::ManyQueues { queues: 2 }),
        "{why:?}"
    );
    let rules = learn("2.30.51", &teacher).unwrap();
    let made = rules.variant(EngineType::Pool, &content).unwrap().unwrap();
    assert_eq!(made.key.static_queues, 2);
    assert_eq!(made.program_start, 27 + 2 * 13);
}
