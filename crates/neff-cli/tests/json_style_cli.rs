//! Issue 15 item 5: one JSON style (docs/json.md "Conventions every command follows").

mod common;

use common::{KLR, SAMPLE, Value, json, neff, temp_dir};

/// Each command's `--json` on the sample: the top level is an object.
#[test]
fn every_json_output_is_an_object() {
    let runs: [&[&str]; 11] = [
        &["ls", "--json", SAMPLE],
        &["info", "--json", SAMPLE],
        &["kbin", "--json", SAMPLE],
        &["load", "--json", SAMPLE],
        &["lower", "--json", SAMPLE],
        &["disasm", "--json", SAMPLE],
        &["validate", "--json", SAMPLE],
        &["sim", "--json", SAMPLE],
        &["bir", "stats", "--json", KLR],
        &["bir", "check", "--json", KLR],
        &["dump", "--json", "--slot", "0", "--engine", "pool", SAMPLE],
    ];
    for args in runs {
        assert!(
            json(args).is_object(),
            "neff {args:?}: top level not an object"
        );
    }
}

/// Every engine entry of `doc` (any depth) found under an `"engines"` array.
fn engine_entries(doc: &Value, out: &mut Vec<Value>) {
    match doc {
        Value::Object(m) => {
            for (k, v) in m {
                if k == "engines"
                    && let Some(list) = v.as_array()
                {
                    out.extend(list.iter().cloned());
                }
                engine_entries(v, out);
            }
        }
        Value::Array(list) => list.iter().for_each(|v| engine_entries(v, out)),
        _ => {}
    }
}

#[test]
fn an_engine_is_named_under_engine_in_every_command() {
    for command in ["kbin", "load", "lower", "sim"] {
        let mut entries = Vec::new();
        engine_entries(&json([command, "--json", SAMPLE]), &mut entries);
        assert!(!entries.is_empty(), "neff {command}: no engines");
        for e in &entries {
            let name = e["engine"].as_str().unwrap_or_default();
            assert!(
                ["pe", "act", "pool", "dve", "sp"].contains(&name),
                "neff {command} --json: engine entry without a short \"engine\": {e}"
            );
        }
    }
}

#[test]
fn ip_takes_json_and_never_prints_a_non_number_device_ip() {
    let out = neff()
        .args(["ip", SAMPLE, "--engine", "pool", "--json", "nope"])
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let line: Value = serde_json::from_slice(&out).expect("one JSON line");
    assert_eq!(line["value"], "nope");
    assert!(line.get("device_ip").is_none(), "{line}");
    assert!(line["error"].is_string());
}

#[test]
fn load_writes_with_output_and_keeps_out_as_an_alias() {
    for flag in ["-o", "--output", "--out"] {
        let dir = temp_dir();
        let out = dir.path().join("o");
        neff()
            .args(["load", SAMPLE, flag])
            .arg(&out)
            .assert()
            .success();
        assert!(out.join("load.json").is_file(), "load {flag}");
    }
}
