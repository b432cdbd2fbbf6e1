//! `neff load --like CAPTURE --compare CAPTURE` on every shared capture (runtime 2.30.51, read in
//! place; skipped when absent unless NEFFKIT_REQUIRE_FIXTURES=1): learn the runtime from one
//! capture, predict the others, slot by slot (decisions D460-D468, D580-D583, D770, D771).

mod common;

use common::{Value, neff};
use neff_fixtures::{PROFILED_DIR, REAL_DIR, present};
use neff_isa::EngineType;
use neff_lower::runtime_dma::read_runtime_write;
use neff_profile::{Capture, ReadLimits};

/// The capture the runtime is learned from.
fn teacher() -> String {
    format!("{PROFILED_DIR}/baseline_attention.ntff.gz")
}

/// Every shared capture's stem (the NEFF is `STEM.neff`, the capture `STEM.ntff.gz`).
fn captures() -> Vec<String> {
    let profiled = [
        "baseline_attention",
        "baseline_bf16_s512",
        "fused_attention",
        "fused_fp32_s512",
    ];
    let real = ["attn_v6", "moe_v6b", "moe_megakernel"];
    (profiled.iter().map(|n| format!("{PROFILED_DIR}/{n}")))
        .chain(real.iter().map(|n| format!("{REAL_DIR}/{n}")))
        .collect()
}

/// The comparison report of `stem` under `model` args, and the exit code.
fn compare(stem: &str, model: &[&str]) -> (Value, i32) {
    let out = neff()
        .args(["load", &format!("{stem}.neff")])
        .args(model)
        .args(["--compare", &format!("{stem}.ntff.gz"), "--json"])
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    (v, out.status.code().unwrap_or(-1))
}

/// An engine row's share of byte-identical slots.
fn identical_share(e: &Value) -> f64 {
    e["identical"].as_f64().unwrap() / e["captured_slots"].as_f64().unwrap()
}

#[test]
fn learned_from_one_capture_the_others_are_predicted_slot_by_slot() {
    if !present(teacher()) {
        return;
    }
    let teacher = teacher();
    let like = ["--like", teacher.as_str()];
    let mut total = (0.0, 0.0);
    for stem in captures() {
        if !present(format!("{stem}.ntff.gz")) {
            return;
        }
        let (v, code) = compare(&stem, &like);
        assert_eq!(code, if v["matches"] == true { 0 } else { 1 }, "{stem}");
        assert_eq!(v["capture_runtime"], "2.30.51", "{stem}");
        let model = v["device_model"].as_str().unwrap();
        assert!(
            model.contains("2.30.51"),
            "{stem}: the version is named: {model}"
        );
        for e in v["engines"].as_array().unwrap() {
            let at = format!("{stem} {} {}", e["subgraph"], e["engine"]);
            total.0 += e["identical"].as_f64().unwrap();
            total.1 += e["captured_slots"].as_f64().unwrap();
            // Every engine of every capture is the runtime's to its length and opcodes (the
            // static queues' 0xC1, the bound MOVE and the queue blocks: D580-D582).
            assert_eq!(e["slots"], e["captured_slots"], "{at}");
            assert_eq!(e["opcodes_equal"], true, "{at}");
            // Measured: at least 90.2% (moe_v6b sg00 SP, whose ring addresses the runtime chose).
            assert!(identical_share(e) >= 0.9, "{at}: {}", identical_share(e));
        }
    }
    // Measured 18,307 of 18,405 (99.5%) over the seven (18,259 before D770 / D771).
    assert!(total.0 / total.1 > 0.994, "{total:?}");
}

#[test]
fn a_capture_learned_from_itself_is_matched_up_to_relocation() {
    let stem = format!("{PROFILED_DIR}/baseline_attention");
    if !present(teacher()) {
        return;
    }
    let (v, code) = compare(&stem, &["--like", &teacher()]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["matches"], true);
    for e in v["engines"].as_array().unwrap() {
        assert_eq!(e["differs"].as_array().map(Vec::len), Some(0), "{e}");
        assert_eq!(e["runtime_slots_identical"], e["runtime_slots"], "{e}");
    }
}

/// The default model of a trn2 NEFF is runtime 2.30.51 as the shared captures show it (D850):
/// every stream of a shared capture has its length and opcodes, the profiled four every slot
/// identical or relocated.
#[test]
fn the_default_runtime_model_loads_as_the_captures_ran() {
    for stem in captures() {
        if !present(format!("{stem}.ntff.gz")) {
            return;
        }
        let (v, code) = compare(&stem, &[]);
        assert_eq!(v["device_model"], "runtime", "{stem}");
        for e in v["engines"].as_array().unwrap() {
            assert_eq!(e["opcodes_equal"], true, "{stem}: {e}");
        }
        if stem.starts_with(PROFILED_DIR) {
            assert_eq!(code, 0, "{stem}: {v}");
        }
    }
}

/// The spec model's regions are a real difference from the runtime's (exit 1, other opcodes).
#[test]
fn the_spec_regions_are_a_real_difference_and_exit_1() {
    let stem = format!("{PROFILED_DIR}/fused_attention");
    if !present(format!("{stem}.ntff.gz")) {
        return;
    }
    let (v, code) = compare(&stem, &["--device-model", "spec"]);
    assert_eq!(code, 1);
    assert_eq!(v["matches"], false);
    let pe = &v["engines"][0];
    assert_eq!(pe["opcodes_equal"], false);
    assert!(!pe["differs"].as_array().unwrap().is_empty());
}

#[test]
fn learned_from_the_moe_capture_the_others_get_the_runtime_lengths_and_opcodes() {
    // moe_megakernel's Pool and SP own static queues; the attention kernels' do not: their
    // regions are the learned ones with the queue blocks taken out (D468); attn_v6's DVE owns a
    // `data` queue moe has on no engine: its blocks are built (D582).
    let teacher = format!("{REAL_DIR}/moe_megakernel.ntff.gz");
    if !present(&teacher) {
        return;
    }
    for stem in captures() {
        let (v, _) = compare(&stem, &["--like", &teacher]);
        for e in v["engines"].as_array().unwrap() {
            let at = format!("{stem} {} {}", e["subgraph"], e["engine"]);
            assert_eq!(e["slots"], e["captured_slots"], "{at}");
            assert_eq!(e["opcodes_equal"], true, "{at}");
            // Measured: at least 95.5% (baseline_bf16_s512 sg00 SP); the rest WRITE data words.
            assert!(identical_share(e) >= 0.95, "{at}: {}", identical_share(e));
        }
    }
}

/// The runtime WRITEs of `stem`'s captured stream `sg` / `engine` (its key): per slot, its first
/// `(register, data)` pair, `None` for another slot.
fn captured_writes(stem: &str, sg: &str, engine: &str) -> Vec<Option<(u64, u32)>> {
    let path = format!("{stem}.ntff.gz");
    let (_, bytes) = neff_profile::input::load(path.as_ref(), &ReadLimits::default()).unwrap();
    let cap = Capture::parse(&bytes).unwrap();
    let sg = cap.facts.subgraphs.iter().find(|s| s.name == sg).unwrap();
    let stream = sg.stream(EngineType::from_name(engine).unwrap()).unwrap();
    cap.stream_bytes(stream)
        .chunks_exact(64)
        .map(|b| read_runtime_write(b.try_into().ok()?)?[0])
        .collect()
}

/// D583's open word: the data of the WRITE to `+0x14c0` of an engine's control bank.
const OPEN_REGISTER: u64 = 0x14c0;

#[test]
fn learned_from_one_capture_the_queue_words_are_predicted_and_only_the_open_word_differs() {
    // D770 / D771: the DGE queue masks and the queue-14 counts follow each NEFF's queues and
    // tables, so a capture's own group is predicted to 100% after relocation whichever member
    // teaches (before them fused_attention / fused_fp32_s512 were at 99.0% learned from
    // baseline_attention). What is left across the two groups is the `+0x14c0` word (4 / 6,
    // D583) and, in a queue block built where the teacher had none, the ring base the runtime
    // left 0 (D582).
    let profiled = format!("{PROFILED_DIR}/baseline_attention");
    let moe = format!("{REAL_DIR}/moe_megakernel");
    if !present(format!("{profiled}.ntff.gz")) || !present(format!("{moe}.ntff.gz")) {
        return;
    }
    // The open word as each capture has it (sg00 PE): the captures it agrees on form a group.
    let open_word = |stem: &str| {
        captured_writes(stem, "sg00", "pe")
            .into_iter()
            .flatten()
            .find(|(reg, _)| reg & 0xffff == OPEN_REGISTER)
            .map(|(_, data)| data)
    };
    for teacher in [&profiled, &moe] {
        let like = ["--like".to_owned(), format!("{teacher}.ntff.gz")];
        let like: Vec<&str> = like.iter().map(String::as_str).collect();
        for stem in captures() {
            let (v, code) = compare(&stem, &like);
            let same_group = open_word(&stem) == open_word(teacher);
            let mut open = 0;
            for e in v["engines"].as_array().unwrap() {
                let (sg, engine) = (
                    e["subgraph"].as_str().unwrap(),
                    e["engine"].as_str().unwrap(),
                );
                let writes = captured_writes(&stem, sg, engine);
                for d in e["differs"].as_array().unwrap() {
                    let slot = d["slot"].as_u64().unwrap() as usize;
                    let at = format!("{stem} (learned from {teacher}) {sg} {engine} slot {slot}");
                    let fields: Vec<_> = d["fields"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|f| f["field"].as_str().unwrap())
                        .collect();
                    match writes[slot].map(|(reg, _)| reg) {
                        Some(reg) if reg & 0xffff == OPEN_REGISTER => {
                            assert_eq!(fields, ["0x20"], "{at}");
                            open += 1;
                        }
                        // A built ring block's TENSOR_STORE of ring bases (D582): no WRITE.
                        None => assert!(
                            fields.iter().all(|f| f.starts_with("data@")),
                            "{at}: {fields:?}"
                        ),
                        Some(reg) => panic!("{at}: WRITE to {reg:#x} differs: {fields:?}"),
                    }
                }
            }
            if same_group {
                assert_eq!((code, open), (0, 0), "{stem} learned from {teacher}: {v}");
            } else {
                // One `+0x14c0` WRITE per engine and subgraph.
                assert_eq!((code, open), (1, 10), "{stem} learned from {teacher}");
            }
        }
    }
}

/// A capture whose own NEFF no longer loads to its streams (its first MAIN slot's opcode
/// changed, as another runtime's lowering might): `--like` stops, naming capture, subgraph,
/// engine, slot and region (D843); `--like-unchecked` loads with that as a warning.
#[test]
fn a_capture_its_own_neff_does_not_reproduce_is_refused_with_the_slot() {
    let stem = format!("{PROFILED_DIR}/baseline_attention");
    let capture = format!("{stem}.ntff.gz");
    if !present(&capture) {
        return;
    }
    let (_, mut bytes) =
        neff_profile::input::load(std::path::Path::new(&capture), &ReadLimits::default()).unwrap();
    let cap = Capture::parse(&bytes).unwrap();
    let sg = &cap.facts.subgraphs[0];
    let pe = sg.stream(EngineType::Pe).unwrap();
    let slots = cap.stream_bytes(pe);
    // sg00 PE: MAIN starts at slot 67.
    let at = slots.as_ptr() as usize - bytes.as_ptr() as usize + 67 * 64;
    let name = sg.name.clone();
    drop(cap);
    bytes[at] = 0x00;
    let dir = common::temp_dir();
    let patched = common::temp_file(&dir, "patched.ntff", &bytes);
    let neff_path = format!("{stem}.neff");
    let run = |extra: &[&str]| {
        neff()
            .args(["load", &neff_path, "--like"])
            .arg(&patched)
            .args(["--like-neff", &neff_path])
            .args(extra)
            .output()
            .expect("runs")
    };
    let out = run(&[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_ne!(out.status.code(), Some(0), "{err}");
    for part in [
        "patched.ntff",
        &format!("{name} pe"),
        "slot 67 (MAIN)",
        "does not understand",
    ] {
        assert!(err.contains(part), "{part}: {err}");
    }
    let out = run(&["--like-unchecked"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(
        err.contains("warning:") && err.contains("slot 67 (MAIN)"),
        "{err}"
    );
}

/// Two `--like` captures teach one runtime (D854): each of their own NEFFs loads to its capture's
/// lengths and opcodes, the first's up to relocation, the second's but for D800's environment
/// word (the keys both show come from the first); the report names both; `--like-neff` names one
/// capture's NEFF only.
#[test]
fn two_captures_teach_one_runtime() {
    let a = format!("{PROFILED_DIR}/baseline_attention");
    let b = format!("{REAL_DIR}/moe_v6b");
    if !present(format!("{a}.ntff.gz")) || !present(format!("{b}.ntff.gz")) {
        return;
    }
    let (ca, cb) = (format!("{a}.ntff.gz"), format!("{b}.ntff.gz"));
    let like = ["--like", ca.as_str(), "--like", cb.as_str()];
    for stem in [&a, &b] {
        let (v, code) = compare(stem, &like);
        assert_eq!(code, i32::from(stem == &b), "{stem}: {v}");
        let model = v["device_model"].as_str().unwrap();
        assert!(model.contains(&ca) && model.contains(&cb), "{model}");
        for e in v["engines"].as_array().unwrap() {
            assert_eq!(e["opcodes_equal"], true, "{e}");
            for d in e["differs"].as_array().unwrap() {
                assert_eq!(
                    d["fields"],
                    serde_json::json!([{"field": "0x20", "bytes": [32, 33]}])
                );
            }
        }
    }
    let out = neff()
        .args(["load", &format!("{a}.neff")])
        .args(like)
        .args(["--like-neff", &format!("{a}.neff")])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--like-neff names the NEFF of one"));
}

/// D816: `--core N` places subgraph 0 on core N: the images differ from the default (core 4)
/// only in the core's words, so held against a capture of cores 4 and 5 they are a real
/// difference; a core the device lacks, the spec model, and `--compare` (which takes the
/// capture's cores) with it are refused, naming the flag.
#[test]
fn core_places_the_images_and_is_checked() {
    let stem = format!("{PROFILED_DIR}/fused_attention");
    if !present(format!("{stem}.ntff.gz")) {
        return;
    }
    let file = format!("{stem}.neff");
    let dir = common::temp_dir();
    let out = |core: &str| {
        let d = dir.path().join(core);
        neff()
            .args(["load", &file, "--core", core, "-o"])
            .arg(&d)
            .assert()
            .success();
        std::fs::read(d.join("sg00/pe.img")).unwrap()
    };
    let (four, zero) = (out("4"), out("0"));
    assert_eq!(four.len(), zero.len());
    // Only words of the cores' windows: core 4's TPB 0x8020_.., core 0's 0x0020_...
    let words = |b: &[u8]| -> Vec<u64> {
        b.chunks_exact(8)
            .map(|w| u64::from_le_bytes(w.try_into().unwrap()))
            .collect()
    };
    let moved: Vec<(u64, u64)> = (words(&four).into_iter().zip(words(&zero)))
        .filter(|(a, b)| a != b)
        .collect();
    assert!(!moved.is_empty());
    for (a, b) in moved {
        assert_eq!(a >> 44, 0x8, "{a:#x} -> {b:#x}");
        assert_eq!(b >> 44, 0x0, "{a:#x} -> {b:#x}");
    }
    for (args, says) in [
        (vec!["--core", "8"], "cores 0 to 7"),
        (vec!["--core", "1", "--device-model", "spec"], "--core"),
    ] {
        let err = neff()
            .args(["load", &file])
            .args(&args)
            .assert()
            .failure()
            .get_output()
            .stderr
            .clone();
        let err = String::from_utf8_lossy(&err);
        assert!(err.contains(says), "{args:?}: {err}");
    }
    neff()
        .args([
            "load",
            &file,
            "--core",
            "1",
            "--compare",
            &format!("{stem}.ntff.gz"),
        ])
        .assert()
        .code(2);
}
