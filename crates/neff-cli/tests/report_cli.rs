//! `neff report` on the spec sample and on every real fixture: one file, every section, nothing
//! fetched; a NEFF that does not load still gets its page.

mod common;

use common::{SAMPLE, fixture_present, neff, temp_dir};

/// The section ids of every page (issue 17).
const SECTIONS: [&str; 5] = ["header", "members", "engines", "dma", "timeline"];

/// Real NEFFs beside the repository (../shared/fixtures/real), read in place.
const REAL_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/fixtures/real");

/// Runs `neff report PATH -o OUT` and returns the page and stderr.
fn report(path: &str) -> (String, String) {
    let dir = temp_dir();
    let out = dir.path().join("report.html");
    let o = neff()
        .args(["report", path, "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(stdout.contains("report.html: "), "{stdout}");
    (
        std::fs::read_to_string(&out).unwrap(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn assert_sections(html: &str) {
    for id in SECTIONS {
        assert!(html.contains(&format!("<section id=\"{id}\"")), "no #{id}");
    }
    assert!(!html.contains("src=\"http"), "something is fetched");
}

#[test]
fn sample_report_has_every_section() {
    let (html, stderr) = report(SAMPLE);
    assert_sections(&html);
    assert!(html.contains("id=\"engine-sg00-pool\""));
    assert_eq!(stderr, "");
}

#[test]
fn every_real_fixture_gets_a_page() {
    for name in [
        "matmul_small.neff",
        "attn_v6.neff",
        "moe_v6b.neff",
        "profiled/baseline_attention.neff",
        "profiled/fused_attention.neff",
        "profiled/baseline_bf16_s512.neff",
        "profiled/fused_fp32_s512.neff",
    ] {
        let path = format!("{REAL_DIR}/{name}");
        if !fixture_present(&path) {
            continue;
        }
        let (html, stderr) = report(&path);
        assert_sections(&html);
        assert!(html.contains("id=\"engine-sg00-pe\""), "{name}");
        // A NEFF neffkit cannot load yet says so on the page and on stderr, and still exits 0.
        let loaded = !html.contains("The NEFF did not load");
        assert_eq!(loaded, stderr.is_empty(), "{name}: {stderr}");
    }
}

#[test]
fn output_is_required() {
    neff().args(["report", SAMPLE]).assert().code(2);
}

#[test]
fn a_file_that_is_not_a_neff_is_refused() {
    let dir = temp_dir();
    let bad = dir.path().join("bad.neff");
    std::fs::write(&bad, b"not a neff").unwrap();
    let out = dir.path().join("r.html");
    neff()
        .arg("report")
        .arg(&bad)
        .arg("-o")
        .arg(&out)
        .assert()
        .code(1);
    assert!(!out.exists(), "no page for a file that does not parse");
}
