//! `neff load` and `neff ip` on the spec sample (spec 000 §9 walk-through) and the real fixture.

use assert_cmd::Command;
use serde_json::Value;

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/sample.neff");
const REAL: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/fixtures/real/matmul_small.neff"
);

fn neff() -> Command {
    Command::cargo_bin("neff").expect("the neff binary")
}

fn load_json(path: &str) -> Value {
    let out = neff().args(["load", path, "--json"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

fn engine<'a>(doc: &'a Value, sg: usize, name: &str) -> &'a Value {
    doc["subgraphs"][sg]["engines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["engine"] == name)
        .unwrap()
}

#[test]
fn sample_walk_through_of_spec_000_section_9() {
    let doc = load_json(SAMPLE);
    let sg = &doc["subgraphs"][0];
    assert_eq!(sg["name"], "sg00");
    let names: Vec<&str> = sg["engines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["engine"].as_str().unwrap())
        .collect();
    assert_eq!(names.last(), Some(&"sp"), "SP is set up last");
    let pe = engine(&doc, 0, "pe");
    assert_eq!(
        (pe["eng_type"].as_u64(), pe["source_slots"].as_u64()),
        (Some(0), Some(1))
    );
    let r = &pe["regions"];
    let (pre, ms, core, fns) = (
        &r["preamble"],
        &r["model_switch"],
        &r["core"],
        &r["functions"],
    );
    // Regions in order: PREAMBLE (MODEL_SWITCH inside) then MAIN, no FUNCTION range.
    assert_eq!(pre["offset"], 0);
    assert!(ms["offset"].as_u64() >= pre["offset"].as_u64());
    assert!(
        ms["offset"].as_u64().unwrap() + ms["size"].as_u64().unwrap()
            <= pre["size"].as_u64().unwrap()
    );
    assert_eq!(core["offset"], pre["size"]);
    assert_eq!(
        core["size"], 64,
        "the core covers MAIN: one slot (decision D51: one trigger record)"
    );
    assert_eq!(fns["size"], 0);
    assert_eq!(
        fns["offset"], pe["image_bytes"],
        "ib_functions = {{end, 0}}"
    );
    let rows = pe["patches"].as_array().unwrap();
    assert_eq!(
        (&rows[0]["type"], &rows[0]["section"], &rows[0]["offset"]),
        (&"INSERT".into(), &"PREAMBLE".into(), &0.into())
    );
    assert_eq!(
        rows[0]["count"].as_u64().unwrap() * 64,
        pre["size"].as_u64().unwrap()
    );
    let post = rows.iter().find(|p| p["section"] == "POSTAMBLE").unwrap();
    assert_eq!(post["type"], "INSERT");
    assert_eq!(
        post["offset"].as_u64(),
        Some(core["offset"].as_u64().unwrap() + 64)
    );
    // A device PC inside pe's collective trigger is NEFF IP 1.
    let pc = pe["base"].as_u64().unwrap() + core["offset"].as_u64().unwrap();
    let out = neff()
        .args(["ip", SAMPLE, "--engine", "pe", &format!("{pc:#x}")])
        .output()
        .unwrap();
    assert!(out.status.success());
    let line: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (line["neff_ip"].as_u64(), line["section"].as_str()),
        (Some(1), Some("MAIN"))
    );
    assert_eq!(line["device_ip"].as_u64(), Some(pc));
    assert!(
        line["text"]
            .as_str()
            .unwrap()
            .starts_with("PSEUDO_TRIGGER_COLLECTIVE"),
        "{line}"
    );
}

#[test]
fn ip_reads_stdin_reports_out_of_bounds_and_reverses() {
    let doc = load_json(SAMPLE);
    let pool = engine(&doc, 0, "pool");
    let base = pool["base"].as_u64().unwrap();
    let core = pool["regions"]["core"]["offset"].as_u64().unwrap();
    let input = format!("{}\n{}\n", base + core + 128, base);
    let out = neff()
        .args(["ip", SAMPLE, "--engine", "pool"])
        .write_stdin(input)
        .output()
        .unwrap();
    let lines: Vec<Value> = out
        .stdout
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect();
    assert_eq!(lines[0]["neff_ip"], 3);
    assert_eq!(
        lines[1]["error"],
        format!("device_ip {base:#x} is out of bounds of main and function buffer")
    );
    let out = neff()
        .args(["ip", SAMPLE, "--engine", "pool", "--reverse", "2"])
        .output()
        .unwrap();
    let line: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(line["device_start"].as_u64(), Some(base + core + 64));
    assert_eq!(line["device_end"].as_u64(), Some(base + core + 128));
}

#[test]
fn out_writes_exact_images_and_load_json() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    neff()
        .args(["load", SAMPLE, "--out"])
        .arg(&out)
        .assert()
        .success();
    let doc: Value =
        serde_json::from_slice(&std::fs::read(out.join("load.json")).unwrap()).unwrap();
    for e in doc["subgraphs"][0]["engines"].as_array().unwrap() {
        let img = std::fs::read(
            out.join("sg00")
                .join(format!("{}.img", e["engine"].as_str().unwrap())),
        )
        .unwrap();
        assert_eq!(img.len() as u64, e["image_bytes"].as_u64().unwrap());
    }
}

#[test]
fn real_fixture_loads_both_subgraphs() {
    if !std::path::Path::new(REAL).exists() {
        assert!(
            std::env::var("NEFFKIT_REQUIRE_FIXTURES").as_deref() != Ok("1"),
            "fixture missing: {REAL}"
        );
        eprintln!("skipping: {REAL} not present");
        return;
    }
    let doc = load_json(REAL);
    let sgs = doc["subgraphs"].as_array().unwrap();
    assert_eq!(sgs.len(), 2);
    for sg in sgs {
        assert_eq!(sg["engines"].as_array().unwrap().len(), 5);
        assert_eq!(sg["engines"][4]["engine"], "sp");
    }
}
