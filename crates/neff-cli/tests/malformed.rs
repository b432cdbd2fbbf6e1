//! The malformed-input corpus (issue 9 "Malformed-input corpus"): every case of
//! `tests/malformed/cases.json` run through the real `neff` binary, checking its exit code and the
//! key words of its message (what is wrong and where: file, member path, offset, JSON pointer).
//!
//! Inputs are either a small file of `tests/malformed/` or built by name in
//! `tests/malformed/corpus.rs` from `examples/sample.neff`.

mod common;
#[path = "malformed/corpus.rs"]
mod corpus;

use std::collections::BTreeSet;
use std::path::Path;

use common::{neff, temp_dir};
use corpus::{DIR, cases, generate};
use serde_json::Value;

// ---- the runner ------------------------------------------------------------------------------

fn text(v: &Value) -> String {
    v.as_str().unwrap().to_owned()
}

/// Runs one case; returns a description of what went wrong, if anything.
fn run_case(case: &Value, work: &Path) -> Option<String> {
    let name = text(&case["name"]);
    let input = match case.get("file") {
        Some(f) => Path::new(DIR).join(text(f)),
        None => {
            let bytes = generate(&name).unwrap_or_else(|| panic!("no generator for case {name}"));
            let p = work.join(format!("{name}.neff"));
            std::fs::write(&p, bytes).unwrap();
            p
        }
    };
    let dir = work.join(format!("{name}.d"));
    std::fs::create_dir_all(&dir).unwrap();
    let args: Vec<String> = case["cmd"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            text(a)
                .replace("{file}", &input.display().to_string())
                .replace("{dir}", &dir.display().to_string())
        })
        .collect();
    let mut cmd = neff();
    cmd.args(&args);
    for k in [
        "NEFFKIT_MAX_MEMBERS",
        "NEFFKIT_MAX_MEMBER_SIZE",
        "NEFFKIT_MAX_TOTAL_SIZE",
    ] {
        cmd.env_remove(k);
    }
    if let Some(env) = case.get("env").and_then(Value::as_object) {
        for (k, v) in env {
            cmd.env(k, text(v));
        }
    }
    let out = cmd.output().unwrap();
    let code = out.status.code();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected = case["exit"].as_i64().unwrap() as i32;
    let haystack = format!("{stdout}{stderr}");
    let mut keys: Vec<String> = case["keys"].as_array().unwrap().iter().map(text).collect();
    if expected != 0 {
        // Every error names the file it concerns.
        keys.push(input.file_name().unwrap().to_string_lossy().into_owned());
    }
    let missing: Vec<&String> = keys
        .iter()
        .filter(|k| !haystack.contains(k.as_str()))
        .collect();
    if code != Some(expected) || !missing.is_empty() {
        if let Some(why) = case.get("pending") {
            eprintln!("pending {name} (exit {code:?}): {}", text(why));
            return None;
        }
        return Some(format!(
            "{name}: `neff {}` exited {code:?} (expected {expected}); missing {missing:?}\n  stderr: {stderr}  stdout: {}",
            args.join(" "),
            stdout.chars().take(400).collect::<String>()
        ));
    }
    if name.contains("traversal_extract") || name == "tar_symlink" {
        // Refused before anything is written: no partial output, nothing outside the target.
        assert!(!dir.join("evil.json").exists() && !work.join("evil.json").exists());
    }
    None
}

#[test]
fn every_malformed_case_has_its_exit_code_and_message() {
    let work = temp_dir();
    let failures: Vec<String> = cases()
        .iter()
        .filter_map(|c| run_case(c, work.path()))
        .collect();
    assert!(
        failures.is_empty(),
        "{} case(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_corpus_covers_every_layer_with_at_least_40_cases() {
    let cases = cases();
    assert!(cases.len() >= 40, "{} cases", cases.len());
    let layers: BTreeSet<String> = cases.iter().map(|c| text(&c["layer"])).collect();
    for layer in [
        "header", "hash", "gzip", "tar", "json", "stream", "text", "bir", "cli",
    ] {
        assert!(layers.contains(layer), "no case for layer {layer}");
    }
    let names: BTreeSet<String> = cases.iter().map(|c| text(&c["name"])).collect();
    assert_eq!(names.len(), cases.len(), "case names are unique");
    for c in &cases {
        let name = text(&c["name"]);
        match c.get("file") {
            Some(f) => assert!(
                Path::new(DIR).join(text(f)).exists(),
                "{name}: file missing"
            ),
            None => assert!(generate(&name).is_some(), "{name}: no generator"),
        }
    }
}
