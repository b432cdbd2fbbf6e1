//! `neff profile` on the shared captures (fixtures/real/profiled/*.ntff.gz, read in place;
//! skipped when absent unless NEFFKIT_REQUIRE_FIXTURES=1) and on broken ones (issue 28).

mod common;

use std::path::Path;

use common::{PROFILED as PROFILED_DIR, PROFILED_NAMES, Value, neff, temp_dir, temp_file};

fn capture(name: &str) -> Option<(String, String, String)> {
    let dir = Path::new(PROFILED_DIR);
    let cap = dir.join(format!("{name}.ntff.gz"));
    if !neff_fixtures::present(&cap) {
        return None;
    }
    Some((
        cap.display().to_string(),
        dir.join(format!("{name}.neff")).display().to_string(),
        dir.join(format!("{name}.profile.json.gz"))
            .display()
            .to_string(),
    ))
}

fn json(args: &[&str]) -> Value {
    let out = neff().args(args).assert().success().get_output().clone();
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn the_summary_of_a_capture_and_of_its_report_agree() {
    for name in PROFILED_NAMES {
        let Some((cap, neff_path, report)) = capture(name) else {
            return;
        };
        let a = json(&["profile", &cap, "--json", "--neff", &neff_path]);
        let b = json(&["profile", &report, "--json"]);
        assert_eq!(a["capture"]["runtime"], "2.30.51", "{name}");
        assert_eq!(a["capture"]["time_origin"], "window", "{name}");
        // Instruction rows are identical, so spans and engine times are too; the DMA queues
        // differ only by the queue-14 transfers the report leaves out (D404).
        for (x, y) in a["subgraphs"]
            .as_array()
            .unwrap()
            .iter()
            .zip(b["subgraphs"].as_array().unwrap())
        {
            assert_eq!(x["span_ns"], y["span_ns"], "{name}");
            assert_eq!(x["engines"], y["engines"], "{name}");
        }
        let top = &a["top"][0];
        assert!(top["duration"].as_u64().unwrap() > 0, "{name}");
        // With the NEFF, a NEFF instruction of the top list carries its disassembly.
        let with_slot = a["top"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| !t["neff_slot"].is_null());
        if let Some(t) = with_slot {
            assert!(
                t["text"].as_str().is_some_and(|s| !s.is_empty()),
                "{name}: {t}"
            );
        }
    }
}

#[test]
fn jsonl_rows_carry_the_vendor_names() {
    let Some((cap, _, _)) = capture(PROFILED_NAMES[0]) else {
        return;
    };
    let out = neff()
        .args(["profile", &cap, "--jsonl"])
        .assert()
        .success()
        .get_output()
        .clone();
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    for kind in ["instruction", "dma", "semaphore", "throttle"] {
        assert!(rows.iter().any(|r| r["kind"] == kind), "{kind}");
    }
    let i = rows.iter().find(|r| r["kind"] == "instruction").unwrap();
    for key in [
        "subgraph",
        "pc",
        "timestamp",
        "duration",
        "engine",
        "neff_slot",
    ] {
        assert!(i.get(key).is_some(), "{key}");
    }
    let d = rows.iter().find(|r| r["kind"] == "dma").unwrap();
    for key in ["dma_engine", "dma_queue", "size"] {
        assert!(d[key].is_u64(), "{key}");
    }
    let s = rows.iter().find(|r| r["kind"] == "semaphore").unwrap();
    assert!(s["index"].is_u64() && s["value"].is_i64());
}

#[test]
fn the_chrome_trace_is_written_whole() {
    let Some((cap, _, _)) = capture(PROFILED_NAMES[1]) else {
        return;
    };
    let dir = temp_dir();
    let t = dir.path().join("t.json");
    neff()
        .args(["profile", &cap, "--trace"])
        .arg(&t)
        .assert()
        .success();
    let v: Value = serde_json::from_slice(&std::fs::read(&t).unwrap()).unwrap();
    assert!(v["traceEvents"].as_array().unwrap().len() > 400);
}

#[test]
fn the_perfetto_trace_decodes_to_every_instruction_and_transfer() {
    use neff_profile::perfetto::{Trace, event_type};
    use prost::Message;
    let Some((cap, _, report)) = capture(PROFILED_NAMES[1]) else {
        return;
    };
    let dir = temp_dir();
    for input in [cap, report] {
        let t = dir.path().join("t.perfetto");
        neff()
            .args(["profile", &input, "--perfetto"])
            .arg(&t)
            .assert()
            .success();
        let trace = Trace::decode(&std::fs::read(&t).unwrap()[..]).unwrap();
        let begins = trace
            .packet
            .iter()
            .filter_map(|p| p.track_event.as_ref())
            .filter(|e| e.r#type == Some(event_type::SLICE_BEGIN))
            .count();
        let out = neff()
            .args(["profile", &input, "--jsonl"])
            .assert()
            .success()
            .get_output()
            .clone();
        let rows = String::from_utf8(out.stdout).unwrap();
        let slices = rows
            .lines()
            .filter(|l| l.contains(r#""kind":"instruction""#) || l.contains(r#""kind":"dma""#))
            .count();
        assert!(slices > 400, "{input}");
        assert_eq!(begins, slices, "{input}");
    }
}

#[test]
fn the_parquet_rows_are_the_jsonl_rows() {
    use arrow_array::{Array, StringArray, UInt64Array};
    let Some((cap, _, _)) = capture(PROFILED_NAMES[0]) else {
        return;
    };
    let dir = temp_dir();
    let t = dir.path().join("rows.parquet");
    neff()
        .args(["profile", &cap, "--parquet"])
        .arg(&t)
        .assert()
        .success();
    let out = neff()
        .args(["profile", &cap, "--jsonl"])
        .assert()
        .success()
        .get_output()
        .clone();
    let rows: Vec<Value> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let file = std::fs::File::open(&t).unwrap();
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file)
        .unwrap()
        .build()
        .unwrap();
    let mut n = 0;
    for batch in reader {
        let b = batch.unwrap();
        let col = |name: &str| b.column_by_name(name).unwrap().clone();
        let kind = col("kind");
        let kind = kind.as_any().downcast_ref::<StringArray>().unwrap();
        let ts = col("timestamp");
        let ts = ts.as_any().downcast_ref::<UInt64Array>().unwrap();
        let pc = col("pc");
        let pc = pc.as_any().downcast_ref::<UInt64Array>().unwrap();
        let size = col("size");
        let size = size.as_any().downcast_ref::<UInt64Array>().unwrap();
        for i in 0..b.num_rows() {
            let r = &rows[n];
            assert_eq!(r["kind"], kind.value(i), "row {n}");
            assert_eq!(r["timestamp"], ts.value(i), "row {n}");
            let opt = |a: &UInt64Array| (!a.is_null(i)).then(|| a.value(i));
            assert_eq!(r.get("pc").and_then(Value::as_u64), opt(pc), "row {n}");
            assert_eq!(r.get("size").and_then(Value::as_u64), opt(size), "row {n}");
            n += 1;
        }
    }
    assert_eq!(n, rows.len());
}

#[test]
fn a_capture_of_another_neff_is_refused() {
    let (Some((cap, _, _)), Some(matmul)) = (
        capture(PROFILED_NAMES[0]),
        neff_fixtures::present(neff_fixtures::MATMUL_SMALL).then_some(neff_fixtures::MATMUL_SMALL),
    ) else {
        return;
    };
    neff()
        .args(["profile", &cap, "--neff", matmul])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("is not a profile of"));
}

#[test]
fn bad_captures_exit_1_naming_where() {
    let dir = temp_dir();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.ntff", vec![], "empty"),
        (
            "short.ntff",
            vec![6, 1, 0, 0, 0],
            "shorter than its 128-byte header",
        ),
        (
            "huge.ntff",
            {
                let mut b = vec![0u8; 0x100];
                b[0] = 6;
                b[1..5].copy_from_slice(&u32::MAX.to_le_bytes());
                b
            },
            "bytes 1..5: metadata length 4294967295",
        ),
        (
            "garbage.ntff",
            {
                let mut b = vec![0u8; 0x100];
                b[0] = 5;
                b[1] = 0x40;
                b[0x80..0xC0].fill(0xFF);
                b
            },
            "byte 128",
        ),
        (
            "version.ntff",
            {
                let mut b = vec![0u8; 0x100];
                b[0] = 7;
                b
            },
            "format version 7",
        ),
    ];
    for (name, bytes, want) in cases {
        let p = temp_file(&dir, name, bytes);
        neff()
            .arg("profile")
            .arg(&p)
            .assert()
            .code(1)
            .stderr(predicates::str::contains(want));
    }
    if let Some(n) =
        neff_fixtures::present(neff_fixtures::MATMUL_SMALL).then_some(neff_fixtures::MATMUL_SMALL)
    {
        neff()
            .args(["profile", n])
            .assert()
            .code(1)
            .stderr(predicates::str::contains("NEFF file, not a capture"));
    }
}
