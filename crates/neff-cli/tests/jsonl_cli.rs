//! `--jsonl` (decision D424): `neff disasm --jsonl` is `disasm --json`'s slots one per line, each
//! led by its stream's keys; `neff lower --jsonl` is `lower --json`'s records and patch rows.

mod common;

use common::{SAMPLE, Value, json, stdout, synth, temp_dir};

/// Each line of `neff ARGS` as JSON.
fn lines(args: &[&str]) -> Vec<Value> {
    stdout(args)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is one JSON object"))
        .collect()
}

/// `disasm --json`'s slots with their stream's `member`, `subgraph`, `engine` in front.
fn led_slots(doc: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    for s in doc["streams"].as_array().expect("streams") {
        for slot in s["slots"].as_array().expect("slots") {
            let mut m = serde_json::Map::new();
            for k in ["member", "subgraph", "engine"] {
                m.insert(k.into(), s[k].clone());
            }
            m.extend(slot.as_object().expect("a slot object").clone());
            out.push(Value::Object(m));
        }
    }
    out
}

#[test]
fn disasm_jsonl_is_the_json_documents_slots_one_per_line() {
    let dir = temp_dir();
    let cayman = synth(
        dir.path(),
        "c.neff",
        &[
            "--target",
            "cayman",
            "--slots-per-engine",
            "300",
            "--functions",
            "1",
        ],
    );
    for path in [SAMPLE, cayman.to_str().expect("a UTF-8 path")] {
        let doc = json(["disasm", "--json", path]);
        let want = led_slots(&doc);
        assert!(want.len() > 3, "{path}");
        assert_eq!(lines(&["disasm", "--jsonl", path]), want, "{path}");
    }
}

#[test]
fn lower_jsonl_is_the_json_documents_records_and_rows() {
    let doc = json(["lower", "--json", SAMPLE]);
    let got = lines(&["lower", "--jsonl", SAMPLE]);
    assert_eq!(got[0]["device_model"], doc["device_model"]);
    let mut want = vec![got[0].clone()];
    for sg in doc["subgraphs"].as_array().expect("subgraphs") {
        for e in sg["engines"].as_array().expect("engines") {
            let lead = |m: &mut serde_json::Map<String, Value>| {
                m.insert("subgraph".into(), sg["name"].clone());
                m.insert("engine".into(), e["engine"].clone());
            };
            for r in e["records"].as_array().expect("records") {
                let mut m = serde_json::Map::new();
                lead(&mut m);
                m.extend(r.as_object().expect("a record").clone());
                want.push(Value::Object(m));
            }
            for p in e["patches"].as_array().expect("patches") {
                let mut m = serde_json::Map::new();
                lead(&mut m);
                m.insert("patch".into(), p.clone());
                want.push(Value::Object(m));
            }
        }
    }
    assert_eq!(got, want);
}
