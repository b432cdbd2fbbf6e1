//! Issue 15 items 5, 6 and 9: engines in one order, load's regions, `info --json` members and
//! build version, `-o/--output`, limit flags only where they apply (D340-D342); every kelf and
//! load problem in one run (D343); completions, man page and colour (D344).

mod common;

use common::{SAMPLE, Value, json, neff, stdout, temp_dir, temp_file};

/// `EngineType` order (PE, ACT, POOL, DVE, SP), the one order of every report (D340).
const ENGINE_ORDER: [&str; 5] = ["pe", "act", "pool", "dve", "sp"];

/// The `"engine"` names of `doc["subgraphs"][0]["engines"]`.
fn engine_names(doc: &Value) -> Vec<String> {
    doc["subgraphs"][0]["engines"]
        .as_array()
        .expect("an engines list")
        .iter()
        .map(|e| e["engine"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn every_command_lists_engines_in_engine_type_order() {
    for command in ["kbin", "load", "lower"] {
        let doc = json([command, "--json", SAMPLE]);
        assert_eq!(engine_names(&doc), ENGINE_ORDER, "neff {command} --json");
    }
    let info = json(["info", "--json", SAMPLE]);
    let keys: Vec<&String> = info["kelf"]["graphs"][0]["engines"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ENGINE_ORDER, "neff info --json");
    let load = stdout(["load", SAMPLE]);
    let rows: Vec<&str> = load
        .lines()
        .filter_map(|l| l.strip_prefix("  ")?.split_whitespace().next())
        .filter(|w| ENGINE_ORDER.contains(w))
        .collect();
    assert_eq!(rows, ENGINE_ORDER, "neff load text:\n{load}");
    let text = stdout(["disasm", SAMPLE]);
    let (pe, pool) = (text.find("sg00/pe.bin"), text.find("sg00/pool.bin"));
    assert!(pe.is_some() && pe < pool, "disasm: pe before pool:\n{text}");
}

#[test]
fn info_members_carry_ls_offsets_and_the_header_its_build_version() {
    let info = json(["info", "--json", SAMPLE]);
    let ls = json(["ls", "--json", SAMPLE]);
    assert_eq!(info["members"], ls["members"]);
    assert!(info["members"][0]["offset"].as_u64().is_some());
    let text = stdout(["info", SAMPLE]);
    let shown = format!(
        "build_version        {:?}",
        info["header"]["build_version"]
            .as_str()
            .expect("build_version is a string")
    );
    assert!(text.contains(&shown), "{shown:?} not in:\n{text}");
    assert_eq!(info["kelf_errors"], serde_json::json!([]));
}

/// Every `neff` command path (`["bir", "fmt"]`, ...), from `neff help`'s listings.
fn commands() -> Vec<Vec<String>> {
    let mut out = Vec::new();
    for top in listed(&stdout(["--help"])) {
        let help = stdout([top.as_str(), "--help"]);
        let subs = listed(&help);
        if subs.is_empty() {
            out.push(vec![top]);
        } else {
            out.extend(subs.into_iter().map(|s| vec![top.clone(), s]));
        }
    }
    out
}

/// The command names of a help text's "Commands:" section (without `help`).
fn listed(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect()
}

/// Commands that read no NEFF: the limits on what a NEFF may declare do not apply (D342).
const NO_NEFF: [&str; 8] = [
    "asm",
    "synth",
    "completions",
    "man",
    "bir check",
    "bir fmt",
    "bir stats",
    "bir graph",
];

#[test]
fn limit_flags_only_on_commands_that_read_a_neff() {
    assert!(!stdout(["--help"]).contains("--max-members"));
    let all = commands();
    assert!(all.len() > 20, "{all:?}");
    for path in all {
        let help = stdout(path.iter().map(String::as_str).chain(["--help"]));
        let name = path.join(" ");
        let expected = usize::from(!NO_NEFF.contains(&name.as_str()));
        assert_eq!(
            help.matches("--max-members").count(),
            expected,
            "neff {name} --help"
        );
    }
    // The flag still works where it applies, and is refused where it does not.
    // Every reader applies the member count (streaming or buffered, D345).
    for command in [
        "ls", "info", "kbin", "load", "lower", "disasm", "validate", "sim",
    ] {
        neff()
            .args([command, SAMPLE, "--max-members", "3"])
            .assert()
            .code(1)
            .stderr(predicates::str::contains(
                "member count is 4, the limit is 3",
            ));
    }
    neff()
        .args(["synth", "--max-members", "3", "-o", "x.neff"])
        .assert()
        .code(2);
}

#[test]
fn output_files_are_named_by_dash_o_or_dash_dash_output_everywhere() {
    for path in commands() {
        let help = stdout(path.iter().map(String::as_str).chain(["--help"]));
        let name = path.join(" ");
        let writes = help.contains("--output") || help.contains("--out ");
        if writes {
            assert!(help.contains("-o, --output"), "neff {name} --help");
        }
        if name != "load" {
            assert!(
                !help.contains("--out "),
                "neff {name}: --out is load's alias only"
            );
        }
    }
}

/// The sample with `sg00/pe.json` and `sg00/act.json` no longer JSON: two kelf problems.
fn sample_with_two_broken_engine_jsons(dir: &tempfile::TempDir) -> std::path::PathBuf {
    let bytes = std::fs::read(SAMPLE).unwrap();
    let parsed = neff_container::Neff::parse(&bytes).unwrap();
    let mut b = neff_container::NeffBuilder::from_neff(&parsed);
    b.replace("sg00/pe.json", b"{ not json".to_vec()).unwrap();
    b.replace("sg00/act.json", b"[1, 2".to_vec()).unwrap();
    temp_file(dir, "two_broken.neff", b.build().unwrap())
}

/// The stderr of `neff COMMAND FILE`, which must exit 1 (invalid input).
fn stderr_of_invalid_input(command: &str, file: &std::path::Path) -> String {
    let out = neff()
        .arg(command)
        .arg(file)
        .assert()
        .code(1)
        .get_output()
        .clone();
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn kelf_problems_are_all_reported_in_one_run() {
    let dir = temp_dir();
    let bad = sample_with_two_broken_engine_jsons(&dir);
    let err = stderr_of_invalid_input("kbin", &bad);
    assert!(err.contains("2 problems"), "{err}");
    assert!(err.contains("sg00/pe.json: malformed JSON"), "{err}");
    assert!(err.contains("sg00/act.json: malformed JSON"), "{err}");
    assert!(stderr_of_invalid_input("load", &bad).contains("2 problems"));
}

#[test]
fn info_on_a_broken_kelf_warns_and_says_why_in_json() {
    let dir = temp_dir();
    let bad = sample_with_two_broken_engine_jsons(&dir);
    let out = neff()
        .arg("info")
        .arg("--json")
        .arg(&bad)
        .assert()
        .success()
        .get_output()
        .clone();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let errors = doc["kelf_errors"].as_array().expect("kelf_errors");
    assert_eq!(errors.len(), 2, "{doc}");
    assert!(errors[0].as_str().unwrap().contains("sg00/pe.json"));
    let warned = String::from_utf8(out.stderr).unwrap();
    assert_eq!(warned.matches("warning:").count(), 2, "{warned}");
}

#[test]
fn load_reports_every_engine_that_fails() {
    // The pool's DMA triggers copied into PE too, and their queue renamed in def.json and
    // pool.json: both engines' triggers name an undeclared queue.
    let bytes = std::fs::read(SAMPLE).unwrap();
    let parsed = neff_container::Neff::parse(&bytes).unwrap();
    let pool = parsed.member("sg00/pool.bin").unwrap().to_vec();
    let mut b = neff_container::NeffBuilder::from_neff(&parsed);
    b.replace("sg00/pe.bin", pool).unwrap();
    for member in ["sg00/def.json", "sg00/pool.json"] {
        let text = String::from_utf8(parsed.member(member).unwrap().to_vec()).unwrap();
        let renamed = text.replace("\"q_gradient_in\"", "\"q_renamed\"");
        b.replace(member, renamed.into_bytes()).unwrap();
    }
    let dir = temp_dir();
    let bad = temp_file(&dir, "two_engines.neff", b.build().unwrap());
    let err = stderr_of_invalid_input("load", &bad);
    assert!(err.contains("2 engines failed to load:"), "{err}");
    assert!(
        err.contains("\n  pe: ") && err.contains("\n  pool: "),
        "{err}"
    );
}

#[test]
fn completions_and_man_page_come_from_the_clap_definitions() {
    let bash = stdout(["completions", "bash"]);
    assert!(bash.contains("_neff()"), "{bash}");
    for command in ["disasm", "load", "completions", "man"] {
        assert!(bash.contains(command), "bash completion lacks {command}");
    }
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        assert!(!stdout(["completions", shell]).is_empty(), "{shell}");
    }
    neff().args(["completions", "tcsh"]).assert().code(2);
    let page = stdout(["man"]);
    assert!(page.contains(".TH neff 1"), "{page}");
    assert!(page.contains("disasm"), "the page lists the commands");
    let dir = temp_dir();
    neff()
        .args(["man", "-o"])
        .arg(dir.path())
        .assert()
        .success();
    for file in ["neff.1", "neff-load.1", "neff-bir-fmt.1"] {
        let text = std::fs::read_to_string(dir.path().join(file)).unwrap();
        assert!(text.contains(".TH"), "{file}");
    }
}

#[test]
fn colour_only_when_asked_for_and_never_with_no_color() {
    const ESC: &str = "\u{1b}[";
    let help = |env: &[(&str, &str)]| {
        let mut cmd = neff();
        cmd.env_remove("NO_COLOR").env_remove("CLICOLOR_FORCE");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let out = cmd.arg("--help").assert().success().get_output().clone();
        String::from_utf8(out.stdout).unwrap()
    };
    // Not a terminal: plain. Forced (CLICOLOR_FORCE, as a terminal would get): colour, so the
    // check below can fail. NO_COLOR wins over everything.
    assert!(!help(&[]).contains(ESC));
    assert!(help(&[("CLICOLOR_FORCE", "1")]).contains(ESC));
    assert!(!help(&[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")]).contains(ESC));
    let mut cmd = neff();
    cmd.env("CLICOLOR_FORCE", "1").env("NO_COLOR", "1");
    let out = cmd
        .arg("no-such-command")
        .assert()
        .code(2)
        .get_output()
        .clone();
    assert!(!String::from_utf8_lossy(&out.stderr).contains(ESC));
}
