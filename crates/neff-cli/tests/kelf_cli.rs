//! `neff kbin` on the spec sample and the real trn2 fixture, and its errors.

mod common;

use common::{SAMPLE, json, neff, real_fixture, stdout, temp_dir, temp_file};

#[test]
fn kbin_text_of_the_sample() {
    let text = stdout(["kbin", SAMPLE]);
    let expected = "\
sg00: target sunda (arch 2)
  engines:
    slot name  eng_type  ninstr     bytes  member
    2    pe    0              1        64  sg00/pe.bin
    0    act   1              0         0  sg00/act.bin
    3    pool  2              3       192  sg00/pool.bin
    1    dve   3              0         0  sg00/dve.bin
    4    sp    4              0         0  sg00/sp.bin
  dma queues: 2
    q_gradient_in owner=pool type=in semaphores=[10] rings=1 blocks=1 descriptors=1
    q_gradient_out owner=pool type=out semaphores=[11] rings=1 blocks=1 descriptors=1
  mem refs: 5
    var_id type           name                           size
    0      input          input                           128
    1      state-buffer   SB                                0
    2      output         output                          128
    3      tmp-buf        gradient_in                     128
    4      tmp-buf        gradient_out                    128
";
    assert_eq!(text, expected);
}

#[test]
fn kbin_json_of_the_sample() {
    let v = json(["kbin", SAMPLE, "--json"]);
    let sg = &v["subgraphs"][0];
    assert_eq!(sg["name"], "sg00");
    assert_eq!(sg["target"], "sunda");
    let each = |key: &str| -> Vec<u64> {
        let engines = sg["engines"].as_array().unwrap();
        engines.iter().map(|e| e[key].as_u64().unwrap()).collect()
    };
    // D340: engines in EngineType order; `slot` keeps the kbin's (alphabetical) slot index.
    assert_eq!(each("eng_type"), [0, 1, 2, 3, 4]);
    assert_eq!(each("slot"), [2, 0, 3, 1, 4]);
    assert_eq!(sg["engines"][0]["ninstr"], 1);
    assert_eq!(sg["engines"][2]["ninstr"], 3);
    assert_eq!(sg["engines"][2]["size"], 192);
    assert_eq!(sg["dma_queues"][0]["owner"], "pool");
    assert_eq!(sg["dma_queues"][1]["semaphores"], serde_json::json!([11]));
    assert_eq!(sg["dma_queues"][0]["rings"][0]["descriptors"], 1);
    assert_eq!(
        sg["mem_refs"][1],
        serde_json::json!({"var_id": 1, "name": "SB", "type": "state-buffer", "size": 0})
    );
}

#[test]
fn kbin_of_the_real_fixture_both_subgraphs_and_one() {
    let Some(real) = real_fixture() else { return };
    let v = json(["kbin", real, "--json"]);
    let names: Vec<&str> = v["subgraphs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["sg00", "sg01"]);
    assert_eq!(v["subgraphs"][0]["target"], "cayman");
    assert_eq!(v["subgraphs"][0]["engines"][0]["ninstr"], 12);
    assert_eq!(v["subgraphs"][1]["mem_refs"][5]["type"], "dge-table");
    let v = json(["kbin", real, "--subgraph", "sg01", "--json"]);
    assert_eq!(v["subgraphs"].as_array().unwrap().len(), 1);
    assert_eq!(v["subgraphs"][0]["name"], "sg01");
}

#[test]
fn unknown_subgraph_and_bad_file_are_exit_1() {
    neff()
        .args(["kbin", SAMPLE, "--subgraph", "sg09"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "no subgraph `sg09` (the kelf has sg00)",
        ));
    let dir = temp_dir();
    let bad = temp_file(&dir, "bad.neff", b"not a neff");
    neff().arg("kbin").arg(&bad).assert().code(1);
}

#[test]
fn info_shows_per_subgraph_instruction_counts() {
    neff()
        .args(["info", SAMPLE])
        .assert()
        .success()
        .stdout(predicates::str::contains(
            "instructions pe=1 act=0 pool=3 dve=0 sp=0",
        ));
    let Some(real) = real_fixture() else { return };
    let v = json(["info", real, "--json"]);
    let e = &v["kelf"]["graphs"][1]["engines"];
    assert_eq!(
        (e["act"].clone(), e["pe"].clone(), e["sp"].clone()),
        (5.into(), 12.into(), 3.into())
    );
}
