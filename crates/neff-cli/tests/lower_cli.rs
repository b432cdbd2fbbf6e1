//! `neff lower` on the sample (examples/sample.neff, spec 003 §7) and the real matmul_small.neff.

mod common;

use common::{REAL, SAMPLE, Value, fixture_present, json_of, neff, stdout};

/// `neff lower FILE EXTRA --json`.
fn lower_json(file: &str, extra: &[&str]) -> Value {
    json_of(neff().arg("lower").arg(file).args(extra).arg("--json"))
}

#[test]
fn sample_pool_triggers_become_writes_and_pe_one_trigger() {
    if !fixture_present(SAMPLE) {
        return;
    }
    let v = lower_json(SAMPLE, &["--subgraph", "sg00"]);
    let engines = v["subgraphs"][0]["engines"].as_array().unwrap();
    let pool = engines.iter().find(|e| e["engine"] == "pool").unwrap();
    let texts: Vec<&str> = pool["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts.len(), 3);
    // WRITE UINT32 (+0x0d = 9, +0x0e = 1) of 1 (+0x18) to the tail pointers of queue 0 and 1
    // (docs/device-model.md: 0x0010_0000_0000 + 0x1000 * queue, at +0x10).
    assert_eq!(
        texts[0],
        "WRITE dtype=u32 src=IMM addr=0x1000000000 value=1"
    );
    assert_eq!(
        texts[1], "WRITE $S[22]>0 dtype=u32 src=IMM addr=0x1000001000 value=1",
        "keeps its $S[22]>0 wait"
    );
    assert_eq!(texts[2], "EVENT_SEMAPHORE $S[11]>0 setter=0");
    assert_eq!(pool["patches"].as_array().unwrap().len(), 0);
    let pe = engines.iter().find(|e| e["engine"] == "pe").unwrap();
    let recs = pe["records"].as_array().unwrap();
    assert_eq!(recs.len(), 1, "decision D51");
    assert_eq!(recs[0]["source_slot"], 0);
    // The doorbell 0x0010_2000_0000 (+0x10) written with the source slot 0, events kept.
    assert_eq!(
        recs[0]["text"],
        "WRITE $S[10]>0 $S[22]++@complete dtype=u32 src=IMM addr=0x1020000000 value=0"
    );
}

#[test]
fn real_matmul_small_lowers_completely() {
    if !fixture_present(REAL) {
        return;
    }
    let v = lower_json(REAL, &[]);
    for sg in v["subgraphs"].as_array().unwrap() {
        for e in sg["engines"].as_array().unwrap() {
            for r in e["records"].as_array().unwrap() {
                assert!(!r["text"].as_str().unwrap().starts_with("PSEUDO"), "{r}");
            }
            // Every stream starts SET_ORDERING_MODE, label: one DELETE at 0x40 (decision D50).
            let p = &e["patches"][0];
            assert_eq!(
                (p["offset"].as_u64(), p["count"].as_u64()),
                (Some(0x40), Some(1))
            );
            assert_eq!(
                (p["type"].as_str(), p["section"].as_str()),
                (Some("DELETE"), Some("MAIN"))
            );
        }
    }
    let pool = &v["subgraphs"][0]["engines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["engine"] == "pool")
        .unwrap()["records"];
    assert_eq!(
        pool.as_array().unwrap().len(),
        6,
        "7 slots, the label deleted"
    );
    let text = stdout(["lower", REAL, "--engine", "pool"]);
    assert!(
        text.contains("[src 2] PSEUDO_DMA_DIRECT2D dge_op=DIRECT2D semaphore=24"),
        "{text}"
    );
    // Under the runtime model, the runtime's own DMA instruction (D461, D850).
    assert!(text.contains("[src 2]     -> DMAMEMCPY"), "{text}");
    // The consumed label (1 -> 0, spec 001 §5) still has its line, and says what became of it.
    assert!(
        text.contains("[src 1] PSEUDO_BRANCH_LABEL label=0\n[src 1]     -> (no record: DELETE)\n"),
        "{text}"
    );
}

#[test]
fn unknown_subgraph_is_an_input_error() {
    if !fixture_present(SAMPLE) {
        return;
    }
    neff()
        .args(["lower", SAMPLE, "--subgraph", "sg09"])
        .assert()
        .code(1);
}
