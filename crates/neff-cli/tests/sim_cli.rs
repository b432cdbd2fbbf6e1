//! `neff sim`: the spec sample runs to completion (text, `--json` shape, `--trace`); the sample
//! with POOL's first trigger gated on `$S[22]` deadlocks (exit 1, both engines named); a real
//! profiled NEFF compares with its profile; `--by-source` sums time per NKI source line (moe_v6b)
//! and per BIR instruction, measured too with `--compare`.

mod common;

use common::*;

/// The sample with POOL slot 0 waiting `$S[22]>0` (spec 003 §7.2 bytes +4, +5).
fn deadlocking_sample(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let bytes = std::fs::read(SAMPLE).unwrap();
    let neff = neff_container::Neff::parse(&bytes).unwrap();
    let mut pool = neff.member("sg00/pool.bin").unwrap().to_vec();
    pool[4] = 0x04;
    pool[5] = 22;
    let mut b = neff_container::NeffBuilder::from_neff(&neff);
    b.replace("sg00/pool.bin", pool).unwrap();
    temp_file(dir, "deadlock.neff", b.build().unwrap())
}

#[test]
fn sample_json_has_the_issue_shape() {
    let v = json(["sim", SAMPLE, "--json"]);
    assert!(v["deadlock"].is_null());
    let sg = &v["subgraphs"][0];
    assert_eq!(sg["name"], "sg00");
    assert!(sg["span_ns"].as_u64().unwrap() > 0);
    let engines = sg["engines"].as_array().unwrap();
    let order: Vec<&str> = engines
        .iter()
        .map(|e| e["engine"].as_str().unwrap())
        .collect();
    assert_eq!(
        order,
        ["pe", "act", "pool", "dve", "sp"],
        "EngineType order (D340)"
    );
    for e in engines {
        for k in ["engine", "busy_ns", "wait_ns", "instructions"] {
            assert!(e.get(k).is_some(), "{k} in {e}");
        }
    }
    let pool = engines.iter().find(|e| e["engine"] == "pool").unwrap();
    assert_eq!(pool["instructions"], 3);
    assert!(sg.get("timeline").is_none());
}

#[test]
fn sample_text_and_trace() {
    let dir = temp_dir();
    let trace = dir.path().join("t.json");
    let out = stdout(["sim", SAMPLE, "--trace", trace.to_str().unwrap()]);
    assert!(out.starts_with("sg00: span "), "{out}");
    assert!(out.contains("critical path:"), "{out}");
    let t: Value = serde_json::from_slice(&std::fs::read(&trace).unwrap()).unwrap();
    let ev = t["traceEvents"].as_array().unwrap();
    let names: Vec<&str> = ev.iter().filter_map(|e| e["name"].as_str()).collect();
    assert!(
        names
            .iter()
            .any(|n| n.starts_with("[0] PSEUDO") || n.starts_with("[0] WRITE"))
    );
    assert!(ev.iter().any(|e| e["ph"] == "C" && e["name"] == "$S[22]"));
    assert!(
        ev.iter()
            .any(|e| e["args"]["name"] == "queue q_gradient_in")
    );
}

#[test]
fn gated_sample_is_a_deadlock_naming_both_engines() {
    let dir = temp_dir();
    let f = deadlocking_sample(&dir);
    let out = neff()
        .args(["sim"])
        .arg(&f)
        .assert()
        .code(1)
        .get_output()
        .clone();
    let text = String::from_utf8(out.stdout).unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(text.contains("pool blocked at slot 0"), "{text}");
    assert!(text.contains("pe blocked at slot 0"), "{text}");
    assert!(text.contains("waits for $S[22] > 0"), "{text}");
    assert!(text.contains("queue q_gradient_in (pool)"), "{text}");
    assert!(
        err.contains("deadlock") && err.contains("wait cycle"),
        "{err}"
    );
    let v: Value = serde_json::from_slice(
        &neff()
            .args(["sim", "--json"])
            .arg(&f)
            .assert()
            .code(1)
            .get_output()
            .stdout,
    )
    .unwrap();
    let cycle: Vec<&str> = v["deadlock"]["cycle"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    assert!(
        cycle.contains(&"pool") && cycle.contains(&"pe"),
        "{cycle:?}"
    );
}

#[test]
fn real_profiled_neff_compares_with_its_profile() {
    let neff = format!("{PROFILED}/fused_attention.neff");
    let profile = format!("{PROFILED}/fused_attention.profile.json.gz");
    if !fixture_present(&neff) {
        return;
    }
    let v = json(["sim", &neff, "--compare", &profile, "--json"]);
    let c = &v["compare"]["subgraphs"][0];
    assert_eq!(c["name"], "sg00");
    assert_eq!(c["measured_span_ns"], 23639);
    assert!(c["paired"].as_u64().unwrap() >= 150);
    assert!(
        c["classes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k["class"] == "MATMUL")
    );
}

#[test]
fn by_source_sums_simulated_time_per_nki_line() {
    if !fixture_present(MOE) {
        return;
    }
    let v = json(["sim", MOE, "--by-source", "--json"]);
    let lines = v["by_source"].as_array().unwrap();
    // Lines from the kernel's KLR map (disasm --source: slot 3 of PE is line 205); how often each
    // runs follows from the program, not from the cost model, so the counts are pinned.
    let file = "/home/ubuntu/nki-moe/kernels/moe_tkg/agents/v6b_1_coalesce_down_dma.py";
    let count = |n: u64| {
        lines
            .iter()
            .find(|l| l["file"] == file && l["line"] == n)
            .map(|l| l["instructions"].as_u64().unwrap())
    };
    assert_eq!(count(205), Some(1104));
    assert_eq!(count(190), Some(676));
    assert!(lines[0].get("measured_ns").is_none());
    // Every slot's time is under a line or counted as having none.
    let busy = v["busy_ns"].as_u64().unwrap();
    let sum: u64 = lines.iter().map(|l| l["busy_ns"].as_u64().unwrap()).sum();
    let none = v["no_source_ns"].as_u64().unwrap();
    assert!(busy > 0 && none < busy / 10, "{busy} {none}");
    assert!(
        (sum + none).abs_diff(busy) <= lines.len() as u64,
        "{sum}+{none} vs {busy}"
    );
    assert!(
        lines
            .windows(2)
            .all(|w| w[0]["busy_ns"].as_u64() >= w[1]["busy_ns"].as_u64())
    );
    assert!(!v["by_bir"].as_array().unwrap().is_empty());
    let text = stdout(["sim", MOE, "--by-source", "--top", "3"]);
    assert!(
        text.contains("time by source line") && text.contains("v6b_1_coalesce_down_dma.py:205"),
        "{text}"
    );
}

#[test]
fn by_source_with_compare_gives_measured_time_per_bir_instruction() {
    let neff = format!("{PROFILED}/fused_attention.neff");
    let profile = format!("{PROFILED}/fused_attention.profile.json.gz");
    if !fixture_present(&neff) {
        return;
    }
    let v = json(["sim", &neff, "--compare", &profile, "--by-source", "--json"]);
    // The profiled NEFFs carry BIR names but no source lines.
    assert!(v["by_source"].as_array().unwrap().is_empty());
    let birs = v["by_bir"].as_array().unwrap();
    let measured: u64 = birs
        .iter()
        .map(|b| b["measured_ns"].as_u64().unwrap())
        .sum();
    assert!(measured > 0);
    let i17 = birs.iter().find(|b| b["bir"] == "I-17-0").unwrap();
    assert_eq!(i17["subgraph"], "sg00");
    assert_eq!(i17["instructions"], 4);
    assert!(i17["measured_ns"].as_u64().unwrap() > 0);
}

/// sg00's busy time of `engine` and its span, from `neff sim --json` with `extra` flags.
fn busy_and_span(neff: &str, extra: &[&str], engine: &str) -> (f64, f64) {
    let mut args = vec!["sim", neff, "--json", "--subgraph", "sg00"];
    args.extend_from_slice(extra);
    let v = json(args);
    let sg = &v["subgraphs"][0];
    let e = (sg["engines"].as_array().unwrap().iter())
        .find(|e| e["engine"] == engine)
        .unwrap();
    (
        e["busy_ns"].as_f64().unwrap(),
        sg["span_ns"].as_f64().unwrap(),
    )
}

/// The what-if knobs (issue 30, D441-D442): a factor of 2 on an engine halves its busy time, a
/// doubled clock halves the non-PE engines', a starved DMA bandwidth lengthens the run; a bad
/// value is a usage error naming the flag.
#[test]
fn what_if_knobs_change_the_times_they_name() {
    let file = format!("{PROFILED}/fused_attention.neff");
    if !fixture_present(&file) {
        return;
    }
    let (pe, span) = busy_and_span(&file, &[], "pe");
    let (pe2, _) = busy_and_span(&file, &["--engine-speed", "pe=2"], "pe");
    let r = pe2 / pe;
    assert!((0.45..=0.55).contains(&r), "pe=2: busy {pe} -> {pe2}");
    let (act, _) = busy_and_span(&file, &[], "act");
    // fused_attention is a trn2 NEFF: engines at 1.2 GHz; 2.4 doubles them.
    let (act2, _) = busy_and_span(&file, &["--clock", "2.4"], "act");
    let r = act2 / act;
    assert!(
        (0.45..=0.55).contains(&r),
        "--clock 2.4: act busy {act} -> {act2}"
    );
    let (_, slow) = busy_and_span(&file, &["--dma-bandwidth", "10"], "pe");
    assert!(
        slow > 2.0 * span,
        "--dma-bandwidth 10: span {span} -> {slow}"
    );
    for (flag, value) in [
        ("--engine-speed", "xx=2"),
        ("--engine-speed", "pe=0"),
        ("--clock", "0"),
        ("--dma-bandwidth", "nan"),
    ] {
        let out = neff().args(["sim", &file, flag, value]).output().unwrap();
        assert!(!out.status.success(), "{flag} {value}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(flag), "{flag} {value}: {err}");
    }
}
