//! The NEFF's debug info in the CLI (issue 21): `disasm --source` / `--json`, `ip` and `lower`
//! carry each slot's BIR instruction, HLO op and source line; bad debug info is a warning.

mod common;

use common::{MOE, REAL, SAMPLE, fixture_present, json, neff, stdout, temp_dir};

/// `CMD FILE --subgraph sg00 --engine ENGINE FLAG`.
fn sg00_args<'a>(cmd: &'a str, file: &'a str, engine: &'a str, flag: &'a str) -> [&'a str; 7] {
    [cmd, file, "--subgraph", "sg00", "--engine", engine, flag]
}

#[test]
fn disasm_source_appends_bir_line_and_hlo_op() {
    if !fixture_present(REAL) {
        return;
    }
    let out = stdout(sg00_args("disasm", REAL, "pe", "--source"));
    let lines: Vec<&str> = out.lines().collect();
    // Header, then slot 0 (SET_ORDERING_MODE: no BIR instruction, nothing appended).
    assert_eq!(lines[1], "   0: SET_ORDERING_MODE ordering_mode=relaxed");
    assert!(lines[3].ends_with("  # I-87-0-wait-0"), "{}", lines[3]);
    assert!(
        lines[9].ends_with("  # I-72-0 test_spike_async.py:58 %op0 = dot"),
        "{}",
        lines[9]
    );
}

#[test]
fn disasm_source_output_still_assembles() {
    if !fixture_present(REAL) {
        return;
    }
    let dir = temp_dir();
    let text = stdout(sg00_args("disasm", REAL, "pe", "--source"));
    let asm = dir.path().join("pe.asm");
    std::fs::write(&asm, text).unwrap();
    let bin = dir.path().join("pe.bin");
    neff()
        .args(["asm", asm.to_str().unwrap(), "-o", bin.to_str().unwrap()])
        .assert()
        .success();
    let cat = neff().args(["cat", REAL, "sg00/PE.bin"]).output().unwrap();
    assert_eq!(std::fs::read(&bin).unwrap(), cat.stdout);
}

#[test]
fn disasm_json_gives_nki_line_and_loop_iterations() {
    if !fixture_present(MOE) {
        return;
    }
    let v = json(sg00_args("disasm", MOE, "pe", "--json"));
    let slot = &v["streams"][0]["slots"][3];
    assert_eq!(slot["bir"], "inst.186");
    assert_eq!(slot["hlo"]["op_type"], "xla___op_<locals>CallImpl");
    let src = &slot["source"];
    assert_eq!(
        src["file"],
        "/home/ubuntu/nki-moe/kernels/moe_tkg/agents/v6b_1_coalesce_down_dma.py"
    );
    assert_eq!(src["line"], 205);
    let iters: Vec<String> = src["iters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            format!(
                "{}={}",
                i["var"].as_str().unwrap(),
                i["val"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(iters, ["t=0", "k=0", "h_t=0", "gu_t=2"]);
    let first = &v["streams"][0]["slots"][0];
    assert!(first["bir"].is_null() && first["source"].is_null());
}

#[test]
fn a_neff_without_debug_info_gives_null_keys_and_no_warning() {
    let out = neff()
        .args(["disasm", SAMPLE, "--engine", "pool", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let slot = &v["streams"][0]["slots"][0];
    assert!(slot["bir"].is_null() && slot["hlo"].is_null() && slot["source"].is_null());
    // Asked for with --source, its absence is a warning, not a failure.
    neff()
        .args(["disasm", SAMPLE, "--engine", "pool", "--source"])
        .assert()
        .success()
        .stderr(predicates::str::contains("no debug info"));
}

#[test]
fn ip_answers_carry_the_bir_instruction_and_source() {
    if !fixture_present(REAL) {
        return;
    }
    // NEFF IP 9 is slot 8 of sg00/PE.bin.
    let out = stdout(["ip", REAL, "--engine", "pe", "--reverse", "9"]);
    let v: serde_json::Value = serde_json::from_str(out.trim()).unwrap();
    assert_eq!(v["bir"], "I-72-0");
    assert_eq!(v["hlo"]["name"], "%op0 = dot(%x, %y)");
    assert_eq!(v["source"]["line"], 58);
}

#[test]
fn lower_records_keep_their_source_slot_debug_info() {
    if !fixture_present(REAL) {
        return;
    }
    let v = json(sg00_args("lower", REAL, "pool", "--json"));
    let records = v["subgraphs"][0]["engines"][0]["records"]
        .as_array()
        .unwrap();
    // Source slot 3 (PSEUDO_DMA_DIRECT2D of I-71-0) lowers to the runtime's DMAMEMCPY (D461,
    // the runtime model's form since D850) that keeps I-71-0.
    let r = records.iter().find(|r| r["source_slot"] == 3).unwrap();
    assert!(r["text"].as_str().unwrap().starts_with("DMAMEMCPY"));
    assert_eq!(r["bir"], "I-71-0");
    assert_eq!(r["source"]["line"], 58);
}

#[test]
fn a_corrupt_debug_member_is_a_warning_naming_it() {
    if !fixture_present(REAL) {
        return;
    }
    let dir = temp_dir();
    let tree = dir.path().join("tree");
    let tree_s = tree.to_str().unwrap();
    neff()
        .args(["extract", REAL, "-C", tree_s])
        .assert()
        .success();
    // A length-delimited field 3 whose length runs past the end of the member.
    std::fs::write(tree.join("sg00/debug_info_asm_PE.dbg"), [0x1a, 0x7f, 0x00]).unwrap();
    let bad = dir.path().join("bad.neff");
    neff()
        .args(["pack", tree_s, "-o", bad.to_str().unwrap(), "--like", REAL])
        .assert()
        .success();
    let out = neff()
        .args([
            "disasm",
            bad.to_str().unwrap(),
            "--engine",
            "pe",
            "--source",
        ])
        .assert()
        .success()
        .stderr(predicates::str::contains(
            "debug info: sg00/debug_info_asm_PE.dbg: not a debug-info protobuf",
        ))
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    // sg00's PE slots lost their notes; sg01's (whose members are intact) keep theirs.
    let sg01 = text.split("# sg01/PE.bin").nth(1).unwrap();
    assert!(sg01.contains("# I-72-0"));
    assert!(!text.split("# sg01/PE.bin").next().unwrap().contains("# I-"));
}

#[test]
fn bir_from_neff_yields_bir_that_checks_and_draws() {
    for file in [REAL, MOE] {
        if !fixture_present(file) {
            return;
        }
        let dir = temp_dir();
        let bir = dir.path().join("bir.json");
        let bir_s = bir.to_str().unwrap();
        let report = json(["bir", "from-neff", file, "-o", bir_s, "--json"]);
        assert_eq!(report["subgraph"], "sg00");
        assert!(report["instructions"].as_u64().unwrap() > 10, "{report}");
        assert!(report["not_given"].as_str().unwrap().starts_with("opcode"));
        let check = stdout(["bir", "check", bir_s]);
        assert!(check.starts_with("ok: "), "{check}");
        let dot = dir.path().join("deps.dot");
        stdout(["bir", "graph", bir_s, "-o", dot.to_str().unwrap()]);
        assert!(
            std::fs::read_to_string(&dot)
                .unwrap()
                .starts_with("digraph bir {")
        );
    }
}

#[test]
fn bir_from_neff_without_debug_info_fails_clearly() {
    let dir = temp_dir();
    let out = dir.path().join("bir.json");
    neff()
        .args(["bir", "from-neff", SAMPLE, "-o", out.to_str().unwrap()])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("has no BIR debug info"));
    assert!(!out.exists());
}
