//! `neff diff`: exit status like diff(1) (0 same, 1 different, 2 trouble, D500), the `--json`
//! schema of the issue (counts that add up, `time` = the simulated sg00 spans `neff sim`
//! prints), `--stat`, and a damaged side named.

mod common;

use common::*;

#[test]
fn sample_against_itself_exits_0_and_lists_nothing() {
    let text = stdout_with_code(0, ["diff", SAMPLE, SAMPLE]);
    assert_eq!(text, format!("--- A {SAMPLE}\n+++ B {SAMPLE}\n"));
    let v: Value =
        serde_json::from_str(&stdout_with_code(0, ["diff", "--json", SAMPLE, SAMPLE])).unwrap();
    assert_eq!(v["same"], true);
    assert_eq!(v["members"]["changes"], serde_json::json!([]));
}

#[test]
fn repack_with_another_uuid_exits_1_and_shows_only_the_header() {
    let dir = temp_dir();
    let bytes = std::fs::read(SAMPLE).unwrap();
    let neff = neff_container::Neff::parse(&bytes).unwrap();
    let mut b = neff_container::NeffBuilder::from_neff(&neff);
    b.set_uuid(uuid::Uuid::from_u128(7));
    let repacked = temp_file(&dir, "repacked.neff", b.build().unwrap());
    let text = stdout_with_code(1, ["diff".as_ref(), SAMPLE.as_ref(), repacked.as_os_str()]);
    assert!(text.contains("~ uuid: "), "{text}");
    assert!(
        text.contains("-> 00000000-0000-0000-0000-000000000007"),
        "{text}"
    );
    assert!(!text.contains("members"), "{text}");
    assert!(!text.contains("@@"), "{text}");
}

#[test]
fn damaged_side_b_exits_2_naming_it() {
    let dir = temp_dir();
    let bytes = std::fs::read(SAMPLE).unwrap();
    let cut = temp_file(&dir, "cut.neff", &bytes[..bytes.len() - 40]);
    neff()
        .arg("diff")
        .arg(SAMPLE)
        .arg(&cut)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("side B ("));
    neff()
        .arg("diff")
        .arg(&cut)
        .arg(SAMPLE)
        .arg("--json")
        .assert()
        .code(2)
        .stderr(predicates::str::contains(r#""message":"side A ("#));
    neff()
        .args(["diff", SAMPLE, "/nonexistent.neff"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("side B"));
}

#[test]
fn real_pair_json_counts_add_up_and_time_is_the_simulated_spans() {
    let (Some((a, _)), Some((b, _))) = (
        profiled_pair("baseline_bf16_s512"),
        profiled_pair("fused_fp32_s512"),
    ) else {
        return;
    };
    let out = stdout_with_code(1, ["diff", "--json", &a, &b]);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["same"], false);
    let engines = v["engines"].as_array().unwrap();
    assert_eq!(engines.len(), 10, "two subgraphs of five engines");
    for e in engines {
        let n = |k: &str| e[k].as_u64().unwrap();
        assert_eq!(
            n("unchanged") + n("removed") + n("changed"),
            n("slots_a"),
            "{e}"
        );
        assert_eq!(
            n("unchanged") + n("added") + n("changed"),
            n("slots_b"),
            "{e}"
        );
        assert!(e["subgraph"].is_string() && e["engine"].is_string());
    }
    let span = |file: &str| json(["sim", "--json", file])["subgraphs"][0]["span_ns"].clone();
    assert_eq!(v["time"]["a_ns"], span(&a));
    assert_eq!(v["time"]["b_ns"], span(&b));
    let stat = stdout_with_code(1, ["diff", "--stat", "--no-time", &a, &b]);
    assert!(stat.contains("sg00 pe: 117 -> 124 slots: "), "{stat}");
    assert!(!stat.contains("time"), "{stat}");
}

#[test]
fn two_captures_compare_measured_time_and_a_mixed_pair_is_trouble() {
    let dir = neff_fixtures::PROFILED_DIR;
    let a = format!("{dir}/baseline_attention.ntff.gz");
    let b = format!("{dir}/fused_attention.ntff.gz");
    if !neff_fixtures::present(&a) || !neff_fixtures::present(&b) {
        return;
    }
    let v: Value = serde_json::from_str(&stdout_with_code(1, ["diff", "--json", &a, &b])).unwrap();
    let sg00 = &v["subgraphs"][0];
    assert_eq!(sg00["key"], "sg00");
    // The captured spans, as neff-profile reads them: the fused kernel runs faster.
    assert!(
        sg00["b_ns"].as_u64().unwrap() < sg00["a_ns"].as_u64().unwrap(),
        "{sg00}"
    );
    let delta = sg00["b_ns"].as_i64().unwrap() - sg00["a_ns"].as_i64().unwrap();
    assert_eq!(sg00["delta_ns"].as_i64().unwrap(), delta);
    assert!(!v["instructions"].as_array().unwrap().is_empty());
    assert!(!v["queues"].as_array().unwrap().is_empty());
    let Some((neff_b, _)) = profiled_pair("fused_attention") else {
        return;
    };
    neff()
        .args(["diff", &a, &neff_b])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "side B is a NEFF and side A is not",
        ));
}
