//! `neff report` on the spec sample and on every real fixture: one file, every section, nothing
//! fetched; a NEFF that does not load still gets its page.

mod common;

use common::{REAL_DIR, SAMPLE, Value, fixture_present, neff, temp_dir};

/// The section ids of every page (issue 17).
const SECTIONS: [&str; 5] = ["header", "members", "engines", "dma", "timeline"];

/// Runs `neff report PATH -o OUT` and returns the page and stderr.
fn report(path: &str) -> (String, String) {
    report_with(&[path])
}

/// Runs `neff report ARGS... -o OUT` and returns the page and stderr.
fn report_with(args: &[&str]) -> (String, String) {
    let dir = temp_dir();
    let out = dir.path().join("report.html");
    let o = neff()
        .arg("report")
        .args(args)
        .arg("-o")
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
    // The sample loads and simulates (its semaphores end raised: neff sim's warning).
    assert!(!stderr.contains("not loaded"), "{stderr}");
    assert!(html.contains("<svg class=\"timeline\""));
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
        assert_eq!(loaded, !stderr.contains("not loaded"), "{name}: {stderr}");
        // A loaded NEFF is simulated and its timeline drawn.
        assert_eq!(loaded, html.contains("<svg class=\"timeline\""), "{name}");
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

#[test]
fn a_profiled_fixture_gets_the_comparison() {
    let dir = format!("{REAL_DIR}/profiled");
    let (neff_path, profile) = (
        format!("{dir}/fused_attention.neff"),
        format!("{dir}/fused_attention.profile.json.gz"),
    );
    if !fixture_present(&neff_path) || !fixture_present(&profile) {
        return;
    }
    let (html, _) = report_with(&[&neff_path, "--profile", &profile]);
    assert_sections(&html);
    assert!(html.contains("<section id=\"profile-compare\""));
    assert!(html.contains("href=\"#profile-compare\""));
    // The measured lanes sit under the simulated ones, and classes are compared: the profile
    // holds 60 MATMUL rows with a compiler_pc in sg00, each paired with the run's.
    assert!(html.contains(">measured pe</text>"));
    assert!(html.contains(">simulated pe</text>"));
    assert!(
        html.contains("<td>MATMUL</td><td class=\"num\">60</td>"),
        "no MATMUL row"
    );
}

#[test]
fn a_profile_of_another_neff_is_refused() {
    let dir = format!("{REAL_DIR}/profiled");
    let (neff_path, profile) = (
        format!("{dir}/fused_attention.neff"),
        format!("{dir}/baseline_attention.profile.json.gz"),
    );
    if !fixture_present(&neff_path) || !fixture_present(&profile) {
        return;
    }
    let out = temp_dir();
    neff()
        .args(["report", &neff_path, "--profile", &profile, "-o"])
        .arg(out.path().join("r.html"))
        .assert()
        .code(1)
        .stderr(predicates::str::contains("uuid"));
}

/// `s` as maud writes it into the page.
fn escaped(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[test]
fn a_capture_opens_the_page_with_the_answer() {
    let dir = format!("{REAL_DIR}/profiled");
    let (neff_path, capture) = (
        format!("{dir}/fused_attention.neff"),
        format!("{dir}/fused_attention.ntff.gz"),
    );
    if !fixture_present(&neff_path) || !fixture_present(&capture) {
        return;
    }
    let (html, _) = report_with(&[&neff_path, "--profile", &capture]);
    assert_sections(&html);
    let at = |id: &str| html.find(&format!("<section id=\"{id}\"")).unwrap();
    // The answer comes first: before the header, members and the comparison it sums up.
    assert!(at("answer") < at("header") && at("header") < at("profile-compare"));
    assert!(html.find("href=\"#answer\"").unwrap() < html.find("href=\"#header\"").unwrap());
    let answer = &html[at("answer")..];
    let answer = &answer[..answer.find("</section>").unwrap()];
    for sg in ["sg00", "sg01"] {
        assert!(
            answer.contains(&format!("<td>{sg}</td>")),
            "no {sg} span row"
        );
    }
    // The top instructions are `neff profile --neff`'s, in its order, with its disassembly and
    // source lines.
    let out = neff()
        .args(["profile", "--json", &capture, "--neff", &neff_path])
        .output()
        .unwrap();
    assert!(out.status.success());
    let top: Value = serde_json::from_slice(&out.stdout).unwrap();
    let top = top["top"].as_array().unwrap();
    assert_eq!(top.len(), 10);
    let table = &answer[answer.find("answer-top").unwrap()..];
    assert_eq!(
        table.matches("<tr>").count(),
        1 + top.len(),
        "header + one row each"
    );
    let mut from = 0;
    for row in top {
        let text = format!("<code>{}</code>", escaped(row["text"].as_str().unwrap()));
        let found = table[from..].find(&text);
        assert!(found.is_some(), "{text} not in order in the answer");
        from += found.unwrap() + 1;
        if let Some(src) = row["source"].as_str() {
            assert!(table.contains(&escaped(src)), "{src}");
        }
    }
}
