//! `neff bir` end to end, running the real binary.

mod common;

use common::{KLR, json, neff, temp_dir, temp_file};
use predicates::prelude::*;

const BAD: &str = r#"{"functions":[{"name":"f","blocks":[{"name":"b","instructions":[
  {"opcode":"Matmult","name":"mm","engine":"DVE","ins":[],"outs":[]},
  {"opcode":"NoOp","name":"x","ins":[],"outs":[],"dependencies":[
    {"target":"x","kind":"Flow"},{"target":"nobody","kind":"Anti"}]}]}]}]}"#;

#[test]
fn check_accepts_the_klr_example() {
    neff()
        .args(["bir", "check", KLR])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "1 functions, 1 instructions, 0 edges",
        ));
}

#[test]
fn check_reports_every_problem_and_exits_1() {
    let dir = temp_dir();
    let bad = temp_file(&dir, "bad.json", BAD);
    neff()
        .args(["bir", "check"])
        .arg(&bad)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "/functions/0/blocks/0/instructions/0/engine: instruction \"mm\": engine DVE is not a valid engine of Matmult",
        ))
        .stdout(predicate::str::contains("/functions/0/blocks/0/instructions/1/dependencies/0: instruction \"x\": dependencies: edge to itself"))
        .stdout(predicate::str::contains("edge to unknown instruction \"nobody\""))
        .stderr(predicate::str::contains("3 problem(s) found"));
    let out = neff()
        .args(["bir", "check", "--json"])
        .arg(&bad)
        .assert()
        .code(1)
        .get_output()
        .stdout
        .clone();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["instructions"], 2);
    assert_eq!(v["problems"].as_array().unwrap().len(), 3);
    assert_eq!(v["problems"][1]["kind"], "SelfEdge");
    assert_eq!(v["problems"][1]["inst"], "x");
}

#[test]
fn check_names_the_json_pointer_of_bad_input() {
    let dir = temp_dir();
    let bad = temp_file(
        &dir,
        "bad.json",
        r#"{"functions":[{"name":"f","blocks":[{"name":"b","instructions":[{"opcode":"NoOp","engine":5}]}]}]}"#,
    );
    neff()
        .args(["bir", "check"])
        .arg(&bad)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "not BIR JSON at /functions/0/blocks/0/instructions/0/engine",
        ));
}

#[test]
fn fmt_reproduces_the_klr_example_and_canonical_is_stable() {
    let original = std::fs::read_to_string(KLR).unwrap();
    neff()
        .args(["bir", "fmt", KLR])
        .assert()
        .success()
        .stdout(original);
    let dir = temp_dir();
    let once = dir.path().join("once.json");
    let twice = dir.path().join("twice.json");
    neff()
        .args(["bir", "fmt", "--canonical", KLR, "-o"])
        .arg(&once)
        .assert()
        .success();
    neff()
        .args(["bir", "fmt", "--canonical"])
        .arg(&once)
        .arg("-o")
        .arg(&twice)
        .assert()
        .success();
    let a = std::fs::read(&once).unwrap();
    assert_eq!(a, std::fs::read(&twice).unwrap());
    assert_eq!(a.iter().filter(|&&b| b == b'\n').count(), 1);
}

#[test]
fn stats_counts_opcodes_and_edges() {
    neff()
        .args(["bir", "stats", KLR])
        .assert()
        .success()
        .stdout(predicate::str::contains("TensorScalar"))
        .stdout(predicate::str::contains("critical path: 1"));
    let v = json(["bir", "stats", "--json", KLR]);
    assert_eq!(v["per_opcode"]["TensorScalar"], 1);
    assert_eq!(v["per_engine"]["Unassigned"], 1);
    assert_eq!(v["dependencies"]["Flow"], 0);
    assert_eq!(v["critical_path"], 1);
}

#[test]
fn graph_writes_dot_and_explains_svg() {
    let dir = temp_dir();
    let dot = dir.path().join("g.dot");
    neff()
        .args(["bir", "graph", KLR, "-o"])
        .arg(&dot)
        .assert()
        .success();
    let text = std::fs::read_to_string(&dot).unwrap();
    assert!(text.starts_with("digraph bir {"));
    assert!(text.contains("noop_test"));
    let svg = dir.path().join("g.svg");
    // Without Graphviz on PATH the message says so, and no file is left behind.
    neff()
        .args(["bir", "graph", KLR, "-o"])
        .arg(&svg)
        .env("PATH", dir.path())
        .assert()
        .code(1)
        .stderr(predicate::str::contains("`dot` is not on PATH"));
    assert!(!svg.exists());
}

#[test]
fn missing_subcommand_is_a_usage_error() {
    neff().args(["bir"]).assert().code(2);
}
