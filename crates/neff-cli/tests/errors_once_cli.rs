//! Issue 15 item 3 (D301): an error says each thing once, in text and in the `--json` chain.
//! The rule: an error's Display is its own clause; its cause is reached through `source()`
//! (and `{:#}` joins them); an error that adds nothing is `#[error(transparent)]`.

mod common;

use std::path::{Path, PathBuf};

use common::{SAMPLE, Value, neff, temp_dir};

/// The `{"error": ...}` of `neff ARGS --json`, which must exit 1.
fn json_error(args: &[&std::ffi::OsStr]) -> Value {
    let out = neff()
        .args(args)
        .arg("--json")
        .assert()
        .code(1)
        .get_output()
        .clone();
    serde_json::from_slice(&out.stderr).expect("a JSON error on stderr")
}

/// The `error: ...` line of `neff ARGS`, which must exit 1.
fn text_error(args: &[&std::ffi::OsStr]) -> String {
    let out = neff().args(args).assert().code(1).get_output().clone();
    String::from_utf8(out.stderr).expect("UTF-8 stderr")
}

/// No link of the chain repeats its cause, and `clause` appears exactly once in the message.
fn says_once(error: &Value, clause: &str) {
    let chain: Vec<&str> = error["error"]["chain"]
        .as_array()
        .expect("a chain")
        .iter()
        .map(|c| c.as_str().unwrap())
        .collect();
    for pair in chain.windows(2) {
        assert!(!pair[0].contains(pair[1]), "{pair:?} repeats its cause");
    }
    let message = error["error"]["message"].as_str().unwrap();
    assert_eq!(message.matches(clause).count(), 1, "{message}");
}

/// The sample with the pool's DMA queue `q_gradient_in` renamed in def.json and pool.json, so
/// the pool's trigger names a queue def.json does not declare.
fn sample_with_undeclared_queue(dir: &Path) -> PathBuf {
    let tree = dir.join("tree");
    neff()
        .args(["extract", SAMPLE, "-C"])
        .arg(&tree)
        .assert()
        .success();
    for member in ["sg00/def.json", "sg00/pool.json"] {
        let path = tree.join(member);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("\"q_gradient_in\""), "{member} changed");
        std::fs::write(&path, text.replace("\"q_gradient_in\"", "\"q_renamed\"")).unwrap();
    }
    let bad = dir.join("bad.neff");
    neff()
        .arg("pack")
        .arg(&tree)
        .arg("-o")
        .arg(&bad)
        .args(["--like", SAMPLE])
        .assert()
        .success();
    bad
}

#[test]
fn load_of_an_undeclared_queue_says_it_once() {
    let dir = temp_dir();
    let bad = sample_with_undeclared_queue(dir.path());
    let clause = "DMA queue `q_gradient_in` is not declared";
    let args = ["load".as_ref(), bad.as_os_str()];
    says_once(&json_error(&args), clause);
    let text = text_error(&args);
    assert_eq!(text.matches(clause).count(), 1, "{text}");
    assert!(text.contains(": pool: "), "the engine is named: {text}");
}

#[test]
fn a_failed_atomic_write_says_the_os_error_once() {
    let dir = temp_dir();
    let nowhere = dir.path().join("no/such/folder/out.neff");
    let args = ["synth".as_ref(), "-o".as_ref(), nowhere.as_os_str()];
    let text = text_error(&args);
    assert_eq!(
        text.matches("No such file or directory").count(),
        1,
        "{text}"
    );
}

#[test]
fn a_missing_profile_says_the_os_error_once() {
    let dir = temp_dir();
    let missing = dir.path().join("missing.json");
    let args = [
        "ip".as_ref(),
        SAMPLE.as_ref(),
        "--profile".as_ref(),
        missing.as_os_str(),
    ];
    let text = text_error(&args);
    assert_eq!(
        text.matches("No such file or directory").count(),
        1,
        "{text}"
    );
}
