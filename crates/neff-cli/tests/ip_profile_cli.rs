//! `neff ip --profile` and `--pc` on the four profiled trn2 NEFFs (fixtures/real/profiled, read in
//! place; skipped when absent unless NEFFKIT_REQUIRE_FIXTURES=1): under the runtime model every
//! profiled device pc maps to `compiler_pc + 1` and back (spec 004 §3), decision D177.

mod common;

use common::{PROFILED, PROFILED_NAMES, REAL_DIR, Value, fixture_present, neff, profiled_pair};

fn check(args: &[&str], code: i32) -> Value {
    let out = neff()
        .args(args)
        .arg("--json")
        .assert()
        .code(code)
        .get_output()
        .clone();
    serde_json::from_slice(&out.stdout).expect("JSON report")
}

#[test]
fn every_profiled_pc_maps_to_its_instruction_both_ways_under_the_runtime_model() {
    for name in PROFILED_NAMES {
        let Some((n, p)) = profiled_pair(name) else {
            return;
        };
        // The runtime model is the default for trn2 (cayman) NEFFs.
        let v = check(&["ip", &n, "--profile", &p], 0);
        assert_eq!(v["device_model"], "runtime");
        let total = v["neff_instructions"].as_u64().unwrap();
        assert!(total > 100, "{name}: {total} profiled NEFF instructions");
        for key in ["forward_agree", "reverse_agree", "mnemonic_agree"] {
            assert_eq!(v[key].as_u64(), Some(total), "{name}: {key}");
        }
        let rt = v["runtime_instructions"].as_u64().unwrap();
        assert!(rt > 200, "{name}: {rt} runtime instructions");
        assert_eq!(v["runtime_agree"].as_u64(), Some(rt), "{name}");
        assert_eq!(
            v["disagreements"].as_array().map(Vec::len),
            Some(0),
            "{name}"
        );
    }
}

/// The raw captures of the same runs (`NAME.ntff.gz`): what the runtime loaded, so a 0xD4 slot
/// runs as the DMAMEMCPY it was rewritten into (D461) and still agrees.
#[test]
fn every_captured_pc_maps_to_its_instruction_under_the_runtime_model() {
    for name in PROFILED_NAMES {
        let Some((n, _)) = profiled_pair(name) else {
            return;
        };
        let capture = format!("{}.ntff.gz", n.strip_suffix(".neff").unwrap_or(&n));
        let v = check(&["ip", &n, "--profile", &capture], 0);
        let total = v["neff_instructions"].as_u64().unwrap();
        assert!(total > 100, "{name}: {total} captured NEFF instructions");
        for key in ["forward_agree", "reverse_agree", "mnemonic_agree"] {
            assert_eq!(v[key].as_u64(), Some(total), "{name}: {key}");
        }
        assert_eq!(
            v["disagreements"].as_array().map(Vec::len),
            Some(0),
            "{name}"
        );
    }
}

/// The three captures without a report, loaded as runtime 2.30.51 learned from another kernel's
/// capture (issue 31's `--like`): static-queue triggers and bounded DIRECT2Ds included, every pc
/// maps both ways, every name agrees, and the records the runtime marks as its own inside MAIN
/// are the ones the model inserts (D531).
#[test]
fn the_other_captures_agree_under_a_runtime_learned_elsewhere() {
    let teacher = format!("{PROFILED}/baseline_attention.ntff.gz");
    for name in ["attn_v6", "moe_v6b", "moe_megakernel"] {
        let (n, c) = (
            format!("{REAL_DIR}/{name}.neff"),
            format!("{REAL_DIR}/{name}.ntff.gz"),
        );
        if !(fixture_present(&n) && fixture_present(&c) && fixture_present(&teacher)) {
            return;
        }
        let v = check(&["ip", &n, "--profile", &c, "--like", &teacher], 0);
        let total = v["neff_instructions"].as_u64().unwrap();
        for key in ["forward_agree", "reverse_agree", "mnemonic_agree"] {
            assert_eq!(v[key].as_u64(), Some(total), "{name}: {key}");
        }
        assert_eq!(v["runtime_agree"], v["runtime_instructions"], "{name}");
    }
}

#[test]
fn the_spec_model_disagrees_with_the_hardware() {
    let Some((n, p)) = profiled_pair("fused_attention") else {
        return;
    };
    let v = check(&["ip", &n, "--profile", &p, "--device-model", "spec"], 1);
    assert_eq!(v["device_model"], "spec");
    assert_eq!(v["forward_agree"], 0);
    assert_eq!(v["mnemonic_agree"], v["neff_instructions"]);
}

#[test]
fn a_profile_of_another_neff_is_refused() {
    let (Some((n, _)), Some((_, p))) = (
        profiled_pair("fused_attention"),
        profiled_pair("baseline_attention"),
    ) else {
        return;
    };
    let out = neff()
        .args(["ip", &n, "--profile", &p])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("is not a profile of"), "{err}");
    assert!(
        err.contains("uuid 6ceac95ea7a04369ae2380ea5f38f95d"),
        "{err}"
    );
}

#[test]
fn pcs_in_and_out_with_the_runtime_regions_named() {
    let Some((n, _)) = profiled_pair("fused_attention") else {
        return;
    };
    let out = neff()
        .args(["ip", &n, "--engine", "act", "--pc", "67", "66"])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let lines: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["neff_ip"], 1);
    assert_eq!(lines[0]["device_pc"], 67);
    assert_eq!(lines[1]["section"], "PREAMBLE");
    assert_eq!(lines[1]["runtime_slot"], "DRAIN");
    let out = neff()
        .args(["ip", &n, "--engine", "act", "--pc", "--reverse", "3"])
        .assert()
        .success()
        .get_output()
        .clone();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    // Slot 1 is the deleted PSEUDO_BRANCH_LABEL: NEFF instruction 3 (slot 2) runs at pc 68.
    assert_eq!(v["device_pc_start"], 68);
    assert_eq!(v["device_pc_end"], 69);
}

/// A raw capture of another runtime version than the built-in 2.30.51 (D850) teaches its own
/// runtime to `neff ip --profile` (said on stderr), as `neff sim --compare` does (D620): here
/// baseline_attention's capture relabelled runtime 2.27.51 (field 8's minor 30 -> 27).
#[test]
fn a_capture_of_another_runtime_is_checked_under_its_own_runtime() {
    use std::io::Read;
    let Some((n, _)) = profiled_pair("baseline_attention") else {
        return;
    };
    let gz = std::fs::read(format!("{}.ntff.gz", n.strip_suffix(".neff").unwrap())).unwrap();
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut raw)
        .unwrap();
    // Field 8 {1: 2, 2: 30, 3: 51, ...}: one occurrence in the metadata.
    let version = [0x42, 0x30, 0x08, 0x02, 0x10, 0x1e, 0x18, 0x33];
    let at = raw
        .windows(version.len())
        .position(|w| w == version)
        .unwrap();
    raw[at + 5] = 27;
    let dir = common::temp_dir();
    let capture = common::temp_file(&dir, "baseline_attention.ntff", &raw);
    let out = neff()
        .args(["ip", &n, "--profile"])
        .arg(&capture)
        .arg("--json")
        .assert()
        .success()
        .get_output()
        .clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("is a capture of runtime 2.27.51"), "{err}");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["device_model"],
        format!(
            "runtime (runtime 2.27.51, learned from {})",
            capture.display()
        )
    );
    let total = v["neff_instructions"].as_u64().unwrap();
    assert_eq!(v["forward_agree"].as_u64(), Some(total));
}
