//! The workspace's Cargo manifests (issue 15 item 7): every crate says what it is (`description`),
//! every dependency a crate declares is named by its code, and every `[workspace.dependencies]`
//! entry is used by some crate. The manifests are read as lines (`name.workspace = true` /
//! `name = ...` under a `[dependencies]`-style table), which is how this workspace writes them.

mod common;

use std::path::{Path, PathBuf};

use common::{rust_files, workspace};

/// The crates: every `crates/*`, `python` and `fuzz`.
fn crate_dirs() -> Vec<PathBuf> {
    let root = workspace();
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root.join("crates"))
        .expect("crates/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("Cargo.toml").is_file())
        .collect();
    dirs.extend([root.join("python"), root.join("fuzz")]);
    dirs.sort();
    dirs
}

/// The dependency names under table `table` (e.g. `dependencies`) of a manifest.
fn deps(manifest: &str, table: &str) -> Vec<String> {
    let header = format!("[{table}]");
    let mut inside = false;
    let mut out = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == header;
        } else if inside && !line.is_empty() && !line.starts_with('#') {
            let key = line.split(['=', '.', ' ']).next().unwrap_or("");
            out.push(key.to_owned());
        }
    }
    out
}

/// The Rust identifier a dependency is used by.
fn ident(dep: &str) -> String {
    match dep {
        "md-5" => "md5".to_owned(),
        d => d.replace('-', "_"),
    }
}

/// The text of every `.rs` file below `dir`, appended to `out`.
fn sources(dir: &Path, out: &mut String) {
    let mut files = Vec::new();
    rust_files(dir, &mut files);
    for f in files {
        out.push_str(&std::fs::read_to_string(f).unwrap());
    }
}

fn names(text: &str, word: &str) -> bool {
    text.match_indices(word).any(|(i, _)| {
        let ok = |c: Option<char>| !c.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        ok(text[..i].chars().next_back()) && ok(text[i + word.len()..].chars().next())
    })
}

#[test]
fn every_crate_has_a_description() {
    for dir in crate_dirs() {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        assert!(
            manifest.lines().any(|l| l.starts_with("description = \"")),
            "{} has no description",
            dir.display()
        );
    }
}

#[test]
fn every_declared_dependency_is_used() {
    let mut unused = Vec::new();
    for dir in crate_dirs() {
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
        let mut lib = String::new();
        for d in ["src", "fuzz_targets"] {
            sources(&dir.join(d), &mut lib);
        }
        if let Ok(b) = std::fs::read_to_string(dir.join("build.rs")) {
            lib.push_str(&b);
        }
        let mut all = lib.clone();
        for d in ["tests", "benches", "examples"] {
            sources(&dir.join(d), &mut all);
        }
        for (table, text) in [("dependencies", &lib), ("dev-dependencies", &all)] {
            for dep in deps(&manifest, table) {
                if !names(text, &ident(&dep)) {
                    unused.push(format!("{}: [{table}] {dep}", dir.display()));
                }
            }
        }
    }
    assert!(
        unused.is_empty(),
        "declared but never named:\n{}",
        unused.join("\n")
    );
}

#[test]
fn every_workspace_dependency_is_used_by_a_crate() {
    let root = std::fs::read_to_string(workspace().join("Cargo.toml")).unwrap();
    let declared: Vec<String> = crate_dirs()
        .iter()
        .flat_map(|dir| {
            let m = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
            ["dependencies", "dev-dependencies", "build-dependencies"]
                .into_iter()
                .flat_map(move |t| deps(&m, t))
        })
        .collect();
    let unused: Vec<String> = deps(&root, "workspace.dependencies")
        .into_iter()
        .filter(|d| !declared.contains(d))
        .collect();
    assert!(
        unused.is_empty(),
        "unused workspace dependencies: {unused:?}"
    );
}
