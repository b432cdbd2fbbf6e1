//! `neff load` and `neff ip` on the spec sample (spec 000 §9 walk-through) and the real fixture.

mod common;

use std::path::{Path, PathBuf};

use common::{SAMPLE, Value, json, neff, real_fixture, temp_dir};

/// `neff load PATH --json`.
fn load_json(path: &str) -> Value {
    json(["load", path, "--json"])
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
fn empty_engines_are_warned_about_and_the_load_succeeds() {
    // spec 003 §10.5 / spec 000 §9: the sample's act.bin, dve.bin and sp.bin are 0 bytes.
    let out = neff()
        .args(["load", SAMPLE])
        .assert()
        .success()
        .get_output()
        .clone();
    let stderr = String::from_utf8(out.stderr).unwrap();
    let warned: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("the instruction stream is empty (0 bytes)"))
        .map(|l| l.split(':').next().unwrap())
        .collect();
    assert_eq!(
        warned,
        ["warning", "warning", "warning"],
        "one WARN per empty engine: {stderr}"
    );
    for e in ["sg00/act", "sg00/dve", "sg00/sp"] {
        assert!(stderr.contains(&format!("warning: {e}: ")), "{stderr}");
    }
    assert!(
        !stderr.contains("sg00/pe:") && !stderr.contains("sg00/pool:"),
        "{stderr}"
    );
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
    // D340: every report lists engines in EngineType order (SP is still set up last).
    assert_eq!(names, ["pe", "act", "pool", "dve", "sp"]);
    let pe = engine(&doc, 0, "pe");
    assert_eq!(
        (pe["eng_type"].as_u64(), pe["source_slots"].as_u64()),
        (Some(0), Some(1))
    );
    let r = &pe["regions"];
    let (pre, ms, core, post, fns) = (
        &r["preamble"],
        &r["model_switch"],
        &r["main"],
        &r["postamble"],
        &r["function"],
    );
    // D341: the regions are the patch rows' sections (plus MODEL_SWITCH), back to back, each
    // with its slot count; lowered_slots counts MAIN and FUNCTION.
    let end = |v: &Value| v["offset"].as_u64().unwrap() + v["size"].as_u64().unwrap();
    assert_eq!(post["offset"].as_u64(), Some(end(core)));
    assert_eq!(fns["offset"].as_u64(), Some(end(post)));
    assert!(
        post["size"].as_u64().unwrap() > 0,
        "the POSTAMBLE is not empty"
    );
    for region in [pre, ms, core, post, fns] {
        assert_eq!(
            region["slots"].as_u64().unwrap() * 64,
            region["size"].as_u64().unwrap()
        );
    }
    assert_eq!(
        pe["lowered_slots"].as_u64().unwrap(),
        core["slots"].as_u64().unwrap() + fns["slots"].as_u64().unwrap()
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
    let line = json(["ip", SAMPLE, "--engine", "pe", &format!("{pc:#x}")]);
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
fn ip_names_the_slot_before_main_and_the_runtimes_missing_section() {
    // spec 004 §3 (decision D291): the runtime probes MAIN from main.base - 0x40, where its walk
    // would answer NEFF IP 0; and it finds MAIN by its first patch row, which pe's MAIN (one
    // 0xC8, 1 -> 1) does not have.
    let doc = load_json(SAMPLE);
    let pe = engine(&doc, 0, "pe");
    let main = pe["base"].as_u64().unwrap() + pe["regions"]["main"]["offset"].as_u64().unwrap();
    let out = neff()
        .args([
            "ip",
            SAMPLE,
            "--engine",
            "pe",
            &format!("{:#x}", main - 0x40),
        ])
        .assert()
        .code(1)
        .get_output()
        .clone();
    let line: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        line["error"]
            .as_str()
            .unwrap()
            .contains("is the slot before MAIN"),
        "{line}"
    );
    let line = json(["ip", SAMPLE, "--engine", "pe", &format!("{main:#x}")]);
    assert_eq!(line["neff_ip"], 1);
    assert_eq!(
        line["runtime_error"],
        "Failed to find section 2 in the patch list"
    );
}

#[test]
fn ip_reads_stdin_reports_out_of_bounds_and_reverses() {
    let doc = load_json(SAMPLE);
    let pool = engine(&doc, 0, "pool");
    let base = pool["base"].as_u64().unwrap();
    let core = pool["regions"]["main"]["offset"].as_u64().unwrap();
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
    // Every value got its line, and the exit status says one of them did not map.
    assert_eq!(out.status.code(), Some(1));
    let line = json(["ip", SAMPLE, "--engine", "pool", "--reverse", "2"]);
    assert_eq!(line["device_start"].as_u64(), Some(base + core + 64));
    assert_eq!(line["device_end"].as_u64(), Some(base + core + 128));
}

#[test]
fn out_writes_exact_images_and_load_json() {
    let dir = temp_dir();
    let (out, doc) = load_out(dir.path());
    for e in doc["subgraphs"][0]["engines"].as_array().unwrap() {
        let img = std::fs::read(
            out.join("sg00")
                .join(format!("{}.img", e["engine"].as_str().unwrap())),
        )
        .unwrap();
        assert_eq!(img.len() as u64, e["image_bytes"].as_u64().unwrap());
    }
}

/// `neff load SAMPLE --out <tmp>/o`: the output dir and its load.json.
fn load_out(tmp: &Path) -> (PathBuf, Value) {
    let out = tmp.join("o");
    neff()
        .args(["load", SAMPLE, "--out"])
        .arg(&out)
        .assert()
        .success();
    let doc = serde_json::from_slice(&std::fs::read(out.join("load.json")).unwrap()).unwrap();
    (out, doc)
}

/// The image record at `core + 64 * k` of `engine`'s image in `out`.
fn core_record(out: &Path, doc: &Value, engine_name: &str, k: usize) -> Vec<u8> {
    let e = engine(doc, 0, engine_name);
    let img = std::fs::read(out.join("sg00").join(format!("{engine_name}.img"))).unwrap();
    let at = e["regions"]["main"]["offset"].as_u64().unwrap() as usize + 64 * k;
    img[at..at + 64].to_vec()
}

#[test]
fn sample_images_carry_the_lowered_records() {
    let dir = temp_dir();
    let (out, doc) = load_out(dir.path());
    let u64_at = |r: &[u8], at: usize| u64::from_le_bytes(r[at..at + 8].try_into().unwrap());
    // pe's 0xC8 became its one trigger record: WRITE (0xA5) of the collective doorbell
    // (docs/device-model.md: 0x0010_2000_0000 + 8 * eng_type 0), waiting $S[10]>0 and
    // incrementing $S[22] on completion (spec 003 §7.1 events kept).
    let pe = core_record(&out, &doc, "pe", 0);
    assert_eq!(&pe[..8], &[0xA5, 0x10, 0, 0, 0x04, 0x0A, 0x13, 0x16]);
    assert_eq!(u64_at(&pe, 0x10), 0x0010_2000_0000);
    // pool's two 0xC1 became WRITEs of the tail pointers of q_gradient_in (queue 0) and
    // q_gradient_out (queue 1, keeping its $S[22]>0 wait); the 0xA0 passes through unchanged.
    let w0 = core_record(&out, &doc, "pool", 0);
    assert_eq!((w0[0], u64_at(&w0, 0x10)), (0xA5, 0x0010_0000_0000));
    let w1 = core_record(&out, &doc, "pool", 1);
    assert_eq!((w1[0], &w1[4..6]), (0xA5, &[0x04, 0x16][..]));
    assert_eq!(u64_at(&w1, 0x10), 0x0010_0000_1000);
    let es = core_record(&out, &doc, "pool", 2);
    assert_eq!(&es[..6], &[0xA0, 0x10, 0, 0, 0x04, 0x0B]);
    // Staging in set-up order (act dve pe pool sp), each at the next 0x8000 of HBM 0x40_0000_0000,
    // listed in EngineType order (pe act pool dve sp, D340); pool's POSTAMBLE re-arms its two
    // rings (0x2c0 bytes with the bound check).
    let bases: Vec<u64> = doc["subgraphs"][0]["engines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["base"].as_u64().unwrap())
        .collect();
    assert_eq!(
        bases,
        [
            0x40_0001_0000,
            0x40_0000_0000,
            0x40_0001_8000,
            0x40_0000_8000,
            0x40_0002_0000
        ]
    );
    let pool = engine(&doc, 0, "pool");
    assert_eq!(pool["image_bytes"], 1344);
    assert_eq!(engine(&doc, 0, "pe")["image_bytes"], 960);
}

#[test]
fn real_fixture_loads_both_subgraphs() {
    let Some(real) = real_fixture() else { return };
    let doc = load_json(real);
    let sgs = doc["subgraphs"].as_array().unwrap();
    assert_eq!(sgs.len(), 2);
    for sg in sgs {
        assert_eq!(sg["engines"].as_array().unwrap().len(), 5);
        assert_eq!(sg["engines"][4]["engine"], "sp");
        // Lowering ran: each engine's 0xCC label became one DELETE row in MAIN (reference §4.5:
        // every engine stream opens with SET_ORDERING_MODE then a label).
        for e in sg["engines"].as_array().unwrap() {
            let deletes = e["patches"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|p| p["type"] == "DELETE" && p["section"] == "MAIN")
                .count();
            assert_eq!(deletes, 1, "{}", e["engine"]);
        }
    }
}

/// Without `--out` the images are freed once built (a report-only load): the report is the
/// same document `--out` writes to load.json, and `--progress` never draws in `--json` mode.
#[test]
fn report_only_load_matches_out_and_json_has_no_progress() {
    let dir = temp_dir();
    let (_, written) = load_out(dir.path());
    let out = neff()
        .args(["load", SAMPLE, "--json", "--progress"])
        .output()
        .unwrap();
    assert!(out.status.success());
    // No bar: stderr holds only the empty-engine warnings (spec 003 §10.5).
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.lines().all(|l| l.starts_with("warning: ")),
        "{stderr}"
    );
    let printed: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(printed, written);
}
